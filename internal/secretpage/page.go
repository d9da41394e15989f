// Package secretpage writes the page on which a person types the secrets
// a flow asks for in URL mode: its HTML, from html/template, and the
// headers every answer of the page carries, a strict
// Content-Security-Policy among them. It takes the page's words as they
// are to be shown, in the page's language; choosing them, and what the
// page does, is its caller's.
//
// It also seals and opens the page's link (link.go), and makes and checks
// the page's cookie and MACs, under keys derived from a request-state
// codec's keys; the link's records in a store are its caller's.
package secretpage

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"
)

// A Page is one page to show: a form that asks for secrets, or a message.
type Page struct {
	// Lang is the page's language, a BCP 47 tag; "" means "en". Any other
	// is also sent as Content-Language.
	Lang string
	// Title is the document's title, Heading the page's heading, and
	// Message, if not empty, the paragraph below it.
	Title, Heading, Message string
	// HeadingLang is the language of Heading when it is not Lang, as when
	// the author gave no translation of it; "" when it is Lang.
	HeadingLang string
	// TitleLang is the language of Title when it is not Lang; "" means
	// Lang, or HeadingLang when Title is Heading.
	TitleLang string
	// Token is the link's token and Check the form's token, posted back
	// as "t" and "c". The page has a form only when Token is set.
	Token, Check string
	// Fields are the form's fields, shown unless Stop is set. The first
	// field with a Problem gets the focus.
	Fields []Field
	// Button is the text of the form's button.
	Button string
	// Stop, when set, is the text of the button of a form that stops the
	// link, posted as "a=stop", in place of the fields.
	Stop string
}

// A Field is one secret field of a form: a password input, whose value
// the page never shows.
type Field struct {
	// Name is the input's name, under which its value is posted.
	Name string
	// Label and Description are the field's label and help; "" shows no
	// help.
	Label, Description string
	// LabelLang and DescriptionLang are the languages of Label and
	// Description when they are not the page's; "" when they are.
	LabelLang, DescriptionLang string
	// Problem says what is wrong with the value sent; "" says nothing is.
	// It shows between the help and the input, as GOV.UK's error
	// message does, so that it is read before the value is typed again.
	Problem string
	// ProblemParts are the parts of Problem in another language than the
	// page's, in order, such as the label the author left untranslated;
	// each is shown in a span with its lang. Nil marks none.
	ProblemParts []Part
	// Required marks the input required.
	Required bool
	// MinLength and MaxLength bound the value's length; 0 means none.
	MinLength, MaxLength int
}

// A Part is a part of a text in another language than the page's: the
// bytes of the text from At, for Len, are in Lang.
type Part struct {
	At, Len int
	Lang    string
}

// A piece is a run of a text, in Lang when it is not "", as the template
// shows it.
type piece struct{ Text, Lang string }

// pieces cuts text at its parts; nil when none fits in it.
func pieces(text string, parts []Part) []piece {
	var out []piece
	pos := 0
	for _, p := range parts {
		if p.Lang == "" || p.Len <= 0 || p.At < pos || p.At+p.Len > len(text) {
			continue // none, or out of order: never a wrong lang
		}
		if p.At > pos {
			out = append(out, piece{Text: text[pos:p.At]})
		}
		out = append(out, piece{Text: text[p.At : p.At+p.Len], Lang: p.Lang})
		pos = p.At + p.Len
	}
	if out != nil && pos < len(text) {
		out = append(out, piece{Text: text[pos:]})
	}
	return out
}

// A field is a Field as the template shows it. Ids are by position, so
// that any field name makes a valid id. The template reads the fields of
// field and view directly: a promoted field would cost it a search by
// name, with allocations, at each use.
type field struct {
	ID, Name, Label, Description, Problem string
	LabelLang, DescriptionLang            string
	ProblemPieces                         []piece // Problem cut at its parts; nil for none
	Required, Focus                       bool
	MinLength, MaxLength                  int
	DescribedBy                           string // see describedBy
}

// view is a Page as the template shows it.
type view struct {
	Lang                    string // never ""
	Title, Heading, Message string
	TitleLang, HeadingLang  string // TitleLang is HeadingLang when Title is Heading
	Token, Check            string
	Fields                  []field
	Button, Stop            string
}

// describedBy lists the ids of what describes f: its help, then its
// problem. It is a field the template reads, not a method it calls: a
// call from a template goes through reflection, a page's dearest action.
func describedBy(f *field) string {
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

// SetHeaders sets the headers every answer of the page carries, whatever
// its status: the page's Content-Security-Policy, no caching, no referrer,
// no sniffing and no framing.
func SetHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
}

// Write answers r with status and p as HTML. A HEAD gets the same status
// and headers, Content-Length included, and no body.
func Write(w http.ResponseWriter, r *http.Request, status int, p *Page) {
	v := view{Lang: cmp.Or(p.Lang, "en"), Title: p.Title, Heading: p.Heading, HeadingLang: p.HeadingLang, Message: p.Message,
		Token: p.Token, Check: p.Check, Fields: make([]field, len(p.Fields)), Button: p.Button, Stop: p.Stop}
	v.TitleLang = p.TitleLang
	if v.TitleLang == "" && v.Title == v.Heading {
		v.TitleLang = v.HeadingLang
	}
	focused := false
	for i := range p.Fields {
		pf, f := &p.Fields[i], &v.Fields[i]
		*f = field{ID: "f-" + strconv.Itoa(i), Name: pf.Name, Label: pf.Label, Description: pf.Description,
			LabelLang: pf.LabelLang, DescriptionLang: pf.DescriptionLang,
			Problem: pf.Problem, Required: pf.Required, MinLength: pf.MinLength, MaxLength: pf.MaxLength}
		if pf.ProblemParts != nil {
			f.ProblemPieces = pieces(f.Problem, pf.ProblemParts)
		}
		if f.Problem != "" && !focused {
			f.Focus, focused = true, true
		}
		f.DescribedBy = describedBy(f)
	}
	var b bytes.Buffer
	b.Grow(len(source) + 1024) // once, rather than doubling up to a page
	if err := page.Execute(&b, v); err != nil {
		panic(err) // the template and its data are the package's own
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	if v.Lang != "en" {
		h.Set("Content-Language", v.Lang)
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// style is the page's only style, allowed by its hash in CSP. It follows
// the browser's light or dark scheme, and sizes inputs by their border
// box, so that none overflows its column on a narrow screen. Its colours
// are set, not left to the scheme's canvas, so that a checker that cannot
// see the canvas (axe-core) judges what a person sees; they are the
// viewer's (internal/prefab/viewer.css), so the page looks like the view
// that links to it.
//
// The form's button is the page's primary action, drawn filled. The
// button that stops a used link is secondary, drawn in outline: it
// follows the hidden input a=stop, and comes after the message that tells
// a person who sent the page that they are done. The heading shrinks with
// the screen, down to 1.375rem, rather than wrapping on a phone.
const style = `:root{color-scheme:light dark}*,*::before,*::after{box-sizing:border-box}` +
	`body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;background:#fff;color:#1a1a1a}` +
	`h1{font-size:clamp(1.375rem,1rem + 1.5vw,2rem);line-height:1.25;margin:0 0 1rem}` +
	`label{display:block;font-weight:600;margin-top:1rem}` +
	`input{font:inherit;width:100%;padding:.5rem;border:1px solid #767676;border-radius:4px}` +
	`input[aria-invalid=true]{border:2px solid #b00020}` +
	`.problem{color:#b00020;font-weight:600}.help{color:#595959;font-size:.9rem}` +
	`button{font:inherit;font-weight:600;margin-top:1.5rem;padding:.625rem 1.5rem;border:2px solid #1d4ed8;border-radius:6px;` +
	`background:#1d4ed8;color:#fff;cursor:pointer}` +
	`button:hover{background:#1e40af;border-color:#1e40af}button:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}` +
	`input[name=a]+button{background:transparent;color:#1d4ed8;border-color:#6b7280}` +
	`input[name=a]+button:hover{background:#eff6ff}` +
	`@media (max-width:479.98px){body{margin:1.5rem auto}}` +
	`@media (prefers-color-scheme:dark){body{background:#121212;color:#e8e8e8}input{border-color:#949494}.help{color:#c4c4c4}` +
	`.problem{color:#ff8a80}input[aria-invalid=true]{border-color:#ff8a80}` +
	`button{background:#60a5fa;border-color:#60a5fa;color:#09090b}button:hover{background:#93c5fd;border-color:#93c5fd}` +
	`button:focus-visible{outline-color:#60a5fa}` +
	`input[name=a]+button{background:transparent;color:#93c5fd;border-color:#a1a1aa}input[name=a]+button:hover{background:#1e3a5f}}`

// CSP is the page's Content-Security-Policy: its one style, by hash, and
// nothing else to load; forms post only to the page's own origin, and no
// page may frame it.
var CSP = func() string {
	sum := sha256.Sum256([]byte(style))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}()

var page = template.Must(template.Must(template.New("page").Parse(source)).Parse(pieced))

// pieced is the template of a problem with parts in another language,
// each in a span of its lang. It is apart from source, which sizes a
// page's buffer, as few pages show it.
const pieced = `{{define "pieced"}}{{range .}}{{if .Lang}}<span lang="{{.Lang}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{end}}`

const source = `<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">
<title{{with .TitleLang}} lang="{{.}}"{{end}}>{{.Title}}</title><style>` + style + `</style></head>
<body><main><h1{{with .HeadingLang}} lang="{{.}}"{{end}}>{{.Heading}}</h1>{{if .Message}}<p>{{.Message}}</p>{{end}}
{{- if .Token}}
<form method="post" autocomplete="off">
<input type="hidden" name="t" value="{{.Token}}">
<input type="hidden" name="c" value="{{.Check}}">
{{- if .Stop}}
<input type="hidden" name="a" value="stop">
<button type="submit">{{.Stop}}</button>
{{- else}}
{{- range .Fields}}
<label for="{{.ID}}"{{with .LabelLang}} lang="{{.}}"{{end}}>{{.Label}}</label>
{{- if .Description}}<div class="help" id="{{.ID}}-help"{{with .DescriptionLang}} lang="{{.}}"{{end}}>{{.Description}}</div>{{end}}
{{- if .Problem}}<div class="problem" id="{{.ID}}-problem" role="alert">
{{- if .ProblemPieces}}{{template "pieced" .ProblemPieces}}{{else}}{{.Problem}}{{end}}</div>{{end}}
<input id="{{.ID}}" name="{{.Name}}" type="password" autocomplete="new-password"
{{- if .Required}} required{{end}}{{if .MinLength}} minlength="{{.MinLength}}"{{end}}{{if .MaxLength}} maxlength="{{.MaxLength}}"{{end}}
{{- if .Problem}} aria-invalid="true"{{end}}{{with .DescribedBy}} aria-describedby="{{.}}"{{end}}{{if .Focus}} autofocus{{end}}>
{{- end}}
<button type="submit">{{.Button}}</button>
{{- end}}
</form>
{{- end}}
</main></body></html>
`
