package mcpform

import (
	"context"
	"errors"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrChanged reports that a step's questions changed since its answer was
// proven, as after a deploy between two rounds of a [Flow]: the step is
// asked again rather than trusted. It reaches callers in
// [FlowRound.Problems].
var ErrChanged = errors.New("the questions changed since this was answered")

// A round is one call of [Flow.Next]: the verified state, and the call it
// came with.
type round struct {
	ctx         context.Context // the handler's; bounds the round's store calls
	flow        *Flow
	call        seam.Call     // for its face's errors and the native path's answers
	tool        string        // the tool called
	principal   string        // who called
	stated      bool          // the call carried a state, which verified into st
	st          flowState     // the state: verified, or a new run's
	lang        lang          // the language of the round: pinned, or asked for
	can         reach         // what the client declared
	inArgs      bool          // the state came in the arguments; so do the answers
	args        callArgs      // what the call's arguments hold
	channel     Path          // the path the call's state was minted for
	channelBind string        // what a state minted for channel is bound to
	fieldsRead  bool          // the call's arguments answered a step's fields
	face        *faceRequests // what faceAsk kept for another SDK's face
}

// answered is the path of the call's answers: its channel, or the link
// when the arguments carried the state but answered no field.
func (r *round) answered() Path {
	if r.inArgs && !r.fieldsRead {
		return PathLink
	}
	return r.channel
}

// run walks the steps in order. A step that applies and whose answer is
// still proven is passed; the step the state asked takes the call's answer;
// the first other step is asked. Only what passes the steps as they are now
// goes on into the next state or into FlowDone.
func (r *round) run() (*FlowRound, error) {
	valid := make(Answers, len(r.st.Proven))
	pins := make(pinList, 0, len(r.flow.steps))
	var secret []*flowStep // proven steps whose secrets are still to take
	for i := range r.flow.steps {
		s := &r.flow.steps[i]
		if s.when != nil && !s.when(valid) {
			continue
		}
		key := s.c.key
		pin, proven := r.st.Pins.get(key)
		if key == r.st.Step && !proven {
			r.st.Step = "" // the call answers one step at most
			accepted, done, err := r.answer(s, valid, pins)
			if done != nil || err != nil {
				return r.ended(done, err)
			}
			merge(valid, accepted)
			pins = append(pins, stepPin{key, s.pin})
			if len(s.c.secrets) > 0 {
				secret = append(secret, s)
			}
			continue
		}
		if !proven {
			return r.ask(s, valid, pins, nil, nil, 0)
		}
		accepted, problems, ok := s.recheck(r.st.Proven)
		if pin != s.pin {
			ok, problems = false, []*FieldError{{Err: ErrChanged}}
		}
		if !ok {
			return r.ask(s, valid, pins, prefill(accepted, problems), problems, 0)
		}
		merge(valid, accepted)
		pins = append(pins, stepPin{key, pin})
		if len(s.c.secrets) > 0 {
			secret = append(secret, s)
		}
	}
	return r.finish(valid, pins, secret)
}

// answer judges the call's answer to s, the step the state asked. It
// returns the accepted answers, or the round that ends the call.
func (r *round) answer(s *flowStep, valid Answers, pins pinList) (Answers, *FlowRound, error) {
	status, accepted, problems := r.judge(s)
	if status == ReplyAccepted && s.check != nil {
		if extra := s.check(accepted); len(extra) > 0 {
			status, problems = ReplyInvalid, append(problems, extra...)
		}
	}
	end := func(st FlowStatus) *FlowRound {
		return &FlowRound{Status: st, Answers: valid, Step: s.c.key, Problems: problems, Attempt: r.st.Attempt, ID: r.st.ID}
	}
	switch status {
	case ReplyAccepted:
		return accepted, nil, nil
	case ReplyNone:
		// No answer to the step asked: ask it again, as it was.
		res, err := r.ask(s, valid, pins, nil, nil, r.st.Attempt)
		return nil, res, err
	case ReplyDeclined:
		return nil, end(FlowDeclined), nil
	case ReplyCancelled:
		return nil, end(FlowCancelled), nil
	}
	r.st.Attempt++
	if r.st.Attempt > r.flow.maxReasks {
		return nil, end(FlowInvalid), nil
	}
	res, err := r.ask(s, valid, pins, prefill(accepted, problems), problems, r.st.Attempt)
	return nil, res, err
}

// ask returns the round that asks s, naming problems and pre-filling
// accepted values, with the state of what is proven so far.
func (r *round) ask(s *flowStep, valid Answers, pins pinList, filled Answers, problems []*FieldError, attempt int) (*FlowRound, error) {
	path, err := choosePath(r.call, r.can, s.c, r.flow.model)
	if err != nil {
		return nil, err
	}
	st := flowState{ID: r.st.ID, Step: s.c.key, Attempt: attempt, Proven: valid, Pins: pins}
	token, err := r.mint(&st, path)
	if err != nil {
		return nil, err
	}
	res, err := r.present(s, path, filled, problems, token)
	if err != nil {
		return nil, err
	}
	return &FlowRound{Status: FlowAsk, Result: res, Answers: valid,
		Step: s.c.key, Problems: problems, Attempt: attempt, ID: r.st.ID, filled: filled}, nil
}

// judge judges the call's answer to s by the reader of the path its state
// was minted for: the input responses natively, and the arguments from a
// view or the model, where the link's call carries no field at all.
func (r *round) judge(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	if !r.inArgs {
		return r.readNative(s)
	}
	r.fieldsRead = len(s.c.fields) > 0
	switch st, p, ok := r.args.declined(); {
	case ok:
		// A view's Decline, or the model reporting one: as a native decline.
		return st, nil, p
	case len(s.c.fields) == 0:
		// The link's: what the page took is taken as the flow finishes.
		return ReplyAccepted, Answers{}, nil
	case r.channel == PathView:
		return r.readView(s)
	}
	return r.readModel(s)
}

// present returns the result that asks s on path, which choosePath chose,
// naming problems, pre-filling filled and carrying token: each path's own
// file builds it.
func (r *round) present(s *flowStep, path Path, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	if len(s.c.fields) == 0 {
		return r.presentPage(s, path, problems, token)
	}
	switch path {
	case PathView:
		return r.stepView(s, filled, problems, token)
	case PathModel:
		return r.modelResult(s, filled, problems, token)
	}
	return r.askNative(s, true, filled, problems, token)
}

// recheck judges the answers proven for s against s as it is now.
func (s *flowStep) recheck(proven Answers) (Answers, []*FieldError, bool) {
	own := make(map[string]any, len(s.c.fields))
	for i := range s.c.fields {
		if v, ok := proven[s.c.fields[i].Name]; ok {
			own[s.c.fields[i].Name] = v
		}
	}
	accepted, problems, missing := checkCompiled(own, s.c.fields, s.c.lookup, true)
	ok := !missing && !hasInvalid(problems)
	if ok && s.check != nil {
		if extra := s.check(accepted); len(extra) > 0 {
			ok, problems = false, append(problems, extra...)
		}
	}
	return accepted, problems, ok
}

// prefill returns the accepted values that no problem names, for a re-ask
// to offer as defaults.
func prefill(accepted Answers, problems []*FieldError) Answers {
	if len(accepted) == 0 {
		return nil
	}
	out := make(Answers, len(accepted))
	merge(out, accepted)
	for _, p := range problems {
		delete(out, p.Field)
	}
	return out
}

func merge(dst, src Answers) {
	for k, v := range src {
		dst[k] = v
	}
}
