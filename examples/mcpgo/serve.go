package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform/mcpgo"
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
	// mcpgo's wrapper of mcp-go's stdio sends the spec's error codes.
	err := mcpgo.ServeStdio(ctx, srv, os.Stdin, os.Stdout, server.WithStdioContextFunc(s.withPrincipal))
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
	mux.Handle(mcpPath, http.MaxBytesHandler(mcpgo.NewStreamableHTTPServer(srv, server.WithHTTPContextFunc(
		func(ctx context.Context, _ *http.Request) context.Context { return s.withPrincipal(ctx) })), maxBody))
	mux.Handle(secretPath, s.secretPage())
	hs := newHTTPServer(mux)
	fmt.Fprintf(log, "mcpform mcpgo: listening on http://%s%s\n", ln.Addr(), mcpPath)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// An older client's event stream would hold Shutdown for its whole
	// grace period: give it a little, then close what is left.
	grace, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(grace); err != nil {
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHTTPServer returns an HTTP server for h. It has no ReadTimeout or
// WriteTimeout: an older client's event stream, and a call waiting on a
// person, stay open for minutes; headers and idle connections are bounded.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: maxBody}
}

// servePage serves the secret page alone on ln, at secretPath, and returns
// the function that stops it.
func servePage(ln net.Listener, page http.Handler) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle(secretPath, page)
	hs := newHTTPServer(mux)
	go hs.Serve(ln)
	return func() { hs.Close() }
}

// listenHTTP listens on addr, which defaults to loopback: a bare port or
// ":port" listens on 127.0.0.1 only. Port 0 picks a free port.
func listenHTTP(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "", addr // a bare port, such as "8080"
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// pageURLOf is the secret page's URL on ln.
func pageURLOf(ln net.Listener) string { return "http://" + ln.Addr().String() + secretPath }

// onLoopback reports whether the secret page answers this machine alone:
// ln listens on a loopback address, and pageURL, which the person's
// browser opens, names a loopback host.
func onLoopback(ln net.Listener, pageURL string) bool {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	u, err := url.Parse(pageURL)
	if !ok || !tcp.IP.IsLoopback() || err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}
