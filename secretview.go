package mcpform

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

// A pageText is one state of the secret page, as the person reads it: a
// heading, which is also the title, and what to do, in English; h and m
// are their texts in the catalogs, which the page shows in the person's
// language.
type pageText struct {
	Heading, Message string
	h, m             msg
	refusal          bool // the message ends with msgPageAfterRefusal
}

// in returns t's heading and message in l.
func (t *pageText) in(l lang) (heading, message string) {
	if l == langEN {
		return t.Heading, t.Message
	}
	message = l.text(t.m)
	if t.refusal {
		message += l.text(msgPageAfterRefusal)
	}
	return l.text(t.h), message
}

func newPageText(h, m msg, refusal bool) pageText {
	t := pageText{Heading: catalogEN[h], Message: catalogEN[m], h: h, m: m, refusal: refusal}
	if refusal {
		t.Message += catalogEN[msgPageAfterRefusal]
	}
	return t
}

// pageStrings is every string the secret page shows, in English, taken
// from the catalogs, where every language has them. Headings say what
// happened in words, never an HTTP status.
var pageStrings = struct {
	Intro      string // above the form
	Send       string // the form's button
	ErrorTitle string // before the title of a page with a problem
	Required   string // a required field left empty
	NotText    string // a value that is not UTF-8
	Stop       string // the button that stops a link someone else used

	Done          pageText // the browser that sent the secret
	Used          pageText // any other browser, once it was sent
	Stopped       pageText // the link, stopped by a person who did not send it
	UsedElsewhere pageText // a post from a browser that did not claim the link
	Refused       pageText // a link refused for good
	Ended         pageText // a link whose flow ended without its secret
	Finished      pageText // any browser, once the flow took the secret and finished
	BadLink       pageText // a link that does not open, or has expired
	NotYours      pageText // Authorize refused the person
	AnotherSite   pageText // CrossOriginProtection refused the post
	NoCookie      pageText // a post without the page's cookie and form token
	TooBig        pageText
	Unreadable    pageText
	Method        pageText
	Unavailable   pageText // the store failed
}{
	Intro:         catalogEN[msgPageIntro],
	Send:          catalogEN[msgPageSend],
	ErrorTitle:    catalogEN[msgPageErrorTitle],
	Required:      catalogEN[msgPageRequired],
	NotText:       catalogEN[msgPageNotText],
	Stop:          catalogEN[msgPageStop],
	Done:          newPageText(msgDoneHeading, msgDoneMessage, false),
	Used:          newPageText(msgUsedHeading, msgUsedMessage, false),
	Stopped:       newPageText(msgStoppedHeading, msgStoppedMessage, false),
	UsedElsewhere: newPageText(msgUsedElsewhereHeading, msgUsedElsewhereMessage, true),
	Refused:       newPageText(msgRefusedHeading, msgRefusedMessage, true),
	Ended:         newPageText(msgEndedHeading, msgEndedMessage, false),
	Finished:      newPageText(msgFinishedHeading, msgFinishedMessage, false),
	BadLink:       newPageText(msgBadLinkHeading, msgBadLinkMessage, false),
	NotYours:      newPageText(msgNotYoursHeading, msgNotYoursMessage, true),
	AnotherSite:   newPageText(msgAnotherSiteHeading, msgAnotherSiteMessage, false),
	NoCookie:      newPageText(msgNoCookieHeading, msgNoCookieMessage, false),
	TooBig:        newPageText(msgTooBigHeading, msgTooBigMessage, false),
	Unreadable:    newPageText(msgUnreadableHeading, msgUnreadableMessage, false),
	Method:        newPageText(msgMethodHeading, msgMethodMessage, false),
	Unavailable:   newPageText(msgUnavailableHeading, msgUnavailableMessage, false),
}

// pageLang is the language of the page for r: its Accept-Language.
func pageLang(r *http.Request) lang { return matchLang(r.Header.Get(headerAcceptLanguage)) }

// pageView is what the page's template shows.
type pageView struct {
	text *pageText

	Title, Heading, Message string
	Token, Check            string // the link and the form's token; the form is shown with a Token
	Fields                  []pageField
	Button                  string
	Stop                    string // the button of a form that stops the link, in place of Fields
}

type pageField struct {
	ID, Name, Label, Description, Problem string
	Required, Focus                       bool
	MinLength, MaxLength                  int    // 0 means none
	DescribedBy                           string // see describedBy
}

// describedBy lists the ids of what describes f: its help, then its
// problem. It is a field the template reads, not a method it calls: a
// call from a template goes through reflection, a page's dearest action.
func describedBy(f *pageField) string {
	switch {
	case f.Description != "" && f.Problem != "":
		return f.ID + "-help " + f.ID + "-problem"
	case f.Description != "":
		return f.ID + "-help"
	case f.Problem != "":
		return f.ID + "-problem"
	}
	return ""
}

// form returns the view of step's form for link in l, naming problems by
// field and focusing the first field with one. Ids are by position, so
// that any field name makes a valid id.
func (p *secretPage) form(l lang, step *flowStep, link *secretLink, token string, c pageCookie, problems map[string]string) pageView {
	if l != langEN {
		lf := p.flow.in(l)
		step = &lf.steps[lf.index(step.c.key)]
	}
	v := pageView{Title: step.c.message, Heading: step.c.message, Message: l.text(msgPageIntro),
		Token: token, Check: p.flow.links.mac(macForm, link, c.n), Button: l.text(msgPageSend)}
	v.Fields = make([]pageField, 0, len(step.c.secrets))
	focused := false
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		pf := pageField{ID: "f-" + strconv.Itoa(i), Name: f.Name, Label: f.title(), Description: f.Description,
			Required: f.Required, Problem: problems[f.Name]}
		if pf.Problem != "" && !focused {
			pf.Focus, focused = true, true
		}
		if f.Min != nil {
			pf.MinLength = int(*f.Min)
		}
		if f.Max != nil {
			pf.MaxLength = int(*f.Max)
		}
		pf.DescribedBy = describedBy(&pf)
		v.Fields = append(v.Fields, pf)
	}
	if focused {
		v.Title = l.text(msgPageErrorTitle) + v.Title
	}
	return v
}

// show answers with status and the page of v, a form or v.text. A HEAD
// gets the same status and headers, Content-Length included, and no body.
func (p *secretPage) show(w http.ResponseWriter, r *http.Request, status int, v pageView) {
	l := pageLang(r)
	if v.text != nil {
		v.Heading, v.Message = v.text.in(l)
		v.Title = v.Heading
		if status >= 400 && v.text != &pageStrings.Done && v.text != &pageStrings.Used && v.text != &pageStrings.Finished {
			v.Title = l.text(msgPageErrorTitle) + v.Title
		}
	}
	if v.Stop != "" {
		v.Stop = l.text(msgPageStop)
	}
	var b bytes.Buffer
	b.Grow(len(pageSource) + 1024) // once, rather than doubling up to a page
	if err := pageTemplates[l].Execute(&b, v); err != nil {
		panic(err) // the template and its data are the package's own
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	if l != langEN {
		h.Set("Content-Language", langCodes[l])
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// pageStyle is the page's only style, allowed by its hash in pageCSP. It
// follows the browser's light or dark scheme, and sizes inputs by their
// border box, so that none overflows its column on a narrow screen. Its
// colours are set, not left to the scheme's canvas, so that a checker
// that cannot see the canvas (axe-core) judges what a person sees.
const pageStyle = `:root{color-scheme:light dark}*,*::before,*::after{box-sizing:border-box}` +
	`body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;background:#fff;color:#1a1a1a}` +
	`label{display:block;font-weight:600;margin-top:1rem}` +
	`input{font:inherit;width:100%;padding:.5rem;border:1px solid #767676;border-radius:4px}` +
	`input[aria-invalid=true]{border:2px solid #b00020}` +
	`.problem{color:#b00020;font-weight:600}.help{color:#595959;font-size:.9rem}` +
	`button{font:inherit;margin-top:1.5rem;padding:.5rem 1.5rem}` +
	`@media (prefers-color-scheme:dark){body{background:#121212;color:#e8e8e8}input{border-color:#949494}.help{color:#c4c4c4}` +
	`.problem{color:#ff8a80}input[aria-invalid=true]{border-color:#ff8a80}}`

var pageCSP = func() string {
	sum := sha256.Sum256([]byte(pageStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}()

// pageTemplates are the page's template in each language: its lang
// attribute is written in, not filled in, which would cost each page an
// escaper's allocations.
var pageTemplates = func() (t [langCount]*template.Template) {
	for l := range langCount {
		t[l] = template.Must(template.New("page").Parse(strings.Replace(pageSource, `lang="en"`, `lang="`+langCodes[l]+`"`, 1)))
	}
	return t
}()

const pageSource = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">
<title>{{.Title}}</title><style>` + pageStyle + `</style></head>
<body><main><h1>{{.Heading}}</h1>{{if .Message}}<p>{{.Message}}</p>{{end}}
{{- if .Token}}
<form method="post" autocomplete="off">
<input type="hidden" name="t" value="{{.Token}}">
<input type="hidden" name="c" value="{{.Check}}">
{{- if .Stop}}
<input type="hidden" name="a" value="stop">
<button type="submit">{{.Stop}}</button>
{{- else}}
{{- range .Fields}}
<label for="{{.ID}}">{{.Label}}</label>
{{- if .Description}}<div class="help" id="{{.ID}}-help">{{.Description}}</div>{{end}}
<input id="{{.ID}}" name="{{.Name}}" type="password" autocomplete="new-password"
{{- if .Required}} required{{end}}{{if .MinLength}} minlength="{{.MinLength}}"{{end}}{{if .MaxLength}} maxlength="{{.MaxLength}}"{{end}}
{{- if .Problem}} aria-invalid="true"{{end}}{{with .DescribedBy}} aria-describedby="{{.}}"{{end}}{{if .Focus}} autofocus{{end}}>
{{- if .Problem}}<div class="problem" id="{{.ID}}-problem" role="alert">{{.Problem}}</div>{{end}}
{{- end}}
<button type="submit">{{.Button}}</button>
{{- end}}
</form>
{{- end}}
</main></body></html>
`
