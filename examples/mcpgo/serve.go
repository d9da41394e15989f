package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform/examples/internal/deploy"
)

// mcpPath is where the HTTP server serves MCP.
const mcpPath = "/mcp"

// maxBody fits any request of the tools many times over.
const maxBody = 64 << 10

// serveStdio serves srv over stdin and stdout until the client goes away
// or ctx is done, and the secret page on ln, a loopback port of its own,
// since stdio has no HTTP server to mount it on.
func serveStdio(ctx context.Context, s *signup, srv *server.MCPServer, ln net.Listener) error {
	defer servePage(ln, s.secretPage())()
	// mcp-go's own stdio server, with ctx rather than server.ServeStdio's
	// signal handler, so that one signal stops it and the page together.
	stdio := server.NewStdioServer(srv)
	stdio.SetContextFunc(s.withPrincipal)
	err := stdio.Listen(ctx, os.Stdin, os.Stdout)
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // stopped by a signal, or the client went away
	}
	return err
}

// serveHTTP serves srv's streamable HTTP handler on ln at mcpPath, for
// clients of every protocol revision (mcp-go serves 2026-07-28 calls and
// older clients' sessions on one handler), and the secret page next to
// it, until ctx is done, after printing the URL to log on one line.
func serveHTTP(ctx context.Context, s *signup, srv *server.MCPServer, ln net.Listener, log io.Writer) error {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, http.MaxBytesHandler(server.NewStreamableHTTPServer(srv, server.WithHTTPContextFunc(
		func(ctx context.Context, _ *http.Request) context.Context { return s.withPrincipal(ctx) })), maxBody))
	mux.Handle(secretPath, s.secretPage())
	hs := newHTTPServer(mux)
	fmt.Fprintf(log, "mcpform mcpgo: listening on http://%s%s\n", ln.Addr(), mcpPath)
	// An older client's event stream would hold Shutdown for its whole
	// grace period: give it a little, then close what is left.
	return deploy.Serve(ctx, hs, ln, 2*time.Second)
}

// newHTTPServer returns an HTTP server for h, as deploy.NewHTTPServer
// bounds it.
func newHTTPServer(h http.Handler) *http.Server { return deploy.NewHTTPServer(h, maxBody) }

// listenHTTP and onLoopback are deploy's, shared with examples/signup.
var (
	listenHTTP = deploy.Listen
	onLoopback = deploy.OnLoopback
)

// servePage serves the secret page alone on ln, at secretPath, and returns
// the function that stops it.
func servePage(ln net.Listener, page http.Handler) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle(secretPath, page)
	hs := newHTTPServer(mux)
	go hs.Serve(ln)
	return func() { hs.Close() }
}

// pageURLOf is the secret page's URL on ln.
func pageURLOf(ln net.Listener) string { return "http://" + ln.Addr().String() + secretPath }
