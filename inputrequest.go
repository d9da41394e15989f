package mcpform

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [InputRequestOptions].
const (
	DefaultInputKey     = "form"
	DefaultInputMessage = "Please provide the following information"
)

// InputRequestOptions configures [FormInputRequest]. A nil *InputRequestOptions
// and zero fields mean the defaults.
type InputRequestOptions struct {
	// Key names the request in the result's InputRequests; the client
	// answers under the same key. Empty means [DefaultInputKey].
	Key string
	// Message is shown to the person above the form. Empty means
	// [DefaultInputMessage].
	Message string
	// RequestState is echoed by the client on the retry. It comes back
	// attacker-controlled: seal it with a [RequestStateCodec]. Empty sends
	// no state.
	RequestState string
}

// FormInputRequest returns a tool result that asks the client to collect
// fields and retry the call: an input_required result carrying one form
// elicitation under opts.Key, whose schema is [FormSchema] of fields, and
// opts.RequestState.
//
// Return the result from a tool handler as it is. On the retry, read the
// answer with [AcceptedFormInput] under the same key. For a client older than
// protocol revision 2026-07-28, go-sdk fulfils the request itself by sending
// elicitation/create and calls the handler again, so the same handler serves
// both.
//
// FormInputRequest refuses an empty field list with [ErrNoFields], because
// the client would have nothing to ask, and a broken definition as
// [FormSchema] does.
func FormInputRequest(fields []AutoFormField, opts *InputRequestOptions) (*mcp.CallToolResult, error) {
	schema, err := FormSchema(fields)
	if err != nil {
		return nil, err
	}
	var o InputRequestOptions
	if opts != nil {
		o = *opts
	}
	if o.Key == "" {
		o.Key = DefaultInputKey
	}
	if o.Message == "" {
		o.Message = DefaultInputMessage
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			o.Key: &mcp.ElicitParams{Mode: "form", Message: o.Message, RequestedSchema: schema},
		},
		RequestState: o.RequestState,
	}, nil
}

// maxLegacyRounds bounds the rounds [LegacyRounds] asks for in one call, as
// go-sdk's client bounds its own retry loop.
const maxLegacyRounds = 10

// firstStatelessRevision is the protocol revision that introduced
// input_required results.
const firstStatelessRevision = "2026-07-28"

// LegacyRounds is go-sdk receiving middleware that lets a client older than
// protocol revision 2026-07-28 answer a tool call that asks for input in
// several rounds, such as a [Flow] with two steps or a form asked again.
//
// Such a client knows nothing of input_required. go-sdk bridges for it: it
// sends each input request to the client as elicitation/create and calls the
// handler again with the answers, but only once; a second round would reach
// the client as a result it cannot read. LegacyRounds keeps bridging while
// the handler's result asks for input, up to 10 rounds, passing the answers
// and the request state back exactly as a 2026-07-28 client retries, so the
// handler cannot tell the difference and is still written once. Calls from
// newer clients, and requests other than tools/call, pass through.
//
// Add it with server.AddReceivingMiddleware(mcpform.LegacyRounds) after
// creating the server, so that go-sdk's own bridge is the inner middleware.
// It needs a session that can send requests to the client: over streamable
// HTTP, a stateful handler.
func LegacyRounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		// go-sdk takes a call without a known version to be the latest.
		if !ok || method != "tools/call" || call.Params == nil || call.Session == nil {
			return next(ctx, method, req)
		}
		if v := call.ProtocolVersion(); v == "" || v >= firstStatelessRevision {
			return next(ctx, method, req)
		}
		for round := 1; ; round++ {
			res, err := next(ctx, method, call)
			r, ok := res.(*mcp.CallToolResult)
			if err != nil || !ok || r == nil || len(r.InputRequests) == 0 || round == maxLegacyRounds {
				return res, err
			}
			answers := make(mcp.InputResponseMap, len(r.InputRequests))
			for key, ir := range r.InputRequests {
				p, ok := ir.(*mcp.ElicitParams)
				if !ok {
					return res, nil // sampling or roots: not ours to bridge
				}
				a, err := call.Session.Elicit(ctx, p)
				if err != nil {
					return nil, err
				}
				answers[key] = a
			}
			retry := *call.Params
			retry.InputResponses, retry.RequestState = answers, r.RequestState
			call = &mcp.CallToolRequest{Session: call.Session, Params: &retry, Extra: call.Extra}
		}
	}
}
