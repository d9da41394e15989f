package mcpform

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/mcpform/mcpform/internal/secretpage"
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
//   - A step of secrets alone with a [Step].Check is judged here, on each
//     POST: a problem the Check names is shown on the page, which asks
//     again, and a failure past [FlowOptions].MaxReasks (counted in the
//     store, across replicas and browsers) refuses the link for good.
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
	if c.Stage == secretpage.StageSent {
		p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Done})
		return
	}
	_, sent, err := p.flow.secrets.Store.GetSecret(ctx, link.key())
	if err != nil {
		p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
		return
	}
	if c.N == "" {
		c = secretpage.NewCookie()
		p.setCookie(w, r, link, c)
	}
	if sent {
		// Sent from another browser: the person's, or someone else's
		// who held the link. A person who did not send it can stop the
		// link, by a POST, which no preview sends.
		p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Used, page: secretpage.Page{Token: token,
			Check: p.flow.links.MAC(secretpage.MACForm, link.link(), c.N), Stop: pageStrings.Stop}})
		return
	}
	p.show(w, r, http.StatusOK, p.form(pageLang(r), step, link, token, c, nil, nil))
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
	if !p.flow.links.CheckMAC(secretpage.MACForm, link.link(), c.N, r.PostForm.Get("c")) {
		// Not sent from the page this browser was shown: the page's own
		// CSRF defence, beside CrossOriginProtection's. It refuses
		// nothing: the person may have cookies off.
		p.show(w, r, http.StatusForbidden, pageView{text: &pageStrings.NoCookie})
		return
	}
	switch {
	case c.Stage == secretpage.StageSent:
		p.show(w, r, http.StatusConflict, pageView{text: &pageStrings.Done})
		return
	case r.PostForm.Get("a") == "stop":
		// A person who did not send what was sent on the link.
		p.refuse(ctx, w, r, link, http.StatusOK, &pageStrings.Stopped)
		return
	}
	if c.Stage != secretpage.StageClaimed {
		switch err := link.claim(ctx, p.flow.secrets.Store, p.flow.links.MAC(secretpage.MACClaim, link.link(), c.N), p.flow.linkStoreExpiry()); {
		case errors.Is(err, ErrSecretUsed):
			// Posted on before, from another browser: the person's, or not.
			p.refuse(ctx, w, r, link, http.StatusConflict, &pageStrings.UsedElsewhere)
			return
		case err != nil:
			p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
			return
		}
		c.Stage = secretpage.StageClaimed
		p.setCookie(w, r, link, c)
	}
	l := pageLang(r)
	local := p.localStep(l, step)
	values, problems, parts := readSecrets(l, local, r.PostForm)
	if len(problems) == 0 && step.check != nil {
		if problems, parts = checkSecrets(step, values, l, local.c.author); len(problems) > 0 {
			switch last, err := p.failedCheck(ctx, link); {
			case err != nil:
				p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
				return
			case last:
				p.refuse(ctx, w, r, link, http.StatusConflict, &pageStrings.Refused)
				return
			}
		}
	}
	if len(problems) > 0 {
		p.show(w, r, http.StatusUnprocessableEntity, p.form(l, step, link, token, c, problems, parts))
		return
	}
	raw, _ := json.Marshal(values)
	switch err := p.flow.secrets.Store.PutSecret(ctx, link.key(), string(raw), p.flow.linkStoreExpiry()); {
	case errors.Is(err, ErrSecretUsed):
		// Used up as the flow ended meanwhile, or else sent already by
		// this browser, the only one the claim lets post: from another
		// tab, or by the first of a double submit.
		if p.usable(ctx, w, r, link) {
			c.Stage = secretpage.StageSent
			p.setCookie(w, r, link, c)
			p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Done})
		}
	case err != nil:
		p.show(w, r, http.StatusServiceUnavailable, pageView{text: &pageStrings.Unavailable})
	default:
		p.flow.pageSent(token) // for a legacy call's completion notice
		c.Stage = secretpage.StageSent
		p.setCookie(w, r, link, c)
		p.show(w, r, http.StatusOK, pageView{text: &pageStrings.Done})
	}
}

// cookie returns the browser's page cookie for link; the zero cookie when
// it has none, or one the page did not make.
func (p *secretPage) cookie(r *http.Request, link *secretLink) secretpage.Cookie {
	c, err := r.Cookie(link.link().CookieName())
	if err != nil {
		return secretpage.Cookie{}
	}
	return p.flow.links.Decode(link.link(), c.Value)
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
func (p *secretPage) setCookie(w http.ResponseWriter, r *http.Request, link *secretLink, c secretpage.Cookie) {
	http.SetCookie(w, &http.Cookie{Name: link.link().CookieName(), Value: p.flow.links.Encode(link.link(), c),
		Path: cmp.Or(p.cookiePath, r.URL.Path), MaxAge: int(p.flow.links.Life() / time.Second), HttpOnly: true,
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
		if p.cookie(r, link).Stage == secretpage.StageSent {
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
// field, with their parts in another language than l; the page focuses
// the first field with one.
func (p *secretPage) form(l catalog.Lang, step *flowStep, link *secretLink, token string, c secretpage.Cookie, problems map[string]string,
	parts map[string][]secretpage.Part) pageView {
	step = p.localStep(l, step)
	v := secretpage.Page{Title: step.c.message, Heading: step.c.message, HeadingLang: step.c.authorLang(step.c.message), Message: l.Text(catalog.PageIntro),
		Token: token, Check: p.flow.links.MAC(secretpage.MACForm, link.link(), c.N), Button: l.Text(catalog.PageSend)}
	v.Fields = make([]secretpage.Field, 0, len(step.c.secrets))
	problem := false
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		pf := secretpage.Field{Name: f.Name, Label: f.title(), Description: f.Description,
			Required: f.Required, Problem: problems[f.Name], ProblemParts: parts[f.Name],
			LabelLang: step.c.authorLang(f.title()), DescriptionLang: step.c.authorLang(f.Description)}
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
		v.Title, v.TitleLang = step.c.errorTitle(l, v.Title), v.HeadingLang
	}
	return pageView{page: v}
}

// errorTitle is the title of c's page in l when a value sent has a
// problem: heading, c's message, after "Error: ". A title holds no part
// in another language, so it is said wholly in one: in l, or, where the
// heading is the author's words left untranslated, in the author's
// language, with "Error: " in it if the catalogs have it, else the
// heading alone (WCAG 3.1.2).
func (c *compiled) errorTitle(l catalog.Lang, heading string) string {
	if c.authorLang(heading) == "" {
		return l.Text(catalog.PageErrorTitle) + heading
	}
	if c.author.other {
		return heading
	}
	return c.author.lang.Text(catalog.PageErrorTitle) + heading
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

// localStep is step of p's flow in l, with its fields' words as the page
// shows them, so that a problem names a field by its label there.
func (p *secretPage) localStep(l catalog.Lang, step *flowStep) *flowStep {
	lf := p.flow.in(l)
	if lf == p.flow {
		return step
	}
	return &lf.steps[lf.index(step.c.key)]
}

// readSecrets checks the posted values of step's secrets by the fields'
// rules, and returns them, or a problem per field, in l, with the parts
// of each problem in another language than l: a field's label left in
// the author's words; nil when none has any.
func readSecrets(l catalog.Lang, step *flowStep, form url.Values) (values, problems map[string]string, parts map[string][]secretpage.Part) {
	values = make(map[string]string, len(step.c.secrets))
	problems = map[string]string{}
	for i := range step.c.secrets {
		f := &step.c.secrets[i]
		v := form.Get(f.Name)
		// A problem is said as a re-ask and a view say it (sentence).
		say := func(p *FieldError) {
			lang := step.c.authorLang(f.title())
			if lang == "" {
				problems[f.Name] = l.Format(catalog.Sentence, "text", viewTexts[l].sentence(f, p, nil))
				return
			}
			text, ps := viewTexts[l].sentenceParts(f, lang, p)
			problems[f.Name] = l.Format(catalog.Sentence, "text", text)
			before, _, _ := strings.Cut(l.Text(catalog.Sentence), "{text}")
			for _, part := range ps {
				if parts == nil {
					parts = map[string][]secretpage.Part{}
				}
				parts[f.Name] = append(parts[f.Name], secretpage.Part{At: len(before) + part.At, Len: part.Len, Lang: part.Lang})
			}
		}
		switch {
		case v == "" && f.Required:
			say(&FieldError{Field: f.Name, Err: ErrMissing})
		case v == "":
		case !utf8.ValidString(v):
			problems[f.Name] = l.Text(catalog.PageNotText)
		default:
			if reason := f.checkReason(v); reason != nil {
				say(fieldErr(f.Name, ErrInvalidValue, "%w", reason))
			} else {
				values[f.Name] = v
			}
		}
	}
	return values, problems, parts
}

// sentenceParts is sentence, for f whose title is in lang, another
// language than t's, as when the author left it untranslated: it returns
// too where that title is in what it says.
func (t *viewText) sentenceParts(f *AutoFormField, lang string, p *FieldError) (string, []prefab.Part) {
	if errors.Is(p.Err, ErrSecretWaiting) || errors.Is(p.Err, ErrSecretRefused) {
		return t.sentence(f, p, nil), nil
	}
	v := f.problemField()
	v.TitleLang = lang
	return t.fixParts(&v, p, nil, nil)
}

// checkSecrets runs the Check of step, a step of secrets alone, on the
// secrets posted, and returns its problems by field, in the Check's own
// words: one that names no secret of step is shown at the first. On a
// page in l, another language than a's, the author's, those words are
// parts in a's language, as is English where the Check said nothing.
func checkSecrets(step *flowStep, values map[string]string, l catalog.Lang, a authorLanguage) (map[string]string, map[string][]secretpage.Part) {
	answers := make(Answers, len(values))
	for k, v := range values {
		answers[k] = v
	}
	problems := map[string]string{}
	var parts map[string][]secretpage.Part
	for _, fe := range step.check(answers) {
		if fe == nil {
			continue
		}
		name := fe.Field
		if step.c.lookupSecret(name) < 0 {
			name = step.c.secrets[0].Name
		}
		text, lang := "This is not accepted.", ""
		if fe.Err != nil && fe.Err.Error() != "" {
			text = upperFirst(fe.Err.Error())
			if !a.speaks(l) {
				lang = a.mark()
			}
		} else if l != catalog.English {
			lang = "en"
		}
		at := 0
		if old := problems[name]; old != "" {
			text, at = old+" "+text, len(old)+1
		}
		problems[name] = text
		if lang != "" {
			if parts == nil {
				parts = map[string][]secretpage.Part{}
			}
			parts[name] = append(parts[name], secretpage.Part{At: at, Len: len(text) - at, Lang: lang})
		}
	}
	return problems, parts
}

// lookupSecret returns the index of c's secret field name, or -1.
func (c *compiled) lookupSecret(name string) int {
	for i := range c.secrets {
		if c.secrets[i].Name == name {
			return i
		}
	}
	return -1
}

// failedCheck records on link a post that the step's Check refused, in
// the store, where each failure claims a key of its own, once, so that
// replicas and browsers count together. It reports whether this was one
// more than [FlowOptions].MaxReasks: the page refuses the link then.
func (p *secretPage) failedCheck(ctx context.Context, link *secretLink) (bool, error) {
	store, expires := p.flow.secrets.Store, p.flow.linkStoreExpiry()
	for n := 1; n <= p.flow.maxReasks; n++ {
		sum := sha256.Sum256([]byte(BindTo("mcpform/secret-check", link.key(), strconv.Itoa(n))))
		switch err := store.PutSecret(ctx, base64.RawURLEncoding.EncodeToString(sum[:]), "", expires); {
		case err == nil:
			return false, nil
		case !errors.Is(err, ErrSecretUsed):
			return false, err
		}
	}
	return true, nil
}

// upperFirst returns s with its first letter upper-cased, as a sentence
// starts.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// A secretLink is what a secret page's link carries (secretpage.Link),
// with its records in the flow's [SecretStore]: beside its secret, under
// keys of its own, so that every replica sharing the store agrees.
// Opening a link changes nothing (see [Flow.SecretPage]); the first POST
// from a browser claims it:
//
//   - claimed: used once, ever, by the first POST, whose browser alone
//     gets the proof, in its page cookie.
//   - closed: set when anyone else posted on the link, the page refused a
//     post, or a person who did not send the secret stopped the link
//     ("refused"), or when the flow ended without taking the
//     secret ("ended"). The page then refuses the link for good, and the
//     flow takes nothing from it.
type secretLink secretpage.Link

func (l *secretLink) link() *secretpage.Link { return (*secretpage.Link)(l) }

// key is the store key of the link's secrets.
func (l *secretLink) key() string { return l.link().Key() }

// Why a link was closed: the values under its closed key.
const (
	closedRefused = "refused" // someone else posted on it, or the page refused a post
	closedEnded   = "ended"   // the flow ended without taking its secret
	closedDone    = "done"    // the flow took its secret and finished
)

// claim records in store that the browser whose claim tag is tag posted
// on the link. It returns ErrSecretUsed when another browser did before;
// a second claim with the same tag, as a double submit or a retry makes
// before the first one's answer reached the browser, is the first.
func (l *secretLink) claim(ctx context.Context, store SecretStore, tag string, expires time.Time) error {
	key := l.link().ClaimKey()
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
	key := l.link().CloseKey()
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
	why, ok, err := store.GetSecret(ctx, l.link().CloseKey())
	if err != nil || !ok {
		return "", err
	}
	return why, nil
}

// linkKeys are a flow's keys for its links and its page, derived from its
// codec's keys (see secretpage.Keys).
type linkKeys struct{ *secretpage.Keys }

func newLinkKeys(c *RequestStateCodec) *linkKeys {
	return &linkKeys{secretpage.NewKeys(c.keys, time.Duration(c.ttl)*time.Second, c.now)}
}

// seal returns l's token.
func (k *linkKeys) seal(l *secretLink) string { return k.Seal(l.link()) }

// open returns the link token seals, and false when it does not open, is
// malformed or has expired.
func (k *linkKeys) open(token string) (*secretLink, bool) {
	l, ok := k.Open(token)
	return (*secretLink)(l), ok
}

// linkStoreExpiry is when what the page or a round stores for a link now
// stops mattering: after any link minted until now has expired, by the
// store's own clock.
func (f *Flow) linkStoreExpiry() time.Time {
	return time.Now().Add(f.links.Life() + RequestStateLeeway)
}
