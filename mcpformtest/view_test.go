package mcpformtest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestViewFill fills a view's toolCall arguments as prefab's renderer
// does: a control's template with the person's value, or the control's
// own; a checkbox's with whether it is ticked; anything else as it is.
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
		{`{"a":1}`, map[string]any{"a": json.Number("1")}, true},
	} {
		got, ok := v.fill(json.RawMessage(tt.raw), values)
		assert.Equal(t, tt.ok, ok, tt.raw)
		assert.Equal(t, tt.want, got, tt.raw)
	}
}
