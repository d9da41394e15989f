package mcpform

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

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
	_, codec, clock := newFlowFixture(t)
	fx := &secretFixture{codec: codec, clock: clock, store: NewMemorySecretStore()}
	var handler http.Handler
	fx.page = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(fx.page.Close)
	flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: fx.page.URL + "/secret", Store: fx.store}})
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
// cookies, as a browser does.
type browser struct{ c *http.Client }

func newBrowser(t testing.TB) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{&http.Client{Jar: jar}}
}

// get opens link.
func (b *browser) get(t testing.TB, link string) (int, string) {
	t.Helper()
	res, err := b.c.Get(link)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// post sends the page's form as the browser on the page would.
func (b *browser) post(t testing.TB, link string, values url.Values, header http.Header) (int, string) {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	if values.Get("t") == "" {
		values.Set("t", u.Query().Get("t"))
	}
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(values.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := b.c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
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

	answer := map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}
	t.Run("a retry before the page was sent asks again", func(t *testing.T) {
		w, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, answer))
		require.NoError(t, err)
		pageLink(t, w)
		assert.Equal(t, 0, w.Attempt, "waiting is not a failure")
		require.Len(t, w.Problems, 1)
		assert.ErrorIs(t, w.Problems[0], ErrSecretWaiting)
		assert.Contains(t, w.Result.InputRequests["password.secret"].(*mcp.ElicitParams).Message,
			"New password: the page for it is still waiting")
		assert.NotContains(t, w.Result.InputRequests, "password", "the email is proven, not asked again")
		assert.Equal(t, Answers{"email": "ada@example.com"}, w.Answers)

		// Waiting again, from the waiting round's own state; a decline
		// of the page ends the flow.
		again, err := fx.flow.Next(context.Background(), secretCall(w.Result.RequestState, map[string]any{"password.secret": "accept"}))
		require.NoError(t, err)
		assert.Equal(t, FlowAsk, again.Status)
		declined, err := fx.flow.Next(context.Background(), secretCall(w.Result.RequestState, map[string]any{"password.secret": "decline"}))
		require.NoError(t, err)
		assert.Equal(t, FlowDeclined, declined.Status)
	})

	person := newBrowser(t)
	t.Run("the page", func(t *testing.T) {
		res, err := person.c.Get(link)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'none'")
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self'")
		assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
		assert.Contains(t, string(body), `<label for="f-password">New password</label>`)
		assert.Contains(t, string(body), `type="password"`)
		assert.Contains(t, string(body), `minlength="8"`)
		assert.NotContains(t, string(body), "<script")
		// The proof of this first opening.
		cookies := res.Cookies()
		require.Len(t, cookies, 1)
		c := cookies[0]
		assert.True(t, strings.HasPrefix(c.Name, "mcpform-secret-"), c.Name)
		assert.Equal(t, "/secret", c.Path)
		assert.True(t, c.HttpOnly)
		assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
		assert.False(t, c.Secure, "plain HTTP: a Secure cookie would not come back")
		assert.Equal(t, 600, c.MaxAge, "as long as a link lives")
		assert.NotContains(t, link, c.Value)

		status, _ := person.get(t, link)
		assert.Equal(t, http.StatusOK, status, "the same browser, reloading, is shown the form again")
	})

	for _, tt := range []struct {
		name   string
		values url.Values
		want   int
		shows  string
	}{
		{"too short", url.Values{"password": {"short"}}, http.StatusUnprocessableEntity, "Shorter than 8 characters."},
		{"missing", url.Values{}, http.StatusUnprocessableEntity, "Required."},
		{"not text", url.Values{"password": {"abcdefgh\xff"}}, http.StatusUnprocessableEntity, "Not valid text."},
		{"forged link", url.Values{"password": {secret}, "t": {"v1.e30.AAAA"}}, http.StatusNotFound, "not valid"},
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

	status, _ := person.post(t, link, url.Values{"password": {secret}}, nil)
	require.Equal(t, http.StatusOK, status)
	status, body := person.post(t, link, url.Values{"password": {"another one!"}}, nil)
	assert.Equal(t, http.StatusGone, status, "a link is used once")
	assert.Contains(t, body, "already used")

	final := secretCall(r.Result.RequestState, answer)
	done, err := fx.flow.Next(context.Background(), final)
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, Answers{"email": "ada@example.com", "password": secret}, done.Answers)
	assert.NotContains(t, payloadOf(t, r.Result.RequestState), secret)
	assert.NotContains(t, link, secret)

	replay, err := fx.flow.Next(context.Background(), final)
	require.NoError(t, err)
	assert.Equal(t, FlowAsk, replay.Status, "a secret never comes back from a replay")
	require.NotEmpty(t, replay.Problems)
	assert.ErrorIs(t, replay.Problems[0], ErrSecretWaiting)
}

func TestSecretLinkRefusals(t *testing.T) {
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	u, _ := url.Parse(link)
	var l secretLink
	require.NoError(t, fx.codec.Verify(u.Query().Get("t"), BindTo(secretLinkBind), &l))
	answer := map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}

	// A link minted for the same run but another principal puts the
	// secret where alice's flow never looks.
	l.Principal = "mallory"
	other, err := fx.codec.Mint(l, BindTo(secretLinkBind))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, send(t, fx.page.URL+"/secret?t="+url.QueryEscape(other), "mallory's choice"))
	w, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, answer))
	require.NoError(t, err)
	assert.Equal(t, FlowAsk, w.Status, "mallory's secret is not alice's")

	// The flow's own state is not a link, and a link is not a state.
	status, _ := newBrowser(t).get(t, fx.page.URL+"/secret?t="+url.QueryEscape(r.Result.RequestState))
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = newBrowser(t).post(t, fx.page.URL+"/secret?t="+url.QueryEscape(r.Result.RequestState), url.Values{"password": {"whatever!"}}, nil)
	assert.Equal(t, http.StatusNotFound, status)
	_, err = fx.flow.Next(context.Background(), secretCall(u.Query().Get("t"), answer))
	var rpcErr *jsonrpc.Error
	assert.ErrorAs(t, err, &rpcErr)

	// An expired link is refused.
	fx.clock.t = fx.clock.t.Add(time.Hour)
	status, _ = newBrowser(t).get(t, link)
	assert.Equal(t, http.StatusNotFound, status)
}

// TestSecretLinkUsedElsewhere: a link is a bearer token that logs and
// histories keep, so the first browser to open it claims it. Anyone else's
// use of it, before or after the person's, refuses the link for good: the
// page says so, and the flow takes nothing from it and ends with
// ErrSecretRefused.
func TestSecretLinkUsedElsewhere(t *testing.T) {
	const (
		secret = "correct horse battery"
		stolen = "mallory's own choice"
	)
	type visit func(t *testing.T, link string, person, mallory *browser)
	for _, tt := range []struct {
		name  string
		visit visit
	}{
		{"posted by someone else after the person opened it", func(t *testing.T, link string, person, mallory *browser) {
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status)
			status, body := mallory.post(t, link, url.Values{"password": {stolen}}, nil)
			assert.Equal(t, http.StatusConflict, status)
			assert.Contains(t, body, "not opened in this browser")
			assert.Contains(t, body, "nothing was changed")
			status, body = person.post(t, link, url.Values{"password": {secret}}, nil)
			assert.Equal(t, http.StatusConflict, status, "the link no longer works for anyone")
			assert.Contains(t, body, "Go back to your app")
		}},
		{"opened by someone else after the person", func(t *testing.T, link string, person, mallory *browser) {
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status)
			status, body := mallory.get(t, link)
			assert.Equal(t, http.StatusConflict, status)
			assert.Contains(t, body, "This link was already opened")
			assert.Contains(t, body, "ask it again: it will give you a new link")
			assert.NotContains(t, body, "<form", "the form is shown to the first browser only")
			status, _ = person.post(t, link, url.Values{"password": {secret}}, nil)
			assert.Equal(t, http.StatusConflict, status)
		}},
		{"opened by someone else after the person sent it", func(t *testing.T, link string, person, mallory *browser) {
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status)
			status, _ = person.post(t, link, url.Values{"password": {secret}}, nil)
			require.Equal(t, http.StatusOK, status)
			status, _ = mallory.get(t, link)
			assert.Equal(t, http.StatusConflict, status)
		}},
		{"opened and sent by someone else first", func(t *testing.T, link string, person, mallory *browser) {
			status, _ := mallory.get(t, link)
			require.Equal(t, http.StatusOK, status)
			status, _ = mallory.post(t, link, url.Values{"password": {stolen}}, nil)
			require.Equal(t, http.StatusOK, status, "the page can't tell mallory from the person yet")
			status, body := person.get(t, link)
			assert.Equal(t, http.StatusConflict, status, "but the person's own visit refuses the link")
			assert.Contains(t, body, "This link was already opened")
		}},
		{"posted without being opened", func(t *testing.T, link string, person, mallory *browser) {
			status, _ := mallory.post(t, link, url.Values{"password": {stolen}}, nil)
			assert.Equal(t, http.StatusConflict, status)
			status, _ = person.get(t, link)
			assert.Equal(t, http.StatusConflict, status)
		}},
		{"posted from another site", func(t *testing.T, link string, person, _ *browser) {
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status)
			status, body := person.post(t, link, url.Values{"password": {stolen}}, http.Header{"Sec-Fetch-Site": {"cross-site"}})
			assert.Equal(t, http.StatusForbidden, status)
			assert.Contains(t, body, "another site")
		}},
		{"posted from another origin", func(t *testing.T, link string, person, _ *browser) {
			status, _ := person.get(t, link)
			require.Equal(t, http.StatusOK, status)
			status, _ = person.post(t, link, url.Values{"password": {stolen}}, http.Header{"Origin": {"https://evil.example"}})
			assert.Equal(t, http.StatusForbidden, status)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			r, err := fx.flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			link := pageLink(t, r)
			tt.visit(t, link, newBrowser(t), newBrowser(t))

			answer := map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}
			end, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, answer))
			require.NoError(t, err)
			require.Equal(t, FlowInvalid, end.Status, "the flow ends, taking nothing")
			assert.Equal(t, "password", end.Step)
			assert.Equal(t, Answers{"email": "ada@example.com"}, end.Answers, "no secret among the answers")
			require.Len(t, end.Problems, 1)
			assert.ErrorIs(t, end.Problems[0], ErrSecretRefused)
			assert.Equal(t, "Please check: New password: its link was used in another browser, so the page refused it.",
				ProblemMessage(fx.flow.Fields("password"), end.Problems))

			var l secretLink
			u, _ := url.Parse(link)
			require.NoError(t, fx.codec.Verify(u.Query().Get("t"), BindTo(secretLinkBind), &l))
			_, held, err := fx.store.Get(context.Background(), l.key())
			require.NoError(t, err)
			assert.False(t, held, "a secret sent on a refused link is dropped")
			again, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, answer))
			require.NoError(t, err)
			assert.Equal(t, FlowInvalid, again.Status, "a replay ends the same way")
		})
	}
}

// TestSecretLinkOpenedTwiceByThePerson: the person's own browser may
// reload the page, and a new run of the flow gives a new link that works.
func TestSecretLinkOpenedTwiceByThePerson(t *testing.T) {
	fx := newSecretFixture(t, nil)
	person := newBrowser(t)
	answer := map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}
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
		done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, answer))
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

// TestSecretPageCookie: the proof is Secure when the page is served over
// TLS, or its PageURL is https (behind a proxy that ends TLS).
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
		res.Body.Close()
		return res.StatusCode
	}
	assert.Equal(t, http.StatusForbidden, get(newBrowser(t), mallory), "Authorize refuses a GET")
	assert.Equal(t, http.StatusOK, get(person, alice), "a refused GET claims nothing, and refuses nothing")

	status, _ := person.post(t, link, url.Values{"password": {strings.Repeat("x", 2<<20)}}, alice)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	req, _ := http.NewRequest(http.MethodPut, link, nil)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	req, _ = http.NewRequest(http.MethodHead, link, nil)
	req.Header = alice
	res, err = newBrowser(t).c.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "a HEAD checks the link")
	assert.Empty(t, res.Cookies(), "and claims nothing")
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
	end, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{
		"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}))
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
		"password=a&password=bbbbbbbbbbbb", "t=x&password=12345678", "%zz", strings.Repeat("password=x&", 100)} {
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
		req := httptest.NewRequest(http.MethodPost, u.String(), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for _, c := range opened.Result().Cookies() {
			req.AddCookie(c)
		}
		w := httptest.NewRecorder()
		page.ServeHTTP(w, req)
		var l secretLink
		if fx.codec.Verify(u.Query().Get("t"), BindTo(secretLinkBind), &l) != nil {
			t.Fatal("the link does not verify")
		}
		raw, ok, _ := fx.store.Get(req.Context(), l.key())
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

// TestSameOrigin: a POST is the page's own when the browser says so, even
// with the Origin "null" Chromium sends from a no-referrer page, or when
// its Origin names this host; anything another site could send is not.
func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		name         string
		site, origin string
		want         bool
	}{
		{"Chromium, from the page", "same-origin", "null", true},
		{"same origin, named", "same-origin", "http://page.example", true},
		{"no browser headers", "", "", true},
		{"an older browser, this host", "", "http://page.example", true},
		{"an older browser, another host", "", "https://evil.example", false},
		{"an older browser, opaque origin", "", "null", false},
		{"another site", "cross-site", "null", false},
		{"another site naming this host", "cross-site", "http://page.example", false},
		{"a sibling subdomain", "same-site", "http://page.example", false},
		{"typed into the address bar", "none", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://page.example/secret", nil)
			if tt.site != "" {
				r.Header.Set("Sec-Fetch-Site", tt.site)
			}
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			assert.Equal(t, tt.want, sameOrigin(r))
		})
	}
}
