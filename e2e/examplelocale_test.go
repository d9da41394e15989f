package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// A part is one element's own text as apps-host.mjs records it, with the
// lang it is read in.
type part struct {
	Text string `json:"text"`
	Lang string `json:"lang"`
}

// exampleWords returns examples/signup's English catalog: the keys of its
// translations (examples/internal/accounts/words), which are its English
// texts, and the translations into lang. A format's English is cut at
// its verbs into the pieces a person would read; a text a language keeps
// as it is (", ") is no English to find.
func exampleWords(t *testing.T, lang string) (english []string, translated map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.Root(t), "examples", "internal", "accounts", "words", lang+".json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &translated))
	verb := regexp.MustCompile(`%(\[\d+\])?[a-z]`)
	for en, tr := range translated {
		if en == tr {
			continue
		}
		for _, piece := range verb.Split(en, -1) {
			if piece = strings.TrimSpace(piece); len(piece) >= 4 || piece == en {
				english = append(english, piece)
			}
		}
	}
	slices.Sort(english)
	return slices.Compact(english), translated
}

// noEnglish fails for each piece of english that text holds.
func noEnglish(t *testing.T, where, text string, english []string) {
	t.Helper()
	for _, en := range english {
		assert.NotContains(t, text, en, "%s: English left", where)
	}
}

// allIn fails for each part not read in lang, and for any part that is
// the example's English.
func allIn(t *testing.T, where string, parts []part, lang string, english []string) {
	t.Helper()
	require.NotEmpty(t, parts, where)
	for _, p := range parts {
		assert.Equal(t, lang, p.Lang, "%s: %q is read as %q", where, p.Text, p.Lang)
		noEnglish(t, where, p.Text, english)
	}
}

// noSerious fails for each serious or critical finding of axe-core.
func noSerious(t *testing.T, axe []struct {
	Name       string `json:"name"`
	Violations []struct {
		ID, Impact, Help string
		Nodes            []string
	} `json:"violations"`
}) {
	t.Helper()
	for _, r := range axe {
		for _, v := range r.Violations {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: %s %s: %s at %s", r.Name, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, ", "))
			}
		}
	}
}

// TestExampleViewInFrench is examples/signup as a French person meets it
// on an MCP Apps host whose hostContext.locale is fr-FR, through the real
// AppBridge in Chromium: the first step, its re-ask, the team step and
// the outcome hold none of the example's English, every element's text
// is read as French, the outcome's result carries contentLanguage fr,
// axe-core finds nothing serious, and no English was ever painted: the
// view stayed hidden until it was French.
func TestExampleViewInFrench(t *testing.T) {
	testenv.Node(t)
	english, fr := exampleWords(t, "fr")
	h := newHostRun(t, signupBin(t), hostRow{revision: modern, kind: hostKind{apps: true}})
	p := map[string]any{"url": h.a, "tool": toolName, "chromium": testenv.Chromium(t), "pin": modern, "locale": "fr-FR",
		"timeoutMs": 90000, "theme": "light", "axe": "example-fr", "views": [][]map[string]any{
			{{"novalidate": true}, {"name": "email", "value": "ada@"}, {"name": "plan", "select": "team"}},
			{{"name": "email", "value": "ada@example.com"}, {"name": "full_name", "value": "Ada Lovelace"}, {"name": "plan", "select": "team"}},
			{{"name": "team_name", "value": "Moteurs analytiques"}, {"name": "seats", "value": "12"}},
		}}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run struct {
		personRun
		Views []struct {
			personView
			Lang  string `json:"lang"`
			Parts []part `json:"parts"`
		} `json:"views"`
		FinalParts []part                        `json:"finalParts"`
		Paints     []struct{ Lang, Text string } `json:"paints"`
		Calls      []struct {
			Result struct {
				Meta map[string]any `json:"_meta"`
			}
		} `json:"calls"`
	}
	require.NoError(t, json.Unmarshal(out, &run))
	require.Len(t, run.Views, 3)
	assert.Empty(t, run.Errors, "the view's console")
	require.Len(t, run.Axe, 4, "axe judged each view and the outcome")
	noSerious(t, run.Axe)

	for i, name := range []string{"first step", "re-ask", "team step"} {
		v := run.Views[i]
		assert.Equal(t, "fr", v.Lang, name)
		noEnglish(t, name, v.Text, english)
		allIn(t, name, v.Parts, "fr", english)
	}
	first, reasked, team := run.Views[0], run.Views[1], run.Views[2]
	assert.Equal(t, map[string]string{fr["Email"]: "email", fr["Full name"] + " (facultatif)": "full_name", fr["Plan"]: "plan"}, first.Labels)
	for _, want := range []string{fr["Create your account"], fr["How we greet you."], fr["Pro, $12 a month"]} {
		assert.Contains(t, first.Text, want)
	}
	assert.Contains(t, reasked.Focus.Class, "mcpform-problems", "the error summary has the focus")
	assert.Equal(t, map[string]string{fr["Team name"]: "team_name", fr["Seats"]: "seats"}, team.Labels)
	assert.Contains(t, team.Text, fr["Tell us about your team"])

	require.NotNil(t, run.Panel)
	// The person reads the outcome's heading and summary (issue 34, item
	// 3); the sentence is the model's.
	assert.Equal(t, fr["Account created"], run.Panel.Heading)
	assert.Equal(t, "Compte créé\nAdresse e-mail\u00a0: ada@example.com\nNom complet\u00a0: Ada Lovelace\nFormule\u00a0: Équipe\n"+
		"Nom de l'équipe\u00a0: Moteurs analytiques\nPlaces\u00a0: 12", run.Panel.Text)
	noEnglish(t, "outcome", run.Panel.Heading+" "+run.Panel.Text, english)
	allIn(t, "outcome", run.FinalParts, "fr", english)
	require.NotEmpty(t, run.Calls)
	assert.Equal(t, "fr", run.Calls[len(run.Calls)-1].Result.Meta["io.modelcontextprotocol/contentLanguage"], "the outcome says it is French")

	// What a person saw, frame by frame, before the first view was
	// recorded: French from the first paint.
	require.NotEmpty(t, run.Paints, "the view painted")
	for i, paint := range run.Paints {
		assert.Equal(t, "fr", paint.Lang, "paint %d", i)
		noEnglish(t, "a paint", paint.Text, english)
		assert.NotContains(t, paint.Text, "Step 1 of", "paint %d: the library's English", i)
	}
}

// TestExamplePageInGerman is examples/signup's secret page as a German
// person meets it, its browser sending Accept-Language de-DE, opened from
// set_password's view on a host whose locale is de-DE: in every state
// (the form, its problem, done, and used, as another browser finds it)
// it holds none of the example's English, every element's text is read
// as German, the title too, and axe-core finds nothing serious.
func TestExamplePageInGerman(t *testing.T) {
	testenv.Node(t)
	english, de := exampleWords(t, "de")
	h := newHostRun(t, signupBin(t), hostRow{revision: modern, kind: hostKind{apps: true}})
	p := map[string]any{"url": h.a, "tool": passwordTool, "chromium": testenv.Chromium(t), "pin": modern,
		"locale": "de-DE", "pageLocale": "de-DE", "allow": []string{baseOf(h.a)},
		"timeoutMs": 90000, "theme": "light", "axe": "example-de", "views": [][]map[string]any{
			{{"name": "email", "value": "ada@example.com"}},
			{{"link": true, "password": secret, "states": true}},
		}}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run struct {
		personRun
		PageStates []struct {
			State, Title, TitleLang, Lang string
			Parts                         []part
		} `json:"pageStates"`
	}
	require.NoError(t, json.Unmarshal(out, &run))
	assert.Empty(t, run.Errors, "the view's console")
	noSerious(t, run.Axe)
	var states []string
	for _, s := range run.PageStates {
		states = append(states, s.State)
		assert.Equal(t, "de", s.Lang, s.State)
		assert.Equal(t, "de", s.TitleLang, "%s: the title %q", s.State, s.Title)
		noEnglish(t, s.State+" title", s.Title, english)
		allIn(t, s.State, s.Parts, "de", english)
	}
	require.Equal(t, []string{"form", "problem", "done", "used"}, states)
	form := run.PageStates[0]
	assert.Equal(t, de["Set your password"], form.Title)
	assert.Contains(t, form.Parts, part{de["New password"], "de"})
	assert.Contains(t, form.Parts, part{de["12 to 128 characters."], "de"})
	assert.Equal(t, "Fehler: "+de["Set your password"], run.PageStates[1].Title)
}

// TestUntranslatedInBrowser: a French view whose author translated some
// words and not others, through the real AppBridge in Chromium. Each
// untranslated text is read as English (lang="en") — the message, a
// description, an option, and a label's title while its "(facultatif)"
// stays French — and each translated one as French. The frame's title,
// the untranslated heading, is read as English too.
func TestUntranslatedInBrowser(t *testing.T) {
	testenv.Node(t)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{[]byte(strings.Repeat("u", 32))}, Bind: true})
	require.NoError(t, err)
	fr := map[string]string{"Email": "Adresse e-mail", "Where we send receipts.": "Là où nous envoyons vos reçus.", "Pro": "Pro, 12\u00a0$ par mois"}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
		{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true, Description: "Where we send receipts."},
		{Name: "full_name", Label: "Full name", Description: "How we greet you."},
		{Name: "plan", Label: "Plan", Required: true, Options: []mcpform.Option{{Value: "pro", Label: "Pro"}, {Value: "free", Label: "Free"}}},
	}}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true,
		Translate: func(_ language.Tag, s string) string { return fr[s] }})
	require.NoError(t, err)
	url := serveFlow(t, flow)
	p := map[string]any{"url": url, "tool": toolName, "chromium": testenv.Chromium(t), "pin": modern, "locale": "fr-FR",
		"timeoutMs": 90000, "theme": "light", "axe": "untranslated-fr", "views": [][]map[string]any{
			{{"name": "email", "value": "ada@example.com"}, {"name": "plan", "select": "free"}},
		}}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run struct {
		personRun
		Views []struct {
			personView
			Parts            []part `json:"parts"`
			Title, TitleLang string
		} `json:"views"`
	}
	require.NoError(t, json.Unmarshal(out, &run))
	require.Len(t, run.Views, 1)
	assert.Empty(t, run.Errors, "the view's console")
	noSerious(t, run.Axe)
	v := run.Views[0]
	assert.Equal(t, "Create your account", v.Title, "the frame's title is the heading")
	assert.Equal(t, "en", v.TitleLang, "a title has no parts: it takes the untranslated heading's lang")
	assert.Equal(t, map[string]string{"Adresse e-mail": "email", "Full name (facultatif)": "full_name", "Plan": "plan"}, v.Labels,
		"a label's accessible name is whole")
	read := map[string]string{}
	for _, p := range v.Parts {
		read[p.Text] = p.Lang
	}
	for text, lang := range map[string]string{
		"Create your account": "en", "Email": "", "Adresse e-mail": "fr", "Là où nous envoyons vos reçus.": "fr",
		"Full name": "en", "(facultatif)": "fr", "How we greet you.": "en", "Plan": "en",
		"Pro, 12\u00a0$ par mois": "fr", "Free": "en", "Envoyer": "fr",
	} {
		if lang == "" {
			assert.NotContains(t, read, text)
			continue
		}
		assert.Equal(t, lang, read[text], "%q is read as %q", text, read[text])
	}
}

// TestUntranslatedWordsInSentencesInBrowser: the author's words the
// view's own sentences and buttons hold, left untranslated, are read as
// English amid a French view, through the real AppBridge in Chromium,
// and the French around them as French. The re-ask's summary link and
// inline error name the field "Seats"; the check round heads each step
// with its message, names each answer's title and option, embeds the
// message in its Change button, and its submit says FlowOptions.Commit.
func TestUntranslatedWordsInSentencesInBrowser(t *testing.T) {
	testenv.Node(t)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{[]byte(strings.Repeat("w", 32))}, Bind: true})
	require.NoError(t, err)
	fr := map[string]string{"Email": "Adresse e-mail", "Pro": "Pro, 12\u00a0$ par mois"}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
		{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
		{Name: "seats", Label: "Seats", Type: mcpform.TypeInteger, Min: mcpform.Bound(2), Max: mcpform.Bound(50), Required: true},
		{Name: "plan", Label: "Plan", Required: true, Options: []mcpform.Option{{Value: "pro", Label: "Pro"}, {Value: "free", Label: "Free"}}},
	}}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, Commit: "Create account", CheckAnswers: true,
		Translate: func(_ language.Tag, s string) string { return fr[s] }})
	require.NoError(t, err)
	url := serveFlow(t, flow)
	p := map[string]any{"url": url, "tool": toolName, "chromium": testenv.Chromium(t), "pin": modern, "locale": "fr-FR",
		"timeoutMs": 90000, "theme": "light", "axe": "untranslated-sentences-fr", "views": [][]map[string]any{
			{{"novalidate": true}, {"name": "email", "value": "ada@example.com"}, {"name": "seats", "value": "1"}, {"name": "plan", "select": "free"}},
			{{"name": "seats", "value": "3"}},
			{},
		}}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run struct {
		personRun
		Views []struct {
			personView
			Parts []part `json:"parts"`
		} `json:"views"`
	}
	require.NoError(t, json.Unmarshal(out, &run))
	require.Len(t, run.Views, 3)
	assert.Empty(t, run.Errors, "the view's console")
	noSerious(t, run.Axe)
	// readAs fails unless some part of v is text, and every one is read
	// in lang.
	readAs := func(where string, parts []part, text, lang string) {
		t.Helper()
		n := 0
		for _, p := range parts {
			if p.Text == text {
				n++
				assert.Equal(t, lang, p.Lang, "%s: %q is read as %q", where, text, p.Lang)
			}
		}
		assert.NotZero(t, n, "%s: no %q in %v", where, text, parts)
	}
	reask := run.Views[1]
	require.Len(t, reask.Summary, 1, "the re-ask names seats")
	assert.Equal(t, "Seats\u00a0: saisissez une valeur de 2 à 50", reask.Summary[0].Text)
	readAs("the re-ask", reask.Parts, "Seats", "en")
	readAs("the re-ask", reask.Parts, ": saisissez une valeur de 2 à 50", "fr")
	n := 0
	for _, p := range reask.Parts {
		if p.Text == "Seats" {
			n++
		}
	}
	assert.Equal(t, 3, n, "the label, the summary's link and the inline error: %v", reask.Parts)
	check := run.Views[2]
	for text, lang := range map[string]string{
		"Vérifiez vos réponses": "fr", "Create your account": "en", "Adresse e-mail\u00a0: ada@example.com": "fr",
		"Seats": "en", "Plan": "en", "Free": "en", "Modifier\u00a0:": "fr", "Create account": "en", "Refuser": "fr",
	} {
		readAs("the check round", check.Parts, text, lang)
	}
}

// serveFlow serves flow as the tool toolName, with an MCP Apps view, over
// Streamable HTTP, and returns the MCP endpoint's URL.
func serveFlow(t *testing.T, flow *mcpform.Flow) string {
	t.Helper()
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "untranslated", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	tool := &mcp.Tool{Name: toolName, InputSchema: flow.InputSchema(nil)}
	require.NoError(t, mcpform.AttachViewer(tool, nil))
	require.NoError(t, mcpform.AddViewer(server, nil))
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := flow.Next(ctx, req)
		if err != nil {
			return nil, err
		}
		if r.Status == mcpform.FlowAsk {
			return r.Result, nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Compte créé."}}}
		mcpform.ContentLanguage(res, r.Language)
		return res, nil
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}
