package mcpform

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP Apps names the viewer helpers use.
const (
	// ViewerURI is the default URI of the viewer resource.
	ViewerURI = "ui://mcpform/viewer"
	// AppMIMEType is the MIME type of an MCP Apps HTML resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppsExtension is the identifier under which a client or server
	// declares MCP Apps support in its capabilities' extensions.
	AppsExtension = "io.modelcontextprotocol/ui"
	// RendererCDNBaseURL is the jsDelivr folder of the
	// @maxhealth.tech/prefab version that mcpform embeds and its wire
	// matches, the location prefab's own rendererHtml uses. Set it as
	// [ViewerOptions].BaseURL to load the renderer from the CDN rather
	// than inline it.
	RendererCDNBaseURL = "https://cdn.jsdelivr.net/npm/@maxhealth.tech/prefab@0.3.13/dist"
)

// ViewerOptions configures the MCP Apps viewer resource. A nil
// *ViewerOptions and zero fields mean the defaults.
type ViewerOptions struct {
	// URI is the resource's ui:// URI. Empty means [ViewerURI].
	URI string
	// BaseURL, when set, is the absolute http or https URL of a folder
	// that serves prefab 0.3.13's prefab.css and renderer.auto.min.js,
	// such as [RendererCDNBaseURL]. The viewer then loads them from there
	// with Subresource Integrity: the browser runs them only if they equal,
	// byte for byte, the files mcpform embeds. A server that serves them
	// itself must send Access-Control-Allow-Origin, because the viewer's
	// sandboxed frame has an opaque origin and loads them with
	// crossorigin. Empty means the viewer is self-contained: both files
	// are inlined, and the view loads nothing.
	BaseURL string
	// Title is the resource's title and the page's. Empty means "Form".
	Title string
}

type viewer struct {
	uri, base, origin, title string
}

func (o *ViewerOptions) resolve() (*viewer, error) {
	v := &viewer{uri: ViewerURI, title: "Form"}
	if o != nil {
		if o.URI != "" {
			v.uri = o.URI
		}
		v.base = o.BaseURL
		if o.Title != "" {
			v.title = o.Title
		}
	}
	if !strings.HasPrefix(v.uri, "ui://") || len(v.uri) == len("ui://") {
		return nil, fmt.Errorf("mcpform: viewer URI %q is not a ui:// URI", v.uri)
	}
	if v.base == "" {
		return v, nil
	}
	u, err := url.Parse(v.base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("mcpform: renderer base URL %q is not an absolute http or https URL of a folder", v.base)
	}
	v.base = strings.TrimSuffix(v.base, "/")
	v.origin = u.Scheme + "://" + u.Host
	return v, nil
}

// meta is the resource's _meta: the CSP a host must allow. A
// self-contained viewer needs no origin at all; one with a base URL needs
// the base's origin for the renderer's two files.
func (v *viewer) meta() mcp.Meta {
	csp := map[string]any{}
	if v.origin != "" {
		csp["resourceDomains"] = []string{v.origin}
	}
	return mcp.Meta{"ui": map[string]any{"csp": csp}}
}

// html is the viewer page (see [prefab.Viewer]), which shows a final
// result that is no view in every language the views speak.
func (v *viewer) html() (string, error) {
	viewerMade.Store(true)
	langs := make([]*prefab.Text, len(viewTexts))
	for i, t := range viewTexts {
		langs[i] = t.Text
	}
	return prefab.Viewer(v.title, v.base, langs...)
}

// ViewerHTML returns the HTML of the MCP Apps viewer that renders a
// [DisplayForm] result with the renderer of @maxhealth.tech/prefab 0.3.13,
// which answers the host's ui/* messages and mounts the tool result.
//
// With a nil opts or an empty opts.BaseURL the page is self-contained: the
// renderer and its stylesheet, embedded in mcpform unmodified (MIT), are
// inlined, and the view loads nothing from a network. With opts.BaseURL it
// loads both from there, with crossorigin and the integrity (SHA-384) of
// the embedded files. Either way the page carries the viewer's own small
// stylesheet and script: colours that meet WCAG contrast, the host's light
// or dark scheme with no frame, no theme toggle, and labels tied to their
// fields, a repair of the renderer. It also shows a tool's final result
// that is no view, which the renderer leaves blank, as a flow view shows
// its outcome: a heading, the one [FlowRound.Outcome] gave, else "Not
// completed" for an error or a result whose structuredContent status is
// "declined" or "cancelled", with the Outcome's summary, and the result's
// text, in the result's contentLanguage, else the host's locale, else
// English. A host that answers a flow's questions itself, in its own
// dialog, gives the view only that result.
//
// ViewerHTML returns an error when opts.URI is not a ui:// URI or
// opts.BaseURL is not an absolute http or https URL without query or
// fragment.
func ViewerHTML(opts *ViewerOptions) (string, error) {
	v, err := opts.resolve()
	if err != nil {
		return "", err
	}
	return v.html()
}

// viewerCacheTTL is how long a client may cache the viewer: its HTML is a
// pure function of the options, so a day is safe, as prefab does.
const viewerCacheTTL = 24 * 60 * 60 * 1000

// AddViewer registers the viewer of [ViewerHTML] on server as an MCP Apps
// resource at opts.URI, with MIME type [AppMIMEType] and its CSP in
// _meta.ui.csp, on both the listing and the content, since hosts read
// either: no origin for the default, self-contained viewer, and the
// origin of opts.BaseURL when it loads the renderer from there. The
// content may be cached for a day.
//
// AddViewer also registers the app-only tool that a view submits to, with
// _meta.ui.visibility ["app"], which MCP Apps hosts hide from the model,
// and the receiving middleware that passes its calls on to the tool that
// asked, marked as a view's: a [Form] or [Flow] reads a view's answer only
// from a call that came this way. A call on which a flow ended gets the
// tool's result back as the view of its outcome, which the renderer shows.
// It reaches only a tool attached to this viewer with [AttachViewer], as
// the server lists it to the call's session (the middleware asks the
// server's tools/list for it); a call naming any other tool is refused
// with JSON-RPC error -32602 (invalid params), as on the mcpgo face. The
// call it passes on goes through the receiving middleware added before
// AddViewer under the target's name, as a call of the tool itself would;
// middleware added after it sees the companion's name: add a middleware
// that judges calls by tool name before AddViewer. Call it before serving.
//
// AddViewer does not declare the MCP Apps extension, which go-sdk fixes
// when the server is created: set it with
// ServerOptions.Capabilities.AddExtension([AppsExtension], nil). It
// returns the errors of ViewerHTML.
func AddViewer(server *mcp.Server, opts *ViewerOptions) error {
	v, err := opts.resolve()
	if err != nil {
		return err
	}
	page, err := v.html()
	if err != nil {
		return err
	}
	meta := v.meta()
	name := strings.ReplaceAll(strings.TrimPrefix(v.uri, "ui://"), "/", "-")
	server.AddResource(&mcp.Resource{URI: v.uri, Name: name, Title: v.title, MIMEType: AppMIMEType, Meta: meta},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{
				Cacheable: mcp.Cacheable{TTLMs: viewerCacheTTL, CacheScope: "public"},
				Contents:  []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: AppMIMEType, Text: page, Meta: meta}},
			}, nil
		})
	addCompanion(server, v.uri)
	return nil
}

// AttachViewer links tool to the viewer at opts.URI, so that a host that
// renders MCP Apps shows the tool's results in it: it sets
// _meta.ui.resourceUri, keeping other keys of tool.Meta and of its "ui"
// object, and the deprecated flat _meta["ui/resourceUri"], which
// @modelcontextprotocol/ext-apps also sets for older hosts. Attach it to
// every tool that asks with [Form.Ask] or [Flow.Next], which show a view
// on such a host, or returns [DisplayForm]. It returns an error, and
// leaves tool unchanged, when opts.URI is not a ui:// URI.
func AttachViewer(tool *mcp.Tool, opts *ViewerOptions) error {
	v, err := (&ViewerOptions{URI: uriOf(opts)}).resolve()
	if err != nil {
		return err
	}
	if tool.Meta == nil {
		tool.Meta = mcp.Meta{}
	}
	ui, _ := tool.Meta["ui"].(map[string]any)
	merged := make(map[string]any, len(ui)+1)
	for k, x := range ui {
		merged[k] = x
	}
	merged["resourceUri"] = v.uri
	tool.Meta["ui"] = merged
	tool.Meta["ui/resourceUri"] = v.uri
	return nil
}

func uriOf(opts *ViewerOptions) string {
	if opts == nil {
		return ""
	}
	return opts.URI
}

// A view submits to an app-only companion tool, never to the tool that
// asked: MCP Apps hosts hide a tool whose _meta.ui.visibility is ["app"]
// from the model, so the model cannot submit a view by calling it, and a
// state minted for a view verifies only on a call that came through it.
//
// go-sdk v1.8.0 calls a tool's handler with the request as received, so
// the companion is a receiving middleware, installed by [AddViewer]: it
// turns a tools/call of the companion into a call of the tool named in
// its arguments, and marks the request with a value of a type no JSON
// decodes into, so that nothing a client sends can carry the mark.

const (
	// companionMetaKey is where the middleware marks the request's _meta.
	companionMetaKey = "io.github.mcpform/viewSubmit"
)

// viewMark is the companion's mark: only this package makes one. It
// carries the arguments the middleware decoded to find the tool, so that
// the round reads them once rather than twice, and back to the middleware
// the view of the tool's last result, when the round ended the flow (see
// seam.Call.EndView).
type viewMark struct {
	decoded atomic.Pointer[map[string]any]
	ended   atomic.Pointer[func(json.RawMessage) ([]byte, error)]
}

// take returns the arguments the middleware decoded, once: a second read
// of the same call decodes its arguments again, since the first changes
// the map it is given.
func (m *viewMark) take() map[string]any {
	if m == nil {
		return nil
	}
	if p := m.decoded.Swap(nil); p != nil {
		return *p
	}
	return nil
}

// companionMark returns req's companion mark, or nil when it did not come
// through the companion middleware.
func companionMark(req *mcp.CallToolRequest) *viewMark {
	if req == nil || req.Params == nil {
		return nil
	}
	m, _ := req.Params.Meta[companionMetaKey].(*viewMark)
	return m
}

// viaCompanion reports whether req came through the companion middleware.
func viaCompanion(req *mcp.CallToolRequest) bool { return companionMark(req) != nil }

// companionTarget returns the tool a companion call reaches, as
// [prefab.Reach] decides for every face, read from its arguments, which pass
// on unchanged: prefab.ToolArgument is one of the arguments a form or flow
// writes, left out of what its state is bound to. It decodes them with
// readArguments, as the round would, and returns them decoded. lookup
// returns a tool's _meta.
func companionTarget(raw json.RawMessage, uri string, lookup func(string) (map[string]any, bool)) (string, map[string]any, bool) {
	v, err := readArguments(raw)
	if err != nil {
		return "", nil, false
	}
	tool, ok := prefab.Reach(v, uri, lookup)
	if !ok {
		return "", nil, false
	}
	m, _ := v.(map[string]any)
	return tool, m, true
}

// toolMeta returns a lookup of the _meta of the tools next lists to the
// caller of call, with call's session, transport extras and _meta, so
// that a middleware that judges the caller judges the listing as it
// would the caller's own: go-sdk lends a middleware no other view of the
// server's tools. Each lookup lists them page by page, only as far as the
// tool it looks for.
func toolMeta(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) func(string) (map[string]any, bool) {
	return func(name string) (map[string]any, bool) {
		params := &mcp.ListToolsParams{Meta: call.Params.Meta}
		for range 1000 { // a server that pages forever lists no tool
			res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: call.Session, Params: params, Extra: call.Extra})
			list, ok := res.(*mcp.ListToolsResult)
			if err != nil || !ok || list == nil {
				return nil, false
			}
			for _, t := range list.Tools {
				if t != nil && t.Name == name {
					return t.Meta, true
				}
			}
			if list.NextCursor == "" {
				return nil, false
			}
			params = &mcp.ListToolsParams{Meta: call.Params.Meta, Cursor: list.NextCursor}
		}
		return nil, false
	}
}

// companionMiddleware routes the companion's calls to their tool, marked,
// when prefab.Reach lets them reach it: a tool attached to the viewer at
// uri, as the server lists it to the call's session.
func companionMiddleware(uri string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || call.Params.Name != prefab.CompanionTool {
				return next(ctx, method, req)
			}
			tool, args, ok := companionTarget(call.Params.Arguments, uri, toolMeta(ctx, next, call))
			if !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: prefab.CompanionRefusal}
			}
			p := *call.Params
			// The tool's own arguments come back as text, which no
			// JavaScript rounds: the tool reads them as they were sent.
			unpacked, changed, err := prefab.Unpack(p.Arguments)
			if err == nil && changed {
				var v any
				v, err = readArguments(unpacked)
				args, _ = v.(map[string]any)
				p.Arguments = unpacked
			}
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the view's submit: " + err.Error()}
			}
			p.Name = tool
			// The request was decoded for this call alone: its _meta is ours
			// to mark.
			if p.Meta == nil {
				p.Meta = mcp.Meta{}
			}
			mark := &viewMark{}
			mark.decoded.Store(&args)
			p.Meta[companionMetaKey] = mark
			routed := *call
			routed.Params = &p
			res, err := next(ctx, method, &routed)
			if view := mark.ended.Load(); view != nil && err == nil {
				if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
					return endedResult(r, *view)
				}
			}
			return res, err
		}
	}
}

// endedResult returns r, the tool's last result, a view's submit got, as
// the view that shows it: view's, made of r's JSON, in place of its
// structuredContent; r itself when view gives none.
func endedResult(r *mcp.CallToolResult, view func(json.RawMessage) ([]byte, error)) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	sc, err := view(b)
	if err != nil {
		return nil, err
	}
	if sc == nil {
		return r, nil
	}
	ended := *r // its resultType too, which a 2026-07-28 client requires
	ended.StructuredContent = &viewContent{sc}
	return &ended, nil
}

// addCompanion registers the companion tool, app-only, and its middleware.
func addCompanion(server *mcp.Server, uri string) {
	server.AddTool(&mcp.Tool{
		Name:        prefab.CompanionTool,
		Title:       "Submit a form view",
		Description: "Submits an mcpform view to the tool that asked. Called by the view, never by the model.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"` + prefab.ToolArgument + `":{"type":"string"}},"required":["` + prefab.ToolArgument + `"]}`),
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": uri, "visibility": []string{"app"}}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The middleware routes every call of the companion; reaching
		// here means it was not installed, as on a server AddViewer did
		// not build.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the view's submit reached no tool"}
	})
	server.AddReceivingMiddleware(companionMiddleware(uri))
}
