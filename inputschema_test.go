package mcpform

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marshalCounter counts how often encoding/json marshals it.
type marshalCounter struct{ n atomic.Int64 }

func (c *marshalCounter) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte(`"counted"`), nil
}

// go-sdk's streamable HTTP handler reads a tool's input schema on every
// tools/call of a 2026-07-28 client, for its x-mcp-header check, by
// marshalling it. The flow's schema is bytes marshalled once, when the tool
// is built: no call marshals it again, and every call reads the same bytes.
func TestFlowInputSchemaIsMarshalledOnce(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	counter := &marshalCounter{}
	base := &jsonschema.Schema{Type: "object", Extra: map[string]any{"x-counted": counter}}

	var schema any = flow.InputSchema(base)
	raw, ok := schema.(json.RawMessage)
	require.True(t, ok, "InputSchema returns %T, want json.RawMessage", schema)
	assert.Equal(t, int64(1), counter.n.Load(), "InputSchema marshals base once")
	var got struct {
		Type       string         `json:"type"`
		Counted    string         `json:"x-counted"`
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, "object", got.Type)
	assert.Equal(t, "counted", got.Counted, "base's own keywords are kept")
	for _, k := range []string{StateArgument, actionArgument, "email", "plan", "team_name", "teamName", "seats"} {
		assert.Contains(t, got.Properties, k)
	}
	assert.Equal(t, string(raw), string(flow.InputSchema(base)), "the same schema on every call of InputSchema")

	server := mcp.NewServer(&mcp.Implementation{Name: "schema", Version: "v0"}, nil)
	tool := &mcp.Tool{Name: "signup", InputSchema: schema}
	server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	defer srv.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "schema-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	require.GreaterOrEqual(t, cs.InitializeResult().ProtocolVersion, "2026-07-28", "the header check runs for 2026-07-28 clients")

	counter.n.Store(0)
	for i := range 3 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
		require.NoError(t, err, "call %d", i)
		require.False(t, res.IsError, "call %d: %+v", i, res)
	}
	assert.Zero(t, counter.n.Load(), "tools/call marshalled the input schema again")
	after, ok := tool.InputSchema.(json.RawMessage)
	require.True(t, ok)
	assert.Same(t, &raw[0], &after[0], "the tool keeps the bytes it was given")
	assert.Equal(t, string(raw), string(after))
}

// TestFlowInputSchemaRefusesOwnKeys: a tool argument named as a field, or
// as the key prefab's renderer sends a field under, would be read as an
// answer and left out of the binding; InputSchema refuses a base that
// declares one, naming it, and keeps a base's other properties.
func TestFlowInputSchemaRefusesOwnKeys(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	for _, name := range []string{"team_name", "teamName", "email"} {
		t.Run(name, func(t *testing.T) {
			base := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{name: {Type: "string"}}}
			assert.PanicsWithValue(t, func() string {
				field := name
				if name == "teamName" {
					field = "team_name"
				}
				return `mcpform: Flow.InputSchema: base's property "` + name + `" is where the flow reads field "` + field +
					`"'s answer, and is left out of what its state is bound to: rename the tool's argument`
			}(), func() { flow.InputSchema(base) })
		})
	}
	base := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"repo": {Type: "string"}}}
	assert.NotPanics(t, func() { flow.InputSchema(base) })
}
