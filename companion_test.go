package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompanionMiddleware: a call of the companion reaches the tool its
// arguments name, marked and with its arguments as sent; a call that names
// no tool, or the companion itself, is refused with -32602; any other call
// passes untouched; and _meta a client sends is never a mark.
func TestCompanionMiddleware(t *testing.T) {
	for _, tt := range []struct {
		name, tool, args string
		meta             mcp.Meta
		want             string // the tool reached; "" for a refusal
		marked           bool
	}{
		{name: "routed", tool: companionTool, args: `{"mcpformTool":"signup","email":"a@b.c"}`, want: "signup", marked: true},
		{name: "no tool named", tool: companionTool, args: `{"email":"a@b.c"}`},
		{name: "tool not a string", tool: companionTool, args: `{"mcpformTool":7}`},
		{name: "itself", tool: companionTool, args: `{"mcpformTool":"` + companionTool + `"}`},
		{name: "not an object", tool: companionTool, args: `["signup"]`},
		{name: "not JSON", tool: companionTool, args: `{"mcpformTool":"signup"`},
		{name: "trailing data", tool: companionTool, args: `{"mcpformTool":"signup"} {}`},
		{name: "another tool", tool: "signup", args: `{"mcpformTool":"other"}`, want: "signup"},
		{name: "a client's own mark", tool: "signup", args: `{}`, meta: mcp.Meta{companionMetaKey: map[string]any{}}, want: "signup"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got *mcp.CallToolRequest
			route := companionMiddleware(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
				got = req.(*mcp.CallToolRequest)
				return nil, nil
			})
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tt.tool, Arguments: json.RawMessage(tt.args), Meta: tt.meta}}
			_, err := route(context.Background(), "tools/call", req)
			if tt.want == "" {
				var rpc *jsonrpc.Error
				require.True(t, errors.As(err, &rpc), "refused: %v", err)
				assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
				assert.Nil(t, got, "nothing reached a tool")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Params.Name)
			assert.JSONEq(t, tt.args, string(got.Params.Arguments), "the arguments pass on as sent")
			assert.Equal(t, tt.marked, viaCompanion(got))
		})
	}
}

// TestCompanionReadTwice: the middleware's decoded arguments serve one
// read; a handler that runs the same routed call twice gets the same
// round both times.
func TestCompanionReadTwice(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	first, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	req := argsCall(t, appsMeta(), "alice", "signup", nil)
	args, err := json.Marshal(map[string]any{StateArgument: carried(t, first), toolArgument: "signup", "email": "ada@example.com", "plan": "team"})
	require.NoError(t, err)
	req.Params.Name, req.Params.Arguments = companionTool, args
	var steps []string
	route := companionMiddleware(func(ctx context.Context, _ string, r mcp.Request) (mcp.Result, error) {
		for range 2 {
			round, err := flow.Next(ctx, r.(*mcp.CallToolRequest))
			require.NoError(t, err)
			assert.Equal(t, PathView, round.Path)
			steps = append(steps, round.Step)
		}
		return nil, nil
	})
	_, err = route(context.Background(), "tools/call", req)
	require.NoError(t, err)
	assert.Equal(t, []string{"team", "team"}, steps)
}
