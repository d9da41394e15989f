package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

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
	call        seam.Call
	bind        string // what a state of the secret page alone is bound to
	principal   string
	st          flowState
	can         reach         // what the client declared
	inArgs      bool          // the state came in the arguments; so do the answers
	args        callArgs      // what the call's arguments hold
	channel     Path          // the path the call's state was minted for
	channelBind string        // what a state minted for channel is bound to
	fieldsRead  bool          // the call's arguments answered a step's fields
	face        *faceRequests // what faceAsk kept for another SDK's face
}

// bindAs returns what a state minted for path p is bound to.
func (r *round) bindAs(p Path) string {
	if p.tag() == r.channel.tag() && r.channelBind != "" {
		return r.channelBind // most rounds ask on the path they came by
	}
	return r.flow.bindFor(r.call, r.principal, r.args.digest, p)
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

// storeTimeout bounds each call of a [SecretStore], within the round's
// own context, so that a store that hangs cannot hold a round forever.
const storeTimeout = 10 * time.Second

// finish takes the secrets of the proven steps out of the store and ends
// the flow; a step whose page has not been sent yet is asked again. Every
// secret is read before any is deleted, so a missing one loses none.
func (r *round) finish(valid Answers, pins pinList, secret []*flowStep) (*FlowRound, error) {
	if len(secret) == 0 {
		return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID}, nil
	}
	ctx, cancel := context.WithTimeout(r.ctx, storeTimeout)
	defer cancel()
	store := r.flow.secrets.Store
	taken := Answers{}
	keys := make([]string, 0, len(secret))
	for _, s := range secret {
		link := r.link(s)
		why, err := link.closed(ctx, store)
		if err != nil {
			return nil, err
		}
		if why != "" {
			// Refused by the page, or ended by an earlier round of the
			// run (a replay after a decline): nothing from it is taken.
			return r.linkRefused(ctx, s, valid)
		}
		key := link.key()
		values, ok, err := r.secretsOf(ctx, s, key)
		if err != nil {
			return nil, err
		}
		if !ok {
			if done, err := r.finishing(ctx, valid); done != nil || err != nil {
				return done, err
			}
			return r.waitPage(s, valid, pins)
		}
		merge(taken, values)
		keys = append(keys, key)
	}
	merge(valid, taken)
	if r.flow.outcomes != nil {
		// Once deletes them when the outcome is stored, so that a
		// duplicate of this round meanwhile finds them and waits.
		return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID, secretKeys: keys}, nil
	}
	for _, k := range keys {
		if err := store.DeleteSecret(ctx, k); err != nil {
			return nil, err
		}
	}
	return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID}, nil
}

// linkRefused ends the flow when the page refused s's link: nothing from
// that link is taken, and what was sent on any of the run's links is
// dropped (see ended).
func (r *round) linkRefused(ctx context.Context, s *flowStep, valid Answers) (*FlowRound, error) {
	return r.ended(&FlowRound{Status: FlowInvalid, Answers: valid, Step: s.c.key,
		Problems: secretProblems(s, ErrSecretRefused), Attempt: r.st.Attempt, ID: r.st.ID}, nil)
}

// ended returns end, the round that ends the flow without FlowDone, once
// the run's secrets are gone: whatever the ending (declined, cancelled,
// invalid, refused), each step with secrets whose page the run may have
// linked to, the proven ones and end's own, is closed, so that its page
// takes nothing more and says the request ended, and the secret sent on
// it, if any, is deleted. A round that does not end passes through.
func (r *round) ended(end *FlowRound, err error) (*FlowRound, error) {
	if err != nil || end == nil || end.Status == FlowAsk || end.Status == FlowDone || r.flow.secrets == nil {
		return end, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, storeTimeout)
	defer cancel()
	store, expires := r.flow.secrets.Store, r.flow.linkStoreExpiry()
	for i := range r.flow.steps {
		s := &r.flow.steps[i]
		if _, proven := r.st.Pins.get(s.c.key); len(s.c.secrets) == 0 || (!proven && s.c.key != end.Step) {
			continue
		}
		link := r.link(s)
		if err := link.close(ctx, store, closedEnded, expires); err != nil {
			return nil, err
		}
		// Use the secret's key up before deleting it, so that a post the
		// page let through just before the close stores nothing.
		if err := store.PutSecret(ctx, link.key(), "", expires); err != nil && !errors.Is(err, ErrSecretUsed) {
			return nil, err
		}
		if err := store.DeleteSecret(ctx, link.key()); err != nil {
			return nil, err
		}
	}
	return end, nil
}

// waitPage is the round while s's page has not been sent: s's other fields
// stay proven, and only the page is asked again, saying it is still
// waiting, unless the person has now declined or dismissed it, natively
// or, where they were given the link, through the arguments.
func (r *round) waitPage(s *flowStep, valid Answers, pins pinList) (*FlowRound, error) {
	problems := secretProblems(s, ErrSecretWaiting)
	switch u, ok := r.call.Answer(s.urlKey()); {
	case ok && u.Action == "decline":
		return r.ended(&FlowRound{Status: FlowDeclined, Answers: valid, Step: s.c.key, ID: r.st.ID}, nil)
	case ok && u.Action == "cancel":
		return r.ended(&FlowRound{Status: FlowCancelled, Answers: valid, Step: s.c.key, ID: r.st.ID}, nil)
	case r.inArgs:
		switch st, p, ok := r.args.declined(); {
		case ok && st == ReplyDeclined:
			return r.ended(&FlowRound{Status: FlowDeclined, Answers: valid, Step: s.c.key, ID: r.st.ID}, nil)
		case ok:
			problems = append(problems, p...)
		}
	}
	st := flowState{ID: r.st.ID, Step: s.c.key, Proven: valid, Pins: pins}
	token, err := r.flow.mintState(&st, r.bind)
	if err != nil {
		return nil, err
	}
	res, err := r.presentPage(s, problems, token)
	if err != nil {
		return nil, err
	}
	return &FlowRound{Status: FlowAsk, Result: res, Answers: valid, Step: s.c.key, Problems: problems, ID: r.st.ID}, nil
}

// secretsOf reads s's secrets from the store, if the page has sent them.
func (r *round) secretsOf(ctx context.Context, s *flowStep, key string) (Answers, bool, error) {
	raw, ok, err := r.flow.secrets.Store.GetSecret(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	var values map[string]string
	if json.Unmarshal([]byte(raw), &values) != nil {
		return nil, false, nil // not the page's: as good as not sent
	}
	out := make(Answers, len(s.c.secrets))
	for _, f := range s.c.secrets {
		v, ok := values[f.Name]
		if !ok && f.Required {
			return nil, false, nil
		}
		if ok {
			out[f.Name] = v
		}
	}
	return out, true, nil
}

// secretProblems names each of s's secrets with err: still waiting for
// its page, or refused by it.
func secretProblems(s *flowStep, err error) []*FieldError {
	problems := make([]*FieldError, len(s.c.secrets))
	for i, f := range s.c.secrets {
		problems[i] = &FieldError{Field: f.Name, Err: err}
	}
	return problems
}

// link returns what the link to s's secret page carries.
func (r *round) link(s *flowStep) *secretLink {
	return &secretLink{Principal: r.principal, Tool: r.call.Tool(), Run: r.st.ID, Step: s.c.key}
}

// answer judges the call's answer to s, the step the state asked. It
// returns the accepted answers, or the round that ends the call.
func (r *round) answer(s *flowStep, valid Answers, pins pinList) (Answers, *FlowRound, error) {
	status, accepted, problems := ReplyAccepted, Answers{}, []*FieldError(nil)
	r.fieldsRead = r.inArgs && len(s.c.fields) > 0
	if st, p, ok := r.args.declined(); ok && r.inArgs {
		// A view's Decline, or the model reporting one: as a native decline.
		status, accepted, problems = st, nil, p
	} else {
		if len(s.c.fields) > 0 {
			status, accepted, problems = r.judge(s)
		}
		if len(s.c.secrets) > 0 && r.byURL() {
			status, problems = s.consent(r.call, status, problems)
		}
	}
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
	token, err := r.flow.mintState(&st, r.bindAs(path))
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

// pageRequest returns the URL-mode request that links the person to s's
// secret page. The link carries a sealed token, never a secret, and the
// same one from round to round (see linkKeys.expiry).
func (r *round) pageRequest(s *flowStep, problems []*FieldError) (*mcp.ElicitParams, error) {
	token := r.flow.links.seal(r.link(s))
	titles := make([]string, len(s.c.secrets))
	for i := range s.c.secrets {
		titles[i] = s.c.secrets[i].title()
	}
	// Titles are labels, written to stand alone: list them rather than
	// build a sentence around them ("Enter your New password").
	msg := s.c.lang.format(msgPageAsks, "fields", strings.Join(titles, s.c.lang.text(msgListSep)))
	var secretProblems []*FieldError
	for _, p := range problems {
		if errors.Is(p.Err, ErrSecretWaiting) {
			secretProblems = append(secretProblems, p)
		}
	}
	if m := s.c.problemMessage(secretProblems); m != "" {
		msg += "\n\n" + m
	}
	sep := "?"
	if strings.Contains(r.flow.secrets.PageURL, "?") {
		sep = "&"
	}
	return own(&mcp.ElicitParams{Mode: "url", Message: msg, URL: r.flow.secrets.PageURL + sep + "t=" + url.QueryEscape(token)}), nil
}

// urlKey is the key of s's URL-mode request, beside its form under s's key.
func (s *flowStep) urlKey() string { return s.c.key + ".secret" }

// consent folds the answer to s's URL-mode request into the form part's
// status: a decline or cancel of either ends the step, and no answer to
// either asks it again as it was.
func (s *flowStep) consent(responses answerer, status ReplyStatus, problems []*FieldError) (ReplyStatus, []*FieldError) {
	if status == ReplyDeclined || status == ReplyCancelled {
		return status, problems
	}
	u, ok := responses.Answer(s.urlKey())
	switch {
	case !ok:
		return ReplyNone, nil
	case u.Action == "decline":
		return ReplyDeclined, nil
	case u.Action == "cancel":
		return ReplyCancelled, nil
	case u.Action != "accept":
		return ReplyInvalid, append(problems, &FieldError{Err: errUnknownAction})
	}
	return status, problems
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
