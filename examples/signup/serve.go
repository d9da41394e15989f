package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveStdio serves server over stdin and stdout until the client goes away
// or ctx is done. Nothing else may write to stdout.
func serveStdio(ctx context.Context, server *mcp.Server) error {
	err := server.Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// The MCP-Protocol-Version and Mcp-Session-Id headers of streamable HTTP.
const (
	protocolVersionHeader = "Mcp-Protocol-Version"
	sessionIDHeader       = "Mcp-Session-Id"
	// statelessProtocol is the first revision served statelessly.
	statelessProtocol = "2026-07-28"
)

// newHTTPHandler returns the streamable HTTP handler for server, for clients
// of every protocol revision.
//
// go-sdk v1.8.0 serves the two generations of clients with two handlers,
// and neither handler serves both:
//
//   - A 2026-07-28 client is stateless: no initialize, no session, and each
//     request names its revision in the MCP-Protocol-Version header (and its
//     capabilities in _meta). A stateful handler refuses such a request with
//     "protocol version not supported"; only a stateless handler serves it.
//     Input is asked for by returning input_required, which the client
//     answers by retrying the call, so statelessness costs nothing.
//   - An older client initializes a session, and the server asks it for
//     input by sending elicitation/create. go-sdk does that for us when the
//     handler returns input_required (its compatibility bridge), but only
//     on a session that can carry a server-to-client request: a stateless
//     handler rejects that request at once, so these clients need the
//     stateful handler.
//
// So one *mcp.Server sits behind both, and each request is routed: a request
// with a session ID belongs to that session; otherwise a request whose
// MCP-Protocol-Version is 2026-07-28 or later goes to the stateless handler;
// everything else (initialize, which carries no version header, and
// requests of older revisions) goes to the stateful one. Revisions are
// dates, so comparing them as strings orders them.
func newHTTPHandler(server *mcp.Server) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return server }
	stateful := mcp.NewStreamableHTTPHandler(getServer, nil)
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(sessionIDHeader) == "" && r.Header.Get(protocolVersionHeader) >= statelessProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// mcpPath is where the HTTP server serves MCP.
const mcpPath = "/mcp"

// listenHTTP listens on addr, which defaults to loopback: a bare port or
// ":port" listens on 127.0.0.1 only. Port 0 picks a free port.
func listenHTTP(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// A bare port, such as "8080".
		host, port = "", addr
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// serveHTTP serves server's streamable HTTP handler on ln until ctx is done,
// after printing the URL to log on one line.
func serveHTTP(ctx context.Context, ln net.Listener, server *mcp.Server, log io.Writer) error {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, newHTTPHandler(server))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	// On shutdown, end what would otherwise hold it up for its whole
	// grace period: the event streams of older clients' sessions, and
	// connections that were opened but have sent no request (net/http
	// counts those as busy for five seconds).
	var mu sync.Mutex
	fresh := map[net.Conn]bool{}
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		if state == http.StateNew {
			fresh[c] = true
		} else {
			delete(fresh, c)
		}
	}
	srv.RegisterOnShutdown(func() {
		for ss := range server.Sessions() {
			ss.Close()
		}
		mu.Lock()
		defer mu.Unlock()
		for c := range fresh {
			c.Close()
		}
	})

	fmt.Fprintf(log, "mcpform signup: listening on http://%s%s\n", ln.Addr(), mcpPath)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(grace); err != nil {
		srv.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
