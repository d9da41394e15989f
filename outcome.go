package mcpform

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcomes keeps the first outcome of each run of a [Flow], so that what
// the run triggers happens once: set it as [FlowOptions].Outcomes and gate
// the side effect with [FlowRound.Once]. Replicas that share it share the
// guarantee. [SQLStore] is one on database/sql.
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
		do = func(context.Context) (*mcp.CallToolResult, error) { return nil, errRunLost }
	}
	res, err := r.flow.outcomes.Once(ctx, r.ID, do)
	if err != nil {
		return nil, err
	}
	// The outcome is stored: the secrets it was decided with are spent.
	for _, key := range r.secretKeys {
		if err := r.flow.secrets.Store.Delete(ctx, key); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// finishing returns, for a round whose secrets are gone from the store,
// the round that waits for the outcome of the round that took them, or
// nil when the run has no outcome and no claim: its page was never sent.
func (r *round) finishing(ctx context.Context, valid Answers) (*FlowRound, error) {
	if r.flow.outcomes == nil {
		return nil, nil
	}
	first, found, err := r.flow.outcomes.Lookup(ctx, r.st.ID)
	if err != nil || !found {
		return nil, err
	}
	return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID, first: first, replay: true}, nil
}
