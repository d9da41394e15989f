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

// html is the viewer page: prefab's stylesheet, the viewer's own CSS, the
// mount point, the viewer's script, then prefab's renderer. The embedded
// files hold no "</style", "</script" or "<!--" (TestViewerAssets), so they
// can stand inline as they are.
func (v *viewer) html() string {
	var b strings.Builder
	b.WriteString(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(v.title) + "</title>\n")
	if v.base == "" {
		b.WriteString("<style>" + prefabCSS + "</style>\n")
	} else {
		b.WriteString(`<link rel="stylesheet" href="` + html.EscapeString(v.base+"/"+prefabCSSFile) +
			`" integrity="` + prefabIntegrity()[prefabCSSFile] + `" crossorigin>` + "\n")
	}
	b.WriteString("<style>" + viewerCSS + "</style>\n</head>\n<body>\n<div id=\"root\"></div>\n")
	b.WriteString("<script>" + viewerScript + "</script>\n")
	if v.base == "" {
		b.WriteString("<script>" + prefabJS + "</script>\n")
	} else {
		b.WriteString(`<script src="` + html.EscapeString(v.base+"/"+prefabJSFile) +
			`" integrity="` + prefabIntegrity()[prefabJSFile] + `" crossorigin></script>` + "\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
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
// fields, a repair of the renderer.
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
// resource at opts.URI, with MIME type [AppMIMEType] and its CSP in
// _meta.ui.csp, on both the listing and the content, since hosts read
// either: no origin for the default, self-contained viewer, and the
// origin of opts.BaseURL when it loads the renderer from there. The
// content may be cached for a day.
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
