package mcpgo_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowNativeProgressAndCommit: on mcp-go's face, on both protocols,
// the native message of a flow's step says where it stands, as its view
// does ("Step 1 of up to 2" before a step that may be skipped), and, on a
// step whose accepting may finish a flow with a Commit, what accepting
// does.
func TestFlowNativeProgressAndCommit(t *testing.T) {
	flow := teamFlow(t, mcpform.FlowOptions{Commit: "Create account"})
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			p := &person{answers: []*mcp.ElicitationResult{
				accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
				accept(map[string]any{"seats": 5}),
			}}
			c := connect(t, newSignupServer(t, flow).MCPServer, p, proto.opts...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			assert.Equal(t, "created ada@example.com plan=team seats=5", text(t, res))
			var asked []string
			for _, a := range p.asked {
				asked = append(asked, a.Message)
			}
			assert.Equal(t, []string{
				"Step 1 of up to 2\n\nCreate your account\n\nDepending on your answers, this may be the last step. Accepting it then does this: Create account.",
				"Step 2 of 2\n\nTell us about your team\n\nThis is the last step. Accepting it does this: Create account.",
			}, asked)
		})
	}
}

// findAction returns the arguments of the one toolCall in a view that
// sends action under mcpformAction.
func findAction(t *testing.T, view any, action string) map[string]any {
	t.Helper()
	found := actionsSending(view, action)
	require.Len(t, found, 1, "one %s in the view", action)
	return found[0]
}

// actionsSending returns the arguments of each toolCall in a view that sends
// action under mcpformAction.
func actionsSending(view any, action string) []map[string]any {
	var found []map[string]any
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if a, ok := v["arguments"].(map[string]any); ok && v["action"] == "toolCall" && a["mcpformAction"] == action {
				found = append(found, a)
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(view)
	return found
}

// TestViewDeclineStartsAgain: on mcp-go's face, on both protocols, the
// outcome of a view that did not complete comes back to the view as a
// view of it, with the tool's result in its state, and offers Start
// again, which,
// through the companion, begins a new run from the first step: it runs to
// its end as any run does. A declined run is headed "Not completed" in
// its language.
func TestViewDeclineStartsAgain(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			c := connect(t, s.MCPServer, nil, append([]client.ClientOption{apps}, proto.opts...)...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			view := structured(t, res)
			require.Contains(t, view, "$prefab", "a view: %s", text(t, res))
			assert.Empty(t, actionsSending(view, "restart"), "a step's view has no outcome to start again from")
			declined := findAction(t, view, "decline")

			res, err = callWith(t, c, "mcpform_view_submit", declined, nil)
			require.NoError(t, err)
			assert.Equal(t, "declined account", text(t, res))
			ended := structured(t, res)
			require.Contains(t, ended, "$prefab", "the outcome, as a view")
			state, _ := ended["state"].(map[string]any)
			last, _ := state["mcpformResult"].(map[string]any)
			require.NotNil(t, last, "the view holds the tool's result")
			assert.Equal(t, []any{map[string]any{"type": "text", "text": "declined account"}}, last["content"])
			restart := findAction(t, ended, "restart")
			assert.Equal(t, "signup", restart["mcpformTool"])
			assert.Equal(t, declined["mcpform"], restart["mcpform"], "Start again sends the view's state")

			res, err = callWith(t, c, "mcpform_view_submit", restart, nil)
			require.NoError(t, err)
			again := structured(t, res)
			require.Contains(t, again, "$prefab", "the first step's view again: %s", text(t, res))
			assert.Contains(t, text(t, res), "Create your account")
			args, _ := again["arguments"].(map[string]any)
			require.NotEmpty(t, args["mcpform"])
			assert.NotEqual(t, restart["mcpform"], args["mcpform"], "a new run's state")

			res, err = callWith(t, c, "mcpform_view_submit", args, map[string]any{"mcpformTool": "signup", "email": "ada@example.com", "plan": "pro"})
			require.NoError(t, err)
			assert.Equal(t, "done ada@example.com", text(t, res))
			assert.Equal(t, []mcpform.Path{mcpform.PathView, mcpform.PathView}, s.paths, "declined in the view; then done by the view")
		})
	}
	r := &mcpgo.FlowRound{Status: mcpform.FlowDeclined}
	res, err := r.Outcome(&mcpform.Outcome{Text: "Signup not completed."})
	require.NoError(t, err)
	assert.Equal(t, "Not completed", text(t, res))
}

// TestViewEndedLeavesAView: on mcp-go's face, as on go-sdk's, a view's
// submit that ends the flow with a result that already holds a view, one
// a handler built with DisplayForm, gets that result as it is, not the
// outcome's view made of it.
func TestViewEndedLeavesAView(t *testing.T) {
	shown, err := mcpform.DisplayForm([]mcpform.AutoFormField{{Name: "note", Label: "Note"}}, "note", nil)
	require.NoError(t, err)
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			s.ended = &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("Leave a note.")},
				StructuredContent: shown.StructuredContent}
			c := connect(t, s.MCPServer, nil, append([]client.ClientOption{apps}, proto.opts...)...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			declined := findAction(t, structured(t, res), "decline")

			res, err = callWith(t, c, "mcpform_view_submit", declined, nil)
			require.NoError(t, err)
			assert.Equal(t, "Leave a note.", text(t, res))
			got := structured(t, res)
			state, _ := got["state"].(map[string]any)
			assert.NotContains(t, state, "mcpformResult", "not the outcome's view")
			assert.Equal(t, structuredOf(t, shown.StructuredContent), got, "the handler's view, as it is")
		})
	}
}

// structuredOf is v as JSON decodes it.
func structuredOf(t *testing.T, v any) map[string]any {
	t.Helper()
	return structured(t, &mcp.CallToolResult{StructuredContent: v})
}
