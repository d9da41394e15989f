package mcpform

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
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
			r.via.add(r.answered())
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
		r.via.add(r.st.via(key))
		if len(s.c.secrets) > 0 {
			secret = append(secret, s)
		}
	}
	if r.flow.review {
		if res, err := r.check(valid, pins); res != nil || err != nil {
			return res, err
		}
	}
	return r.finish(valid, pins, secret)
}

// CheckStep is the step key of the round that a flow with
// [FlowOptions].CheckAnswers asks last, to check the answers: a
// [FlowRound] that asks it, or that the person declined there, has it as
// its Step. No step of such a flow may have it as its key.
const CheckStep = "mcpformCheck"

// checkField is the check round's one field: checkKeep, or changeValue of
// the key of the step to ask again.
const (
	checkField  = "mcpformChange"
	checkKeep   = "keep"
	checkChange = "change:"
	checkPin    = "check" // what the check round's state records as asked
)

// check is the round that checks the answers, once every step is proven:
// nil when the call said they are right, and otherwise the round that
// asks it, asks it again, asks the step to change, or ends.
func (r *round) check(valid Answers, pins pinList) (*FlowRound, error) {
	s, err := r.checkStep(valid, pins)
	if err != nil {
		return nil, err
	}
	if r.st.Step != CheckStep || r.st.Asked != checkPin {
		return r.ask(s, valid, pins, nil, nil, 0)
	}
	accepted, done, err := r.answer(s, valid, pins)
	if done != nil || err != nil {
		return r.ended(done, err)
	}
	v, _ := accepted[checkField].(string)
	if v == checkKeep {
		return nil, nil
	}
	i := r.flow.index(strings.TrimPrefix(v, checkChange))
	if i < 0 { // checked against the options, which name proven steps
		return nil, fmt.Errorf("mcpform: the check round named no step: %q", v)
	}
	return r.change(&r.flow.steps[i], valid, pins)
}

// change asks s again, filled with its answers, keeping every other
// step's proven: once it is answered, the walk passes the others, asks a
// step that now applies, and then the check round again.
func (r *round) change(s *flowStep, valid Answers, pins pinList) (*FlowRound, error) {
	filled, kept := Answers{}, make(Answers, len(valid))
	for k, v := range valid {
		if s.c.lookup(k) >= 0 {
			filled[k] = v
		} else {
			kept[k] = v
		}
	}
	keptPins := make(pinList, 0, len(pins))
	var via viaList
	for i, p := range pins {
		if p.Step != s.c.key {
			keptPins = append(keptPins, p)
			via.add(r.via.at(i))
		}
	}
	r.via = via
	return r.ask(s, kept, keptPins, filled, nil, 0)
}

// checkStep returns the check round for the answers valid of the proven
// steps pins, in the round's language: a form whose one field says the
// answers are right or names a step to change, under a message that lists
// them, step by step; secrets are never listed, and a step of secrets
// alone is not offered to change.
func (r *round) checkStep(valid Answers, pins pinList) (*flowStep, error) {
	f, l := r.flow, r.flow.lang
	keep := f.commit
	if keep == "" {
		keep = l.Text(catalog.OutCheckKeep)
	}
	options := []Option{{Value: checkKeep, Label: keep}}
	var msg strings.Builder
	msg.WriteString(l.Text(catalog.OutCheckTitle))
	review := make([]prefab.Review, 0, len(pins))
	for _, p := range pins {
		i := f.index(p.Step)
		if i < 0 || len(f.steps[i].c.fields) == 0 {
			continue
		}
		c := f.steps[i].c
		g := prefab.Review{Title: c.message, TitleLang: c.authorLang(c.message), Send: map[string]any{checkField: checkChange + c.key}}
		if g.TitleLang == "" {
			g.Change = l.Format(catalog.OutCheckChange, "step", c.message)
		} else {
			g.Change, g.ChangeParts = unmark(l.Format(catalog.OutCheckChange, "step", wordMark(0)), []string{c.message}, []string{g.TitleLang})
		}
		for j := range c.fields {
			fd := &c.fields[j]
			v, ok := valid[fd.Name]
			if !ok {
				continue
			}
			line, parts := c.reviewLine(fd, v, l)
			g.Lines = append(g.Lines, line)
			if parts != nil {
				if g.LineParts == nil {
					g.LineParts = make([][]prefab.Part, len(c.fields))
				}
				g.LineParts[len(g.Lines)-1] = parts
			}
		}
		if g.LineParts != nil {
			g.LineParts = g.LineParts[:len(g.Lines)]
		}
		msg.WriteString("\n\n" + c.message)
		for _, line := range g.Lines {
			msg.WriteString("\n" + line)
		}
		review = append(review, g)
		options = append(options, Option{Value: checkChange + c.key, Label: g.Change})
	}
	c, err := compile([]AutoFormField{{Name: checkField, Label: l.Text(catalog.OutCheckField), Required: true,
		Options: options, Default: checkKeep}}, &FormOptions{Key: CheckStep, Message: msg.String(), AskModel: f.model})
	if err != nil {
		return nil, fmt.Errorf("mcpform: the check round: %w", err)
	}
	c.lang = l
	return &flowStep{c: c, pin: checkPin, review: review}, nil
}

// reviewLine is the check round's line of fd's answer v, in l, and its
// parts in another language than l: fd's title, and an option's label,
// where they stay the author's words.
func (c *compiled) reviewLine(fd *AutoFormField, v any, l catalog.Lang) (string, []prefab.Part) {
	title, value := fd.title(), shownAnswer(fd, v, l)
	if len(c.kept) == 0 {
		return l.Format(catalog.OutCheckLine, "label", title, "value", value), nil
	}
	words, langs := []string{title}, []string{c.authorLang(title)}
	values := wordMark(1)
	if len(fd.Options) > 0 {
		shown := []string{value}
		if list, ok := v.([]any); ok && len(list) < maxMarks {
			shown = make([]string, len(list))
			for i, e := range list {
				shown[i] = shownAnswer(fd, e, l)
			}
		}
		var b strings.Builder
		for i, w := range shown {
			if i > 0 {
				b.WriteString(l.Text(catalog.ListSep))
			}
			b.WriteString(wordMark(1 + i))
			words, langs = append(words, w), append(langs, c.authorLang(w))
		}
		values = b.String()
	} else {
		words, langs = append(words, value), append(langs, "")
	}
	return unmark(l.Format(catalog.OutCheckLine, "label", wordMark(0), "value", values), words, langs)
}

// shownAnswer is v, fd's answer, as the check round shows it: an option's
// label, yes or no, a list joined, a number as written.
func shownAnswer(fd *AutoFormField, v any, l catalog.Lang) string {
	switch v := v.(type) {
	case bool:
		if v {
			return l.Text(catalog.OutYes)
		}
		return l.Text(catalog.OutNo)
	case string:
		for _, o := range fd.Options {
			if o.Value == v && o.Label != "" {
				return o.Label
			}
		}
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = shownAnswer(fd, e, l)
		}
		return strings.Join(parts, l.Text(catalog.ListSep))
	}
	return fmt.Sprint(v)
}

// answer judges the call's answer to s, the step the state asked. It
// returns the accepted answers, or the round that ends the call.
func (r *round) answer(s *flowStep, valid Answers, pins pinList) (Answers, *FlowRound, error) {
	status, accepted, problems := r.judge(s)
	if status == ReplyAccepted && s.check != nil && !s.onPage {
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
	if ok && s.check != nil && !s.onPage {
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
	st.Via = r.via.first(len(st.Pins)) // the paths of st.Pins, walked in the same order
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
	res, err := r.askNative(s, form, filled, problems, token)
	if err == nil && form {
		r.sayPosition(s, res)
	}
	return res, err
}

// sayPosition makes the native message that asks s, in res or, on
// another SDK's face, in the requests faceAsk kept, say what its view
// says: where s stands in its flow ("Step 1 of up to 2"), before the
// step's message, and, on a step whose accepting may finish a flow with
// a Commit, what accepting does, after it. A client draws its own
// buttons, so the message is where a person reads it. The check round,
// which is no step of the flow, is left as it is: its choices name the
// commit.
func (r *round) sayPosition(s *flowStep, res *mcp.CallToolResult) {
	if r.flow.index(s.c.key) < 0 || s.review != nil {
		return
	}
	pos, l := r.position(s), s.c.lang
	head, tail := "", ""
	if pos.total > 1 {
		of := catalog.ViewStepOf
		if pos.upTo {
			of = catalog.OutStepOfUpTo
		}
		head = l.Format(of, "step", strconv.Itoa(pos.n), "total", strconv.Itoa(pos.total))
	}
	if commit := r.flow.commit; commit != "" && pos.last {
		said := catalog.OutCommitSure
		if pos.upTo {
			said = catalog.OutCommitMay
		}
		tail = l.Format(said, "commit", commit)
	}
	if head == "" && tail == "" {
		return
	}
	var msg *string
	switch {
	case r.face != nil && r.face.n > 0:
		msg = &r.face.reqs[0].Message
	case res != nil:
		p, ok := res.InputRequests[s.c.key].(*mcp.ElicitParams)
		if !ok {
			return
		}
		msg = &p.Message
	default:
		return
	}
	if head != "" {
		*msg = head + "\n\n" + *msg
	}
	if tail != "" {
		*msg += "\n\n" + tail
	}
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

// weakest is FlowRound.Path: the weakest of the paths by which the
// answers the round hands over came, those of the proven steps the walk
// passed (r.via) and the call's own.
func (r *round) weakest() Path {
	p := r.answered()
	for i := range r.via.n {
		p = weaker(p, r.via.at(i))
	}
	return p
}

// A viaList is the paths of a walk's proven steps, in step order, as
// flowState.Via records them: in the round itself for a flow of a few
// steps, so that recording them allocates nothing.
type viaList struct {
	n    int
	a    [8]byte
	more []byte // past len(a)
}

func (l *viaList) add(p Path) {
	if l.n < len(l.a) {
		l.a[l.n] = viaByte(p)
	} else {
		l.more = append(l.more, viaByte(p))
	}
	l.n++
}

func (l *viaList) at(i int) Path {
	if i < len(l.a) {
		return Path(l.a[i] - '0')
	}
	return Path(l.more[i-len(l.a)] - '0')
}

// first returns the first k paths (at most all) as flowState.Via.
func (l *viaList) first(k int) string {
	k = min(k, l.n)
	if k <= len(l.a) {
		return string(l.a[:k])
	}
	return string(l.a[:]) + string(l.more[:k-len(l.a)])
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

// A round is read from its call once, here, in this order: who called;
// what the client can answer, and whether it is older than 2026-07-28;
// the arguments, as the view's companion decoded them if it did; the state
// and the channel it came by; the state, verified; the language. Nothing
// after this reads those facts from the call again: the round judges,
// mints and presents from what readCall put in it. Its call stays at hand
// only for what its face renders (its errors, a native ask on another
// SDK) and for the native path's answers, which readNative (ask.go) reads.

// StateArgument is the argument under which the paths that answer through
// the tool's arguments carry a [Flow]'s state, or a [Form]'s: an MCP Apps
// view's submit, the call that follows a secret page's link, and an answer
// through the model. Beside it, "mcpformAction": "decline" says that the
// person declined, as a native decline does; no other value is accepted,
// and there is none for "accept". The tool's input schema must let both
// through, with the fields' names; [Flow.InputSchema] returns such a
// schema.
const StateArgument = "mcpform"

// errArgumentAction reports an prefab.ActionArgument other than prefab.DeclineAction: it
// is judged as a native answer with an unknown action is, and asked again.
var errArgumentAction = fmt.Errorf("%w: the argument %s is not %q", ErrInvalidValue, prefab.ActionArgument, prefab.DeclineAction)

// A round is one call of [Flow.Next]: what readCall read of the call,
// and what the step walk notes as it goes (fieldsRead, face).
type round struct {
	ctx         context.Context // the handler's; bounds the round's store calls
	flow        *Flow
	call        seam.Call     // for its face's errors and the native path's answers
	tool        string        // the tool called
	principal   string        // who called
	stated      bool          // the call carried a state, which verified into st
	st          flowState     // the state: verified, or a new run's
	lang        catalog.Lang  // the language of the round: pinned, or asked for
	can         reach         // what the client declared
	inArgs      bool          // the state came in the arguments; so do the answers
	args        callArgs      // what the call's arguments hold
	legacy      bool          // the client is older than 2026-07-28 (see nativePath)
	channel     Path          // the path the call's state was minted for
	channelBind string        // what a state minted for channel is bound to
	fieldsRead  bool          // the call's arguments answered a step's fields
	via         viaList       // the path of each proven step the walk passed
	face        *faceRequests // what faceAsk kept for another SDK's face
}

// readCall reads what a round of f needs from call into r, the round that
// judges it, for f in the round's language. A state that does not verify
// is the call's face's error for it. r is the caller's, zero, so that a
// round costs no allocation of its own.
func (f *Flow) readCall(ctx context.Context, call seam.Call, r *round) error {
	principal, err := f.principalOf(ctx, call)
	if err != nil {
		return err
	}
	// Field by field, not a composite literal, which the compiler builds
	// in a temporary of this frame: the frame, deeper, costs each round's
	// goroutine a stack growth more.
	r.ctx, r.call, r.tool, r.principal = ctx, call, call.Tool(), principal
	r.can, r.legacy, r.channel = reachOf(call), call.Legacy(), PathNative
	if r.legacy {
		r.channel = PathLegacy // see nativePath
	}
	if r.args, err = f.readArguments(call); err != nil {
		return call.ArgumentsError(fmt.Errorf("mcpform: binding the call's arguments: %w", err))
	}
	// The channel the call came by decides what its state must have been
	// minted for: the input responses, the view's companion, or the model.
	token := call.State()
	if token == "" && r.args.token != "" {
		token, r.inArgs, r.channel = r.args.token, true, PathModel
		if call.ViaView() {
			r.channel = PathView
		}
	}
	r.args.view = r.channel == PathView
	r.stated = token != ""
	r.channelBind = f.bindFor(r.tool, principal, r.args.digest, r.channel)
	if r.stated {
		// Into a state of its own: the codec's decoder keeps its pointer,
		// which would move the whole round to the heap.
		st := new(flowState)
		err := f.verifyState(token, r.channelBind, st)
		r.st = *st
		if err != nil || r.st.ID == "" || r.st.Attempt < 0 {
			if err == nil {
				err = ErrMalformed
			}
			return call.StateError(err)
		}
		r.lang = pinnedLang(r.st.Lang) // the first round's, whatever this call asks
		if r.args.restarts() {
			// A view's Start again: a new run, as a first call starts
			// one, in the language of the run it follows unless the call
			// asks another. The state, verified, proves only that.
			r.stated, r.st = false, flowState{}
			if s := call.AcceptLanguage(); s != "" {
				r.lang = catalog.Match(s)
			}
			if r.st.ID, err = newRunID(f.codec.now()); err != nil {
				return err
			}
		} else if !f.runLive(r.st.ID) {
			return call.StateError(ErrExpired)
		}
	} else if r.st.ID, err = newRunID(f.codec.now()); err != nil {
		return err
	}
	if (!r.stated && !r.args.restarts()) || r.args.renders() {
		// A first call, or a view re-rendered in its host's language.
		r.lang = callLang(call)
	}
	r.flow = f.in(r.lang)
	return nil
}

// errPrincipalFace reports a flow whose principal is read from go-sdk's
// request, served through another SDK, which would bind every call to "".
var errPrincipalFace = errors.New("mcpform: the flow reads its principal from go-sdk's request: set FlowOptions.ContextPrincipal for mcp-go")

// principalOf returns who the server authenticated for call, by the
// option of call's face: Principal for go-sdk's request, ContextPrincipal
// for a face that passes the handler's context.
// A principal read as "" is refused, unless every caller is the same
// person.
func (f *Flow) principalOf(ctx context.Context, call seam.Call) (string, error) {
	var p string
	switch c, ok := call.(*sdkCall); {
	case ok && f.principal != nil:
		p = f.principal((*mcp.CallToolRequest)(c))
	case f.contextPrincipal != nil:
		p = f.contextPrincipal(ctx)
	case f.principal != nil:
		return "", errPrincipalFace
	}
	if p == "" && !f.samePerson {
		return "", errEmptyPrincipal
	}
	return p, nil
}

// errEmptyPrincipal refuses a call whose principal was read as "", which
// would bind the state of every such caller to one principal.
var errEmptyPrincipal = errors.New(`mcpform: Principal (or ContextPrincipal) returned "" for this call: ` +
	"refuse unauthenticated calls before the flow or form, or set EveryCallerIsSamePerson for a server without authentication")

// A run ID is the run's start, in whole seconds since 1970 as 6 bytes
// big-endian, and 12 random bytes, base64url: 24 characters. The start
// bounds how long a run lasts (see Flow.runLive), which a state sent back
// unanswered, and so minted again, would otherwise stretch for ever.
const (
	runStartSize = 6
	runIDSize    = runStartSize + 12
)

// newRunID returns a fresh run ID, for a call that starts a flow at now.
func newRunID(now time.Time) (string, error) {
	var id [runIDSize]byte
	secs := uint64(max(now.Unix(), 0))
	for i := range runStartSize {
		id[i] = byte(secs >> (8 * (runStartSize - 1 - i)))
	}
	if _, err := rand.Read(id[runStartSize:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(id[:]), nil
}

// runStart returns when the run of id started, and false for an ID that
// newRunID did not make.
func runStart(id string) (time.Time, bool) {
	var b [runIDSize]byte
	if base64.RawURLEncoding.EncodedLen(runIDSize) != len(id) {
		return time.Time{}, false
	}
	if n, err := base64.RawURLEncoding.Decode(b[:], []byte(id)); err != nil || n != runIDSize {
		return time.Time{}, false
	}
	var secs int64
	for _, c := range b[:runStartSize] {
		secs = secs<<8 | int64(c)
	}
	return time.Unix(secs, 0), true
}

// runLive reports whether the run of id may still go on: for a flow with
// Outcomes, no longer than they are kept, so that no state of the run,
// however often minted again, outlives the run's outcome and finishes it
// a second time. A run of an ID from before run IDs carried their start
// is refused, as its start is unknown.
func (f *Flow) runLive(id string) bool {
	if f.runLife <= 0 {
		return true
	}
	start, ok := runStart(id)
	return ok && f.codec.now().Sub(start) <= f.runLife
}

// readArguments reads call's arguments once: as the view's companion
// decoded them, when the call came through it, or from their JSON.
func (f *Flow) readArguments(call seam.Call) (callArgs, error) {
	if c, ok := call.(*sdkCall); ok {
		if decoded := companionMark((*mcp.CallToolRequest)(c)).take(); decoded != nil {
			return splitArguments(decoded, f.own)
		}
	}
	raw, err := call.Arguments()
	if err != nil {
		return callArgs{}, err
	}
	return callArguments(raw, f.own)
}

// nativePath is the path of an answer that came in the input responses:
// legacy for a client older than 2026-07-28, which its SDK's bridge serves.
func nativePath(call seam.Call) Path {
	if call.Legacy() {
		return PathLegacy
	}
	return PathNative
}

// reach is what the client of a call declared it can be asked through.
// native marks a form without keys, which has no state to read an answer
// with off the native path.
type reach struct{ form, url, apps, native bool }

// reachOf reads what the client of call declared. Apps support is read
// only for a client without form elicitation, the one case where it
// matters.
func reachOf(call seam.Call) reach {
	form, url := call.Modes()
	r := reach{form: form, url: url}
	if !form {
		r.apps = call.Apps()
	}
	return r
}

// appsDeclared reports whether the client of req renders MCP Apps, reading
// the per-request capabilities of 2026-07-28 in place when they arrived as
// JSON, as elicitationModes does.
func appsDeclared(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	if req.Params != nil {
		if m, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			ext, _ := m["extensions"].(map[string]any)
			ui, _ := ext[AppsExtension].(map[string]any)
			types, _ := ui["mimeTypes"].([]any)
			for _, t := range types {
				if t == AppMIMEType {
					return true
				}
			}
			return false
		}
	}
	return clientSupportsApps(req.ClientCapabilities())
}

// ownArguments returns the argument keys a flow's paths write: the state's
// and each field's name, with the key prefab's renderer sends it under.
// The state is bound to the call's arguments without them, so that
// answering through the arguments does not change what the state is bound
// to.
func ownArguments(steps []flowStep) map[string]bool {
	own := map[string]bool{StateArgument: true, prefab.ActionArgument: true, prefab.ToolArgument: true}
	for i := range steps {
		for _, f := range steps[i].c.all {
			own[f.Name], own[prefab.RendererKey(f.Name)] = true, true
		}
	}
	return own
}

// formArguments is ownArguments for a single form's fields.
func formArguments(fields []AutoFormField) map[string]bool {
	own := map[string]bool{StateArgument: true, prefab.ActionArgument: true, prefab.ToolArgument: true}
	for _, f := range fields {
		own[f.Name], own[prefab.RendererKey(f.Name)] = true, true
	}
	return own
}

// callArgs is what a flow reads of a call's arguments, in one decode.
type callArgs struct {
	digest  string         // of the arguments but the flow's own: what the state is bound to
	token   string         // the state carried under StateArgument
	carried bool           // StateArgument was there, even empty
	rest    []byte         // the arguments but the flow's own, as JSON object members
	answers map[string]any // the flow's own but the state and action: the answers
	action  any            // under prefab.ActionArgument, when acted
	acted   bool           // prefab.ActionArgument was there
	view    bool           // the call came through a view's companion, with a view's state
}

// renders reports whether the call is a view's render (prefab.RenderAction).
func (a *callArgs) renders() bool { return a.view && a.acted && a.action == prefab.RenderAction }

// restarts reports whether the call is a view's Start again
// (prefab.RestartAction).
func (a *callArgs) restarts() bool { return a.view && a.acted && a.action == prefab.RestartAction }

// declined reports whether the arguments carry prefab.ActionArgument, and the
// status it gives: ReplyDeclined for prefab.DeclineAction, and ReplyInvalid,
// naming the problem, for any other value.
func (a *callArgs) declined() (ReplyStatus, []*FieldError, bool) {
	switch {
	case !a.acted:
		return ReplyNone, nil, false
	case a.action == prefab.DeclineAction:
		return ReplyDeclined, nil, true
	case a.renders():
		return ReplyNone, nil, true // asked again, as it was: see prefab.RenderAction
	}
	return ReplyInvalid, []*FieldError{{Err: errArgumentAction}}, true
}

// answersFor returns the answers among the arguments that are c's
// fields', under their names or the keys prefab's renderer sends them
// under, or nil when there are none: a path that reads its answers from
// the arguments judges these, and only these.
func (a *callArgs) answersFor(c *compiled) map[string]any {
	content, own := a.answers, true
	for k := range content {
		if c.lookup(k) < 0 && !c.rendered(k) {
			own = false
			break
		}
	}
	if !own { // answers to other steps too: leave them out
		content = make(map[string]any, len(c.fields))
		for k, v := range a.answers {
			if c.lookup(k) >= 0 || c.rendered(k) {
				content[k] = v
			}
		}
	}
	if len(content) == 0 {
		return nil
	}
	return content
}

// rendered reports whether k is the key prefab's renderer sends one of c's
// fields under, in place of its name.
func (c *compiled) rendered(k string) bool {
	for i := range c.fields {
		if n := c.fields[i].Name; n != k && prefab.RendererKey(n) == k {
			return true
		}
	}
	return false
}

// nullDigest is the digest of absent, null and {} arguments.
var nullDigest = canonjson.Digest([]byte("null"))

// callArguments reads a call's arguments once, through readArguments, the
// one decoder of arguments: the digest of those the state is bound to,
// the state carried in them, the rest to send back, and the answers.
// Absent, null and {} arguments cost nothing. The digest covers the rest
// exactly, numbers as written (see canonjson.Marshal); a number among the
// answers that no float64 holds stays a json.Number for its field to
// name. Only arguments that are not JSON at all are an error, those with
// an object whose keys differ only in case (see canonjson.Marshal), and
// those that say two things (see readArguments) anywhere but in an
// answer, which is asked again.
func callArguments(raw json.RawMessage, own map[string]bool) (callArgs, error) {
	if t := bytes.Trim(raw, " \t\r\n"); len(t) == 0 || string(t) == "{}" || string(t) == "null" { // JSON's white space only
		return callArgs{digest: nullDigest}, nil
	}
	v, err := readArguments(raw)
	if err != nil {
		return callArgs{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		b, err := canonjson.Marshal(v)
		return callArgs{digest: canonjson.Digest(b)}, err
	}
	return splitArguments(m, own)
}

// splitArguments is callArguments for arguments already decoded by
// readArguments, which it changes: m keeps the answers. A member that says
// two things (an unclearValue) is an error, unless it is an answer, which
// is then asked again.
func splitArguments(m map[string]any, own map[string]bool) (callArgs, error) {
	// m keeps the answers; the tool's own arguments, usually none, move to
	// rest.
	var a callArgs
	var rest map[string]any
	for k, v := range m {
		if u, ok := v.(unclearValue); ok && (!own[k] || k == StateArgument || k == prefab.ActionArgument || k == prefab.ToolArgument) {
			// Not an answer to ask again: part of what the state is
			// bound to, or of how it is carried.
			return callArgs{}, u.err
		}
		switch {
		case !own[k]:
			if rest == nil {
				rest = make(map[string]any, len(m))
			}
			rest[k] = v
			delete(m, k)
		case k == StateArgument:
			delete(m, k)
			if s, ok := v.(string); ok {
				a.token, a.carried = s, true
			} else {
				a.token, a.carried = "\x00", true // not a string: a state that cannot verify
			}
		case k == prefab.ActionArgument:
			delete(m, k)
			a.action, a.acted = v, true
		}
	}
	if len(m) > 0 {
		answerNumbers(m)
		a.answers = m
	}
	if len(rest) == 0 {
		a.digest = nullDigest
		return a, nil
	}
	b, err := canonjson.Marshal(rest)
	if err != nil {
		return callArgs{}, err
	}
	a.digest, a.rest = canonjson.Digest(b), b[1:len(b)-1]
	return a, nil
}

// sendBack returns the arguments the next call carries, as JSON: the
// tool's own arguments of this call, and the state.
func (r *round) sendBack(token string) json.RawMessage {
	b := make([]byte, 0, len(r.args.rest)+len(token)+16)
	b = append(b, '{')
	if len(r.args.rest) > 0 {
		b = append(append(b, r.args.rest...), ',')
	}
	// The token is the codec's own text, base64url and dots, which JSON
	// writes as it is (TestMintedTokenIsJSONText): no escaping scan.
	b = append(b, `"`+StateArgument+`":"`...)
	b = append(append(b, token...), '"')
	return append(b, '}')
}
