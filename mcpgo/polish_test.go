package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretStepWords checks issue 34, items 7 and 8, on mcp-go's face: the
// viewer mounts views in a main landmark; set_password's view lists the
// secret after a colon, never splicing its label into a sentence; and
// its re-ask, sent before the page, says what is not set yet rather than
// that "the page" was not sent.
func TestSecretStepWords(t *testing.T) {
	s := newPathsServer(t)
	c := connect(t, s.MCPServer, nil, apps)
	viewer, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: mcpform.ViewerURI}})
	require.NoError(t, err)
	require.Len(t, viewer.Contents, 1)
	page, ok := viewer.Contents[0].(mcp.TextResourceContents)
	require.True(t, ok, "%T", viewer.Contents[0])
	assert.Contains(t, page.Text, `<main><div id="root"></div></main>`)

	res, err := callTool(t, c, "set_password")
	require.NoError(t, err)
	view := structured(t, res)
	require.Contains(t, view, "$prefab", "a view: %s", text(t, res))
	b, err := json.Marshal(view["view"])
	require.NoError(t, err)
	assert.Contains(t, string(b), "1. Open the page and enter what it asks for: Password.")
	assert.NotContains(t, string(b), "enter your Password")

	args, _ := view["arguments"].(map[string]any)
	res, err = callWith(t, c, "mcpform_view_submit", args, map[string]any{"mcpformTool": "set_password", "email": "ada@example.com"})
	require.NoError(t, err)
	b, err = json.Marshal(structured(t, res)["view"])
	require.NoError(t, err)
	assert.Contains(t, string(b), "Not set yet: Password. Open the page, fill it in and send it, then continue here.")
	assert.NotContains(t, string(b), "The page has not been sent yet")
}
