package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func accepted(content map[string]any) mcp.InputResponseMap {
	return mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "accept", Content: content}}
}

func TestInputResponse(t *testing.T) {
	decline := &mcp.ElicitResult{Action: "decline"}
	responses := mcp.InputResponseMap{
		"form": decline,
		// Any response that is not an elicitation result will do; roots
		// is deprecated in 2026-07-28 but still a valid InputResponse.
		"roots": &mcp.ListRootsResult{},
	}
	assert.Same(t, decline, InputResponse(responses, "form"))
	assert.Nil(t, InputResponse(responses, "other"), "unknown key")
	assert.Nil(t, InputResponse(responses, "roots"), "not an elicitation result")
	assert.Nil(t, InputResponse(nil, "form"), "first pass")
}

func TestAcceptedFormInputNotAnswered(t *testing.T) {
	fields := []AutoFormField{{Name: "name"}}
	for _, tt := range []struct {
		name      string
		responses mcp.InputResponseMap
	}{
		{"first pass", nil},
		{"other key", mcp.InputResponseMap{"other": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "x"}}}},
		{"decline", mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "decline", Content: map[string]any{"name": "x"}}}},
		{"cancel", mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "cancel"}}},
		{"unknown action", mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "maybe", Content: map[string]any{"name": "x"}}}},
		{"accept without content", mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "accept"}}},
		{"nil result", mcp.InputResponseMap{"form": (*mcp.ElicitResult)(nil)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := AcceptedFormInput(tt.responses, "form", fields)
			assert.False(t, ok)
			assert.Nil(t, a)
			a, problems := CheckFormInput(tt.responses, "form", fields)
			assert.Nil(t, a)
			assert.Nil(t, problems)
		})
	}
}

// TestCheckFormInput covers the rules the TypeScript acceptedFormInput gets
// wrong (formats, item bounds, lengths in UTF-16 units, integers written
// with a fraction part) next to the ones it gets right.
func TestCheckFormInput(t *testing.T) {
	fields := []AutoFormField{
		{Name: "email", Type: TypeEmail, Required: true},
		{Name: "site", Type: TypeURL},
		{Name: "born", Type: TypeDate},
		{Name: "at", Type: TypeDatetime},
		{Name: "nick", Min: Bound(2), Max: Bound(3)},
		{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
		{Name: "tags", Options: []Option{{Value: "a"}, {Value: "b"}, {Value: "c"}}, Multiple: true, Min: Bound(1), Max: Bound(2)},
		{Name: "plan", Options: []Option{{Value: "free"}, {Value: "pro"}}},
		{Name: "news", Type: TypeCheckbox},
	}
	type problem struct{ field, text string }
	for _, tt := range []struct {
		name     string
		content  map[string]any
		want     Answers // nil: the answer fails as a whole
		problems []problem
	}{
		{
			name:    "all good",
			content: map[string]any{"email": "ada@example.com", "site": "https://example.com", "born": "1815-12-10", "at": "2026-07-28T09:30:00+02:00", "nick": "😀😀😀", "seats": 42.0, "tags": []any{"a", "c"}, "plan": "pro", "news": false},
			want:    Answers{"email": "ada@example.com", "site": "https://example.com", "born": "1815-12-10", "at": "2026-07-28T09:30:00+02:00", "nick": "😀😀😀", "seats": 42.0, "tags": []any{"a", "c"}, "plan": "pro", "news": false},
		},
		{
			name:     "bad email fails the answer",
			content:  map[string]any{"email": "ada at example"},
			problems: []problem{{"email", "invalid value: not a valid email address"}},
		},
		{
			name:     "missing required",
			content:  map[string]any{"plan": "pro"},
			problems: []problem{{"email", "missing required value"}},
		},
		{
			name: "bad optional values are dropped",
			content: map[string]any{
				"email": "ada@example.com", "site": "example.com", "born": "2026-02-30", "at": "2026-07-28 09:30",
				"nick": "😀😀😀😀", "seats": 42.5, "tags": []any{"a", "b", "c"}, "plan": "gold", "news": "on",
			},
			want: Answers{"email": "ada@example.com"},
			problems: []problem{
				{"site", "not a valid absolute URI"},
				{"born", "not a valid date"},
				{"at", "not a valid date-time"},
				{"nick", "longer than 3 characters"},
				{"seats", "not an integer"},
				{"tags", "more than 2 choices"},
				{"plan", "not one of the options"},
				{"news", "not a boolean"},
			},
		},
		{
			name:     "lengths count code points, not UTF-16 units",
			content:  map[string]any{"email": "a@b.co", "nick": "😀😀"},
			want:     Answers{"email": "a@b.co", "nick": "😀😀"},
			problems: nil,
		},
		{
			name:     "too few choices",
			content:  map[string]any{"email": "a@b.co", "tags": []any{}},
			want:     Answers{"email": "a@b.co"},
			problems: []problem{{"tags", "fewer than 1 choices"}},
		},
		{
			name:     "wrong types",
			content:  map[string]any{"email": 42.0, "seats": "42", "tags": "a", "nick": nil},
			problems: []problem{{"email", "not a string"}, {"nick", "not a string"}, {"seats", "not a number"}, {"tags", "not a list"}},
		},
		{
			name:     "unknown and hostile keys",
			content:  map[string]any{"email": "a@b.co", "__proto__": map[string]any{"admin": true}, "": "x", "constructor": "y"},
			want:     Answers{"email": "a@b.co"},
			problems: []problem{{"", "unknown field"}, {"__proto__", "unknown field"}, {"constructor", "unknown field"}},
		},
		{
			name:     "bounds are inclusive",
			content:  map[string]any{"email": "a@b.co", "seats": 50, "nick": "ab"},
			want:     Answers{"email": "a@b.co", "seats": 50, "nick": "ab"},
			problems: nil,
		},
		{
			name:     "out of range",
			content:  map[string]any{"email": "a@b.co", "seats": 0.0},
			want:     Answers{"email": "a@b.co"},
			problems: []problem{{"seats", "less than the minimum 1"}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := CheckFormInput(accepted(tt.content), "form", fields)
			assert.Equal(t, tt.want, got)
			var gotProblems []problem
			for _, p := range problems {
				gotProblems = append(gotProblems, problem{p.Field, p.Err.Error()})
			}
			require.Len(t, gotProblems, len(tt.problems), "problems: %v", gotProblems)
			for i, p := range tt.problems {
				assert.Equal(t, p.field, gotProblems[i].field)
				assert.Contains(t, gotProblems[i].text, p.text)
			}
			a, ok := AcceptedFormInput(accepted(tt.content), "form", fields)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, a)
		})
	}
}

func TestProblemsAreSentinels(t *testing.T) {
	fields := []AutoFormField{{Name: "n", Type: TypeNumber, Required: true}, {Name: "s"}}
	_, problems := CheckFormInput(accepted(map[string]any{"s": 1.0, "x": 1.0}), "form", fields)
	require.Len(t, problems, 3)
	assert.ErrorIs(t, problems[0], ErrMissing)
	assert.ErrorIs(t, problems[1], ErrInvalidValue)
	assert.ErrorIs(t, problems[2], ErrUnknownField)
}

func TestAnswersDecode(t *testing.T) {
	var got struct {
		Email string   `json:"email"`
		Seats int      `json:"seats"`
		Tags  []string `json:"tags"`
		News  bool     `json:"news"`
	}
	a := Answers{"email": "ada@example.com", "seats": 3.0, "tags": []any{"a", "b"}, "news": true}
	require.NoError(t, a.Decode(&got))
	assert.Equal(t, "ada@example.com", got.Email)
	assert.Equal(t, 3, got.Seats)
	assert.Equal(t, []string{"a", "b"}, got.Tags)
	assert.True(t, got.News)

	got.Email = "kept"
	require.NoError(t, Answers(nil).Decode(&got))
	assert.Equal(t, "kept", got.Email)

	var wrong struct {
		Email int `json:"email"`
	}
	assert.Error(t, a.Decode(&wrong))
}

// compileProperty compiles a generated property schema with the reference
// validator, asserting formats as JSON Schema 2020-12 allows.
func compileProperty(t testing.TB, s *jsonschema.Schema) *santhosh.Schema {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	c.AssertFormat()
	require.NoError(t, c.AddResource("mem:///p.json", doc))
	compiled, err := c.Compile("mem:///p.json")
	require.NoError(t, err)
	return compiled
}

// valuePool returns values meant to sit on both sides of every rule the
// fields can have: each type, bounds and their neighbours, option values
// and near misses, lengths in code points against UTF-16 units, and the
// edges of every format.
func valuePool(fields []AutoFormField, rng *rand.Rand) []any {
	pool := []any{
		nil, true, false, 0.0, math.Copysign(0, -1), 1.0, -1.0, 42.0, 42.5, 1e300, -1e300, 1e-300, 0.1, 17.999999, 18.0, 120.0, 120.0000001,
		"", " ", "x", "42", "true", "on", "null", "\x00", "a\u2028b",
		[]any{}, []any{nil}, []any{1.0}, []any{true}, []any{"a", "a"}, []any{[]any{"a"}},
		map[string]any{}, map[string]any{"__proto__": "x"},
	}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 16, 17, 79, 80, 81, 280, 281} {
		pool = append(pool, strings.Repeat("a", n), strings.Repeat("😀", n), strings.Repeat("e\u0301", n), strings.Repeat("名", n))
	}
	pool = append(pool,
		// Email edges.
		"ada@example.com", "ada.lovelace+x@sub.example.co", "a@b", "@example.com", "ada@", "ada@@example.com",
		".ada@example.com", "ada.@example.com", "a..b@example.com", `"quoted here"@example.com`, `"a\"b"@example.com`,
		"ada@[127.0.0.1]", "ada@[IPv6:::1]", "ada@[256.0.0.1]", "ada@[IPv6:zz]", "ada@-example.com", "ada@example-.com",
		"ada@exa_mple.com", "ada@éxample.com", "adé@example.com", strings.Repeat("a", 64)+"@example.com",
		strings.Repeat("a", 65)+"@example.com", "ada@"+strings.Repeat("a", 63)+".com", "ada@"+strings.Repeat("a", 64)+".com",
		"ada@example.com.", "a@[", "a@[]", "ada example@example.com",
		// URI edges.
		"https://example.com", "http://example.com/a?b=c#d", "mailto:ada@example.com", "urn:isbn:0451450523", "example.com",
		"/relative/path", "//example.com", "https://[::1]:8080/", "https://::1/", "https://[zz]/", "http://%zz", "https://exa mple.com",
		"HTTPS://EXAMPLE.COM", "https://example.com/\\path", "a:", "1http://x",
		"http://a:99999999999999", "http://a:", "http://-a-/", "http://a/~!$&'()*+,;=:@/?#x#y", "a+b-c.d://x", "+a://x",
		"http://a:1:2", "http://a?x", "http://a#", "http://a b", "http://a/b c", "http://a/%41", "http://a/%zz", "http://a_b/",
		"http://[::1]", "http://a\x7f/", "http://é.com/", "http:/a", "http:a", "://a",
		// Date and date-time edges.
		"2026-07-28", "2026-02-29", "2024-02-29", "2026-13-01", "2026-7-28", "26-07-28", "2026-07-28 ", "０２０２６-07-28",
		"2026-07-28T09:30:00Z", "2026-07-28t09:30:00z", "2026-07-28T09:30:00.123+02:00", "2026-07-28T09:30:00", "2026-07-28 09:30:00Z",
		"2026-07-28T24:00:00Z", "2026-07-28T23:59:60Z", "2026-07-28T22:59:60-01:00", "2026-07-28T12:59:60Z", "2026-07-28T09:30:00.Z",
		"2026-07-28T09:30:00+2:00", "2026-07-28T09:30:00+24:00", "2026-07-28T+9:30:00Z", "2026-07-28T09:30:00+01:60",
		"2026-07-28T09:30:00+-0:00", "2026-07-28T09:-0:00Z",
		// Control and bidi characters, in text and in a quoted local part.
		"a\tb", "a\nb", "a\r\nb", "a\x1bb", "\u202eabc", "a\u2066b\u2069", "a\u200eb", "a\x7fb",
		"a\u0085b", "Ada\ufffdLovelace", "a\u009bb", "a\u2028b", "a\u2029", "\u200bx", "x\ufeff", "a\u2060b", "\u061cx",
		"x\u200d", "\u200cx", "a \u200db", "a\u200d\u200db", "\U0001F468\u200d\U0001F469", "\u0645\u06cc\u200c\u062e",
		"\"a\r\nBcc: x@evil.test\"@example.com", "\"a\x00b\"@example.com", "\"a\tb\"@example.com", "\"é\"@example.com",
		"\"\u202e\"@example.com", "\"a b!#~\"@example.com", `""@example.com`,
	)
	for i := range fields {
		f := &fields[i]
		pool = append(pool, sample(f))
		for _, o := range f.Options {
			pool = append(pool, o.Value, strings.ToUpper(o.Value), o.Value+" ", []any{o.Value}, []any{o.Value, o.Value})
		}
		if len(f.Options) > 0 {
			all := make([]any, len(f.Options))
			for j, o := range f.Options {
				all[j] = o.Value
			}
			pool = append(pool, all, append(slices.Clone(all), "nope"), all[:len(all)-1])
		}
		for _, b := range []*float64{f.Min, f.Max} {
			if b != nil {
				pool = append(pool, *b, *b-1, *b+1, *b-0.5, *b+0.5, *b-1e-9, *b+1e-9, int(*b), fmt.Sprint(*b))
			}
		}
	}
	// Random strings from an alphabet rich in the characters that decide
	// formats, so the formats' odd corners get visited too.
	const alphabet = "aZ09@.-_:/[]\"\\+% T:tz😀é\x00\n\t\u202e"
	runes := []rune(alphabet)
	for range 300 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		pool = append(pool, b.String())
	}
	for range 100 {
		pool = append(pool, (rng.Float64()-0.5)*float64(rng.IntN(400)), float64(rng.IntN(200)-50))
	}
	// JSON-decode every value, so the pool holds what a client can send.
	b, err := json.Marshal(pool)
	if err != nil {
		panic(err)
	}
	var decoded []any
	if err := json.Unmarshal(b, &decoded); err != nil {
		panic(err)
	}
	return decoded
}

// TestAgreement is the promise of the package: a value is kept exactly when
// the reference validator, asserting formats, accepts it against the
// property schema FormSchema generated; and an answer is accepted exactly
// when every required field survives.
func TestAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	forms := loadForms(t)
	pairs := 0
	var agree agreement
	for _, name := range slices.Sorted(maps.Keys(forms)) {
		fields := forms[name]
		s, err := FormSchema(fields)
		require.NoError(t, err)
		pool := valuePool(fields, rng)
		t.Run(name, func(t *testing.T) {
			for i := range fields {
				f := &fields[i]
				ref := compileProperty(t, s.Properties[f.Name])
				for _, v := range pool {
					pairs++
					refErr := ref.Validate(v)
					_, problems := checkContent(map[string]any{f.Name: v}, []AutoFormField{*f})
					agree.check(t, f, v, len(problems) == 0, refErr)
				}
			}
			// Whole answers: random subsets of fields, values from the
			// pool, and hostile extra keys.
			hostile := []string{"__proto__", "constructor", "", "\x00", "toString", strings.Repeat("k", 1000)}
			for range 300 {
				content := map[string]any{}
				valid := map[string]bool{}
				for i := range fields {
					if rng.IntN(10) < 7 {
						v := pool[rng.IntN(len(pool))]
						if rng.IntN(3) == 0 {
							v = sample(&fields[i])
							b, _ := json.Marshal(v)
							_ = json.Unmarshal(b, &v)
						}
						content[fields[i].Name] = v
						valid[fields[i].Name] = fields[i].checkValue(v) == ""
					}
				}
				if rng.IntN(2) == 0 {
					content[hostile[rng.IntN(len(hostile))]] = pool[rng.IntN(len(pool))]
				}
				wantOK := true
				for _, f := range fields {
					if f.Required && !valid[f.Name] {
						wantOK = false
					}
				}
				a, ok := AcceptedFormInput(accepted(content), "form", fields)
				require.Equal(t, wantOK, ok, "content %#v", content)
				if ok {
					for k, v := range content {
						if valid[k] {
							assert.Equal(t, v, a[k])
						} else {
							assert.NotContains(t, a, k)
						}
					}
				}
			}
		})
	}
	agree.exercised(t)
	t.Logf("%d (field, value) pairs checked against the reference validator", pairs)
	if pairs < 10000 {
		t.Errorf("only %d (field, value) pairs; the suite promises at least 10000", pairs)
	}
}

// fuzzFields has one field of every kind and rule, for FuzzAcceptedFormInput.
var fuzzFields = []AutoFormField{
	{Name: "email", Type: TypeEmail, Required: true},
	{Name: "site", Type: TypeURL},
	{Name: "born", Type: TypeDate},
	{Name: "at", Type: TypeDatetime},
	{Name: "nick", Min: Bound(2), Max: Bound(5)},
	{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
	{Name: "ratio", Type: TypeNumber, Min: Bound(-0.5), Max: Bound(0.5)},
	{Name: "tags", Options: []Option{{Value: "a"}, {Value: "b"}, {Value: "c"}}, Multiple: true, Min: Bound(1), Max: Bound(2)},
	{Name: "plan", Options: []Option{{Value: "free"}, {Value: "pro"}}},
	{Name: "news", Type: TypeCheckbox},
}

// FuzzAcceptedFormInput feeds arbitrary JSON objects as accepted content.
// Nothing may panic, nothing the reference validator rejects may be kept,
// and nothing it accepts may be dropped.
func FuzzAcceptedFormInput(f *testing.F) {
	for _, seed := range []string{
		`{"email":"ada@example.com","seats":3,"tags":["a"],"news":true}`,
		`{"email":"a@[IPv6:::1]","at":"2026-07-28T23:59:60Z","born":"2024-02-29"}`,
		`{"email":"\"x\"@b","site":"https://[::1]/","nick":"😀😀","ratio":0.5}`,
		`{"email":1,"seats":"3","tags":"a","plan":["pro"],"__proto__":{"x":1}}`,
		`{"email":"a@b","seats":42.0,"tags":["a","a"],"nick":"e\u0301e\u0301"}`,
		`{"email":"\"a\r\nBcc: x@evil.test\"@b","nick":"a\u0000\u202e","at":"2026-08-03T+1:00:00Z"}`,
	} {
		f.Add([]byte(seed))
	}
	s, err := FormSchema(fuzzFields)
	require.NoError(f, err)
	refs := map[string]*santhosh.Schema{}
	fields := map[string]*AutoFormField{}
	for i, fd := range fuzzFields {
		refs[fd.Name] = compileProperty(f, s.Properties[fd.Name])
		fields[fd.Name] = &fuzzFields[i]
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		a, problems := CheckFormInput(accepted(content), "form", fuzzFields)
		dropped := map[string]bool{}
		for _, p := range problems {
			if errors.Is(p, ErrInvalidValue) {
				dropped[p.Field] = true
			}
		}
		for name, v := range content {
			ref, ok := refs[name]
			if !ok {
				assert.NotContains(t, a, name, "unknown key kept")
				continue
			}
			refErr := ref.Validate(v)
			if refErr != nil && !dropped[name] {
				t.Errorf("kept %q=%#v, which the reference validator rejects: %v", name, v, refErr)
			}
			if refErr == nil && dropped[name] && declaredStricter(fields[name], v) == "" {
				t.Errorf("dropped %q=%#v, which the reference validator accepts", name, v)
			}
		}
	})
}

// benchAnswer is a valid answer to the signup form in testdata: eight
// fields, one of each common kind.
func benchAnswer(b *testing.B) ([]AutoFormField, mcp.InputResponseMap) {
	fields := loadForms(b)["signup"]
	require.Len(b, fields, 8)
	content := map[string]any{
		"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "team", "seats": 5.0,
		"website": "https://example.com/ada", "start": "2026-07-28", "interests": []any{"ai", "infra"}, "newsletter": true,
	}
	return fields, mcp.InputResponseMap{"signup": &mcp.ElicitResult{Action: "accept", Content: content}}
}

func BenchmarkAcceptedFormInput(b *testing.B) {
	fields, responses := benchAnswer(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := AcceptedFormInput(responses, "signup", fields); !ok {
			b.Fatal("not accepted")
		}
	}
}

// BenchmarkReferenceValidator is the peer AcceptedFormInput is measured
// against: the compiled reference validator judging the same answer.
func BenchmarkReferenceValidator(b *testing.B) {
	fields, responses := benchAnswer(b)
	s, err := FormSchema(fields)
	require.NoError(b, err)
	ref := compileProperty(b, s)
	content := any(responses["signup"].(*mcp.ElicitResult).Content)
	b.ReportAllocs()
	for b.Loop() {
		if err := ref.Validate(content); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormSchema(b *testing.B) {
	fields, _ := benchAnswer(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FormSchema(fields); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormInputRequest(b *testing.B) {
	fields, _ := benchAnswer(b)
	opts := &InputRequestOptions{Key: "signup", Message: "Create your account"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FormInputRequest(fields, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnknownKeysCostNothing shows that junk keys are neither kept nor
// reported one by one: a hundred thousand of them cost a few allocations,
// the same as a thousand, and the report names the first few in key order.
func TestUnknownKeysCostNothing(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}
	junk := func(n int) map[string]any {
		c := map[string]any{"email": "ada@example.com"}
		for i := range n {
			c[fmt.Sprintf("k%06d", i)] = true
		}
		return c
	}
	small, large := junk(1000), junk(100_000)
	allocs := func(c map[string]any) float64 {
		return testing.AllocsPerRun(5, func() { _, _ = checkContent(c, fields) })
	}
	aSmall, aLarge := allocs(small), allocs(large)
	// Nothing per key: a hundred times the keys may cost at most a
	// constant more (the race detector's map instrumentation varies by
	// one), never one allocation per key.
	if aLarge > aSmall+2 {
		t.Errorf("100000 unknown keys: %v allocations, 1000: %v; want no more", aLarge, aSmall)
	}

	a, problems := checkContent(large, fields)
	require.Equal(t, Answers{"email": "ada@example.com"}, a)
	require.Len(t, problems, maxUnknownReported+1)
	for i, p := range problems[:maxUnknownReported] {
		assert.Equal(t, fmt.Sprintf("k%06d", i), p.Field)
		assert.ErrorIs(t, p, ErrUnknownField)
	}
	last := problems[maxUnknownReported]
	assert.ErrorIs(t, last, ErrUnknownField)
	assert.Equal(t, fmt.Sprintf("unknown field: %d more keys", 100_000-maxUnknownReported), last.Err.Error())
}

// BenchmarkCheckScaling measures the answer check of a fully valid answer
// at several form sizes; the check is linear, so 512 fields cost at most
// about 64 times 8.
func BenchmarkCheckScaling(b *testing.B) {
	for _, n := range []int{1, 8, 64, 512} {
		fields := make([]AutoFormField, n)
		content := make(map[string]any, n)
		for i := range fields {
			name := fmt.Sprintf("field_%d", i)
			fields[i] = AutoFormField{Name: name, Required: true, Max: Bound(20)}
			content[name] = "some text"
		}
		// The compiled form: the answer check alone, without checking
		// the definition again on every call.
		form, err := NewForm[Answers](fields, nil)
		require.NoError(b, err)
		responses := answer(DefaultInputKey, "accept", content)
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := form.Read(responses); r.Status != ReplyAccepted {
					b.Fatal(r.Status, r.Problems)
				}
			}
		})
	}
}

func TestProblemMessage(t *testing.T) {
	fields := accountStep.Fields
	for _, tt := range []struct {
		name     string
		problems []*FieldError
		want     string
	}{
		{"none", nil, ""},
		{"only unknown", []*FieldError{{Field: "x", Err: ErrUnknownField}}, ""},
		{"invalid and missing", []*FieldError{
			fieldErr("email", ErrInvalidValue, "not a valid email address"),
			{Field: "plan", Err: ErrMissing},
		}, "Email must be an email address, like name@example.com. Choose an option for Plan."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ProblemMessage(fields, tt.problems))
		})
	}
}

// A stricterChoice is one declared exception to the agreement suite: a
// value the reference validator accepts and mcpform refuses on purpose.
// Each is an entry of doc.go's list of differences, which must contain
// doc (TestStricterChoicesDocumented). The agreement tests hold every
// disagreement to one of these, by name, and fail on any other; a value
// mcpform keeps and the reference refuses is never excused. applies is
// written from the rule's words, not from the checker's code.
type stricterChoice struct {
	name    string
	doc     string
	applies func(f *AutoFormField, s string) bool
}

var stricterChoices = []stricterChoice{
	{"control character", "C0 control character", func(f *AutoFormField, s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool {
			return r < 0x20 && r != '\t' && !(f.Type == TypeTextarea && (r == '\n' || r == '\r'))
		})
	}},
	{"bidi control", "U+202A to U+202E", func(f *AutoFormField, s string) bool {
		return !f.AllowBidi && strings.ContainsFunc(s, func(r rune) bool {
			return 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069
		})
	}},
	{"DEL and C1", "DEL and the C1 controls", func(f *AutoFormField, s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r == 0x7f || 0x80 <= r && r <= 0x9f && r != 0x85 })
	}},
	{"Unicode line break", "NEL, U+2028 and U+2029", func(f *AutoFormField, s string) bool {
		return f.Type != TypeTextarea && strings.ContainsAny(s, "\u0085\u2028\u2029")
	}},
	{"invisible mark", "zero-width space, word joiner", func(f *AutoFormField, s string) bool {
		return !f.AllowBidi && strings.ContainsAny(s, "\u200b\u200e\u200f\u061c\u180e\ufeff\u2060\u2061\u2062\u2063\u2064")
	}},
	{"loose joiner", "a zero-width joiner or non-joiner", func(f *AutoFormField, s string) bool {
		if f.AllowBidi {
			return false
		}
		rs := []rune(s)
		for i, r := range rs {
			if r != 0x200c && r != 0x200d {
				continue
			}
			// Between two characters that are neither white space, nor a
			// control, nor a format character.
			visible := func(j int) bool {
				return j >= 0 && j < len(rs) && !unicode.IsSpace(rs[j]) && !unicode.IsControl(rs[j]) && !unicode.In(rs[j], unicode.Cf)
			}
			if !visible(i-1) || !visible(i+1) {
				return true
			}
		}
		return false
	}},
	{"replacement character", "It holds no U+FFFD", func(f *AutoFormField, s string) bool {
		return strings.ContainsRune(s, '\ufffd')
	}},
	{"quoted local part", "qtextSMTP", func(f *AutoFormField, s string) bool {
		// The local part ends at the last '@': a quoted one may hold more.
		at := strings.LastIndexByte(s, '@')
		local := s[:max(at, 0)]
		if f.Type != TypeEmail || at < 0 || len(local) < 2 || local[0] != '"' || local[len(local)-1] != '"' {
			return false
		}
		return strings.ContainsFunc(local[1:len(local)-1], func(r rune) bool { return r < ' ' || r > '~' })
	}},
	{"signed time field", "a sign in a field", func(f *AutoFormField, s string) bool {
		if f.Type != TypeDatetime && f.Type != TypeDatetimeLocal || len(s) < 20 {
			return false
		}
		// The time's fields, and the offset's after its own sign.
		return strings.ContainsAny(s[11:19], "+-") || strings.ContainsAny(s[len(s)-5:], "+-")
	}},
}

// declaredStricter returns the name of the declared stricter choice that
// excuses refusing v for f, or "".
func declaredStricter(f *AutoFormField, v any) string {
	s, ok := v.(string)
	if !ok || f.kind() != kindString {
		return ""
	}
	for _, c := range stricterChoices {
		if c.applies(f, s) {
			return c.name
		}
	}
	return ""
}

// agreement is the agreement suite's verdict on many (field, value) pairs:
// it fails a test on any disagreement with the reference validator that no
// stricter choice excuses, and counts the ones that are.
type agreement struct {
	excused map[string]int
}

func (a *agreement) check(t *testing.T, f *AutoFormField, v any, kept bool, refErr error) {
	t.Helper()
	if kept == (refErr == nil) {
		return
	}
	if !kept {
		if name := declaredStricter(f, v); name != "" {
			if a.excused == nil {
				a.excused = map[string]int{}
			}
			a.excused[name]++
			return
		}
	}
	t.Errorf("field %q value %#v: kept=%v, reference validator: %v", f.Name, v, kept, refErr)
}

// exercised fails t for each stricter choice no value in the suite
// exercised: an exception that never applies is not a tested one.
func (a *agreement) exercised(t *testing.T) {
	t.Helper()
	for _, c := range stricterChoices {
		if a.excused[c.name] == 0 {
			t.Errorf("no value exercised the stricter choice %q", c.name)
		}
	}
	t.Logf("refused on purpose, against the reference: %v", a.excused)
}

// TestStricterChoicesDocumented holds each stricter choice to its entry in
// doc.go's list of differences.
func TestStricterChoicesDocumented(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	_, list, ok := strings.Cut(string(b), "# Where mcpform differs from the TypeScript helpers")
	require.True(t, ok, "doc.go has no list of differences")
	list = strings.Join(strings.Fields(strings.ReplaceAll(list, "//", "")), " ")
	for _, c := range stricterChoices {
		assert.Contains(t, list, c.doc, "stricter choice %q", c.name)
	}
}

// TestStricterChoicesRefused checks that each kind of value the issue
// names is refused in every path that judges a value: a name with NUL,
// CR LF or a bidi override, a quoted email local part with CR LF or NUL,
// as an answer, as a submitted argument and as a default.
func TestStricterChoicesRefused(t *testing.T) {
	name := AutoFormField{Name: "full_name", Required: true}
	bio := AutoFormField{Name: "bio", Type: TypeTextarea}
	mixed := AutoFormField{Name: "mixed", AllowBidi: true}
	email := AutoFormField{Name: "email", Type: TypeEmail, Required: true}
	for _, tt := range []struct {
		name  string
		field AutoFormField
		v     string
		want  string // "" means kept
	}{
		{"NUL", name, "Ada\x00Lovelace", "a control character"},
		{"ESC", name, "Ada\x1b[2J", "a control character"},
		{"CR LF", name, "Ada\r\nLovelace", "a line break, which only a multi-line field takes"},
		{"LF", name, "Ada\nLovelace", "a line break, which only a multi-line field takes"},
		{"tab", name, "Ada\tLovelace", ""},
		{"DEL", name, "Ada\x7f", "a control character"},
		{"textarea DEL", bio, "Ada\x7f", "a control character"},
		{"C1 CSI", name, "Ada\u009b2J", "a control character"},
		{"C1 start", name, "\u0080Ada", "a control character"},
		{"NBSP is no C1", name, "Ada\u00a0L", ""},
		{"NEL", name, "Ada\u0085Lovelace", "a line break, which only a multi-line field takes"},
		{"LS", name, "Ada\u2028Lovelace", "a line break, which only a multi-line field takes"},
		{"PS", name, "Ada\u2029", "a line break, which only a multi-line field takes"},
		{"textarea NEL LS PS", bio, "one\u0085two\u2028three\u2029four", ""},
		{"ZWSP", name, "Ada\u200bLovelace", "an invisible zero-width or direction mark"},
		{"RLM", name, "Ada\u200f", "an invisible zero-width or direction mark"},
		{"ALM", name, "\u061cAda", "an invisible zero-width or direction mark"},
		{"BOM", name, "\ufeffAda", "an invisible zero-width or direction mark"},
		{"word joiner", name, "Ada\u2060L", "an invisible zero-width or direction mark"},
		{"textarea ZWSP", bio, "a\u200bb", "an invisible zero-width or direction mark"},
		{"allowed LRM", mixed, "Ada\u200e", ""},
		{"allowed ZWSP", mixed, "a\u200bb", ""},
		{"ZWNJ in Persian", name, "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", ""},
		{"ZWJ after a virama", name, "\u0915\u094d\u200d\u0937", ""},
		{"ZWJ family emoji", name, "\U0001F468\u200d\U0001F469\u200d\U0001F467", ""},
		{"ZWJ after VS16", name, "\u2764\ufe0f\u200d\U0001F525", ""},
		{"ZWJ at the start", name, "\u200dAda", "a zero-width joiner that joins nothing"},
		{"ZWNJ at the end", name, "Ada\u200c", "a zero-width joiner that joins nothing"},
		{"ZWJ beside a space", name, "Ada \u200dL", "a zero-width joiner that joins nothing"},
		{"ZWJ twice", name, "a\u200d\u200db", "a zero-width joiner that joins nothing"},
		{"ZWJ alone", name, "\u200d", "a zero-width joiner that joins nothing"},
		{"allowed loose ZWJ", mixed, "\u200d", ""},
		{"RLO", name, "Ada \u202egnirts", "a bidirectional control character"},
		{"LRE", name, "\u202aAda", "a bidirectional control character"},
		{"PDI", name, "Ada\u2069", "a bidirectional control character"},
		{"RLI", name, "\u2067Ada", "a bidirectional control character"},
		{"LRM", name, "Ada\u200e", "an invisible zero-width or direction mark"},
		{"U+2065 is unassigned, not bidi", name, "Ada\u2065", ""},
		{"U+202F is a space", name, "Ada\u202fL", ""},
		{"textarea CR LF", bio, "line one\r\nline two", ""},
		{"textarea NUL", bio, "line\x00", "a control character"},
		{"textarea RLO", bio, "\u202e", "a bidirectional control character"},
		{"allowed bidi", mixed, "\u2067שלום\u2069 Ada", ""},
		{"allowed bidi, not NUL", mixed, "\u2067\x00", "a control character"},
		{"quoted email", email, `"ada lovelace"@example.com`, ""},
		{"quoted email CR LF", email, "\"a\r\nBcc: victim@evil.test\"@example.com", "a line break, which only a multi-line field takes"},
		{"quoted email NUL", email, "\"a\x00b\"@example.com", "a control character"},
		{"quoted email tab", email, "\"a\tb\"@example.com", "not a valid email address"},
		{"quoted email DEL", email, "\"a\x7fb\"@example.com", "a control character"},
		{"quoted email non-ASCII", email, `"adé"@example.com`, "not a valid email address"},
		{"quoted email RLO", email, "\"\u202e\"@example.com", "a bidirectional control character"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.field
			assert.Equal(t, tt.want, f.checkValue(tt.v), "checkValue")

			fields := []AutoFormField{f}
			_, problems := CheckFormInput(accepted(map[string]any{f.Name: tt.v}), "form", fields)
			args, err := json.Marshal(map[string]any{f.Name: tt.v})
			require.NoError(t, err)
			_, argProblems := CheckFormArguments(args, fields)
			form, err := NewForm[Answers](fields, &FormOptions{Key: "form"})
			require.NoError(t, err)
			read := form.Read(accepted(map[string]any{f.Name: tt.v}))
			withDefault := f
			withDefault.Default = tt.v
			_, defErr := NewForm[Answers]([]AutoFormField{withDefault}, nil)
			if tt.want == "" {
				assert.Empty(t, problems, "CheckFormInput")
				assert.Empty(t, argProblems, "CheckFormArguments")
				assert.Equal(t, ReplyAccepted, read.Status, "Form.Read")
				assert.NoError(t, defErr, "default")
				return
			}
			for what, ps := range map[string][]*FieldError{"CheckFormInput": problems, "CheckFormArguments": argProblems, "Form.Read": read.Problems} {
				if assert.Len(t, ps, 1, what) {
					assert.Equal(t, f.Name, ps[0].Field, what)
					assert.ErrorIs(t, ps[0], ErrInvalidValue, what)
					assert.ErrorContains(t, ps[0], tt.want, what)
				}
			}
			assert.Equal(t, ReplyInvalid, read.Status, "Form.Read")
			assert.ErrorIs(t, defErr, ErrDefault, "default")
		})
	}
}

// TestProblemNotes: a re-ask notes each problem its message names, by
// field, in the message's words; an unknown key, which the message does
// not name, and a re-ask without problems note nothing.
func TestProblemNotes(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "seats", Label: "Seats", Type: TypeInteger, Max: Bound(50)}}, nil)
	assert.NoError(t, err)
	for _, tt := range []struct {
		name     string
		problems []*FieldError
		want     any
	}{
		{"none", nil, nil},
		{"a field", []*FieldError{{Field: "seats", Err: ErrInvalidValue}, {Field: "x", Err: ErrUnknownField}},
			map[string]any{problemsMeta: []problemNote{{Field: "seats", Problem: "Seats must be a whole number"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := form.c.reask(nil, tt.problems, "")
			meta := res.InputRequests[form.c.key].(*mcp.ElicitParams).Meta
			if tt.want == nil {
				assert.Nil(t, meta)
				return
			}
			assert.Equal(t, tt.want, map[string]any(meta))
		})
	}
}

// TestAnswersKeepExactIntegers: an accepted integer no float64 holds
// survives the JSON of Answers, as in a flow's state between steps: a
// two-step flow ends with the 9007199254740993 its first step accepted,
// not ...992 (issue 32, finding 12).
func TestAnswersKeepExactIntegers(t *testing.T) {
	var a Answers
	require.NoError(t, json.Unmarshal([]byte(`{"n":9007199254740993,"f":0.1,"s":"x","l":["a"],"i":5}`), &a))
	assert.Equal(t, Answers{"n": json.Number("9007199254740993"), "f": 0.1, "s": "x", "l": []any{"a"}, "i": 5.0}, a)
	require.NoError(t, json.Unmarshal([]byte(`null`), &a))
	assert.Nil(t, a)

	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{
		{Key: "account", Fields: []AutoFormField{{Name: "account", Type: TypeInteger, Required: true}}},
		{Key: "note", Fields: []AutoFormField{{Name: "note", Required: true}}},
	}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	next := func(r *FlowRound, answer string) *FlowRound {
		req := directCall(t, bareMeta(), "alice", "t", nil)
		if r != nil {
			req.Params.Arguments = json.RawMessage(`{"mcpform":"` + carried(t, r) + `",` + answer + `}`)
		}
		r, err := flow.Next(context.Background(), req)
		require.NoError(t, err)
		return r
	}
	r := next(nil, "")
	r = next(r, `"account":9007199254740993`)
	require.Equal(t, FlowAsk, r.Status, "%v", r.Problems)
	r = next(r, `"note":"x"`)
	require.Equal(t, FlowDone, r.Status, "%v", r.Problems)
	assert.Equal(t, json.Number("9007199254740993"), r.Answers["account"])
	var v struct {
		Account int64 `json:"account"`
	}
	require.NoError(t, r.Answers.Decode(&v))
	assert.Equal(t, int64(9007199254740993), v.Account)
}

// BenchmarkAnswersUnmarshal decodes the proven answers a flow's state
// carries, as Answers (numbers as written) and, for comparison, as the
// map[string]any encoding/json decoded them into before.
func BenchmarkAnswersUnmarshal(b *testing.B) {
	raw := []byte(`{"a":{"email":"ada@example.com","plan":"team","seats":5,"team_name":"crew","tags":["a","b"],"news":true}}`)
	b.Run("Answers", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var st struct {
				A Answers `json:"a"`
			}
			if err := json.Unmarshal(raw, &st); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var st struct {
				A map[string]any `json:"a"`
			}
			if err := json.Unmarshal(raw, &st); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAnswersUnmarshalRefusesTwoReadings: Answers decode no JSON that says
// two things, which a first-wins reader would read otherwise.
func TestAnswersUnmarshalRefusesTwoReadings(t *testing.T) {
	for _, in := range []string{`{"a":1,"a":2}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":{"b":1,"b":1}}`} {
		var a Answers
		assert.Error(t, json.Unmarshal([]byte(in), &a), "%s", in)
	}
	var a Answers
	require.NoError(t, json.Unmarshal([]byte(`{"a":9007199254740993,"b":"\ud83d\ude00"}`), &a))
	assert.Equal(t, Answers{"a": json.Number("9007199254740993"), "b": "😀"}, a)
}
