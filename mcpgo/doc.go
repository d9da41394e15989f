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
//		reply := mcpgo.Read(form, req)
//		switch reply.Status {
//		case mcpform.ReplyNone:
//			return mcpgo.Ask(form, req, "")
//		case mcpform.ReplyInvalid:
//			return mcpgo.Reask(form, reply, ""), nil
//		case mcpform.ReplyAccepted:
//			return mcp.NewToolResultText("booked " + reply.Value.Room), nil
//		}
//		return mcp.NewToolResultText("not booked"), nil
//	})
//
// [Ask] sends the schema compiled into the form, titled choices and
// defaults included, as JSON marshalled once; [Read] judges the answer
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
// reads it with FlowOptions.ContextPrincipal, which Next calls with the
// handler's ctx. A flow compiled once for go-sdk and mcp-go sets both
// Principal (go-sdk's) and ContextPrincipal; Next refuses a flow that set
// only Principal rather than bind its state to no one.
//
// # Protocol revisions
//
// On 2026-07-28 the client fulfils the input_required result and retries
// with the answers and the state. On the legacy handshake mcp-go's own
// server bridge asks with elicitation/create and calls the handler again
// with the answers, up to ten times, so every round of a flow works there
// too; nothing else is needed.
//
// # Errors, and what mcp-go lacks
//
// The spec answers a request state that does not verify with JSON-RPC
// -32602 (Invalid params), and a client that declared no way to answer with
// -32021 and data {"requiredCapabilities": ...}. mcp-go v1.2.1 sends every
// error a tool handler returns as -32603 (internal error) with the error's
// text; the one exception is mcp.URLElicitationRequiredError on the legacy
// handshake. Its hooks (OnRequestInitialization can refuse, with -32600
// only), its tool middleware (which returns the same error) and its
// transports (which take the concrete *server.MCPServer) offer no way to
// choose the code of a tools/call error. So Ask and Next return the
// closest thing: a JSON-RPC error, never a result a client would take as
// the outcome, whose text is the spec's message ("Invalid or expired
// requestState", with its reason) or carries the spec's data verbatim
// ({"requiredCapabilities":{"elicitation":{"form":{}}}}). Each wraps
// mcp-go's own error for the spec's code, mcp.ErrInvalidParams or
// mcp.MissingRequiredClientCapabilityError, so errors.Is finds it, and an
// mcp-go that maps those from handlers will send the right code unchanged.
//
// On 2026-07-28 the client's capabilities come with each request. On the
// legacy handshake Next reads the session's, through the context; Ask has
// no context, so it asks, and mcp-go's bridge fails for a client that
// cannot answer.
package mcpgo
