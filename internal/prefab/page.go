package prefab

import (
	"html/template"
	"strings"
)

// page is the viewer page: prefab's stylesheet, the viewer's own CSS, the
// mount point, the viewer's script, then prefab's renderer. The embedded
// files hold no "</style", "</script" or "<!--" (TestAssets), so they can
// stand inline as they are.
var page = template.Must(template.New("viewer").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
{{if .Base}}<link rel="stylesheet" href="{{.Base}}/` + CSSFile + `" {{.CSSIntegrity}} crossorigin>
{{else}}<style>{{.CSS}}</style>
{{end}}<style>{{.ViewerCSS}}</style>
</head>
<body>
<div id="root"></div>
<script>{{.ViewerJS}}</script>
{{if .Base}}<script src="{{.Base}}/` + JSFile + `" {{.JSIntegrity}} crossorigin></script>
{{else}}<script>{{.JS}}</script>
{{end}}</body>
</html>
`))

// Viewer returns the viewer page titled title. With base empty it is
// self-contained: the renderer and its stylesheet are inlined. Otherwise
// base, an absolute http or https URL of a folder without a trailing
// slash, checked by the caller, serves them, and the page loads them from
// there with their integrity.
func Viewer(title, base string) (string, error) {
	var b strings.Builder
	err := page.Execute(&b, struct {
		Title, Base               string
		CSS, ViewerCSS            template.CSS
		ViewerJS, JS              template.JS
		CSSIntegrity, JSIntegrity template.HTMLAttr
	}{
		Title: title, Base: base,
		CSS: template.CSS(CSS), ViewerCSS: template.CSS(ViewerCSS),
		ViewerJS: template.JS(ViewerJS), JS: template.JS(JS),
		CSSIntegrity: template.HTMLAttr(`integrity="` + Integrity()[CSSFile] + `"`),
		JSIntegrity:  template.HTMLAttr(`integrity="` + Integrity()[JSFile] + `"`),
	})
	return b.String(), err
}
