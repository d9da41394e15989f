package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/require"
)

// acceptingServer serves "signup", a one-step flow, and "lone", a keyed
// lone form, each askable through a view or the model, for principal. It
// records, in taken, each call that either took as an answer.
type acceptingServer struct {
	*server.MCPServer
	mu    sync.Mutex
	taken []string
}

func newAcceptingServer(t testing.TB, codec *mcpform.RequestStateCodec, principal string) *acceptingServer {
	who := func(context.Context) string { return principal }
	fields := []mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro"}, {Value: "team"}}}}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "account", Message: "Create your account", Fields: fields}},
		&mcpform.FlowOptions{ContextPrincipal: who, AskModel: true})
	require.NoError(t, err)
	form, err := mcpform.NewForm[mcpform.Answers](fields, &mcpform.FormOptions{Key: "account", Message: "Create your account",
		Codec: codec, ContextPrincipal: who, AskModel: true})
	require.NoError(t, err)
	s := &acceptingServer{MCPServer: server.NewMCPServer("accepting", "v0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))}
	require.NoError(t, mcpgo.AddViewer(s.MCPServer, nil))
	add := func(name string, handler server.ToolHandlerFunc) {
		tool := mcp.NewToolWithRawSchema(name, "", []byte(`{"type":"object"}`))
		require.NoError(t, mcpgo.AttachViewer(&tool, nil))
		s.AddTool(tool, handler)
	}
	add("signup", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := mcpgo.Next(ctx, flow, req)
		if err != nil {
			return nil, err
		}
		if r.Status != mcpform.FlowAsk || r.Path != mcpform.PathNone || len(r.Problems) > 0 {
			s.took(fmt.Sprintf("flow: %v on %v, problems %v", r.Status, r.Path, r.Problems))
		}
		if r.Status != mcpform.FlowAsk {
			return mcp.NewToolResultText(r.Status.String()), nil
		}
		return r.Result, nil
	})
	add("lone", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if reply := mcpgo.ReadCall(ctx, form, req); reply.Status != mcpform.ReplyNone {
			s.took(fmt.Sprintf("form: %v on %v", reply.Status, reply.Path))
		}
		return mcpgo.Ask(ctx, form, req, "")
	})
	return s
}

func (s *acceptingServer) took(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taken = append(s.taken, what)
}

// FuzzReadCallWithoutState (issue 22's property test, on mcp-go's face):
// whatever a client sends as a tool's arguments, to the tool itself or
// through the viewer's companion, from an MCP Apps host or one that can
// only be asked through its model, on 2026-07-28 or the legacy protocol,
// without a state the server minted for this ask, neither a flow's round
// nor a lone form's ReadCall reports an answer. The seeds' states were minted for another principal, which no
// mutation can turn into one minted for this ask.
func FuzzReadCallWithoutState(f *testing.F) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(f, err)
	alice := newAcceptingServer(f, codec, "alice")
	// An MCP Apps host and a bare one, on each protocol.
	legacy := client.WithLegacyProtocolOnly()
	hosts := []*client.Client{connect(f, alice.MCPServer, nil, apps), connect(f, alice.MCPServer, nil),
		connect(f, alice.MCPServer, nil, apps, legacy), connect(f, alice.MCPServer, nil, legacy)}
	tools := []string{"signup", "lone"}

	// bob's states, from his own view and model asks.
	bob := newAcceptingServer(f, codec, "bob")
	var minted []string
	for _, c := range []*client.Client{connect(f, bob.MCPServer, nil, apps), connect(f, bob.MCPServer, nil)} {
		for _, tool := range tools {
			res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}})
			require.NoError(f, err)
			minted = append(minted, stateArgument(f, res))
		}
	}
	// The harness sees an answer: alice's own state, from her view, is
	// taken through the companion by both.
	for i, tool := range tools {
		ask, err := hosts[0].CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}})
		require.NoError(f, err)
		state := stateArgument(f, ask)
		_, err = hosts[0].CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "mcpform_view_submit",
			Arguments: map[string]any{"mcpformTool": tool, mcpform.StateArgument: state, "email": "ada@example.com", "plan": "pro"}}})
		require.NoError(f, err)
		require.Len(f, alice.taken, i+1, "alice's own answer through her view")
	}
	alice.taken = nil
	for i, args := range []string{
		`{"mcpform":"","email":"victim@example.com","plan":"pro"}`,
		`{"mcpform":1,"email":"victim@example.com","plan":"pro"}`,
		`{"mcpform":null,"mcpformAction":"decline"}`,
		`{"email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"` + minted[0] + `","email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"` + minted[1] + `","mcpformAction":"decline"}`,
		`{"mcpform":"` + minted[2] + `","email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"` + minted[3] + `","email":"ada@example.com","plan":"team"}`,
	} {
		f.Add([]byte(args), uint8(i), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, args []byte, which uint8, viaView bool) {
		var arguments map[string]any
		if json.Unmarshal(args, &arguments) != nil || arguments == nil {
			return // not an object: mcp-go's client sends no such call
		}
		tool := tools[int(which)%len(tools)]
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = tool, arguments
		if viaView {
			arguments["mcpformTool"] = tool
			req.Params.Name = "mcpform_view_submit"
		}
		_, _ = hosts[int(which/2)%len(hosts)].CallTool(context.Background(), req)
		alice.mu.Lock()
		defer alice.mu.Unlock()
		if len(alice.taken) > 0 {
			t.Fatalf("%v from arguments %s", alice.taken, args)
		}
	})
}

// stateArgument returns the state a view's or the model's ask carries in
// the arguments it says to call with.
func stateArgument(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var ask struct{ Arguments map[string]any }
	require.NoError(t, json.Unmarshal(b, &ask))
	state, _ := ask.Arguments[mcpform.StateArgument].(string)
	require.NotEmpty(t, state, "an ask that carries a state: %s", b)
	return state
}
