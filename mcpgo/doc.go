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
// Serve srv with [ServeStdio] and [NewStreamableHTTPServer] rather than
// mcp-go's own server.ServeStdio and server.NewStreamableHTTPServer:
//
//	srv := server.NewMCPServer("booking", "v1")
//	srv.AddTool(mcp.NewTool("book"), book)
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	err := mcpgo.ServeStdio(ctx, srv, os.Stdin, os.Stdout, server.WithStdioContextFunc(withUser))
//
//	mux.Handle("/mcp", mcpgo.NewStreamableHTTPServer(srv, server.WithHTTPContextFunc(userFromToken)))
//
// The spec answers a request state that does not verify with JSON-RPC
// -32602 (Invalid params) and data {"reason":"invalid_request_state"}, and
// a client that declared no way to answer with -32021 and data
// {"requiredCapabilities": ...}. mcp-go v1.2.1 sends every error a tool
// handler returns as -32603 (internal error) with the error's text; its
// hooks (OnRequestInitialization can refuse, with -32600 only), its tool
// middleware (which returns the same error) and its transports (which
// take the concrete *server.MCPServer) offer no way to choose the code.
// So the two wrappers of its transports do it: an OnError hook sees each
// tools/call error with its JSON-RPC id, and when the error is one Ask or
// Next made, the wrapper writes that one response with the spec's code,
// message and data (over HTTP on 2026-07-28, with status 400, as mcp-go
// sends its own -32602). Every other response goes out as mcp-go wrote
// it; another handler's error keeps -32603, whatever its text. Both
// codes are sent on the legacy handshake too, as go-sdk's face sends them.
//
// On any other transport (mcp-go's own, or its in-process client) the
// errors still fail the call as JSON-RPC errors, never as a result a
// client would take as the outcome: -32603 whose text is the spec's
// message ("Invalid or expired requestState", with its reason) or carries
// the spec's data verbatim ({"requiredCapabilities":{"elicitation":
// {"form":{}}}}). Each wraps mcp-go's own error for the spec's code,
// mcp.ErrInvalidParams or mcp.MissingRequiredClientCapabilityError, so
// errors.Is finds it, and an mcp-go that maps those from handlers will
// send the right code with no change here.
//
// On 2026-07-28 the client's capabilities come with each request. On the
// legacy handshake Next and Ask read the session's, through the context.
package mcpgo
