// Package mcpgo serves mcpform's forms and flows from tool handlers of
// servers built on github.com/mark3labs/mcp-go: the same compiled
// [mcpform.Form] and [mcpform.Flow] a go-sdk server uses, with mcp-go's own
// request and result types at the edge.
//
// A handler that asks for a form reads the answer first, and asks when
// there is none:
//
//	form, _ := mcpform.FormFor[Booking](&mcpform.FormOptions{Key: "booking", Message: "Book a room"})
//
//	srv.AddTool(mcp.NewTool("book"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//		reply := mcpgo.ReadCall(ctx, form, req)
//		switch reply.Status {
//		case mcpform.ReplyNone:
//			return mcpgo.Ask(ctx, form, req, "")
//		case mcpform.ReplyInvalid:
//			return mcpgo.Reask(form, reply, ""), nil
//		case mcpform.ReplyAccepted:
//			return mcp.NewToolResultText("booked " + reply.Value.Room), nil
//		}
//		return mcp.NewToolResultText("not booked"), nil
//	})
//
// [Ask] sends the schema compiled into the form, titled choices and
// defaults included, as JSON marshalled once; [ReadCall] judges the answer
// with the one checker mcpform has, as a JSON Schema validator would, and
// decodes it into the form's Go type; [Reask] asks again, naming each
// problem and pre-filling what was accepted.
//
// A form that branches over several rounds is a [mcpform.Flow], and its
// handler calls [Next] each round: the flow's state is sealed, bound to
// the principal, the tool and the call's arguments; proven answers are
// checked again each round against the steps as they are now (pins); and
// secret fields are asked in URL mode on the flow's
// [mcpform.Flow.SecretPage], which the server mounts on its own HTTP mux.
// A replayed final round finishes again with the same [FlowRound].ID:
// gate whatever the flow triggers with [FlowRound.Once], on the flow's
// FlowOptions.Outcomes (an [mcpform.SQLStore], shared by replicas and by
// go-sdk's face), so that it happens once per run.
//
// # Principal
//
// mcp-go hands a tool handler who the caller is only through the context:
// what the server's auth middleware, or its HTTPContextFunc
// (server.WithHTTPContextFunc), put there from the request's token. A flow
// reads it with FlowOptions.ContextPrincipal (a form with a Codec, with
// FormOptions.ContextPrincipal), which Next, Ask and ReadCall call with the
// handler's ctx. A flow compiled once for go-sdk and mcp-go sets both
// Principal (go-sdk's) and ContextPrincipal; Next refuses a flow that set
// only Principal rather than bind its state to no one.
//
// # Paths
//
// Next asks each step the way the client can answer, chosen by the same
// picker as on go-sdk: a native form (and URL mode for secrets, where the
// client declared it); on an MCP Apps host without form elicitation, a
// prefab view, which submits through the app-only companion tool that
// [AddViewer] registers beside the viewer resource; a secret page's link
// in an ordinary result; and, opted in with FlowOptions.AskModel, a
// request through the model. Attach the viewer to each tool with
// [AttachViewer], give the tool the flow's InputSchema, and declare the
// MCP Apps extension with server.WithExtensions. A lone form ([Ask],
// [ReadCall]) takes the same paths, chosen the same way, once its
// FormOptions set a Codec (and AskModel for the model); without one it is
// asked natively only.
//
// # Protocol revisions
//
// On 2026-07-28 the client fulfils the input_required result and retries
// with the answers and the state. On the legacy handshake mcp-go's own
// server bridge asks with elicitation/create and calls the handler again
// with the answers, up to ten times, so every round of a flow works there
// too; nothing else is needed. A secret's page is the one round that
// outlasts a call of the handler: once the person consents to its link,
// [Next] waits for the page to be sent (see Next).
//
// # Serving, and the spec's error codes
//
// Serve srv with mcp-go's own transports; nothing needs wrapping:
//
//	srv := server.NewMCPServer("booking", "v1")
//	srv.AddTool(mcp.NewTool("book"), book)
//	err := server.ServeStdio(srv, server.WithStdioContextFunc(withUser))
//
//	mux.Handle("/mcp", server.NewStreamableHTTPServer(srv, server.WithHTTPContextFunc(userFromToken)))
//
// The spec answers a request state that does not verify with JSON-RPC
// -32602 (Invalid params), message "Invalid or expired requestState" and
// data {"reason":"invalid_request_state"}, and a client that declared no
// way to answer with -32021 and data {"requiredCapabilities": ...}. The
// errors [Ask] and [Next] return for these are made with mcp-go's
// server.NewHandlerError, so mcp-go sends the spec's code, message and
// data on every transport (stdio, streamable HTTP, in process), on the
// legacy handshake too, and on 2026-07-28 streamable HTTP with status
// 400. A handler returns them as they are, or wrapped with %w; another
// handler's error keeps mcp-go's -32603, whatever its text. Each also
// unwraps to mcp-go's own error for the code, mcp.ErrInvalidParams or
// mcp.MissingRequiredClientCapabilityError, so errors.Is finds it; the
// text of a state's error never carries the token or why it failed, and
// Unwrap gives the mcpform error (such as mcpform.ErrMAC) for the
// server's own logs.
//
// On 2026-07-28 the client's capabilities come with each request. On the
// legacy handshake Next and Ask read the session's, through the context.
package mcpgo
