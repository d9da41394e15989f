package mcpform

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestViewerHTML(t *testing.T) {
	page, err := ViewerHTML(nil)
	require.NoError(t, err)
	hrefs := regexp.MustCompile(`<(?:link|script)\b[^>]*\b(?:href|src)="([^"]*)"[^>]*>`).FindAllStringSubmatch(page, -1)
	var urls []string
	for _, m := range hrefs {
		assert.Contains(t, m[0], "crossorigin", "loaded without crossorigin: %s", m[0])
		urls = append(urls, m[1])
	}
	assert.Equal(t, []string{DefaultRendererBaseURL + "/prefab.css", DefaultRendererBaseURL + "/renderer.auto.min.js"}, urls)
	assert.Contains(t, page, `<div id="root"></div>`)

	page, err = ViewerHTML(&ViewerOptions{BaseURL: "http://127.0.0.1:8080/assets/prefab/", Title: `Tom & "Jerry"`})
	require.NoError(t, err)
	assert.Contains(t, page, `href="http://127.0.0.1:8080/assets/prefab/prefab.css"`)
	assert.Contains(t, page, `src="http://127.0.0.1:8080/assets/prefab/renderer.auto.min.js"`)
	assert.Contains(t, page, `<title>Tom &amp; &#34;Jerry&#34;</title>`)

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

// TestViewerMatchesTypeScript checks that the default renderer location is
// the one prefab's own rendererHtml pins.
func TestViewerMatchesTypeScript(t *testing.T) {
	ts := callPrefab(t, []map[string]any{{"fn": "rendererHtml", "args": []any{}}})
	require.Empty(t, ts[0].Error)
	var tsPage string
	require.NoError(t, json.Unmarshal(ts[0].Result, &tsPage))
	page, err := ViewerHTML(nil)
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
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	opts := &ViewerOptions{BaseURL: "https://assets.example.com:8443/prefab", Title: "Signup"}
	require.NoError(t, AddViewer(server, opts))
	cs := connect(t, server, nil)

	wantMeta := mcp.Meta{"ui": map[string]any{"csp": map[string]any{"resourceDomains": []any{"https://assets.example.com:8443"}}}}
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
