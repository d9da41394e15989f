package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestRequestLang reads SEP-2792's _meta first, and the HTTP header when
// the request has none.
func TestRequestLang(t *testing.T) {
	header := func(v string) *mcp.RequestExtra {
		return &mcp.RequestExtra{Header: http.Header{"Accept-Language": {v}}}
	}
	for _, tt := range []struct {
		name  string
		meta  mcp.Meta
		extra *mcp.RequestExtra
		want  catalog.Lang
	}{
		{"nothing", nil, nil, catalog.English},
		{"meta", mcp.Meta{seam.MetaAcceptLanguage: "es-ES"}, nil, catalog.Spanish},
		{"header", nil, header("fr"), catalog.French},
		{"meta wins over header", mcp.Meta{seam.MetaAcceptLanguage: "ja"}, header("de"), catalog.Japanese},
		{"meta of none of ours is English, header or not", mcp.Meta{seam.MetaAcceptLanguage: "pt"}, header("de"), catalog.English},
		{"meta not a string is no meta", mcp.Meta{seam.MetaAcceptLanguage: 42}, header("de"), catalog.German},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: tt.meta}, Extra: tt.extra}
			assert.Equal(t, tt.want.Code(), callLang((*sdkCall)(req)).Code())
		})
	}
	assert.Equal(t, catalog.English, callLang((*sdkCall)(nil)))
}

func TestContentLanguage(t *testing.T) {
	for _, tt := range []struct {
		tag  language.Tag
		want any
	}{
		{language.Spanish, "es"},
		{language.MustParse("fr-CA"), "fr-CA"},
		{language.English, nil},
		{language.AmericanEnglish, nil},
		{language.Tag{}, nil},
	} {
		t.Run(tt.tag.String(), func(t *testing.T) {
			shared := mcp.Meta{"x": 1}
			res := &mcp.CallToolResult{Meta: shared}
			ContentLanguage(res, tt.tag)
			assert.Equal(t, tt.want, res.Meta[seam.MetaContentLanguage])
			assert.Equal(t, 1, res.Meta["x"])
			assert.NotContains(t, shared, seam.MetaContentLanguage, "the shared _meta is not changed")
		})
	}
	ContentLanguage(nil, language.Spanish) // no panic
}

// spanish is call with SEP-2792's acceptLanguage _meta.
func spanish(req *mcp.CallToolRequest, accept string) *mcp.CallToolRequest {
	req.Params.Meta[seam.MetaAcceptLanguage] = accept
	return req
}

// TestFlowSpeaksThePersonsLanguage runs the team flow in Spanish: the
// first round's language is pinned in the state, so a later call asking
// for English still gets Spanish, and an old state without a language is
// English.
func TestFlowSpeaksThePersonsLanguage(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	r, err := flow.Next(context.Background(), spanish(call("signup", "", nil), "es-ES,es;q=0.9,en;q=0.5"))
	require.NoError(t, err)
	assert.Equal(t, language.Spanish, r.Language)
	assert.Equal(t, "es", r.Result.Meta[seam.MetaContentLanguage])
	assert.Equal(t, "Paso 1 de 2 como máximo\n\nCreate your account", r.Result.InputRequests["account"].(*mcp.ElicitParams).Message,
		"where the step stands in Spanish, then the author's own message, with no Translate")

	r, err = flow.Next(context.Background(), spanish(call("signup", r.Result.RequestState, map[string]any{
		"account": map[string]any{"email": "ada@example.com", "plan": "team"},
	}), "en"))
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, map[string]any{
		"team": map[string]any{"team_name": "A", "seats": 500.0},
	}))
	require.NoError(t, err)
	assert.Equal(t, language.Spanish, r.Language, "pinned by the first round")
	assert.Equal(t, "es", r.Result.Meta[seam.MetaContentLanguage])
	msg := r.Result.InputRequests["team"].(*mcp.ElicitParams).Message
	assert.Equal(t, "Paso 2 de 2\n\nSet up your team\n\nTeam Name: escribe al menos 2 caracteres. Seats: escribe un valor de 2 a 50.", msg)

	// An English flow says nothing of its language.
	r, err = flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	assert.Equal(t, language.English, r.Language)
	assert.NotContains(t, r.Result.Meta, seam.MetaContentLanguage)
}

// TestFlowTranslate: the author's labels, descriptions, option titles,
// message and Check reasons go through FlowOptions.Translate, and
// mcpform's own default message through the catalog.
func TestFlowTranslate(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	words := map[string]string{
		"Plan": "Plan", "Email": "Correo electrónico", "Where we send receipts": "Donde enviamos los recibos",
		"Pro": "Profesional", "Team Name": "Nombre del equipo", "that name is taken": "ese nombre ya está ocupado",
	}
	var calls []string
	tr := func(tag language.Tag, s string) string {
		calls = append(calls, tag.String()+":"+s)
		return words[s]
	}
	flow, err := NewFlow(codec, []Step{
		{Key: "account", Fields: []AutoFormField{
			{Name: "email", Label: "Email", Type: TypeEmail, Description: "Where we send receipts"},
			{Name: "plan", Label: "Plan", Options: []Option{{Value: "pro", Label: "Pro"}, {Value: "free"}}},
			{Name: "team_name"},
		}, Check: func(Answers) []*FieldError {
			return []*FieldError{{Field: "team_name", Err: errorString("that name is taken")}}
		}},
	}, &FlowOptions{Principal: tokenUser, Translate: tr})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), spanish(call("t", "", nil), "es"))
	require.NoError(t, err)
	p := r.Result.InputRequests["account"].(*mcp.ElicitParams)
	assert.Equal(t, "Completa la siguiente información", p.Message)
	schema := wireJSON(t, p.RequestedSchema)
	for _, want := range []string{`"title":"Correo electrónico"`, `"description":"Donde enviamos los recibos"`,
		`{"title":"Profesional","const":"pro"}`, `{"title":"free","const":"free"}`, `"title":"Nombre del equipo"`} {
		assert.Contains(t, schema, want)
	}
	n := len(calls)
	_, err = flow.Next(context.Background(), spanish(call("t", "", nil), "es"))
	require.NoError(t, err)
	assert.Len(t, calls, n, "the Spanish flow is compiled once")

	r, err = flow.Next(context.Background(), call("t", r.Result.RequestState, map[string]any{
		"account": map[string]any{"email": "ada@example.com", "plan": "pro", "team_name": "x"},
	}))
	require.NoError(t, err)
	assert.Equal(t, "Completa la siguiente información\n\nRevisa Nombre del equipo: ese nombre ya está ocupado.",
		r.Result.InputRequests["account"].(*mcp.ElicitParams).Message)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestFormAskLanguage: a form asked natively speaks the call's language,
// and so does its re-ask after ReadCall.
func TestFormAskLanguage(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}, nil)
	require.NoError(t, err)
	req := spanish(call("t", "", nil), "de-CH")
	res, err := form.Ask(req, "")
	require.NoError(t, err)
	assert.Equal(t, "Bitte geben Sie die folgenden Informationen an", res.InputRequests[form.Key()].(*mcp.ElicitParams).Message)

	reply := form.ReadCall(spanish(call("t", "", map[string]any{form.Key(): map[string]any{"email": "nope"}}), "ja"))
	require.Equal(t, ReplyInvalid, reply.Status)
	msg := form.Reask(reply, "").InputRequests[form.Key()].(*mcp.ElicitParams).Message
	assert.Equal(t, "以下の情報を入力してください\n\nEmailには、name@example.com のような形式でメールアドレスを入力してください。", msg)
	assert.Equal(t, "Email must be an email address, like name@example.com.", ProblemMessage(form.Fields(), reply.Problems),
		"ProblemMessage speaks English")
}

// TestFlowStatePinsLanguage: a state carries its language compactly, and
// an old state without one reads as English.
func TestFlowStatePinsLanguage(t *testing.T) {
	enc, err := json.Marshal(&flowState{ID: "x", Step: "team", Lang: "es"})
	require.NoError(t, err)
	assert.Equal(t, `{"i":"x","s":"team","l":"es"}`, string(enc))
	var st flowState
	require.NoError(t, json.Unmarshal([]byte(`{"i":"x","s":"team"}`), &st))
	assert.Equal(t, catalog.English, pinnedLang(st.Lang), "a state from before languages")
	require.NoError(t, json.Unmarshal(enc, &st))
	assert.Equal(t, catalog.Spanish, pinnedLang(st.Lang))
	assert.Equal(t, catalog.English, pinnedLang("xx"), "a code we no longer speak")
}

// TestSecretPageLanguage: the page speaks the browser's Accept-Language,
// in its text, its <html lang> and its Content-Language; a problem
// posted is worded in it too.
func TestSecretPageLanguage(t *testing.T) {
	fx := newSecretFixture(t, nil)
	r, err := fx.flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	get := func(link, accept string) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodGet, link, nil)
		require.NoError(t, err)
		req.Header.Set("Accept-Language", accept)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var b strings.Builder
		_, err = io.Copy(&b, res.Body)
		require.NoError(t, err)
		return res, b.String()
	}
	for _, tt := range []struct {
		accept, link string
		want         []string
		lang         string
	}{
		{"", link, []string{`<html lang="en">`, "<title>Set your password</title>", pageStrings.Intro, ">Send</button>"}, ""},
		// The author gave no translation: their words say they are English.
		{"ja-JP,ja;q=0.9", link, []string{`<html lang="ja">`, `<title lang="en">Set your password</title>`, `<h1 lang="en">Set your password</h1>`,
			`<label for="f-0" lang="en">New password</label>`,
			"<p>ここに入力した内容は、アプリやそのアシスタントを経由せず、直接サーバーに送られます。</p>", ">送信</button>"}, "ja"},
		{"fr-CH", fx.page.URL + "/secret?t=nope", []string{`<html lang="fr">`, "<title>Erreur\u00a0: Ce lien ne fonctionne pas</title>",
			"<h1>Ce lien ne fonctionne pas</h1>"}, "fr"},
		{"de", fx.page.URL + "/secret?t=nope", []string{`<html lang="de">`, "<title>Fehler: Dieser Link funktioniert nicht</title>"}, "de"},
		{"pt-BR", fx.page.URL + "/secret?t=nope", []string{`<html lang="en">`, "<title>Error: This link doesn&#39;t work</title>"}, ""},
	} {
		t.Run(tt.accept, func(t *testing.T) {
			res, body := get(tt.link, tt.accept)
			for _, w := range tt.want {
				assert.Contains(t, body, w)
			}
			assert.Equal(t, tt.lang, res.Header.Get("Content-Language"))
		})
	}
	values, problems, _ := readSecrets(catalog.German, &fx.flow.steps[0], url.Values{"password": {"kurz"}})
	assert.Empty(t, values)
	assert.Equal(t, map[string]string{"password": "New password: Geben Sie 8 bis 64 Zeichen ein."}, problems)
	_, problems, _ = readSecrets(catalog.Japanese, &fx.flow.steps[0], url.Values{})
	assert.Equal(t, map[string]string{"password": "New passwordを入力してください。"}, problems)
}

// TestModelPathLanguage: what the model is told comes from the catalog
// too, so that it speaks to the person in their language.
func TestModelPathLanguage(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), directCall(t, withLang(bareMeta(), "de"), "alice", "signup", nil))
	require.NoError(t, err)
	text := r.Result.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "Frage die Person nach diesen Antworten")
	assert.Contains(t, text, "Rufe dann das Tool signup erneut mit diesen Argumenten auf")
	assert.NotContains(t, text, "Ask the person")
	assert.Equal(t, "de", r.Result.Meta[seam.MetaContentLanguage])
}

// TestReasonsInEveryLanguage says every reason checkReason gives in every
// language, by its message, and its English is the text FieldError has
// always carried; an author's reason is kept as it is.
func TestReasonsInEveryLanguage(t *testing.T) {
	text := AutoFormField{Name: "t", Min: Bound(2), Max: Bound(3)}
	multi := AutoFormField{Name: "m", Options: []Option{{Value: "a"}, {Value: "b"}}, Multiple: true, Min: Bound(1), Max: Bound(1)}
	num := AutoFormField{Name: "n", Type: TypeInteger, Min: Bound(1), Max: Bound(9)}
	cases := []struct {
		k       catalog.Msg
		f       AutoFormField
		v       any
		bound   string
		english string
	}{
		{catalog.NotBoolean, AutoFormField{Name: "b", Type: TypeBoolean}, "yes", "", "not a boolean"},
		{catalog.NotNumber, num, "1", "", "not a number"},
		{catalog.NotInteger, num, 1.5, "", "not an integer"},
		{catalog.LessThanMin, num, 0.0, "1", "less than the minimum 1"},
		{catalog.GreaterThanMax, num, 10.0, "9", "greater than the maximum 9"},
		{catalog.OutOfRange, AutoFormField{Name: "x", Type: TypeNumber}, json.Number("1e400"), "", "too large for a number this field holds"},
		{catalog.NotString, text, 1.0, "", "not a string"},
		{catalog.NotOption, AutoFormField{Name: "e", Options: []Option{{Value: "a"}}}, "z", "", "not one of the options"},
		{catalog.NotList, multi, "a", "", "not a list"},
		{catalog.FewerChoices, multi, []any{}, "1", "fewer than 1 choices"},
		{catalog.MoreChoices, multi, []any{"a", "b"}, "1", "more than 1 choices"},
		{catalog.ChoiceNotOption, multi, []any{"z"}, "", "a choice is not one of the options"},
		{catalog.Shorter, text, "a", "2", "shorter than 2 characters"},
		{catalog.Longer, text, "abcd", "3", "longer than 3 characters"},
		{catalog.NotEmail, AutoFormField{Name: "e", Type: TypeEmail}, "ada", "", "not a valid email address"},
		{catalog.NotURI, AutoFormField{Name: "u", Type: TypeURL}, "nope", "", "not a valid absolute URI"},
		{catalog.NotDate, AutoFormField{Name: "d", Type: TypeDate}, "2026-13-01", "", "not a valid date (YYYY-MM-DD)"},
		{catalog.NotDateTime, AutoFormField{Name: "d", Type: TypeDatetime}, "2026-01-01", "", "not a valid date-time (RFC 3339)"},
		{catalog.Control, text, "a\x01", "", "a control character"},
		{catalog.LineBreak, text, "a\nb", "", "a line break, which only a multi-line field takes"},
		{catalog.Bidi, text, "a\u202eb", "", "a bidirectional control character"},
		{catalog.Invisible, text, "a\u200bb", "", "an invisible zero-width or direction mark"},
		{catalog.Joiner, text, "\u200dab", "", "a zero-width joiner that joins nothing"},
		{catalog.NotUnicode, text, unclearValue{&canonjson.MemberError{Key: "t", Err: canonjson.ErrInvalidUTF8}}, "", "characters that could not be read"},
		{catalog.GivenTwice, text, unclearValue{&canonjson.MemberError{Key: "t", InKey: true, Err: canonjson.ErrDuplicateKey}}, "", "given more than once"},
	}
	var covered []catalog.Msg
	for _, c := range cases {
		reason := c.f.checkReason(c.v)
		require.NotNil(t, reason, "msg %d", c.k)
		assert.Equal(t, c.k, reason.Msg)
		assert.Equal(t, c.english, c.f.checkValue(c.v))
		covered = append(covered, c.k)
		err := fmt.Errorf("%w: %w", ErrInvalidValue, reason)
		assert.ErrorIs(t, err, ErrInvalidValue)
		for l := range catalog.NumLangs {
			want := l.Text(c.k)
			if c.bound != "" {
				want = catalog.Fill(want, "min", c.bound, "max", c.bound)
			}
			assert.Equal(t, want, reasonIn(l, err, c.english), "%s: %q", l.Code(), c.english)
			assert.Equal(t, want, c.f.checkValueIn(l, c.v), "%s: %q", l.Code(), c.english)
		}
	}
	var all []catalog.Msg
	for k := catalog.NotBoolean; k <= catalog.GivenTwice; k++ {
		all = append(all, k)
	}
	assert.ElementsMatch(t, all, covered, "every reason has a case")
	assert.Equal(t, "the room is taken", reasonIn(catalog.Spanish, errors.New("the room is taken"), "the room is taken"), "an author's reason is kept")
}

// TestProblemMessageInOneString: problemMessage, written in one string,
// says what the texts it is made of say, joined, in every language, and
// so does messageAndProblems after a message.
func TestProblemMessageInOneString(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Label: "Email", Type: TypeEmail}, {Name: "n", Type: TypeInteger, Min: Bound(2)}}
	problems := []*FieldError{
		{Field: "email", Err: fmt.Errorf("%w: not a valid email address", ErrInvalidValue)},
		{Field: "zzz", Err: ErrUnknownField},
		{Field: "n", Err: fmt.Errorf("%w: less than the minimum 2", ErrInvalidValue)},
		{Field: "n", Err: ErrMissing},
		{Field: "other", Err: errors.New("the room is taken")},
	}
	own := func(s string) string { return "«" + s + "»" }
	for l := range catalog.NumLangs {
		for _, ps := range [][]*FieldError{nil, problems[1:2], problems[:1], problems} {
			var parts []string
			var wantNotes []problemNote
			for _, p := range ps {
				if errors.Is(p.Err, ErrUnknownField) {
					continue
				}
				var f *AutoFormField
				if i := fieldIndex(fields, p.Field); i >= 0 {
					f = &fields[i]
				}
				said := viewTexts[l].sentence(f, p, own)
				if f != nil {
					wantNotes = append(wantNotes, problemNote{Field: p.Field, Problem: said})
				} else {
					wantNotes = append(wantNotes, problemNote{Problem: said})
				}
				parts = append(parts, l.Format(catalog.Sentence, "text", said))
			}
			want := strings.Join(parts, l.Text(catalog.ProblemSep))
			assert.Equal(t, want, problemMessage(l, own, fields, ps), "%s %d problems", l.Code(), len(ps))
			if want != "" {
				want = "\n\n" + want
			}
			var notes []problemNote
			assert.Equal(t, "Asked"+want, messageAndProblems("Asked", l, own, fields, ps, &notes), "%s %d problems after a message", l.Code(), len(ps))
			assert.Equal(t, wantNotes, notes, "%s %d problems: each note is its part of the message", l.Code(), len(ps))
		}
	}
}

// The benchmarks of building what a person reads, in English and in
// Spanish: the secret page, a re-ask that names problems, and a view
// that does. They use nothing newer than the catalogs, so the same file
// runs against a build from before them, where "es" is English: compare
// the two in one interleaved run (see the report of issue 23's item 4).

// benchLangs are the Accept-Language values of the sub-benchmarks.
var benchLangs = []struct{ name, accept string }{{"en", ""}, {"es", "es-ES,es;q=0.9"}, {"fr", "fr-FR,fr;q=0.9"}, {"de", "de-DE,de;q=0.9"}, {"ja", "ja-JP,ja;q=0.9"}}

// withLang is meta with the acceptLanguage _meta of SEP-2792.
func withLang(meta mcp.Meta, accept string) mcp.Meta {
	meta = maps.Clone(meta)
	if accept != "" {
		meta["io.modelcontextprotocol/acceptLanguage"] = accept
	}
	return meta
}

// BenchmarkLanguagePage builds the secret page's form, as a browser
// opening the link is shown it.
func BenchmarkLanguagePage(b *testing.B) {
	for _, bl := range benchLangs {
		b.Run(bl.name, func(b *testing.B) {
			_, codec, _ := newFlowFixture(b)
			flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
				Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}})
			require.NoError(b, err)
			r, err := flow.Next(context.Background(), secretCall("", nil))
			require.NoError(b, err)
			link := r.Result.InputRequests["password.secret"].(*mcp.ElicitParams).URL
			page, err := flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
			require.NoError(b, err)
			req := httptest.NewRequest(http.MethodGet, link, nil)
			if bl.accept != "" {
				req.Header.Set("Accept-Language", bl.accept)
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				page.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// BenchmarkLanguageReask is a round that asks a step again, naming its
// problems, natively: the language was pinned by the first round.
func BenchmarkLanguageReask(b *testing.B) {
	for _, bl := range benchLangs {
		b.Run(bl.name, func(b *testing.B) {
			flow, _, _ := newFlowFixture(b)
			first := call("signup", "", nil)
			first.Params.Meta = withLang(first.Params.Meta, bl.accept)
			r, err := flow.Next(context.Background(), first)
			require.NoError(b, err)
			req := call("signup", r.Result.RequestState, map[string]any{
				"account": map[string]any{"email": "nope", "plan": "gold"}})
			b.ReportAllocs()
			for b.Loop() {
				r, err := flow.Next(context.Background(), req)
				if err != nil || r.Status != FlowAsk || len(r.Problems) != 2 {
					b.Fatal(err, r.Status)
				}
			}
		})
	}
}

// BenchmarkLanguageView is a round that asks a step again in an MCP Apps
// view, naming its problems.
func BenchmarkLanguageView(b *testing.B) {
	for _, bl := range benchLangs {
		b.Run(bl.name, func(b *testing.B) {
			flow, _, _ := newFlowFixture(b)
			r, err := flow.Next(context.Background(), argsCall(b, withLang(appsMeta(), bl.accept), "alice", "signup", nil))
			require.NoError(b, err)
			req := argsCall(b, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(b, r),
				"email": "nope", "plan": "gold"})
			b.ReportAllocs()
			for b.Loop() {
				r, err := flow.Next(context.Background(), req)
				if err != nil || r.Status != FlowAsk || len(r.Problems) == 0 {
					b.Fatal(err, r.Status)
				}
			}
		})
	}
}

// TestUntranslatedMarked: in a view in French, the author's words that
// Translate left in English are marked so (the message, a label's title
// before "(facultatif)", a description, an option), and the translated
// ones are not; in English nothing is marked.
func TestUntranslatedMarked(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	fr := map[string]string{"Email": "Adresse e-mail", "Pro": "Pro", "Where we send receipts": "Où nous envoyons vos reçus",
		"New password": "Nouveau mot de passe"}
	tr := func(_ language.Tag, s string) string { return fr[s] }
	flow, err := NewFlow(codec, []Step{{Key: "account", Message: "Create your account", Fields: []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true, Description: "Where we send receipts"},
		{Name: "full_name", Label: "Full name", Description: "How we greet you."},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro", Label: "Pro"}, {Value: "free"}}},
	}}}, &FlowOptions{EveryCallerIsSamePerson: true, Translate: tr})
	require.NoError(t, err)
	view := func(accept string) string {
		req := directCall(t, appsMeta(), "", "signup", nil)
		if accept != "" {
			req = spanish(req, accept)
		}
		r, err := flow.Next(context.Background(), req)
		require.NoError(t, err)
		b, err := json.Marshal(r.Result.StructuredContent)
		require.NoError(t, err)
		return string(b)
	}
	french := view("fr")
	for _, want := range []string{
		`{"type":"Heading","cssClass":"mcpform-part-in-en","content":"Create your account","level":1}`,
		`"cssClass":"mcpform-part-label-0-9-en"`,
		`{"type":"FieldDescription","cssClass":"mcpform-part-in-en","content":"How we greet you."}`,
		`"cssClass":"mcpform-part-label-0-4-en mcpform-part-option-1-en"`,
		`{"type":"FieldDescription","content":"Où nous envoyons vos reçus"}`,
	} {
		assert.Contains(t, french, want)
	}
	assert.NotContains(t, french, "mcpform-part-option-0", "the translated option")
	assert.Equal(t, 5, strings.Count(french, "mcpform-part-"), "nothing translated is marked: %s", french)
	assert.NotContains(t, view(""), "mcpform-part-", "English is the author's language")
}

// TestProblemWordsOnEveryPath: one problem is one sentence, which names
// the field and says how to fix it, worded the same in a native re-ask,
// a view's summary and inline error, and on the secret page, in each
// language; the terminal demo prints the native re-ask
// (examples/signup's TestDemoProblemWords). A whole number out of its
// bounds is told its bounds, never to enter a whole number.
func TestProblemWordsOnEveryPath(t *testing.T) {
	fields := []AutoFormField{
		{Name: "seats", Label: "Seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50), Required: true},
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "team", Label: "Team name", Min: Bound(2), Max: Bound(100)},
		{Name: "plan", Label: "Plan", Options: []Option{{Value: "free"}, {Value: "team"}}, Required: true},
	}
	c, err := compile(fields, nil)
	require.NoError(t, err)
	cases := []struct {
		name    string
		content map[string]any
		want    [catalog.NumLangs]string // the sentence, by language; "" to check the paths agree only
	}{
		{"whole number below its bounds", map[string]any{"seats": 1.0}, [catalog.NumLangs]string{
			"Seats must be from 2 to 50.", "Seats: escribe un valor de 2 a 50.", "Seats\u00a0: saisissez une valeur de 2 à 50.",
			"Seats: Geben Sie einen Wert von 2 bis 50 ein.", "Seatsには2～50の値を入力してください。"}},
		{"whole number above its bounds", map[string]any{"seats": 51.0}, [catalog.NumLangs]string{"Seats must be from 2 to 50."}},
		{"not a whole number", map[string]any{"seats": 2.5}, [catalog.NumLangs]string{
			"Seats must be a whole number.", "Seats: escribe un número entero.", "Seats\u00a0: saisissez un nombre entier.",
			"Seats: Geben Sie eine ganze Zahl ein.", "Seatsには整数を入力してください。"}},
		{"not a number", map[string]any{"seats": "many"}, [catalog.NumLangs]string{"Seats must be a whole number."}},
		{"email", map[string]any{"email": "ada"}, [catalog.NumLangs]string{"Email must be an email address, like name@example.com."}},
		{"too short", map[string]any{"team": "A"}, [catalog.NumLangs]string{"Team name must be 2 to 100 characters."}},
		{"not an option", map[string]any{"plan": "gold"}, [catalog.NumLangs]string{"Choose one of the options for Plan."}},
		{"missing", map[string]any{}, [catalog.NumLangs]string{"Enter a value for Seats."}},
	}
	for _, tt := range cases {
		content := map[string]any{"seats": 3.0, "email": "ada@example.com", "plan": "free"}
		for k, v := range tt.content {
			content[k] = v
		}
		if tt.name == "missing" {
			delete(content, "seats")
		}
		_, problems := checkContent(content, fields)
		require.Len(t, problems, 1, tt.name)
		for l := range catalog.NumLangs {
			t.Run(tt.name+"/"+l.Code(), func(t *testing.T) {
				native := problemMessage(l, nil, fields, problems)
				said, atField, _ := c.problemTexts(problems, viewTexts[l])
				require.Len(t, said, 1)
				view := l.Format(catalog.Sentence, "text", said[0].Text)
				assert.Equal(t, problems[0].Field, said[0].Field, "the summary links to its field")
				assert.Equal(t, said[0].Text, atField[problems[0].Field], "the inline error says what the summary says")
				assert.Equal(t, native, view, "native and view")
				if tt.want[l] != "" {
					assert.Equal(t, tt.want[l], native)
				}
				for _, jargon := range []string{"minimum", "maximum", "URI", "RFC", "integer", "mínimo", "Minimum", "最小値"} {
					assert.NotContains(t, native, jargon)
				}
				if tt.name == "whole number below its bounds" {
					assert.NotContains(t, native, viewTexts[l].Whole[len("{label}"):], "a whole number is not told to be one")
				}
			})
		}
	}
}

// TestProblemWordsOnThePage: the secret page says a secret's problem as a
// re-ask and a view say it.
func TestProblemWordsOnThePage(t *testing.T) {
	fx := newSecretFixture(t, nil)
	step := &fx.flow.steps[0]
	f := &step.c.secrets[0]
	for _, tt := range []struct {
		name  string
		value string
	}{{"too short", "kurz"}, {"missing", ""}} {
		content := map[string]any{f.Name: tt.value}
		if tt.value == "" {
			content = map[string]any{}
		}
		_, problems := checkContent(content, step.c.secrets)
		require.Len(t, problems, 1)
		for l := range catalog.NumLangs {
			t.Run(tt.name+"/"+l.Code(), func(t *testing.T) {
				_, page, _ := readSecrets(l, step, url.Values{f.Name: {tt.value}})
				assert.Equal(t, problemMessage(l, nil, step.c.secrets, problems), page[f.Name])
			})
		}
	}
}

// TestAuthorLanguage: an author who writes in German, and says so with
// FlowOptions.Language, has their untranslated words marked German in a
// view of any other language, English included; a round in German shows
// their words as written, marks nothing, and never asks Translate. A tag
// with a region marks by it and is spoken by its base's rounds; a
// language mcpform does not speak is marked in every round. A lone
// form's FormOptions.Language and a step's Form's do the same.
func TestAuthorLanguage(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	words := map[language.Tag]map[string]string{
		language.English: {"E-Mail": "Email", "Tarif": "Plan"},
		language.French:  {"Konto anlegen": "Créez votre compte", "Tarif": "Formule"},
	}
	var asked []string // the languages Translate was asked for
	tr := func(lang language.Tag, s string) string {
		asked = append(asked, lang.String())
		return words[lang][s]
	}
	fields := []AutoFormField{
		{Name: "email", Label: "E-Mail", Type: TypeEmail, Required: true},
		{Name: "full_name", Label: "Name", Description: "Wie wir Sie begrüßen."},
		{Name: "plan", Label: "Tarif", Required: true, Options: []Option{{Value: "pro", Label: "Profi"}, {Value: "free", Label: "Kostenlos"}}},
	}
	german := language.German
	form, err := NewForm[map[string]any](fields, &FormOptions{Message: "Konto anlegen", Translate: tr, Language: german})
	require.NoError(t, err)
	flows := map[string]func(author language.Tag) *Flow{
		"FlowOptions.Language": func(author language.Tag) *Flow {
			flow, err := NewFlow(codec, []Step{{Key: "account", Message: "Konto anlegen", Fields: fields}},
				&FlowOptions{EveryCallerIsSamePerson: true, Translate: tr, Language: author})
			require.NoError(t, err)
			return flow
		},
		"the step's FormOptions.Language": func(author language.Tag) *Flow {
			require.Equal(t, german, author)
			flow, err := NewFlow(codec, []Step{{Form: form}}, &FlowOptions{EveryCallerIsSamePerson: true})
			require.NoError(t, err)
			return flow
		},
	}
	for _, tt := range []struct {
		name, accept string
		author       language.Tag
		marks        []string // every mark of the view, in order
		not          string   // a language Translate is never asked for
	}{
		{"English", "", german, []string{"in-de", "label-0-4-de", "in-de", "option-0-de", "option-1-de"}, ""},
		{"German", "de-DE", german, nil, "de"},
		{"French", "fr", german, []string{"label-0-6-de", "label-0-4-de", "in-de", "option-0-de", "option-1-de"}, ""},
		{"French of a Swiss author", "fr", language.MustParse("de-CH"),
			[]string{"label-0-6-de-CH", "label-0-4-de-CH", "in-de-CH", "option-0-de-CH", "option-1-de-CH"}, ""},
		{"German of a Swiss author", "de", language.MustParse("de-CH"), nil, "de"},
		{"German of a Dutch author", "de", language.Dutch,
			[]string{"in-nl", "label-0-6-nl", "label-0-4-nl", "in-nl", "label-0-5-nl", "option-0-nl", "option-1-nl"}, ""},
		{"English of an English author", "", language.English, nil, ""},
	} {
		for name, flowOf := range flows {
			if name != "FlowOptions.Language" && tt.author != german {
				continue
			}
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				flow := flowOf(tt.author)
				asked = nil
				r, err := flow.Next(context.Background(), directCall(t, withLang(appsMeta(), tt.accept), "", "signup", nil))
				require.NoError(t, err)
				b, err := json.Marshal(r.Result.StructuredContent)
				require.NoError(t, err)
				view := string(b)
				var marks []string
				for _, m := range regexp.MustCompile(`mcpform-part-([^" ]+)`).FindAllStringSubmatch(view, -1) {
					marks = append(marks, m[1])
				}
				assert.Equal(t, tt.marks, marks, "%s", view)
				if tt.not != "" {
					assert.NotContains(t, asked, tt.not, "Translate is not asked for the author's language")
					assert.Contains(t, view, `"content":"Konto anlegen"`, "the message as written")
					assert.Contains(t, view, `"label":"E-Mail"`)
				}
			})
		}
	}
}

// TestSecretPageTitleInOneLanguage: a title cannot mark a part in another
// language, so the secret page's title, with a problem's "Error: " before
// the heading, is said wholly in one language: the page's, when the
// heading is translated or is the author's language; else the author's,
// with its lang, and with "Error: " in it when mcpform speaks it. The
// heading keeps its own lang.
func TestSecretPageTitleInOneLanguage(t *testing.T) {
	french := map[string]string{"Set your password": "Définissez votre mot de passe", "Passwort festlegen": "Définissez votre mot de passe"}
	for _, tt := range []struct {
		name, heading, accept string
		author                language.Tag
		title, h1             string
	}{
		{"English words on a German page", "Set your password", "de", language.Tag{},
			`<title lang="en">Error: Set your password</title>`, `<h1 lang="en">Set your password</h1>`},
		{"German words on an English page", "Passwort festlegen", "", language.German,
			`<title lang="de">Fehler: Passwort festlegen</title>`, `<h1 lang="de">Passwort festlegen</h1>`},
		{"German words on a Japanese page", "Passwort festlegen", "ja", language.German,
			`<title lang="de">Fehler: Passwort festlegen</title>`, `<h1 lang="de">Passwort festlegen</h1>`},
		{"Dutch words on a German page", "Wachtwoord instellen", "de", language.Dutch,
			`<title lang="nl">Wachtwoord instellen</title>`, `<h1 lang="nl">Wachtwoord instellen</h1>`},
		{"German words on a German page", "Passwort festlegen", "de-AT", language.German,
			`<title>Fehler: Passwort festlegen</title>`, `<h1>Passwort festlegen</h1>`},
		{"translated words", "Passwort festlegen", "fr", language.German,
			"<title>Erreur\u00a0: Définissez votre mot de passe</title>", `<h1>Définissez votre mot de passe</h1>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			step := passwordStep
			step.Message = tt.heading
			body := refusedPage(t, []Step{step}, FlowOptions{Language: tt.author, Translate: func(l language.Tag, s string) string {
				if l == language.French {
					return french[s]
				}
				return ""
			}}, "short", tt.accept)
			assert.Contains(t, body, tt.title)
			assert.Contains(t, body, tt.h1)
		})
	}
}

// markedWords lists the words a view's JSON marks as in another language
// than its own, as its script reads the marks: "Type: words @lang", for
// an element marked wholly (its content, or a button's label) and each
// span marked in its text, at UTF-16 offsets; a field's label and
// options, marked on the Field, are left to TestAuthorLanguage.
func markedWords(t *testing.T, view any) []string {
	t.Helper()
	var walk func(v any)
	var out []string
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			class, _ := v["cssClass"].(string)
			text, _ := v["content"].(string)
			if text == "" {
				text, _ = v["label"].(string)
			}
			for _, c := range strings.Fields(class) {
				rest, ok := strings.CutPrefix(c, "mcpform-part-")
				if !ok {
					continue
				}
				kind, rest, _ := strings.Cut(rest, "-")
				switch kind {
				case "in":
					out = append(out, fmt.Sprintf("%s: %s @%s", v["type"], text, rest))
				case "span":
					var at, n int
					var lang string
					_, err := fmt.Sscanf(strings.Replace(strings.Replace(rest, "-", " ", 2), "-", "_", -1), "%d %d %s", &at, &n, &lang)
					require.NoError(t, err, c)
					units := utf16.Encode([]rune(text))
					require.LessOrEqual(t, at+n, len(units), "%s in %q", c, text)
					out = append(out, fmt.Sprintf("%s: %s @%s", v["type"], string(utf16.Decode(units[at:at+n])), strings.ReplaceAll(lang, "_", "-")))
				}
			}
			for _, e := range v {
				walk(e)
			}
		}
	}
	b, err := json.Marshal(view)
	require.NoError(t, err)
	var tree any
	require.NoError(t, json.Unmarshal(b, &tree))
	walk(tree)
	return out
}

// TestAuthorWordsAmidTheView: the words a view or page says in the
// person's language may hold the author's, left untranslated; each of
// those is marked in the author's language, and nothing else is. A
// problem's sentence names a field's title (the error summary's link, the
// inline error), the submit of a step that commits says FlowOptions.Commit,
// a step's own Submit, and the check round names each step's message (its
// heading, its Change button) and each answer's title and option. In the
// author's own language nothing is marked.
func TestAuthorWordsAmidTheView(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	french := map[string]string{"E-Mail": "Adresse e-mail", "Weiter zum Tarif": "Vers la formule"}
	tr := func(l language.Tag, s string) string {
		if l == language.French {
			return french[s]
		}
		return ""
	}
	fields := []AutoFormField{
		{Name: "email", Label: "E-Mail", Type: TypeEmail, Required: true},
		{Name: "seats", Label: "Plätze", Type: TypeInteger, Min: Bound(2), Max: Bound(50), Required: true},
		{Name: "plan", Label: "Tarif", Required: true, Options: []Option{{Value: "pro", Label: "Profi"}, {Value: "free", Label: "Kostenlos"}}},
	}
	newFlow := func(check bool, submit string) *Flow {
		flow, err := NewFlow(codec, []Step{{Key: "account", Message: "Ihr Konto", Fields: fields, Submit: submit}},
			&FlowOptions{EveryCallerIsSamePerson: true, Translate: tr, Language: language.German, Commit: "Konto anlegen", CheckAnswers: check})
		require.NoError(t, err)
		return flow
	}
	ctx := context.Background()
	// rounds asks the flow's step in accept, answers it with seats 1, then
	// with valid answers, and returns the three views' marks.
	rounds := func(t *testing.T, flow *Flow, accept string) (first, reask, next []string) {
		r, err := flow.Next(ctx, argsCall(t, withLang(appsMeta(), accept), "alice", "signup", nil))
		require.NoError(t, err)
		first = markedWords(t, r.Result.StructuredContent)
		answers := map[string]any{"email": "ada@example.com", "seats": 1, "plan": "pro", StateArgument: carried(t, r)}
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", answers))
		require.NoError(t, err)
		require.Equal(t, FlowAsk, r.Status)
		require.Len(t, r.Problems, 1)
		reask = markedWords(t, r.Result.StructuredContent)
		answers["seats"], answers[StateArgument] = 3, carried(t, r)
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", answers))
		require.NoError(t, err)
		if r.Status == FlowAsk {
			require.Equal(t, CheckStep, r.Step)
			next = markedWords(t, r.Result.StructuredContent)
		}
		return first, reask, next
	}
	heading := "Heading: Ihr Konto @de"
	t.Run("a problem names a title", func(t *testing.T) {
		_, reask, _ := rounds(t, newFlow(false, ""), "fr")
		assert.Equal(t, []string{"Link: Plätze @de", heading, "Text: Plätze @de", "Button: Konto anlegen @de"}, reask,
			"the summary's link, the inline error, and the submit that commits")
	})
	t.Run("the submit that commits", func(t *testing.T) {
		first, _, _ := rounds(t, newFlow(false, ""), "fr")
		assert.Equal(t, []string{heading, "Button: Konto anlegen @de"}, first)
	})
	t.Run("a step's own submit", func(t *testing.T) {
		first, _, _ := rounds(t, newFlow(false, "Weiter"), "fr")
		assert.Equal(t, []string{heading, "Button: Weiter @de"}, first)
		first, _, _ = rounds(t, newFlow(false, "Weiter zum Tarif"), "fr")
		assert.Equal(t, []string{heading}, first, "translated")
		r, err := newFlow(false, "Weiter zum Tarif").Next(ctx, argsCall(t, withLang(appsMeta(), "fr"), "alice", "signup", nil))
		require.NoError(t, err)
		assert.Contains(t, wireJSON(t, r.Result.StructuredContent), `"label":"Vers la formule"`)
	})
	t.Run("the check round", func(t *testing.T) {
		first, reask, check := rounds(t, newFlow(true, ""), "fr")
		assert.Equal(t, []string{heading}, first, "a step the check round follows continues")
		assert.Equal(t, []string{"Link: Plätze @de", heading, "Text: Plätze @de"}, reask)
		assert.Equal(t, []string{"Heading: Ihr Konto @de", "Text: Plätze @de", "Text: Tarif @de", "Text: Profi @de",
			"Button: Ihr Konto @de", "Button: Konto anlegen @de"}, check, "the step's heading, titles, option, Change, and the commit")
	})
	t.Run("English amid Japanese", func(t *testing.T) {
		flow, err := NewFlow(codec, []Step{{Key: "account", Message: "Your account", Fields: []AutoFormField{
			{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
			{Name: "seats", Label: "Seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50), Required: true},
			{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "free"}}},
		}}}, &FlowOptions{EveryCallerIsSamePerson: true, Commit: "Create account", CheckAnswers: true})
		require.NoError(t, err)
		_, reask, check := rounds(t, flow, "ja")
		assert.Equal(t, []string{"Link: Seats @en", "Heading: Your account @en", "Text: Seats @en"}, reask)
		assert.Equal(t, []string{"Heading: Your account @en", "Text: Email @en", "Text: Seats @en", "Text: Plan @en", "Text: pro @en",
			"Button: Your account @en", "Button: Create account @en"}, check)
	})
	t.Run("a Check's reasons", func(t *testing.T) {
		flow, err := NewFlow(codec, []Step{{Key: "account", Message: "Ihr Konto", Fields: fields,
			Check: func(a Answers) []*FieldError {
				return []*FieldError{{Field: "plan", Err: errorString("nicht für Teams")}, {Err: errorString("E-Mail schon vergeben")},
					{Field: "seats", Err: errorString("zu viele")}}
			}}}, &FlowOptions{EveryCallerIsSamePerson: true, Language: language.German,
			Translate: func(l language.Tag, s string) string {
				return map[string]string{"zu viele": "trop nombreux"}[s]
			}})
		require.NoError(t, err)
		r, err := flow.Next(ctx, argsCall(t, withLang(appsMeta(), "fr"), "alice", "signup", nil))
		require.NoError(t, err)
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{"email": "ada@example.com", "seats": 3,
			"plan": "pro", StateArgument: carried(t, r)}))
		require.NoError(t, err)
		require.Len(t, r.Problems, 3)
		view := wireJSON(t, r.Result.StructuredContent)
		assert.Contains(t, view, "Vérifiez Plätze\u00a0: trop nombreux", "a translated reason")
		assert.Equal(t, []string{"Link: Tarif @de", "Link: nicht für Teams @de", "Text: E-Mail schon vergeben @de", "Link: Plätze @de",
			"Heading: Ihr Konto @de", "Text: Plätze @de", "Text: Tarif @de", "Text: nicht für Teams @de"}, markedWords(t, r.Result.StructuredContent),
			"the summary and the inline errors: the titles, and the reasons left untranslated")
	})
	t.Run("a Check's reasons in English", func(t *testing.T) {
		flow, err := NewFlow(codec, []Step{{Key: "account", Message: "Ihr Konto", Fields: fields,
			Check: func(a Answers) []*FieldError {
				return []*FieldError{{Field: "plan", Err: errorString("nicht für Teams")}, {Field: "seats", Err: errorString("zu viele")}}
			}}}, &FlowOptions{EveryCallerIsSamePerson: true, Language: language.German,
			Translate: func(l language.Tag, s string) string {
				return map[string]string{"zu viele": "too many", "Plätze": "Seats"}[s]
			}})
		require.NoError(t, err)
		r, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
		require.NoError(t, err)
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{"email": "ada@example.com", "seats": 3,
			"plan": "pro", StateArgument: carried(t, r)}))
		require.NoError(t, err)
		require.Len(t, r.Problems, 2)
		assert.Contains(t, wireJSON(t, r.Result.StructuredContent), `"content":"Check Seats: too many"`, "a translated reason")
		assert.Equal(t, []string{"Link: Tarif @de", "Link: nicht für Teams @de", "Heading: Ihr Konto @de", "Text: Tarif @de",
			"Text: nicht für Teams @de"}, markedWords(t, r.Result.StructuredContent))
	})
	t.Run("the author's language", func(t *testing.T) {
		for _, check := range []bool{false, true} {
			first, reask, next := rounds(t, newFlow(check, "Weiter"), "de")
			assert.Empty(t, append(append(first, reask...), next...))
		}
	})
}

// TestAuthorWordsAmidThePage: on the secret page, a problem's sentence in
// the page's language names the field's label in the author's words,
// left untranslated, in a span of the author's lang; in the author's own
// language, or where the label is translated, nothing is marked.
func TestAuthorWordsAmidThePage(t *testing.T) {
	for _, tt := range []struct {
		name, accept string
		translate    map[string]string
		problem      string
	}{
		{"French", "fr", nil,
			`<div class="problem" id="f-0-problem" role="alert"><span lang="en">New password</span>` + "\u00a0: saisissez de 8 à 64 caractères.</div>"},
		{"Japanese", "ja", nil,
			`<div class="problem" id="f-0-problem" role="alert"><span lang="en">New password</span>は8～64文字で入力してください。</div>`},
		{"translated", "fr", map[string]string{"New password": "Nouveau mot de passe"},
			`<div class="problem" id="f-0-problem" role="alert">Nouveau mot de passe` + "\u00a0: saisissez de 8 à 64 caractères.</div>"},
		{"English", "", nil, `<div class="problem" id="f-0-problem" role="alert">New password must be 8 to 64 characters.</div>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := refusedPage(t, []Step{passwordStep}, FlowOptions{Translate: func(_ language.Tag, s string) string { return tt.translate[s] }},
				"short", tt.accept)
			assert.Contains(t, body, tt.problem)
		})
	}
}

// TestAuthorWordsAmidThePageCheck: on the secret page, a Check's reasons
// are the author's words, shown as written: in a span of the author's
// lang on a page in another language, unmarked on a page in theirs; the
// page's English where the Check gave no reason is marked English.
func TestAuthorWordsAmidThePageCheck(t *testing.T) {
	for _, tt := range []struct {
		name, accept string
		reason       error
		problem      string
	}{
		{"French", "fr", errorString("zu einfach"), `role="alert"><span lang="de">Zu einfach</span></div>`},
		{"German", "de", errorString("zu einfach"), `role="alert">Zu einfach</div>`},
		{"no reason", "fr", nil, `role="alert"><span lang="en">This is not accepted.</span></div>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := refusedPage(t, []Step{{Key: "password", Message: "Passwort festlegen", Fields: []AutoFormField{
				{Name: "password", Label: "Neues Passwort", Type: TypePassword, Required: true}},
				Check: func(Answers) []*FieldError { return []*FieldError{{Field: "password", Err: tt.reason}} }}},
				FlowOptions{Language: language.German}, "anything at all", tt.accept)
			assert.Contains(t, body, tt.problem)
		})
	}
}

// refusedPage serves the secret page of a flow of steps with opts, given
// a principal, a page and a store of secrets, opens the first round's
// link in a browser, and returns the page that refuses the post of
// password in accept's language.
func refusedPage(t *testing.T, steps []Step, opts FlowOptions, password, accept string) string {
	t.Helper()
	_, codec, _ := newFlowFixture(t)
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	opts.Principal = tokenUser
	opts.Secrets = &SecretOptions{PageURL: srv.URL + "/secret", Store: NewMemorySecretStore()}
	flow, err := NewFlow(codec, steps, &opts)
	require.NoError(t, err)
	handler, err = flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	b := newBrowser(t)
	status, _ := b.get(t, link)
	require.Equal(t, http.StatusOK, status)
	status, body := b.post(t, link, url.Values{"password": {password}}, http.Header{"Accept-Language": {accept}})
	require.Equal(t, http.StatusUnprocessableEntity, status, body)
	return body
}

// TestAuthorWordsAmidTheWaitingPage: a view's problem that its secret
// page is still waiting names the secrets' titles, each the author's
// words left untranslated marked in the author's language.
func TestAuthorWordsAmidTheWaitingPage(t *testing.T) {
	secrets := []prefab.Field{{Name: "password", Title: "New password", TitleLang: "en"}, {Name: "pin", Title: "Code PIN"},
		{Name: "key", Title: "Recovery key", TitleLang: "en"}}
	for l := range catalog.NumLangs {
		t.Run(l.Code(), func(t *testing.T) {
			v := viewTexts[l]
			text, parts := v.fixParts(nil, &FieldError{Err: ErrSecretWaiting}, secrets, nil)
			assert.Equal(t, v.fix(nil, &FieldError{Err: ErrSecretWaiting}, secrets), text, "the words are fix's")
			var marked []string
			for _, p := range parts {
				marked = append(marked, text[p.At:p.At+p.Len]+" @"+p.Lang)
			}
			assert.Equal(t, []string{"New password @en", "Recovery key @en"}, marked)
		})
	}
}
