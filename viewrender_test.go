package mcpform

import (
	"context"
	"maps"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowViewRender: a view's render (renderAction) asks the same step
// again in the language of its host, reading no answer: the same step and
// attempt, nothing proven, nothing filled; the state it mints pins the new
// language and is bound as before, to the view's channel and the same
// arguments and principal.
func TestFlowViewRender(t *testing.T) {
	ctx := context.Background()
	flow, _, _ := newFlowFixture(t)
	render := func(t *testing.T, meta mcp.Meta, principal string, args map[string]any) (*FlowRound, error) {
		a := map[string]any{actionArgument: renderAction}
		maps.Copy(a, args)
		return flow.Next(ctx, argsCall(t, withLang(meta, "fr-FR"), principal, "signup", a))
	}
	first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	require.Equal(t, "en", first.Language.String())

	t.Run("the same step, in French, unanswered", func(t *testing.T) {
		// Answers sent with a render are not read: a render cannot answer.
		r, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: carried(t, first), "email": "ada@example.com", "plan": "team"})
		require.NoError(t, err)
		assert.Equal(t, roundOutcome{Status: FlowAsk, Step: "account"}, outcomeOf(r, nil).without())
		assert.Equal(t, first.ID, r.ID)
		assert.Zero(t, r.Attempt)
		assert.Empty(t, r.Answers, "nothing proven")
		assert.Equal(t, "fr", r.Language.String())
		assert.Equal(t, "fr", r.Result.Meta[metaContentLanguage])
		says, state := viewSays(t, r)
		assert.Equal(t, []string{"Muted: Étape 1 sur 2", "Heading: Create your account", "Button: Continuer", "Button: Refuser"}, says)
		assert.Equal(t, map[string]any{outcomeKey: nil}, state, "nothing filled")

		// The next submit, with no language asked, keeps French: pinned.
		next, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, r), "email": "ada@", "plan": "team"}))
		require.NoError(t, err)
		assert.Equal(t, "fr", next.Language.String())
		assert.Equal(t, 1, next.Attempt, "a re-ask counts from the render's attempt")
		says, _ = viewSays(t, next)
		assert.Contains(t, says, "AlertTitle: Il y a un problème")

		// A render of the re-ask keeps its attempt: it cannot reset it.
		again, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: carried(t, next)})
		require.NoError(t, err)
		assert.Equal(t, 1, again.Attempt)
		assert.Equal(t, "account", again.Step)
	})

	t.Run("the step after is not skipped to", func(t *testing.T) {
		r, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: carried(t, first)})
		require.NoError(t, err)
		// The render's state, sent with no answer, asks the first step still.
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, r)}))
		require.NoError(t, err)
		assert.Equal(t, "account", r.Step)
		assert.Empty(t, r.Answers)
	})

	t.Run("the binding holds", func(t *testing.T) {
		state := carried(t, first)
		for name, call := range map[string]func() (*FlowRound, error){
			"another principal": func() (*FlowRound, error) {
				return render(t, appsMeta(), "mallory", map[string]any{StateArgument: state})
			},
			"other arguments": func() (*FlowRound, error) {
				return render(t, appsMeta(), "alice", map[string]any{StateArgument: state, "account_id": "42"})
			},
			"not through the view": func() (*FlowRound, error) {
				return flow.Next(ctx, directCall(t, withLang(appsMeta(), "fr"), "alice", "signup",
					map[string]any{StateArgument: state, actionArgument: renderAction}))
			},
		} {
			_, err := call()
			assert.Equal(t, roundOutcome{Code: -32602}, outcomeOf(nil, err).without(), name)
		}
		// The render's own state verifies on the view's channel alone.
		r, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: state})
		require.NoError(t, err)
		_, err = flow.Next(ctx, directCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, r), "email": "ada@example.com", "plan": "pro"}))
		assert.Equal(t, roundOutcome{Code: -32602}, outcomeOf(nil, err).without())
	})
}

// TestFlowRenderOnlyFromAView: renderAction on the model's path is an
// unknown action, refused and counted as before, and the language stays
// pinned.
func TestFlowRenderOnlyFromAView(t *testing.T) {
	ctx := context.Background()
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	first, err := flow.Next(ctx, argsCall(t, bareMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	r, err := flow.Next(ctx, argsCall(t, withLang(bareMeta(), "fr"), "alice", "signup",
		map[string]any{StateArgument: carried(t, first), actionArgument: renderAction, "email": "ada@example.com", "plan": "pro"}))
	require.NoError(t, err)
	assert.Equal(t, 1, r.Attempt, "a re-ask, counted")
	require.Len(t, r.Problems, 1)
	assert.ErrorIs(t, r.Problems[0].Err, errArgumentAction)
	assert.Equal(t, "en", r.Language.String(), "the pinned language")

	for _, a := range []callArgs{{acted: true, action: renderAction}, {view: true, acted: true, action: "Render"}, {view: true, acted: true, action: 1.0}} {
		st, p, ok := a.declined()
		assert.Equal(t, ReplyInvalid, st, "%+v", a)
		assert.True(t, ok)
		assert.Len(t, p, 1)
	}
	st, p, ok := (&callArgs{view: true, acted: true, action: renderAction}).declined()
	assert.Equal(t, []any{ReplyNone, 0, true}, []any{st, len(p), ok})
}

// without is o without the run's ID.
func (o roundOutcome) without() roundOutcome { o.id = ""; return o }
