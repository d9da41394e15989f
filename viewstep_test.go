package mcpform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewSays returns what a flow view says to the person, walking its tree:
// the texts of its step, headings, buttons, descriptions and problems, in
// order, and its renderer state.
func viewSays(t *testing.T, r *FlowRound) ([]string, map[string]any) {
	t.Helper()
	var w struct {
		View  json.RawMessage
		State map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	var says []string
	var walk func(n *node, inOutcome bool)
	walk = func(n *node, inOutcome bool) {
		switch {
		case inOutcome:
		case n.Type == "Muted" || n.Type == "Heading" || n.Type == "AlertTitle" || n.Type == "AlertDescription" ||
			n.Type == "FieldDescription" || n.Type == "FieldError":
			says = append(says, n.Type+": "+n.Content)
		case n.Type == "Button":
			says = append(says, n.Type+": "+n.Label)
		}
		for _, c := range n.Children {
			walk(c, inOutcome || n.Type == "If")
		}
	}
	var root node
	require.NoError(t, json.Unmarshal(w.View, &root))
	walk(&root, false)
	return says, w.State
}

// TestFlowViewSteps: a flow's views say where each step stands, label
// their submit as the step asks, Continue before the last step and Submit
// on it, fill their defaults, and after a re-ask lead with the summary.
func TestFlowViewSteps(t *testing.T) {
	team := teamStep
	team.Fields = append([]AutoFormField(nil), team.Fields...)
	team.Fields[1].Default = 5
	team.Submit = "Create the team"
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, team}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	ctx := context.Background()

	first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	says, state := viewSays(t, first)
	assert.Equal(t, []string{"Muted: Step 1 of 2", "Heading: Create your account", "Button: Continue", "Button: Decline"}, says)
	assert.Equal(t, map[string]any{outcomeKey: nil}, state)

	again, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, first), "email": "ada@", "plan": "team"}))
	require.NoError(t, err)
	says, state = viewSays(t, again)
	assert.Equal(t, []string{"AlertTitle: There is a problem", "AlertDescription: Enter an email address like name@example.com",
		"Muted: Step 1 of 2", "Heading: Create your account", "FieldError: Enter an email address like name@example.com",
		"Button: Continue", "Button: Decline"}, says)
	assert.Equal(t, map[string]any{outcomeKey: nil, "plan": "team"}, state, "the accepted value is filled, the refused one left as typed")

	second, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, again), "email": "ada@example.com", "plan": "team"}))
	require.NoError(t, err)
	says, state = viewSays(t, second)
	assert.Equal(t, []string{"Muted: Step 2 of 2", "Heading: Set up your team", "FieldDescription: At least 2 characters",
		"FieldDescription: From 2 to 50", "Button: Create the team", "Button: Decline"}, says)
	assert.Equal(t, map[string]any{outcomeKey: nil, "seats": 5.0}, state, "the default is filled")

	one, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	only, err := one.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	says, _ = viewSays(t, only)
	assert.Equal(t, []string{"Heading: Create your account", "Button: Submit", "Button: Decline"}, says, "one step: no count, and Submit")
}

// BenchmarkFlowViewReask builds a view no cache holds: a re-ask, which
// names a problem and keeps a good value, and encodes it as go-sdk does.
// Together with BenchmarkFlowRound/apps, which takes the plain view from
// the cache, it measures what a view costs to build.
func BenchmarkFlowViewReask(b *testing.B) {
	flow, _, _ := newFlowFixture(b)
	ctx := context.Background()
	first, err := flow.Next(ctx, argsCall(b, appsMeta(), "alice", "signup", nil))
	require.NoError(b, err)
	req := argsCall(b, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(b, first), "email": "ada@", "plan": "team"})
	b.ReportAllocs()
	for b.Loop() {
		r, err := flow.Next(ctx, req)
		if err != nil || r.Status != FlowAsk {
			b.Fatal(err, r)
		}
		if _, err := json.Marshal(r.Result); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFlowViewInLanguage: a flow asked in French shows its view in
// French, from the catalog: the step, buttons, summary and problems; its
// root says the language for the viewer, and the model reads French too.
func TestFlowViewInLanguage(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	ctx := context.Background()
	first, err := flow.Next(ctx, argsCall(t, withLang(appsMeta(), "fr-FR"), "alice", "signup", nil))
	require.NoError(t, err)
	says, _ := viewSays(t, first)
	assert.Equal(t, []string{"Muted: Étape 1 sur 2", "Heading: Create your account", "Button: Continuer", "Button: Refuser"}, says)
	assert.Contains(t, wireJSON(t, first.Result.StructuredContent), `"cssClass":"pf-app-root mcpform-lang-fr"`)

	again, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, first), "email": "ada@", "plan": "team"}))
	require.NoError(t, err)
	says, _ = viewSays(t, again)
	assert.Equal(t, []string{"AlertTitle: Il y a un problème", "AlertDescription: Saisissez une adresse e-mail, par exemple nom@example.com",
		"Muted: Étape 1 sur 2", "Heading: Create your account",
		"FieldError: Saisissez une adresse e-mail, par exemple nom@example.com", "Button: Continuer", "Button: Refuser"}, says)
	text := again.Result.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "La personne voit le formulaire")
	assert.Contains(t, text, "Veuillez vérifier\u00a0: ", "the model reads the problems in French")
}
