package mcpform

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	// companionTool is the app-only tool a view's submit calls.
	companionTool = "mcpform_view_submit"
	// toolArgument names, in a companion call, the tool it reaches.
	toolArgument = "mcpformTool"
	// companionMetaKey is where the middleware marks the request's _meta.
	companionMetaKey = "io.github.mcpform/viewSubmit"
)

// viewMark is the companion's mark: only this package makes one. It
// carries the arguments the middleware decoded to find the tool, so that
// the round reads them once rather than twice.
type viewMark struct {
	decoded atomic.Pointer[map[string]any]
}

// theViewMark marks a request as the middleware does, with nothing
// decoded: tests use it.
var theViewMark = &viewMark{}

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

// companionTarget returns the tool a companion call reaches, read from
// its arguments, which pass on unchanged: toolArgument is one of the
// arguments a form or flow writes, left out of what its state is bound to.
// It decodes them with readArguments, as the round would, and returns
// them decoded.
func companionTarget(raw json.RawMessage) (string, map[string]any, bool) {
	v, err := readArguments(raw)
	m, _ := v.(map[string]any)
	tool, _ := m[toolArgument].(string)
	if err != nil || tool == "" || tool == companionTool {
		return "", nil, false
	}
	return tool, m, true
}

// companionMiddleware routes the companion's calls to their tool, marked.
func companionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil || call.Params.Name != companionTool {
			return next(ctx, method, req)
		}
		tool, args, ok := companionTarget(call.Params.Arguments)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: "the view's submit names no tool under " + toolArgument}
		}
		p := *call.Params
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
		return next(ctx, method, &routed)
	}
}

// addCompanion registers the companion tool, app-only, and its middleware.
func addCompanion(server *mcp.Server, uri string) {
	server.AddTool(&mcp.Tool{
		Name:        companionTool,
		Title:       "Submit a form view",
		Description: "Submits an mcpform view to the tool that asked. Called by the view, never by the model.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"` + toolArgument + `":{"type":"string"}},"required":["` + toolArgument + `"]}`),
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": uri, "visibility": []string{"app"}}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The middleware routes every call of the companion; reaching
		// here means it was not installed, as on a server AddViewer did
		// not build.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the view's submit reached no tool"}
	})
	server.AddReceivingMiddleware(companionMiddleware)
}
