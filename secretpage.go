package mcpform

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// SecretPageOptions configures [Flow.SecretPage]. A nil *SecretPageOptions
// and zero fields mean the defaults.
type SecretPageOptions struct {
	// Authorize, when set, is called before the page is shown or accepts a
	// secret, with the page's request and the principal the flow's
	// [FlowOptions].Principal named when it minted the link. A server that
	// authenticates its people checks here that the person on the page is
	// that principal, from its own session cookie or header; an error
	// refuses the page with 403 Forbidden. Nil accepts whoever holds the
	// link.
	Authorize func(r *http.Request, principal string) error
}

// maxSecretPageBody bounds what the page reads of a POST: a few secrets of
// a person's size, with room to spare.
const maxSecretPageBody = 64 << 10

// SecretPage returns the http.Handler that serves the page a [Flow] links
// to in URL mode, where the person types the step's secret fields. Mount it
// at [SecretOptions].PageURL, next to the MCP endpoint; over stdio, serve it
// on a loopback port.
//
// The page is plain HTML that needs no JavaScript and loads nothing from
// elsewhere. It is sent with a strict Content-Security-Policy,
// Cache-Control: no-store and no referrer, and refuses to be framed. It
// accepts a POST only from its own origin, checks each value by the field's
// own rules (length bounds, required), shows the problems on the page, and
// never echoes a value back. A valid POST puts the values into the flow's
// [SecretStore]; a second use of the same link is refused with 410 Gone.
//
// # What the link proves
//
// The link carries a token signed with the flow's codec: it names the run,
// the step, the tool and the principal of the flow that minted it, and it
// expires with the codec's TTL. Replicas sharing the keys and the store all
// accept it. It does not prove who opens it: anyone who holds the link can
// send the secret for that run, once, and the flow takes it only for the
// same principal and run. The client shows the link to the person; a server
// that must bind the page to the person's own login sets
// SecretPageOptions.Authorize, as the spec requires binding elicitation to
// the user's identity.
func (f *Flow) SecretPage(opts *SecretPageOptions) http.Handler {
	p := &secretPage{flow: f}
	if opts != nil {
		p.authorize = opts.Authorize
	}
	return p
}

type secretPage struct {
	flow      *Flow
	authorize func(*http.Request, string) error
}

// pageView is what the page's template shows.
type pageView struct {
	Title   string
	Message string
	Token   string
	Fields  []pageField
	Done    bool
}

type pageField struct {
	Name, Label, Description, Problem string
	Required                          bool
	MinLength, MaxLength              int // 0 means none
}

func (p *secretPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		token := r.URL.Query().Get("t")
		_, step, status := p.open(r, token)
		if status != http.StatusOK {
			p.fail(w, status)
			return
		}
		p.render(w, http.StatusOK, p.view(step, token, nil))
	case http.MethodPost:
		p.post(w, r)
	default:
		h.Set("Allow", "GET, HEAD, POST")
		p.fail(w, http.StatusMethodNotAllowed)
	}
}

// open verifies a link token and finds its step.
func (p *secretPage) open(r *http.Request, token string) (*secretLink, *flowStep, int) {
	var link secretLink
	if token == "" || p.flow.codec.verify(token, BindTo(secretLinkBind), &link, false) != nil {
		return nil, nil, http.StatusNotFound
	}
	i := p.flow.index(link.Step)
	if i < 0 || len(p.flow.steps[i].c.secrets) == 0 {
		return nil, nil, http.StatusNotFound
	}
	if p.authorize != nil && p.authorize(r, link.Principal) != nil {
		return nil, nil, http.StatusForbidden
	}
	return &link, &p.flow.steps[i], http.StatusOK
}

func (p *secretPage) post(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		p.fail(w, http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSecretPageBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			p.fail(w, http.StatusRequestEntityTooLarge)
		} else {
			p.fail(w, http.StatusBadRequest)
		}
		return
	}
	token := r.PostForm.Get("t")
	link, step, status := p.open(r, token)
	if status != http.StatusOK {
		p.fail(w, status)
		return
	}
	values, problems := readSecrets(step, r.PostForm)
	if len(problems) > 0 {
		p.render(w, http.StatusUnprocessableEntity, p.view(step, token, problems))
		return
	}
	raw, _ := json.Marshal(values)
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	expires := time.Now().Add(time.Duration(p.flow.codec.ttl) * time.Second)
	switch err := p.flow.secrets.Store.Put(ctx, link.key(), string(raw), expires); {
	case errors.Is(err, ErrSecretUsed):
		p.fail(w, http.StatusGone)
	case err != nil:
		p.fail(w, http.StatusServiceUnavailable)
	default:
		p.render(w, http.StatusOK, pageView{Title: "Done", Done: true,
			Message: "Thank you. You can close this page and go back to your app."})
	}
}

// readSecrets checks the posted values of step's secrets by the fields'
// rules, and returns them, or a problem per field.
func readSecrets(step *flowStep, form url.Values) (map[string]string, map[string]string) {
	values := make(map[string]string, len(step.c.secrets))
	problems := map[string]string{}
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		v := form.Get(f.Name)
		switch {
		case v == "" && f.Required:
			problems[f.Name] = "Required."
		case v == "":
		case !utf8.ValidString(v):
			problems[f.Name] = "Not valid text."
		default:
			if reason := f.checkValue(v); reason != "" {
				problems[f.Name] = strings.ToUpper(reason[:1]) + reason[1:] + "."
			} else {
				values[f.Name] = v
			}
		}
	}
	return values, problems
}

// sameOrigin reports whether a POST comes from the page itself: the
// browser's Sec-Fetch-Site says so, or its Origin names this host. A
// request with neither is not from a browser's cross-site form.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin":
		// The browser vouches for it. Its Origin is "null" here: Chromium
		// sends that for a form posted from a page served, as this one
		// is, with Referrer-Policy: no-referrer.
		return true
	case "", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

func (p *secretPage) view(step *flowStep, token string, problems map[string]string) pageView {
	v := pageView{Title: step.c.message, Token: token,
		Message: "What you type here goes straight to the server, never through your app or its assistant."}
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		pf := pageField{Name: f.Name, Label: f.title(), Description: f.Description,
			Required: f.Required, Problem: problems[f.Name]}
		if f.Min != nil {
			pf.MinLength = int(*f.Min)
		}
		if f.Max != nil {
			pf.MaxLength = int(*f.Max)
		}
		v.Fields = append(v.Fields, pf)
	}
	return v
}

var pageMessages = map[int]string{
	http.StatusNotFound:              "This link is not valid, or it has expired. Go back to your app to get a new one.",
	http.StatusForbidden:             "This page is not for you, or it was sent from another site.",
	http.StatusGone:                  "This link was already used.",
	http.StatusRequestEntityTooLarge: "That was too much to send.",
	http.StatusBadRequest:            "That could not be read.",
	http.StatusMethodNotAllowed:      "That is not something this page does.",
	http.StatusServiceUnavailable:    "That could not be saved. Please try again.",
}

func (p *secretPage) fail(w http.ResponseWriter, status int) {
	p.render(w, status, pageView{Title: http.StatusText(status), Message: pageMessages[status]})
}

func (p *secretPage) render(w http.ResponseWriter, status int, v pageView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, v)
}

// pageStyle is the page's only style, allowed by its hash in pageCSP.
const pageStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}` +
	`label{display:block;font-weight:600;margin-top:1rem}input{font:inherit;width:100%;padding:.4rem}` +
	`.problem{color:#b00020}.help{color:#555;font-size:.9rem}button{font:inherit;margin-top:1.5rem;padding:.5rem 1.5rem}`

var pageCSP = func() string {
	sum := sha256.Sum256([]byte(pageStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}()

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>{{.Title}}</title><style>` + pageStyle + `</style></head>
<body><h1>{{.Title}}</h1>{{if .Message}}<p>{{.Message}}</p>{{end}}
{{- if .Token}}
<form method="post" autocomplete="off">
<input type="hidden" name="t" value="{{.Token}}">
{{- range .Fields}}
<label for="f-{{.Name}}">{{.Label}}</label>
{{- if .Description}}<div class="help">{{.Description}}</div>{{end}}
<input id="f-{{.Name}}" name="{{.Name}}" type="password" autocomplete="new-password"
{{- if .Required}} required{{end}}{{if .MinLength}} minlength="{{.MinLength}}"{{end}}{{if .MaxLength}} maxlength="{{.MaxLength}}"{{end}}>
{{- if .Problem}}<div class="problem" role="alert">{{.Problem}}</div>{{end}}
{{- end}}
<button type="submit">Send</button>
</form>
{{- end}}
</body></html>
`))
