package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowViewBrowserBigArgument checks item 5 of issue 32 through the
// real renderer: a tool called with an account number above 2^53 shows a
// flow view, which headless Chromium renders with prefab's renderer and
// submits. What the browser's JavaScript sent, routed by the companion as
// a server routes it, finishes the flow, and the tool reads the account
// as it was called with.
func TestFlowViewBrowserBigArgument(t *testing.T) {
	const account = "9007199254740993" // 2^53 + 1: no double holds it
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{{Key: "confirm", Message: "Transfer?",
		Fields: []AutoFormField{{Name: "reference", Label: "Reference", Required: true}}}},
		&FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	first := directCall(t, appsMeta(), "alice", "transfer", map[string]any{"account": json.Number(account), "memo": "rent"})
	r, err := flow.Next(context.Background(), first)
	require.NoError(t, err)
	require.IsType(t, &viewContent{}, r.Result.StructuredContent, "a view")

	run := runBrowser(t, r.Result, []browserStep{{Do: "fill", Name: "reference", Value: "June"}},
		filepath.Join("testdata", "artifacts", "flow-view-big-argument.png"))
	require.Empty(t, run.Invalid, "the browser refused to submit the form")
	assert.Empty(t, run.Errors, "the view logged errors")
	require.Len(t, run.Calls, 1, "the view sent %d tools/call", len(run.Calls))
	call := run.Calls[0]
	t.Logf("the browser sent %s", call.Arguments)

	var got string
	route := companionMiddleware(ViewerURI)(listing(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		call := req.(*mcp.CallToolRequest)
		r, err := flow.Next(ctx, call)
		require.NoError(t, err)
		require.Equal(t, FlowDone, r.Status, "problems: %v", r.Problems)
		assert.Equal(t, "June", r.Answers["reference"])
		var in struct {
			Account json.Number `json:"account"`
		}
		dec := json.NewDecoder(bytes.NewReader(call.Params.Arguments))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&in))
		got = in.Account.String()
		return &mcp.CallToolResult{}, nil
	}, attachedTool(t, "transfer")))
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: call.Name, Arguments: call.Arguments, Meta: appsMeta()}, Extra: first.Extra}
	_, err = route(context.Background(), "tools/call", req)
	require.NoError(t, err)
	assert.Equal(t, account, got, "the tool reads the account it was called with")
}
