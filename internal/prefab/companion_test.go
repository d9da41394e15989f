package prefab

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReach: the companion reaches a tool only when the server has it and
// it shows its results in the viewer; anything else is refused.
func TestReach(t *testing.T) {
	const uri = "ui://mcpform/viewer"
	type uiMeta struct {
		ResourceURI string `json:"resourceUri"`
	}
	tools := map[string]map[string]any{
		"signup":      {"ui": map[string]any{"resourceUri": uri}, "ui/resourceUri": uri},
		"flat":        {"ui/resourceUri": uri},
		"typed":       {"ui": uiMeta{ResourceURI: uri}},
		"wipe":        nil,
		"elsewhere":   {"ui": map[string]any{"resourceUri": "ui://other/viewer"}},
		"ui wins":     {"ui": map[string]any{"visibility": []string{"app"}}, "ui/resourceUri": uri},
		"not a map":   {"ui": 7},
		CompanionTool: {"ui": map[string]any{"resourceUri": uri}},
	}
	lookup := func(name string) (map[string]any, bool) {
		m, ok := tools[name]
		return m, ok
	}
	for _, tt := range []struct {
		name string
		args any
		want string // "" for a refusal
	}{
		{"attached", map[string]any{ToolArgument: "signup"}, "signup"},
		{"flat key alone", map[string]any{ToolArgument: "flat"}, "flat"},
		{"ui of another type", map[string]any{ToolArgument: "typed"}, "typed"},
		{"not attached", map[string]any{ToolArgument: "wipe"}, ""},
		{"another viewer", map[string]any{ToolArgument: "elsewhere"}, ""},
		{"a ui object without the URI", map[string]any{ToolArgument: "ui wins"}, ""},
		{"ui not an object", map[string]any{ToolArgument: "not a map"}, ""},
		{"unknown", map[string]any{ToolArgument: "nope"}, ""},
		{"the companion", map[string]any{ToolArgument: CompanionTool}, ""},
		{"no name", map[string]any{}, ""},
		{"a number", map[string]any{ToolArgument: 7.0}, ""},
		{"not an object", []any{"signup"}, ""},
		{"nil", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Reach(tt.args, uri, lookup)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want != "", ok)
		})
	}
}
