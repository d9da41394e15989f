package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
