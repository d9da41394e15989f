package mcpgo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves srv over stdio, reading in and writing out, until ctx
// is done or in ends, as mcp-go's (*server.StdioServer).Listen does with
// opts; the one difference is the JSON-RPC code of the errors of [Ask] and
// [Next] that a tool handler returns: a request state that does not
// verify is sent as -32602, a client that cannot answer as -32021 with
// data.requiredCapabilities, where mcp-go alone sends -32603. Every other
// message, other tools' errors included, goes out as mcp-go wrote it.
//
// As with Listen, the end of in cancels the calls still running, whose
// answers may then never be written: a client hangs up after its last
// answer. A program serves os.Stdin and os.Stdout, with a ctx that
// signal.NotifyContext ends; mcp-go's stdio session is one per process,
// so a process serves stdio once at a time. ServeStdio adds a hook to
// srv's server.Hooks (see [NewStreamableHTTPServer]). A nil srv is an
// error.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, opts ...server.StdioOption) error {
	if srv == nil {
		return errors.New("mcpform: ServeStdio of a nil server")
	}
	hook(srv)
	s := server.NewStdioServer(srv)
	for _, opt := range opts {
		opt(s)
	}
	ctx, p := withPending(ctx)
	return s.Listen(ctx, in, &lines{w: out, p: p})
}

// NewStreamableHTTPServer returns mcp-go's streamable HTTP handler of srv,
// server.NewStreamableHTTPServer(srv, opts...), with the errors of [Ask]
// and [Next] sent with the spec's codes as [ServeStdio] sends them; on
// 2026-07-28 with status 400, as mcp-go sends its own -32602. Mount it on
// the endpoint path (/mcp unless opts say otherwise) of the program's own
// mux and http.Server, which also stop it; opts that start a server of
// mcp-go's own (server.WithStreamableHTTPServer) do not apply.
//
// A response it holds or streams is rewritten only when it answers a
// tools/call whose handler returned an error mcpform made: it adds an
// OnError hook to srv's server.Hooks (new Hooks when srv has none), once
// per server, which sees the request's id and the error. Call it, and
// ServeStdio, before srv serves on another transport. A response replayed
// from a server.WithEventStore store, and the in-process transport, keep
// mcp-go's -32603. srv must not be nil.
func NewStreamableHTTPServer(srv *server.MCPServer, opts ...server.StreamableHTTPOption) http.Handler {
	hook(srv)
	h := server.NewStreamableHTTPServer(srv, opts...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost { // GET's stream carries no tools/call response
			h.ServeHTTP(w, r)
			return
		}
		ctx, p := withPending(r.Context())
		hw := &httpWriter{ResponseWriter: w, p: p}
		h.ServeHTTP(hw, r.WithContext(ctx))
		hw.finish()
	})
}

// hooked are the servers record is a hook of.
var hooked sync.Map

// hook adds record to srv's OnError hooks, once.
func hook(srv *server.MCPServer) {
	if _, done := hooked.LoadOrStore(srv, true); done {
		return
	}
	h := srv.GetHooks()
	if h == nil {
		h = &server.Hooks{}
		server.WithHooks(h)(srv)
	}
	h.AddOnError(record)
}
