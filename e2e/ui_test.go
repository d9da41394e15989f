package e2e_test

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"slices"
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

// companionTool is the app-only tool a view submits to, naming the tool
// under "mcpformTool" (see AddViewer).
const companionTool = "mcpform_view_submit"

// submit calls the tool as the form's submit does, with args as the
// browser sends them, through the app-only companion when args name the
// tool; nil args is the first call.
func submit(t *testing.T, cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	name := toolName
	if args["mcpformTool"] != nil {
		name = companionTool
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

// endedOf returns the tool's last result that res, a view's submit's
// result, shows as the view of its outcome: under mcpformResult in the
// view's state, as the companion gives it. It returns nil when res is no
// such view.
func endedOf(t testing.TB, res *mcp.CallToolResult) *mcp.CallToolResult {
	t.Helper()
	var w struct {
		Prefab any `json:"$prefab"`
		State  struct {
			Result json.RawMessage `json:"mcpformResult"`
		} `json:"state"`
	}
	if json.Unmarshal([]byte(jsonOf(t, res.StructuredContent)), &w) != nil || w.Prefab == nil ||
		len(w.State.Result) == 0 || string(w.State.Result) == "null" {
		return nil
	}
	var last mcp.CallToolResult
	require.NoError(t, json.Unmarshal(w.State.Result, &last))
	assert.Equal(t, text(res), text(&last), "the view's result says what the tool's does")
	return &last
}

// shownOutcome is endedOf's result, and fails when there is none.
func shownOutcome(t *testing.T, res *mcp.CallToolResult) *mcp.CallToolResult {
	t.Helper()
	last := endedOf(t, res)
	require.NotNil(t, last, "the outcome, as a view: %s", text(res))
	return last
}

// A view is what one step's MCP Apps view shows, read from a result.
type view struct {
	heading  string
	tool     string         // the tool its submit calls
	fields   []string       // the names of its controls, in order
	problems string         // what the model is told to fix, as natively, or ""
	summary  []string       // what the person is told to fix, or nil
	step     string         // where the step stands, "Step 1 of 2", or ""
	hints    []string       // the descriptions and bounds under the labels
	state    map[string]any // what the view fills its fields with
	submit   map[string]any // the arguments its submit sends, as written
	decline  map[string]any // the arguments its Decline button sends
}

// viewOf returns the view res shows, and fails if it shows none.
func viewOf(t *testing.T, res *mcp.CallToolResult) view {
	t.Helper()
	require.Empty(t, res.InputRequests, "want the UI, not a native request")
	wire, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.Contains(t, string(wire), `"$prefab":{"version":"0.3"}`, "want a view, got %s", wire)
	var v view
	var walk func(any)
	walk = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			switch n["type"] {
			case "Heading":
				v.heading, _ = n["content"].(string)
			case "Muted":
				v.step, _ = n["content"].(string)
			case "Link":
				// The error summary's items link to their fields.
				if href, _ := n["href"].(string); strings.HasPrefix(href, "#") {
					s, _ := n["content"].(string)
					v.summary = append(v.summary, s)
				}
			case "FieldDescription":
				s, _ := n["content"].(string)
				v.hints = append(v.hints, s)
			case "Form":
				sub, _ := n["onSubmit"].(map[string]any)
				v.tool, _ = sub["tool"].(string)
				v.submit, _ = sub["arguments"].(map[string]any)
			}
			if a, ok := n["onClick"].(map[string]any); ok && n["type"] == "Button" {
				if args, _ := a["arguments"].(map[string]any); args["mcpformAction"] == "decline" { // not Start again
					v.decline = args
				}
			}
			if name, ok := n["name"].(string); ok {
				v.fields = append(v.fields, name)
			}
			children, _ := n["children"].([]any)
			for _, c := range children {
				walk(c)
			}
		}
	}
	var tree struct {
		View  any
		State map[string]any
	}
	require.NoError(t, json.Unmarshal(wire, &tree))
	walk(tree.View)
	v.state = tree.State
	if _, says, ok := strings.Cut(text(res), "\n\n"); ok {
		v.problems = says
	}
	require.NotNil(t, v.submit, "no form in %s", wire)
	return v
}

// fill returns the arguments v's submit sends with values typed in, as the
// renderer sends them: each "{{ name }}" replaced by the value ("" for an
// input left empty), under the name with "_x" camel-cased to "X", and the
// rest as written.
func (v view) fill(values map[string]any) map[string]any {
	args := map[string]any{}
	for k, a := range v.submit {
		s, _ := a.(string)
		name, ok := strings.CutPrefix(s, "{{ ")
		if !ok {
			args[k] = a
			continue
		}
		name = strings.TrimSuffix(name, " }}")
		if val, ok := values[name]; ok {
			args[camel(k)] = val
		} else {
			args[camel(k)] = ""
		}
	}
	return args
}

// camel is key as prefab's renderer sends it: full_name as fullName.
func camel(key string) string {
	parts := strings.Split(key, "_")
	for i, p := range parts[1:] {
		if p != "" {
			parts[i+1] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

// The questions of each step, as its view shows them.
var (
	accountFields = []string{"email", "full_name", "plan"}
	teamFields    = []string{"team_name", "seats"}
)

// A uiStep is one view the person is shown, and what they type into it.
type uiStep struct {
	fields []string
	values map[string]any // by field name; values arrive as the browser sends them
}

// TestUI drives the MCP Apps path with a client that declares the
// extension and nothing else: each step is a view of its own (the account,
// then the team), each submit, carrying what a browser sends, is checked
// as native answers are, and the last one's result is the outcome whose
// text the view shows.
func TestUI(t *testing.T) {
	for _, tt := range []struct {
		name    string
		steps   []uiStep
		status  string   // a final result with this status...
		saying  []string // ...or the last view shown again, naming these problems to the model
		fix     []string // ...and saying how to fix them to the person
		account *account
	}{
		{
			name:   "pro plan",
			steps:  []uiStep{{accountFields, map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro"}}},
			status: "created", account: &account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"},
		},
		{
			name: "team plan, seats as text",
			steps: []uiStep{
				{accountFields, map[string]any{"email": "ada@example.com", "full_name": "", "plan": "team"}},
				{teamFields, map[string]any{"team_name": "Analytical Engines", "seats": "12"}},
			},
			status: "created", account: &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
		},
		{
			name:  "team plan without team answers",
			steps: []uiStep{{accountFields, map[string]any{"email": "ada@example.com", "plan": "team"}}, {teamFields, map[string]any{"team_name": "", "seats": ""}}},
			// An empty input is a missing answer: the browser sends "".
			saying: []string{"Enter a value for Team name"},
			fix:    []string{"Enter a value for Team name", "Enter a value for Seats"},
		},
		{
			name:   "seats below the minimum, which the browser does not enforce",
			steps:  []uiStep{{accountFields, map[string]any{"email": "ada@example.com", "plan": "team"}}, {teamFields, map[string]any{"team_name": "Analytical Engines", "seats": "1"}}},
			saying: []string{"Seats must be from 2 to 50"},
			fix:    []string{"Seats must be from 2 to 50"},
		},
		{
			name:   "a bad email",
			steps:  []uiStep{{accountFields, map[string]any{"email": "ada@", "plan": "pro"}}},
			saying: []string{"Email must be an email address, like name@example.com"},
			fix:    []string{"Email must be an email address, like name@example.com"},
		},
		{
			name:   "wrong types",
			steps:  []uiStep{{accountFields, map[string]any{"email": 42, "plan": []any{"pro"}}}},
			saying: []string{"Email must be an email address, like name@example.com", "Choose one of the options for Plan"},
			fix:    []string{"Email must be an email address, like name@example.com", "Choose one of the options for Plan"},
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
				res, args := runUI(t, cs, tt.steps)
				if tt.status == "" {
					again := viewOf(t, res)
					assert.Equal(t, tt.steps[len(tt.steps)-1].fields, again.fields, "the same step is shown again")
					for _, want := range tt.saying {
						assert.Contains(t, again.problems, want)
					}
					assert.Equal(t, tt.fix, again.summary, "the error summary")
					assert.Empty(t, srv.accounts(t))
					return
				}
				res = shownOutcome(t, res) // the outcome, not another step
				assert.Equal(t, tt.status, status(t, res), "result: %s", text(res))
				assert.True(t, strings.HasPrefix(said(res), "Signup complete: created "), text(res))
				assert.Equal(t, map[string]account{tt.account.Email: *tt.account}, srv.accounts(t))

				// A double submit is the same signup; another one finds
				// the email taken.
				again := submit(t, cs, args)
				assert.Equal(t, text(res), text(again))
				other := slices.Clone(tt.steps)
				other[0].values = maps.Clone(other[0].values)
				other[0].values["full_name"] = "Someone Else"
				res, _ = runUI(t, cs, other)
				assert.Equal(t, "exists", status(t, shownOutcome(t, res)), text(res))
				assert.Len(t, srv.accounts(t), 1)
			})
		}
	}
}

// runUI opens the tool's view, as a host does, and fills and submits each
// step's view in turn, checking the questions it shows; it returns the
// last submit's result and arguments.
func runUI(t *testing.T, cs *mcp.ClientSession, steps []uiStep) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res := submit(t, cs, nil)
	var args map[string]any
	for i, s := range steps {
		v := viewOf(t, res)
		require.Equal(t, companionTool, v.tool, "the form submits to the app-only companion")
		require.Equal(t, toolName, v.submit["mcpformTool"], "naming the signup tool")
		require.Equal(t, s.fields, v.fields, "view %d shows the questions of its step alone", i+1)
		assert.Empty(t, v.problems, "view %d", i+1)
		assert.Empty(t, v.summary, "view %d", i+1)
		args = v.fill(s.values)
		res = submit(t, cs, args)
	}
	return res, args
}

// TestUIDecline presses a view's Decline button at each step: the example
// answers "declined" for that step, creates nothing, and keeps that
// outcome when the same view is then submitted with answers.
func TestUIDecline(t *testing.T) {
	account := map[string]any{"email": "ada@example.com", "plan": "team"}
	for _, tt := range []struct {
		name  string
		steps []uiStep // answered before the decline
		step  string   // the step the outcome names
	}{
		{"the account step", nil, "account"},
		{"the team step", []uiStep{{accountFields, account}}, "team"},
	} {
		for _, version := range []string{modern, legacy} {
			t.Run(tt.name+"/"+version, func(t *testing.T) {
				srv := newServer(t, false)
				cs := appsClient(t, srv, version)
				res, _ := runUI(t, cs, tt.steps)
				v := viewOf(t, res)
				require.NotNil(t, v.decline, "the view has a Decline button")
				declined := shownOutcome(t, submit(t, cs, v.decline))
				assert.Equal(t, "declined", status(t, declined), text(declined))
				assert.Contains(t, text(declined), "you declined to give your "+tt.step+" details")
				assert.Empty(t, srv.accounts(t))

				again := submit(t, cs, v.fill(map[string]any{"email": "ada@example.com", "plan": "pro", "team_name": "Analytical Engines", "seats": "12"}))
				assert.Equal(t, text(declined), text(again), "the first outcome stands")
				assert.Empty(t, srv.accounts(t))
			})
		}
	}
}

// TestUIExtraArgument: a submit carrying an argument its view does not
// send is refused as a state replayed with other arguments is, and creates
// nothing.
func TestUIExtraArgument(t *testing.T) {
	srv := newServer(t, false)
	cs := appsClient(t, srv, modern)
	args := viewOf(t, submit(t, cs, nil)).fill(map[string]any{"email": "ada@example.com", "plan": "pro"})
	args["admin"] = true
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, Arguments: args})
	requireBadState(t, err)
	assert.Empty(t, srv.accounts(t))
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
	require.Len(t, metas, 3)
	require.Contains(t, metas, toolName)
	// The app-only tool the views submit to, hidden from the model.
	require.Contains(t, metas, companionTool)
	assert.Equal(t, []any{"app"}, metas[companionTool]["ui"].(map[string]any)["visibility"])
	// set_password's view asks the email and links to the secret page:
	// the password is never on it.
	require.Contains(t, metas, passwordTool)
	ui, _ := metas[toolName]["ui"].(map[string]any)
	uri, _ := ui["resourceUri"].(string)
	require.True(t, strings.HasPrefix(uri, "ui://"), "tool _meta: %v", metas[toolName])
	assert.Equal(t, ui, metas[passwordTool]["ui"], "set_password links to the same viewer")

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, mcpform.AppMIMEType, res.Contents[0].MIMEType)
	// The viewer is self-contained: it inlines the renderer and asks the
	// host to allow no origin.
	page := res.Contents[0].Text
	assert.True(t, strings.Contains(page, `<div id="root"></div>`) && !strings.Contains(page, "<script src="),
		"want the self-contained viewer, got %.200q", page)
	assert.Equal(t, map[string]any{"csp": map[string]any{}}, res.Contents[0].Meta["ui"])
}
