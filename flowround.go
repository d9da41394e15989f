package mcpform

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrChanged reports that a step's questions changed since its answer was
// proven, as after a deploy between two rounds of a [Flow]: the step is
// asked again rather than trusted. It reaches callers in
// [FlowRound.Problems].
var ErrChanged = errors.New("the questions changed since this was answered")

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
			if r.st.Asked != "" && r.st.Asked != s.pin {
				// Minted to ask other questions under this key: another
				// form's or flow's on this tool and codec, or this step's
				// before a deploy changed it. Ask it as it is now. A state
				// that names none is a replica's still on an earlier
				// release, which every form of this one outdates.
				return r.ask(s, valid, pins, nil, []*FieldError{{Err: ErrChanged}}, 0)
			}
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

// ask returns the round that asks s, naming problems and pre-filling
// accepted values, with the state of what is proven so far.
func (r *round) ask(s *flowStep, valid Answers, pins pinList, filled Answers, problems []*FieldError, attempt int) (*FlowRound, error) {
	path, err := choosePath(r.call, r.can, s.c, r.flow.model)
	if err != nil {
		return nil, err
	}
	st := flowState{ID: r.st.ID, Step: s.c.key, Asked: s.pin, Attempt: attempt, Proven: valid, Pins: pins}
	token, err := r.mint(&st, path)
	if err != nil {
		return nil, err
	}
	res, err := r.present(s, path, len(s.c.fields) > 0, filled, problems, token)
	if err != nil {
		return nil, err
	}
	return &FlowRound{Status: FlowAsk, Result: res, Answers: valid,
		Step: s.c.key, Problems: problems, Attempt: attempt, ID: r.st.ID, filled: filled}, nil
}

// mint mints st for a round that asks on path p, bound as a state minted
// for p must be: a state verifies only on the channel it was minted for.
func (r *round) mint(st *flowState, p Path) (string, error) {
	return r.flow.mintState(st, r.bindAs(p))
}

// bindAs returns what a state minted for path p is bound to.
func (r *round) bindAs(p Path) string {
	if p.tag() == r.channel.tag() && r.channelBind != "" {
		return r.channelBind // most rounds ask on the path they came by
	}
	return r.flow.bindFor(r.tool, r.principal, r.args.digest, p)
}

// present returns the result that asks s on path, which choosePath or
// pagePath chose, naming problems, pre-filling filled and carrying token:
// each path's own file builds it. Without form, or for a step of secrets
// alone, only s's secret page is asked.
func (r *round) present(s *flowStep, path Path, form bool, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	switch {
	case path == PathView && form:
		return r.stepView(s, filled, problems, token)
	case path == PathView:
		return r.linkView(s, problems, token)
	case path == PathModel:
		return r.modelResult(s, filled, problems, token)
	case path == PathLink:
		return r.linkResult(s, problems, token)
	}
	return r.askNative(s, form, filled, problems, token)
}

// finish takes the secrets of the proven steps out of the store and ends
// the flow; a step whose page has not been sent yet is asked again. Every
// secret is read before any is taken, so a missing one loses none; a
// secret sent for a step that no longer applies is deleted.
func (r *round) finish(valid Answers, pins pinList, secret []*flowStep) (*FlowRound, error) {
	if r.flow.secrets == nil {
		return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID}, nil
	}
	ctx, cancel := context.WithTimeout(r.ctx, storeTimeout)
	defer cancel()
	taken := Answers{}
	links := make([]*secretLink, 0, len(secret))
	for _, s := range secret {
		values, link, closed, err := r.readLink(ctx, s)
		switch {
		case err != nil:
			return nil, err
		case closed != "":
			// Taken by a round of this run that stored its outcome,
			// or else refused or ended: nothing from it is taken twice.
			if done, err := r.finishing(ctx, valid); done != nil || err != nil {
				return done, err
			}
			return r.linkClosed(s, valid, closed)
		case values == nil:
			if done, err := r.finishing(ctx, valid); done != nil || err != nil {
				return done, err
			}
			return r.waitPage(s, valid, pins)
		}
		merge(taken, values)
		links = append(links, link)
	}
	if err := r.endLinks(ctx, secret); err != nil {
		return nil, err
	}
	if r.flow.outcomes != nil {
		// Once takes them, under the run's claim, before do uses them,
		// and deletes them once the outcome is stored, so that a retry
		// of a do that failed still has them.
		merge(valid, taken)
		return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID, taken: links}, nil
	}
	// Without Outcomes, the first finish to take a link is the one that
	// finishes: another, racing it, ends invalid.
	switch i, why, err := r.flow.take(ctx, links, false); {
	case err != nil:
		return nil, err
	case i >= 0:
		return r.linkClosed(secret[i], valid, why)
	}
	if err := r.flow.spend(ctx, links); err != nil {
		return nil, err
	}
	merge(valid, taken)
	return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID}, nil
}

// waitPage is the round while s's page has not been sent: s's other fields
// stay proven, and only the page is asked again, saying it is still
// waiting, unless the person has now declined or dismissed it, natively
// or, where they were given the link, through the arguments.
func (r *round) waitPage(s *flowStep, valid Answers, pins pinList) (*FlowRound, error) {
	problems := secretProblems(s, ErrSecretWaiting)
	switch native := r.pageAnswer(s); {
	case native == ReplyDeclined:
		return r.ended(&FlowRound{Status: FlowDeclined, Answers: valid, Step: s.c.key, ID: r.st.ID}, nil)
	case native == ReplyCancelled:
		return r.ended(&FlowRound{Status: FlowCancelled, Answers: valid, Step: s.c.key, ID: r.st.ID}, nil)
	case r.inArgs:
		switch st, p, ok := r.args.declined(); {
		case ok && st == ReplyDeclined:
			return r.ended(&FlowRound{Status: FlowDeclined, Answers: valid, Step: s.c.key, ID: r.st.ID}, nil)
		case ok:
			problems = append(problems, p...)
		}
	}
	path, err := pagePath(r.call, r.can, r.flow.model)
	if err != nil {
		return nil, err
	}
	st := flowState{ID: r.st.ID, Step: s.c.key, Asked: s.pin, Proven: valid, Pins: pins}
	token, err := r.mint(&st, path)
	if err != nil {
		return nil, err
	}
	res, err := r.present(s, path, false, nil, problems, token) // the page alone
	if err != nil {
		return nil, err
	}
	return &FlowRound{Status: FlowAsk, Result: res, Answers: valid, Step: s.c.key, Problems: problems, ID: r.st.ID}, nil
}

// answered is the path of the call's answers: its channel, or the link
// when the arguments carried the state but answered no field.
func (r *round) answered() Path {
	if r.inArgs && !r.fieldsRead {
		return PathLink
	}
	return r.channel
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
