package mcpform

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowArgumentsDecline sends a decline natively, through an Apps
// view's arguments and through the model's, at each step, and wants the
// same round on each: FlowDeclined naming the step, with the answers
// proven before it. Any other value of the action argument is judged as a
// native answer with an unknown action: asked again, naming the problem.
func TestFlowArgumentsDecline(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	account := map[string]any{"email": "ada@example.com", "plan": "team"}
	type path struct {
		name string
		flow *Flow
		meta mcp.Meta
	}
	paths := []path{{"native", flow, formCaps()}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}}
	// send answers step natively with native, or through the arguments
	// with args beside the state.
	send := func(t *testing.T, p path, state, step string, native any, args map[string]any) (*FlowRound, error) {
		if p.name == "native" {
			return p.flow.Next(context.Background(), callAs("alice", "signup", state, map[string]any{step: native}))
		}
		a := map[string]any{StateArgument: state}
		for k, v := range args {
			a[k] = v
		}
		return p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", a))
	}
	begin := func(t *testing.T, p path) *FlowRound {
		r, err := p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", nil))
		require.NoError(t, err)
		return r
	}
	decline := map[string]any{actionArgument: declineAction}
	shared := func(r *FlowRound, err error) roundOutcome { // the run's ID is checked apart
		o := outcomeOf(r, err)
		o.id = ""
		return o
	}

	t.Run("each step", func(t *testing.T) {
		for _, p := range paths {
			first := begin(t, p)
			r, err := send(t, p, carried(t, first), "account", "decline", decline)
			require.NoError(t, err, p.name)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "account"}, shared(r, err), p.name)
			assert.Equal(t, first.ID, r.ID, p.name)
			assert.Empty(t, r.Answers, p.name)

			second, err := send(t, p, carried(t, first), "account", account, account)
			require.NoError(t, err, p.name)
			require.Equal(t, "team", second.Step, p.name)
			r, err = send(t, p, carried(t, second), "team", "decline", decline)
			require.NoError(t, err, p.name)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "team"}, shared(r, err), p.name)
			assert.Equal(t, first.ID, r.ID, p.name)
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers, p.name)
		}
	})

	t.Run("a decline with answers is a decline", func(t *testing.T) {
		for _, p := range paths[1:] {
			args := map[string]any{actionArgument: declineAction, "email": "ada@example.com", "plan": "pro"}
			r, err := send(t, p, carried(t, begin(t, p)), "", nil, args)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "account"}, shared(r, err), p.name)
		}
	})

	t.Run("a decline with a forged state is refused", func(t *testing.T) {
		for _, p := range paths[1:] {
			s := carried(t, begin(t, p))
			r, err := send(t, p, s[:len(s)-4]+"AAAA", "", nil, decline)
			assert.Equal(t, roundOutcome{Code: -32602}, shared(r, err), p.name)
		}
	})

	reasked := roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{""}}
	t.Run("a native unknown action", func(t *testing.T) {
		p := paths[0]
		r, err := send(t, p, carried(t, begin(t, p)), "account", "bogus", nil)
		assert.Equal(t, reasked, shared(r, err))
	})
	for _, bad := range []any{"accept", "Decline", "cancel", "", 1.0, true, nil, map[string]any{"action": "decline"}, []any{"decline"}} {
		t.Run(fmt.Sprintf("action %#v", bad), func(t *testing.T) {
			for _, p := range paths[1:] {
				args := map[string]any{actionArgument: bad, "email": "ada@example.com", "plan": "pro"}
				r, err := send(t, p, carried(t, begin(t, p)), "", nil, args)
				assert.Equal(t, reasked, shared(r, err), p.name)
				require.NoError(t, err)
				assert.Equal(t, 1, r.Attempt, "%s: a re-ask, counted", p.name)
				assert.Contains(t, wireJSON(t, r.Result), actionArgument, "%s: the re-ask names the problem", p.name)
			}
		})
	}
}

// TestFlowArgumentsDeclineOnce declines through a view's and the model's
// arguments with Outcomes set: a replay of the decline, and one that
// answers instead, get the first outcome, and nothing is created.
func TestFlowArgumentsDeclineOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		_, codec, _ := newFlowFixture(t)
		s, _ := d.store(t, d.tables(t))
		flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: s, AskModel: true})
		require.NoError(t, err)
		for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
			r, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", nil))
			require.NoError(t, err)
			state := carried(t, r)
			var calls int
			for i, args := range []map[string]any{
				{StateArgument: state, actionArgument: declineAction},
				{StateArgument: state, actionArgument: declineAction},
				{StateArgument: state, "email": "ada@example.com", "plan": "pro"},
			} {
				round, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", args))
				require.NoError(t, err)
				require.NotEqual(t, FlowAsk, round.Status, "round %d", i)
				assert.Equal(t, r.ID, round.ID)
				res, err := round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
					calls++
					if round.Status == FlowDone {
						return outcome("created"), nil
					}
					return outcome("Signup not completed: you declined " + round.Step), nil
				})
				require.NoError(t, err)
				assert.Equal(t, "Signup not completed: you declined account", textOf(res), "round %d", i)
			}
			assert.Equal(t, 1, calls, "the decline's outcome alone was made")
		}
	})
}
