package mcpformtest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestViewFill fills a view's toolCall arguments as prefab's renderer
// does: a control's template with the person's value, or the control's
// own; a checkbox's with whether it is ticked; anything else as
// JavaScript reads it.
func TestViewFill(t *testing.T) {
	v := &shownView{round: &Round{}, controls: map[string]*viewNode{}}
	v.walk(&viewNode{Type: "Column", Children: []*viewNode{
		{Type: "If", Children: []*viewNode{{Type: "Heading", Content: "the outcome, hidden"}}},
		{Type: "Heading", Content: "Sign up"},
		{Type: "Input", Name: "email", Label: "Email"},
		{Type: "Input", Name: "seats", Label: "Seats", Value: json.RawMessage(`5`)},
		{Type: "Checkbox", Name: "news", Label: "News"},
	}})
	assert.Equal(t, "Sign up", v.round.Message)
	assert.Equal(t, []Question{{"email", "Email", nil}, {"seats", "Seats", 5.0}, {"news", "News", nil}}, v.round.Questions)
	values := map[string]any{"email": "ada@example.com", "news": "on"}
	for _, tt := range []struct {
		raw  string
		want any
		ok   bool
	}{
		{`"{{ email }}"`, "ada@example.com", true},
		{`"{{ seats }}"`, 5.0, true},
		{`"{{ nothing }}"`, nil, false},
		{`"{{ 'on' == news }}"`, true, true},
		{`"{{ 'on' == other }}"`, false, true},
		{`"signup"`, "signup", true},
		// Read as the renderer's JSON.parse reads it: each number a double
		// (issue 32, item 5: the kit is as lossy as a real host).
		{`{"a":1}`, map[string]any{"a": 1.0}, true},
		{`9007199254740993`, 9007199254740992.0, true},
	} {
		got, ok := v.fill(json.RawMessage(tt.raw), values)
		assert.Equal(t, tt.ok, ok, tt.raw)
		assert.Equal(t, tt.want, got, tt.raw)
	}
}

// TestAsJavaScript: the kit's Apps host sends a view's arguments as
// JSON.parse(JSON.stringify(args)) does in a real host: numbers as
// doubles, written as JavaScript writes them.
func TestAsJavaScript(t *testing.T) {
	got, err := asJavaScript(map[string]any{
		"big": json.Number("9007199254740993"), "int": int64(9007199254740993), "small": 12.0,
		"fraction": json.Number("50.0000000000000001"), "huge": json.Number("1e21"), "tiny": json.Number("0.0000001"),
		"text": "9007199254740993", "list": []any{json.Number("9007199254740993")},
	})
	assert.NoError(t, err)
	assert.Equal(t, map[string]any{
		"big": 9007199254740992.0, "int": 9007199254740992.0, "small": 12.0,
		"fraction": 50.0, "huge": 1e21, "tiny": 1e-7,
		"text": "9007199254740993", "list": []any{9007199254740992.0},
	}, got)
	b, err := json.Marshal(got)
	assert.NoError(t, err)
	assert.JSONEq(t, `{"big":9007199254740992,"int":9007199254740992,"small":12,"fraction":50,"huge":1e21,"tiny":1e-7,"text":"9007199254740993","list":[9007199254740992]}`, string(b))
	assert.Contains(t, string(b), `"big":9007199254740992,`, "a whole number below 1e21 is written whole, as JSON.stringify writes it")
	assert.Contains(t, string(b), `"huge":1e+21`, "and from 1e21 with an exponent")
	assert.Contains(t, string(b), `"tiny":1e-7`)
}
