package secretpage

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// form is a form of two fields, the second with help and a problem.
func form() *Page {
	return &Page{Title: "Error: Set your password", Heading: "Set your password", Message: "Type it here.",
		Token: "tok<en>", Check: "chk", Button: "Send", Fields: []Field{
			{Name: "pin", Label: "PIN", Required: true},
			{Name: "password", Label: "New password", Description: "8 to 64 characters.", Required: true,
				MinLength: 8, MaxLength: 64, Problem: "Shorter than 8 characters."},
		}}
}

func write(t *testing.T, method string, status int, p *Page) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	Write(w, httptest.NewRequest(method, "/secret", nil), status, p)
	return w
}

// TestWriteForm: a form's fields are password inputs with ids by
// position, labelled, described by their help then their problem, and the
// first field with a problem is marked and focused.
func TestWriteForm(t *testing.T) {
	w := write(t, http.MethodGet, http.StatusUnprocessableEntity, form())
	body := w.Body.String()
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	for _, want := range []string{
		`<html lang="en">`, `<title>Error: Set your password</title>`, `<h1>Set your password</h1>`, `<p>Type it here.</p>`,
		`<input type="hidden" name="t" value="tok&lt;en&gt;">`, `<input type="hidden" name="c" value="chk">`,
		`<label for="f-0">PIN</label>`, `<input id="f-0" name="pin" type="password" autocomplete="new-password" required>`,
		`<label for="f-1">New password</label><div class="help" id="f-1-help">8 to 64 characters.</div>`,
		` minlength="8" maxlength="64" aria-invalid="true" aria-describedby="f-1-help f-1-problem" autofocus>`,
		`<div class="problem" id="f-1-problem" role="alert">Shorter than 8 characters.</div>`,
		`<button type="submit">Send</button>`,
	} {
		assert.Contains(t, body, want)
	}
	assert.Equal(t, 1, strings.Count(body, "autofocus"))
	assert.NotContains(t, body, "<script")
	assert.NotContains(t, body, `name="a"`)
	assert.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"))
	assert.Equal(t, strconv.Itoa(len(body)), w.Header().Get("Content-Length"))
	assert.Empty(t, w.Header().Get("Content-Language"), "English is the default")
}

func TestDescribedBy(t *testing.T) {
	for _, tt := range []struct {
		help, problem, want string
	}{{"h", "p", "f-2-help f-2-problem"}, {"h", "", "f-2-help"}, {"", "p", "f-2-problem"}, {"", "", ""}} {
		assert.Equal(t, tt.want, describedBy(&field{ID: "f-2", Description: tt.help, Problem: tt.problem}))
	}
}

// TestWriteText: a page without a Token has no form; one with Stop has
// the stop button in place of the fields; its language is the page's and
// the response's.
func TestWriteText(t *testing.T) {
	body := write(t, http.MethodGet, http.StatusNotFound, &Page{Title: "Error: Gone", Heading: "Gone"}).Body.String()
	assert.Contains(t, body, "<title>Error: Gone</title>")
	assert.Contains(t, body, "<h1>Gone</h1>")
	assert.NotContains(t, body, "<form")
	assert.NotContains(t, body, "<p>")

	stop := form()
	stop.Stop, stop.Lang = "Stop this link", "es"
	w := write(t, http.MethodGet, http.StatusOK, stop)
	body = w.Body.String()
	assert.Contains(t, body, `<html lang="es">`)
	assert.Equal(t, "es", w.Header().Get("Content-Language"))
	assert.Contains(t, body, `<input type="hidden" name="a" value="stop">`+"\n"+`<button type="submit">Stop this link</button>`)
	assert.NotContains(t, body, `type="password"`, "no fields beside the stop button")
}

// TestWriteHead: a HEAD gets the GET's status and headers, and no body.
func TestWriteHead(t *testing.T) {
	get, head := write(t, http.MethodGet, http.StatusConflict, form()), write(t, http.MethodHead, http.StatusConflict, form())
	assert.Equal(t, get.Code, head.Code)
	assert.Equal(t, get.Header(), head.Header())
	assert.Empty(t, head.Body.String())
}

// TestCSP: the page's one style is the one its policy allows by hash, and
// the policy allows nothing else to load.
func TestCSP(t *testing.T) {
	body := write(t, http.MethodGet, http.StatusOK, form()).Body.String()
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(body, -1)
	require.Len(t, m, 1)
	sum := sha256.Sum256([]byte(m[0][1]))
	assert.Contains(t, CSP, "style-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	assert.True(t, strings.HasPrefix(CSP, "default-src 'none'; "), CSP)
	for _, d := range []string{"form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		assert.Contains(t, CSP, d)
	}

	h := http.Header{}
	SetHeaders(h)
	assert.Equal(t, http.Header{
		"Content-Security-Policy": {CSP},
		"Cache-Control":           {"no-store"},
		"Referrer-Policy":         {"no-referrer"},
		"X-Content-Type-Options":  {"nosniff"},
		"X-Frame-Options":         {"DENY"},
	}, h)
}

// TestWriteFieldOrder checks issue 34, item 7: a field reads label, help,
// problem, then input, as GOV.UK's error message does, and the input is
// still described by its help, then its problem; the page is one main
// landmark.
func TestWriteFieldOrder(t *testing.T) {
	body := write(t, http.MethodGet, http.StatusUnprocessableEntity, form()).Body.String()
	order := []string{`<label for="f-1">`, `id="f-1-help"`, `id="f-1-problem"`, `<input id="f-1"`}
	at := make([]int, len(order))
	for i, s := range order {
		at[i] = strings.Index(body, s)
		require.GreaterOrEqual(t, at[i], 0, "the page has no %s", s)
	}
	assert.IsIncreasing(t, at, "label, help, problem, input: %v", order)
	assert.Contains(t, body, `aria-describedby="f-1-help f-1-problem"`)
	assert.Equal(t, 1, strings.Count(body, "<main>"), "one main landmark")
}

// TestStyleButtons checks issue 34, item 7: the form's button is styled as
// the primary action, and the stop button, which follows the hidden a,
// as a secondary one, in both schemes.
func TestStyleButtons(t *testing.T) {
	for _, want := range []string{
		"button{", "background:#1d4ed8;color:#fff", "input[name=a]+button{background:transparent",
		"h1{font-size:clamp(",
	} {
		assert.Contains(t, style, want)
	}
	dark := style[strings.Index(style, "@media (prefers-color-scheme:dark)"):]
	assert.Contains(t, dark, "button{background:#60a5fa")
	assert.Contains(t, dark, "input[name=a]+button{background:transparent")
}

// BenchmarkWrite builds a form with a problem, as a re-ask shows it.
func BenchmarkWrite(b *testing.B) {
	p := form()
	r := httptest.NewRequest(http.MethodGet, "/secret", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		Write(w, r, http.StatusUnprocessableEntity, p)
	}
}

// TestWriteMarksParts: a German page whose author gave no translation of
// the heading, one label and one help marks each of them lang="en", the
// title too when it is the heading, and leaves what is German unmarked.
func TestWriteMarksParts(t *testing.T) {
	p := &Page{Lang: "de", Title: "Set your password", Heading: "Set your password", HeadingLang: "en",
		Token: "t", Check: "c", Button: "Senden", Fields: []Field{
			{Name: "pin", Label: "PIN", LabelLang: "en", Description: "Vier Ziffern."},
			{Name: "password", Label: "Neues Passwort", Description: "12 to 128 characters.", DescriptionLang: "en"},
		}}
	body := write(t, http.MethodGet, http.StatusOK, p).Body.String()
	for _, want := range []string{
		`<html lang="de">`, `<title lang="en">Set your password</title>`, `<h1 lang="en">Set your password</h1>`,
		`<label for="f-0" lang="en">PIN</label><div class="help" id="f-0-help">Vier Ziffern.</div>`,
		`<label for="f-1">Neues Passwort</label><div class="help" id="f-1-help" lang="en">12 to 128 characters.</div>`,
	} {
		assert.Contains(t, body, want)
	}
	p.Title = "Fehler: " + p.Title
	body = write(t, http.MethodGet, http.StatusOK, p).Body.String()
	assert.Contains(t, body, "<title>Fehler: Set your password</title>", "a title in two languages is the page's")
}
