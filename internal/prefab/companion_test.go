package prefab

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestPackArguments: a view sends the tool's own arguments back as the
// text of one JSON object, which the companion unpacks exactly, numbers as
// written; arguments without it pass as they are.
func TestPackArguments(t *testing.T) {
	packed := PackArguments([]byte(`"account":9007199254740993,"memo":"<rent>"`), "mcpform", "s1.abc")
	assert.JSONEq(t, `{"mcpformArguments":"{\"account\":9007199254740993,\"memo\":\"\u003crent\u003e\"}","mcpform":"s1.abc"}`, string(packed))
	assert.Equal(t, `{"mcpform":"s1.abc"}`, string(PackArguments(nil, "mcpform", "s1.abc")), "no own arguments: as before")

	// What a host's JavaScript sends: the view's arguments, the answers
	// and the tool's name.
	var sent map[string]any
	require.NoError(t, json.Unmarshal(packed, &sent))
	sent["email"], sent[ToolArgument] = "ada@example.com", "transfer"
	sent["account"] = 9007199254740992.0 // a copy JavaScript rounded loses to the text
	raw, err := json.Marshal(sent)
	require.NoError(t, err)
	out, changed, err := Unpack(raw)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.JSONEq(t, `{"account":9007199254740993,"memo":"<rent>","email":"ada@example.com","mcpform":"s1.abc","mcpformTool":"transfer"}`, string(out))
	assert.Contains(t, string(out), `"account":9007199254740993`, "the number as written")

	for _, tt := range []struct {
		name, raw string
		err       bool
	}{
		{"none", `{"mcpform":"s1.abc","account":5}`, false},
		{"the name only in a value", `{"note":"mcpformArguments"}`, false},
		{"not text", `{"mcpformArguments":{"account":5}}`, true},
		{"text of an array", `{"mcpformArguments":"[1]"}`, true},
		{"text of null", `{"mcpformArguments":"null"}`, true},
		{"text of nothing", `{"mcpformArguments":"{"}`, true},
		{"not an object", `["mcpformArguments"]`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := Unpack(json.RawMessage(tt.raw))
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.False(t, changed)
			assert.Equal(t, tt.raw, string(out), "passed as it is")
		})
	}
}

// TestUnpackVersion: a submit that names its version, up to
// SubmitVersion, reaches the tool without it, with its arguments unpacked
// or not; a later version, or one that is no whole number, is refused,
// never passed on as one of the tool's arguments.
func TestUnpackVersion(t *testing.T) {
	for _, tt := range []struct {
		name, raw, want string // want "" for a refusal
	}{
		{"version 1", `{"mcpformVersion":1,"mcpform":"s1.abc","email":"a@b.c"}`, `{"mcpform":"s1.abc","email":"a@b.c"}`},
		{"version 1, arguments as text", `{"mcpformVersion":1,"mcpformArguments":"{\"account\":9007199254740993}","mcpform":"s1.abc"}`,
			`{"account":9007199254740993,"mcpform":"s1.abc"}`},
		{"a later version", `{"mcpformVersion":2,"mcpform":"s1.abc"}`, ""},
		{"version 0", `{"mcpformVersion":0,"mcpform":"s1.abc"}`, ""},
		{"not whole", `{"mcpformVersion":1.5,"mcpform":"s1.abc"}`, ""},
		{"text", `{"mcpformVersion":"1","mcpform":"s1.abc"}`, ""},
		{"null", `{"mcpformVersion":null,"mcpform":"s1.abc"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := Unpack(json.RawMessage(tt.raw))
			if tt.want == "" {
				assert.ErrorIs(t, err, errVersion)
				return
			}
			require.NoError(t, err)
			assert.True(t, changed)
			assert.JSONEq(t, tt.want, string(out))
		})
	}
}
