package mcpform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowView checks what prefab's renderer is given on the Apps path:
// the submit and the Decline button keep the tool's result and show no
// toast, the outcome replaces the form once a result carries no view, each
// view clears the last outcome, and a re-ask names the problem and keeps
// the good values.
func TestFlowView(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	r, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	var w map[string]any
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	assert.Equal(t, map[string]any{outcomeKey: nil}, w["state"], "a view clears the last outcome")
	root := w["view"].(map[string]any)["children"].([]any)
	require.Len(t, root, 2)
	panel := map[string]any{"type": "Column", "cssClass": "p-6 max-w-2xl gap-3 " + outcomePanelClass, "children": []any{
		map[string]any{"type": "If", "condition": outcomeKey + ".isError", "children": []any{
			map[string]any{"type": "Heading", "content": "Not completed", "level": 1.0}}},
		map[string]any{"type": "Else", "children": []any{map[string]any{"type": "Heading", "content": "Finished", "level": 1.0}}},
		map[string]any{"type": "Text", "cssClass": outcomeClass, "content": "{{ mcpformResult.content.0.text }}"},
		map[string]any{"type": "If", "condition": outcomeKey + ".content.1.text", "children": []any{
			map[string]any{"type": "Text", "cssClass": "hidden " + outcomeModelClass, "content": "{{ mcpformResult.content.1.text }}"}}},
	}}
	assert.Equal(t, map[string]any{"type": "If", "condition": outcomeKey, "children": []any{panel}}, root[0],
		"the outcome: a heading, the text for the person, and the text for the model, hidden")
	assert.Equal(t, "Else", root[1].(map[string]any)["type"])
	submit := findSubmit(t, root[1])
	assert.Equal(t, outcomeKey, submit["resultKey"])
	assert.Nil(t, submit["onSuccess"], "a toast would show for an error too")
	assert.Equal(t, companionTool, submit["tool"], "a view submits to the app-only companion")
	state := carried(t, r)
	assert.Equal(t, map[string]any{"email": "{{ email }}", "plan": "{{ plan }}", StateArgument: state, toolArgument: "signup"}, submit["arguments"])
	assert.Equal(t, map[string]any{StateArgument: state}, w["arguments"])
	assert.Equal(t, map[string]any{"action": "toolCall", "tool": companionTool, "resultKey": outcomeKey,
		"arguments": map[string]any{StateArgument: state, actionArgument: declineAction, toolArgument: "signup"},
		"onError":   map[string]any{"action": "showToast", "message": defaultErrorMessage, "variant": "error"},
	}, findDecline(t, root[1]), "Decline sends the state and the action alone, and keeps the outcome")

	again, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: state, "email": "ada", "plan": "pro"}))
	require.NoError(t, err)
	view := wireJSON(t, again.Result.StructuredContent)
	assert.Contains(t, view, `"type":"AlertDescription","content":"Enter an email address like name@example.com"`, "the re-ask's summary says how to fix it")
	assert.Contains(t, view, `"type":"FieldError","content":"Enter an email address like name@example.com"`, "and so does the field")
	assert.Contains(t, view, `"name":"plan","value":"pro"`, "the good value is kept")
	assert.NotContains(t, view, `"value":"ada"`, "the refused value is not")
}
