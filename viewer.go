package mcpform

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"strings"

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
	// DefaultRendererBaseURL is where the viewer loads prefab.css and
	// renderer.auto.min.js from by default: the jsDelivr path of the
	// @maxhealth.tech/prefab version mcpform's wire matches, the same
	// location prefab's own rendererHtml uses.
	DefaultRendererBaseURL = "https://cdn.jsdelivr.net/npm/@maxhealth.tech/prefab@0.3.13/dist"
)

// ViewerOptions configures the MCP Apps viewer resource. A nil
// *ViewerOptions and zero fields mean the defaults.
type ViewerOptions struct {
	// URI is the resource's ui:// URI. Empty means [ViewerURI].
	URI string
	// BaseURL is the absolute http or https URL of the folder that holds
	// prefab's prefab.css and renderer.auto.min.js. Empty means
	// [DefaultRendererBaseURL]. A server that serves them itself must
	// send Access-Control-Allow-Origin, because the viewer's sandboxed
	// frame has an opaque origin and loads them with crossorigin.
	BaseURL string
	// Title is the resource's title and the page's. Empty means "Form".
	Title string
}

type viewer struct {
	uri, base, origin, title string
}

func (o *ViewerOptions) resolve() (*viewer, error) {
	v := &viewer{uri: ViewerURI, base: DefaultRendererBaseURL, title: "Form"}
	if o != nil {
		if o.URI != "" {
			v.uri = o.URI
		}
		if o.BaseURL != "" {
			v.base = o.BaseURL
		}
		if o.Title != "" {
			v.title = o.Title
		}
	}
	if !strings.HasPrefix(v.uri, "ui://") || len(v.uri) == len("ui://") {
		return nil, fmt.Errorf("mcpform: viewer URI %q is not a ui:// URI", v.uri)
	}
	u, err := url.Parse(v.base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("mcpform: renderer base URL %q is not an absolute http or https URL of a folder", v.base)
	}
	v.base = strings.TrimSuffix(v.base, "/")
	v.origin = u.Scheme + "://" + u.Host
	return v, nil
}

// meta is the resource's _meta: the CSP a host must allow for the renderer.
func (v *viewer) meta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"csp": map[string]any{"resourceDomains": []string{v.origin}}}}
}

func (v *viewer) html() string {
	base := html.EscapeString(v.base)
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(v.title) + `</title>
<link rel="stylesheet" href="` + base + `/prefab.css" crossorigin>
</head>
<body>
<div id="root"></div>
<script src="` + base + `/renderer.auto.min.js" crossorigin></script>
</body>
</html>
`
}

// ViewerHTML returns the HTML of the MCP Apps viewer that renders a
// [DisplayForm] result: a page that loads prefab's stylesheet and
// self-mounting renderer from opts.BaseURL, with crossorigin. The renderer
// answers the host's ui/* messages and mounts the tool result. The page is
// mcpform's; prefab's code is loaded, never bundled.
//
// ViewerHTML returns an error when opts.URI is not a ui:// URI or
// opts.BaseURL is not an absolute http or https URL without query or
// fragment.
func ViewerHTML(opts *ViewerOptions) (string, error) {
	v, err := opts.resolve()
	if err != nil {
		return "", err
	}
	return v.html(), nil
}

// viewerCacheTTL is how long a client may cache the viewer: its HTML is a
// pure function of the options, so a day is safe, as prefab does.
const viewerCacheTTL = 24 * 60 * 60 * 1000

// AddViewer registers the viewer of [ViewerHTML] on server as an MCP Apps
// resource at opts.URI, with MIME type [AppMIMEType] and the renderer's
// origin in _meta.ui.csp.resourceDomains, on both the listing and the
// content, since hosts read either. The content may be cached for a day.
//
// AddViewer also registers the app-only tool that a view submits to,
// with _meta.ui.visibility ["app"], which MCP Apps hosts hide from the
// model, and the receiving middleware that passes its calls on to the tool
// that asked, marked as a view's: a [Form] or [Flow] reads a view's
// answer only from a call that came this way. Call it before serving.
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
	page, meta := v.html(), v.meta()
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
