package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/prefab"
)

// A view submits to an app-only companion tool, never to the tool that
// asked: MCP Apps hosts hide a tool whose _meta.ui.visibility is ["app"]
// from the model, so the model cannot submit a view by calling it, and a
// state minted for a view verifies only on a call that came through it.
// mcp-go calls a tool's handler with the context it was given, so the
// companion's handler calls the named tool's handler itself, with a
// context value of a type no client can send. The companion's name and
// its argument are internal/prefab's, as the views and go-sdk's face name
// them.

// viewMarkKey is the context key of the companion's mark, a *viewMark,
// one per call: only this package makes either. The mark carries back to
// the companion the view of the tool's last result, when the call ended
// the flow (see seam.Call.EndView).
type (
	viewMarkKey struct{}
	viewMark    struct {
		ended atomic.Pointer[func(json.RawMessage) ([]byte, error)]
	}
)

// AddViewer registers on srv, as [mcpform.AddViewer] does on a go-sdk
// server, the MCP Apps viewer of [mcpform.ViewerHTML] at opts.URI (default
// [mcpform.ViewerURI]), with MIME type [mcpform.AppMIMEType] and its CSP
// in _meta.ui.csp, and the app-only tool its views submit to, which calls
// the tool that asked with the view's arguments, marked as a view's:
// [Next] reads a view's answer only from a call that came this way. A call
// on which the flow ended gets the tool's result back as the view of its
// outcome, which the renderer shows. It reaches only a tool attached to
// the viewer with [AttachViewer], as the core decides for go-sdk's face
// too, and refuses a call naming any other with JSON-RPC error -32602
// (invalid params); it calls that tool's handler as registered, so a
// middleware of srv's (server.WithToolHandlerMiddleware) runs once, around
// the companion, and a filter of srv's tools (server.WithToolFilter) sees
// the companion's name: a server that filters tools per client checks the
// client in the attached tools' handlers too. Call it before serving, and
// attach the viewer to each tool that asks with [AttachViewer].
//
// AddViewer does not declare the MCP Apps extension, which mcp-go fixes
// when the server is created: create it with
// server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}).
// Nor can it mark the viewer cacheable for a day, public, as go-sdk's face
// does: mcp-go sets caching hints per method, for every resource, not per
// resource. A server whose resources may all be cached so adds
// server.WithMethodCacheHints(mcp.MethodResourcesRead, 86_400_000,
// mcp.CacheScopePublic). It returns the errors of mcpform.ViewerHTML.
func AddViewer(srv *server.MCPServer, opts *mcpform.ViewerOptions) error {
	page, err := mcpform.ViewerHTML(opts)
	if err != nil {
		return err
	}
	uri, title, csp := mcpform.ViewerURI, "Form", map[string]any{}
	if opts != nil {
		if opts.URI != "" {
			uri = opts.URI
		}
		if opts.Title != "" {
			title = opts.Title
		}
		if opts.BaseURL != "" {
			u, _ := url.Parse(opts.BaseURL) // checked by ViewerHTML
			csp["resourceDomains"] = []string{u.Scheme + "://" + u.Host}
		}
	}
	meta := map[string]any{"ui": map[string]any{"csp": csp}}
	name := strings.ReplaceAll(strings.TrimPrefix(uri, "ui://"), "/", "-")
	srv.AddResource(mcp.Resource{URI: uri, Name: name, Title: title, MIMEType: mcpform.AppMIMEType,
		Meta: &mcp.Meta{AdditionalFields: meta}},
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI,
				MIMEType: mcpform.AppMIMEType, Text: page, Meta: meta}}, nil
		})
	addCompanion(srv, uri)
	return nil
}

// AttachViewer links tool to the viewer at opts.URI, as
// [mcpform.AttachViewer] does for go-sdk: it sets _meta.ui.resourceUri,
// keeping tool's other _meta keys and those of its "ui" object, and the
// deprecated flat _meta["ui/resourceUri"]. It returns an error, and leaves
// tool unchanged, when opts.URI is not a ui:// URI.
func AttachViewer(tool *mcp.Tool, opts *mcpform.ViewerOptions) error {
	uri := mcpform.ViewerURI
	if opts != nil && opts.URI != "" {
		uri = opts.URI
	}
	if !strings.HasPrefix(uri, "ui://") || len(uri) == len("ui://") {
		return fmt.Errorf("mcpform: viewer URI %q is not a ui:// URI", uri)
	}
	if tool.Meta == nil {
		tool.Meta = &mcp.Meta{}
	}
	if tool.Meta.AdditionalFields == nil {
		tool.Meta.AdditionalFields = map[string]any{}
	}
	ui, _ := tool.Meta.AdditionalFields["ui"].(map[string]any)
	merged := make(map[string]any, len(ui)+1)
	for k, v := range ui {
		merged[k] = v
	}
	merged["resourceUri"] = uri
	tool.Meta.AdditionalFields["ui"] = merged
	tool.Meta.AdditionalFields["ui/resourceUri"] = uri
	return nil
}

// addCompanion registers the companion tool, app-only, on srv.
func addCompanion(srv *server.MCPServer, uri string) {
	tool := mcp.NewToolWithRawSchema(prefab.CompanionTool,
		"Submits an mcpform view to the tool that asked. Called by the view, never by the model.",
		json.RawMessage(`{"type":"object","properties":{"`+prefab.ToolArgument+`":{"type":"string"}},"required":["`+prefab.ToolArgument+`"]}`))
	tool.Title = "Submit a form view"
	tool.Meta = &mcp.Meta{AdditionalFields: map[string]any{"ui": map[string]any{"resourceUri": uri, "visibility": []string{"app"}}}}
	srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var handler server.ToolHandlerFunc
		target, ok := prefab.Reach(companionArguments(&req), uri, func(name string) (map[string]any, bool) {
			t := srv.GetTool(name)
			if t == nil || t.Handler == nil {
				return nil, false
			}
			handler = t.Handler
			if t.Tool.Meta == nil {
				return nil, true
			}
			return t.Tool.Meta.AdditionalFields, true
		})
		if !ok {
			return nil, server.NewHandlerError(companionError{})
		}
		// The tool's own arguments come back as text, which no JavaScript
		// rounds: the tool reads them as they were sent.
		if err := unpack(&req); err != nil {
			return nil, server.NewHandlerError(companionError{"the view's submit: " + err.Error()})
		}
		req.Params.Name = target
		mark := &viewMark{}
		res, err := handler(context.WithValue(ctx, viewMarkKey{}, mark), req)
		if view := mark.ended.Load(); view != nil && err == nil && res != nil {
			return endedResult(res, *view)
		}
		return res, err
	})
}

// endedResult returns res, the tool's last result, a view's submit got, as
// the view that shows it: view's, made of res's JSON, in place of its
// structuredContent; res itself when view gives none.
func endedResult(res *mcp.CallToolResult, view func(json.RawMessage) ([]byte, error)) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	sc, err := view(b)
	if err != nil {
		return nil, err
	}
	if sc == nil {
		return res, nil
	}
	ended := *res
	ended.StructuredContent = json.RawMessage(sc)
	return &ended, nil
}

// companionError is the error for a companion call that prefab.Reach
// refuses, or whose arguments are not what a view sends: -32602, as
// go-sdk's face sends it. Its zero value is Reach's refusal.
type companionError struct{ msg string }

func (e companionError) message() string {
	if e.msg == "" {
		return prefab.CompanionRefusal
	}
	return e.msg
}

func (e companionError) Error() string { return "invalid params: " + e.message() }

func (companionError) Unwrap() error { return mcp.ErrInvalidParams }

func (e companionError) JSONRPCError() mcp.JSONRPCError {
	return rpcError(mcp.INVALID_PARAMS, e.message(), nil)
}

// unpack puts the tool's own arguments a view sent back as text (see
// prefab.Unpack) among req's arguments, as the tool reads them.
func unpack(req *mcp.CallToolRequest) error {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return err
		}
		raw = b
	}
	out, changed, err := prefab.Unpack(raw)
	if err != nil || !changed {
		return err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return err
	}
	req.Params.RawArguments, req.Params.Arguments = out, v
	return nil
}

// companionArguments returns a companion call's arguments, decoded, for
// prefab.Reach; nil when they are not JSON. They pass on to the tool
// unchanged: prefab.ToolArgument is one of the arguments a flow writes,
// left out of what its state is bound to.
func companionArguments(req *mcp.CallToolRequest) any {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return nil
		}
		raw = b
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}
