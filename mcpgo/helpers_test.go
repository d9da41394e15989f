package mcpgo_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"
)

// protocols are the two ways an mcp-go client talks to an mcp-go server:
// 2026-07-28, where the client fulfils input_required itself, and the
// legacy handshake, where mcp-go's server bridge asks with
// elicitation/create and calls the handler again.
var protocols = []struct {
	name string
	opts []client.ClientOption
}{
	{"2026-07-28", nil},
	{"legacy", []client.ClientOption{client.WithLegacyProtocolOnly()}},
}

// person is a scripted person behind an mcp-go client's elicitation
// handler: it answers each request with the next answer and records what
// it was asked.
type person struct {
	mu      sync.Mutex
	answers []*mcp.ElicitationResult
	asked   []mcp.ElicitationParams
}

func (p *person) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req.Params)
	if len(p.answers) == 0 {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	return a, nil
}

func accept(content map[string]any) *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}
}

func decline() *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
}

// connect returns an initialised in-process client of srv. A nil p
// declares no elicitation.
func connect(t testing.TB, srv *server.MCPServer, p client.ElicitationHandler, opts ...client.ClientOption) *client.Client {
	t.Helper()
	if pp, ok := p.(*person); p != nil && (!ok || pp != nil) { // a nil *person declares none
		opts = append(opts, client.WithElicitationHandler(p))
	}
	c, err := client.NewInProcessClientWithOptions(srv, opts...)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { c.Close() })
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-test", Version: "v0"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	return c
}

// callTool calls tool through c, which fulfils input requests itself.
func callTool(t *testing.T, c *client.Client, tool string) (*mcp.CallToolResult, error) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	return c.CallTool(context.Background(), req)
}

// sendRaw sends one tools/call on c's transport with the given state and
// answers, as a client replaying or tampering would (c.CallTool sends its
// own), and returns the JSON-RPC response. On 2026-07-28 it carries the
// _meta that c would, declaring form elicitation.
func sendRaw(t *testing.T, c *client.Client, tool, state string, responses mcp.InputResponses) *transport.JSONRPCResponse {
	t.Helper()
	params := map[string]any{"name": tool, "requestState": state}
	if responses != nil {
		params["inputResponses"] = responses
	}
	if mcp.IsModernProtocol(c.ProtocolVersion()) {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    c.ProtocolVersion(),
			mcp.MetaKeyClientInfo:         map[string]any{"name": "mcpgo-test", "version": "v0"},
			mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
		}
	}
	resp, err := c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(7)), Method: string(mcp.MethodToolsCall), Params: params})
	require.NoError(t, err)
	return resp
}

// rawText returns the text of a raw response's result.
func rawText(t *testing.T, resp *transport.JSONRPCResponse) string {
	t.Helper()
	require.Nil(t, resp.Error, "error %+v", resp.Error)
	res, err := mcp.ParseCallToolResult(&resp.Result)
	require.NoError(t, err)
	return text(t, res)
}

// text returns the text of a result's first content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotNil(t, res)
	require.NotEmpty(t, res.Content, "result without content: %+v", res)
	tc, ok := res.Content[0].(mcp.TextContent)
	require.True(t, ok, "content %T", res.Content[0])
	return tc.Text
}
