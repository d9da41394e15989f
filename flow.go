package mcpform

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Step is one round of a [Flow]: a form asked under its own input key.
type Step struct {
	// Key names the step's input request; the client answers under it.
	// It must be non-empty and unique within the flow.
	Key string
	// Fields are the step's questions. Field names must be unique across
	// the whole flow, because the answers are merged.
	Fields []AutoFormField
	// Message is shown above the form. Empty means [DefaultInputMessage].
	Message string
	// When decides, from the answers proven by earlier steps, whether the
	// step is asked at all. Nil means always.
	When func(proven Answers) bool
}

// FlowOptions configures [NewFlow]. A nil *FlowOptions means the defaults.
type FlowOptions struct {
	// MaxReasks is how many times a step is asked again after an answer
	// that fails the check; one more failing answer ends the flow with
	// [FlowInvalid]. Zero means 3.
	MaxReasks int
}

// A Flow asks for input in several rounds, carrying what earlier rounds
// proved in signed request state. Use one when a form must branch on
// earlier answers, or is richer than the flat elicitation schema allows.
//
// Each round, a tool handler calls [Flow.Next]. A step's answer is checked
// by [CheckFormInput]; one with a missing or invalid value, required or
// not, asks the step again with a message naming the problems. The answers of earlier
// steps are taken only from the verified state, never again from the
// client's inputResponses, so a client that resends a changed earlier answer
// changes nothing; the state is minted with exactly what has been proven and
// bound to the tool and a principal the caller supplies.
//
// A Flow is immutable and safe for concurrent use. The zero value and nil
// have no steps; Next refuses them.
type Flow struct {
	steps     []Step
	maxReasks int
}

// NewFlow returns a flow of steps, asked in order. It refuses an empty
// list, an empty or repeated step key, a field name used twice across
// steps, and any broken field definition, with an error naming the step.
func NewFlow(steps []Step, opts *FlowOptions) (*Flow, error) {
	if len(steps) == 0 {
		return nil, errors.New("mcpform: flow has no steps")
	}
	reasks := 3
	if opts != nil && opts.MaxReasks != 0 {
		if opts.MaxReasks < 0 {
			return nil, fmt.Errorf("mcpform: flow MaxReasks %d is negative", opts.MaxReasks)
		}
		reasks = opts.MaxReasks
	}
	owner := map[string]string{} // field name → step key
	for i, s := range steps {
		if s.Key == "" {
			return nil, fmt.Errorf("mcpform: flow step %d has an empty key", i)
		}
		for _, p := range steps[:i] {
			if p.Key == s.Key {
				return nil, fmt.Errorf("mcpform: flow step key %q is used twice", s.Key)
			}
		}
		if err := checkFields(s.Fields); err != nil {
			return nil, fmt.Errorf("mcpform: flow step %q: %w", s.Key, err)
		}
		for _, f := range s.Fields {
			if o, ok := owner[f.Name]; ok {
				return nil, fmt.Errorf("mcpform: flow step %q: %w", s.Key,
					fieldErr(f.Name, ErrName, "also asked by step %q; answers are merged", o))
			}
			owner[f.Name] = s.Key
		}
	}
	return &Flow{steps: append([]Step(nil), steps...), maxReasks: reasks}, nil
}

// A FlowStatus says how a round of a [Flow] ended.
type FlowStatus int

const (
	// FlowAsk: return [FlowRound.Result], which asks for the next step.
	FlowAsk FlowStatus = iota
	// FlowDone: every step that applies is answered; [FlowRound.Answers]
	// holds them all, merged.
	FlowDone
	// FlowDeclined: the person declined [FlowRound.Step].
	FlowDeclined
	// FlowCancelled: the person dismissed [FlowRound.Step].
	FlowCancelled
	// FlowInvalid: [FlowRound.Step] was asked again
	// [FlowOptions.MaxReasks] times, and its answer still failed the check.
	FlowInvalid
)

func (s FlowStatus) String() string {
	switch s {
	case FlowAsk:
		return "ask"
	case FlowDone:
		return "done"
	case FlowDeclined:
		return "declined"
	case FlowCancelled:
		return "cancelled"
	case FlowInvalid:
		return "invalid"
	}
	return fmt.Sprintf("FlowStatus(%d)", int(s))
}

// A FlowRound is the outcome of one call of [Flow.Next].
type FlowRound struct {
	Status FlowStatus
	// Result is, for FlowAsk, the input_required result to return from the
	// handler as it is; nil otherwise.
	Result *mcp.CallToolResult
	// Answers are the answers proven so far: all of them for FlowDone, and
	// those of the steps before Step otherwise. Never nil.
	Answers Answers
	// Step is the key of the step asked, declined, cancelled or failed; ""
	// for FlowDone.
	Step string
	// Problems say why the last answer to Step was not accepted, when the
	// step is asked again or has failed; the re-ask's message names them.
	Problems []*FieldError
	// Attempt counts the failed answers Step has had, from 0.
	Attempt int
	// ID identifies this run of the flow: random when the flow starts,
	// then carried in its signed state, so every round of one run, and any
	// replay of one, has the same ID. Use it as the idempotency key of what
	// FlowDone triggers.
	ID string
}

// Next runs one round of the flow for the tool call req. The codec must bind
// ([RequestStateOptions].Bind): the state is bound to [BindTo](principal,
// tool name), where principal is who the server authenticated, never a value
// the client chose, and may be "" for an unauthenticated server.
//
// A call without request state starts the flow. A state that does not
// verify, has expired, or was minted for another tool or principal returns
// the JSON-RPC error of [RequestStateError], for the handler to return as it
// is. Other errors report misuse: a nil flow, a non-binding codec.
//
// A client older than 2026-07-28 is served by go-sdk's bridge, which
// fulfils one round only; add [LegacyRounds] to the server so that such a
// client can answer every round of the flow.
func (f *Flow) Next(req *mcp.CallToolRequest, codec *RequestStateCodec, principal string) (*FlowRound, error) {
	if f == nil || len(f.steps) == 0 {
		return nil, errors.New("mcpform: Next on a flow without steps")
	}
	if codec == nil || !codec.bind {
		return nil, errors.New("mcpform: a flow's codec must bind (RequestStateOptions.Bind)")
	}
	if req == nil || req.Params == nil {
		return nil, errors.New("mcpform: Next without a tool call")
	}
	bind := BindTo(principal, req.Params.Name)

	if req.Params.RequestState == "" {
		return f.start(codec, bind)
	}
	var st flowState
	if err := codec.Verify(req.Params.RequestState, bind, &st); err != nil {
		return nil, RequestStateError(err)
	}
	if st.Proven == nil {
		st.Proven = Answers{}
	}
	i := f.index(st.Step)
	if i < 0 || st.Attempt < 0 || st.ID == "" {
		// Signed by us, so not forged, but from a flow this one no longer
		// is (a deploy between rounds): start again rather than guess.
		return f.start(codec, bind)
	}
	step := &f.steps[i]
	r := InputResponse(req.Params.InputResponses, step.Key)
	switch {
	case r == nil:
		// No answer to the step asked: ask it again, as it was.
		return f.ask(codec, bind, i, st, nil)
	case r.Action == "decline":
		return &FlowRound{Status: FlowDeclined, Answers: st.Proven, Step: step.Key, Attempt: st.Attempt, ID: st.ID}, nil
	case r.Action == "cancel":
		return &FlowRound{Status: FlowCancelled, Answers: st.Proven, Step: step.Key, Attempt: st.Attempt, ID: st.ID}, nil
	}
	answers, problems := CheckFormInput(req.Params.InputResponses, step.Key, step.Fields)
	// An invalid optional value is asked again too: the person typed
	// something, and silently losing it would be worse than asking. Only
	// unknown keys are dropped without a word.
	if answers == nil || hasInvalid(problems) {
		if len(problems) == 0 {
			// An accept without content, or an action the protocol
			// does not have: as good as an empty answer.
			problems = []*FieldError{{Err: fmt.Errorf("%w: the answer has no content", ErrInvalidValue)}}
		}
		st.Attempt++
		if st.Attempt > f.maxReasks {
			return &FlowRound{Status: FlowInvalid, Answers: st.Proven, Step: step.Key, Problems: problems, Attempt: st.Attempt, ID: st.ID}, nil
		}
		return f.ask(codec, bind, i, st, problems)
	}
	if len(st.Proven) == 0 {
		st.Proven = answers // the first step: nothing to merge into
	} else {
		for k, v := range answers {
			st.Proven[k] = v
		}
	}
	st.Attempt = 0
	return f.ask(codec, bind, f.next(i, st.Proven), st, nil)
}

// start begins a new run of the flow, under a fresh random ID.
func (f *Flow) start(codec *RequestStateCodec, bind string) (*FlowRound, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	st := flowState{ID: base64.RawURLEncoding.EncodeToString(id[:]), Proven: Answers{}}
	return f.ask(codec, bind, f.next(-1, st.Proven), st, nil)
}

func hasInvalid(problems []*FieldError) bool {
	for _, p := range problems {
		if errors.Is(p.Err, ErrInvalidValue) {
			return true
		}
	}
	return false
}

// next returns the index of the first step after i that applies to proven,
// or len(f.steps) when none does.
func (f *Flow) next(i int, proven Answers) int {
	for i++; i < len(f.steps); i++ {
		if w := f.steps[i].When; w == nil || w(proven) {
			return i
		}
	}
	return i
}

func (f *Flow) index(key string) int {
	for i := range f.steps {
		if f.steps[i].Key == key {
			return i
		}
	}
	return -1
}

// ask returns the round that asks step i, with st sealed in the state, or
// FlowDone past the last step.
func (f *Flow) ask(codec *RequestStateCodec, bind string, i int, st flowState, problems []*FieldError) (*FlowRound, error) {
	if i >= len(f.steps) {
		return &FlowRound{Status: FlowDone, Answers: st.Proven, ID: st.ID}, nil
	}
	step := &f.steps[i]
	st.Step = step.Key
	token, err := codec.Mint(st, bind)
	if err != nil {
		return nil, err
	}
	msg := step.Message
	if msg == "" {
		msg = DefaultInputMessage
	}
	if len(problems) > 0 {
		msg += "\n\n" + ProblemMessage(step.Fields, problems)
	}
	res, err := FormInputRequest(step.Fields, &InputRequestOptions{Key: step.Key, Message: msg, RequestState: token})
	if err != nil {
		return nil, err
	}
	return &FlowRound{Status: FlowAsk, Result: res, Answers: st.Proven, Step: step.Key, Problems: problems, Attempt: st.Attempt, ID: st.ID}, nil
}
