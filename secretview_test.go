package mcpform

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
				`<div class="problem" id="f-0-problem" role="alert">Shorter than 8 characters.</div>`},
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
