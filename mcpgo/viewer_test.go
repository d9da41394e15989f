package mcpgo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompanionReachesAttachedOnly checks item 2 of issue 32 on mcp-go's
// face, as the root's test of the same name does on go-sdk's: the
// companion reaches only a tool attached to the viewer, as prefab.Reach
// decides for both. "wipe", which a middleware of the server refuses by
// name, is never reached through it: the refusal is -32602 with the core's
// message, and wipe's handler never runs.
func TestCompanionReachesAttachedOnly(t *testing.T) {
	refuse := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Name == "wipe" {
				return nil, errors.New("refused by name")
			}
			return next(ctx, req)
		}
	}
	srv := server.NewMCPServer("s", "v0", server.WithToolCapabilities(false), server.WithToolHandlerMiddleware(refuse),
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))
	require.NoError(t, mcpgo.AddViewer(srv, nil))
	var ran []string
	handler := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran = append(ran, req.Params.Name)
		return mcp.NewToolResultText("ran"), nil
	}
	srv.AddTool(mcp.NewTool("wipe"), handler)
	signup := mcp.NewTool("signup")
	require.NoError(t, mcpgo.AttachViewer(&signup, nil))
	srv.AddTool(signup, handler)
	elsewhere := mcp.NewTool("elsewhere")
	require.NoError(t, mcpgo.AttachViewer(&elsewhere, &mcpform.ViewerOptions{URI: "ui://other/viewer"}))
	srv.AddTool(elsewhere, handler)
	c := connect(t, srv, nil, apps)

	for _, tool := range []string{"wipe", "elsewhere", "nope"} {
		t.Run(tool, func(t *testing.T) {
			_, err := callWith(t, c, "mcpform_view_submit", map[string]any{"mcpformTool": tool}, nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, mcp.ErrInvalidParams, "%v", err)
			assert.Contains(t, err.Error(), prefab.CompanionRefusal)
		})
	}
	_, err := callWith(t, c, "mcpform_view_submit", map[string]any{"mcpformTool": "signup"}, nil)
	require.NoError(t, err, "an attached tool is reached")
	assert.Equal(t, []string{"signup"}, ran, "only the attached tool ran")
}
