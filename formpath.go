package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A lone Form picks its path and reads its answer here, once for every
// face: [Form.Ask] and [Form.ReadCall] are go-sdk's wrappers of ask and
// readCall, and the mcpgo package reaches the same two through
// [Form.Seam], so that a form asks the same host the same way on either
// SDK.

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
// [RejectState]. Asking again a client older than 2026-07-28, which
// go-sdk's bridge serves one round only, needs [AddLegacyRounds]; without
// it, Ask returns a JSON-RPC error, -32603, that names it.
//
// A form with secret fields is asked only as a [Step] of a [Flow], which
// asks the secrets in URL mode; Ask refuses it, because the form-mode
// request would leave them out.
func (f *Form[T]) Ask(req *mcp.CallToolRequest, requestState string) (*mcp.CallToolResult, error) {
	a, err := f.ask(context.Background(), (*sdkCall)(req))
	if err != nil {
		return nil, err
	}
	if a.round != nil {
		return a.round.Result, nil
	}
	if unserved(req) {
		return nil, errFormNoLegacy
	}
	return a.native.reask(nil, nil, requestState), nil
}

// formAsk is what a form asks of one call's client: natively, the form in
// the call's language, or the round of the form's one-step flow that
// shows a view or asks the model.
type formAsk struct {
	native *compiled
	round  *FlowRound
}

// ask chooses how f asks the client of call; ctx is the handler's, which
// a face's ContextPrincipal reads.
func (f *Form[T]) ask(ctx context.Context, call seam.Call) (formAsk, error) {
	if len(f.c.secrets) > 0 {
		return formAsk{}, fmt.Errorf("mcpform: field %q is secret: ask the form as a Flow step, which asks it in URL mode", f.c.secrets[0].Name)
	}
	can, model := reachOf(call), false
	if f.flow == nil {
		can.native = true // no keys: no state to read answers with off the native path
	} else {
		model = f.flow.model
	}
	path, err := choosePath(call, can, f.c, model)
	if err != nil {
		return formAsk{}, err
	}
	if path == PathNative {
		return formAsk{native: f.c.in(callLang(call))}, nil
	}
	// The view and the model: the form is a flow of one step, whose
	// round mints the state its answer is read with.
	r, err := f.flow.next(ctx, call)
	if err != nil {
		return formAsk{}, err
	}
	if r.Status != FlowAsk {
		// The call answered already; ReadCall reads it. Ask it afresh.
		if r, err = f.flow.next(ctx, withoutState(call)); err != nil {
			return formAsk{}, err
		}
	}
	return formAsk{round: r}, nil
}

// withoutState is call with no state and no arguments, a first call.
func withoutState(call seam.Call) seam.Call {
	c, ok := call.(*sdkCall)
	if !ok {
		return freshCall{call}
	}
	// go-sdk's own call type, which its Principal reads.
	p := *c.params()
	p.Arguments, p.RequestState = nil, ""
	fresh := *c
	fresh.Params = &p
	return &fresh
}

// freshCall is another face's call with no state and no arguments.
type freshCall struct{ seam.Call }

func (freshCall) State() string                       { return "" }
func (freshCall) Arguments() (json.RawMessage, error) { return nil, nil }

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
	reply := f.readCall(context.Background(), (*sdkCall)(req))
	reply.unserved = unserved(req)
	return reply
}

// readCall reads f's answer in call, on whichever path it came.
func (f *Form[T]) readCall(ctx context.Context, call seam.Call) Reply[T] {
	// Only a state the form minted makes the arguments an answer: without
	// one, there is nothing to run the form's flow for.
	if !f.inArguments(call) {
		reply := f.read(call)
		reply.lang = callLang(call)
		if reply.Path == PathNative {
			reply.Path = nativePath(call)
		}
		return reply
	}
	r, err := f.flow.next(ctx, call)
	if err != nil || r.Path == PathNone {
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
		reply.Status, reply.Answers, reply.again = ReplyInvalid, r.filled, r
	default:
		reply.Status = ReplyInvalid
	}
	return reply
}

// inArguments reports whether f's answer may be in call's arguments: f
// has a Codec, and the call carries a state there, not an input response
// or a requestState.
func (f *Form[T]) inArguments(call seam.Call) bool {
	if f.flow == nil || call.State() != "" {
		return false
	}
	if _, ok := call.Answer(f.c.key); ok {
		return false
	}
	args, err := call.Arguments()
	return err == nil && bytes.Contains(args, []byte(`"`+StateArgument+`"`))
}

// askPresentation is a, for a face other than go-sdk's: the native
// request carrying state, or the round's view or model request.
func (f *Form[T]) askPresentation(a formAsk, call seam.Call, state string) seam.Presentation {
	if a.round != nil {
		return f.flow.presentation(a.round)
	}
	return a.native.nativePresentation(nil, nil, state, call.Legacy())
}

// nativePresentation asks c natively, naming problems and pre-filling
// accepted, carrying state.
func (c *compiled) nativePresentation(accepted Answers, problems []*FieldError, state string, legacy bool) seam.Presentation {
	// No contentLanguage: go-sdk's face marks no native ask of a lone
	// form either.
	p := seam.Presentation{Kind: seam.Native, Requests: c.asked, State: state}
	if len(accepted) > 0 || len(problems) > 0 {
		p.Requests = []seam.Request{c.seamRequest(accepted, problems)}
	}
	if legacy {
		p.Kind = seam.Legacy
	}
	return p
}
