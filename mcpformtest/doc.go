// Package mcpformtest tests an MCP tool on the hosts it will meet, in the
// manner of net/http/httptest: a [Client] plays one kind of [Host] against
// a server in memory, answers its questions from a script of [Answer]s,
// posts its secret pages, and reports every [Round]: the path it took,
// the questions shown, the problems named, and the outcome.
//
// Five hosts are defined, one for each kind people use: [Full], [CLI],
// [Editor], [AppsOnly] and [Bare]; [Hosts] lists them, for a
// table-driven test of a tool on every host.
//
// The client speaks JSON-RPC itself rather than through go-sdk's client,
// which checks each answer against the schema before sending it and, on
// 2026-07-28, retries input_required calls on its own. A test must be able
// to send what a careless host or person would, such as a number out of
// range, and see the server ask again. (A test that drives go-sdk's client
// by hand turns its retry off with ClientOptions.MultiRoundTrip set to
// &mcp.MultiRoundTripOptions{Disabled: true}.)
//
// [NewClient] runs a go-sdk server in memory. [Dial] takes the client's
// end of any transport, so a server on another SDK plugs in too: an
// mcp-go server through [Pipe] and its stdio server,
//
//	tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
//		return server.NewStdioServer(srv).Listen(ctx, in, out)
//	})
//	c := mcpformtest.Dial(t, tr, mcpformtest.Editor)
//
// a binary through go-sdk's CommandTransport, or an http.Handler through
// go-sdk's StreamableClientTransport to an httptest.Server (go-sdk's own
// handler serves 2026-07-28 only with StreamableHTTPOptions.Stateless).
package mcpformtest
