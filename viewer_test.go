package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The integrity values of prefab 0.3.13's files, computed apart from the
// code under test: openssl dgst -sha384 -binary FILE | base64.
const (
	pinnedCSSIntegrity = "sha384-82lYoPMpvT84VJh1KSU76YGwLH3/DOGX3+3OZitifwuaQX/nhGFbpfOifnNiy/jb"
	pinnedJSIntegrity  = "sha384-xq2ZsFiqOfn0D8KzIrKp1WlA+fh+9mnGlB4g0HOj4V/Br93TPM6KynZL2kV6kby+"
)

// loads finds the elements of page that load a file: each <link> or
// <script> with an href or src.
var loads = regexp.MustCompile(`(?i)<(?:link|script)\b[^>]*\b(?:href|src)\s*=\s*"([^"]*)"[^>]*>`)

// TestViewerSelfContained checks finding 11 of issue 22: the default viewer
// loads nothing from a network; prefab's renderer and stylesheet are in the
// page, unmodified.
func TestViewerSelfContained(t *testing.T) {
	for _, opts := range []*ViewerOptions{nil, {}, {Title: "Sign up", URI: "ui://shop/form"}} {
		page, err := ViewerHTML(opts)
		require.NoError(t, err)
		assert.Empty(t, loads.FindAllString(page, -1), "the default viewer loads a file")
		assert.NotRegexp(t, `(?i)(?:href|src)\s*=|@import|url\(`, strings.Replace(page, prefab.JS, "", 1), "the page outside the renderer refers to a resource")
		assert.Contains(t, page, "<style>"+prefab.CSS+"</style>")
		assert.Contains(t, page, "<script>"+prefab.JS+"</script>")
		assert.Contains(t, page, `<div id="root"></div>`)
		// Nothing inlined ends its element early: two of each, prefab's
		// and the viewer's own, and the outcome views' data.
		assert.Equal(t, 2, strings.Count(strings.ToLower(page), "</style"))
		assert.Equal(t, 3, strings.Count(strings.ToLower(page), "</script"))
		assert.Less(t, strings.Index(page, prefab.CSS), strings.Index(page, prefab.ViewerCSS), "the viewer's CSS must follow prefab's to win over it")
	}
	page, err := ViewerHTML(&ViewerOptions{Title: `Tom & "Jerry"`})
	require.NoError(t, err)
	assert.Contains(t, page, `<title>Tom &amp; &#34;Jerry&#34;</title>`)
}

// TestViewerOutcomes checks the page's part of item 2 of issue 35: the
// viewer carries, for each language the views speak, the view of a final
// result that is no view, which its script renders. Each is the flow
// views' outcome panel alone, in that language's words, marked with the
// language as a view's root is, with an empty state.
func TestViewerOutcomes(t *testing.T) {
	page, err := ViewerHTML(nil)
	require.NoError(t, err)
	m := regexp.MustCompile(`<script type="application/json" id="` + prefab.OutcomesID + `">([^<]*)</script>`).FindStringSubmatch(page)
	require.NotNil(t, m, "the page carries no outcome views")
	assert.Less(t, strings.Index(page, m[0]), strings.Index(page, prefab.ViewerJS), "the viewer's script finds them")
	var outcomes map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(m[1]), &outcomes))
	require.Len(t, outcomes, int(catalog.NumLangs))
	for _, vt := range viewTexts {
		code := vt.l.Code()
		t.Run(code, func(t *testing.T) {
			require.Contains(t, outcomes, code)
			want, err := prefab.Outcome(vt.Text)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(outcomes[code]))
			var w struct {
				Prefab struct{ Version string } `json:"$prefab"`
				View   struct {
					CSSClass string `json:"cssClass"`
				}
				State map[string]any
			}
			require.NoError(t, json.Unmarshal(outcomes[code], &w))
			assert.Equal(t, prefab.Version, w.Prefab.Version)
			assert.Empty(t, w.State, "the script puts the result in")
			if vt.l == catalog.English {
				assert.Equal(t, "pf-app-root", w.View.CSSClass)
			} else {
				assert.Equal(t, "pf-app-root "+prefab.LangClass+code, w.View.CSSClass)
			}
			view := string(outcomes[code])
			assert.Contains(t, view, `"content":`+strconv.Quote(vt.Done))
			assert.Contains(t, view, `"content":`+strconv.Quote(vt.NotDone))
			assert.Contains(t, view, prefab.OutcomePanelClass)
		})
	}
}

// TestViewerBaseURL checks that a viewer given a CDN base loads the pinned
// files from there with Subresource Integrity, and refuses bad options.
func TestViewerBaseURL(t *testing.T) {
	for _, tt := range []struct{ base, folder string }{
		{RendererCDNBaseURL, RendererCDNBaseURL},
		{"http://127.0.0.1:8080/assets/prefab/", "http://127.0.0.1:8080/assets/prefab"},
		{"https://a.example.com/x&y", "https://a.example.com/x&amp;y"},
	} {
		t.Run(tt.base, func(t *testing.T) {
			page, err := ViewerHTML(&ViewerOptions{BaseURL: tt.base})
			require.NoError(t, err)
			want := []string{
				`<link rel="stylesheet" href="` + tt.folder + `/prefab.css" integrity="` + pinnedCSSIntegrity + `" crossorigin>`,
				`<script src="` + tt.folder + `/renderer.auto.min.js" integrity="` + pinnedJSIntegrity + `" crossorigin></script>`,
			}
			got := loads.FindAllString(page, -1)
			if len(got) == 2 {
				got[1] += "</script>"
			}
			assert.Equal(t, want, got)
			assert.NotContains(t, page, prefab.JS[:200], "a CDN viewer also inlines the renderer")
			assert.Contains(t, page, prefab.ViewerCSS)
			assert.Contains(t, page, prefab.ViewerJS)
		})
	}

	for _, bad := range []ViewerOptions{
		{BaseURL: "/relative"}, {BaseURL: "cdn.example.com/x"}, {BaseURL: "ftp://example.com/x"},
		{BaseURL: "https://example.com/x?v=1"}, {BaseURL: "https://example.com/x#f"}, {BaseURL: "https://u:p@example.com/x"},
		{BaseURL: "https://"}, {BaseURL: "javascript:alert(1)"},
		{URI: "https://example.com/viewer"}, {URI: "ui://"}, {URI: "viewer"},
	} {
		_, err := ViewerHTML(&bad)
		assert.Error(t, err, "%+v", bad)
	}
}

// TestViewerMatchesTypeScript checks that the CDN location is the one
// prefab's own rendererHtml pins.
func TestViewerMatchesTypeScript(t *testing.T) {
	ts := callPrefab(t, []map[string]any{{"fn": "rendererHtml", "args": []any{}}})
	require.Empty(t, ts[0].Error)
	var tsPage string
	require.NoError(t, json.Unmarshal(ts[0].Result, &tsPage))
	page, err := ViewerHTML(&ViewerOptions{BaseURL: RendererCDNBaseURL})
	require.NoError(t, err)
	urls := regexp.MustCompile(`(?:href|src)="(https://[^"]*)"`)
	var want, got []string
	for _, m := range urls.FindAllStringSubmatch(tsPage, -1) {
		want = append(want, m[1])
	}
	for _, m := range urls.FindAllStringSubmatch(page, -1) {
		got = append(got, m[1])
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
}

func TestAddViewer(t *testing.T) {
	for _, tt := range []struct {
		name     string
		opts     *ViewerOptions
		wantMeta mcp.Meta
	}{
		{"self-contained", &ViewerOptions{Title: "Signup"}, mcp.Meta{"ui": map[string]any{"csp": map[string]any{}}}},
		{"CDN", &ViewerOptions{BaseURL: "https://assets.example.com:8443/prefab", Title: "Signup"},
			mcp.Meta{"ui": map[string]any{"csp": map[string]any{"resourceDomains": []any{"https://assets.example.com:8443"}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) { testAddViewer(t, tt.opts, tt.wantMeta) })
	}
}

func testAddViewer(t *testing.T, opts *ViewerOptions, wantMeta mcp.Meta) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	require.NoError(t, AddViewer(server, opts))
	cs := connect(t, server, nil)

	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Resources, 1)
	r := list.Resources[0]
	assert.Equal(t, ViewerURI, r.URI)
	assert.Equal(t, AppMIMEType, r.MIMEType)
	assert.Equal(t, "Signup", r.Title)
	assert.Equal(t, wantMeta, r.Meta)

	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ViewerURI})
	require.NoError(t, err)
	require.Len(t, read.Contents, 1)
	c := read.Contents[0]
	page, err := ViewerHTML(opts)
	require.NoError(t, err)
	assert.Equal(t, page, c.Text)
	assert.Equal(t, AppMIMEType, c.MIMEType)
	assert.Equal(t, ViewerURI, c.URI)
	assert.Equal(t, wantMeta, c.Meta)

	assert.Error(t, AddViewer(server, &ViewerOptions{URI: "file:///x"}))
}

func TestAttachViewer(t *testing.T) {
	tool := &mcp.Tool{Name: "signup", Meta: mcp.Meta{"other": 1, "ui": map[string]any{"visibility": []string{"model", "app"}}}}
	require.NoError(t, AttachViewer(tool, nil))
	assert.Equal(t, mcp.Meta{
		"other":          1,
		"ui":             map[string]any{"visibility": []string{"model", "app"}, "resourceUri": ViewerURI},
		"ui/resourceUri": ViewerURI,
	}, tool.Meta)

	tool = &mcp.Tool{Name: "t"}
	require.NoError(t, AttachViewer(tool, &ViewerOptions{URI: "ui://shop/form", BaseURL: "ignored"}))
	assert.Equal(t, mcp.Meta{"ui": map[string]any{"resourceUri": "ui://shop/form"}, "ui/resourceUri": "ui://shop/form"}, tool.Meta)

	tool = &mcp.Tool{Name: "t"}
	assert.Error(t, AttachViewer(tool, &ViewerOptions{URI: "https://x"}))
	assert.Nil(t, tool.Meta)
}

// connect returns a go-sdk client session of server over the 2026-07-28
// protocol, with the given client capabilities.
func connect(t *testing.T, server *mcp.Server, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v0"}, &mcp.ClientOptions{Capabilities: caps})
	return connectClient(t, server, client, "")
}

// TestCompanionMiddleware: a call of the companion reaches the tool its
// arguments name, marked and with its arguments as sent; a call that names
// no tool, or the companion itself, is refused with -32602; any other call
// passes untouched; and _meta a client sends is never a mark.
func TestCompanionMiddleware(t *testing.T) {
	for _, tt := range []struct {
		name, tool, args string
		meta             mcp.Meta
		want             string // the tool reached; "" for a refusal
		marked           bool
	}{
		{name: "routed", tool: prefab.CompanionTool, args: `{"mcpformTool":"signup","email":"a@b.c"}`, want: "signup", marked: true},
		{name: "no tool named", tool: prefab.CompanionTool, args: `{"email":"a@b.c"}`},
		{name: "tool not a string", tool: prefab.CompanionTool, args: `{"mcpformTool":7}`},
		{name: "itself", tool: prefab.CompanionTool, args: `{"mcpformTool":"` + prefab.CompanionTool + `"}`},
		{name: "not an object", tool: prefab.CompanionTool, args: `["signup"]`},
		{name: "not JSON", tool: prefab.CompanionTool, args: `{"mcpformTool":"signup"`},
		{name: "trailing data", tool: prefab.CompanionTool, args: `{"mcpformTool":"signup"} {}`},
		{name: "another tool", tool: "signup", args: `{"mcpformTool":"other"}`, want: "signup"},
		{name: "a tool not attached", tool: prefab.CompanionTool, args: `{"mcpformTool":"wipe"}`},
		{name: "a tool of another viewer", tool: prefab.CompanionTool, args: `{"mcpformTool":"elsewhere"}`},
		{name: "an unknown tool", tool: prefab.CompanionTool, args: `{"mcpformTool":"nope"}`},
		{name: "a client's own mark", tool: "signup", args: `{}`, meta: mcp.Meta{companionMetaKey: map[string]any{}}, want: "signup"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got *mcp.CallToolRequest
			route := companionMiddleware(ViewerURI)(listing(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
				got = req.(*mcp.CallToolRequest)
				return nil, nil
			}, attachedTool(t, "signup"), &mcp.Tool{Name: "wipe"},
				&mcp.Tool{Name: "elsewhere", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://other/viewer"}}}))
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tt.tool, Arguments: json.RawMessage(tt.args), Meta: tt.meta}}
			_, err := route(context.Background(), "tools/call", req)
			if tt.want == "" {
				var rpc *jsonrpc.Error
				require.True(t, errors.As(err, &rpc), "refused: %v", err)
				assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
				assert.Nil(t, got, "nothing reached a tool")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Params.Name)
			assert.JSONEq(t, tt.args, string(got.Params.Arguments), "the arguments pass on as sent")
			assert.Equal(t, tt.marked, viaCompanion(got))
		})
	}
}

// TestCompanionReadTwice: the middleware's decoded arguments serve one
// read; a handler that runs the same routed call twice gets the same
// round both times.
func TestCompanionReadTwice(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	first, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	req := argsCall(t, appsMeta(), "alice", "signup", nil)
	args, err := json.Marshal(map[string]any{StateArgument: carried(t, first), prefab.ToolArgument: "signup", "email": "ada@example.com", "plan": "team"})
	require.NoError(t, err)
	req.Params.Name, req.Params.Arguments = prefab.CompanionTool, args
	var steps []string
	route := companionMiddleware(ViewerURI)(listing(func(ctx context.Context, _ string, r mcp.Request) (mcp.Result, error) {
		for range 2 {
			round, err := flow.Next(ctx, r.(*mcp.CallToolRequest))
			require.NoError(t, err)
			assert.Equal(t, PathView, round.Path)
			steps = append(steps, round.Step)
		}
		return nil, nil
	}, attachedTool(t, "signup")))
	_, err = route(context.Background(), "tools/call", req)
	require.NoError(t, err)
	assert.Equal(t, []string{"team", "team"}, steps)
}

// TestCompanionReadsSubmitVersion: a view's submit that names its version
// (prefab.VersionArgument), as the next release's views may, finishes the
// round on this one; a later version than it reads is refused with
// -32602, and reaches no tool.
func TestCompanionReadsSubmitVersion(t *testing.T) {
	for _, tt := range []struct {
		name    string
		version any
		ok      bool
	}{
		{"version 1", 1, true},
		{"a later version", prefab.SubmitVersion + 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flow, _, _ := newFlowFixture(t)
			first, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
			require.NoError(t, err)
			req := argsCall(t, appsMeta(), "alice", "signup", nil)
			args, err := json.Marshal(map[string]any{StateArgument: carried(t, first), prefab.ToolArgument: "signup",
				prefab.VersionArgument: tt.version, "email": "ada@example.com", "plan": "team"})
			require.NoError(t, err)
			req.Params.Name, req.Params.Arguments = prefab.CompanionTool, args
			var steps []string
			route := companionMiddleware(ViewerURI)(listing(func(ctx context.Context, _ string, r mcp.Request) (mcp.Result, error) {
				round, err := flow.Next(ctx, r.(*mcp.CallToolRequest))
				require.NoError(t, err)
				steps = append(steps, round.Step)
				return nil, nil
			}, attachedTool(t, "signup")))
			_, err = route(context.Background(), "tools/call", req)
			if !tt.ok {
				var rpc *jsonrpc.Error
				require.True(t, errors.As(err, &rpc), "refused: %v", err)
				assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
				assert.Empty(t, steps, "nothing reached the tool")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{"team"}, steps, "the account step is answered")
		})
	}
}

// listing returns next, answering tools/list with tools as a server that
// has them does, in one page.
func listing(next mcp.MethodHandler, tools ...*mcp.Tool) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			return &mcp.ListToolsResult{Tools: tools}, nil
		}
		return next(ctx, method, req)
	}
}

// attachedTool returns a tool named name attached to the default viewer.
func attachedTool(tb testing.TB, name string) *mcp.Tool {
	tb.Helper()
	tool := &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}
	require.NoError(tb, AttachViewer(tool, nil))
	return tool
}

// TestCompanionReachesAttachedOnly checks item 2 of issue 32: the
// companion reaches only a tool attached to the viewer. A tool that is
// not, named under mcpformTool, is refused with -32602 and never runs,
// whichever side of AddViewer a middleware that refuses it by name sits;
// and an attached tool a middleware added before AddViewer refuses by name
// is refused through the companion as on a call of its own.
func TestCompanionReachesAttachedOnly(t *testing.T) {
	for _, order := range []string{"middleware first", "viewer first"} {
		t.Run(order, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			refuse := func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if c, ok := req.(*mcp.CallToolRequest); ok && (c.Params.Name == "wipe" || c.Params.Name == "locked") {
						return nil, errors.New("refused by name")
					}
					return next(ctx, method, req)
				}
			}
			if order == "middleware first" {
				server.AddReceivingMiddleware(refuse)
			}
			require.NoError(t, AddViewer(server, nil))
			if order == "viewer first" {
				server.AddReceivingMiddleware(refuse)
			}
			var ran []string
			handler := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ran = append(ran, req.Params.Name)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			}
			server.AddTool(&mcp.Tool{Name: "wipe", InputSchema: map[string]any{"type": "object"}}, handler)
			server.AddTool(attachedTool(t, "signup"), handler)
			server.AddTool(attachedTool(t, "locked"), handler)
			cs := connect(t, server, nil)
			submit := func(tool string) error {
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: prefab.CompanionTool, Arguments: map[string]any{prefab.ToolArgument: tool}})
				return err
			}

			err := submit("wipe")
			var rpc *jsonrpc.Error
			require.True(t, errors.As(err, &rpc), "wipe is refused: %v", err)
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
			assert.Equal(t, prefab.CompanionRefusal, rpc.Message)

			require.NoError(t, submit("signup"), "an attached tool is reached")
			if order == "middleware first" {
				require.ErrorContains(t, submit("locked"), "refused by name")
			}
			assert.Equal(t, []string{"signup"}, ran, "only the attached tool ran")
		})
	}
}

// TestCompanionFindsToolOnLaterPage: the companion finds the tool it
// reaches however the server pages its tools/list.
func TestCompanionFindsToolOnLaterPage(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, &mcp.ServerOptions{PageSize: 1})
	require.NoError(t, AddViewer(server, nil))
	var ran []string
	for _, name := range []string{"a", "b", "c", "zz"} {
		server.AddTool(attachedTool(t, name), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran = append(ran, req.Params.Name)
			return &mcp.CallToolResult{}, nil
		})
	}
	cs := connect(t, server, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: prefab.CompanionTool, Arguments: map[string]any{prefab.ToolArgument: "zz"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"zz"}, ran)
}
