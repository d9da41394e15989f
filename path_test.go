package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The four kinds of host a path test runs on: native (2026-07-28 forms),
// legacy (2025-11-25 forms, through go-sdk's bridge), view (MCP Apps, no
// form) and model (nothing declared).
var pathHosts = []host{
	{name: "native", version: "2026-07-28", form: true},
	{name: "legacy", version: "2025-11-25", form: true},
	{name: "view", version: "2026-07-28", apps: true},
	{name: "model", version: "2026-07-28"},
}

// readmeServer serves the README's handler on a form without keys, as
// examples/minimal does, recording the accepted answers.
func readmeServer(t *testing.T) (*mcp.Server, *[]string) {
	form, err := NewForm[Answers](signupFieldsBase, &FormOptions{Key: "signup", Message: "Create your account"})
	require.NoError(t, err)
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "minimal", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	require.NoError(t, AddViewer(server, nil))
	var created []string
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reply := form.ReadCall(req)
			switch reply.Status {
			case ReplyNone:
				return form.Ask(req, "")
			case ReplyInvalid:
				return form.Reask(reply, ""), nil
			case ReplyAccepted:
				created = append(created, fmt.Sprint(reply.Value["email"]))
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "created"}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reply.Status.String()}}}, nil
		})
	return server, &created
}

// signupFieldsBase is the README form's fields.
var signupFieldsBase = []AutoFormField{
	{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
	{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
}

// TestFinding1ArgumentsWithoutState: the README's handler, on each kind of
// host, is called first with the answers and the key "mcpform" in its
// arguments, holding any value. Nobody was asked, so nothing is created:
// the person is asked, natively, or the call is refused.
func TestFinding1ArgumentsWithoutState(t *testing.T) {
	for _, hs := range pathHosts {
		for _, state := range []any{"", "x", 1.0, nil, map[string]any{}, true} {
			t.Run(fmt.Sprintf("%s %v", hs.name, state), func(t *testing.T) {
				server, created := readmeServer(t)
				asked := 0
				caps := &mcp.ClientCapabilities{}
				opts := &mcp.ClientOptions{Capabilities: caps}
				if hs.form {
					caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
					opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked++
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "team"}}, nil
					}
				}
				if hs.apps {
					caps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
				}
				cs := connectClient(t, server, mcp.NewClient(&mcp.Implementation{Name: hs.name, Version: "v0"}, opts), hs.version)
				forged := map[string]any{StateArgument: state, "email": "victim@example.com", "plan": "pro", "seats": 50}
				_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup", Arguments: forged})
				if hs.form {
					assert.Equal(t, []string{"ada@example.com"}, *created, "only the person's answer is taken")
					assert.Equal(t, 1, asked, "the person is asked")
				} else {
					assert.Empty(t, *created, "nobody was asked, so nothing is taken")
				}
			})
		}
	}
}

// TestFinding2ModelSubmitsView: on an MCP Apps host, the model calls the
// tool itself with a view's state and answers. The state was minted for
// the view, whose submit comes through the app-only companion: the call
// is refused with -32602, and nothing is done.
func TestFinding2ModelSubmitsView(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	// The in-process client authenticates no one: every caller is one.
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	require.NoError(t, AddViewer(server, nil))
	done := 0
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: flow.InputSchema(nil)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := flow.Next(ctx, req)
			if err != nil {
				return nil, err
			}
			if r.Status == FlowDone {
				done++
			}
			if r.Result != nil {
				return r.Result, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String()}}}, nil
		})
	apps := &mcp.ClientCapabilities{}
	apps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectClient(t, server, mcp.NewClient(&mcp.Implementation{Name: "apps", Version: "v0"}, &mcp.ClientOptions{Capabilities: apps}), version)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup", Arguments: map[string]any{}})
		require.NoError(t, err)
		var view struct {
			Arguments map[string]any `json:"arguments"`
		}
		require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &view))
		args := view.Arguments
		require.NotEmpty(t, args[StateArgument])
		args["email"], args["plan"] = "ada@example.com", "pro"
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup", Arguments: args})
		var rpcErr *jsonrpc.Error
		require.ErrorAs(t, err, &rpcErr, version)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcErr.Code)
		assert.Zero(t, done, "%s: the model's submit of a view did nothing", version)
	}
}

// TestFinding8FormAndFlowAgree asks the same fields as a single Form and
// as a one-step Flow on each kind of host, and wants the same outcome:
// here fields that no view can carry back, so an Apps host without the
// model gets -32021 from both, where a Flow once failed with a plain Go
// error.
func TestFinding8FormAndFlowAgree(t *testing.T) {
	fields := []AutoFormField{{Name: "constructor", Label: "Constructor"}} // no view reads it back
	for _, hs := range pathHosts {
		t.Run(hs.name, func(t *testing.T) {
			_, codec, _ := newFlowFixture(t)
			form, err := NewForm[Answers](fields, &FormOptions{Key: "build"})
			require.NoError(t, err)
			flow, err := NewFlow(codec, []Step{{Key: "build", Fields: fields}}, &FlowOptions{EveryCallerIsSamePerson: true})
			require.NoError(t, err)
			server := mcp.NewServer(&mcp.Implementation{Name: "both", Version: "v0"}, nil)
			require.NoError(t, AddViewer(server, nil))
			server.AddTool(&mcp.Tool{Name: "form", InputSchema: map[string]any{"type": "object"}},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if reply := form.ReadCall(req); reply.Status != ReplyNone {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil
					}
					return form.Ask(req, "")
				})
			server.AddTool(&mcp.Tool{Name: "flow", InputSchema: map[string]any{"type": "object"}},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					r, err := flow.Next(ctx, req)
					if err != nil {
						return nil, err
					}
					if r.Status == FlowAsk {
						return r.Result, nil
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil
				})
			caps := &mcp.ClientCapabilities{}
			opts := &mcp.ClientOptions{Capabilities: caps}
			if hs.form {
				caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
				opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"constructor": "x"}}, nil
				}
			}
			if hs.apps {
				caps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
			}
			cs := connectClient(t, server, mcp.NewClient(&mcp.Implementation{Name: hs.name, Version: "v0"}, opts), hs.version)
			outcome := func(tool string) string {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
				var rpcErr *jsonrpc.Error
				switch {
				case errors.As(err, &rpcErr):
					return fmt.Sprint("error ", rpcErr.Code)
				case err != nil:
					return "plain error"
				}
				return res.Content[0].(*mcp.TextContent).Text
			}
			want := map[string]string{"native": "answered", "legacy": "answered", "view": "error -32021", "model": "error -32021"}[hs.name]
			assert.Equal(t, want, outcome("form"), "the form")
			assert.Equal(t, want, outcome("flow"), "the flow")
		})
	}
}

// pathOf names the path a result asks on.
func pathOf(t testing.TB, res *mcp.CallToolResult) Path {
	if len(res.InputRequests) > 0 {
		return PathNative
	}
	b := wireJSON(t, res.StructuredContent)
	switch {
	case strings.Contains(b, `"$prefab"`):
		return PathView
	case strings.Contains(b, `"requestedSchema"`):
		return PathModel
	}
	return PathNone
}

// TestPathsAgree asks a Form with keys and a Flow of the same step on each
// kind of host, opted in to the model, and wants the same path from both;
// a confirmation, which never goes through the model, fails closed on both.
func TestPathsAgree(t *testing.T) {
	confirm := []AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}}
	for _, tt := range []struct {
		name   string
		fields []AutoFormField
		meta   mcp.Meta
		want   Path // PathNone for -32021
	}{
		{"native", signupFieldsBase, formCaps(), PathNative},
		{"view", signupFieldsBase, appsMeta(), PathView},
		{"model", signupFieldsBase, bareMeta(), PathModel},
		{"view, names no view carries", []AutoFormField{{Name: "toString"}}, appsMeta(), PathModel},
		{"model, a confirmation", confirm, bareMeta(), PathNone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := keyedForm(t, tt.fields, true)
			_, codec, _ := newFlowFixture(t)
			flow, err := NewFlow(codec, []Step{{Key: "signup", Fields: tt.fields}}, &FlowOptions{Principal: tokenUser, AskModel: true})
			require.NoError(t, err)
			got := func(res *mcp.CallToolResult, err error) Path {
				if err != nil {
					var rpcErr *jsonrpc.Error
					require.ErrorAs(t, err, &rpcErr)
					assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
					return PathNone
				}
				return pathOf(t, res)
			}
			assert.Equal(t, tt.want, got(form.Ask(argsCall(t, tt.meta, "alice", "signup", nil), "")), "the form")
			r, err := flow.Next(context.Background(), argsCall(t, tt.meta, "alice", "signup", nil))
			var res *mcp.CallToolResult
			if err == nil {
				res = r.Result
			}
			assert.Equal(t, tt.want, got(res, err), "the flow")
		})
	}
}

// TestStateChannels mints a state on each path and sends it back on each
// channel: in requestState (native and legacy), through the view's
// companion, and in the arguments of a direct call (the model). Only the
// channel it was minted for reads the answer, and says so in Path; every
// other is refused with -32602, for a Form with keys as for a Flow.
func TestStateChannels(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	form := keyedForm(t, accountStep.Fields, true)
	good := map[string]any{"email": "ada@example.com", "plan": "pro"}
	mint := map[Path]mcp.Meta{PathNative: formCaps(), PathView: appsMeta(), PathModel: bareMeta()}
	for minted, meta := range mint {
		for _, channel := range []Path{PathNative, PathView, PathModel} {
			t.Run(fmt.Sprintf("minted for %v, sent as %v", minted, channel), func(t *testing.T) {
				r, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", nil))
				require.NoError(t, err)
				var state string
				if minted == PathNative {
					state = r.Result.RequestState
				} else {
					state = stateOf(t, r.Result)
				}
				var req *mcp.CallToolRequest
				switch channel {
				case PathNative:
					req = callAs("alice", "signup", state, map[string]any{"account": good})
				case PathView:
					req = argsCall(t, appsMeta(), "alice", "signup", merged(good, StateArgument, state))
				case PathModel:
					req = directCall(t, appsMeta(), "alice", "signup", merged(good, StateArgument, state))
				}
				done, err := flow.Next(context.Background(), req)
				if minted != channel {
					var rpcErr *jsonrpc.Error
					require.ErrorAs(t, err, &rpcErr)
					assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcErr.Code)
				} else {
					require.NoError(t, err)
					assert.Equal(t, FlowDone, done.Status)
					assert.Equal(t, channel, done.Path)
				}
				if minted == PathNative || channel == PathNative {
					return // a Form's native path carries the handler's own state
				}
				first, err := form.Ask(argsCall(t, meta, "alice", "signup", nil), "")
				require.NoError(t, err)
				req.Params.Arguments, _ = json.Marshal(merged(good, StateArgument, stateOf(t, first)))
				reply := form.ReadCall(req)
				if minted != channel {
					assert.Equal(t, ReplyNone, reply.Status)
				} else {
					assert.Equal(t, ReplyAccepted, reply.Status)
					assert.Equal(t, channel, reply.Path)
				}
			})
		}
	}
}

// merged returns m with k set to v, in a copy.
func merged(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, x := range m {
		out[key] = x
	}
	return out
}

// FuzzReadCallWithoutState sends whatever arguments, state and marks a
// client can, none of them holding a state the server minted for this
// ask, to a Form with and without keys and to a Flow: none reports an
// answer. Seeds include states minted for another channel or tool.
func FuzzReadCallWithoutState(f *testing.F) {
	_, codec, _ := newFlowFixture(f)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(f, err)
	keyed := keyedForm(f, accountStep.Fields, true)
	plain, err := NewForm[Answers](accountStep.Fields, &FormOptions{Key: "signup"})
	require.NoError(f, err)
	metas := []mcp.Meta{formCaps(), appsMeta(), bareMeta()}
	// Minted for bob, and sent as alice: no mutation of a seed can make
	// it a state minted for this ask.
	minted := func(meta mcp.Meta, tool string) string {
		r, err := flow.Next(context.Background(), directCall(f, meta, "bob", tool, nil))
		require.NoError(f, err)
		return stateOf(f, r.Result)
	}
	viewState, modelState := minted(appsMeta(), "signup"), minted(bareMeta(), "signup")
	for _, seed := range []struct {
		args   string
		host   uint8
		marked bool
		state  string
	}{
		{`{"mcpform":"","email":"victim@example.com","plan":"pro"}`, 0, false, ""},
		{`{"mcpform":1,"email":"victim@example.com","plan":"pro"}`, 2, false, ""},
		{`{"mcpform":null,"mcpformAction":"decline"}`, 1, true, ""},
		{`{"mcpform":"` + viewState + `","email":"ada@example.com","plan":"pro"}`, 1, false, ""},
		{`{"mcpform":"` + modelState + `","email":"ada@example.com","plan":"pro"}`, 1, true, ""},
		{`{"mcpform":"` + modelState + `","email":"ada@example.com","plan":"pro"}`, 2, false, ""},
		{`{"email":"ada@example.com","plan":"pro"}`, 0, false, modelState},
		{`{"mcpform":"` + viewState + `","mcpformAction":"decline"}`, 2, false, ""},
	} {
		f.Add([]byte(seed.args), seed.host, seed.marked, seed.state)
	}
	f.Fuzz(func(t *testing.T, args []byte, host uint8, marked bool, state string) {
		req := directCall(t, metas[int(host)%len(metas)], "alice", "signup", nil)
		req.Params.Arguments, req.Params.RequestState = args, state
		if marked {
			req.Params.Meta = merged(req.Params.Meta, companionMetaKey, &viewMark{})
		}
		for name, st := range map[string]ReplyStatus{"keyed": keyed.ReadCall(req).Status, "plain": plain.ReadCall(req).Status} {
			if st != ReplyNone {
				t.Fatalf("%s form: %v from arguments %s", name, st, args)
			}
		}
		r, err := flow.Next(context.Background(), req)
		if err == nil && (r.Status != FlowAsk || r.Path != PathNone || len(r.Problems) > 0) {
			t.Fatalf("flow: %v on %v, problems %v, from arguments %s", r.Status, r.Path, r.Problems, args)
		}
	})
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

func TestPathString(t *testing.T) {
	for p, want := range map[Path]string{
		PathNone: "none", PathNative: "native", PathLegacy: "legacy", PathView: "view",
		PathModel: "model", PathLink: "link", 9: "Path(9)",
	} {
		assert.Equal(t, want, p.String())
	}
}

// capsFromJSON decodes capabilities as go-sdk decodes them off the wire.
func capsFromJSON(t *testing.T, s string) *mcp.ClientCapabilities {
	t.Helper()
	var c mcp.ClientCapabilities
	require.NoError(t, json.Unmarshal([]byte(s), &c))
	return &c
}

func TestPathFor(t *testing.T) {
	const apps = `"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}`
	tests := []struct {
		name           string
		caps           string // JSON; "" means nil capabilities
		form, url, app bool
		want           Path
	}{
		{"nil", "", false, false, false, PathNone},
		{"nothing declared", `{}`, false, false, false, PathNone},
		{"roots and sampling only", `{"roots":{"listChanged":true},"sampling":{}}`, false, false, false, PathNone},
		{"elicitation {} means form", `{"elicitation":{}}`, true, false, false, PathNative},
		{"form", `{"elicitation":{"form":{}}}`, true, false, false, PathNative},
		{"form and url", `{"elicitation":{"form":{},"url":{}}}`, true, true, false, PathNative},
		{"url only", `{"elicitation":{"url":{}}}`, false, true, false, PathNone},
		{"apps only", `{` + apps + `}`, false, false, true, PathView},
		{"form before apps", `{"elicitation":{"form":{}},` + apps + `}`, true, false, true, PathNative},
		{"apps extension without the MIME type", `{"extensions":{"io.modelcontextprotocol/ui":{}}}`, false, false, false, PathNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var caps *mcp.ClientCapabilities
			if tt.caps != "" {
				caps = capsFromJSON(t, tt.caps)
			}
			assert.Equal(t, tt.form, clientSupportsForm(caps), "clientSupportsForm")
			assert.Equal(t, tt.url, clientSupportsURL(caps), "clientSupportsURL")
			assert.Equal(t, tt.app, clientSupportsApps(caps), "clientSupportsApps")
			assert.Equal(t, tt.want, PathFor(caps), "PathFor")
		})
	}
}

// TestPathForPerRequest reads capabilities as a handler does, from
// req.ClientCapabilities(): on 2026-07-28 from the request's _meta, which
// go-sdk decodes from the generic map the wire gives; without _meta or a
// session, nothing.
func TestPathForPerRequest(t *testing.T) {
	meta := func(caps string) mcp.Meta {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(caps), &m))
		return mcp.Meta{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": m}
	}
	tests := []struct {
		name string
		meta mcp.Meta
		want Path
	}{
		{"no _meta, no session", nil, PathNone},
		{"_meta without capabilities", mcp.Meta{"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, PathNone},
		{"empty capabilities", meta(`{}`), PathNone},
		{"elicitation {}", meta(`{"elicitation":{}}`), PathNative},
		{"form", meta(`{"elicitation":{"form":{}}}`), PathNative},
		{"url only", meta(`{"elicitation":{"url":{}}}`), PathNone},
		{"apps", meta(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`), PathView},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Meta: tt.meta}}
			assert.Equal(t, tt.want, PathFor(req.ClientCapabilities()))
		})
	}
}

func TestNeedCapabilities(t *testing.T) {
	apps := &mcp.ClientCapabilities{}
	apps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
	tests := []struct {
		name     string
		required *mcp.ClientCapabilities
		wantData string
	}{
		{"nil means form", nil, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`},
		{"form", FormCapability(), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`},
		{"url", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
			`{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"apps", apps, `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}`},
		{"roots when asked for", &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}},
			`{"requiredCapabilities":{"roots":{"listChanged":true}}}`},
		{"roots through the old field", func() *mcp.ClientCapabilities {
			c := &mcp.ClientCapabilities{}
			c.Roots.ListChanged = true
			return c
		}(), `{"requiredCapabilities":{"roots":{"listChanged":true}}}`},
		{"nothing", &mcp.ClientCapabilities{}, `{"requiredCapabilities":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NeedCapabilities(tt.required)
			var jerr *jsonrpc.Error
			require.True(t, errors.As(err, &jerr), "%T is not a *jsonrpc.Error", err)
			assert.Equal(t, int64(-32021), jerr.Code)
			assert.NotEmpty(t, jerr.Message)
			assert.JSONEq(t, tt.wantData, string(jerr.Data))
		})
	}
}

// TestNeedCapabilitiesGoSDK calls, over go-sdk in memory, a tool that asks
// only a client that can answer. A client without elicitation gets the
// -32021 error with its data, at 2026-07-28 (capabilities in each request's
// _meta) and at 2025-11-25 (capabilities from initialize); one with
// elicitation gets the form path.
func TestNeedCapabilitiesGoSDK(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p := PathFor(req.ClientCapabilities())
			if p == PathNone {
				return nil, NeedCapabilities(FormCapability())
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: p.String()}}}, nil
		})
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, elicit := range []bool{false, true} {
			t.Run(version+" elicitation="+strconv.FormatBool(elicit), func(t *testing.T) {
				ctx := context.Background()
				opts := &mcp.ClientOptions{}
				if elicit {
					opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "cancel"}, nil
					}
				}
				client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, opts)
				cs := connectClient(t, server, client, version)
				require.Equal(t, version, cs.InitializeResult().ProtocolVersion)

				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
				if elicit {
					require.NoError(t, err)
					assert.Equal(t, "native", res.Content[0].(*mcp.TextContent).Text)
					return
				}
				var jerr *jsonrpc.Error
				require.True(t, errors.As(err, &jerr), "want a *jsonrpc.Error, got %T %v", err, err)
				assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), jerr.Code)
				var data mcp.MissingRequiredClientCapabilityData
				require.NoError(t, json.Unmarshal(jerr.Data, &data))
				require.NotNil(t, data.RequiredCapabilities)
				assert.Equal(t, FormCapability().Elicitation, data.RequiredCapabilities.Elicitation)
			})
		}
	}
}

// TestPathForPerRequestGoSDK shows that on 2026-07-28 the request's own
// capabilities decide, not the session's: a client that declared
// elicitation but sends a call whose _meta declares none gets PathNone.
func TestPathForPerRequestGoSDK(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: PathFor(req.ClientCapabilities()).String()}}}, nil
		})
	cs := connect(t, server, FormCapability())
	require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
	for _, tt := range []struct {
		meta mcp.Meta
		want string
	}{
		{nil, "native"},
		{mcp.Meta{"io.modelcontextprotocol/clientCapabilities": map[string]any{}}, "none"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Meta: tt.meta})
		require.NoError(t, err)
		assert.Equal(t, tt.want, res.Content[0].(*mcp.TextContent).Text)
	}
}
func TestAppsDeclared(t *testing.T) {
	apps := map[string]any{"mimeTypes": []any{"text/html", AppMIMEType}}
	tests := []struct {
		name string
		caps *mcp.ClientCapabilities
		want bool
	}{
		{"nil", nil, false},
		{"none", &mcp.ClientCapabilities{}, false},
		{"decoded", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: apps}}, true},
		{"built in Go", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": []string{AppMIMEType}}}}, true},
		{"no MIME types", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{}}}, false},
		{"other MIME type", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": []any{"text/html"}}}}, false},
		{"wrong shape", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": AppMIMEType}}}, false},
		{"the apps look-alike", &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/apps": apps}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clientSupportsApps(tt.caps))
		})
	}

	// End to end: what a go-sdk client declares reaches a tool handler,
	// over 2026-07-28, where capabilities travel in each request's _meta.
	for _, declare := range []bool{true, false} {
		server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		server.AddTool(&mcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatBool(appsDeclared(req))}}}, nil
			})
		caps := &mcp.ClientCapabilities{}
		if declare {
			caps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
		}
		cs := connect(t, server, caps)
		require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "probe"})
		require.NoError(t, err)
		assert.Equal(t, strconv.FormatBool(declare), res.Content[0].(*mcp.TextContent).Text)
	}
}

// linkOfResult returns the secret page's link an ordinary result (the
// link path) carries.
func linkOfResult(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var c struct {
		URL string `json:"url"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &c))
	require.NotEmpty(t, c.URL, "no link in the result")
	return c.URL
}

// transferSteps are a payee and an amount, which the model may type, then
// a PIN, asked on the secret page alone.
var transferSteps = []Step{
	{Key: "transfer", Fields: []AutoFormField{
		{Name: "payee", Required: true},
		{Name: "amount", Type: TypeInteger, Required: true, Min: Bound(1)}}},
	{Key: "pin", Fields: []AutoFormField{{Name: "password", Type: TypePassword, Required: true, Min: Bound(4)}}},
}

// TestFlowPathWeakest: a flow whose payee and amount the model typed
// reports PathModel on its finishing round, though that round's call only
// followed the secret page's link: FlowRound.Path is the weakest path of
// the answers the handler acts on, recorded per step in the state.
func TestFlowPathWeakest(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	var page http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { page.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	flow, err := NewFlow(codec, transferSteps, &FlowOptions{Principal: tokenUser, AskModel: true,
		Secrets: &SecretOptions{PageURL: srv.URL + "/secret", Store: NewMemorySecretStore()}})
	require.NoError(t, err)
	page, err = flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)

	ctx := context.Background()
	r, err := flow.Next(ctx, directCall(t, bareMeta(), "alice", "transfer", nil))
	require.NoError(t, err)
	require.Equal(t, FlowAsk, r.Status)
	assert.Equal(t, PathNone, r.Path, "a first call carries no answer")
	r, err = flow.Next(ctx, directCall(t, bareMeta(), "alice", "transfer",
		map[string]any{StateArgument: stateOf(t, r.Result), "payee": "SAV-2", "amount": 9}))
	require.NoError(t, err)
	require.Equal(t, FlowAsk, r.Status)
	require.Equal(t, "pin", r.Step)
	assert.Equal(t, PathModel, r.Path, "the model typed the payee")
	require.Equal(t, http.StatusOK, send(t, linkOfResult(t, r.Result), "4711"))
	done, err := flow.Next(ctx, directCall(t, bareMeta(), "alice", "transfer", map[string]any{StateArgument: stateOf(t, r.Result)}))
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, Answers{"payee": "SAV-2", "amount": 9.0, "password": "4711"}, done.Answers)
	assert.Equal(t, PathModel, done.Path, "the finishing round acts on the model's payee and amount")
}

// TestWeaker orders the paths by how much the person vouches for what
// came by each.
func TestWeaker(t *testing.T) {
	order := []Path{PathModel, PathLink, PathView, PathLegacy, PathNative}
	for i, a := range order {
		assert.Equal(t, a, weaker(PathNone, a))
		assert.Equal(t, a, weaker(a, PathNone))
		for _, b := range order[i:] {
			assert.Equal(t, a, weaker(a, b), "%v, %v", a, b)
			assert.Equal(t, a, weaker(b, a), "%v, %v", b, a)
		}
	}
}

// TestFlowStateViaOld: a state that records no path, as one minted before
// states recorded them, counts its proven answers as the model's.
func TestFlowStateViaOld(t *testing.T) {
	for _, tt := range []struct {
		name string
		st   flowState
		want Path
	}{
		{"none recorded", flowState{Pins: pinList{{"a", "x"}}}, PathModel},
		{"recorded", flowState{Pins: pinList{{"a", "x"}}, Via: string(viaByte(PathView))}, PathView},
		{"short", flowState{Pins: pinList{{"b", "y"}, {"a", "x"}}, Via: string(viaByte(PathNative))}, PathModel},
		{"unknown byte", flowState{Pins: pinList{{"a", "x"}}, Via: "9"}, PathModel},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.st.via("a")) })
	}
}

// The tests show views without a server of their own, as if a viewer were
// registered; TestNoViewer clears this for its own run.
func init() { viewerMade.Store(true) }

// TestNoViewer: a round that would show an MCP Apps view, in a process
// where no viewer was ever made, fails on the first call, naming the fix,
// rather than after the person answered; a flow's step, its secret
// page's link, and a Form alike. Once AddViewer ran, the view is shown.
func TestNoViewer(t *testing.T) {
	viewerMade.Store(false)
	t.Cleanup(func() { viewerMade.Store(true) })
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	secret, err := NewFlow(codec, []Step{transferSteps[1]}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: "https://a.example/secret", Store: NewMemorySecretStore()}})
	require.NoError(t, err)
	form := keyedForm(t, accountStep.Fields, false)
	for name, ask := range map[string]func() error{
		"flow": func() error {
			_, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
			return err
		},
		"secret page": func() error {
			_, err := secret.Next(context.Background(), argsCall(t, appsMeta(), "alice", "pin", nil))
			return err
		},
		"form": func() error { _, err := form.Ask(argsCall(t, appsMeta(), "alice", "signup", nil), ""); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := ask()
			require.ErrorIs(t, err, errNoViewer)
			assert.ErrorContains(t, err, "AddViewer")
		})
	}
	r, err := flow.Next(context.Background(), callAs("alice", "signup", "", nil))
	require.NoError(t, err, "a native client needs no viewer")
	assert.Equal(t, FlowAsk, r.Status)

	require.NoError(t, AddViewer(mcp.NewServer(&mcp.Implementation{Name: "v", Version: "v0"}, nil), nil))
	r, err = flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	assert.Equal(t, PathView, pathOf(t, r.Result))
}

// TestViaList keeps the paths of a walk past the ones it holds in place.
func TestViaList(t *testing.T) {
	var l viaList
	want := ""
	for i := range 11 {
		p := []Path{PathNative, PathView, PathModel, PathLink, PathLegacy}[i%5]
		l.add(p)
		want += string(viaByte(p))
		assert.Equal(t, p, l.at(i))
	}
	assert.Equal(t, want, l.first(11))
	assert.Equal(t, want[:3], l.first(3))
	assert.Equal(t, want, l.first(20))
}
