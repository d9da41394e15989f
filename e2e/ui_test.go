package e2e_test

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appsClient connects a client that declares MCP Apps support, as a host
// that renders the views does.
func appsClient(t *testing.T, srv *server, version string) *mcp.ClientSession {
	t.Helper()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}})
	client := mcp.NewClient(&mcp.Implementation{Name: "apps-host", Version: "v0"}, &mcp.ClientOptions{Capabilities: caps})
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.url, MaxRetries: -1}
	if !srv.http {
		cmd := exec.Command(signupBin(t), "-stdio", "-db", srv.db)
		cmd.Env = append(environ(), keyEnv+"="+keyA)
		tr = &mcp.CommandTransport{Command: cmd}
	}
	cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
	return cs
}

// submit calls the tool as the form's submit does, with args as the
// browser sends them; nil args is the first call.
func submit(t *testing.T, cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, Arguments: args})
	require.NoError(t, err)
	return res
}

// form returns the subtitle of the form a result shows, and fails if it
// shows none.
func form(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Empty(t, res.InputRequests, "want the UI, not a native request")
	wire, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.Contains(t, string(wire), `"$prefab":{"version":"0.3"}`)
	require.Contains(t, string(wire), `"tool":"signup"`, "the form submits to the signup tool")
	var muted []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "Muted" {
				s, _ := v["content"].(string)
				muted = append(muted, s)
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	var tree any
	require.NoError(t, json.Unmarshal(wire, &tree))
	walk(tree)
	require.Len(t, muted, 1, "one subtitle in %s", wire)
	return muted[0]
}

// TestUI drives the MCP Apps path: a client that declares the extension
// gets the form, and its submit, carrying what a browser sends, is checked
// as native answers are.
func TestUI(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    map[string]any
		status  string   // a final result with this status...
		saying  []string // ...or the form shown again, naming these problems
		account *account
	}{
		{
			name:   "pro plan",
			args:   map[string]any{"email": "ada@example.com", "fullName": "Ada Lovelace", "plan": "pro", "team_name": "", "seats": ""},
			status: "created", account: &account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"},
		},
		{
			name:   "team plan, seats as text",
			args:   map[string]any{"email": "ada@example.com", "fullName": "", "plan": "team", "teamName": "Analytical Engines", "seats": "12"},
			status: "created", account: &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
		},
		{
			name:   "team answers are ignored for another plan",
			args:   map[string]any{"email": "ada@example.com", "plan": "free", "teamName": "Analytical Engines", "seats": "12"},
			status: "created", account: &account{Email: "ada@example.com", Plan: "free"},
		},
		{
			name:   "team plan without team answers",
			args:   map[string]any{"email": "ada@example.com", "plan": "team", "teamName": "", "seats": ""},
			saying: []string{"Team name: needed for the Team plan", "Seats: needed for the Team plan"},
		},
		{
			name:   "seats below the minimum, which the browser does not enforce",
			args:   map[string]any{"email": "ada@example.com", "plan": "team", "teamName": "Analytical Engines", "seats": "1"},
			saying: []string{"Seats: less than the minimum 2"},
		},
		{
			name:   "a bad email",
			args:   map[string]any{"email": "ada@", "plan": "pro"},
			saying: []string{"Email: not a valid email address"},
		},
		{
			name:   "wrong types and unknown keys",
			args:   map[string]any{"email": 42, "plan": []any{"pro"}, "admin": true},
			saying: []string{"Email: not a string", "Plan: not a string"},
		},
	} {
		for _, c := range []struct {
			version string
			http    bool
		}{{modern, true}, {legacy, true}, {modern, false}} {
			name := tt.name + "/" + c.version
			if c.http {
				name += " over HTTP"
			}
			t.Run(name, func(t *testing.T) {
				srv := newServer(t, !c.http)
				cs := appsClient(t, srv, c.version)

				first := form(t, submit(t, cs, nil))
				assert.Contains(t, first, "Team plan")

				res := submit(t, cs, tt.args)
				if tt.status == "" {
					sub := form(t, res)
					for _, want := range tt.saying {
						assert.Contains(t, sub, want)
					}
					assert.Empty(t, srv.accounts(t))
					return
				}
				assert.Equal(t, tt.status, status(t, res), "result: %s", text(res))
				assert.Equal(t, map[string]account{tt.account.Email: *tt.account}, srv.accounts(t))

				// A double submit is the same signup; another one finds
				// the email taken.
				again := submit(t, cs, tt.args)
				assert.Equal(t, text(res), text(again))
				other := maps.Clone(tt.args)
				other["fullName"] = "Someone Else"
				assert.Equal(t, "exists", status(t, submit(t, cs, other)))
				assert.Len(t, srv.accounts(t), 1)
			})
		}
	}
}

// TestUIOnlyForAppsClients checks that a client that does not declare MCP
// Apps is asked natively, and that its arguments are not taken as answers.
func TestUIOnlyForAppsClients(t *testing.T) {
	srv := newServer(t, false)
	cs := srv.connect(t, modern, false, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName,
		Arguments: map[string]any{"email": "ada@example.com", "plan": "pro"}})
	require.NoError(t, err)
	assert.Equal(t, "account", asks(t, res))
	assert.Empty(t, srv.accounts(t))
}

// TestViewer checks the MCP Apps wiring a host looks for: the extension in
// the server's capabilities, the viewer resource, and the tool's link to
// it.
func TestViewer(t *testing.T) {
	cs := newServer(t, false).connect(t, modern, true, nil)
	ctx := context.Background()

	caps := cs.InitializeResult().Capabilities
	require.NotNil(t, caps)
	assert.Contains(t, caps.Extensions, mcpform.AppsExtension)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	metas := map[string]mcp.Meta{}
	for _, tool := range tools.Tools {
		metas[tool.Name] = tool.Meta
	}
	require.Len(t, metas, 2)
	require.Contains(t, metas, toolName)
	// set_password asks natively only: its secret never goes into a UI form.
	assert.Contains(t, metas, "set_password")
	assert.Nil(t, metas["set_password"]["ui"], "set_password links to no viewer")
	ui, _ := metas[toolName]["ui"].(map[string]any)
	uri, _ := ui["resourceUri"].(string)
	require.True(t, strings.HasPrefix(uri, "ui://"), "tool _meta: %v", metas[toolName])

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, mcpform.AppMIMEType, res.Contents[0].MIMEType)
	assert.Contains(t, res.Contents[0].Text, "renderer.auto.min.js")
}
