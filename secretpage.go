package mcpform

import (
	"cmp"
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

// SecretPageOptions configures [Flow.SecretPage]. It must say who may use
// a link: an Authorize function, or AnyoneWithTheLink.
type SecretPageOptions struct {
	// Authorize, when set, is called before the page is shown or accepts a
	// secret, with the page's request and the principal the flow's
	// [FlowOptions].Principal named when it minted the link. A server that
	// authenticates its people checks here that the person on the page is
	// that principal, from its own session cookie or header; an error
	// refuses the page with 403 Forbidden, and a refused post also refuses
	// the link ([ErrSecretRefused]).
	Authorize func(r *http.Request, principal string) error
	// AnyoneWithTheLink, with a nil Authorize, says that whoever holds a
	// link may use it, once: right only where the person is the only one
	// who can reach the page, such as a page on loopback for a local
	// server. With both unset, SecretPage refuses to make the page.
	AnyoneWithTheLink bool
}

// maxSecretPageBody bounds what the page reads of a POST: a few secrets of
// a person's size, with room to spare.
const maxSecretPageBody = 64 << 10

// SecretPage returns the http.Handler that serves the page a [Flow] links
// to in URL mode, where the person types the step's secret fields. Mount it
// at [SecretOptions].PageURL, next to the MCP endpoint; over stdio, serve it
// on a loopback port. It returns an error when opts (nil included) sets
// neither Authorize nor AnyoneWithTheLink.
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
// accept it. It does not prove who opens it, and it rides in a URL, which
// proxies, logs and browser histories keep. So:
//
//   - The first GET of a link claims it: the page records the claim in the
//     store and gives the browser its proof, a cookie scoped to the page's
//     path (HttpOnly, SameSite=Strict, Secure over TLS or for an https
//     PageURL). Only a browser with the proof is shown the form again, and
//     a POST without it is refused. A link copied from a log is no use once
//     the person has opened it; a chat app that fetches a preview of the
//     link opens it too.
//   - Any other use of a claimed link, a GET or POST without the proof, a
//     POST from another site or one Authorize refuses, refuses the link for
//     good, with 409 Conflict (403 for the last two) and a page that says
//     what to do: go back to the app for a new link. The flow then takes
//     nothing from the link, not even a secret the person sent before, and
//     ends with [FlowInvalid] and [ErrSecretRefused], so the tool changes
//     nothing and can say why. Claims and refusals live in the store, so
//     every replica sharing it agrees.
//
// A server that must bind the page to the person's own login sets
// SecretPageOptions.Authorize, as the spec requires binding elicitation to
// the user's identity; AnyoneWithTheLink says, in so many words, that
// there is no login to bind to.
func (f *Flow) SecretPage(opts *SecretPageOptions) (http.Handler, error) {
	if opts == nil || (opts.Authorize == nil && !opts.AnyoneWithTheLink) {
		return nil, errors.New("mcpform: SecretPage needs SecretPageOptions.Authorize, " +
			"or AnyoneWithTheLink to let whoever holds a link use it")
	}
	p := &secretPage{flow: f, authorize: opts.Authorize}
	if f.secrets != nil {
		// The cookie is scoped to the path the browser sees, which a
		// proxy in front of the page may rewrite.
		if u, err := url.Parse(f.secrets.PageURL); err == nil {
			p.cookiePath, p.secure = u.Path, u.Scheme == "https"
		}
	}
	return p, nil
}

type secretPage struct {
	flow       *Flow
	authorize  func(*http.Request, string) error
	cookiePath string // "" means the request's
	secure     bool   // the PageURL is https
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
	case http.MethodGet:
		p.get(w, r)
	case http.MethodHead:
		// A HEAD checks the link, and claims nothing.
		_, _, status := p.open(r, r.URL.Query().Get("t"))
		p.fail(w, status)
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
	if token == "" || p.flow.codec.Verify(token, BindTo(secretLinkBind), &link) != nil {
		return nil, nil, http.StatusNotFound
	}
	i := p.flow.index(link.Step)
	if i < 0 || len(p.flow.steps[i].c.secrets) == 0 {
		return nil, nil, http.StatusNotFound
	}
	if p.authorize != nil && p.authorize(r, link.Principal) != nil {
		return &link, nil, http.StatusForbidden
	}
	return &link, &p.flow.steps[i], http.StatusOK
}

// expires is when what the page stores now stops mattering: when a link
// minted now would expire.
func (p *secretPage) expires() time.Time {
	return time.Now().Add(time.Duration(p.flow.codec.ttl) * time.Second)
}

// get shows the form to the first browser that opens the link, and again
// to that browser only.
func (p *secretPage) get(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("t")
	link, step, status := p.open(r, token)
	if status != http.StatusOK {
		p.fail(w, status)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	if !p.usable(ctx, w, link) {
		return
	}
	if link.holds(r, p.flow.codec) {
		p.render(w, http.StatusOK, p.view(step, token, nil))
		return
	}
	proof, err := link.claim(ctx, p.flow.secrets.Store, p.flow.codec, p.expires())
	switch {
	case errors.Is(err, ErrSecretUsed):
		// Opened before, by another browser: the person's, or not.
		p.refuse(ctx, w, link, pageOpenedElsewhere)
	case err != nil:
		p.fail(w, http.StatusServiceUnavailable)
	default:
		http.SetCookie(w, &http.Cookie{Name: link.cookieName(), Value: proof, Path: cmp.Or(p.cookiePath, r.URL.Path),
			MaxAge: int(p.flow.codec.ttl), HttpOnly: true, SameSite: http.SameSiteStrictMode,
			Secure: p.secure || r.TLS != nil})
		p.render(w, http.StatusOK, p.view(step, token, nil))
	}
}

func (p *secretPage) post(w http.ResponseWriter, r *http.Request) {
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
	if link == nil {
		p.fail(w, status)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	if !p.admit(ctx, w, r, link, status) {
		return
	}
	values, problems := readSecrets(step, r.PostForm)
	if len(problems) > 0 {
		p.render(w, http.StatusUnprocessableEntity, p.view(step, token, problems))
		return
	}
	raw, _ := json.Marshal(values)
	switch err := p.flow.secrets.Store.Put(ctx, link.key(), string(raw), p.expires()); {
	case errors.Is(err, ErrSecretUsed):
		p.fail(w, http.StatusGone)
	case err != nil:
		p.fail(w, http.StatusServiceUnavailable)
	default:
		p.render(w, http.StatusOK, pageView{Title: "Done", Done: true,
			Message: "Thank you. You can close this page and go back to your app."})
	}
}

// admit reports whether a POST with the genuine link may send its secret:
// from the page itself, by the person Authorize accepts (status is open's),
// from the browser that opened the link, which was never refused.
// Otherwise it answers the request itself, and refuses the link for good
// unless the store failed.
func (p *secretPage) admit(ctx context.Context, w http.ResponseWriter, r *http.Request, link *secretLink, status int) bool {
	switch {
	case !sameOrigin(r):
		p.refuse(ctx, w, link, pageAnotherSite)
		return false
	case status != http.StatusOK:
		p.refuse(ctx, w, link, pageNotYours)
		return false
	}
	if !link.holds(r, p.flow.codec) {
		p.refuse(ctx, w, link, pageNotOpenedHere)
		return false
	}
	return p.usable(ctx, w, link)
}

// refuse refuses link for good, and shows why with status code (403 or
// 409).
func (p *secretPage) refuse(ctx context.Context, w http.ResponseWriter, link *secretLink, why pageRefusal) {
	if err := link.refuse(ctx, p.flow.secrets.Store, p.expires()); err != nil {
		p.fail(w, http.StatusServiceUnavailable)
		return
	}
	p.render(w, why.status, pageView{Title: http.StatusText(why.status), Message: why.message})
}

// A pageRefusal is why the page refused a link for good, as the page says
// it.
type pageRefusal struct {
	status  int
	message string
}

// afterRefusal is what every refusal tells the person to do.
const afterRefusal = " To keep your account safe, this link no longer works, and nothing was changed. " +
	"Go back to your app and ask it again: it will give you a new link. Open that one in one browser only."

var (
	pageOpenedElsewhere = pageRefusal{http.StatusConflict, "This link was already opened, in another browser or by someone else." + afterRefusal}
	pageNotOpenedHere   = pageRefusal{http.StatusConflict, "This page was not opened in this browser, so it can't be sent from here." + afterRefusal}
	pageAnotherSite     = pageRefusal{http.StatusForbidden, "This page was sent from another site." + afterRefusal}
	pageNotYours        = pageRefusal{http.StatusForbidden, "This page is not for you." + afterRefusal}
)

// usable reports whether link was never refused, and otherwise answers
// the request itself.
func (p *secretPage) usable(ctx context.Context, w http.ResponseWriter, link *secretLink) bool {
	refused, err := link.refused(ctx, p.flow.secrets.Store)
	switch {
	case err != nil:
		p.fail(w, http.StatusServiceUnavailable)
	case refused:
		p.fail(w, http.StatusConflict)
	}
	return err == nil && !refused
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
	http.StatusConflict:              "This link was used in another browser, or by someone else, so it no longer works, and nothing was changed. Go back to your app and ask it again for a new link.",
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
