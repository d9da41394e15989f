package mcpform

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkPath answers a flow on one path: how a call carries a step's
// answers, and what the round that asks says to the person.
type checkPath struct {
	name   string
	answer func(t *testing.T, prev *FlowRound, step string, answers map[string]any) *mcp.CallToolRequest
	says   func(t *testing.T, r *FlowRound) string
}

// checkPaths are the native, view and model paths.
func checkPaths() []checkPath {
	inArgs := func(meta func() mcp.Meta, direct bool) func(t *testing.T, prev *FlowRound, step string, answers map[string]any) *mcp.CallToolRequest {
		return func(t *testing.T, prev *FlowRound, _ string, answers map[string]any) *mcp.CallToolRequest {
			args := map[string]any{}
			if prev != nil {
				args[StateArgument] = carried(t, prev)
			}
			for k, v := range answers {
				args[k] = v
			}
			if direct {
				return directCall(t, meta(), "alice", "signup", args)
			}
			return argsCall(t, meta(), "alice", "signup", args)
		}
	}
	return []checkPath{
		{
			name: "native",
			answer: func(t *testing.T, prev *FlowRound, step string, answers map[string]any) *mcp.CallToolRequest {
				if prev == nil {
					return call("signup", "", nil)
				}
				return call("signup", prev.Result.RequestState, map[string]any{step: answers})
			},
			says: func(t *testing.T, r *FlowRound) string {
				p := r.Result.InputRequests[asked(t, r)].(*mcp.ElicitParams)
				schema, err := json.Marshal(p.RequestedSchema) // the choices' titles
				require.NoError(t, err)
				return p.Message + "\n" + string(schema)
			},
		},
		{
			name:   "view",
			answer: inArgs(appsMeta, false),
			says: func(t *testing.T, r *FlowRound) string {
				return strings.Join(viewWords(t, r), "\n")
			},
		},
		{
			name:   "model",
			answer: inArgs(bareMeta, true),
			says: func(t *testing.T, r *FlowRound) string {
				return r.Result.Content[0].(*mcp.TextContent).Text
			},
		},
	}
}

// viewWords returns every text, heading and button label of a flow view
// but its outcome's, in order.
func viewWords(t *testing.T, r *FlowRound) []string {
	t.Helper()
	var w struct{ View json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	var says []string
	var walk func(n *prefab.Node, inOutcome bool)
	walk = func(n *prefab.Node, inOutcome bool) {
		if !inOutcome && n.Content != "" {
			says = append(says, n.Type+": "+n.Content)
		}
		if !inOutcome && n.Type == "Button" {
			says = append(says, "Button: "+n.Label)
		}
		for _, c := range n.Children {
			walk(c, inOutcome || n.Type == "If")
		}
	}
	var root prefab.Node
	require.NoError(t, json.Unmarshal(w.View, &root))
	walk(&root, false)
	return says
}

// TestFlowCheckAnswers: a flow with CheckAnswers ends, on every path,
// with a round that shows the answers; changing one asks its step again,
// filled, keeps the others, and checks again; only "keep" finishes.
func TestFlowCheckAnswers(t *testing.T) {
	for _, p := range checkPaths() {
		t.Run(p.name, func(t *testing.T) {
			_, codec, _ := newFlowFixture(t)
			flow, err := NewFlow(codec, []Step{accountStep, teamStep},
				&FlowOptions{Principal: tokenUser, AskModel: true, CheckAnswers: true, Commit: "Create account"})
			require.NoError(t, err)
			ctx := context.Background()
			next := func(prev *FlowRound, step string, answers map[string]any) *FlowRound {
				t.Helper()
				r, err := flow.Next(ctx, p.answer(t, prev, step, answers))
				require.NoError(t, err)
				return r
			}
			r := next(nil, "", nil)
			require.Equal(t, "account", r.Step)
			r = next(r, "account", map[string]any{"email": "ada@example.com", "plan": "team"})
			require.Equal(t, "team", r.Step)
			r = next(r, "team", map[string]any{"team_name": "Analytical", "seats": 5})
			require.Equal(t, FlowAsk, r.Status, "the check round comes before the flow ends")
			require.Equal(t, CheckStep, r.Step)
			says := p.says(t, r)
			for _, want := range []string{"Check your answers", "Create your account", "Email: ada@example.com", "Plan: team",
				"Set up your team", "Seats: 5", "Create account", "Change: Set up your team"} {
				assert.Contains(t, says, want)
			}

			r = next(r, CheckStep, map[string]any{checkField: checkChange + "account"})
			require.Equal(t, FlowAsk, r.Status)
			assert.Equal(t, "account", r.Step, "the step to change is asked again")
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.filled, "filled with its answers")
			assert.Equal(t, Answers{"team_name": "Analytical", "seats": 5.0}, r.Answers, "the other steps stay proven")

			r = next(r, "account", map[string]any{"email": "bob@example.com", "plan": "team"})
			require.Equal(t, CheckStep, r.Step, "the team step stays proven: straight to the check round")
			says = p.says(t, r)
			assert.Contains(t, says, "Email: bob@example.com")
			assert.NotContains(t, says, "ada@example.com")

			r = next(r, CheckStep, map[string]any{checkField: checkKeep})
			require.Equal(t, FlowDone, r.Status)
			assert.Equal(t, Answers{"email": "bob@example.com", "plan": "team", "team_name": "Analytical", "seats": 5.0}, r.Answers)
		})
	}
}
