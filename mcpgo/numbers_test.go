package mcpgo_test

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mcpform/mcpform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNumbersAsWritten (issue 32, finding 1) on the mcp-go face: the
// team step's seats (an integer, at least 2) sent as 2.0000000000000001,
// which a float64 reads as 2, is not whole as written. The view's submit
// and the model's call are both asked again, saying so, where main
// accepted it on the view path and said "not a number" on the model's;
// 9007199254740993 seats are accepted as themselves.
func TestNumbersAsWritten(t *testing.T) {
	for _, path := range []struct {
		name  string
		opts  []client.ClientOption
		tool  string         // what the answer is sent to
		extra map[string]any // what the call carries besides
		want  mcpform.Path
	}{
		{"view", []client.ClientOption{apps}, "mcpform_view_submit", map[string]any{"mcpformTool": "signup"}, mcpform.PathView},
		{"model", nil, "signup", nil, mcpform.PathModel},
	} {
		for _, proto := range protocols {
			t.Run(path.name+"/"+proto.name, func(t *testing.T) {
				s := newPathsServer(t)
				c := connect(t, s.MCPServer, nil, append(path.opts, proto.opts...)...)
				res, err := callTool(t, c, "signup")
				require.NoError(t, err)
				args, _ := structured(t, res)["arguments"].(map[string]any)
				send := func(args map[string]any, answers map[string]any) {
					for k, v := range path.extra {
						answers[k] = v
					}
					res, err = callWith(t, c, path.tool, args, answers)
					require.NoError(t, err)
				}
				send(args, map[string]any{"email": "ada@example.com", "plan": "team"})
				assert.Contains(t, text(t, res), "Tell us about your team")
				args, _ = structured(t, res)["arguments"].(map[string]any)

				send(args, map[string]any{"seats": json.Number("2.0000000000000001")})
				assert.Contains(t, text(t, res), "Seats must be a whole number.")
				assert.NotContains(t, text(t, res), "not a number")
				assert.Empty(t, s.paths, "no round finished")

				args, _ = structured(t, res)["arguments"].(map[string]any)
				require.NotEmpty(t, args["mcpform"])
				send(args, map[string]any{"seats": json.Number("9007199254740993")})
				assert.Equal(t, "done ada@example.com", text(t, res))
				assert.Equal(t, []mcpform.Path{path.want}, s.paths)
			})
		}
	}
}
