package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// update rewrites golden files instead of comparing against them.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// checkGolden compares got with the golden file at path, or rewrites the file
// when -update is set.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	assert.Equal(t, string(want), string(got), "%s differs from the golden file (-want +got); run go test -update to accept", path)
}

// interopDir is where .ci/run installs the pinned TypeScript peers.
const interopDir = "interop"

// needNode returns the path of node, once the interop folder's peers are
// installed. A missing peer skips the test, or fails it under CI; see
// internal/testenv.
func needNode(t *testing.T) (node string) {
	t.Helper()
	return testenv.Node(t)
}

// missingPeer reports a missing peer, named by the message: outside CI it
// skips the test, and under CI (CI set) it fails it.
func missingPeer(t *testing.T, format string, args ...any) {
	t.Helper()
	testenv.Missing(t, format, args...)
}

// runNode runs an interop script with stdin and returns its stdout. The
// script's stderr is reported on failure.
func runNode(t *testing.T, script string, stdin []byte, args ...string) []byte {
	t.Helper()
	node := needNode(t)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = interopDir
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.Bytes())
	}
	return out
}

// wireJSON returns a requested schema as it goes on the wire, whatever Go
// value holds it.
func wireJSON(t testing.TB, schema any) string {
	t.Helper()
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	return string(b)
}

// connectClient connects client to server in memory at protocol version
// ("" negotiates the latest), closing both sessions when the test ends.
func connectClient(t testing.TB, server *mcp.Server, client *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, ct, opts)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The password the person types on the secret page in the host tests. It
// must never be on the MCP wire.
const hostSecret = "correct horse battery"

// hostServer serves signup (account, then team when the plan is team) and
// set_password (an email in a form, the password on the page) as one
// handler each, the way the README writes one: a switch over the round.
type hostServer struct {
	server *mcp.Server
	page   *httptest.Server
	done   sync.Map // tool → count of FlowDone rounds
}

func newHostServer(t *testing.T, model bool) *hostServer {
	t.Helper()
	_, codec, _ := newFlowFixture(t)
	h := &hostServer{}
	var pageHandler http.Handler
	h.page = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pageHandler.ServeHTTP(w, r) }))
	t.Cleanup(h.page.Close)
	signup, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true, AskModel: model})
	require.NoError(t, err)
	password, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{EveryCallerIsSamePerson: true, AskModel: model,
		Secrets: &SecretOptions{PageURL: h.page.URL + "/secret", Store: NewMemorySecretStore()}})
	require.NoError(t, err)
	pageHandler, err = password.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)

	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(AppsExtension, nil)
	h.server = mcp.NewServer(&mcp.Implementation{Name: "hosts", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	AddLegacyRounds(h.server, nil)
	require.NoError(t, AddViewer(h.server, nil))
	for name, flow := range map[string]*Flow{"signup": signup, "set_password": password} {
		tool := &mcp.Tool{Name: name, InputSchema: flow.InputSchema(nil)}
		require.NoError(t, AttachViewer(tool, nil)) // the companion reaches no other tool
		h.server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := flow.Next(context.Background(), req)
			if err != nil {
				return nil, err
			}
			switch r.Status {
			case FlowAsk:
				return r.Result, nil
			case FlowDone:
				n, _ := h.done.LoadOrStore(name+r.ID, new(int))
				*n.(*int)++
				msg := fmt.Sprintf("created %v on %v", r.Answers["email"], r.Answers["plan"])
				if r.Answers["team_name"] != nil {
					msg += fmt.Sprintf(" for %v, %v seats", r.Answers["team_name"], r.Answers["seats"])
				}
				if p, ok := r.Answers["password"].(string); ok {
					msg = fmt.Sprintf("password of %v set (%d characters)", r.Answers["email"], len(p))
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
			msg := fmt.Sprintf("%v %s %v", r.Status, r.Step, r.Answers)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}, nil
		})
	}
	return h
}

// hostAnswers are the person's answers, as JSON values.
var hostAnswers = map[string]any{"email": "ada@example.com", "plan": "team", "team_name": "Analytical", "seats": 12.0}

// A host is a client declaring exactly one host's capabilities.
type host struct {
	name, version string
	form, url     bool // form and URL-mode elicitation
	apps          bool
}

// hostDriver plays the person, and the model where one reads the results: it
// answers each way of asking it is given and records it in trace.
type hostDriver struct {
	t         *testing.T
	h         *hostServer
	mu        sync.Mutex
	trace     []string
	wire      []string // every result, as JSON
	declineAt int      // the person declines the declineAt-th question; 0 never
}

// declines reports whether the person declines the question now asked.
func (d *hostDriver) declines() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.declineAt == len(d.trace)+1
}

func (d *hostDriver) note(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.trace = append(d.trace, s)
}

// sendPage posts the password on the page of link, as the person's
// browser does.
func (d *hostDriver) sendPage(link string) {
	require.Equal(d.t, http.StatusOK, send(d.t, link, hostSecret))
}

func (d *hostDriver) connect(hs host) *mcp.ClientSession {
	caps := &mcp.ClientCapabilities{}
	if hs.form || hs.url {
		caps.Elicitation = &mcp.ElicitationCapabilities{}
		if hs.form {
			caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
		if hs.url {
			caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	if hs.apps {
		caps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
	}
	opts := &mcp.ClientOptions{Capabilities: caps}
	if hs.form || hs.url {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if d.declines() {
				d.note(req.Params.Mode + ":decline")
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			if req.Params.Mode == "url" {
				d.note("url")
				d.sendPage(req.Params.URL)
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			props := properties(d.t, req.Params.RequestedSchema)
			d.note("form:" + strings.Join(props, ","))
			content := map[string]any{}
			for _, p := range props {
				content[p] = hostAnswers[p]
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		}
	}
	return connectClient(d.t, d.h.server, mcp.NewClient(&mcp.Implementation{Name: hs.name, Version: "v0"}, opts), hs.version)
}

// properties returns the sorted property names of a requested schema.
func properties(t *testing.T, schema any) []string {
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, schema)), &s))
	var out []string
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// run calls tool until it returns a result that asks nothing more, and
// returns that result; err is a JSON-RPC error of a call.
func (d *hostDriver) run(cs *mcp.ClientSession, tool string) (*mcp.CallToolResult, error) {
	args, name := map[string]any{}, tool
	for range 6 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		d.wire = append(d.wire, wireJSON(d.t, res))
		var sc map[string]any
		require.NoError(d.t, json.Unmarshal([]byte(wireJSON(d.t, res.StructuredContent)), &sc))
		link, _ := sc["url"].(string)
		name = tool
		switch {
		case shownResult(d.t, sc) != nil: // the view of the tool's last result
			last := shownResult(d.t, sc)
			assert.Equal(d.t, res.Content, last.Content, "the view's result says what the tool's does")
			return last, nil
		case sc["$prefab"] != nil:
			args = d.submitView(sc["view"], link)
			name = prefab.CompanionTool // a view submits through the app-only companion
			require.Equal(d.t, tool, args[prefab.ToolArgument], "the companion reaches the tool that asked")
		case sc["arguments"] != nil:
			args = d.answerModel(sc, link)
		default:
			return res, nil
		}
	}
	d.t.Fatal("the flow did not finish")
	return nil, nil
}

// shownResult returns the tool's last result that sc, a result's
// structuredContent, shows, when it is the view the companion gives that
// result: the result, under the outcome key of the view's state. It
// returns nil for any other.
func shownResult(t *testing.T, sc map[string]any) *mcp.CallToolResult {
	t.Helper()
	state, _ := sc["state"].(map[string]any)
	if sc["$prefab"] == nil || state[prefab.OutcomeKey] == nil {
		return nil
	}
	var last mcp.CallToolResult
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, state[prefab.OutcomeKey])), &last))
	return &last
}

// submitView fills the form of a flow's view as the person would, sending
// the page first when it links to one, and returns the arguments its
// submit calls the tool with.
func (d *hostDriver) submitView(view any, link string) map[string]any {
	if d.declines() {
		decline := findDecline(d.t, view)
		require.Equal(d.t, prefab.OutcomeKey, decline["resultKey"], "the view keeps the outcome")
		d.note("view:decline")
		return decline["arguments"].(map[string]any)
	}
	submit := findSubmit(d.t, view)
	args := map[string]any{}
	var fields []string
	for k, v := range submit["arguments"].(map[string]any) {
		s, _ := v.(string)
		name, isTemplate := strings.CutPrefix(s, "{{ ")
		if !isTemplate {
			args[k] = v
			continue
		}
		name = strings.TrimSuffix(name, " }}")
		fields = append(fields, name)
		args[k] = browserValue(hostAnswers[name])
	}
	slices.Sort(fields)
	trace := "view:" + strings.Join(fields, ",")
	if link != "" {
		trace += "+link"
		d.sendPage(link)
	}
	d.note(trace)
	require.Equal(d.t, prefab.OutcomeKey, submit["resultKey"], "the view keeps the outcome")
	return args
}

// browserValue is v as an input sends it: numbers as text.
func browserValue(v any) any {
	if f, ok := v.(float64); ok {
		return fmt.Sprint(f)
	}
	return v
}

// findSubmit returns the toolCall of the form in a view.
func findSubmit(t *testing.T, view any) map[string]any {
	var found map[string]any
	var walk func(any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if m["type"] == "Form" {
			found = m["onSubmit"].(map[string]any)
		}
		assert.NotEqual(t, "password", m["name"], "a secret field is on a view")
		children, _ := m["children"].([]any)
		for _, c := range children {
			walk(c)
		}
	}
	walk(view)
	require.NotNil(t, found, "no form in the view")
	return found
}

// findDecline returns the toolCall of the Decline button in a view: the
// one button of its step, outside the outcome's Start again, that calls
// the tool without submitting the form.
func findDecline(t *testing.T, view any) map[string]any {
	var found []map[string]any
	var walk func(any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok || m["type"] == "If" && m["condition"] == prefab.OutcomeKey {
			return
		}
		if a, ok := m["onClick"].(map[string]any); ok && m["type"] == "Button" && m["submit"] == nil {
			found = append(found, a)
		}
		children, _ := m["children"].([]any)
		for _, c := range children {
			walk(c)
		}
	}
	walk(view)
	require.Len(t, found, 1, "one Decline button in the view")
	return found[0]
}

// answerModel does what the model is asked: collect the answers the
// schema names, give the person the link, and call again; or, when the
// person declines, send the arguments with the contract's decline.
func (d *hostDriver) answerModel(sc map[string]any, link string) map[string]any {
	args := sc["arguments"].(map[string]any)
	if d.declines() {
		decline, ok := sc["decline"].(map[string]any)
		require.True(d.t, ok, "the contract says how to report a decline")
		for k, v := range decline {
			args[k] = v
		}
		d.note("model:decline")
		return args
	}
	trace := "link"
	if schema, ok := sc["requestedSchema"]; ok {
		props := properties(d.t, schema)
		for _, p := range props {
			args[p] = hostAnswers[p]
		}
		trace = "model:" + strings.Join(props, ",")
		if link != "" {
			trace += "+link"
		}
	}
	if link != "" {
		d.sendPage(link)
	}
	d.note(trace)
	return args
}
