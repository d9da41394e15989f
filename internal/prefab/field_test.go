package prefab

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// english is the view text the tests use: the words that matter here.
var english = &Text{Optional: "{label} (optional)", ProblemTitle: "There is a problem", ErrorPrefix: "Error: ",
	Between: "From {min} to {max}", AtLeast: "{min} or more", AtMost: "{max} or less",
	CharsBetween: "{min} to {max} characters", CharsAtLeast: "At least {min} characters", CharsAtMost: "Up to {max} characters",
	PickBetween: "Choose {min} to {max}", PickAtLeast: "Choose at least {min}", PickAtMost: "Choose up to {max}"}

func bound(v float64) *float64 { return &v }

// TestFieldBounds: a field says its bounds under its label, and carries
// them to its control as the attributes a browser enforces.
func TestFieldBounds(t *testing.T) {
	for _, tt := range []struct {
		f           Field
		hint, attrs string
	}{
		{Field{Name: "seats", Kind: KindInteger, Min: bound(2), Max: bound(50)}, "From 2 to 50", " mcpform-attr-min=2 mcpform-attr-max=50"},
		{Field{Name: "ratio", Kind: KindNumber, Max: bound(0.25)}, "0.25 or less", " mcpform-attr-max=0.25"},
		{Field{Name: "name", Max: bound(100)}, "Up to 100 characters", " mcpform-attr-maxlength=100"},
		{Field{Name: "code", Min: bound(4)}, "At least 4 characters", " mcpform-attr-minlength=4"},
		{Field{Name: "tags", Kind: KindChoices, Min: bound(1), Max: bound(2), Options: []Option{{Value: "a"}}}, "Choose 1 to 2", ""},
		{Field{Name: "level", Kind: KindRange, Min: bound(0), Max: bound(1)}, "From 0 to 1", ""},
		{Field{Name: "plain"}, "", ""},
	} {
		t.Run(tt.f.Name, func(t *testing.T) {
			assert.Equal(t, tt.hint, Hint(&tt.f, english))
			assert.Equal(t, tt.attrs, attrClasses(&tt.f))
		})
	}
}

// TestFieldNode: a field not required says so in its label, a checkbox
// never does, and its description, bounds and problem follow the control.
func TestFieldNode(t *testing.T) {
	f := Field{Name: "seats", Title: "Seats", Kind: KindInteger, InputType: "number", Description: "How many.", Min: bound(2)}
	n, err := fieldNode(&f, "Seats must be 2 or more", english)
	assert.NoError(t, err)
	assert.Equal(t, "Field", n.Type)
	assert.Equal(t, "mcpform-attr-min=2", n.CSSClass)
	var got []string
	for _, c := range n.Children {
		got = append(got, c.Type+": "+c.Label+c.Content)
	}
	assert.Equal(t, []string{"Input: Seats (optional)", "FieldDescription: How many.", "FieldDescription: 2 or more", "Span: "}, got)
	// The problem, as GOV.UK's inline error: "Error:" hidden from the eye.
	problem := n.Children[3]
	assert.Equal(t, &Node{Type: "Span", CSSClass: "pf-field-error", Children: []*Node{
		{Type: "Span", CSSClass: HiddenClass, Children: []*Node{{Type: "Text", Content: "Error: "}}},
		{Type: "Text", Content: "Seats must be 2 or more"},
	}}, problem)

	box, err := fieldNode(&Field{Name: "news", Title: "News", Kind: KindCheckbox}, "", english)
	assert.NoError(t, err)
	assert.Equal(t, "News", box.Children[0].Label)
	assert.Len(t, box.Children, 1)
}

// TestSummary: the error summary is titled by an h2, below no h5, and
// each problem of a field links to that field's control, by the id the
// renderer or the viewer's script gives it.
func TestSummary(t *testing.T) {
	fields := []Field{
		{Name: "seats", Title: "Seats", Kind: KindInteger, InputType: "number"},
		{Name: "plan", Title: "Plan", Kind: KindChoice},
		{Name: "news", Title: "News", Kind: KindCheckbox},
		{Name: "level", Title: "Level", Kind: KindRange},
	}
	n := summaryNode([]Said{
		{Field: "seats", Text: "Seats must be from 2 to 50"},
		{Field: "plan", Text: "Choose an option for Plan"},
		{Field: "news", Text: "Check News: x"},
		{Field: "level", Text: "Level must be a number"},
		{Text: "The page's link was used in another browser"},
	}, fields, english)
	assert.Equal(t, "Alert", n.Type)
	assert.Equal(t, SummaryClass, n.CSSClass)
	assert.Equal(t, &Node{Type: "Heading", Content: "There is a problem", Level: 2, CSSClass: "pf-alert-title"}, n.Children[0])
	var got []string
	for _, c := range n.Children[1:] {
		l := c.Children[0]
		got = append(got, l.Type+" "+l.Href+" "+l.Content)
	}
	assert.Equal(t, []string{
		"Link #pf-input-seats Seats must be from 2 to 50",
		"Link #pf-select-plan Choose an option for Plan",
		"Link #pf-checkbox-news Check News: x",
		"Link #pf-input-level Level must be a number",
		"Text  The page's link was used in another browser",
	}, got)
	box, err := stepControl(&fields[2], english)
	assert.NoError(t, err)
	assert.Equal(t, "pf-checkbox-news", box.ID, "a checkbox's label takes the id its link names")
}

// TestControlDefault: a default JSON cannot hold is the field's error.
func TestControlDefault(t *testing.T) {
	_, err := Control(&Field{Name: "f", Default: func() {}})
	var de *DefaultError
	assert.True(t, errors.As(err, &de))
	assert.Equal(t, "f", de.Field)
}

// TestLangParts: the classes that mark author text in another language
// point, in UTF-16 code units as JavaScript counts them, at that text: a
// label's title, and each title a secret step's text names amid the
// view's own words, a Japanese one among them.
func TestLangParts(t *testing.T) {
	f := &Field{Name: "n", Title: "Größe ☃", TitleLang: "en", Options: []Option{{Value: "a"}, {Value: "b", Lang: "en"}}}
	assert.Equal(t, " mcpform-part-label-0-7-en mcpform-part-option-1-en", langClasses(f))
	assert.Empty(t, langClasses(&Field{Name: "n", Title: "Nom"}))

	utf16Of := func(s string) []uint16 { return utf16.Encode([]rune(s)) }
	for _, tt := range []struct{ template, sep string }{
		{"Ouvrez la page et saisissez-y ce qui vous est demandé\u00a0: {fields}. Ce que vous y saisissez…", ", "},
		{"ページを開いて、{fields}を入力してください。", "、"},
	} {
		text := &Text{PageStep: tt.template, ListSep: tt.sep}
		secrets := []Field{{Title: "New password 🔑", TitleLang: "en"}, {Title: "Code PIN"}, {Title: "Recovery key", TitleLang: "en"}}
		steps := pageSteps(&Page{URL: "https://x.example/", Secrets: secrets}, false, text)
		content, classes := utf16Of(steps[0].Content), strings.Fields(steps[0].CSSClass)
		require.Len(t, classes, 2, "the two English titles")
		for i, c := range classes {
			var at, n int
			_, err := fmt.Sscanf(strings.TrimPrefix(c, LangPartClass+"span-"), "%d-%d-en", &at, &n)
			require.NoError(t, err, c)
			assert.Equal(t, []string{"New password 🔑", "Recovery key"}[i], string(utf16.Decode(content[at:at+n])))
		}
	}
}

// TestOptionalLabel: "(optional)" is each language's template of the
// label, so that Japanese puts its full-width brackets right after the
// label, with no space between.
func TestOptionalLabel(t *testing.T) {
	for _, tt := range []struct{ optional, want string }{
		{"{label} (optional)", "Full name (optional)"},
		{"{label}（任意）", "Full name（任意）"},
	} {
		c, err := stepControl(&Field{Name: "full_name", Title: "Full name"}, &Text{Optional: tt.optional})
		assert.NoError(t, err)
		assert.Equal(t, tt.want, c.Label)
	}
}

// TestPrepare: a view of prepared fields is the view of the same fields
// unprepared, byte for byte, filled or not, with problems or not; fields
// prepared in another language's words are built in the view's; and a
// view of prepared fields builds fewer things.
func TestPrepare(t *testing.T) {
	french := &Text{Lang: "fr", Optional: "{label} (facultatif)", ProblemTitle: "Il y a un problème", ErrorPrefix: "Erreur : ",
		Between: "De {min} à {max}", CharsAtLeast: "Au moins {min} caractères"}
	fields := func() []Field {
		return []Field{
			{Name: "email", Title: "Email", Kind: KindText, InputType: "email", Required: true, Min: bound(3), TitleLang: "en"},
			{Name: "name", Title: "Full name", Description: "How we greet you", Kind: KindText, InputType: "text", DescriptionLang: "en"},
			{Name: "plan", Title: "Plan", Kind: KindChoice, Required: true, Options: []Option{{Value: "pro", Label: "Pro", Lang: "en"}, {Value: "team"}}},
			{Name: "tags", Title: "Tags", Kind: KindChoices, Options: []Option{{Value: "a"}, {Value: "b"}}, Min: bound(1)},
			{Name: "seats", Title: "Seats", Kind: KindInteger, Required: true, Min: bound(2), Max: bound(50), Default: 5.0},
			{Name: "news", Title: "News", Kind: KindCheckbox, Default: true},
		}
	}
	step := func(fields []Field, filled map[string]any, problems bool) *Step {
		s := &Step{Tool: "signup", Message: "Create your account", N: 1, Total: 2, Fields: fields, Filled: filled,
			Rest: []byte(`"team":"x"`), StateKey: "mcpform", State: "s1.abc"}
		if problems {
			s.Reask = true
			s.Summary = []Said{{Field: "email", Text: "Enter an email"}, {Field: "seats", Text: "From 2 to 50"}, {Text: "Try again"}}
			s.Problems = map[string]string{"email": "Enter an email", "seats": "From 2 to 50"}
		}
		return s
	}
	for _, tt := range []struct {
		name     string
		text     *Text
		filled   map[string]any
		problems bool
	}{
		{"first ask", english, nil, false},
		{"filled, with problems", english, map[string]any{"plan": "team", "seats": 7.0}, true},
		{"in French", french, map[string]any{"tags": []string{"a"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := View(step(fields(), tt.filled, tt.problems), tt.text)
			require.NoError(t, err)
			prepared := fields()
			Prepare(prepared, tt.text)
			got, err := View(step(prepared, tt.filled, tt.problems), tt.text)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))

			other := fields()
			Prepare(other, &Text{Optional: "{label} [other]"})
			got, err = View(step(other, tt.filled, tt.problems), tt.text)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "prepared in other words")

			unprepared := fields()
			plain := testing.AllocsPerRun(20, func() { _, _ = View(step(unprepared, tt.filled, tt.problems), tt.text) })
			fast := testing.AllocsPerRun(20, func() { _, _ = View(step(prepared, tt.filled, tt.problems), tt.text) })
			assert.Less(t, fast+float64(len(prepared)), plain, "at least one allocation fewer a field")
		})
	}
}

// TestPartClasses: the classes that mark parts of a text in another
// language point, in UTF-16 code units as JavaScript counts them, at each
// part, past a character outside the BMP; a part that is all of the text
// marks its element; parts out of order or of no language mark nothing.
func TestPartClasses(t *testing.T) {
	text := "🔑 Größe : Groß ☃, Small"
	at := func(s string) int { return strings.Index(text, s) }
	utf16Of := func(s string) []uint16 { return utf16.Encode([]rune(s)) }
	classes := strings.Fields(partClasses(text, []Part{{At: at("Größe"), Len: len("Größe"), Lang: "de"},
		{At: at("Small"), Len: len("Small"), Lang: "en"}, {At: 0, Len: 2, Lang: "fr"}, {At: at("Groß "), Len: 2}}))
	require.Len(t, classes, 2)
	for i, c := range classes {
		var n, off int
		_, err := fmt.Sscanf(strings.TrimPrefix(c, LangPartClass+"span-"), "%d-%d-", &off, &n)
		require.NoError(t, err, c)
		assert.Equal(t, []string{"Größe", "Small"}[i], string(utf16.Decode(utf16Of(text)[off:off+n])))
		assert.True(t, strings.HasSuffix(c, []string{"-de", "-en"}[i]), c)
	}
	assert.Equal(t, LangPartClass+"in-de", partClasses("Tarif", []Part{{At: 0, Len: 5, Lang: "de"}}))
	assert.Empty(t, partClasses(text, nil))
}
