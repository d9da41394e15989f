package e2e_test

// The secret tests run set_password, which asks the account's email in
// the client's form and the new password on the server's own page, in URL
// mode: the password must reach the page and the database's salted hash,
// and nothing else.

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	passwordTool = "set_password"
	// The step's form and, beside it, the URL-mode request for its page.
	passwordForm = "password"
	passwordPage = "password.secret"
	// secret is the password the tests set; it must appear nowhere else.
	secret = "Tr0ub4dor&3-correct-horse"
)

// connectURL returns a client session with the server at url that declares
// form and URL-mode elicitation. With p nil, input_required results reach
// the caller; otherwise p answers older clients' elicitation/create.
func connectURL(t testing.TB, url, version string, p *pagePerson) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
	}
	if p != nil {
		opts.ElicitationHandler = p.elicit
		opts.ElicitationCompleteHandler = p.complete
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "secret-e2e", Version: "v0"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// setPassword calls set_password once, with the given answers and state.
func setPassword(cs *mcp.ClientSession, state string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: passwordTool, InputResponses: answers, RequestState: state})
}

// signUp creates the free account email through signup, round by round.
func signUp(t *testing.T, cs *mcp.ClientSession, email string) {
	t.Helper()
	res, err := call(t, cs, "", nil)
	require.NoError(t, err)
	res, err = call(t, cs, res.RequestState, mcp.InputResponseMap{"account": accepted(map[string]any{"email": email, "plan": "free"})})
	require.NoError(t, err)
	require.Equal(t, "created", status(t, res), text(res))
}

// pageLink returns the link of res's URL-mode request, and checks that it
// leads to the page at base.
func pageLink(t *testing.T, res *mcp.CallToolResult, base string) string {
	t.Helper()
	ep, ok := res.InputRequests[passwordPage].(*mcp.ElicitParams)
	require.True(t, ok, "no URL-mode request in %v", res.InputRequests)
	assert.Equal(t, "url", ep.Mode)
	assert.Nil(t, ep.RequestedSchema)
	require.True(t, strings.HasPrefix(ep.URL, base+"/secret?t="), "link %s, want on %s", ep.URL, base)
	return ep.URL
}

// A pageBrowser is one person's browser on the secret page: it keeps the
// page's cookies, as a browser does, and the form's token of the last page
// it was shown. Opening the page changes nothing; the first browser to
// post on a link claims it, and only that one may post on it again.
type pageBrowser struct {
	c     *http.Client
	check string
}

func newPageBrowser(t testing.TB) *pageBrowser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &pageBrowser{c: &http.Client{Jar: jar}}
}

// formTokenRe finds the page's form token.
var formTokenRe = regexp.MustCompile(`name="c" value="([^"]*)"`)

// open opens link, and returns the status and the page.
func (b *pageBrowser) open(t testing.TB, link string) (int, string) {
	t.Helper()
	res, err := b.c.Get(link)
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	b.keep(string(body))
	return res.StatusCode, string(body)
}

// keep keeps the form token of a page.
func (b *pageBrowser) keep(page string) {
	if m := formTokenRe.FindStringSubmatch(page); m != nil {
		b.check = m[1]
	}
}

// post sends the page's form with password, as the browser on it would.
func (b *pageBrowser) post(t testing.TB, link, password string) (int, string) {
	t.Helper()
	return b.postFrom(t, link, password, nil)
}

// postFrom is post with the request's headers set from header, such as
// those of a post from another site.
func (b *pageBrowser) postFrom(t testing.TB, link, password string, header http.Header) (int, string) {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	form := url.Values{"t": {u.Query().Get("t")}, "c": {b.check}, "password": {password}}
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(form.Encode()))
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
	b.keep(string(body))
	return res.StatusCode, string(body)
}

// postPage is a person's whole visit to the page: a new browser opens
// link, and sends password on it.
func postPage(t testing.TB, link, password string) (int, string) {
	t.Helper()
	b := newPageBrowser(t)
	if code, page := b.open(t, link); code != http.StatusOK {
		return code, page
	}
	return b.post(t, link, password)
}

// sealedInTable checks that the page's value waits in the secrets table
// sealed: two values, the page's and the tag of the browser that claimed
// the link, neither of which holds the secret.
func sealedInTable(t *testing.T, driver, dsn string) {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	defer db.Close()
	var values []string
	rows, err := db.Query(`SELECT value FROM secrets WHERE value IS NOT NULL`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var v string
		require.NoError(t, rows.Scan(&v))
		values = append(values, v)
	}
	require.NoError(t, rows.Err())
	require.Len(t, values, 2, "the posted page's value and the claim's tag")
	noSecret(t, "the secrets table", values...)
}

// baseOf is a replica's origin, from its /mcp URL.
func baseOf(mcpURL string) string { return strings.TrimSuffix(mcpURL, "/mcp") }

// checkHash checks that the database holds, for email, a salted PBKDF2
// hash of password, and not the password, and that the page left two
// values in its table: the marker that its link is done and the tag of
// the browser that claimed it, and no secret.
func checkHash(t *testing.T, driver, dsn, email, password string) {
	t.Helper()
	checkPasswordHash(t, driver, dsn, email, password)
	assert.Equal(t, 2, valuesLeft(t, driver, dsn), "values left in the secrets table")
}

// checkPasswordHash checks that the database holds, for email, a salted
// PBKDF2 hash of password, and not the password.
func checkPasswordHash(t *testing.T, driver, dsn, email, password string) {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	defer db.Close()
	var salt, hash string
	var iter int
	require.NoError(t, db.QueryRow(`SELECT salt, hash, iterations FROM passwords WHERE email = '`+email+`'`).Scan(&salt, &hash, &iter))
	s, err := hex.DecodeString(salt)
	require.NoError(t, err)
	assert.Len(t, s, 16, "salt")
	want, err := pbkdf2.Key(sha256.New, password, s, iter, sha256.Size)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(want), hash, "the hash is PBKDF2-HMAC-SHA256 of the password with its salt")
	assert.GreaterOrEqual(t, iter, 600_000)
}

// valuesLeft counts the values in the secrets table: the secrets still
// held, and one marker for each link closed (done, ended or refused),
// which holds no secret.
func valuesLeft(t *testing.T, driver, dsn string) int {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	defer db.Close()
	var left int
	require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM secrets WHERE value IS NOT NULL`).Scan(&left))
	return left
}

// noSecret checks that none of texts, nor the decoded body of any
// request state or link token in them (signed or sealed), holds the
// password. It returns the number of tokens it decoded.
func noSecret(t *testing.T, where string, texts ...string) (tokens int) {
	t.Helper()
	for _, s := range texts {
		assert.NotContains(t, s, secret, "%s holds the password", where)
		for _, tok := range tokenRe.FindAllString(s, -1) {
			tokens++
			body, err := jsonBody(strings.Split(tok, ".")[1])
			if assert.NoError(t, err, "token %s", tok) {
				assert.NotContains(t, body, secret, "%s: a token's body holds the password", where)
			}
		}
	}
	return tokens
}

// TestSetPasswordWaitsForThePage runs set_password by hand, round by round,
// on a 2026-07-28 client that declared URL mode: a retry before the page
// was posted asks for the page again, saying so; the link works once; the
// retry after it finishes; a replay gets the same outcome.
func TestSetPasswordWaitsForThePage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	r := startReplica(t, keyA, "-db", db)
	base := baseOf(r.url)
	cs := connectURL(t, r.url, modern, nil)
	signUp(t, cs, "ada@example.com")

	var wire []string // every result, as JSON, and the page's answers
	first, err := setPassword(cs, "", nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{passwordForm, passwordPage}, keysOf(first.InputRequests))
	link := pageLink(t, first, base)
	answers := mcp.InputResponseMap{passwordForm: accepted(map[string]any{"email": "ada@example.com"}), passwordPage: &mcp.ElicitResult{Action: "accept"}}

	waiting, err := setPassword(cs, first.RequestState, answers)
	require.NoError(t, err)
	require.Equal(t, []string{passwordPage}, keysOf(waiting.InputRequests), "only the page is asked again")
	assert.Contains(t, waiting.InputRequests[passwordPage].(*mcp.ElicitParams).Message, "the page for it is still waiting")
	pageLink(t, waiting, base)

	person := newPageBrowser(t)
	code, page := person.open(t, link)
	require.Equal(t, http.StatusOK, code, page)
	code, page = person.post(t, link, "short")
	assert.Equal(t, http.StatusUnprocessableEntity, code, page)
	assert.Contains(t, page, "New password must be 12 to 128 characters.")
	code, page = person.post(t, link, secret)
	require.Equal(t, http.StatusOK, code, page)
	wire = append(wire, page)
	code, page = person.post(t, link, "another password entirely")
	assert.Equal(t, http.StatusConflict, code, "a second use of the link")
	assert.Contains(t, page, "You have sent it.")
	wire = append(wire, page)
	sealedInTable(t, "sqlite", db)

	final := mcp.InputResponseMap{passwordPage: &mcp.ElicitResult{Action: "accept"}}
	done, err := setPassword(cs, waiting.RequestState, final)
	require.NoError(t, err)
	require.Equal(t, "updated", status(t, done), text(done))
	assert.Equal(t, "Password set for ada@example.com.", said(done))
	again, err := setPassword(cs, waiting.RequestState, final)
	require.NoError(t, err)
	assert.Equal(t, text(done), text(again), "a replay gets the first outcome, and no new link")

	checkHash(t, "sqlite", db, "ada@example.com", secret)
	for _, res := range []*mcp.CallToolResult{first, waiting, done, again} {
		wire = append(wire, jsonOf(t, res))
	}
	assert.GreaterOrEqual(t, noSecret(t, "the results and pages", wire...), 4, "request states and links checked")
	noSecret(t, "the server's log", r.stderr())
}

// TestSetPasswordWithoutURLMode: a client that declared form elicitation
// only is never asked for the password in a form: it is asked the email,
// then given the page's link in an ordinary result, on either protocol
// generation.
func TestSetPasswordWithoutURLMode(t *testing.T) {
	url := startReplica(t, keyA, "-db", filepath.Join(t.TempDir(), "signup.db")).url
	for _, version := range []string{modern, legacy} {
		t.Run(version, func(t *testing.T) {
			p := newPerson(map[string][]*mcp.ElicitResult{"account": {accepted(map[string]any{"email": "ada@example.com"})}})
			cs := connectHTTP(t, url, version, true, p)
			res, err := setPassword(cs, "", nil)
			require.NoError(t, err)
			assert.Equal(t, []string{"account"}, p.forms(), "the email only, in a form")
			var c struct {
				URL       string         `json:"url"`
				Arguments map[string]any `json:"arguments"`
			}
			b, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &c))
			assert.Contains(t, c.URL, "/secret?t=", "the page's link")
			assert.NotEmpty(t, c.Arguments[mcpform.StateArgument], "the state to send back")
		})
	}
}

// TestSetPasswordPageURL: behind a proxy, -page-url names the page's
// public address, and the link leads there. The example has no login to
// bind the page to the person, so it offers set_password only on
// loopback: with a page the world can reach, the tool is off, and the
// server says why.
func TestSetPasswordPageURL(t *testing.T) {
	r := startReplica(t, keyA, "-db", filepath.Join(t.TempDir(), "signup.db"), "-page-url", "http://localhost:8443/mcp/secret")
	res, err := setPassword(connectURL(t, r.url, modern, nil), "", nil)
	require.NoError(t, err)
	pageLink(t, res, "http://localhost:8443/mcp")

	r = startReplica(t, keyA, "-db", filepath.Join(t.TempDir(), "signup.db"), "-page-url", "https://accounts.example.com/mcp/secret")
	_, err = setPassword(connectURL(t, r.url, modern, nil), "", nil)
	assert.ErrorContains(t, err, "unknown tool")
	assert.Contains(t, r.stderr(), "set_password is off: its page, https://accounts.example.com/mcp/secret, is reachable beyond this machine")
}

// TestSetPasswordLinkUsedElsewhere: the link rides in a URL, which logs
// and histories keep. Once the person has posted on it, someone else who
// posts on it (a second browser, which opened it too) is refused, and so
// is the person's own post then: the tool reports that the link was
// refused, and nothing changes. A new call gives a new link, which the
// person's own browser completes.
func TestSetPasswordLinkUsedElsewhere(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	r := startReplica(t, keyA, "-db", db)
	cs := connectURL(t, r.url, modern, nil)
	signUp(t, cs, "ada@example.com")
	answers := mcp.InputResponseMap{passwordForm: accepted(map[string]any{"email": "ada@example.com"}), passwordPage: &mcp.ElicitResult{Action: "accept"}}

	first, err := setPassword(cs, "", nil)
	require.NoError(t, err)
	link := pageLink(t, first, baseOf(r.url))
	person, intruder := newPageBrowser(t), newPageBrowser(t)
	code, page := person.open(t, link)
	require.Equal(t, http.StatusOK, code, page)
	code, page = intruder.open(t, link)
	require.Equal(t, http.StatusOK, code, "opening changes nothing: %s", page)
	code, page = person.post(t, link, "short")
	require.Equal(t, http.StatusUnprocessableEntity, code, page)
	code, page = intruder.post(t, link, "mallory's own password")
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, page, "<h1>This link no longer works</h1>")
	assert.Contains(t, page, "It was already used in another browser")
	assert.Contains(t, page, "nothing sent from here was kept. Go back to your app and ask it again")
	code, page = person.post(t, link, secret)
	assert.Equal(t, http.StatusConflict, code, "the link no longer works for anyone: %s", page)

	lost, err := setPassword(cs, first.RequestState, answers)
	require.NoError(t, err)
	require.Equal(t, "refused", status(t, lost), text(lost))
	assert.True(t, lost.IsError)
	assert.Contains(t, text(lost), "so the page refused it. Nothing was changed.")
	again, err := setPassword(cs, first.RequestState, answers)
	require.NoError(t, err)
	assert.Equal(t, text(lost), text(again), "a replay gets the same outcome")
	noPassword(t, db, "ada@example.com")

	// A new call, a new link, and the person's own browser.
	next, err := setPassword(cs, "", nil)
	require.NoError(t, err)
	link = pageLink(t, next, baseOf(r.url))
	code, page = postPage(t, link, secret)
	require.Equal(t, http.StatusOK, code, page)
	done, err := setPassword(cs, next.RequestState, answers)
	require.NoError(t, err)
	require.Equal(t, "updated", status(t, done), text(done))
	checkPasswordHash(t, "sqlite", db, "ada@example.com", secret)
	// The first link's refusal and the second's "done", with the tags of
	// the browsers that claimed them, wait out the links' life, so that
	// every replica keeps saying so; no secret is left.
	assert.Equal(t, 4, valuesLeft(t, "sqlite", db), "values left in the secrets table")
}

// TestSetPasswordPreviewSpoilsNothing: a chat app's preview of the link
// (a GET without cookies), a HEAD and a scanner's GET claim nothing: the
// person's own visit after them sets the password.
func TestSetPasswordPreviewSpoilsNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	r := startReplica(t, keyA, "-db", db)
	cs := connectURL(t, r.url, modern, nil)
	signUp(t, cs, "ada@example.com")
	first, err := setPassword(cs, "", nil)
	require.NoError(t, err)
	link := pageLink(t, first, baseOf(r.url))

	for _, method := range []string{http.MethodGet, http.MethodHead} {
		res, err := http.DefaultClient.Do(mustRequest(t, method, link))
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, method)
	}
	code, _ := newPageBrowser(t).open(t, link)
	assert.Equal(t, http.StatusOK, code, "a scanner that keeps cookies")

	code, page := postPage(t, link, secret)
	require.Equal(t, http.StatusOK, code, page)
	done, err := setPassword(cs, first.RequestState, mcp.InputResponseMap{
		passwordForm: accepted(map[string]any{"email": "ada@example.com"}), passwordPage: &mcp.ElicitResult{Action: "accept"}})
	require.NoError(t, err)
	require.Equal(t, "updated", status(t, done), text(done))
	checkHash(t, "sqlite", db, "ada@example.com", secret)
}

// mustRequest is a request without a body.
func mustRequest(t testing.TB, method, link string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, link, nil)
	require.NoError(t, err)
	return req
}

// TestSetPasswordLinkRevealsNothing: the link's token, base64url-decoded,
// holds nothing readable: not the principal, the tool, the step, nor any
// JSON.
func TestSetPasswordLinkRevealsNothing(t *testing.T) {
	r := startReplica(t, keyA, "-db", filepath.Join(t.TempDir(), "signup.db"))
	cs := connectURL(t, r.url, modern, nil)
	first, err := setPassword(cs, "", nil)
	require.NoError(t, err)
	u, err := url.Parse(pageLink(t, first, baseOf(r.url)))
	require.NoError(t, err)
	token := u.Query().Get("t")
	assert.LessOrEqual(t, len(token), 211, "a short link, padded as a whole to one 128-byte bucket")
	for _, part := range strings.Split(token, ".") {
		b, err := base64.RawURLEncoding.DecodeString(part)
		if err != nil {
			continue
		}
		assert.False(t, json.Valid(b), "a part of the token is JSON: %s", b)
		for _, s := range []string{"local", passwordTool, `"r"`, `"p"`, passwordForm} {
			assert.NotContains(t, string(b), s)
		}
	}
}

// TestSetPasswordPageStates: the page's states as a person meets them,
// in words. A post from another site is refused and changes nothing; the
// person's own post then sets the password; the link reopened says done;
// a HEAD of a refused link answers as its GET does; after the person
// declines, the page says the request ended and keeps nothing.
func TestSetPasswordPageStates(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	r := startReplica(t, keyA, "-db", db)
	cs := connectURL(t, r.url, modern, nil)
	signUp(t, cs, "ada@example.com")
	answers := mcp.InputResponseMap{passwordForm: accepted(map[string]any{"email": "ada@example.com"}), passwordPage: &mcp.ElicitResult{Action: "accept"}}

	t.Run("cross-site, then done", func(t *testing.T) {
		first, err := setPassword(cs, "", nil)
		require.NoError(t, err)
		link := pageLink(t, first, baseOf(r.url))
		person := newPageBrowser(t)
		person.open(t, link)
		for _, h := range []http.Header{{"Sec-Fetch-Site": {"cross-site"}}, {"Origin": {"https://evil.example"}}} {
			code, page := person.postFrom(t, link, "mallory's own password", h)
			assert.Equal(t, http.StatusForbidden, code)
			assert.Contains(t, page, "It came from another site")
		}
		code, page := person.post(t, link, "short")
		require.Equal(t, http.StatusUnprocessableEntity, code)
		for _, want := range []string{"<title>Error: Set your password</title>", `aria-invalid="true"`,
			`aria-describedby="f-0-help f-0-problem"`, `id="f-0-problem" role="alert"`, " autofocus>",
			"color-scheme:light dark", "box-sizing:border-box"} {
			assert.Contains(t, page, want)
		}
		code, page = person.post(t, link, secret)
		require.Equal(t, http.StatusOK, code, page)
		code, page = person.open(t, link)
		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, page, "<h1>You&#39;re done</h1>")
		assert.NotContains(t, page, "<form")
		done, err := setPassword(cs, first.RequestState, answers)
		require.NoError(t, err)
		require.Equal(t, "updated", status(t, done), text(done))
	})

	t.Run("HEAD of a refused link", func(t *testing.T) {
		first, err := setPassword(cs, "", nil)
		require.NoError(t, err)
		link := pageLink(t, first, baseOf(r.url))
		person, intruder := newPageBrowser(t), newPageBrowser(t)
		person.open(t, link)
		intruder.open(t, link)
		person.post(t, link, "short")
		code, _ := intruder.post(t, link, "mallory's own password")
		require.Equal(t, http.StatusConflict, code)
		get, err := http.DefaultClient.Do(mustRequest(t, http.MethodGet, link))
		require.NoError(t, err)
		get.Body.Close()
		head, err := http.DefaultClient.Do(mustRequest(t, http.MethodHead, link))
		require.NoError(t, err)
		head.Body.Close()
		assert.Equal(t, http.StatusConflict, get.StatusCode)
		assert.Equal(t, get.StatusCode, head.StatusCode)
		assert.Equal(t, get.Header.Get("Content-Length"), head.Header.Get("Content-Length"))
		assert.Equal(t, get.Header.Get("Content-Type"), head.Header.Get("Content-Type"))
	})

	t.Run("declined", func(t *testing.T) {
		first, err := setPassword(cs, "", nil)
		require.NoError(t, err)
		link := pageLink(t, first, baseOf(r.url))
		person := newPageBrowser(t)
		person.open(t, link)
		code, _ := person.post(t, link, secret)
		require.Equal(t, http.StatusOK, code)
		declined, err := setPassword(cs, first.RequestState, mcp.InputResponseMap{passwordForm: &mcp.ElicitResult{Action: "decline"}})
		require.NoError(t, err)
		require.Equal(t, "declined", status(t, declined), text(declined))
		code, page := newPageBrowser(t).open(t, link)
		assert.Equal(t, http.StatusGone, code)
		assert.Contains(t, page, "<h1>This request has ended</h1>")
		code, page = person.open(t, link)
		assert.Contains(t, page, "<h1>This request has ended</h1>", "not done: the password was not set")
	})
}

// noPassword checks that the database holds no password for email.
func noPassword(t *testing.T, dsn, email string) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM passwords WHERE email = ?`, email).Scan(&n))
	assert.Zero(t, n, "a password for %s", email)
}

// TestSetPasswordAcrossReplicas: two replicas on one database; the flow
// starts on A, its page is posted to A, and it finishes on B, which also
// asks again while the page waits. SQLite (a shared file) everywhere,
// PostgreSQL when there is one.
func TestSetPasswordAcrossReplicas(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testPasswordReplicas(t, "sqlite", filepath.Join(t.TempDir(), "shared.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		testPasswordReplicas(t, "pgx", freshPostgres(t))
	})
}

func testPasswordReplicas(t *testing.T, driver, dsn string) {
	ra, rb := startReplica(t, keyA, "-db", dsn), startReplica(t, keyA, "-db", dsn)
	a, b := connectURL(t, ra.url, modern, nil), connectURL(t, rb.url, modern, nil)
	signUp(t, a, "grace@example.com")

	first, err := setPassword(a, "", nil)
	require.NoError(t, err)
	link := pageLink(t, first, baseOf(ra.url))
	answers := mcp.InputResponseMap{passwordForm: accepted(map[string]any{"email": "grace@example.com"}), passwordPage: &mcp.ElicitResult{Action: "accept"}}
	waiting, err := setPassword(b, first.RequestState, answers)
	require.NoError(t, err)
	require.Equal(t, []string{passwordPage}, keysOf(waiting.InputRequests), "B asks for the page again")

	code, page := postPage(t, link, secret)
	require.Equal(t, http.StatusOK, code, page)
	done, err := setPassword(b, first.RequestState, answers)
	require.NoError(t, err)
	require.Equal(t, "updated", status(t, done), text(done))
	again, err := setPassword(a, first.RequestState, answers)
	require.NoError(t, err)
	assert.Equal(t, text(done), text(again), "the replay to A gets B's outcome")
	checkHash(t, driver, dsn, "grace@example.com", secret)
	noSecret(t, "the results", jsonOf(t, first), jsonOf(t, waiting), jsonOf(t, done), jsonOf(t, again))
	noSecret(t, "replica A's log", ra.stderr())
	noSecret(t, "replica B's log", rb.stderr())
}

// TestSetPasswordLegacyClient: a go-sdk client on 2025-11-25, with its own
// multi-round-trip loop off, is asked by elicitation/create: the form, then
// the page by elicitationId. It consents, the person posts the page a
// moment later, and the call finishes, announced by
// notifications/elicitation/complete for that ID.
func TestSetPasswordLegacyClient(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	r := startReplica(t, keyA, "-db", db)
	p := &pagePerson{t: t, email: "ada@example.com", password: secret}
	cs := connectURL(t, r.url, legacy, p)
	require.Equal(t, legacy, cs.InitializeResult().ProtocolVersion)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName})
	require.NoError(t, err)
	require.Equal(t, "created", status(t, res), text(res))

	res, err = setPassword(cs, "", nil)
	require.NoError(t, err)
	p.posted.Wait()
	require.Equal(t, "updated", status(t, res), text(res))
	require.Eventually(t, func() bool { p.mu.Lock(); defer p.mu.Unlock(); return len(p.completed) > 0 },
		5*time.Second, 20*time.Millisecond, "no notifications/elicitation/complete")
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Len(t, p.ids, 1, "the page is asked once, then waited for")
	assert.NotEmpty(t, p.ids[0])
	assert.Equal(t, p.ids, p.completed)
	checkHash(t, "sqlite", db, "ada@example.com", secret)
	noSecret(t, "the result", jsonOf(t, res))
	noSecret(t, "the server's log", r.stderr())
}

// A pagePerson answers an older client's elicitation/create: forms with
// its email (and the free plan, for signup), and a page by posting its
// password to it a moment after consenting, as a person in a browser would.
type pagePerson struct {
	t               *testing.T
	email, password string
	posted          sync.WaitGroup
	mu              sync.Mutex
	ids, completed  []string // elicitationIds asked, and announced complete
}

func (p *pagePerson) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Params.Mode != "url" {
		content := map[string]any{"email": p.email}
		if formOf(req.Params.RequestedSchema) == "account" && strings.Contains(jsonOf(p.t, req.Params.RequestedSchema), `"plan"`) {
			content["plan"] = "free"
		}
		return accepted(content), nil
	}
	p.mu.Lock()
	p.ids = append(p.ids, req.Params.ElicitationID)
	p.mu.Unlock()
	p.posted.Add(1)
	go func() {
		defer p.posted.Done()
		time.Sleep(200 * time.Millisecond)
		code, page := postPage(p.t, req.Params.URL, p.password)
		assert.Equal(p.t, http.StatusOK, code, page)
	}()
	return &mcp.ElicitResult{Action: "accept"}, nil
}

func (p *pagePerson) complete(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.completed = append(p.completed, req.Params.ElicitationID)
}

// tokenRe matches a signed token (request state) or a sealed one (a
// flow's request state, or a page link's t) in text.
var tokenRe = regexp.MustCompile(`v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+|\bs1\.[A-Za-z0-9_-]+`)

// jsonOf is v as JSON.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// keysOf returns an input_required result's keys, sorted.
func keysOf(m mcp.InputRequestMap) []string { return slices.Sorted(maps.Keys(m)) }

// TestInteropTSSetPassword runs set_password with the official TypeScript
// client over stdio, pinned to 2026-07-28 and declaring URL mode; a real
// Chromium opens the link, types the password into the page and sends it
// (interop/secret-client.mjs). The tool finishes, and the password is
// nowhere on the MCP wire, in a request state, or in the server's log.
func TestInteropTSSetPassword(t *testing.T) {
	tr, db, serverLog := runTSSetPassword(t, false)
	require.Nil(t, tr.Error)
	assert.Equal(t, tsModern, tr.ProtocolVersion)
	require.Len(t, tr.Results, 2)
	statusOf := func(r map[string]any) any { sc, _ := r["structuredContent"].(map[string]any); return sc["status"] }
	assert.Equal(t, "created", statusOf(tr.Results[0]))
	assert.Equal(t, "updated", statusOf(tr.Results[1]), "set_password's result: %v", tr.Results[1])

	// set_password asked its form and its page, once each, in one round.
	var modes []string
	for _, a := range tr.Asked[1:] {
		modes = append(modes, a.Key+" "+a.Mode)
		if a.Mode == "url" {
			assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+/secret\?t=s1\.`, a.URL)
		}
	}
	assert.ElementsMatch(t, []string{passwordForm + " form", passwordPage + " url"}, modes)
	require.Len(t, tr.Pages, 1)
	assert.Equal(t, 200, tr.Pages[0].Shown)
	assert.Equal(t, 200, tr.Pages[0].Status)
	assert.Equal(t, "You're done", tr.Pages[0].Heading)
	assert.Equal(t, "You're done", tr.Pages[0].Reopened, "the link reopened")
	assert.True(t, tr.Pages[0].Fits, "the page's input fits its column at 390 px")

	// The capture saw the exchange (a URL-mode request, the echoed
	// states), and no password in it.
	var wire []string
	for _, m := range tr.Wire {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, m))
		wire = append(wire, b.String())
	}
	all := strings.Join(wire, "\n")
	assert.Contains(t, all, `"mode":"url"`)
	assert.Contains(t, all, `"requestState"`)
	assert.GreaterOrEqual(t, noSecret(t, "the MCP wire", wire...), 4, "request states and links checked")
	noSecret(t, "the server's log", string(serverLog))
	checkHash(t, "sqlite", db, "ada@example.com", secret)
}

// A tsSecretTranscript is what interop/secret-client.mjs reports.
type tsSecretTranscript struct {
	ProtocolVersion string           `json:"protocolVersion"`
	Error           *tsError         `json:"error"`
	Results         []map[string]any `json:"results"`
	Asked           []struct{ Key, Mode, Message, URL string }
	Pages           []struct {
		Shown, Status     int
		Heading, Reopened string
		Fits              bool
		Intruder          *struct {
			Status        int
			Heading, Text string
		}
	}
	Wire []json.RawMessage `json:"wire"`
}

// runTSSetPassword runs the TypeScript client and Chromium through a
// signup and set_password over stdio, with someone else's Chromium on the
// link too if intruder, and returns the transcript, the database and the
// server's log.
func runTSSetPassword(t *testing.T, intruder bool) (tr tsSecretTranscript, db string, serverLog []byte) {
	t.Helper()
	bin := signupBin(t)
	browser := testenv.Chromium(t)
	key, _ := tsStateKey(t)
	db = filepath.Join(t.TempDir(), "signup.db")
	out, serverLog := runDriver(t, "secret-client.mjs", map[string]any{
		"stdio":    &tsStdio{Command: bin, Args: []string{"-stdio", "-db", db}, Env: map[string]string{keyEnv: key}},
		"pin":      tsModern,
		"chromium": browser,
		"email":    "ada@example.com",
		"password": secret,
		"intruder": intruder,
	})
	require.NoError(t, json.Unmarshal(out, &tr))
	return tr, db, serverLog
}

// TestInteropTSSetPasswordIntruder: before the person opens the link in
// Chromium, someone else (or a chat app's preview) opens it in a Chromium
// of their own. They are shown the page, and claim nothing: the person's
// send then sets the password.
func TestInteropTSSetPasswordIntruder(t *testing.T) {
	tr, db, serverLog := runTSSetPassword(t, true)
	require.Nil(t, tr.Error)
	require.Len(t, tr.Results, 2)
	statusOf := func(r map[string]any) any { sc, _ := r["structuredContent"].(map[string]any); return sc["status"] }
	assert.Equal(t, "created", statusOf(tr.Results[0]))
	assert.Equal(t, "updated", statusOf(tr.Results[1]), "set_password's result: %v", tr.Results[1])

	require.Len(t, tr.Pages, 1)
	p := tr.Pages[0]
	require.NotNil(t, p.Intruder)
	assert.Equal(t, 200, p.Intruder.Status)
	assert.Equal(t, "Set your password", p.Intruder.Heading)
	assert.Equal(t, 200, p.Shown, "the person opens the link after")
	assert.Equal(t, 200, p.Status)
	assert.Equal(t, "You're done", p.Heading)

	checkHash(t, "sqlite", db, "ada@example.com", secret)
	noSecret(t, "the server's log", string(serverLog))
}

// TestSetPasswordDuplicateWhileHashing sends set_password's finishing round
// again, to both replicas, while the first copy is still hashing the
// password (PBKDF2, on purpose slow): every copy gets the first outcome,
// none is told that the page is still waiting, with a link that would
// answer 410, and the password is hashed and stored once.
func TestSetPasswordDuplicateWhileHashing(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testDuplicateWhileHashing(t, "sqlite", filepath.Join(t.TempDir(), "shared.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		testDuplicateWhileHashing(t, "pgx", freshPostgres(t))
	})
}

func testDuplicateWhileHashing(t *testing.T, driver, dsn string) {
	ra, rb := startReplica(t, keyA, "-db", dsn), startReplica(t, keyA, "-db", dsn)
	replicas := []*mcp.ClientSession{connectURL(t, ra.url, modern, nil), connectURL(t, rb.url, modern, nil)}
	signUp(t, replicas[0], "ada@example.com")
	first, err := setPassword(replicas[0], "", nil)
	require.NoError(t, err)
	code, page := postPage(t, pageLink(t, first, baseOf(ra.url)), secret)
	require.Equal(t, http.StatusOK, code, page)

	answers := mcp.InputResponseMap{passwordForm: accepted(map[string]any{"email": "ada@example.com"}), passwordPage: &mcp.ElicitResult{Action: "accept"}}
	// Copies leave every 40ms, so that most of them arrive while the
	// first is hashing: after it took the secret, before its outcome.
	results := make([]string, 6)
	var wg sync.WaitGroup
	for i := range results {
		time.Sleep(40 * time.Millisecond)
		wg.Go(func() {
			res, err := setPassword(replicas[i%2], first.RequestState, answers)
			if assert.NoError(t, err) {
				results[i] = status(t, res) + ": " + said(res)
			}
		})
	}
	wg.Wait()
	for i, got := range results {
		assert.Equal(t, "updated: Password set for ada@example.com.", got, "copy %d", i)
	}
	checkHash(t, driver, dsn, "ada@example.com", secret)
}
