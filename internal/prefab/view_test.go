package prefab

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestViewIsTheStep: a step's view holds the step alone, in its root, and
// no outcome: the tool's last result comes as a view of its own (Ended).
func TestViewIsTheStep(t *testing.T) {
	b, err := View(&Step{Tool: "signup", Message: "Create your account", Fields: []Field{{Name: "email", Title: "Email"}},
		StateKey: "mcpform", State: "s1.token"}, english)
	require.NoError(t, err)
	var w struct {
		View  *Node          `json:"view"`
		State map[string]any `json:"state"`
	}
	require.NoError(t, json.Unmarshal(b, &w))
	require.Len(t, w.View.Children, 1, "the root holds the step")
	assert.Equal(t, "Column", w.View.Children[0].Type)
	assert.Equal(t, map[string]any{OutcomeKey: nil}, w.State, "a step's view clears the last outcome")
	assert.NotContains(t, string(b), OutcomePanelClass)
	assert.NotContains(t, string(b), RestartAction)
	assert.Equal(t, 3, strings.Count(string(b), "s1.token"), "the state, once in each button and in the view's arguments")
}

// TestEnded: the view of a tool's last result shows the outcome's panel
// in its language, with the result in its state under OutcomeKey, and
// Start again, sending back what the step's view sent, when it names the
// tool.
func TestEnded(t *testing.T) {
	french := &Text{Lang: "fr", Done: "Terminé", NotDone: "Non abouti", StartAgain: "Recommencer"}
	result := json.RawMessage(`{"content":[{"type":"text","text":"Refusé."}],"isError":false}`)
	back := map[string]any{"mcpform": "s1.token", ArgumentsArgument: `{"x":1}`}
	for _, tt := range []struct {
		name  string
		tool  string
		again map[string]any // the button's arguments; nil for no button
	}{
		{"with Start again", "signup", map[string]any{"mcpform": "s1.token", ArgumentsArgument: `{"x":1}`,
			ActionArgument: RestartAction, ToolArgument: "signup"}},
		{"without", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Ended(french, result, tt.tool, back)
			require.NoError(t, err)
			var w struct {
				Prefab wireVersion                `json:"$prefab"`
				View   *Node                      `json:"view"`
				State  map[string]json.RawMessage `json:"state"`
			}
			require.NoError(t, json.Unmarshal(b, &w))
			assert.Equal(t, Version, w.Prefab.Version)
			assert.JSONEq(t, string(result), string(w.State[OutcomeKey]), "the panel reads the result from the state")
			assert.Equal(t, "pf-app-root "+LangClass+"fr", w.View.CSSClass)
			require.NotEmpty(t, w.View.Children)
			assert.Contains(t, w.View.Children[0].CSSClass, OutcomePanelClass)
			var got map[string]any
			if len(w.View.Children) > 1 {
				again := w.View.Children[1]
				assert.Equal(t, notDone, again.Condition, "only under an outcome that did not complete")
				button := again.Children[0].Children[0]
				assert.Equal(t, "Recommencer", button.Label)
				assert.Equal(t, CompanionTool, button.OnClick.Tool)
				got = button.OnClick.Arguments
			}
			assert.Equal(t, tt.again, got)
		})
	}
}

// TestHoldsView: a result holds a view where prefab's renderer finds one,
// in structuredContent or in a text block's JSON, with $prefab and view.
func TestHoldsView(t *testing.T) {
	for _, tt := range []struct {
		result string
		want   bool
	}{
		{`{"structuredContent":{"$prefab":{"version":"0.3"},"view":{"type":"Div"}}}`, true},
		{`{"content":[{"type":"text","text":"{\"$prefab\":{},\"view\":{}}"}]}`, true},
		{`{"content":[{"type":"text","text":"Created."}],"structuredContent":{"status":"created"}}`, false},
		{`{"structuredContent":{"$prefab":{"version":"0.3"}}}`, false},
		{`{"content":[{"type":"image","text":"{\"$prefab\":{},\"view\":{}}"}]}`, false},
		{`not json`, false},
	} {
		t.Run(tt.result, func(t *testing.T) {
			assert.Equal(t, tt.want, HoldsView([]byte(tt.result)))
		})
	}
}

func TestOutcomeData(t *testing.T) {
	const ours = `"mcpformHeading":"Done","mcpformSummary":["Plan: Pro"],"mcpformEnd":"completed"}`
	for _, tt := range []struct {
		name, data, want, err string
	}{
		{"none", ``, `{` + ours, ""},
		{"null", ` null `, `{` + ours, ""},
		{"empty", `{}`, `{` + ours, ""},
		{"its members first, in order", `{"status":"created","account":{"b":1,"a":2}}`, `{"status":"created","account":{"b":1,"a":2},` + ours, ""},
		{"ours replaced", `{"mcpformHeading":"x","a":1,"mcpform\u0045nd":"y"}`, `{"a":1,` + ours, ""},
		{"not an object", `[1]`, "", "not a JSON object"},
		{"not JSON", `{"a":`, "", "not a JSON object"},
		{"a key twice", `{"a":1,"a":2}`, "", "says two things"},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "", "says two things"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OutcomeData(json.RawMessage(tt.data), "Done", []string{"Plan: Pro"}, true)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	got, err := OutcomeData(nil, "<Not> done", nil, false)
	require.NoError(t, err)
	assert.Equal(t, `{"mcpformHeading":"\u003cNot\u003e done","mcpformSummary":[],"mcpformEnd":"not-completed"}`, string(got))
}
