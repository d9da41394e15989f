package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		case sc["$prefab"] != nil:
			args = d.submitView(sc["view"], link)
			name = companionTool // a view submits through the app-only companion
			require.Equal(d.t, tool, args[toolArgument], "the companion reaches the tool that asked")
		case sc["arguments"] != nil:
			args = d.answerModel(sc, link)
		default:
			return res, nil
		}
	}
	d.t.Fatal("the flow did not finish")
	return nil, nil
}

// submitView fills the form of a flow's view as the person would, sending
// the page first when it links to one, and returns the arguments its
// submit calls the tool with.
func (d *hostDriver) submitView(view any, link string) map[string]any {
	if d.declines() {
		decline := findDecline(d.t, view)
		require.Equal(d.t, outcomeKey, decline["resultKey"], "the view keeps the outcome")
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
	require.Equal(d.t, outcomeKey, submit["resultKey"], "the view keeps the outcome")
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
// one button that calls the tool without submitting the form.
func findDecline(t *testing.T, view any) map[string]any {
	var found []map[string]any
	var walk func(any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
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

// TestFlowHosts finishes a team signup and a set_password on each kind of
// host, each the way it can be asked, and checks that the password never
// crosses the MCP wire.
func TestFlowHosts(t *testing.T) {
	const (
		modern = "2026-07-28"
		older  = "2025-11-25"
	)
	signupDone := "created ada@example.com on team for Analytical, 12 seats"
	passwordDone := fmt.Sprintf("password of ada@example.com set (%d characters)", len(hostSecret))
	for _, tt := range []struct {
		host           host
		model          bool
		signup, passwd []string // the trace of each; nil for -32021
	}{
		{host{name: "full", version: modern, form: true, url: true}, false,
			[]string{"form:email,plan", "form:seats,team_name"}, []string{"form:email", "url"}},
		{host{name: "CLI with forms", version: modern, form: true}, false,
			[]string{"form:email,plan", "form:seats,team_name"}, []string{"form:email", "link"}},
		{host{name: "older editor", version: older, form: true}, false,
			[]string{"form:email,plan", "form:seats,team_name"}, []string{"form:email", "link"}},
		{host{name: "Apps-only", version: older, apps: true}, false,
			[]string{"view:email,plan", "view:seats,team_name"}, []string{"view:email+link"}},
		{host{name: "Apps-only", version: modern, apps: true}, false,
			[]string{"view:email,plan", "view:seats,team_name"}, []string{"view:email+link"}},
		{host{name: "bare", version: modern}, true,
			[]string{"model:email,plan", "model:seats,team_name"}, []string{"model:email+link"}},
		{host{name: "bare, not opted in", version: modern}, false, nil, nil},
	} {
		t.Run(tt.host.name+" "+tt.host.version, func(t *testing.T) {
			h := newHostServer(t, tt.model)
			for _, c := range []struct {
				tool, want string
				trace      []string
			}{{"signup", signupDone, tt.signup}, {"set_password", passwordDone, tt.passwd}} {
				d := &hostDriver{t: t, h: h}
				cs := d.connect(tt.host)
				res, err := d.run(cs, c.tool)
				if c.trace == nil {
					var rpcErr *jsonrpc.Error
					require.ErrorAs(t, err, &rpcErr, "%s", c.tool)
					assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
					continue
				}
				require.NoError(t, err, c.tool)
				assert.Equal(t, c.want, res.Content[0].(*mcp.TextContent).Text, c.tool)
				assert.ElementsMatch(t, c.trace, d.trace, c.tool)
				for _, w := range d.wire {
					assert.NotContains(t, w, hostSecret, "the password is on the MCP wire")
				}
			}
		})
	}
}

// TestFlowDeclineHosts declines a question on each kind of host, the way
// it was asked: natively, with an Apps view's Decline button, or as the
// model reports it through the contract's decline. Each ends the flow as
// FlowDeclined, naming the step, with the answers proven before it, as a
// native decline does.
func TestFlowDeclineHosts(t *testing.T) {
	full := host{name: "full", version: "2026-07-28", form: true, url: true}
	cli := host{name: "CLI with forms", version: "2026-07-28", form: true}
	editor := host{name: "older editor", version: "2025-11-25", form: true}
	appsOld := host{name: "Apps-only", version: "2025-11-25", apps: true}
	appsNew := host{name: "Apps-only", version: "2026-07-28", apps: true}
	bare := host{name: "bare", version: "2026-07-28"}
	const (
		team    = "declined team map[email:ada@example.com plan:team]"
		account = "declined account map[]"
	)
	for _, tt := range []struct {
		host      host
		tool      string
		declineAt int
		want      string
		trace     []string
	}{
		{full, "signup", 2, team, []string{"form:email,plan", "form:decline"}},
		{editor, "signup", 2, team, []string{"form:email,plan", "form:decline"}},
		{appsOld, "signup", 2, team, []string{"view:email,plan", "view:decline"}},
		{appsNew, "signup", 2, team, []string{"view:email,plan", "view:decline"}},
		{bare, "signup", 2, team, []string{"model:email,plan", "model:decline"}},
		{appsOld, "signup", 1, account, []string{"view:decline"}},
		{appsNew, "signup", 1, account, []string{"view:decline"}},
		{bare, "signup", 1, account, []string{"model:decline"}},
		{cli, "set_password", 2, "declined password map[email:ada@example.com]", []string{"form:email", "model:decline"}},
		{appsNew, "set_password", 1, "declined password map[]", []string{"view:decline"}},
		{appsOld, "set_password", 1, "declined password map[]", []string{"view:decline"}},
		{bare, "set_password", 1, "declined password map[]", []string{"model:decline"}},
	} {
		t.Run(fmt.Sprintf("%s %s %s %d", tt.host.name, tt.host.version, tt.tool, tt.declineAt), func(t *testing.T) {
			d := &hostDriver{t: t, h: newHostServer(t, tt.host == bare), declineAt: tt.declineAt}
			res, err := d.run(d.connect(tt.host), tt.tool)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, tt.trace, d.trace)
			_, ok := d.h.done.Load(tt.tool)
			assert.False(t, ok, "nothing was done")
		})
	}
}

// appsMeta is the per-request _meta of a 2026-07-28 host that renders MCP
// Apps and answers no form; bareMeta that of one that declared nothing.
func appsMeta() mcp.Meta {
	return mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{
		AppsExtension: map[string]any{"mimeTypes": []any{AppMIMEType}}}}}
}

func bareMeta() mcp.Meta { return mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}} }

// argsCall is a call whose arguments are args, from principal's host
// declaring meta.
func argsCall(t testing.TB, meta mcp.Meta, principal, tool string, args map[string]any) *mcp.CallToolRequest {
	req := directCall(t, meta, principal, tool, args)
	if form, _ := elicitationModes(req); !form && appsDeclared(req) {
		req.Params.Meta = maps.Clone(meta)
		req.Params.Meta[companionMetaKey] = theViewMark // a view's submit, through the companion
	}
	return req
}

// directCall is argsCall as the model sends it: a call of the tool
// itself, never through the view's companion.
func directCall(t testing.TB, meta mcp.Meta, principal, tool string, args map[string]any) *mcp.CallToolRequest {
	req := callAs(principal, tool, "", nil)
	req.Params.Meta = meta
	if args != nil {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		req.Params.Arguments = raw
	}
	return req
}

// carried returns the state an asking round carries, in whichever place
// its path puts it.
func carried(t testing.TB, r *FlowRound) string {
	t.Helper()
	require.Equal(t, FlowAsk, r.Status)
	if r.Result.RequestState != "" {
		return r.Result.RequestState
	}
	var c struct {
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &c))
	s, _ := c.Arguments[StateArgument].(string)
	require.NotEmpty(t, s, "no state in the arguments")
	return s
}

// A pathCall is one round of the account step, to be sent on any path.
type pathCall struct {
	principal, tool, state string
	extra, answers         map[string]any // the tool's own arguments; the account answers
}

// roundOutcome is what a round came to, in terms every path shares.
type roundOutcome struct {
	Code     int64 // of a JSON-RPC error
	Status   FlowStatus
	Step     string
	Problems []string
	id       string // the run's, compared only between replays
}

func outcomeOf(r *FlowRound, err error) roundOutcome {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return roundOutcome{Code: rpcErr.Code}
	}
	if err != nil {
		return roundOutcome{Code: -1}
	}
	o := roundOutcome{Status: r.Status, Step: r.Step, id: r.ID}
	for _, p := range r.Problems {
		o.Problems = append(o.Problems, p.Field)
	}
	return o
}

// TestFlowArgumentsHostile sends the same hostile second round natively,
// through an Apps view's arguments and through the model's, and wants the
// same outcome on each: a forged, misbound or replayed state, answers
// outside the schema, extra arguments. None finishes the flow.
func TestFlowArgumentsHostile(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	good := map[string]any{"email": "ada@example.com", "plan": "pro"}
	paths := []struct {
		name string
		flow *Flow
		meta mcp.Meta
	}{{"native", flow, formCaps()}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}}
	send := func(t *testing.T, path int, c pathCall) roundOutcome {
		p := paths[path]
		if p.name == "native" {
			req := callAs(c.principal, c.tool, c.state, map[string]any{"account": c.answers})
			if c.extra != nil {
				raw, _ := json.Marshal(c.extra)
				req.Params.Arguments = raw
			}
			return outcomeOf(p.flow.Next(context.Background(), req))
		}
		args := map[string]any{StateArgument: c.state}
		for k, v := range c.extra {
			args[k] = v
		}
		for k, v := range c.answers {
			args[k] = v
		}
		return outcomeOf(p.flow.Next(context.Background(), argsCall(t, p.meta, c.principal, c.tool, args)))
	}
	forge := func(s string) string {
		return s[:len(s)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(s, "AA")]
	}
	badState := roundOutcome{Code: -32602}
	for _, tt := range []struct {
		name   string
		call   func(state string) pathCall
		want   roundOutcome
		finish bool // and a replay of the call finishes with the same ID
	}{
		{"a good answer", func(s string) pathCall { return pathCall{"alice", "signup", s, nil, good} },
			roundOutcome{Status: FlowDone}, true},
		{"a forged state", func(s string) pathCall { return pathCall{"alice", "signup", forge(s), nil, good} }, badState, false},
		{"a state that is no token", func(s string) pathCall { return pathCall{"alice", "signup", "v1.e30.AAAA", nil, good} }, badState, false},
		{"another person's state", func(s string) pathCall { return pathCall{"mallory", "signup", s, nil, good} }, badState, false},
		{"another tool's state", func(s string) pathCall { return pathCall{"alice", "delete_account", s, nil, good} }, badState, false},
		{"an extra argument", func(s string) pathCall {
			return pathCall{"alice", "signup", s, map[string]any{"admin": true}, good}
		}, badState, false},
		{"an answer outside the schema", func(s string) pathCall {
			return pathCall{"alice", "signup", s, nil, map[string]any{"email": "ada@example.com", "plan": "gold"}}
		}, roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{"plan"}}, false},
		{"a missing required answer", func(s string) pathCall {
			return pathCall{"alice", "signup", s, nil, map[string]any{"plan": "pro"}}
		}, roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{"email"}}, false},
		{"a wrong type", func(s string) pathCall {
			return pathCall{"alice", "signup", s, nil, map[string]any{"email": 42.0, "plan": "pro"}}
		}, roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{"email"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i, p := range paths {
				r, err := p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", nil))
				require.NoError(t, err, p.name)
				c := tt.call(carried(t, r))
				got := send(t, i, c)
				if got.Code == 0 {
					assert.Equal(t, r.ID, got.id, "%s: the run's ID", p.name)
				}
				got.id = ""
				assert.Equal(t, tt.want, got, p.name)
				if tt.finish {
					again := send(t, i, c)
					assert.Equal(t, r.ID, again.id, "%s: a replay has the run's ID", p.name)
				}
			}
		})
	}
}

// FuzzFlowArguments sends arbitrary arguments as the second round of a
// flow asked in an Apps view (apps) or through the model, "STATE" in them
// standing for the state the first round gave. It checks that a round
// never panics, that the arguments decode as encoding/json decodes them,
// numbers as written, and are bound to the same digest, and that nothing outside the schema
// is ever proven.
func FuzzFlowArguments(f *testing.F) {
	for _, s := range []string{
		`{"mcpform":"STATE","email":"ada@example.com","plan":"team"}`,
		`{"mcpform":"STATE","email":"ada@example.com","plan":"pro","extra":{"nested":[1,{"a":null}]}}`,
		`{"mcpform":"STATE","email":"not an email","plan":"gold"}`,
		`{"mcpform":"STATE","email":["ada@example.com"],"plan":1e999}`,
		`{"mcpform":"STATE","mcpform":"other","email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":42,"email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"STATE","team_name":"x","teamName":"y","seats":"12"}`,
		`{"mcpform":"STATE","mcpformAction":"decline","email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"STATE","mcpformAction":"accept","email":"ada@example.com","plan":"pro"}`,
		`{"mcpformAction":"decline"}`,
		`{"mcpform":"STATE","email":"ada@example.com\u0000","plan":"pro"} `,
		`["mcpform","STATE"]`, `null`, `{`, `{"mcpform":"STATE","email":"\ud800","plan":"pro"}`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	flow, codec, _ := newFlowFixture(f)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(f, err)
	first := map[bool]string{}
	for apps, fl := range map[bool]*Flow{true: flow, false: model} {
		r, err := fl.Next(context.Background(), argsCall(f, map[bool]mcp.Meta{true: appsMeta(), false: bareMeta()}[apps], "alice", "signup", nil))
		require.NoError(f, err)
		first[apps] = carried(f, r)
	}
	f.Fuzz(func(t *testing.T, data []byte, apps bool) {
		fl, meta := model, bareMeta()
		if apps {
			fl, meta = flow, appsMeta()
		}
		raw := bytes.ReplaceAll(data, []byte("STATE"), []byte(first[apps]))

		// The reference: encoding/json with numbers as written, and the
		// digest of what is left.
		got, err := callArguments(raw, fl.own)
		if len(bytes.TrimSpace(raw)) > 0 && (err == nil) != json.Valid(raw) {
			t.Fatalf("callArguments error %v, json.Valid %v", err, json.Valid(raw))
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var ref any
		if err == nil && dec.Decode(&ref) == nil {
			if m, ok := ref.(map[string]any); ok {
				for k := range m {
					if fl.own[k] {
						delete(m, k)
					}
				}
				b, _ := json.Marshal(m)
				want, _ := argumentsDigest(b)
				if got.digest != want {
					t.Fatalf("digest %s of %s, want %s", got.digest, raw, want)
				}
			}
		}

		req := argsCall(t, meta, "alice", "signup", nil)
		req.Params.Arguments = raw
		r, err := fl.Next(context.Background(), req)
		if err != nil {
			return
		}
		if _, ok := r.Answers["email"]; ok || r.Status == FlowDone {
			if _, ok := AcceptedFormInput(mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "accept", Content: r.Answers}}, "account", accountStep.Fields); !ok {
				t.Fatalf("%s proved %v, which the account step refuses", raw, r.Answers)
			}
		}
	})
}

// TestFlowView checks what prefab's renderer is given on the Apps path:
// the submit and the Decline button keep the tool's result and show no
// toast, the outcome replaces the form once a result carries no view, each
// view clears the last outcome, and a re-ask names the problem and keeps
// the good values.
func TestFlowView(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	r, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	var w map[string]any
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	assert.Equal(t, map[string]any{outcomeKey: nil}, w["state"], "a view clears the last outcome")
	root := w["view"].(map[string]any)["children"].([]any)
	require.Len(t, root, 2)
	panel := map[string]any{"type": "Column", "cssClass": "p-6 max-w-2xl gap-3 " + outcomePanelClass, "children": []any{
		map[string]any{"type": "If", "condition": outcomeKey + ".isError", "children": []any{
			map[string]any{"type": "Heading", "content": "Not completed", "level": 1.0}}},
		map[string]any{"type": "Else", "children": []any{map[string]any{"type": "Heading", "content": "Finished", "level": 1.0}}},
		map[string]any{"type": "Text", "cssClass": outcomeClass, "content": "{{ mcpformResult.content.0.text }}"},
		map[string]any{"type": "If", "condition": outcomeKey + ".content.1.text", "children": []any{
			map[string]any{"type": "Text", "cssClass": "hidden " + outcomeModelClass, "content": "{{ mcpformResult.content.1.text }}"}}},
	}}
	assert.Equal(t, map[string]any{"type": "If", "condition": outcomeKey, "children": []any{panel}}, root[0],
		"the outcome: a heading, the text for the person, and the text for the model, hidden")
	assert.Equal(t, "Else", root[1].(map[string]any)["type"])
	submit := findSubmit(t, root[1])
	assert.Equal(t, outcomeKey, submit["resultKey"])
	assert.Nil(t, submit["onSuccess"], "a toast would show for an error too")
	assert.Equal(t, companionTool, submit["tool"], "a view submits to the app-only companion")
	state := carried(t, r)
	assert.Equal(t, map[string]any{"email": "{{ email }}", "plan": "{{ plan }}", StateArgument: state, toolArgument: "signup"}, submit["arguments"])
	assert.Equal(t, map[string]any{StateArgument: state}, w["arguments"])
	assert.Equal(t, map[string]any{"action": "toolCall", "tool": companionTool, "resultKey": outcomeKey,
		"arguments": map[string]any{StateArgument: state, actionArgument: declineAction, toolArgument: "signup"},
		"onError":   map[string]any{"action": "showToast", "message": defaultErrorMessage, "variant": "error"},
	}, findDecline(t, root[1]), "Decline sends the state and the action alone, and keeps the outcome")

	again, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: state, "email": "ada", "plan": "pro"}))
	require.NoError(t, err)
	view := wireJSON(t, again.Result.StructuredContent)
	assert.Contains(t, view, `"type":"AlertDescription","content":"Enter an email address like name@example.com"`, "the re-ask's summary says how to fix it")
	assert.Contains(t, view, `"type":"FieldError","content":"Enter an email address like name@example.com"`, "and so does the field")
	assert.Contains(t, view, `"name":"plan","value":"pro"`, "the good value is kept")
	assert.NotContains(t, view, `"value":"ada"`, "the refused value is not")
}

// TestFlowModelConfirmation: a step with a boolean field, a confirmation,
// is never asked through the model, even opted in, while the steps before
// it are.
func TestFlowModelConfirmation(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	confirm := Step{Key: "confirm", Message: "Delete the account?", Fields: []AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}}}
	flow, err := NewFlow(codec, []Step{accountStep, confirm}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "delete", nil))
	require.NoError(t, err)
	assert.Equal(t, "account", r.Step, "the account step goes through the model")
	_, err = flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "delete", map[string]any{
		StateArgument: carried(t, r), "email": "ada@example.com", "plan": "pro", "sure": true}))
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "the confirmation fails closed")
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
}

// TestFlowArgumentsDecline sends a decline natively, through an Apps
// view's arguments and through the model's, at each step, and wants the
// same round on each: FlowDeclined naming the step, with the answers
// proven before it. Any other value of the action argument is judged as a
// native answer with an unknown action: asked again, naming the problem.
func TestFlowArgumentsDecline(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	account := map[string]any{"email": "ada@example.com", "plan": "team"}
	type path struct {
		name string
		flow *Flow
		meta mcp.Meta
	}
	paths := []path{{"native", flow, formCaps()}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}}
	// send answers step natively with native, or through the arguments
	// with args beside the state.
	send := func(t *testing.T, p path, state, step string, native any, args map[string]any) (*FlowRound, error) {
		if p.name == "native" {
			return p.flow.Next(context.Background(), callAs("alice", "signup", state, map[string]any{step: native}))
		}
		a := map[string]any{StateArgument: state}
		for k, v := range args {
			a[k] = v
		}
		return p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", a))
	}
	begin := func(t *testing.T, p path) *FlowRound {
		r, err := p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", nil))
		require.NoError(t, err)
		return r
	}
	decline := map[string]any{actionArgument: declineAction}
	shared := func(r *FlowRound, err error) roundOutcome { // the run's ID is checked apart
		o := outcomeOf(r, err)
		o.id = ""
		return o
	}

	t.Run("each step", func(t *testing.T) {
		for _, p := range paths {
			first := begin(t, p)
			r, err := send(t, p, carried(t, first), "account", "decline", decline)
			require.NoError(t, err, p.name)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "account"}, shared(r, err), p.name)
			assert.Equal(t, first.ID, r.ID, p.name)
			assert.Empty(t, r.Answers, p.name)

			second, err := send(t, p, carried(t, first), "account", account, account)
			require.NoError(t, err, p.name)
			require.Equal(t, "team", second.Step, p.name)
			r, err = send(t, p, carried(t, second), "team", "decline", decline)
			require.NoError(t, err, p.name)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "team"}, shared(r, err), p.name)
			assert.Equal(t, first.ID, r.ID, p.name)
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers, p.name)
		}
	})

	t.Run("a decline with answers is a decline", func(t *testing.T) {
		for _, p := range paths[1:] {
			args := map[string]any{actionArgument: declineAction, "email": "ada@example.com", "plan": "pro"}
			r, err := send(t, p, carried(t, begin(t, p)), "", nil, args)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "account"}, shared(r, err), p.name)
		}
	})

	t.Run("a decline with a forged state is refused", func(t *testing.T) {
		for _, p := range paths[1:] {
			s := carried(t, begin(t, p))
			r, err := send(t, p, s[:len(s)-4]+"AAAA", "", nil, decline)
			assert.Equal(t, roundOutcome{Code: -32602}, shared(r, err), p.name)
		}
	})

	reasked := roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{""}}
	t.Run("a native unknown action", func(t *testing.T) {
		p := paths[0]
		r, err := send(t, p, carried(t, begin(t, p)), "account", "bogus", nil)
		assert.Equal(t, reasked, shared(r, err))
	})
	for _, bad := range []any{"accept", "Decline", "cancel", "", 1.0, true, nil, map[string]any{"action": "decline"}, []any{"decline"}} {
		t.Run(fmt.Sprintf("action %#v", bad), func(t *testing.T) {
			for _, p := range paths[1:] {
				args := map[string]any{actionArgument: bad, "email": "ada@example.com", "plan": "pro"}
				r, err := send(t, p, carried(t, begin(t, p)), "", nil, args)
				assert.Equal(t, reasked, shared(r, err), p.name)
				require.NoError(t, err)
				assert.Equal(t, 1, r.Attempt, "%s: a re-ask, counted", p.name)
				assert.Contains(t, wireJSON(t, r.Result), actionArgument, "%s: the re-ask names the problem", p.name)
			}
		})
	}
}

// TestFlowArgumentsDeclineOnce declines through a view's and the model's
// arguments with Outcomes set: a replay of the decline, and one that
// answers instead, get the first outcome, and nothing is created.
func TestFlowArgumentsDeclineOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		_, codec, _ := newFlowFixture(t)
		s, _ := d.store(t, d.tables(t))
		flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: s, AskModel: true})
		require.NoError(t, err)
		for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
			r, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", nil))
			require.NoError(t, err)
			state := carried(t, r)
			var calls int
			for i, args := range []map[string]any{
				{StateArgument: state, actionArgument: declineAction},
				{StateArgument: state, actionArgument: declineAction},
				{StateArgument: state, "email": "ada@example.com", "plan": "pro"},
			} {
				round, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", args))
				require.NoError(t, err)
				require.NotEqual(t, FlowAsk, round.Status, "round %d", i)
				assert.Equal(t, r.ID, round.ID)
				res, err := round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
					calls++
					if round.Status == FlowDone {
						return outcome("created"), nil
					}
					return outcome("Signup not completed: you declined " + round.Step), nil
				})
				require.NoError(t, err)
				assert.Equal(t, "Signup not completed: you declined account", textOf(res), "round %d", i)
			}
			assert.Equal(t, 1, calls, "the decline's outcome alone was made")
		}
	})
}

// TestMintedTokenIsJSONText shows what sendBack relies on to write a token
// without escaping it: every token a codec mints, signed or sealed, bound
// or not, whatever its payload, is base64url text and dots.
func TestMintedTokenIsJSONText(t *testing.T) {
	payloads := []any{nil, "", `"\<>&` + "\u2028\x00", map[string]any{"a": []any{1.5, true, "é"}}}
	for _, seal := range []bool{false, true} {
		for _, bind := range []bool{false, true} {
			codec, err := NewRequestStateCodec(RequestStateOptions{
				Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Seal: seal, Bind: bind})
			require.NoError(t, err)
			for _, p := range payloads {
				b := ""
				if bind {
					b = `tool"\` + "\n"
				}
				tok, err := codec.Mint(p, b)
				require.NoError(t, err)
				for i := 0; i < len(tok); i++ {
					c := tok[i]
					if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
						t.Fatalf("seal=%v bind=%v: token %q has %q at %d", seal, bind, tok, c, i)
					}
				}
				r := &round{args: callArgs{rest: []byte(`"x":1`)}}
				var back map[string]any
				require.NoError(t, json.Unmarshal(r.sendBack(tok), &back))
				assert.Equal(t, map[string]any{"x": 1.0, StateArgument: tok}, back)
			}
		}
	}
}
