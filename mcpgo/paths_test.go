package mcpgo_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pathsServer serves "signup" (the two-step flow, asked through the model
// where nothing else can ask) and "set_password" (an email and a secret),
// with the viewer and its companion, as examples/mcpgo does.
type pathsServer struct {
	*server.MCPServer
	page  http.Handler
	paths []mcpform.Path // of each round that finished
	// ended, when set, is the result of a run that did not finish.
	ended *mcp.CallToolResult
}

func newPathsServer(t *testing.T) *pathsServer {
	t.Helper()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	alice := func(context.Context) string { return "alice" }
	signup, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Type: mcpform.TypeEmail, Required: true},
			{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro"}, {Value: "team"}}}}},
		{Key: "team", Message: "Tell us about your team", When: func(a mcpform.Answers) bool { return a["plan"] == "team" },
			Fields: []mcpform.AutoFormField{{Name: "seats", Type: mcpform.TypeInteger, Required: true, Min: ptr(2.0)}}},
	}, &mcpform.FlowOptions{ContextPrincipal: alice, AskModel: true})
	require.NoError(t, err)
	s := &pathsServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.page.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	password, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "password", Message: "Set your password", Fields: []mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "password", Type: mcpform.TypePassword, Required: true, Min: ptr(8.0)},
	}}}, &mcpform.FlowOptions{ContextPrincipal: alice, AskModel: true,
		Secrets: &mcpform.SecretOptions{PageURL: ts.URL + "/secret", Store: mcpform.NewMemorySecretStore()}})
	require.NoError(t, err)
	s.page, err = password.SecretPage(&mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)

	s.MCPServer = server.NewMCPServer("paths", "v0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))
	require.NoError(t, mcpgo.AddViewer(s.MCPServer, nil))
	for name, flow := range map[string]*mcpform.Flow{"signup": signup, "set_password": password} {
		tool := mcp.NewToolWithRawSchema(name, "", flow.InputSchema(nil))
		require.NoError(t, mcpgo.AttachViewer(&tool, nil))
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := mcpgo.Next(ctx, flow, req)
			if err != nil {
				return nil, err
			}
			if r.Status == mcpform.FlowAsk {
				return r.Result, nil
			}
			s.paths = append(s.paths, r.Path)
			if r.Status != mcpform.FlowDone {
				if s.ended != nil {
					return s.ended, nil
				}
				return mcp.NewToolResultText(r.Status.String() + " " + r.Step), nil
			}
			return mcp.NewToolResultText("done " + r.Answers["email"].(string)), nil
		})
	}
	return s
}

// structured returns a result's structuredContent as JSON decodes it.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// callWith calls tool through c with arguments args plus values.
func callWith(t *testing.T, c *client.Client, tool string, args map[string]any, values map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	all := map[string]any{}
	for _, m := range []map[string]any{args, values} {
		for k, v := range m {
			all[k] = v
		}
	}
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = tool, all
	return c.CallTool(context.Background(), req)
}

// apps declares what an MCP Apps host without elicitation declares.
var apps = client.WithClientCapabilities(mcp.ClientCapabilities{Extensions: map[string]any{
	mcpform.AppsExtension: map[string]any{"mimeTypes": []any{mcpform.AppMIMEType}}}})

// TestViewPath: an MCP Apps host without elicitation is shown each step
// in a view, on both protocols; the view submits through the app-only
// companion, and the same arguments sent to the tool itself (the model
// replaying the view) are refused as a bad state.
func TestViewPath(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			c := connect(t, s.MCPServer, nil, append([]client.ClientOption{apps}, proto.opts...)...)
			tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
			require.NoError(t, err)
			var companion *mcp.Tool
			for i := range tools.Tools {
				if tools.Tools[i].Name == "mcpform_view_submit" {
					companion = &tools.Tools[i]
				}
			}
			require.NotNil(t, companion, "the companion is listed")
			ui, _ := companion.Meta.AdditionalFields["ui"].(map[string]any)
			assert.Equal(t, []any{"app"}, ui["visibility"])
			viewer, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: mcpform.ViewerURI}})
			require.NoError(t, err)
			require.Len(t, viewer.Contents, 1)
			page, ok := viewer.Contents[0].(mcp.TextResourceContents)
			require.True(t, ok, "%T", viewer.Contents[0])
			assert.Equal(t, mcpform.AppMIMEType, page.MIMEType)
			assert.Contains(t, page.Text, "<div id=\"root\"></div>")

			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			view := structured(t, res)
			require.Contains(t, view, "$prefab", "a view: %s", text(t, res))
			args, _ := view["arguments"].(map[string]any)
			require.NotEmpty(t, args["mcpform"])

			_, err = callWith(t, c, "signup", args, map[string]any{"email": "ada@example.com", "plan": "team"})
			require.Error(t, err, "the view's state, sent to the tool itself")
			assert.Contains(t, err.Error(), "Invalid or expired requestState")

			res, err = callWith(t, c, "mcpform_view_submit", args, map[string]any{"mcpformTool": "signup", "email": "ada@example.com", "plan": "team"})
			require.NoError(t, err)
			view = structured(t, res)
			require.Contains(t, view, "$prefab", "the team's view: %s", text(t, res))
			assert.Contains(t, text(t, res), "Tell us about your team")
			args, _ = view["arguments"].(map[string]any)
			res, err = callWith(t, c, "mcpform_view_submit", args, map[string]any{"mcpformTool": "signup", "seats": "5"})
			require.NoError(t, err)
			assert.Equal(t, "done ada@example.com", text(t, res))
			assert.Equal(t, []mcpform.Path{mcpform.PathView}, s.paths)

			_, err = callWith(t, c, "mcpform_view_submit", args, map[string]any{"mcpformTool": "mcpform_view_submit"})
			require.Error(t, err, "a companion call that names no tool")
		})
	}
}

// TestModelPath: a host with neither elicitation nor MCP Apps is asked
// through its model, opted in with AskModel: each result names the
// schema and the arguments to call again with.
func TestModelPath(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			c := connect(t, s.MCPServer, nil, proto.opts...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			var asked []string
			values := map[string]any{"email": "ada@example.com", "plan": "team", "seats": 5}
			for range 2 {
				ask := structured(t, res)
				schema, _ := ask["requestedSchema"].(map[string]any)
				require.NotNil(t, schema, "the model is asked: %s", text(t, res))
				props, _ := schema["properties"].(map[string]any)
				for k := range props {
					asked = append(asked, k)
				}
				assert.Contains(t, text(t, res), "Ask the person for these answers")
				args, _ := ask["arguments"].(map[string]any)
				res, err = callWith(t, c, "signup", args, values)
				require.NoError(t, err)
			}
			assert.ElementsMatch(t, []string{"email", "plan", "seats"}, asked)
			assert.Equal(t, "done ada@example.com", text(t, res))
			assert.Equal(t, []mcpform.Path{mcpform.PathModel}, s.paths)
		})
	}
}

// TestLinkPath: a client with form elicitation but no URL mode answers the
// email in a form, and is then given the secret page's link in an
// ordinary result; once the person has sent the page, the call with the
// result's arguments finishes, with the password taken from the page.
func TestLinkPath(t *testing.T) {
	const secret = "correct horse battery"
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			p := &person{answers: []*mcp.ElicitationResult{accept(map[string]any{"email": "ada@example.com"})}}
			c := connect(t, s.MCPServer, p, proto.opts...)
			res, err := callTool(t, c, "set_password")
			require.NoError(t, err)
			link := structured(t, res)
			u, _ := link["url"].(string)
			require.NotEmpty(t, u, "the link: %s", text(t, res))
			assert.NotContains(t, link, "requestedSchema", "the link alone")
			assert.Contains(t, text(t, res), u)
			require.Len(t, p.asked, 1)
			assert.Equal(t, "form", p.asked[0].Mode)

			b := &browser{t: t, secret: secret}
			_, err = b.Elicit(context.Background(), mcp.ElicitationRequest{Params: mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, URL: u}})
			require.NoError(t, err)
			args, _ := link["arguments"].(map[string]any)
			res, err = callWith(t, c, "set_password", args, nil)
			require.NoError(t, err)
			assert.Equal(t, "done ada@example.com", text(t, res))
			assert.Equal(t, []mcpform.Path{mcpform.PathLink}, s.paths)
		})
	}
}

// TestModelThenLinkPath: a host that can be asked only through the model
// answers set_password's email through it, then is given the secret
// page's link; the finishing round, whose call only followed the link,
// reports PathModel, the weakest path of the answers it hands over, as
// the root face does (TestFlowPathWeakest).
func TestModelThenLinkPath(t *testing.T) {
	const secret = "correct horse battery"
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			c := connect(t, s.MCPServer, nil, proto.opts...)
			res, err := callTool(t, c, "set_password")
			require.NoError(t, err)
			ask := structured(t, res)
			require.Contains(t, ask, "requestedSchema", "the model is asked the email: %s", text(t, res))
			args, _ := ask["arguments"].(map[string]any)
			res, err = callWith(t, c, "set_password", args, map[string]any{"email": "ada@example.com"})
			require.NoError(t, err)
			link := structured(t, res)
			u, _ := link["url"].(string)
			require.NotEmpty(t, u, "the link: %s", text(t, res))

			b := &browser{t: t, secret: secret}
			_, err = b.Elicit(context.Background(), mcp.ElicitationRequest{Params: mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, URL: u}})
			require.NoError(t, err)
			args, _ = link["arguments"].(map[string]any)
			res, err = callWith(t, c, "set_password", args, nil)
			require.NoError(t, err)
			assert.Equal(t, "done ada@example.com", text(t, res))
			assert.Equal(t, []mcpform.Path{mcpform.PathModel}, s.paths, "the model typed the email")
		})
	}
}

// TestNativePath: a client with form elicitation answers in its own forms:
// natively on 2026-07-28, and through mcp-go's bridge (elicitation/create)
// on the legacy handshake, which the round's Path names.
func TestNativePath(t *testing.T) {
	for _, tt := range []struct {
		proto int
		want  mcpform.Path
	}{{0, mcpform.PathNative}, {1, mcpform.PathLegacy}} {
		t.Run(protocols[tt.proto].name, func(t *testing.T) {
			s := newPathsServer(t)
			p := &person{answers: []*mcp.ElicitationResult{
				accept(map[string]any{"email": "ada@example.com", "plan": "team"}), accept(map[string]any{"seats": 3})}}
			c := connect(t, s.MCPServer, p, protocols[tt.proto].opts...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			assert.Equal(t, "done ada@example.com", text(t, res))
			assert.Len(t, p.asked, 2)
			assert.Equal(t, []mcpform.Path{tt.want}, s.paths)
		})
	}
}

// TestCompanionRefuses: a companion call that names no tool of the server
// attached to the viewer (none, not a string, unknown, the companion
// itself, or a tool that shows no view) is refused, never routed and
// never a panic.
func TestCompanionRefuses(t *testing.T) {
	s := newPathsServer(t)
	s.AddTool(mcp.NewTool("admin"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t.Error("the companion reached a tool not attached to the viewer")
		return mcp.NewToolResultText("reached"), nil
	})
	c := connect(t, s.MCPServer, nil, apps)
	for name, args := range map[string]map[string]any{
		"a tool without the viewer": {"mcpformTool": "admin"},
		"none":                      {}, "not a string": {"mcpformTool": 5}, "unknown": {"mcpformTool": "nope"},
		"itself": {"mcpformTool": "mcpform_view_submit"}, "nested": {"mcpformTool": map[string]any{"a": "signup"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := callWith(t, c, "mcpform_view_submit", args, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the view's submit names no tool under mcpformTool")
		})
	}
	assert.Empty(t, s.paths)
}

// TestCompanionRefusesOnTheWire: over mcp-go's own server.ServeStdio and
// server.NewStreamableHTTPServer, the refusal is -32602, as on go-sdk's face.
func TestCompanionRefusesOnTheWire(t *testing.T) {
	for _, tr := range specTransports {
		t.Run(tr.name, func(t *testing.T) {
			c, _ := tr.connect(t, "paths", apps)
			startClient(t, c)
			_, err := callWith(t, c, "mcpform_view_submit", map[string]any{"mcpformTool": "nope"}, nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, mcp.ErrInvalidParams, "%v", err)
		})
	}
}

// TestLanguage: a call's acceptLanguage _meta reaches the core through
// the mcp-go face as through go-sdk's: the model is asked in Spanish, and
// the result says so in its contentLanguage _meta.
func TestLanguage(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newPathsServer(t)
			c := connect(t, s.MCPServer, nil, proto.opts...)
			var req mcp.CallToolRequest
			req.Params.Name = "signup"
			req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"io.modelcontextprotocol/acceptLanguage": "es-ES,es;q=0.9"}}
			res, err := c.CallTool(context.Background(), req)
			require.NoError(t, err)
			require.NotNil(t, res.Meta)
			assert.Equal(t, "es", res.Meta.AdditionalFields["io.modelcontextprotocol/contentLanguage"])
			assert.NotContains(t, text(t, res), "Ask the person for these answers", "the model's text is Spanish")
		})
	}
}
