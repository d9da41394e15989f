package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowNativeProgressAndCommit: on mcp-go's face, on both protocols,
// the native message of a flow's step says where it stands, as its view
// does ("Step 1 of up to 2" before a step that may be skipped), and, on a
// step whose accepting may finish a flow with a Commit, what accepting
// does.
func TestFlowNativeProgressAndCommit(t *testing.T) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Type: mcpform.TypeEmail, Required: true},
			{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro", Label: "Pro"}, {Value: "team", Label: "Team"}}},
		}},
		{Key: "team", Message: "Tell us about your team", When: func(a mcpform.Answers) bool { return a["plan"] == "team" },
			Fields: []mcpform.AutoFormField{{Name: "seats", Type: mcpform.TypeInteger, Required: true, Min: ptr(2.0)}}},
	}, &mcpform.FlowOptions{Commit: "Create account", ContextPrincipal: func(ctx context.Context) string {
		p, _ := ctx.Value(principalKey{}).(string)
		return p
	}})
	require.NoError(t, err)
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
