package mcpgo_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPageWaitingAfterATry checks item 4 of issue 35 on mcp-go's face: the
// first result that gives the secret page's link alone, after the email
// was answered in a form without URL mode or through the model, says to
// open it and nothing of waiting; the call that follows it without the
// page sent, a try, says the page is still waiting.
func TestPageWaitingAfterATry(t *testing.T) {
	const waiting = "the page for it is still waiting"
	for _, proto := range protocols {
		for _, tt := range []struct {
			name  string
			model bool // asked through the model, else in a form
		}{{"form without URL mode", false}, {"model", true}} {
			t.Run(proto.name+"/"+tt.name, func(t *testing.T) {
				s := newPathsServer(t)
				var c *client.Client
				if tt.model {
					c = connect(t, s.MCPServer, nil, proto.opts...)
				} else {
					p := &person{answers: []*mcp.ElicitationResult{accept(map[string]any{"email": "ada@example.com"})}}
					c = connect(t, s.MCPServer, p, proto.opts...)
				}
				res, err := callTool(t, c, "set_password")
				require.NoError(t, err)
				if tt.model {
					assert.NotContains(t, text(t, res), waiting, "the first ask")
					args, _ := structured(t, res)["arguments"].(map[string]any)
					res, err = callWith(t, c, "set_password", args, map[string]any{"email": "ada@example.com"})
					require.NoError(t, err)
				}
				link := structured(t, res)
				u, _ := link["url"].(string)
				require.NotEmpty(t, u, "the link: %s", text(t, res))
				assert.NotContains(t, link, "requestedSchema", "the link alone")
				assert.Contains(t, text(t, res), "Give the person this link.")
				assert.NotContains(t, text(t, res), waiting, "before anyone could open the link")
				assert.NotContains(t, link, "problems")

				args, _ := link["arguments"].(map[string]any)
				res, err = callWith(t, c, "set_password", args, nil)
				require.NoError(t, err)
				assert.Contains(t, text(t, res), u, "the same link")
				assert.Contains(t, text(t, res), "Check Password: "+waiting, "after a try")
			})
		}
	}
}
