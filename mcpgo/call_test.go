package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzMcpgoRead: inputResponses as mcp-go's transport hands them over,
// as JSON, read through the mcp-go face: never a panic, and when they hold
// an elicitation result whose content is an object, exactly what
// Form.Read makes of the same answer on go-sdk's face.
func FuzzMcpgoRead(f *testing.F) {
	form := bookingForm(f)
	for _, seed := range []string{
		`{"booking":{"action":"accept","content":{"day":"2026-08-03","seats":3,"room":"a","note":"x"}}}`,
		`{"booking":{"action":"accept","content":{"day":"2026-02-30","seats":3.5,"room":"c"}}}`,
		`{"booking":{"action":"decline"}}`,
		`{"booking":{"action":"maybe","content":{}}}`,
		`{"booking":{"action":"accept","content":[1,2]}}`,
		`{"booking":{"action":"accept","content":"x"}}`,
		`{"booking":"junk","other":{"action":"accept"}}`,
		`{"booking":{"action":"accept","content":{"seats":1e400}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var responses mcp.InputResponses
		if json.Unmarshal(data, &responses) != nil {
			return
		}
		var req mcp.CallToolRequest
		req.Params.InputResponses = responses
		got := mcpgo.Read(form, req)

		// go-sdk's transport decodes the same bytes into its own type.
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data, &raw))
		var r gosdk.ElicitResult
		if json.Unmarshal(raw["booking"], &r) != nil {
			return // go-sdk would refuse the request before the handler
		}
		want := form.Read(gosdk.InputResponseMap{"booking": &r})
		if raw["booking"] == nil {
			want = mcpform.Reply[booking]{}
		}
		assert.Equal(t, want.Status, got.Status)
		assert.Equal(t, want.Answers, got.Answers)
		assert.Equal(t, want.Value, got.Value)
		assert.Equal(t, len(want.Problems), len(got.Problems))
	})
}

// TestModes: where the face reads the client's elicitation modes.
func TestModes(t *testing.T) {
	form := bookingForm(t)
	for _, tt := range []struct {
		name string
		meta *mcp.Meta
		ok   bool
	}{
		{"form", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}}, true},
		{"modeless elicitation means form", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}, true},
		{"url only", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}}}, false},
		{"none", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}}}}, false},
		{"typed", func() *mcp.Meta {
			m := &mcp.Meta{}
			m.SetClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}})
			return m
		}(), true},
		{"legacy: no _meta, so the bridge decides", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var req mcp.CallToolRequest
			req.Params.Meta = tt.meta
			_, err := mcpgo.Ask(context.Background(), form, req, "")
			assert.Equal(t, tt.ok, err == nil, "%v", err)
		})
	}
}

// TestArgumentsBound: a state minted for some arguments is refused with
// others, whether mcp-go kept the raw bytes or only the decoded map.
func TestArgumentsBound(t *testing.T) {
	flow := signupFlow(t)
	ctx := context.WithValue(context.Background(), principalKey{}, "alice")
	req := mcpgoCall("", nil)
	req.Params.Arguments = map[string]any{"team": "a", "n": 1.0}
	r, err := mcpgo.Next(ctx, flow, req)
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		raw  string
		args any
		ok   bool
	}{
		{"same, decoded", "", map[string]any{"n": 1.0, "team": "a"}, true},
		{"same, raw, spelled otherwise", `{"n": 1.0, "team": "a"}`, nil, true},
		{"other", "", map[string]any{"team": "b", "n": 1.0}, false},
		{"other, raw", `{"team":"b"}`, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			next := mcpgoCall(r.Result.RequestState, nil)
			next.Params.Arguments, next.Params.RawArguments = tt.args, json.RawMessage(tt.raw)
			_, err := mcpgo.Next(ctx, flow, next)
			assert.Equal(t, tt.ok, err == nil, "%v", err)
			if !tt.ok {
				assert.ErrorIs(t, err, mcp.ErrInvalidParams)
			}
		})
	}
}
