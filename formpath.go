package mcpform

import (
	"bytes"
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Ask returns the result that asks for the form in the way the client of
// req can answer, chosen as a [Flow] chooses for each step: [Form.InputRequest]
// for a client that declared form elicitation, carrying requestState;
// with [FormOptions].Codec, a prefab view on an MCP Apps host that cannot
// answer a form, and, with AskModel too, the model, unless the form has a
// boolean field (a confirmation fails closed); and to any other client
// the JSON-RPC error of [NeedCapabilities], -32021, which the handler
// returns as it is. A form without a Codec is asked natively only.
// [Form.ReadCall] reads the answer on every path. On the view and model
// paths, the form carries a state of its own in the arguments, under
// [StateArgument], and requestState is not sent; the tool's input schema
// must let the state and the fields' names through. A state in req's
// arguments that does not verify is answered with the -32602 error of
// [RejectState].
//
// A form with secret fields is asked only as a [Step] of a [Flow], which
// asks the secrets in URL mode; Ask refuses it, because the form-mode
// request would leave them out.
func (f *Form[T]) Ask(req *mcp.CallToolRequest, requestState string) (*mcp.CallToolResult, error) {
	if len(f.c.secrets) > 0 {
		return nil, fmt.Errorf("mcpform: field %q is secret: ask the form as a Flow step, which asks it in URL mode", f.c.secrets[0].Name)
	}
	call := (*sdkCall)(req)
	can, model := reachOf(call), false
	if f.flow == nil {
		can.native = true // no keys: no state to read answers with off the native path
	} else {
		model = f.flow.model
	}
	path, err := choosePath(call, can, f.c, model)
	if err != nil {
		return nil, err
	}
	if path == PathNative {
		return f.c.in(callLang(call)).reask(nil, nil, requestState), nil
	}
	// The view and the model: the form is a flow of one step, whose
	// round mints the state its answer is read with.
	r, err := f.flow.next(context.Background(), call)
	if err != nil {
		return nil, err
	}
	if r.Status != FlowAsk {
		// The call answered already; ReadCall reads it. Ask it afresh.
		r, err = f.flow.next(context.Background(), withoutState(req))
		if err != nil {
			return nil, err
		}
	}
	return r.Result, nil
}

// withoutState is req with no state in its arguments, a first call.
func withoutState(req *mcp.CallToolRequest) *sdkCall {
	p := *req.Params
	p.Arguments = nil
	p.RequestState = ""
	c := *req
	c.Params = &p
	return (*sdkCall)(&c)
}

// ReadCall is [Form.Read] for any path [Form.Ask] takes: it reads the
// answer from the call's input responses, or, for a form with
// [FormOptions].Codec, from the arguments, as an MCP Apps view's submit
// and an answer through the model send it, but only together with a state
// under [StateArgument] that the form minted for that path, in a round of
// this tool, for this principal and these arguments. Without a Codec, or
// without such a state, the arguments are never an answer, whatever they
// hold: the Reply's Status is ReplyNone, and [Form.Ask] asks (or answers a
// state that does not verify with -32602). Values a view sends are made
// typed as [Form.ReadArguments] makes them; the model's are judged exactly
// as a native answer. The argument "mcpformAction" set to "decline", which
// a view's Decline button sends and the model is told to send, gives
// ReplyDeclined; any other value of it is ReplyInvalid. [Reply.Path] says
// which path the answer came by. A nil req or one without params has no
// answer.
func (f *Form[T]) ReadCall(req *mcp.CallToolRequest) Reply[T] {
	if req == nil || req.Params == nil {
		return Reply[T]{Status: ReplyNone}
	}
	// Only a state the form minted makes the arguments an answer: without
	// one, there is nothing to run the form's flow for.
	if InputResponse(req.Params.InputResponses, f.c.key) != nil || f.flow == nil || req.Params.RequestState != "" ||
		!bytes.Contains(req.Params.Arguments, []byte(`"`+StateArgument+`"`)) {
		reply := f.Read(req.Params.InputResponses)
		reply.lang = requestLang(req)
		if reply.Path == PathNative {
			reply.Path = nativePath((*sdkCall)(req))
		}
		return reply
	}
	r, err := f.flow.next(context.Background(), (*sdkCall)(req))
	if err != nil || r.Path == PathNoAnswer {
		return Reply[T]{Status: ReplyNone}
	}
	reply := Reply[T]{Status: ReplyNone, Path: r.Path, Problems: r.Problems}
	switch r.Status {
	case FlowDone:
		reply.Status, reply.Answers = ReplyAccepted, r.Answers
		v, err := f.decodeAnswers(r.Answers)
		if err != nil {
			return undecodable(reply, err)
		}
		reply.Value = v
	case FlowDeclined:
		reply.Status = ReplyDeclined
	case FlowCancelled:
		reply.Status = ReplyCancelled
	case FlowAsk:
		if len(r.Problems) == 0 {
			return Reply[T]{Status: ReplyNone} // no answer to the form asked
		}
		reply.Status, reply.Answers, reply.again = ReplyInvalid, r.filled, r.Result
	default:
		reply.Status = ReplyInvalid
	}
	return reply
}
