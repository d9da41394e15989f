package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestViewBigArgument checks item 5 of issue 32 on mcp-go's face: a tool
// called with an account number above 2^53 shows a view, whose submit a
// host's JavaScript sends with every number it parsed as a double. The
// view carries the tool's own arguments as text, so the state's binding
// holds, and the tool reads the account as it was called with. A submit
// in the form an earlier version's view sent, the tool's arguments among
// its own, still finishes while its numbers are exact.
func TestViewBigArgument(t *testing.T) {
	const account = "9007199254740993" // 2^53 + 1: no double holds it
	for _, tt := range []struct {
		name, account string
		earlier       bool // submit as an earlier version's view did
	}{
		{"as a view sends it", account, false},
		{"an earlier version's view", "42", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := transferServer(t)
			c := connect(t, srv, nil, apps)
			res, err := callWith(t, c, "transfer", map[string]any{"account": json.Number(tt.account), "memo": "rent"}, nil)
			require.NoError(t, err)
			view := structured(t, res) // as JSON.parse reads it: numbers as doubles
			var args map[string]any
			for _, a := range findActions(view) {
				args = a
			}
			require.NotNil(t, args, "the view's submit")
			require.NotContains(t, args, "account", "the tool's own arguments travel as text")
			if tt.earlier {
				var own map[string]any
				require.NoError(t, json.Unmarshal([]byte(args["mcpformArguments"].(string)), &own))
				delete(args, "mcpformArguments")
				for k, v := range own {
					args[k] = v
				}
			}
			args["reference"] = "June"
			res, err = callWith(t, c, "mcpform_view_submit", args, nil)
			require.NoError(t, err)
			assert.Equal(t, "transferred to "+tt.account+" (rent)", text(t, res))
		})
	}
}

// TestViewSubmitVersion: on mcp-go's face, a view's submit that names its
// version, as the next release's views may, finishes the call; a later
// version than this release reads is refused, and the tool does not run.
func TestViewSubmitVersion(t *testing.T) {
	for _, tt := range []struct {
		name    string
		version any
		ok      bool
	}{
		{"version 1", 1, true},
		{"a later version", 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := connect(t, transferServer(t), nil, apps)
			res, err := callWith(t, c, "transfer", map[string]any{"account": json.Number("42"), "memo": "rent"}, nil)
			require.NoError(t, err)
			var args map[string]any
			for _, a := range findActions(structured(t, res)) {
				args = a
			}
			require.NotNil(t, args, "the view's submit")
			args["reference"], args["mcpformVersion"] = "June", tt.version
			res, err = callWith(t, c, "mcpform_view_submit", args, nil)
			if !tt.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "mcpformVersion")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "transferred to 42 (rent)", text(t, res))
		})
	}
}

// findActions returns the arguments of every toolCall action in a view.
func findActions(v any) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case map[string]any:
		if v["action"] == "toolCall" && v["tool"] == "mcpform_view_submit" {
			if a, ok := v["arguments"].(map[string]any); ok && a["mcpformAction"] == nil {
				out = append(out, a)
			}
		}
		for _, c := range v {
			out = append(out, findActions(c)...)
		}
	case []any:
		for _, c := range v {
			out = append(out, findActions(c)...)
		}
	}
	return out
}

// transferServer serves transfer, a flow with one question, which reports
// the account it was called with, as written.
func transferServer(t *testing.T) *server.MCPServer {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "confirm", Message: "Transfer?",
		Fields: []mcpform.AutoFormField{{Name: "reference", Required: true}}}},
		&mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	srv := server.NewMCPServer("bank", "v0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))
	require.NoError(t, mcpgo.AddViewer(srv, nil))
	tool := mcp.NewTool("transfer")
	require.NoError(t, mcpgo.AttachViewer(&tool, nil))
	srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := mcpgo.Next(ctx, flow, req)
		if err != nil {
			return nil, err
		}
		if r.Status == mcpform.FlowAsk {
			return r.Result, nil
		}
		var in struct {
			Account json.Number `json:"account"`
			Memo    string      `json:"memo"`
		}
		dec := json.NewDecoder(bytes.NewReader(req.Params.RawArguments))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("transferred to " + in.Account.String() + " (" + in.Memo + ")"), nil
	})
	return srv
}
