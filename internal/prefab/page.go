package prefab

import (
	"encoding/json"
	"html/template"
	"strings"
)

// OutcomesID is the id of the viewer page's data element that holds, by
// language code, the view of a final result that is no view (see
// [Outcome]), as JSON: the viewer's script renders it in the person's
// language.
const OutcomesID = "mcpform-outcomes"

// page is the viewer page: prefab's stylesheet, the viewer's own CSS, the
// mount point, in the page's main landmark, the outcome views, the
// viewer's script, then prefab's renderer. The embedded files hold no "</style", "</script" or "<!--"
// (TestAssets), so they can stand inline as they are; the outcome views
// are JSON, whose encoder escapes every "<".
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
<main><div id="root"></div></main>
<script type="application/json" id="` + OutcomesID + `">{{.Outcomes}}</script>
<script>{{.ViewerJS}}</script>
{{if .Base}}<script src="{{.Base}}/` + JSFile + `" {{.JSIntegrity}} crossorigin></script>
{{else}}<script>{{.JS}}</script>
{{end}}</body>
</html>
`))

// Viewer returns the viewer page titled title, which shows a final result
// that is no view in the words of each of langs, English first. With base
// empty it is self-contained: the renderer and its stylesheet are inlined.
// Otherwise base, an absolute http or https URL of a folder without a
// trailing slash, checked by the caller, serves them, and the page loads
// them from there with their integrity.
func Viewer(title, base string, langs ...*Text) (string, error) {
	outcomes := make(map[string]json.RawMessage, len(langs))
	for _, t := range langs {
		code := t.Lang
		if code == "" {
			code = "en"
		}
		b, err := Outcome(t)
		if err != nil {
			return "", err
		}
		outcomes[code] = b
	}
	data, err := json.Marshal(outcomes) // escapes "<", so no "</script"
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = page.Execute(&b, struct {
		Title, Base               string
		CSS, ViewerCSS            template.CSS
		ViewerJS, JS, Outcomes    template.JS
		CSSIntegrity, JSIntegrity template.HTMLAttr
	}{
		Title: title, Base: base,
		CSS: template.CSS(CSS), ViewerCSS: template.CSS(ViewerCSS),
		ViewerJS: template.JS(ViewerJS), JS: template.JS(JS), Outcomes: template.JS(data),
		CSSIntegrity: template.HTMLAttr(`integrity="` + Integrity()[CSSFile] + `"`),
		JSIntegrity:  template.HTMLAttr(`integrity="` + Integrity()[JSFile] + `"`),
	})
	return b.String(), err
}
