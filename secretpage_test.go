package mcpform

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tokenpkg "github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// passwordStep asks for the account's email in form mode and its new
// password in URL mode, in one round.
var passwordStep = Step{Key: "password", Message: "Set your password", Fields: []AutoFormField{
	{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
	{Name: "password", Label: "New password", Type: TypePassword, Required: true, Min: Bound(8), Max: Bound(64)},
}}

type secretFixture struct {
	flow  *Flow
	codec *RequestStateCodec
	clock *flowClock
	store *MemorySecretStore
	page  *httptest.Server
}

func newSecretFixture(t *testing.T, page *SecretPageOptions) *secretFixture {
	t.Helper()
	return newSecretFixtureOf(t, page, passwordStep, nil)
}

// newSecretFixtureOf is newSecretFixture of a flow of step, which keeps
// its outcomes in outcomes when it is not nil.
func newSecretFixtureOf(t *testing.T, page *SecretPageOptions, step Step, outcomes Outcomes) *secretFixture {
	t.Helper()
	return newSecretFixtureWith(t, page, []Step{step}, outcomes, nil)
}

// newSecretFixtureWith is newSecretFixtureOf of a flow of steps, whose
// secrets go to store, or to the fixture's own store when store is nil.
func newSecretFixtureWith(t *testing.T, page *SecretPageOptions, steps []Step, outcomes Outcomes, store SecretStore) *secretFixture {
	t.Helper()
	_, codec, clock := newFlowFixture(t)
	fx := &secretFixture{codec: codec, clock: clock, store: NewMemorySecretStore()}
	if store == nil {
		store = fx.store
	}
	var handler http.Handler
	fx.page = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(fx.page.Close)
	flow, err := NewFlow(codec, steps, &FlowOptions{Principal: tokenUser, Outcomes: outcomes,
		Secrets: &SecretOptions{PageURL: fx.page.URL + "/secret", Store: store}})
	require.NoError(t, err)
	if page == nil {
		page = &SecretPageOptions{AnyoneWithTheLink: true}
	}
	fx.flow = flow
	handler, err = flow.SecretPage(page)
	require.NoError(t, err)
	return fx
}

// urlCaps is the _meta of a client that declared both elicitation modes.
func urlCaps() mcp.Meta {
	return mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}}
}

// secretCall is a round of set_password from alice's client, which
// declared URL mode: the echoed state, and for each key an action or a
// form's content.
func secretCall(state string, answers map[string]any) *mcp.CallToolRequest {
	req := call("set_password", state, answers)
	req.Params.Meta = urlCaps()
	return req
}

// pageLink returns the link of an asking round's URL-mode request.
func pageLink(t *testing.T, r *FlowRound) string {
	t.Helper()
	require.Equal(t, FlowAsk, r.Status)
	p, ok := r.Result.InputRequests["password.secret"].(*mcp.ElicitParams)
	require.True(t, ok, "no URL-mode request in %v", r.Result.InputRequests)
	assert.Equal(t, "url", p.Mode)
	assert.Nil(t, p.RequestedSchema)
	return p.URL
}

// A browser is one person's browser on the page: it keeps the page's
// cookies, as a browser does, and the form's token of the last page it
// was shown.
type browser struct {
	c     *http.Client
	check string
}

func newBrowser(t testing.TB) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{c: &http.Client{Jar: jar}}
}

// checkRe finds the form's token in a page.
var checkRe = regexp.MustCompile(`name="c" value="([^"]*)"`)

// get opens link.
func (b *browser) get(t testing.TB, link string) (int, string) {
	t.Helper()
	res, err := b.c.Get(link)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if m := checkRe.FindStringSubmatch(string(body)); m != nil {
		b.check = m[1]
	}
	return res.StatusCode, string(body)
}

// post sends the page's form as the browser on the page would: the link
// and the form's token it was shown, unless values has its own.
func (b *browser) post(t testing.TB, link string, values url.Values, header http.Header) (int, string) {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	if values.Get("t") == "" {
		values.Set("t", u.Query().Get("t"))
	}
	if _, ok := values["c"]; !ok {
		values.Set("c", b.check)
	}
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(values.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if m := checkRe.FindStringSubmatch(string(body)); m != nil {
		b.check = m[1]
	}
	return res.StatusCode, string(body)
}

// send is a person's visit to the page: a new browser opens link, and
// sends password on it. It returns the status of the post.
func send(t testing.TB, link, password string) int {
	t.Helper()
	b := newBrowser(t)
	status, body := b.get(t, link)
	require.Equal(t, http.StatusOK, status, body)
	status, _ = b.post(t, link, url.Values{"password": {password}}, nil)
	return status
}

// payloadOf returns the readable body of a signed token.
func payloadOf(t *testing.T, token string) string {
	t.Helper()
	body := strings.TrimPrefix(token[:strings.LastIndexByte(token, '.')], "v1.")
	b, err := base64.RawURLEncoding.DecodeString(body)
	require.NoError(t, err)
	return string(b)
}

// linkToken returns the token of a page's link.
func linkToken(t testing.TB, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	return u.Query().Get("t")
}

// linkOf opens the token of a page's link.
func (fx *secretFixture) linkOf(t testing.TB, link string) *secretLink {
	t.Helper()
	l, ok := fx.flow.links.open(linkToken(t, link))
	require.True(t, ok, "the link does not open")
	return l
}

// held reports whether the store holds a secret sent on link.
func (fx *secretFixture) held(t testing.TB, link string) bool {
	t.Helper()
	_, ok, err := fx.store.GetSecret(context.Background(), fx.linkOf(t, link).key())
	require.NoError(t, err)
	return ok
}

// alicesAnswer answers set_password's form, and consents to its page.
var alicesAnswer = map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}

func TestSecretFlow(t *testing.T) {
	const secret = "correct horse battery"
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	assert.True(t, strings.HasPrefix(link, fx.page.URL+"/secret?t="), link)
	form := r.Result.InputRequests["password"].(*mcp.ElicitParams)
	assert.NotContains(t, wireJSON(t, form.RequestedSchema), "password", "the secret is not in the form")
	assert.Contains(t, r.Result.InputRequests["password.secret"].(*mcp.ElicitParams).Message, "New password")

	t.Run("a retry before the page was sent asks again", func(t *testing.T) {
		w, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
		require.NoError(t, err)
		pageLink(t, w)
		assert.Equal(t, 0, w.Attempt, "waiting is not a failure")
		require.Len(t, w.Problems, 1)
		assert.ErrorIs(t, w.Problems[0], ErrSecretWaiting)
		assert.Contains(t, w.Result.InputRequests["password.secret"].(*mcp.ElicitParams).Message,
			"New password: the page for it is still waiting")
		assert.NotContains(t, w.Result.InputRequests, "password", "the email is proven, not asked again")
		assert.Equal(t, Answers{"email": "ada@example.com"}, w.Answers)

		again, err := fx.flow.Next(context.Background(), secretCall(w.Result.RequestState, map[string]any{"password.secret": "accept"}))
		require.NoError(t, err)
		assert.Equal(t, FlowAsk, again.Status)
	})

	person := newBrowser(t)
	t.Run("the page", func(t *testing.T) {
		res, err := person.c.Get(link)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		person.check = checkRe.FindStringSubmatch(string(body))[1]
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'none'")
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self'")
		assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
		assert.Contains(t, string(body), `<label for="f-0">New password</label>`)
		assert.Contains(t, string(body), `name="password" type="password" autocomplete="new-password"`)
		assert.Contains(t, string(body), `minlength="8"`)
		assert.NotContains(t, string(body), "<script")
		// The page's cookie, which the form's token is tied to.
		cookies := res.Cookies()
		require.Len(t, cookies, 1)
		c := cookies[0]
		assert.True(t, strings.HasPrefix(c.Name, "mcpform-secret-"), c.Name)
		assert.Equal(t, "/secret", c.Path)
		assert.True(t, c.HttpOnly)
		assert.Equal(t, http.SameSiteLaxMode, c.SameSite)
		assert.False(t, c.Secure, "plain HTTP: a Secure cookie would not come back")
		assert.Equal(t, 1200, c.MaxAge, "as long as a link lives")
		assert.NotContains(t, link, c.Value)
		assert.False(t, fx.held(t, link), "opening stores nothing")

		status, _ := person.get(t, link)
		assert.Equal(t, http.StatusOK, status, "the same browser, reloading, is shown the form again")
	})

	for _, tt := range []struct {
		name   string
		values url.Values
		want   int
		shows  string
	}{
		{"too short", url.Values{"password": {"short"}}, http.StatusUnprocessableEntity, "New password must be 8 to 64 characters."},
		{"missing", url.Values{}, http.StatusUnprocessableEntity, "Enter a value for New password."},
		{"not text", url.Values{"password": {"abcdefgh\xff"}}, http.StatusUnprocessableEntity, "could not be read as text"},
		{"forged link", url.Values{"password": {secret}, "t": {"s1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}, http.StatusNotFound, "This link doesn&#39;t work"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := person.post(t, link, tt.values, nil)
			assert.Equal(t, tt.want, status)
			assert.Contains(t, body, tt.shows)
			for _, v := range tt.values["password"] {
				assert.NotContains(t, body, v, "a value is never echoed")
			}
		})
	}

	status, body := person.post(t, link, url.Values{"password": {secret}}, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "<h1>You&#39;re done</h1>")
	status, body = person.post(t, link, url.Values{"password": {"another one!"}}, nil)
	assert.Equal(t, http.StatusConflict, status, "a link is used once")
	assert.Contains(t, body, "You have sent it.")

	final := secretCall(r.Result.RequestState, alicesAnswer)
	done, err := fx.flow.Next(context.Background(), final)
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, Answers{"email": "ada@example.com", "password": secret}, done.Answers)
	assert.NotContains(t, link, secret)
	assert.False(t, fx.held(t, link), "taken, and deleted")

	replay, err := fx.flow.Next(context.Background(), final)
	require.NoError(t, err)
	assert.Equal(t, FlowInvalid, replay.Status, "a secret never comes back from a replay")
	assert.Equal(t, Answers{"email": "ada@example.com"}, replay.Answers)
	require.NotEmpty(t, replay.Problems)
	assert.ErrorIs(t, replay.Problems[0], ErrSecretUsed)
}

// TestSecretPageOpeningClaimsNothing: a chat app's preview of the link, a
// scanner, a HEAD, or a GET in another browser changes nothing: the
// person's own visit, after them, still sets the secret.
func TestSecretPageOpeningClaimsNothing(t *testing.T) {
	const secret = "correct horse battery"
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)

	preview, err := http.Get(link) // no cookie jar, as a link preview
	require.NoError(t, err)
	preview.Body.Close()
	assert.Equal(t, http.StatusOK, preview.StatusCode)
	head, err := http.Head(link)
	require.NoError(t, err)
	head.Body.Close()
	assert.Equal(t, http.StatusOK, head.StatusCode)
	status, _ := newBrowser(t).get(t, link)
	assert.Equal(t, http.StatusOK, status, "a scanner with cookies")

	require.Equal(t, http.StatusOK, send(t, link, secret), "the person's own visit")
	done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, secret, done.Answers["password"])
}

// TestSecretPageReopened: the browser that sent the secret, reopening the
// link, is told it is done, not shown the form; any other browser is told
// the link was used; neither changes anything.
func TestSecretPageReopened(t *testing.T) {
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	person := newBrowser(t)
	require.Equal(t, http.StatusOK, func() int { s, _ := person.get(t, link); return s }())
	status, _ := person.post(t, link, url.Values{"password": {"correct horse battery"}}, nil)
	require.Equal(t, http.StatusOK, status)

	for _, tt := range []struct {
		name  string
		b     *browser
		title string
		says  string
	}{
		{"the person's browser", person, "You&#39;re done", "You have sent it. You can close this page and go back to your app."},
		{"another browser", newBrowser(t), "This link was already used", "If you sent it, you&#39;re done"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := tt.b.get(t, link)
			assert.Equal(t, http.StatusOK, status)
			assert.Contains(t, body, "<title>"+tt.title+"</title>")
			assert.Contains(t, body, tt.says)
			assert.NotContains(t, body, `type="password"`, "not the form again")
		})
	}
	// Another browser, shown no form, can't post on it, and refuses
	// nothing.
	status, _ = newBrowser(t).post(t, link, url.Values{"password": {"mallory's own choice"}}, nil)
	assert.Equal(t, http.StatusForbidden, status)
	// The person's browser is done even after the flow took the secret.
	done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	_, body := person.get(t, link)
	assert.Contains(t, body, "<title>You&#39;re done</title>")
}

// TestSecretPageAfterFinish: once the flow took the secret and finished,
// the link says so to whichever browser opens it, the person's or not,
// and never shows the form again; a post on it takes nothing and refuses
// nothing, and a replay of the finishing call still finishes.
func TestSecretPageAfterFinish(t *testing.T) {
	for _, tt := range []struct {
		name     string
		outcomes Outcomes
	}{
		{"without outcomes", nil},
		{"with outcomes", NewMemoryOutcomes(0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			fx := newSecretFixtureOf(t, nil, passwordStep, tt.outcomes)
			r, err := fx.flow.Next(ctx, secretCall("", nil))
			require.NoError(t, err)
			link := pageLink(t, r)
			require.Equal(t, http.StatusOK, send(t, link, "correct horse battery"))
			ran := 0
			finish := func() *FlowRound {
				t.Helper()
				done, err := fx.flow.Next(ctx, secretCall(r.Result.RequestState, alicesAnswer))
				require.NoError(t, err)
				require.Equal(t, FlowDone, done.Status)
				if tt.outcomes != nil {
					res, err := done.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
						ran++
						return outcome("password set"), nil
					})
					require.NoError(t, err)
					assert.Equal(t, "password set", textOf(res))
				}
				return done
			}
			assert.Equal(t, "correct horse battery", finish().Answers["password"])
			assert.False(t, fx.held(t, link), "the secret is spent")

			for _, method := range []string{http.MethodGet, http.MethodHead} {
				req, err := http.NewRequest(method, link, nil)
				require.NoError(t, err)
				res, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				res.Body.Close()
				assert.Equal(t, http.StatusOK, res.StatusCode, method)
			}
			status, body := newBrowser(t).get(t, link)
			assert.Equal(t, http.StatusOK, status)
			assert.Contains(t, body, "<title>This request is finished</title>")
			assert.NotContains(t, body, `type="password"`, "not the form again")

			b := newBrowser(t)
			b.get(t, link)
			status, body = b.post(t, link, url.Values{"password": {"mallory's own choice"}}, nil)
			assert.Equal(t, http.StatusConflict, status)
			assert.Contains(t, body, "<h1>This request is finished</h1>")
			if tt.outcomes == nil {
				// Nothing kept the outcome, and the secret is spent.
				again, err := fx.flow.Next(ctx, secretCall(r.Result.RequestState, alicesAnswer))
				require.NoError(t, err)
				assert.Equal(t, FlowInvalid, again.Status, "a replay takes nothing twice")
				assert.NotContains(t, again.Answers, "password")
				require.Len(t, again.Problems, 1)
				assert.ErrorIs(t, again.Problems[0], ErrSecretUsed)
				return
			}
			finish()
			assert.Equal(t, 1, ran, "a replay of the finishing call gets its outcome")
		})
	}
}

func TestSecretLinkRefusals(t *testing.T) {
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	l := fx.linkOf(t, link)

	// A link sealed for the same run but another principal puts the
	// secret where alice's flow never looks.
	l.Principal = "mallory"
	other := fx.page.URL + "/secret?t=" + url.QueryEscape(fx.flow.links.seal(l))
	require.Equal(t, http.StatusOK, send(t, other, "mallory's choice"))
	w, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
	require.NoError(t, err)
	assert.Equal(t, FlowAsk, w.Status, "mallory's secret is not alice's")

	// The flow's own state is not a link, and a link is not a state; a
	// tampered link is no link. The page says so in words.
	for _, bad := range []string{r.Result.RequestState, flipLast(linkToken(t, link))} {
		status, body := newBrowser(t).get(t, fx.page.URL+"/secret?t="+url.QueryEscape(bad))
		assert.Equal(t, http.StatusNotFound, status)
		assert.Contains(t, body, "<h1>This link doesn&#39;t work</h1>")
		status, _ = newBrowser(t).post(t, fx.page.URL+"/secret?t="+url.QueryEscape(bad), url.Values{"password": {"whatever!"}}, nil)
		assert.Equal(t, http.StatusNotFound, status)
	}
	_, err = fx.flow.Next(context.Background(), secretCall(linkToken(t, link), alicesAnswer))
	var rpcErr *jsonrpc.Error
	assert.ErrorAs(t, err, &rpcErr)

	// An expired link is refused.
	fx.clock.t = fx.clock.t.Add(time.Hour)
	status, body := newBrowser(t).get(t, link)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, body, "It is not valid, or it has expired.")
}

// TestSecretLinkUsedElsewhere: once a browser posted on a link, anyone
// else's post on it refuses the link for good: the page says so, and the
// flow takes nothing from it and ends with ErrSecretRefused.
func TestSecretLinkUsedElsewhere(t *testing.T) {
	const (
		secret = "correct horse battery"
		stolen = "mallory's own choice"
	)
	for _, tt := range []struct {
		name  string
		visit func(t *testing.T, link string, person, mallory *browser)
	}{
		{"posted by someone else after the person posted", func(t *testing.T, link string, person, mallory *browser) {
			person.get(t, link)
			status, _ := person.post(t, link, url.Values{"password": {"short"}}, nil)
			require.Equal(t, http.StatusUnprocessableEntity, status)
			mallory.get(t, link)
			status, body := mallory.post(t, link, url.Values{"password": {stolen}}, nil)
			assert.Equal(t, http.StatusConflict, status)
			assert.Contains(t, body, "<h1>This link no longer works</h1>")
			assert.Contains(t, body, "It was already used in another browser")
			status, body = person.post(t, link, url.Values{"password": {secret}}, nil)
			assert.Equal(t, http.StatusConflict, status, "the link no longer works for anyone")
			assert.Contains(t, body, "Go back to your app")
			status, _ = person.get(t, link)
			assert.Equal(t, http.StatusConflict, status)
		}},
		{"posted by someone else who opened it before the person sent it", func(t *testing.T, link string, person, mallory *browser) {
			mallory.get(t, link)
			require.Equal(t, http.StatusOK, send(t, link, secret))
			status, _ := mallory.post(t, link, url.Values{"password": {stolen}}, nil)
			assert.Equal(t, http.StatusConflict, status)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			r, err := fx.flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			link := pageLink(t, r)
			tt.visit(t, link, newBrowser(t), newBrowser(t))

			end, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
			require.NoError(t, err)
			require.Equal(t, FlowInvalid, end.Status, "the flow ends, taking nothing")
			assert.Equal(t, "password", end.Step)
			assert.Equal(t, Answers{"email": "ada@example.com"}, end.Answers, "no secret among the answers")
			require.Len(t, end.Problems, 1)
			assert.ErrorIs(t, end.Problems[0], ErrSecretRefused)
			assert.Equal(t, "Check New password: its link was used in another browser, so the page refused it.",
				ProblemMessage(fx.flow.Fields("password"), end.Problems))
			assert.False(t, fx.held(t, link), "a secret sent on a refused link is dropped")
			again, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
			require.NoError(t, err)
			assert.Equal(t, FlowInvalid, again.Status, "a replay ends the same way")
		})
	}
}

// TestSecretPageRefusesChangingNothing: a POST from another site, or
// without the page's cookie and form token, is refused, says why in
// words, and changes nothing: the person's own visit after it works.
func TestSecretPageRefusesChangingNothing(t *testing.T) {
	for _, tt := range []struct {
		name   string
		header http.Header
		values url.Values
		says   string
	}{
		{"from another site", http.Header{"Sec-Fetch-Site": {"cross-site"}}, nil, "It came from another site"},
		{"from another origin", http.Header{"Sec-Fetch-Site": nil, "Origin": {"https://evil.example"}}, nil, "It came from another site"},
		{"from another site, too big to read", http.Header{"Sec-Fetch-Site": {"cross-site"}},
			url.Values{"password": {strings.Repeat("x", 2*maxSecretPageBody)}}, "It came from another site"},
		{"without the form's token", nil, url.Values{"c": {""}}, "did not send back what this page gave it"},
		{"with another browser's token", nil, url.Values{"c": {"AAAAAAAAAAAAAAAAAAAAAA"}}, "did not send back what this page gave it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			r, err := fx.flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			link := pageLink(t, r)
			mallory := newBrowser(t)
			mallory.get(t, link)
			values := url.Values{"password": {"mallory's own choice"}}
			for k, v := range tt.values {
				values[k] = v
			}
			status, body := mallory.post(t, link, values, tt.header)
			assert.Equal(t, http.StatusForbidden, status)
			assert.Contains(t, body, "<h1>This wasn&#39;t sent from this page</h1>")
			assert.Contains(t, body, tt.says)
			assert.False(t, fx.held(t, link))

			require.Equal(t, http.StatusOK, send(t, link, "correct horse battery"), "the link still works")
			done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
			require.NoError(t, err)
			assert.Equal(t, FlowDone, done.Status)
		})
	}
}

// TestSecretPageHead: a HEAD answers as a GET would, status and headers,
// without a body, and changes nothing, in every state of a link.
func TestSecretPageHead(t *testing.T) {
	fx := newSecretFixture(t, nil)
	fresh := func() string {
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		return pageLink(t, r)
	}
	refused := fresh()
	person := newBrowser(t)
	person.get(t, refused)
	person.post(t, refused, url.Values{"password": {"short"}}, nil)
	other := newBrowser(t)
	other.get(t, refused)
	status, _ := other.post(t, refused, url.Values{"password": {"correct horse battery"}}, nil)
	require.Equal(t, http.StatusConflict, status)
	sent := fresh()
	require.Equal(t, http.StatusOK, send(t, sent, "correct horse battery"))

	for _, tt := range []struct {
		name, link string
		status     int
	}{
		{"fresh", fresh(), http.StatusOK},
		{"refused", refused, http.StatusConflict},
		{"sent", sent, http.StatusOK},
		{"not a link", fx.page.URL + "/secret?t=s1.nothing", http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			do := func(method string) (*http.Response, string) {
				req, err := http.NewRequest(method, tt.link, nil)
				require.NoError(t, err)
				res, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				defer res.Body.Close()
				body, _ := io.ReadAll(res.Body)
				return res, string(body)
			}
			head, body := do(http.MethodHead)
			assert.Empty(t, body)
			get, page := do(http.MethodGet)
			assert.Equal(t, tt.status, get.StatusCode)
			assert.Equal(t, get.StatusCode, head.StatusCode)
			assert.Equal(t, strconv.Itoa(len(page)), head.Header.Get("Content-Length"))
			for _, h := range []http.Header{get.Header, head.Header} {
				h.Del("Date")
				h.Del("Set-Cookie") // a fresh random value each time
			}
			assert.Equal(t, get.Header, head.Header)
			assert.Equal(t, len(get.Cookies()), len(head.Cookies()))
		})
	}
}

// TestSecretFlowEndings: whatever the ending, the flow leaves no secret
// of its run in the store, and its page takes nothing more, saying so.
func TestSecretFlowEndings(t *testing.T) {
	const secret = "correct horse battery"
	var mallory *browser
	for _, tt := range []struct {
		name string
		// end sends the person's password on link, then ends the flow,
		// from its first round's state.
		end  func(t *testing.T, fx *secretFixture, state, link string) *FlowRound
		want FlowStatus
	}{
		{"done", func(t *testing.T, fx *secretFixture, state, link string) *FlowRound {
			return next(t, fx, state, alicesAnswer)
		}, FlowDone},
		{"declined with the form", func(t *testing.T, fx *secretFixture, state, link string) *FlowRound {
			return next(t, fx, state, map[string]any{"password": "decline"})
		}, FlowDeclined},
		{"page declined", func(t *testing.T, fx *secretFixture, state, link string) *FlowRound {
			return next(t, fx, state, map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "decline"})
		}, FlowDeclined},
		{"cancelled", func(t *testing.T, fx *secretFixture, state, link string) *FlowRound {
			return next(t, fx, state, map[string]any{"password": "cancel"})
		}, FlowCancelled},
		{"invalid after re-asks", func(t *testing.T, fx *secretFixture, state, link string) *FlowRound {
			bad := map[string]any{"password": map[string]any{"email": "not an email"}, "password.secret": "accept"}
			r := next(t, fx, state, bad)
			for r.Status == FlowAsk {
				r = next(t, fx, r.Result.RequestState, bad)
			}
			return r
		}, FlowInvalid},
		{"refused", func(t *testing.T, fx *secretFixture, state, link string) *FlowRound {
			// Mallory, who opened the link before the person sent it,
			// posts on it after.
			status, _ := mallory.post(t, link, url.Values{"password": {"mallory's own choice"}}, nil)
			require.Equal(t, http.StatusConflict, status)
			return next(t, fx, state, alicesAnswer)
		}, FlowInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			r, err := fx.flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			link := pageLink(t, r)
			mallory = newBrowser(t)
			mallory.get(t, link)
			require.Equal(t, http.StatusOK, send(t, link, secret))
			require.True(t, fx.held(t, link))

			end := tt.end(t, fx, r.Result.RequestState, link)
			require.Equal(t, tt.want, end.Status)
			assert.False(t, fx.held(t, link), "the run's secret is deleted")
			if tt.want == FlowDone {
				return
			}
			// Even a post the page let through just before the end stores
			// nothing: the secret's key is used up.
			err = fx.store.PutSecret(context.Background(), fx.linkOf(t, link).key(), "late", time.Now().Add(time.Minute))
			assert.ErrorIs(t, err, ErrSecretUsed)
			status, body := newBrowser(t).get(t, link)
			assert.NotContains(t, body, "<form", "the page takes nothing more")
			if tt.name != "refused" {
				assert.Equal(t, http.StatusGone, status)
				assert.Contains(t, body, "<h1>This request has ended</h1>")
			}
		})
	}
	t.Run("page declined while waiting, then sent", func(t *testing.T) {
		fx := newSecretFixture(t, nil)
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		link := pageLink(t, r)
		w := next(t, fx, r.Result.RequestState, alicesAnswer)
		require.Equal(t, FlowAsk, w.Status)
		end := next(t, fx, w.Result.RequestState, map[string]any{"password.secret": "decline"})
		require.Equal(t, FlowDeclined, end.Status)
		person := newBrowser(t)
		status, body := person.get(t, link)
		assert.Equal(t, http.StatusGone, status)
		assert.Contains(t, body, "<h1>This request has ended</h1>")
		status, _ = person.post(t, link, url.Values{"password": {secret}}, nil)
		assert.Equal(t, http.StatusGone, status)
		assert.False(t, fx.held(t, link), "nothing sent after the end is kept")
	})
}

// next runs a round of set_password.
func next(t *testing.T, fx *secretFixture, state string, answers map[string]any) *FlowRound {
	t.Helper()
	r, err := fx.flow.Next(context.Background(), secretCall(state, answers))
	require.NoError(t, err)
	return r
}

// TestSecretPageDoubleSubmit: a second post from the person's browser
// that leaves before the first one's answer arrives (a double click, or a
// retry after a lost answer) carries the cookie from before the claim. It
// is the same browser's claim: both are told they are done, and the flow
// finishes with the secret, rather than refusing the person's own link.
func TestSecretPageDoubleSubmit(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		t.Run(fmt.Sprintf("concurrent=%v", concurrent), func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			r := next(t, fx, "", nil)
			link := pageLink(t, r)
			person := newBrowser(t)
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status)
			cookie := cookieHeader(t, person, link) // both posts leave with it
			body := url.Values{"t": {linkToken(t, link)}, "c": {person.check}, "password": {"correct horse battery"}}.Encode()
			var statuses [2]int
			var pages [2]string
			var wg sync.WaitGroup
			for i := range statuses {
				post := func() { statuses[i], pages[i] = rawPost(t, link, body, cookie) }
				if concurrent {
					wg.Go(post)
				} else {
					post()
				}
			}
			wg.Wait()
			for i := range statuses {
				assert.Equal(t, http.StatusOK, statuses[i], "post %d", i)
				assert.Contains(t, pages[i], "<title>You&#39;re done</title>", "post %d", i)
			}
			done := next(t, fx, r.Result.RequestState, alicesAnswer)
			require.Equal(t, FlowDone, done.Status, "%v", done.Problems)
			assert.Equal(t, "correct horse battery", done.Answers["password"])
		})
	}
}

// rawPost posts body on link, as the page's own form does, with the
// Cookie header cookie (none when it is empty).
func rawPost(t *testing.T, link, body, cookie string) (int, string) {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	page, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(page)
}

// cookieHeader is the Cookie header b's jar sends to link now.
func cookieHeader(t *testing.T, b *browser, link string) string {
	u, err := url.Parse(link)
	require.NoError(t, err)
	var parts []string
	for _, c := range b.c.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

// TestSecretLinkOpenedTwiceByThePerson: the person's own browser may
// reload the page, and a new run of the flow gives a new link that works.
func TestSecretLinkOpenedTwiceByThePerson(t *testing.T) {
	fx := newSecretFixture(t, nil)
	person := newBrowser(t)
	for run := range 2 {
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		link := pageLink(t, r)
		for range 2 {
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status, "run %d", run)
		}
		status, _ := person.post(t, link, url.Values{"password": {"correct horse battery"}}, nil)
		require.Equal(t, http.StatusOK, status)
		done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
		require.NoError(t, err)
		assert.Equal(t, FlowDone, done.Status)
	}
}

func TestSecretPageOptions(t *testing.T) {
	fx := newSecretFixture(t, nil)
	for _, tt := range []struct {
		name string
		opts *SecretPageOptions
		ok   bool
	}{
		{"nil", nil, false},
		{"zero", &SecretPageOptions{}, false},
		{"anyone with the link", &SecretPageOptions{AnyoneWithTheLink: true}, true},
		{"authorized", &SecretPageOptions{Authorize: func(*http.Request, string) error { return nil }}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page, err := fx.flow.SecretPage(tt.opts)
			if tt.ok {
				assert.NoError(t, err)
				assert.NotNil(t, page)
				return
			}
			assert.ErrorContains(t, err, "SecretPage needs SecretPageOptions.Authorize, or AnyoneWithTheLink")
			assert.Nil(t, page)
		})
	}
}

// TestSecretPageCookie: the page's cookie is Secure when the page is
// served over TLS, or its PageURL is https (behind a proxy that ends TLS).
func TestSecretPageCookie(t *testing.T) {
	fx := newSecretFixture(t, nil)
	for _, tt := range []struct {
		name    string
		tls     bool
		pageURL string
		secure  bool
	}{
		{"plain HTTP", false, "", false},
		{"TLS", true, "", true},
		{"an https PageURL", false, "https://example.com/secret", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flow := fx.flow
			if tt.pageURL != "" {
				var err error
				flow, err = NewFlow(fx.codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
					Secrets: &SecretOptions{PageURL: tt.pageURL, Store: NewMemorySecretStore()}})
				require.NoError(t, err)
			}
			r, err := flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			req := httptest.NewRequest(http.MethodGet, pageLink(t, r), nil)
			req.TLS = nil // as NewRequest sets it for an https URL
			if tt.tls {
				req.TLS = &tls.ConnectionState{}
			}
			w := httptest.NewRecorder()
			page, err := flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
			require.NoError(t, err)
			page.ServeHTTP(w, req)
			require.Equal(t, http.StatusOK, w.Code)
			cookies := w.Result().Cookies()
			require.Len(t, cookies, 1)
			assert.Equal(t, tt.secure, cookies[0].Secure)
		})
	}
}

func TestSecretPageLimits(t *testing.T) {
	authorize := func(r *http.Request, principal string) error {
		if r.Header.Get("X-Session-User") != principal {
			return errors.New("another person's page")
		}
		return nil
	}
	fx := newSecretFixture(t, &SecretPageOptions{Authorize: authorize})
	alice, mallory := http.Header{"X-Session-User": {"alice"}}, http.Header{"X-Session-User": {"mallory"}}
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	person := newBrowser(t)
	get := func(b *browser, h http.Header) int {
		req, _ := http.NewRequest(http.MethodGet, link, nil)
		req.Header = h
		res, err := b.c.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if m := checkRe.FindStringSubmatch(string(body)); m != nil {
			b.check = m[1]
		}
		return res.StatusCode
	}
	assert.Equal(t, http.StatusForbidden, get(newBrowser(t), mallory), "Authorize refuses a GET")
	assert.Equal(t, http.StatusOK, get(person, alice), "a refused GET claims nothing, and refuses nothing")

	status, _ := person.post(t, link, url.Values{"password": {strings.Repeat("x", 2<<20)}}, alice)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	req, _ := http.NewRequest(http.MethodPut, link, nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	status, _ = person.post(t, link, url.Values{"password": {"long enough"}}, alice)
	assert.Equal(t, http.StatusOK, status)

	// A post Authorize refuses, even from the browser that opened the
	// link, refuses the link.
	r, err = fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link = pageLink(t, r)
	assert.Equal(t, http.StatusOK, get(person, alice))
	status, _ = person.post(t, link, url.Values{"password": {"long enough"}}, mallory)
	assert.Equal(t, http.StatusForbidden, status)
	status, _ = person.post(t, link, url.Values{"password": {"long enough"}}, alice)
	assert.Equal(t, http.StatusConflict, status)
	end, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
	require.NoError(t, err)
	assert.Equal(t, FlowInvalid, end.Status)
}

func TestSecretFlowCapabilities(t *testing.T) {
	fx := newSecretFixture(t, nil)
	// Form mode only: the form is asked natively, and the page's link is
	// given in an ordinary result once it is answered (TestFlowHosts).
	r, err := fx.flow.Next(context.Background(), call("set_password", "", nil))
	require.NoError(t, err)
	assert.Equal(t, "password", asked(t, r), "no URL-mode request")

	bare := call("set_password", "", nil)
	bare.Params.Meta = mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}}
	_, err = fx.flow.Next(context.Background(), bare)
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
	assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{},"url":{}}}}`, string(rpcErr.Data))

	_, err = NewFlow(fx.codec, []Step{passwordStep}, nil)
	assert.ErrorContains(t, err, `field "password": secret, and asked only in URL mode`)
	_, err = NewFlow(fx.codec, []Step{passwordStep}, &FlowOptions{Secrets: &SecretOptions{PageURL: "https://x"}})
	assert.ErrorContains(t, err, "needs a PageURL and a Store")
}

// FuzzSecretPage posts arbitrary form bodies with a valid link, from the
// browser that opened it: the page never panics, and stores only values
// its field accepts.
func FuzzSecretPage(f *testing.F) {
	for _, s := range []string{"password=hunter2hunter2", "password=", "password=%ff%fe%fd%fc%fb%fa%f9%f8",
		"password=a&password=bbbbbbbbbbbb", "t=x&password=12345678", "%zz", strings.Repeat("password=x&", 100),
		"c=&password=hunter2hunter2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		fx := newSecretFixture(t, nil)
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		u, _ := url.Parse(pageLink(t, r))
		page, err := fx.flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
		require.NoError(t, err)
		opened := httptest.NewRecorder()
		page.ServeHTTP(opened, httptest.NewRequest(http.MethodGet, u.String(), nil))
		require.Equal(t, http.StatusOK, opened.Code)

		q, _ := url.ParseQuery(body)
		if q.Get("t") == "" {
			body += "&t=" + url.QueryEscape(u.Query().Get("t"))
		}
		if _, ok := q["c"]; !ok {
			body += "&c=" + url.QueryEscape(checkRe.FindStringSubmatch(opened.Body.String())[1])
		}
		req := httptest.NewRequest(http.MethodPost, u.String(), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for _, c := range opened.Result().Cookies() {
			req.AddCookie(c)
		}
		w := httptest.NewRecorder()
		page.ServeHTTP(w, req)
		l, ok := fx.flow.links.open(u.Query().Get("t"))
		if !ok {
			t.Fatal("the link does not open")
		}
		raw, ok, _ := fx.store.GetSecret(req.Context(), l.key())
		if w.Code == http.StatusOK != ok {
			t.Fatalf("status %d, stored %v", w.Code, ok)
		}
		if ok {
			var v map[string]string
			require.NoError(t, json.Unmarshal([]byte(raw), &v))
			f := &passwordStep.Fields[1]
			if reason := f.checkValue(v["password"]); reason != "" {
				t.Fatalf("stored %q: %s", v["password"], reason)
			}
		}
	})
}

// TestSecretPageAccessible: the page with a problem says "Error:" in its
// title, and marks, describes and focuses the field; the form's label is
// tied to its field, its hint comes before it, and it follows the
// browser's dark mode, its input sized by its border box.
func TestSecretPageAccessible(t *testing.T) {
	step := Step{Key: "password", Message: "Set your password", Fields: []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "password", Label: "New password", Description: "8 to 64 characters.", Type: TypePassword,
			Required: true, Min: Bound(8), Max: Bound(64)},
	}}
	fx := newSecretFixtureOf(t, nil, step, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)

	person := newBrowser(t)
	status, empty := person.get(t, link)
	require.Equal(t, http.StatusOK, status)
	status, problem := person.post(t, link, url.Values{"password": {"short"}}, nil)
	require.Equal(t, http.StatusUnprocessableEntity, status)

	for _, tt := range []struct {
		name, page string
		want, not  []string
	}{
		{"empty", empty,
			[]string{`<title>Set your password</title>`, `<label for="f-0">New password</label>`,
				`<div class="help" id="f-0-help">8 to 64 characters.</div>`, `aria-describedby="f-0-help"`,
				`autocomplete="new-password"`},
			[]string{`aria-invalid="true"`, ` autofocus`, `role="alert"`, "Error:"}},
		{"with a problem", problem,
			[]string{`<title>Error: Set your password</title>`, `aria-invalid="true"`,
				`aria-describedby="f-0-help f-0-problem"`, ` autofocus>`,
				`<div class="problem" id="f-0-problem" role="alert">New password must be 8 to 64 characters.</div>`},
			[]string{"short"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range append(tt.want, `<meta name="color-scheme" content="light dark">`,
				`:root{color-scheme:light dark}`, `box-sizing:border-box`, `<html lang="en">`) {
				assert.Contains(t, tt.page, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, tt.page, n)
			}
			assert.NotContains(t, tt.page, "<script")
			// Every id the field is described by is on the page; the hint
			// comes before the field.
			m := regexp.MustCompile(`aria-describedby="([^"]*)"`).FindStringSubmatch(tt.page)
			require.NotNil(t, m)
			for _, id := range strings.Fields(m[1]) {
				assert.Contains(t, tt.page, `id="`+id+`"`)
			}
			assert.Less(t, strings.Index(tt.page, `id="f-0-help"`), strings.Index(tt.page, `<input id="f-0"`))
		})
	}
}

// TestSecretPageWords: every state of the page has a heading and title in
// words, never an HTTP status's name, and a problem's title starts with
// "Error: ".
func TestSecretPageWords(t *testing.T) {
	p := &secretPage{flow: newSecretFixture(t, nil).flow}
	for _, status := range []int{http.StatusOK, http.StatusNotFound, http.StatusConflict, http.StatusGone, http.StatusForbidden} {
		for _, text := range []*pageText{&pageStrings.Done, &pageStrings.Used, &pageStrings.Stopped, &pageStrings.UsedElsewhere, &pageStrings.Refused,
			&pageStrings.Ended, &pageStrings.Finished, &pageStrings.BadLink, &pageStrings.NotYours, &pageStrings.AnotherSite, &pageStrings.NoCookie,
			&pageStrings.TooBig, &pageStrings.Unreadable, &pageStrings.Method, &pageStrings.Unavailable} {
			rec := httptest.NewRecorder()
			p.show(rec, &http.Request{Method: http.MethodGet}, status, pageView{text: text})
			body := rec.Body.String()
			assert.NotContains(t, body, http.StatusText(status)+"<", "status %d, %q", status, text.Heading)
			assert.Contains(t, body, "<h1>"+html.EscapeString(text.Heading)+"</h1>")
			wantError := status >= 400 && text != &pageStrings.Done && text != &pageStrings.Used && text != &pageStrings.Finished
			assert.Equal(t, wantError, strings.Contains(body, "<title>Error: "), "status %d, %q", status, text.Heading)
		}
	}
}

// TestSecretLinkClaim: a link is claimed once, ever, and leaves no value
// in the store; it is closed once, for every replica sharing the store,
// and the first reason stays.
func TestSecretLinkClaim(t *testing.T) {
	store := NewMemorySecretStore()
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	link := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-1", Step: "password"}
	other := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-2", Step: "password"}

	require.NoError(t, link.claim(ctx, store, "tag-a", expires))
	assert.ErrorIs(t, link.claim(ctx, store, "tag-b", expires), ErrSecretUsed, "another browser's claim")
	assert.NoError(t, link.claim(ctx, store, "tag-a", expires), "the same browser's claim again")
	require.NoError(t, other.claim(ctx, store, "tag-b", expires))

	why, err := link.closed(ctx, store)
	require.NoError(t, err)
	assert.Empty(t, why)
	standing, closed, err := link.close(ctx, store, closedRefused, expires)
	require.NoError(t, err)
	assert.True(t, closed)
	assert.Equal(t, closedRefused, standing)
	standing, closed, err = link.close(ctx, store, closedEnded, expires)
	require.NoError(t, err, "closing twice is closing")
	assert.False(t, closed, "the second close closes nothing")
	assert.Equal(t, closedRefused, standing, "the second close learns the first reason")
	why, err = link.closed(ctx, store)
	require.NoError(t, err)
	assert.Equal(t, closedRefused, why, "the first reason stays")
	why, err = other.closed(ctx, store)
	require.NoError(t, err)
	assert.Empty(t, why, "a link's closing is its own")
}

// TestSecretLinkSealed: the token in a link reveals nothing of whose run
// and step it names, base64url-decoded or not; it is short, the same from
// round to round, and opens only as it was sealed, before it expires.
func TestSecretLinkSealed(t *testing.T) {
	_, codec, clock := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	token := linkToken(t, pageLink(t, r))
	link, ok := flow.links.open(token)
	require.True(t, ok)
	assert.Equal(t, secretLink{Principal: "alice", Tool: "set_password", Run: r.ID, Step: "password"}, *link)

	assert.LessOrEqual(t, len(token), 211, "a short link, of one 128-byte bucket: %s", token)

	// The whole link is padded: while principal, tool and step take 95
	// bytes or fewer together, its length shows none of them.
	lengths := map[int]bool{}
	for _, l := range []secretLink{
		{Principal: "al", Tool: "set_password", Step: "password"},
		{Principal: "alice", Tool: "wipe_all_customer_records", Step: "confirm"},
		{Principal: "alexandra.k@example.com", Tool: "set_password", Step: "pin"},
		{Principal: strings.Repeat("x", 58), Tool: "wipe_all_customer_records", Step: "confirmation"},
	} {
		l.Run = r.ID
		tok := flow.links.seal(&l)
		lengths[len(tok)] = true
		opened, ok := flow.links.open(tok)
		require.True(t, ok)
		assert.Equal(t, l, *opened)
	}
	assert.Len(t, lengths, 1, "links of up to 95 bytes of principal, tool and step give tokens of one length")
	long := flow.links.seal(&secretLink{Principal: strings.Repeat("x", 59), Tool: "wipe_all_customer_records", Run: r.ID, Step: "confirmation"})
	assert.Greater(t, len(long), len(token))
	var decoded [][]byte
	for _, part := range strings.Split(token, ".") {
		if b, err := base64.RawURLEncoding.DecodeString(part); err == nil {
			decoded = append(decoded, b)
		}
	}
	require.NotEmpty(t, decoded, "the token is base64url")
	for _, b := range append(decoded, []byte(token)) {
		for _, secret := range []string{"alice", "set_password", r.ID, "password"} {
			assert.False(t, bytes.Contains(b, []byte(secret)), "the link reveals %q", secret)
		}
	}

	next, err := flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{"password.secret": "accept"}))
	require.NoError(t, err)
	assert.Equal(t, token, linkToken(t, pageLink(t, next)), "the same link from round to round")

	for _, tt := range []struct{ name, token string }{
		{"a bit flipped", flipLast(token)},
		{"truncated", token[:len(token)-4]},
		{"no prefix", strings.TrimPrefix(token, "s1.")},
		{"the flow's state", r.Result.RequestState},
		{"empty", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := flow.links.open(tt.token)
			assert.False(t, ok)
		})
	}
	clock.t = clock.t.Add(2*tokenpkg.DefaultTTL + RequestStateLeeway + time.Second)
	_, ok = flow.links.open(token)
	assert.False(t, ok, "expired")
}

// flipLast changes a token's last character, keeping it base64url.
func flipLast(token string) string {
	last := token[len(token)-1]
	repl := byte('A')
	if last == 'A' {
		repl = 'B'
	}
	return token[:len(token)-1] + string(repl)
}

// BenchmarkSecretFlowFirstRound is the round that asks a secret step: its
// form and its page's link, sealed.
func BenchmarkSecretFlowFirstRound(b *testing.B) {
	_, codec, _ := newFlowFixture(b)
	flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}})
	require.NoError(b, err)
	req := secretCall("", nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := flow.Next(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// pinStep asks a PIN alone, on the secret page, with a Check that knows
// the right one.
var pinStep = Step{Key: "pin", Message: "Confirm with your PIN", Fields: []AutoFormField{
	{Name: "password", Label: "PIN", Type: TypePassword, Required: true, Min: Bound(4)}},
	Check: func(a Answers) []*FieldError {
		if a["password"] != "4711" {
			return []*FieldError{{Field: "password", Err: errors.New("the PIN is wrong")}}
		}
		return nil
	}}

// TestSecretStepCheck: a Check on a step of secrets alone sees the
// secret, on the page: a wrong PIN is asked again there, naming the
// problem, and the right one finishes the flow; a PIN wrong once more
// than MaxReasks refuses the link, and the flow ends invalid.
func TestSecretStepCheck(t *testing.T) {
	start := func(t *testing.T, maxReasks int) (*secretFixture, *FlowRound, string) {
		_, codec, clock := newFlowFixture(t)
		fx := &secretFixture{codec: codec, clock: clock, store: NewMemorySecretStore()}
		var handler http.Handler
		fx.page = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
		t.Cleanup(fx.page.Close)
		flow, err := NewFlow(codec, []Step{transferSteps[0], pinStep}, &FlowOptions{Principal: tokenUser, MaxReasks: maxReasks,
			Secrets: &SecretOptions{PageURL: fx.page.URL + "/secret", Store: fx.store}})
		require.NoError(t, err)
		fx.flow = flow
		handler, err = flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
		require.NoError(t, err)
		r, err := flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		r, err = flow.Next(context.Background(), secretCall(r.Result.RequestState,
			map[string]any{"transfer": map[string]any{"payee": "SAV-2", "amount": 9}}))
		require.NoError(t, err)
		require.Equal(t, FlowAsk, r.Status)
		p, ok := r.Result.InputRequests["pin.secret"].(*mcp.ElicitParams)
		require.True(t, ok, "no URL-mode request in %v", r.Result.InputRequests)
		return fx, r, p.URL
	}
	t.Run("wrong, then right", func(t *testing.T) {
		fx, r, link := start(t, 0)
		b := newBrowser(t)
		status, _ := b.get(t, link)
		require.Equal(t, http.StatusOK, status)
		status, body := b.post(t, link, url.Values{"password": {"1234"}}, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, status)
		assert.Contains(t, body, "The PIN is wrong")
		status, _ = b.post(t, link, url.Values{"password": {"4711"}}, nil)
		require.Equal(t, http.StatusOK, status)
		done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{"pin.secret": "accept"}))
		require.NoError(t, err)
		require.Equal(t, FlowDone, done.Status, "problems %v", done.Problems)
		assert.Equal(t, Answers{"payee": "SAV-2", "amount": 9.0, "password": "4711"}, done.Answers)
	})
	t.Run("wrong once more than MaxReasks", func(t *testing.T) {
		fx, r, link := start(t, 1)
		b := newBrowser(t)
		b.get(t, link)
		status, _ := b.post(t, link, url.Values{"password": {"1234"}}, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, status)
		status, _ = b.post(t, link, url.Values{"password": {"1235"}}, nil)
		assert.Equal(t, http.StatusConflict, status, "the link is refused")
		status, _ = b.post(t, link, url.Values{"password": {"4711"}}, nil)
		assert.Equal(t, http.StatusConflict, status, "and takes nothing more")
		end, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{"pin.secret": "accept"}))
		require.NoError(t, err)
		assert.Equal(t, FlowInvalid, end.Status)
		require.NotEmpty(t, end.Problems)
		assert.ErrorIs(t, end.Problems[0], ErrSecretRefused)
	})
}

// TestSecretCheckBesideFields: NewFlow refuses a Check on a step whose
// secret fields sit beside others, which nothing sees together, naming
// the step, the field and the fix.
func TestSecretCheckBesideFields(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	step := passwordStep
	step.Check = func(Answers) []*FieldError { return nil }
	_, err := NewFlow(codec, []Step{step}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: "https://a.example/secret", Store: NewMemorySecretStore()}})
	require.Error(t, err)
	for _, want := range []string{`step "password"`, `field "password"`, "a step of their own"} {
		assert.Contains(t, err.Error(), want)
	}
	var fe *FieldError
	assert.ErrorAs(t, err, &fe)
}
