package mcpform

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
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
	fx.flow, handler = flow, flow.SecretPage(page)
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

// post sends the page's form as a browser on the page would.
func post(t *testing.T, link string, values url.Values, header http.Header) (int, string) {
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
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
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
	r, err := fx.flow.Next(secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	assert.True(t, strings.HasPrefix(link, fx.page.URL+"/secret?t="), link)
	form := r.Result.InputRequests["password"].(*mcp.ElicitParams)
	assert.NotContains(t, wireJSON(t, form.RequestedSchema), "password", "the secret is not in the form")
	assert.Contains(t, r.Result.InputRequests["password.secret"].(*mcp.ElicitParams).Message, "New password")

	answer := map[string]any{"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}
	t.Run("a retry before the page was sent asks again", func(t *testing.T) {
		w, err := fx.flow.Next(secretCall(r.Result.RequestState, answer))
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
		again, err := fx.flow.Next(secretCall(w.Result.RequestState, map[string]any{"password.secret": "accept"}))
		require.NoError(t, err)
		assert.Equal(t, FlowAsk, again.Status)
		declined, err := fx.flow.Next(secretCall(w.Result.RequestState, map[string]any{"password.secret": "decline"}))
		require.NoError(t, err)
		assert.Equal(t, FlowDeclined, declined.Status)
	})

	t.Run("the page", func(t *testing.T) {
		res, err := http.Get(link)
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
	})

	for _, tt := range []struct {
		name   string
		values url.Values
		header http.Header
		want   int
		shows  string
	}{
		{"from another site", url.Values{"password": {secret}}, http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden, "another site"},
		{"from another origin", url.Values{"password": {secret}}, http.Header{"Origin": {"https://evil.example"}}, http.StatusForbidden, "another site"},
		{"too short", url.Values{"password": {"short"}}, nil, http.StatusUnprocessableEntity, "Shorter than 8 characters."},
		{"missing", url.Values{}, nil, http.StatusUnprocessableEntity, "Required."},
		{"not text", url.Values{"password": {"abcdefgh\xff"}}, nil, http.StatusUnprocessableEntity, "Not valid text."},
		{"forged link", url.Values{"password": {secret}, "t": {"v1.e30.AAAA"}}, nil, http.StatusNotFound, "not valid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, link, tt.values, tt.header)
			assert.Equal(t, tt.want, status)
			assert.Contains(t, body, tt.shows)
			for _, v := range tt.values["password"] {
				assert.NotContains(t, body, v, "a value is never echoed")
			}
		})
	}

	status, _ := post(t, link, url.Values{"password": {secret}}, nil)
	require.Equal(t, http.StatusOK, status)
	status, body := post(t, link, url.Values{"password": {"another one!"}}, nil)
	assert.Equal(t, http.StatusGone, status, "a link is used once")
	assert.Contains(t, body, "already used")

	final := secretCall(r.Result.RequestState, answer)
	done, err := fx.flow.Next(final)
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, Answers{"email": "ada@example.com", "password": secret}, done.Answers)
	assert.NotContains(t, payloadOf(t, r.Result.RequestState), secret)
	assert.NotContains(t, link, secret)

	replay, err := fx.flow.Next(final)
	require.NoError(t, err)
	assert.Equal(t, FlowAsk, replay.Status, "a secret never comes back from a replay")
	require.NotEmpty(t, replay.Problems)
	assert.ErrorIs(t, replay.Problems[0], ErrSecretWaiting)
}

func TestSecretLinkRefusals(t *testing.T) {
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(secretCall("", nil))
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
	status, _ := post(t, fx.page.URL+"/secret?t="+url.QueryEscape(other), url.Values{"password": {"mallory's choice"}}, nil)
	require.Equal(t, http.StatusOK, status)
	w, err := fx.flow.Next(secretCall(r.Result.RequestState, answer))
	require.NoError(t, err)
	assert.Equal(t, FlowAsk, w.Status, "mallory's secret is not alice's")

	// The flow's own state is not a link, and a link is not a state.
	status, _ = post(t, fx.page.URL+"/secret?t="+url.QueryEscape(r.Result.RequestState), url.Values{"password": {"whatever!"}}, nil)
	assert.Equal(t, http.StatusNotFound, status)
	_, err = fx.flow.Next(secretCall(u.Query().Get("t"), answer))
	var rpcErr *jsonrpc.Error
	assert.ErrorAs(t, err, &rpcErr)

	// An expired link is refused.
	fx.clock.t = fx.clock.t.Add(time.Hour)
	res, err := http.Get(link)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

func TestSecretPageLimits(t *testing.T) {
	fx := newSecretFixture(t, &SecretPageOptions{Authorize: func(r *http.Request, principal string) error {
		if r.Header.Get("X-Session-User") != principal {
			return errors.New("another person's page")
		}
		return nil
	}})
	r, err := fx.flow.Next(secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)

	status, _ := post(t, link, url.Values{"password": {"long enough"}}, http.Header{"X-Session-User": {"mallory"}})
	assert.Equal(t, http.StatusForbidden, status, "Authorize refuses")
	status, _ = post(t, link, url.Values{"password": {strings.Repeat("x", 2<<20)}}, http.Header{"X-Session-User": {"alice"}})
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	req, _ := http.NewRequest(http.MethodPut, link, nil)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	status, _ = post(t, link, url.Values{"password": {"long enough"}}, http.Header{"X-Session-User": {"alice"}})
	assert.Equal(t, http.StatusOK, status)
}

func TestSecretFlowCapabilities(t *testing.T) {
	fx := newSecretFixture(t, nil)
	// Form mode only: the form is asked natively, and the page's link is
	// given in an ordinary result once it is answered (TestFlowHosts).
	r, err := fx.flow.Next(call("set_password", "", nil))
	require.NoError(t, err)
	assert.Equal(t, "password", asked(t, r), "no URL-mode request")

	bare := call("set_password", "", nil)
	bare.Params.Meta = mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}}
	_, err = fx.flow.Next(bare)
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
	assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{},"url":{}}}}`, string(rpcErr.Data))

	_, err = NewFlow(fx.codec, []Step{passwordStep}, nil)
	assert.ErrorContains(t, err, `field "password": secret, and asked only in URL mode`)
	_, err = NewFlow(fx.codec, []Step{passwordStep}, &FlowOptions{Secrets: &SecretOptions{PageURL: "https://x"}})
	assert.ErrorContains(t, err, "needs a PageURL and a Store")
}

// FuzzSecretPage posts arbitrary form bodies with a valid link: the page
// never panics, and stores only values its field accepts.
func FuzzSecretPage(f *testing.F) {
	for _, s := range []string{"password=hunter2hunter2", "password=", "password=%ff%fe%fd%fc%fb%fa%f9%f8",
		"password=a&password=bbbbbbbbbbbb", "t=x&password=12345678", "%zz", strings.Repeat("password=x&", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		fx := newSecretFixture(t, nil)
		r, err := fx.flow.Next(secretCall("", nil))
		require.NoError(t, err)
		u, _ := url.Parse(pageLink(t, r))
		q, _ := url.ParseQuery(body)
		if q.Get("t") == "" {
			body += "&t=" + url.QueryEscape(u.Query().Get("t"))
		}
		req := httptest.NewRequest(http.MethodPost, u.String(), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		fx.flow.SecretPage(nil).ServeHTTP(w, req)
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
