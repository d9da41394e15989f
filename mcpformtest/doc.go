// Package mcpformtest tests an MCP tool on the hosts it will meet, in the
// manner of net/http/httptest: a [Client] plays one kind of [Host] against
// a server in memory, answers its questions from a script of [Answer]s,
// posts its secret pages, and reports every [Round].
//
// The client speaks JSON-RPC itself rather than through go-sdk's client,
// which checks each answer against the schema before sending it and
// retries input_required calls on its own: a test must be able to send
// what a careless host or person would, such as a number out of range,
// and see the server ask again.
//
// Five hosts are defined, one for each kind people use: [Full], [CLI],
// [Editor], [AppsOnly] and [Bare]; [Hosts] lists them, for a
// table-driven test of a tool on every host. [NewClient] runs a go-sdk
// server in memory; [Dial] takes any transport, such as [Pipe] for a
// server that serves a stream (mcp-go's stdio server), or go-sdk's
// streamable client transport to an http.Handler.
package mcpformtest
