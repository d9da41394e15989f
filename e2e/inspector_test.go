package e2e_test

// The Inspector tests run examples/signup under the MCP Inspector 2.12.0,
// the one host known to finish MCP 2026-07-28 input_required rounds, as a
// person would through its mcpdo CLI: the call parks on mcpdo's daemon,
// each command prints the form it is waiting on, and the person answers
// it with elicitation/respond until the final result comes back.

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpdoBin is the Inspector's mcpdo entry point under interop/node_modules,
// as its package.json's bin names it.
const mcpdoBin = "node_modules/@modelcontextprotocol/inspector/clients/mcpdo/build/mcp-bin.js"

// An mcpdo runs the Inspector's mcpdo CLI against a private daemon of its
// own: a home, catalog, secret store and socket that nothing else shares.
type mcpdo struct {
	node, bin string
	env       []string
}

// newMcpdo returns an mcpdo whose daemon is stopped, and its home removed,
// when the test ends.
func newMcpdo(t *testing.T) *mcpdo {
	t.Helper()
	node := testenv.Node(t)
	bin := filepath.Join(testenv.InteropDir(t), mcpdoBin)
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "Inspector test needs @modelcontextprotocol/inspector: run (cd interop && npm ci): %v", err)
	}
	// A short directory of its own, not t.TempDir: the daemon's Unix socket
	// lives in it, and a socket's path has at most 108 bytes.
	home, err := os.MkdirTemp("", "mcpdo-")
	require.NoError(t, err)
	m := &mcpdo{node: node, bin: bin, env: append(environ(),
		"HOME="+home,
		"MCP_INSPECTOR_DAEMON_DIR="+filepath.Join(home, "daemon"),
		"MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"),
		// No keychain on a CI machine: say so, rather than have every
		// command warn that it fell back to the file.
		"MCP_INSPECTOR_SECRET_STORE=file",
		"NO_COLOR=1",
	)}
	t.Cleanup(func() {
		if out, err := m.command(context.Background(), "daemon", "stop").CombinedOutput(); err != nil {
			t.Errorf("mcpdo daemon stop: %v\n%s", err, out)
		}
		os.RemoveAll(home)
	})
	return m
}

func (m *mcpdo) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, m.node, append([]string{m.bin, "--format", "json"}, args...)...)
	cmd.Env = m.env
	return cmd
}

// run runs one mcpdo command and returns its JSON output. Every command
// returns at once: a call that asks for input parks on the daemon.
func (m *mcpdo) run(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := m.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "mcpdo %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return stdout.Bytes()
}

// connect opens the connection name on server (a URL, or a command line
// for stdio) in era: "modern" negotiates 2026-07-28, "legacy" 2025-11-25.
// It returns the revision negotiated.
func (m *mcpdo) connect(t *testing.T, name, era string, server ...string) string {
	t.Helper()
	args := []string{"connect", "--connection", name, "--era", era}
	if len(server) > 1 {
		args = append(args, "-e", keyEnv+"="+keyA, "--")
	}
	m.run(t, append(args, server...)...)
	t.Cleanup(func() { m.command(context.Background(), "disconnect", name).Run() })
	var show struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	require.NoError(t, json.Unmarshal(m.run(t, "--connection", name, "connections/show"), &show))
	return show.ProtocolVersion
}

// An mcpdoOutput is what tools/call and elicitation/respond print: the
// request the call waits on, or the final tool result.
type mcpdoOutput struct {
	Pending *struct {
		ID      string         `json:"elicitationId"`
		Mode    string         `json:"mode"`
		Message string         `json:"message"`
		Schema  map[string]any `json:"requestedSchema"`
		URL     string         `json:"url"`
	} `json:"elicitationPending"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		Status string `json:"status"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

// said is what the result tells the model: its last text block, after
// the heading and summary FlowRound.Outcome writes for the person.
func (o mcpdoOutput) said() string {
	for i := len(o.Content) - 1; i >= 0; i-- {
		if o.Content[i].Type == "text" {
			return o.Content[i].Text
		}
	}
	return ""
}

// A reply is what the person does with one request: accept a form with
// fields, decline or cancel it, or, for a link, open the page and send the
// password (page) before saying it is done, or say so without (too early),
// perhaps sending the password a moment after (later), while the client
// waits.
type reply struct {
	fields map[string]any
	action string // "decline" or "cancel"; "" accepts
	page   bool
	later  bool
}

// inspectorAsk is one request as the person saw it in mcpdo.
type inspectorAsk struct {
	form, message string
	defaults      map[string]any // the form's prefilled answers
}

// inspectorForm names a request by what it asks: the signup's account or
// team step, set_password's email, or a link.
func inspectorForm(mode string, schema map[string]any) string {
	props, _ := schema["properties"].(map[string]any)
	switch {
	case mode == "url":
		return "link"
	case props["team_name"] != nil:
		return "team"
	case props["plan"] != nil:
		return "account"
	case props["email"] != nil:
		return "email"
	}
	return "unknown"
}

// callTool calls tool on the connection and answers each request it parks
// on from script, by form, in turn, until the final result.
func (m *mcpdo) callTool(t *testing.T, conn, tool string, script map[string][]reply) (mcpdoOutput, []inspectorAsk) {
	t.Helper()
	script = maps.Clone(script) // the call uses up its copy
	var asked []inspectorAsk
	out := m.run(t, "--connection", conn, "tools/call", tool)
	for range 10 {
		var o mcpdoOutput
		require.NoError(t, json.Unmarshal(out, &o), "mcpdo printed:\n%s", out)
		if o.Pending == nil {
			return o, asked
		}
		p := o.Pending
		form := inspectorForm(p.Mode, p.Schema)
		defaults := map[string]any{}
		props, _ := p.Schema["properties"].(map[string]any)
		for name, prop := range props {
			if d, ok := prop.(map[string]any)["default"]; ok {
				defaults[name] = d
			}
		}
		asked = append(asked, inspectorAsk{form, p.Message, defaults})
		q := script[form]
		require.NotEmpty(t, q, "the script has no answer left for %s; mcpdo printed:\n%s", form, out)
		r := q[0]
		script[form] = q[1:]
		args := []string{"--connection", conn, "elicitation/respond", p.ID}
		switch {
		case r.action != "":
			args = append(args, "--"+r.action)
		case p.Mode == "url":
			if r.page {
				code, page := postPage(t, p.URL, secret)
				require.Equal(t, 200, code, "the page:\n%s", page)
			}
			if r.later {
				link := p.URL
				sent := make(chan struct{})
				defer func() { <-sent }()
				go func() {
					defer close(sent)
					time.Sleep(time.Second) // while mcpdo waits for the call
					code, page := postPage(t, link, secret)
					assert.Equal(t, 200, code, "the page:\n%s", page)
				}()
			}
			args = append(args, "--done")
		default:
			// A person leaves the prefilled answers as they are.
			answers := maps.Clone(defaults)
			for k, v := range r.fields {
				answers[k] = v
			}
			b, err := json.Marshal(answers)
			require.NoError(t, err)
			args = append(args, string(b))
		}
		out = m.run(t, args...)
	}
	t.Fatalf("no final result after 10 requests; asked %+v", asked)
	return mcpdoOutput{}, nil
}

// TestInspector runs signup and set_password under the MCP Inspector's
// mcpdo, over stdio and streamable HTTP, on 2026-07-28 and 2025-11-25:
// whole signups, a re-ask that keeps the other answers, a decline and a
// cancel, and a password set on the server's page.
func TestInspector(t *testing.T) {
	m := newMcpdo(t)
	bin := signupBin(t)
	var (
		adaPro   = map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro"}
		proText  = "Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan."
		teamText = `Signup complete: created ada@example.com on the Team plan for "Analytical Engines", 12 seats.`
		adaFree  = map[string]any{"email": "ada@example.com", "plan": "free"}
	)
	type call struct {
		tool       string
		script     map[string][]reply
		wantForms  []string
		wantStatus string
		wantText   string
		check      func(t *testing.T, asked []inspectorAsk)
	}
	for _, tt := range []struct {
		name  string
		calls []call
		want  map[string]account // the accounts the server holds after
		// versions are the revisions the case runs on; nil is both.
		versions []string
	}{
		{name: "pro", calls: []call{{
			tool: toolName, script: map[string][]reply{"account": {{fields: adaPro}}},
			wantForms: []string{"account"}, wantStatus: "created", wantText: proText,
		}}, want: map[string]account{"ada@example.com": {Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"}}},
		{name: "team in two rounds", calls: []call{{
			tool: toolName, script: map[string][]reply{"account": {{fields: adaTeam}}, "team": {{fields: engines}}},
			wantForms: []string{"account", "team"}, wantStatus: "created", wantText: teamText,
		}}, want: map[string]account{"ada@example.com": {Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12}}},
		{name: "bad email asked again", calls: []call{{
			tool: toolName,
			script: map[string][]reply{"account": {
				{fields: map[string]any{"email": "not an email", "full_name": "Ada Lovelace", "plan": "pro"}},
				{fields: map[string]any{"email": "ada@example.com"}}, // the rest as prefilled
			}},
			wantForms: []string{"account", "account"}, wantStatus: "created", wantText: proText,
			check: func(t *testing.T, asked []inspectorAsk) {
				assert.NotContains(t, asked[0].message, "Please check")
				assert.Contains(t, asked[1].message, "Email must be an email address, like name@example.com.")
				assert.Equal(t, "pro", asked[1].defaults["plan"], "the plan is kept")
				assert.Equal(t, "Ada Lovelace", asked[1].defaults["full_name"], "the name is kept")
			},
		}}, want: map[string]account{"ada@example.com": {Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"}}},
		{name: "decline", calls: []call{{
			tool: toolName, script: map[string][]reply{"account": {{action: "decline"}}},
			wantForms: []string{"account"}, wantStatus: "declined",
			wantText: "Signup not completed: you declined to give your account details. Nothing was created.",
		}}, want: map[string]account{}},
		{name: "cancel at the team step", calls: []call{{
			tool: toolName, script: map[string][]reply{"account": {{fields: adaTeam}}, "team": {{action: "cancel"}}},
			wantForms: []string{"account", "team"}, wantStatus: "cancelled",
			wantText: "Signup not completed: the form was cancelled before it was sent. Nothing was created.",
		}}, want: map[string]account{}},
		{name: "set_password in one visit", calls: []call{
			{tool: toolName, script: map[string][]reply{"account": {{fields: adaFree}}}, wantForms: []string{"account"}, wantStatus: "created",
				wantText: "Signup complete: created ada@example.com on the Free plan."},
			{
				tool: passwordTool,
				// The person sends the password on the page before saying
				// so: on 2025-11-25 the Inspector hears the page is done
				// (notifications/elicitation/complete), and the click
				// finds the call finished.
				script:    map[string][]reply{"email": {{fields: map[string]any{"email": "ada@example.com"}}}, "link": {{page: true}}},
				wantForms: []string{"email", "link"}, wantStatus: "updated", wantText: "Password set for ada@example.com.",
			},
		}, want: map[string]account{"ada@example.com": {Email: "ada@example.com", Plan: "free"}}},
		{name: "set_password done too early", calls: []call{
			{tool: toolName, script: map[string][]reply{"account": {{fields: adaFree}}}, wantForms: []string{"account"}, wantStatus: "created",
				wantText: "Signup complete: created ada@example.com on the Free plan."},
			{
				tool: passwordTool,
				// The person says they are done before opening the page,
				// then opens it, sends the password and says so again.
				script:    map[string][]reply{"email": {{fields: map[string]any{"email": "ada@example.com"}}}, "link": {{}, {page: true}}},
				wantForms: []string{"email", "link", "link"}, wantStatus: "updated", wantText: "Password set for ada@example.com.",
				check: func(t *testing.T, asked []inspectorAsk) {
					assert.NotContains(t, asked[1].message, "still waiting")
					assert.Contains(t, asked[2].message, "Check New password: the page for it is still waiting.")
				},
			},
		},
			want: map[string]account{"ada@example.com": {Email: "ada@example.com", Plan: "free"}},
			// On 2025-11-25, saying done is consent to the link: the
			// server waits for the page rather than asks again (below).
			versions: []string{modern},
		},
		{name: "set_password done too early, then the page", calls: []call{
			{tool: toolName, script: map[string][]reply{"account": {{fields: adaFree}}}, wantForms: []string{"account"}, wantStatus: "created",
				wantText: "Signup complete: created ada@example.com on the Free plan."},
			{
				tool: passwordTool,
				// The person says they are done before opening the page,
				// then sends the password there while the Inspector
				// waits: a 2025-11-25 client's accept is its consent to
				// the link, and the server waits for the page, then
				// finishes the call.
				script:    map[string][]reply{"email": {{fields: map[string]any{"email": "ada@example.com"}}}, "link": {{later: true}}},
				wantForms: []string{"email", "link"}, wantStatus: "updated", wantText: "Password set for ada@example.com.",
			},
		},
			want:     map[string]account{"ada@example.com": {Email: "ada@example.com", Plan: "free"}},
			versions: []string{legacy},
		},
	} {
		versions := tt.versions
		if versions == nil {
			versions = []string{modern, legacy}
		}
		for _, version := range versions {
			for _, transport := range []string{"stdio", "http"} {
				t.Run(tt.name+"/"+version+"/"+transport, func(t *testing.T) {
					// Each on a connection of its own, to a server of its
					// own: mcpdo's daemon serves them side by side.
					t.Parallel()
					era := map[string]string{modern: "modern", legacy: "legacy"}[version]
					db := filepath.Join(t.TempDir(), "signup.db")
					var server []string
					if transport == "http" {
						server = []string{startReplica(t, keyA, "-db", db).url}
					} else {
						server = []string{bin, "-stdio", "-db", db}
					}
					conn := strings.NewReplacer(" ", "-", "_", "-", "/", "-").Replace(tt.name + "-" + era + "-" + transport)
					require.Equal(t, version, m.connect(t, conn, era, server...), "negotiated revision")
					for _, c := range tt.calls {
						res, asked := m.callTool(t, conn, c.tool, c.script)
						var forms []string
						for _, a := range asked {
							forms = append(forms, a.form)
						}
						assert.Equal(t, c.wantForms, forms, "the requests mcpdo showed, in order")
						assert.Equal(t, c.wantText, res.said())
						assert.Equal(t, c.wantStatus, res.StructuredContent.Status)
						if c.check != nil && len(asked) == len(c.wantForms) {
							c.check(t, asked)
						}
					}
					assert.Equal(t, tt.want, accounts(t, "sqlite", db))
					if tt.calls[len(tt.calls)-1].tool == passwordTool {
						checkPasswordHash(t, "sqlite", db, "ada@example.com", secret)
					}
				})
			}
		}
	}
}

// inspectorBin is the Inspector's launcher, whose --cli mode lists tools.
const inspectorBin = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

// TestInspectorToolSchemas (issue 35, item 3): the Inspector's strict
// tools/list finds nothing to warn about in the example's tool schemas,
// which list what a caller may send, each with a type: the fields and
// the state only where the model may answer, and no field twice under
// its view's name.
func TestInspectorToolSchemas(t *testing.T) {
	node := testenv.Node(t)
	launcher := filepath.Join(testenv.InteropDir(t), inspectorBin)
	if _, err := os.Stat(launcher); err != nil {
		testenv.Missing(t, "Inspector test needs @modelcontextprotocol/inspector: run (cd interop && npm ci): %v", err)
	}
	bin := signupBin(t)
	for _, tt := range []struct {
		name string
		args []string
		want map[string][]string // tool -> its properties
	}{
		{"the model may answer", nil, map[string][]string{
			toolName:     {"email", "full_name", "plan", "team_name", "seats", "mcpform", "mcpformAction"},
			passwordTool: {"email", "mcpform", "mcpformAction"},
		}},
		{"forms and views only", []string{"-ask-model=false"}, map[string][]string{toolName: nil, passwordTool: nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := append([]string{launcher, "--cli", "--method", "tools/list", "--strict", "-e", keyEnv + "=" + keyA, bin, "-stdio"}, tt.args...)
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Env = append(environ(), "NO_COLOR=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "stderr:\n%s", stderr.String())
			assert.NotContains(t, stderr.String(), "Warning", "the Inspector's portability check warns")
			var list struct {
				Tools []struct {
					Name        string `json:"name"`
					InputSchema struct {
						Properties map[string]map[string]any `json:"properties"`
					} `json:"inputSchema"`
				} `json:"tools"`
			}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &list), "%s", stdout.String())
			got := map[string][]string{}
			for _, tool := range list.Tools {
				if _, ok := tt.want[tool.Name]; ok {
					got[tool.Name] = slices.Sorted(maps.Keys(tool.InputSchema.Properties))
				}
			}
			want := map[string][]string{}
			for name, props := range tt.want {
				want[name] = slices.Sorted(slices.Values(props))
			}
			assert.Equal(t, want, got)
		})
	}
}
