package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcomes keeps the first outcome of each run of a [Flow], so that what
// the run triggers happens once: set it as [FlowOptions].Outcomes and gate
// the side effect with [FlowRound.Once]. Replicas that share it share the
// guarantee. [SQLStore] is one on database/sql: it keeps each outcome
// as the result's JSON, so that one store serves go-sdk's face and
// mcp-go's (the mcpgo package), each decoding its own result type. Any
// other implementation serves mcp-go's face through go-sdk's result, into
// which the JSON of every SDK's tool result decodes.
//
// Implementations must be safe for concurrent use, by this process and by
// any other sharing the same storage.
type Outcomes interface {
	// Once returns the first outcome stored under key. When key has none,
	// Once claims it, calls do, stores do's result and returns it; a claim
	// held by another call, here or on a replica, is waited for, and its
	// outcome returned. do runs at most once while its claim holds, and
	// its context ends when the claim does, so that a claim whose holder
	// has crashed can lapse and be taken over. An error from do, or a nil
	// result, stores nothing and releases the claim: the next Once calls
	// do again. Waiting ends with ctx.
	Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error)
	// Lookup returns the outcome stored under key, and true; nil and true
	// while key is claimed and its outcome not yet stored; nil and false
	// when key was never claimed, or its claim was released.
	Lookup(ctx context.Context, key string) (first *mcp.CallToolResult, found bool, err error)
}

// errRunLost reports a replay of a finishing round whose first finish
// neither stored an outcome nor left the secrets to try again with.
var errRunLost = errors.New("mcpform: this run's finishing round failed after taking its secrets; start again")

// Once gates the side effect of a run on the first outcome of the run: it
// returns the outcome stored under the round's [FlowRound.ID] in the
// flow's [FlowOptions].Outcomes, and when the run has none, it calls do,
// stores do's result and returns it. A replay of the round, with the same
// answers or others, on any replica, gets that first outcome and calls
// nothing; a duplicate that arrives while do is still running waits for
// do's outcome. So a handler writes, for every status but [FlowAsk]:
//
//	return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
//		// create the account, send the mail, ... once
//	})
//
// Storing the outcomes of declined, cancelled and invalid rounds too keeps
// a replay of the last round from turning a "declined" into a "created".
//
// do must return a final result, not an input request. An error from do
// is returned and stores nothing, so a retry calls do again. A flow with
// secrets takes them out of its [SecretStore] only once the outcome is
// stored, so the retry still has them; a FlowDone round that finds them
// already taken by another round of its run carries none in its Answers,
// and its Once never calls do: it waits for that round's outcome. Once fails on a round of status
// FlowAsk, whose Result is the answer, and on a flow without Outcomes.
func (r *FlowRound) Once(ctx context.Context, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	d := &sdkDo{do: do}
	var run func(context.Context) ([]byte, error)
	if do != nil {
		run = d.json
	}
	first, err := r.once(ctx, run)
	if err != nil {
		return nil, err
	}
	return d.result(first)
}

// once is [FlowRound.Once] on the outcome's JSON, for every SDK's face:
// each marshals its own result for do, and decodes what once returns.
func (r *FlowRound) once(ctx context.Context, do func(context.Context) ([]byte, error)) ([]byte, error) {
	switch {
	case r == nil || r.flow == nil || r.flow.outcomes == nil:
		return nil, errors.New("mcpform: FlowRound.Once needs FlowOptions.Outcomes")
	case r.Status == FlowAsk:
		return nil, errors.New("mcpform: FlowRound.Once on a round that asks; return its Result")
	case do == nil:
		return nil, errors.New("mcpform: FlowRound.Once without a function")
	}
	if r.first != nil {
		return r.first, nil
	}
	if r.replay {
		// The secrets are gone: this round can only wait for the outcome
		// of the round that took them.
		do = func(context.Context) ([]byte, error) { return nil, errRunLost }
	}
	first, err := outcomesJSON(r.flow.outcomes).onceJSON(ctx, r.ID, do)
	if err != nil {
		return nil, err
	}
	// The outcome is stored: the secrets it was decided with are spent.
	for _, key := range r.secretKeys {
		if err := r.flow.secrets.Store.Delete(ctx, key); err != nil {
			return nil, err
		}
	}
	return first, nil
}

// finishing returns, for a round whose secrets are gone from the store,
// the round that waits for the outcome of the round that took them, or
// nil when the run has no outcome and no claim: its page was never sent.
func (r *round) finishing(ctx context.Context, valid Answers) (*FlowRound, error) {
	if r.flow.outcomes == nil {
		return nil, nil
	}
	first, found, err := outcomesJSON(r.flow.outcomes).lookupJSON(ctx, r.st.ID)
	if err != nil || !found {
		return nil, err
	}
	return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID, first: first, replay: true}, nil
}

// outcomeJSON is [Outcomes] on the outcome's JSON, whichever SDK's result
// it is, so that one store serves every face: each face marshals and
// decodes its own result type. [SQLStore] is one; any other Outcomes is
// read through go-sdk's result (see sdkOutcomes).
type outcomeJSON interface {
	onceJSON(ctx context.Context, key string, do func(context.Context) ([]byte, error)) ([]byte, error)
	lookupJSON(ctx context.Context, key string) ([]byte, bool, error)
}

var errOutcomeNil = errors.New("mcpform: Once's function returned neither a result nor an error")

func outcomesJSON(o Outcomes) outcomeJSON {
	if j, ok := o.(outcomeJSON); ok {
		return j
	}
	return sdkOutcomes{o}
}

// sdkOutcomes are Outcomes on go-sdk's result, read as JSON: the wire
// form of a tool result, which every SDK's result type decodes.
type sdkOutcomes struct{ Outcomes }

func (o sdkOutcomes) onceJSON(ctx context.Context, key string, do func(context.Context) ([]byte, error)) ([]byte, error) {
	res, err := o.Once(ctx, key, func(ctx context.Context) (*mcp.CallToolResult, error) {
		blob, err := do(ctx)
		if err != nil || blob == nil {
			return nil, err
		}
		return decodeOutcome(blob)
	})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errOutcomeNil
	}
	return json.Marshal(res)
}

func (o sdkOutcomes) lookupJSON(ctx context.Context, key string) ([]byte, bool, error) {
	first, found, err := o.Lookup(ctx, key)
	if err != nil || first == nil {
		return nil, found, err
	}
	blob, err := json.Marshal(first)
	return blob, err == nil, err
}

// sdkDo is a do of go-sdk's result run on the outcome's JSON. result
// returns do's own result when it is the outcome stored, so that the
// caller gets back what it made, and the stored outcome decoded otherwise.
type sdkDo struct {
	do   func(context.Context) (*mcp.CallToolResult, error)
	mine *mcp.CallToolResult
	blob []byte
}

func (d *sdkDo) json(ctx context.Context) ([]byte, error) {
	res, err := d.do(ctx)
	if err != nil || res == nil {
		return nil, err
	}
	blob, err := json.Marshal(res)
	d.mine, d.blob = res, blob
	return blob, err
}

func (d *sdkDo) result(first []byte) (*mcp.CallToolResult, error) {
	if d.mine != nil && bytes.Equal(first, d.blob) {
		return d.mine, nil
	}
	return decodeOutcome(first)
}

// onceDecoded is Outcomes.Once of go-sdk's result on s.
func onceDecoded(ctx context.Context, s outcomeJSON, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	d := &sdkDo{do: do}
	first, err := s.onceJSON(ctx, key, d.json)
	if err != nil {
		return nil, err
	}
	return d.result(first)
}

// lookupDecoded is Outcomes.Lookup of go-sdk's result on s.
func lookupDecoded(ctx context.Context, s outcomeJSON, key string) (*mcp.CallToolResult, bool, error) {
	blob, found, err := s.lookupJSON(ctx, key)
	if err != nil || blob == nil {
		return nil, found, err
	}
	first, err := decodeOutcome(blob)
	return first, err == nil, err
}

func decodeOutcome(blob []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(blob, &res); err != nil {
		return nil, errors.New("mcpform: a stored outcome is not a tool result")
	}
	return &res, nil
}
