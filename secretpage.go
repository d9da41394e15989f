package mcpform

import (
	"cmp"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/mcpform/mcpform/internal/secretpage"
	"github.com/mcpform/mcpform/internal/token"
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
	// link may use it, once: whoever opens the link and posts on it first
	// sets the value, the person or not, and only Authorize closes this.
	// It is right only where the person is the only one who can reach the
	// page, such as a page on loopback for a local server. With both
	// unset, SecretPage refuses to make the page.
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
// accepts a POST only from its own origin ([http.CrossOriginProtection])
// and from a browser that opened it (a form token tied to the page's
// cookie), checks each value by the field's own rules (length bounds,
// required), shows the problems on the page, and never echoes a value
// back. A valid POST puts the values into the flow's [SecretStore]; the
// link then shows that it is done, and takes nothing more.
//
// # What the link proves
//
// The link carries a token sealed with keys derived from the flow's codec:
// it names the run, the step, the tool and the principal of the flow that
// minted it, and reveals none of them, and it expires after one to two of
// the codec's TTLs. Replicas sharing the keys and the store all accept it.
// It does not prove who opens it, and it rides in a URL, which proxies,
// logs, browser histories and link previews see. So:
//
//   - Opening the link (a GET or HEAD) changes nothing, so that a chat
//     app's preview of the link, or a scanner, spoils nothing.
//   - The first POST on a link claims it: the page records the claim in
//     the store and gives that browser its proof, in a cookie scoped to the
//     page's path (HttpOnly, SameSite=Lax, Secure over TLS or for an https
//     PageURL). Only that browser may post on the link again.
//   - A POST on a claimed link from any other browser, or one Authorize
//     refuses, refuses the link for good, with a page that says what to
//     do: go back to the app for a new link. The flow then takes nothing
//     from the link, not even a secret the person sent before, and ends
//     with [FlowInvalid] and [ErrSecretRefused], so the tool changes
//     nothing and can say why. Claims and refusals live in the store, so
//     every replica sharing it agrees.
//   - A browser that opens a link on which another browser sent the
//     secret is told so, and offered to stop the link, by a POST: a
//     person who did not send it stops the flow from taking it, if the
//     flow has not taken it yet.
//   - Once the flow has taken the secret and finished, the link tells
//     any browser that opens it that the request is finished, and the
//     browser that sent it that it is done; a post on it takes nothing
//     and refuses nothing.
//   - When the flow ends without taking the secret (declined, cancelled,
//     invalid, refused), the secret sent on the link, if any, is deleted,
//     and the page takes nothing more on it.
//
// With AnyoneWithTheLink, whoever opens the link and posts on it first
// sets the value: the page cannot tell the person from someone else who
// holds the link. Only Authorize closes this. A server that must bind the
// page to the person's own login sets SecretPageOptions.Authorize, as the
// spec requires binding elicitation to the user's identity;
// AnyoneWithTheLink says, in so many words, that there is no login to
// bind to.
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
	// The cross-site check is the standard library's: a POST the browser
	// says came from another site (Sec-Fetch-Site), or whose Origin names
	// another host, is refused before its body is read, and changes
	// nothing.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secretpage.SetHeaders(w.Header())
		p.show(w, r, http.StatusForbidden, pageView{text: &pageStrings.AnotherSite})
	}))
	return cop.Handler(p), nil
}

type secretPage struct {
	flow       *Flow
	authorize  func(*http.Request, string) error
	cookiePath string // "" means the request's
	secure     bool   // the PageURL is https
}

func (p *secretPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secretpage.SetHeaders(w.Header())
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		// A HEAD answers as a GET would, without the body: neither
		// claims anything.
		p.get(w, r)
	case http.MethodPost:
		p.post(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		p.show(w, r, http.StatusMethodNotAllowed, pageView{text: &pageStrings.Method})
	}
}

// open opens a link token and finds its step. The status is 404 for a
// token that does not open, has expired or names no secret step of this
// flow, and 403 (with the link) when Authorize refuses the person.
func (p *secretPage) open(r *http.Request, token string) (*secretLink, *flowStep, int) {
	if token == "" || p.flow.links == nil {
		return nil, nil, http.StatusNotFound
	}
	link, ok := p.flow.links.open(token)
	if !ok {
		return nil, nil, http.StatusNotFound
	}
	i := p.flow.index(link.Step)
	if i < 0 || len(p.flow.steps[i].c.secrets) == 0 {
		return nil, nil, http.StatusNotFound
	}
	if p.authorize != nil && p.authorize(r, link.Principal) != nil {
		return link, nil, http.StatusForbidden
	}
	return link, &p.flow.steps[i], http.StatusOK
}

// get shows the page of a link, and changes nothing in the store: a
// browser that sent the link's secret, or any browser once it was sent, is
// told it is done; otherwise the form is shown, with a token tied to the
// browser's page cookie, which it gets here if it has none.
func (p *secretPage) get(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("t")
	link, step, status := p.open(r, token)
	switch status {
	case http.StatusNotFound:
		p.show(w, r, status, pageView{text: &pageStrings.BadLink})
		return
	case http.StatusForbidden:
		p.show(w, r, status, pageView{text: &pageStrings.NotYours})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	if !p.usable(ctx, w, r, link) {
		return
	}
	c := p.cookie(r, link)
	if c.stage == stageSent {
		p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Done})
		return
	}
	_, sent, err := p.flow.secrets.Store.GetSecret(ctx, link.key())
	if err != nil {
		p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
		return
	}
	if c.n == "" {
		c = newPageCookie()
		p.setCookie(w, r, link, c)
	}
	if sent {
		// Sent from another browser: the person's, or someone else's
		// who held the link. A person who did not send it can stop the
		// link, by a POST, which no preview sends.
		p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Used, page: secretpage.Page{Token: token,
			Check: p.flow.links.mac(macForm, link, c.n), Stop: pageStrings.Stop}})
		return
	}
	p.show(w, r, http.StatusOK, p.form(pageLang(r), step, link, token, c, nil))
}

// pageInputs are the names of the secret page's own inputs, beside its
// fields': the link's token, the form's CSRF token and the stop action.
// NewFlow refuses a secret field of one of these names, which the page
// would read for the other.
var pageInputs = [...]string{"t", "c", "a"}

func (p *secretPage) post(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxSecretPageBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			p.show(w, r, http.StatusRequestEntityTooLarge, pageView{text: &pageStrings.TooBig})
		} else {
			p.show(w, r, http.StatusBadRequest, pageView{text: &pageStrings.Unreadable})
		}
		return
	}
	token := r.PostForm.Get("t")
	link, step, status := p.open(r, token)
	if link == nil {
		p.show(w, r, status, pageView{text: &pageStrings.BadLink})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	if status != http.StatusOK {
		p.refuse(ctx, w, r, link, http.StatusForbidden, &pageStrings.NotYours)
		return
	}
	if !p.usable(ctx, w, r, link) {
		return
	}
	c := p.cookie(r, link)
	if !p.flow.links.checkMAC(macForm, link, c.n, r.PostForm.Get("c")) {
		// Not sent from the page this browser was shown: the page's own
		// CSRF defence, beside CrossOriginProtection's. It refuses
		// nothing: the person may have cookies off.
		p.show(w, r, http.StatusForbidden, pageView{text: &pageStrings.NoCookie})
		return
	}
	switch {
	case c.stage == stageSent:
		p.show(w, r, http.StatusConflict, pageView{text: &pageStrings.Done})
		return
	case r.PostForm.Get("a") == "stop":
		// A person who did not send what was sent on the link.
		p.refuse(ctx, w, r, link, http.StatusOK, &pageStrings.Stopped)
		return
	}
	if c.stage != stageClaimed {
		switch err := link.claim(ctx, p.flow.secrets.Store, p.flow.links.mac(macClaim, link, c.n), p.flow.linkStoreExpiry()); {
		case errors.Is(err, ErrSecretUsed):
			// Posted on before, from another browser: the person's, or not.
			p.refuse(ctx, w, r, link, http.StatusConflict, &pageStrings.UsedElsewhere)
			return
		case err != nil:
			p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
			return
		}
		c.stage = stageClaimed
		p.setCookie(w, r, link, c)
	}
	l := pageLang(r)
	values, problems := readSecrets(l, step, r.PostForm)
	if len(problems) > 0 {
		p.show(w, r, http.StatusUnprocessableEntity, p.form(l, step, link, token, c, problems))
		return
	}
	raw, _ := json.Marshal(values)
	switch err := p.flow.secrets.Store.PutSecret(ctx, link.key(), string(raw), p.flow.linkStoreExpiry()); {
	case errors.Is(err, ErrSecretUsed):
		// Used up as the flow ended meanwhile, or else sent already by
		// this browser, the only one the claim lets post: from another
		// tab, or by the first of a double submit.
		if p.usable(ctx, w, r, link) {
			c.stage = stageSent
			p.setCookie(w, r, link, c)
			p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Done})
		}
	case err != nil:
		p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
	default:
		c.stage = stageSent
		p.setCookie(w, r, link, c)
		p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Done})
	}
}

// cookie returns the browser's page cookie for link; the zero cookie when
// it has none, or one the page did not make.
func (p *secretPage) cookie(r *http.Request, link *secretLink) pageCookie {
	c, err := r.Cookie(link.cookieName())
	if err != nil {
		return pageCookie{}
	}
	return p.flow.links.decode(link, c.Value)
}

// setCookie gives the browser its page cookie for link, for as long as a
// link lives.
//
// SameSite=Lax, not Strict: a person who comes back to the link from their
// chat app arrives by a navigation from another site, which carries a Lax
// cookie but not a Strict one, and would be shown the form again rather
// than "done". Lax still keeps the cookie off every POST from another
// site, and a POST is checked twice besides: by CrossOriginProtection,
// and by the form's token, which only a page shown to the browser holding
// this cookie carries.
func (p *secretPage) setCookie(w http.ResponseWriter, r *http.Request, link *secretLink, c pageCookie) {
	http.SetCookie(w, &http.Cookie{Name: link.cookieName(), Value: p.flow.links.encode(link, c),
		Path: cmp.Or(p.cookiePath, r.URL.Path), MaxAge: int(p.flow.links.life()), HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: p.secure || r.TLS != nil})
}

// refuse refuses link for good, and shows why with status; a link that
// the flow closed first, because it finished or ended, stays as it is and
// says so.
func (p *secretPage) refuse(ctx context.Context, w http.ResponseWriter, r *http.Request, link *secretLink, status int, why *pageText) {
	switch standing, closed, err := link.close(ctx, p.flow.secrets.Store, closedRefused, p.flow.linkStoreExpiry()); {
	case err != nil:
		p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
	case !closed && standing != closedRefused:
		p.showClosed(w, r, link, standing)
	default:
		p.show(w, r, status, pageView{text: why})
	}
}

// usable reports whether link was never closed, and otherwise answers
// the request itself.
func (p *secretPage) usable(ctx context.Context, w http.ResponseWriter, r *http.Request, link *secretLink) bool {
	why, err := link.closed(ctx, p.flow.secrets.Store)
	switch {
	case err != nil:
		p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
	case why != "":
		p.showClosed(w, r, link, why)
	default:
		return true
	}
	return false
}

// showClosed answers a request for link, closed for why.
func (p *secretPage) showClosed(w http.ResponseWriter, r *http.Request, link *secretLink, why string) {
	switch why {
	case closedEnded:
		p.show(w, r, http.StatusGone, pageView{text: &pageStrings.Ended})
	case closedDone:
		// Whichever browser opens it: a link reopened after its flow
		// finished says so, never shows the form again.
		status, text := http.StatusOK, &pageStrings.Finished
		if r.Method == http.MethodPost {
			status = http.StatusConflict
		}
		if p.cookie(r, link).stage == stageSent {
			text = &pageStrings.Done // the browser that sent it
		}
		p.show(w, r, status, pageView{text: text})
	default:
		p.show(w, r, http.StatusConflict, pageView{text: &pageStrings.Refused})
	}
}

// A pageText is one state of the secret page, as the person reads it: a
// heading, which is also the title, and what to do, in English; h and m
// are their texts in the catalogs, which the page shows in the person's
// language.
type pageText struct {
	Heading, Message string
	h, m             catalog.Msg
	refusal          bool // the message ends with catalog.PageAfterRefusal
}

// in returns t's heading and message in l.
func (t *pageText) in(l catalog.Lang) (heading, message string) {
	if l == catalog.English {
		return t.Heading, t.Message
	}
	message = l.Text(t.m)
	if t.refusal {
		message += l.Text(catalog.PageAfterRefusal)
	}
	return l.Text(t.h), message
}

func newPageText(h, m catalog.Msg, refusal bool) pageText {
	t := pageText{Heading: catalog.English.Text(h), Message: catalog.English.Text(m), h: h, m: m, refusal: refusal}
	if refusal {
		t.Message += catalog.English.Text(catalog.PageAfterRefusal)
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
	Intro:         catalog.English.Text(catalog.PageIntro),
	Send:          catalog.English.Text(catalog.PageSend),
	ErrorTitle:    catalog.English.Text(catalog.PageErrorTitle),
	Required:      catalog.English.Text(catalog.PageRequired),
	NotText:       catalog.English.Text(catalog.PageNotText),
	Stop:          catalog.English.Text(catalog.PageStop),
	Done:          newPageText(catalog.DoneHeading, catalog.DoneMessage, false),
	Used:          newPageText(catalog.UsedHeading, catalog.UsedMessage, false),
	Stopped:       newPageText(catalog.StoppedHeading, catalog.StoppedMessage, false),
	UsedElsewhere: newPageText(catalog.UsedElsewhereHeading, catalog.UsedElsewhereMessage, true),
	Refused:       newPageText(catalog.RefusedHeading, catalog.RefusedMessage, true),
	Ended:         newPageText(catalog.EndedHeading, catalog.EndedMessage, false),
	Finished:      newPageText(catalog.FinishedHeading, catalog.FinishedMessage, false),
	BadLink:       newPageText(catalog.BadLinkHeading, catalog.BadLinkMessage, false),
	NotYours:      newPageText(catalog.NotYoursHeading, catalog.NotYoursMessage, true),
	AnotherSite:   newPageText(catalog.AnotherSiteHeading, catalog.AnotherSiteMessage, false),
	NoCookie:      newPageText(catalog.NoCookieHeading, catalog.NoCookieMessage, false),
	TooBig:        newPageText(catalog.TooBigHeading, catalog.TooBigMessage, false),
	Unreadable:    newPageText(catalog.UnreadableHeading, catalog.UnreadableMessage, false),
	Method:        newPageText(catalog.MethodHeading, catalog.MethodMessage, false),
	Unavailable:   newPageText(catalog.UnavailableHeading, catalog.UnavailableMessage, false),
}

// pageLang is the language of the page for r: its Accept-Language.
func pageLang(r *http.Request) catalog.Lang {
	return catalog.Match(r.Header.Get(seam.HeaderAcceptLanguage))
}

// pageView is a page to show: a form, or text, one of pageStrings, which
// show puts in the person's language.
type pageView struct {
	text *pageText
	page secretpage.Page
}

// form returns the view of step's form for link in l, naming problems by
// field; the page focuses the first field with one.
func (p *secretPage) form(l catalog.Lang, step *flowStep, link *secretLink, token string, c pageCookie, problems map[string]string) pageView {
	if l != catalog.English {
		lf := p.flow.in(l)
		step = &lf.steps[lf.index(step.c.key)]
	}
	v := secretpage.Page{Title: step.c.message, Heading: step.c.message, Message: l.Text(catalog.PageIntro),
		Token: token, Check: p.flow.links.mac(macForm, link, c.n), Button: l.Text(catalog.PageSend)}
	v.Fields = make([]secretpage.Field, 0, len(step.c.secrets))
	problem := false
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		pf := secretpage.Field{Name: f.Name, Label: f.title(), Description: f.Description,
			Required: f.Required, Problem: problems[f.Name]}
		problem = problem || pf.Problem != ""
		if f.Min != nil {
			pf.MinLength = int(*f.Min)
		}
		if f.Max != nil {
			pf.MaxLength = int(*f.Max)
		}
		v.Fields = append(v.Fields, pf)
	}
	if problem {
		v.Title = l.Text(catalog.PageErrorTitle) + v.Title
	}
	return pageView{page: v}
}

// show answers with status and the page of v, a form or v.text, in the
// request's language.
func (p *secretPage) show(w http.ResponseWriter, r *http.Request, status int, v pageView) {
	l := pageLang(r)
	if v.text != nil {
		v.page.Heading, v.page.Message = v.text.in(l)
		v.page.Title = v.page.Heading
		if status >= 400 && v.text != &pageStrings.Done && v.text != &pageStrings.Used && v.text != &pageStrings.Finished {
			v.page.Title = l.Text(catalog.PageErrorTitle) + v.page.Title
		}
	}
	if v.page.Stop != "" {
		v.page.Stop = l.Text(catalog.PageStop)
	}
	v.page.Lang = l.Code()
	secretpage.Write(w, r, status, &v.page)
}

// readSecrets checks the posted values of step's secrets by the fields'
// rules, and returns them, or a problem per field, in l.
func readSecrets(l catalog.Lang, step *flowStep, form url.Values) (map[string]string, map[string]string) {
	values := make(map[string]string, len(step.c.secrets))
	problems := map[string]string{}
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		v := form.Get(f.Name)
		switch {
		case v == "" && f.Required:
			problems[f.Name] = l.Text(catalog.PageRequired)
		case v == "":
		case !utf8.ValidString(v):
			problems[f.Name] = l.Text(catalog.PageNotText)
		default:
			if reason := f.checkValue(v); reason != "" && l == catalog.English {
				problems[f.Name] = strings.ToUpper(reason[:1]) + reason[1:] + "."
			} else if reason != "" {
				problems[f.Name] = l.Format(catalog.Sentence, "text", upperFirst(f.checkValueIn(l, v)))
			} else {
				values[f.Name] = v
			}
		}
	}
	return values, problems
}

// upperFirst returns s with its first letter upper-cased, as a sentence
// starts.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// A secretLink is what a secret page's link carries, sealed with keys
// derived from the flow's codec: whose run and step the page belongs to.
// It carries no secret, and reveals nothing: not the principal, the tool
// or the run ID.
//
// A link is a bearer token: it rides in a URL, where proxies, logs,
// histories and link previews see it. So opening it changes nothing (see
// [Flow.SecretPage]); the first POST from a browser claims it, and its
// records live in the flow's [SecretStore] beside the secret, under keys
// of its own, so that every replica sharing the store agrees:
//
//   - opened: used once, ever, by the first POST, whose browser alone gets
//     the proof, in its page cookie.
//   - closed: set when anyone else posted on the link, the page refused a
//     post, or a person who did not send the secret stopped the link
//     ("refused"), or when the flow ended without taking the
//     secret ("ended"). The page then refuses the link for good, and the
//     flow takes nothing from it.
type secretLink struct {
	Principal string `json:"p"`
	Tool      string `json:"t"`
	Run       string `json:"r"`
	Step      string `json:"s"`
}

// secretLinkBind is the additional data a link is sealed under, so that
// nothing else sealed with the same keys opens as a link.
const secretLinkBind = "mcpform/secret-link"

// key is the store key of the link's secrets: a digest, so the store never
// learns who or what it holds secrets for.
func (l *secretLink) key() string { return l.keyFor("mcpform/secret") }

func (l *secretLink) keyFor(purpose string) string {
	sum := sha256.Sum256([]byte(BindTo(purpose, l.Principal, l.Tool, l.Run, l.Step)))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Purposes of the link's other store keys, and of its cookie's name.
const (
	linkOpened = "mcpform/secret-opened"
	linkClosed = "mcpform/secret-refused"
	linkCookie = "mcpform/secret-cookie"
)

// Why a link was closed: the values under its closed key.
const (
	closedRefused = "refused" // someone else posted on it, or the page refused a post
	closedEnded   = "ended"   // the flow ended without taking its secret
	closedDone    = "done"    // the flow took its secret and finished
)

// cookieName names the page cookie of this link: one per link, so that two
// pages open in one browser keep their own.
func (l *secretLink) cookieName() string { return "mcpform-secret-" + l.keyFor(linkCookie)[:16] }

// claim records in store that the browser whose claim tag is tag posted
// on the link. It returns ErrSecretUsed when another browser did before;
// a second claim with the same tag, as a double submit or a retry makes
// before the first one's answer reached the browser, is the first.
func (l *secretLink) claim(ctx context.Context, store SecretStore, tag string, expires time.Time) error {
	key := l.keyFor(linkOpened)
	err := store.PutSecret(ctx, key, tag, expires)
	if !errors.Is(err, ErrSecretUsed) {
		return err
	}
	first, ok, gerr := store.GetSecret(ctx, key)
	if gerr != nil {
		return gerr
	}
	if !ok || !hmac.Equal([]byte(first), []byte(tag)) {
		return err
	}
	return nil
}

// close records in store why the link no longer takes anything: from then
// on the page refuses it, and the flow takes nothing from it. The first
// reason stays: close returns the reason that stands, which is why when
// this call closed the link, and whether it did.
func (l *secretLink) close(ctx context.Context, store SecretStore, why string, expires time.Time) (standing string, closed bool, err error) {
	key := l.keyFor(linkClosed)
	switch err := store.PutSecret(ctx, key, why, expires); {
	case err == nil:
		return why, true, nil
	case !errors.Is(err, ErrSecretUsed):
		return "", false, err
	}
	first, ok, err := store.GetSecret(ctx, key)
	if err != nil || !ok {
		return why, false, err // gone since: the link itself has expired
	}
	return first, false, nil
}

// closed returns why the link was closed, or "" when it was not.
func (l *secretLink) closed(ctx context.Context, store SecretStore) (string, error) {
	why, ok, err := store.GetSecret(ctx, l.keyFor(linkClosed))
	if err != nil || !ok {
		return "", err
	}
	return why, nil
}

// linkKeys are a flow's keys for its links and its page, derived from its
// codec's keys with HKDF-SHA256, apart from the state's: what one seals or
// MACs no other use opens or checks. The first key seals and MACs, and
// every key opens and checks, so rotating the codec's keys rotates these.
type linkKeys struct {
	sealer *token.Sealer
	nonce  []byte // derives a link's nonce from what it seals
	// nonceMACs pools HMACs under nonce, which cost a few allocations
	// each to make.
	nonceMACs sync.Pool
	macs      [][]byte // the page's MAC keys
	ttl       int64    // the codec's, in seconds
	now       func() time.Time
}

// HKDF labels of the link keys.
const (
	linkSealLabel  = "mcpform secret link v1"
	linkNonceLabel = "mcpform secret link nonce v1"
	pageMACLabel   = "mcpform secret page v1"
)

func newLinkKeys(c *RequestStateCodec) *linkKeys {
	k := &linkKeys{sealer: token.NewSealer(c.keys, linkSealLabel), ttl: c.ttl, now: c.now}
	k.nonce = derive(c.keys[0], linkNonceLabel)
	for _, key := range c.keys {
		k.macs = append(k.macs, derive(key, pageMACLabel))
	}
	return k
}

func derive(key []byte, label string) []byte {
	out, err := hkdf.Key(sha256.New, key, nil, label, 32)
	if err != nil {
		panic(err) // only for an output beyond 255 hashes
	}
	return out
}

// life is how long a link lives at most, in seconds; see expiry.
func (k *linkKeys) life() int64 { return 2 * max(k.ttl, 1) }

// expiry returns when a link minted at now expires: the end of the
// TTL-long window after now's. Every round of a run mints the link of its
// step anew, and the link must stay the same from round to round, so that
// a client on 2025-11-25 sees one elicitation (see urlElicitationID): so
// its expiry moves once per TTL, not every second. A link lives between
// one and two TTLs.
func (k *linkKeys) expiry(now int64) int64 {
	q := max(k.ttl, 1)
	return (now/q + 2) * q
}

// seal returns l's token: "s1." and base64url of a nonce, l sealed with
// AES-256-GCM, and its tag, as internal/token seals. The nonce is an HMAC of what
// it seals, so that the same link at the same expiry seals to the same
// token (a synthetic nonce: two tokens share a nonce only when they seal
// the same bytes, so the nonce never repeats under different plaintexts).
// linkPadBlock is the block a link's principal is padded to.
const linkPadBlock = 32

func (k *linkKeys) seal(l *secretLink) string {
	n := binary.MaxVarintLen64 * 5
	for _, s := range [...]string{l.Principal, l.Tool, l.Run, l.Step} {
		n += len(s)
	}
	buf := make([]byte, 0, 2*(n+linkPadBlock)+token.NonceSize+token.TagSize) // the plain text, then the sealed
	plain := binary.AppendUvarint(buf, uint64(k.expiry(k.now().Unix())))
	for _, s := range [...]string{l.Principal, l.Tool, l.Run, l.Step} {
		plain = binary.AppendUvarint(plain, uint64(len(s)))
		plain = append(plain, s...)
	}
	// Zeros for the principal to fill whole blocks, so that the token's
	// length says of it no more than how many blocks it takes: the tool,
	// the step and the run ID's size are no secret.
	plain = append(plain, make([]byte, (linkPadBlock-len(l.Principal)%linkPadBlock)%linkPadBlock)...)
	m, _ := k.nonceMACs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, k.nonce)
	}
	m.Reset()
	m.Write(plain)
	var sum [sha256.Size]byte
	nonce := m.Sum(sum[:0])[:token.NonceSize]
	k.nonceMACs.Put(m)
	raw := k.sealer.AEAD().Seal(append(plain[len(plain):len(plain)], nonce...), nonce, plain, []byte(secretLinkBind))
	tok := make([]byte, 0, len(token.SealedPrefix)+base64.RawURLEncoding.EncodedLen(len(raw)))
	return string(base64.RawURLEncoding.AppendEncode(append(tok, token.SealedPrefix...), raw))
}

// open returns the link text seals, and false when it does not open, is
// malformed or has expired.
func (k *linkKeys) open(text string) (*secretLink, bool) {
	plain, err := k.sealer.Open(nil, []byte(text), []byte(secretLinkBind))
	if err != nil {
		return nil, false
	}
	exp, n := binary.Uvarint(plain)
	now, leeway := k.now().Unix(), int64(RequestStateLeeway/time.Second)
	if n <= 0 || exp > token.MaxExp || int64(exp) < now-leeway || int64(exp) > now+k.life()+leeway {
		return nil, false
	}
	plain = plain[n:]
	var parts [4]string
	for i := range parts {
		size, n := binary.Uvarint(plain)
		if n <= 0 || size > uint64(len(plain)-n) {
			return nil, false
		}
		parts[i], plain = string(plain[n:n+int(size)]), plain[n+int(size):]
	}
	if len(plain) >= linkPadBlock || strings.Trim(string(plain), "\x00") != "" || parts[2] == "" {
		return nil, false // more than padding after the parts
	}
	return &secretLink{Principal: parts[0], Tool: parts[1], Run: parts[2], Step: parts[3]}, true
}

// A page cookie is what a browser on the page holds for one link: a random
// value of its own (n), made when it first opens the page, and, once it
// has claimed the link, the proof of its stage.
type pageCookie struct {
	n     string
	stage byte // 0; stageClaimed; stageSent
}

// The stages of a page cookie, and the purposes of the page's MACs.
const (
	stageClaimed = 'c' // this browser claimed the link
	stageSent    = 'd' // this browser sent the link's secret
	macForm      = 'f' // the form's token, bound to the cookie's n
	macClaim     = 'o' // the tag a claim records, bound to the cookie's n
)

// newPageCookie returns a cookie with a fresh random value.
func newPageCookie() pageCookie {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return pageCookie{n: base64.RawURLEncoding.EncodeToString(b[:])}
}

// mac returns the page's MAC for purpose, over l's key and the cookie
// value n, under the first key.
func (k *linkKeys) mac(purpose byte, l *secretLink, n string) string {
	return base64.RawURLEncoding.EncodeToString(pageMAC(k.macs[0], purpose, l, n))
}

// checkMAC reports whether got is the page's MAC for purpose under any
// key.
func (k *linkKeys) checkMAC(purpose byte, l *secretLink, n, got string) bool {
	raw, err := token.StrictBase64URL.DecodeString(got)
	if err != nil || n == "" {
		return false
	}
	for _, key := range k.macs {
		if hmac.Equal(raw, pageMAC(key, purpose, l, n)) {
			return true
		}
	}
	return false
}

func pageMAC(key []byte, purpose byte, l *secretLink, n string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte{purpose})
	m.Write([]byte(l.key()))
	m.Write([]byte{0})
	m.Write([]byte(n))
	return m.Sum(nil)[:16]
}

// encode returns the cookie's value: n, then "." and the stage's MAC.
func (k *linkKeys) encode(l *secretLink, c pageCookie) string {
	if c.stage == 0 {
		return c.n
	}
	return c.n + "." + string(c.stage) + k.mac(c.stage, l, c.n)
}

// decode reads a cookie's value, and returns the zero cookie when it is
// not one this page made for l.
func (k *linkKeys) decode(l *secretLink, v string) pageCookie {
	n, proof, staged := strings.Cut(v, ".")
	if len(n) != 22 {
		return pageCookie{}
	}
	if !staged {
		return pageCookie{n: n}
	}
	if len(proof) < 2 || (proof[0] != stageClaimed && proof[0] != stageSent) || !k.checkMAC(proof[0], l, n, proof[1:]) {
		return pageCookie{n: n}
	}
	return pageCookie{n: n, stage: proof[0]}
}

// linkStoreExpiry is when what the page or a round stores for a link now
// stops mattering: after any link minted until now has expired, by the
// store's own clock.
func (f *Flow) linkStoreExpiry() time.Time {
	return time.Now().Add(time.Duration(f.links.life())*time.Second + RequestStateLeeway)
}
