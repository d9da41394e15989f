package mcpform

import (
	"errors"

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
	flow *Flow
	req  *mcp.CallToolRequest
	bind string
	st   flowState
}

// run walks the steps in order. A step that applies and whose answer is
// still proven is passed; the step the state asked takes the call's answer;
// the first other step is asked. Only what passes the steps as they are now
// goes on into the next state or into FlowDone.
func (r *round) run() (*FlowRound, error) {
	valid := make(Answers, len(r.st.Proven))
	pins := make(map[string]string, len(r.flow.steps))
	for i := range r.flow.steps {
		s := &r.flow.steps[i]
		if s.when != nil && !s.when(valid) {
			continue
		}
		key := s.c.key
		if key == r.st.Step {
			r.st.Step = "" // the call answers one step at most
			accepted, done, err := r.answer(s, valid, pins)
			if done != nil || err != nil {
				return done, err
			}
			merge(valid, accepted)
			pins[key] = s.pin
			continue
		}
		pin, proven := r.st.Pins[key]
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
		pins[key] = pin
	}
	return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID}, nil
}

// answer judges the call's answer to s, the step the state asked. It
// returns the accepted answers, or the round that ends the call.
func (r *round) answer(s *flowStep, valid Answers, pins map[string]string) (Answers, *FlowRound, error) {
	status, accepted, problems := s.c.judge(r.req.Params.InputResponses)
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
func (r *round) ask(s *flowStep, valid Answers, pins map[string]string, filled Answers, problems []*FieldError, attempt int) (*FlowRound, error) {
	if err := requireForm(r.req); err != nil {
		return nil, err
	}
	st := flowState{ID: r.st.ID, Step: s.c.key, Attempt: attempt, Proven: valid, Pins: pins}
	token, err := r.flow.codec.Mint(st, r.bind)
	if err != nil {
		return nil, err
	}
	return &FlowRound{Status: FlowAsk, Result: s.c.reask(filled, problems, token), Answers: valid,
		Step: s.c.key, Problems: problems, Attempt: attempt, ID: r.st.ID}, nil
}

// recheck judges the answers proven for s against s as it is now.
func (s *flowStep) recheck(proven Answers) (Answers, []*FieldError, bool) {
	own := make(map[string]any, len(s.c.fields))
	for i := range s.c.fields {
		if v, ok := proven[s.c.fields[i].Name]; ok {
			own[s.c.fields[i].Name] = v
		}
	}
	accepted, problems, missing := checkCompiled(own, s.c.fields, s.c.lookup)
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
