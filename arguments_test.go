package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// formArgumentsFields has one field of every kind, for the
// AcceptedFormArguments tables.
var formArgumentsFields = []AutoFormField{
	{Name: "email", Type: TypeEmail, Required: true},
	{Name: "full_name"},
	{Name: "age", Type: TypeInteger, Min: Bound(18), Max: Bound(120)},
	{Name: "ratio", Type: TypeNumber},
	{Name: "plan", Options: []Option{{Value: "free"}, {Value: "pro"}}},
	{Name: "tags", Multiple: true, Options: []Option{{Value: "a"}, {Value: "b"}}},
	{Name: "news", Type: TypeCheckbox},
	{Name: "terms", Type: TypeBoolean},
	{Name: "at", Type: TypeDatetimeLocal},
}

// browserForm is how prefab's renderer sends v, a native answer's value:
// numbers as the text a number input holds, everything else as it is.
func browserForm(v any) any {
	if n, ok := v.(float64); ok {
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return v
}

func TestAcceptedFormArgumentsNoAnswer(t *testing.T) {
	for _, args := range []string{"", " ", "null", "[]", `"x"`, "42", "true", "{}", "{ }", `{"email":"ada@example.com"} {}`, `{"email":`, "{'a':1}", "\xff"} {
		t.Run(args, func(t *testing.T) {
			a, ok := AcceptedFormArguments(json.RawMessage(args), formArgumentsFields)
			assert.False(t, ok)
			assert.Nil(t, a)
			a, problems := CheckFormArguments(json.RawMessage(args), formArgumentsFields)
			assert.Nil(t, a)
			assert.Nil(t, problems)
		})
	}
	// nil arguments: a tools/call that sent none.
	_, ok := AcceptedFormArguments(nil, formArgumentsFields)
	assert.False(t, ok)
}

func TestCheckFormArguments(t *testing.T) {
	const email = `"email":"ada@example.com"`
	base := Answers{"email": "ada@example.com", "news": false, "terms": false}
	with := func(kv ...any) Answers {
		a := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(a, kv[i].(string))
			} else {
				a[kv[i].(string)] = kv[i+1]
			}
		}
		return a
	}
	type problem struct {
		field string
		err   error
	}
	tests := []struct {
		name     string
		args     string
		want     Answers
		problems []problem
	}{
		{"what a browser sends", `{` + email + `,"fullName":"Ada","age":"42","ratio":"-0.5","plan":"pro","tags":["a","b"],"news":true,"terms":false}`,
			with("full_name", "Ada", "age", 42.0, "ratio", -0.5, "plan", "pro", "tags", []any{"a", "b"}, "news", true), nil},
		{"what a native client sends", `{` + email + `,"full_name":"Ada","age":42,"ratio":0.25,"news":true,"terms":true}`,
			with("full_name", "Ada", "age", 42.0, "ratio", 0.25, "news", true, "terms", true), nil},

		{"empty strings are absent", `{` + email + `,"fullName":"","age":"","ratio":"","plan":"","tags":"","news":"","terms":""}`, base, nil},
		{"empty required string is missing", `{"email":"","fullName":"Ada"}`, nil, []problem{{"email", ErrMissing}}},
		{"missing required", `{"fullName":"Ada"}`, nil, []problem{{"email", ErrMissing}}},

		{"out of range dropped", `{` + email + `,"age":"5"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"integer with zero fraction", `{` + email + `,"age":"42.0"}`, with("age", 42.0), nil},
		{"fraction for an integer", `{` + email + `,"age":"42.5"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"exponent", `{` + email + `,"age":"2e1","ratio":"1E-3"}`, with("age", 20.0, "ratio", 0.001), nil},
		{"fraction alone", `{` + email + `,"ratio":".5"}`, with("ratio", 0.5), nil},
		{"negative zero", `{` + email + `,"ratio":"-0"}`, with("ratio", 0.0), nil},
		{"leading space", `{` + email + `,"age":" 42"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"trailing space", `{` + email + `,"age":"42 "}`, base, []problem{{"age", ErrInvalidValue}}},
		{"plus sign", `{` + email + `,"age":"+42"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"hex", `{` + email + `,"age":"0x10"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"NaN", `{` + email + `,"ratio":"NaN"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"Infinity", `{` + email + `,"ratio":"Infinity"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"string overflow", `{` + email + `,"ratio":"1e999"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"JSON number overflow", `{` + email + `,"ratio":1e999,"age":30}`, with("age", 30.0), []problem{{"ratio", ErrInvalidValue}}},
		{"trailing dot", `{` + email + `,"ratio":"5."}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"dangling exponent", `{` + email + `,"ratio":"5e"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"underscore", `{` + email + `,"ratio":"1_000"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"non-ASCII digits", `{` + email + `,"age":"٤٢"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"number as a list", `{` + email + `,"age":["42"]}`, base, []problem{{"age", ErrInvalidValue}}},
		{"number for text", `{` + email + `,"fullName":42}`, base, []problem{{"full_name", ErrInvalidValue}}},

		{"on is true", `{` + email + `,"news":"on","terms":"on"}`, with("news", true, "terms", true), nil},
		{"off is not a boolean", `{` + email + `,"news":"off"}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},
		{"string true is not a boolean", `{` + email + `,"news":"true"}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},
		{"one is not a boolean", `{` + email + `,"news":1}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},
		{"null is not a boolean", `{` + email + `,"news":null}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},

		{"list for a single choice", `{` + email + `,"plan":["pro"]}`, base, []problem{{"plan", ErrInvalidValue}}},
		{"not an option", `{` + email + `,"plan":"gold"}`, base, []problem{{"plan", ErrInvalidValue}}},
		{"string for a multiple choice", `{` + email + `,"tags":"a"}`, base, []problem{{"tags", ErrInvalidValue}}},
		{"empty multiple choice", `{` + email + `,"tags":[]}`, with("tags", []any{}), nil},

		{"local date-time is UTC", `{` + email + `,"at":"2026-08-03T10:00"}`, with("at", "2026-08-03T10:00:00Z"), nil},
		{"local date-time with seconds", `{` + email + `,"at":"2026-08-03T10:00:30"}`, with("at", "2026-08-03T10:00:30Z"), nil},
		{"local date-time with a fraction", `{` + email + `,"at":"2026-08-03T10:00:30.125"}`, with("at", "2026-08-03T10:00:30.125Z"), nil},
		{"RFC 3339 kept", `{` + email + `,"at":"2026-08-03T10:00:00+02:00"}`, with("at", "2026-08-03T10:00:00+02:00"), nil},
		{"local date-time out of range", `{` + email + `,"at":"2026-13-03T10:00"}`, base, []problem{{"at", ErrInvalidValue}}},
		{"local date-time, four fraction digits", `{` + email + `,"at":"2026-08-03T10:00:30.1234"}`, base, []problem{{"at", ErrInvalidValue}}},
		{"local date-time with a space", `{` + email + `,"at":"2026-08-03 10:00"}`, base, []problem{{"at", ErrInvalidValue}}},
		{"zone without seconds", `{` + email + `,"at":"2026-08-03T10:00Z"}`, base, []problem{{"at", ErrInvalidValue}}},
		{"hour alone", `{` + email + `,"at":"2026-08-03T10"}`, base, []problem{{"at", ErrInvalidValue}}},
		{"one-digit seconds", `{` + email + `,"at":"2026-08-03T10:00:3"}`, base, []problem{{"at", ErrInvalidValue}}},
		{"empty fraction", `{` + email + `,"at":"2026-08-03T10:00:30."}`, base, []problem{{"at", ErrInvalidValue}}},
		{"date-time as a number", `{` + email + `,"at":20260803}`, base, []problem{{"at", ErrInvalidValue}}},

		{"renamed key and own name: own name wins", `{` + email + `,"full_name":"own","fullName":"renamed"}`,
			with("full_name", "own"), []problem{{"fullName", ErrUnknownField}}},
		{"unknown keys dropped", `{` + email + `,"__proto__":{"x":1},"constructor":"x","":1}`, base,
			[]problem{{"", ErrUnknownField}, {"__proto__", ErrUnknownField}, {"constructor", ErrUnknownField}}},
		// Issue 32, item 7: a first-wins reader reads 5, encoding/json 50:
		// the answer is unclear, and asked again, never the last kept.
		{"duplicate key: asked again", `{` + email + `,"age":"5","age":"50"}`, base, []problem{{"age", ErrInvalidValue}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, problems := CheckFormArguments(json.RawMessage(tt.args), formArgumentsFields)
			assert.Equal(t, tt.want, a)
			var got []problem
			for _, p := range problems {
				got = append(got, problem{p.Field, p.Err})
				if errors.Is(p.Err, ErrInvalidValue) {
					got[len(got)-1].err = ErrInvalidValue
				}
			}
			assert.Equal(t, tt.problems, got)
			accepted, ok := AcceptedFormArguments(json.RawMessage(tt.args), formArgumentsFields)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, accepted)
		})
	}

	// A renamed key that two fields share is nobody's.
	fields := []AutoFormField{{Name: "a_bC"}, {Name: "aB_c"}}
	a, _ := AcceptedFormArguments(json.RawMessage(`{"aBC":"x"}`), fields)
	assert.Equal(t, Answers{}, a)

	// A broken list is reported as its only problem.
	a, problems := CheckFormArguments(json.RawMessage(`{"a":"x"}`), []AutoFormField{{Name: "a"}, {Name: "a"}})
	assert.Nil(t, a)
	require.Len(t, problems, 1)
	assert.ErrorIs(t, problems[0], ErrName)
}

// readArgumentsForm is what TestFormReadArguments decodes into.
type readArgumentsForm struct {
	Email    string    `json:"email"`
	FullName *string   `json:"full_name"`
	Age      int       `json:"age"`
	Tags     []string  `json:"tags"`
	News     bool      `json:"news"`
	At       time.Time `json:"at"`
}

func TestFormReadArguments(t *testing.T) {
	form, err := NewForm[readArgumentsForm]([]AutoFormField{
		{Name: "email", Type: TypeEmail, Required: true},
		{Name: "full_name"},
		{Name: "age", Type: TypeInteger, Min: Bound(18)},
		{Name: "tags", Multiple: true, Options: []Option{{Value: "a"}, {Value: "b"}}},
		{Name: "news", Type: TypeCheckbox},
		{Name: "at", Type: TypeDatetimeLocal},
	}, &FormOptions{Key: "signup"})
	require.NoError(t, err)
	ada := "Ada"
	tests := []struct {
		name     string
		args     string
		status   ReplyStatus
		value    readArgumentsForm
		problems []string // the fields named, in order
	}{
		{"no arguments", ``, ReplyNone, readArgumentsForm{}, nil},
		{"first call", `{}`, ReplyNone, readArgumentsForm{}, nil},
		{"not an object", `["email"]`, ReplyNone, readArgumentsForm{}, nil},
		{"what a browser sends", `{"email":"ada@example.com","fullName":"Ada","age":"42","tags":["b"],"news":true,"at":"2026-08-03T10:00"}`,
			ReplyAccepted, readArgumentsForm{Email: "ada@example.com", FullName: &ada, Age: 42, Tags: []string{"b"}, News: true,
				At: time.Date(2026, 8, 3, 10, 0, 0, 0, time.UTC)}, nil},
		{"empty optional fields", `{"email":"ada@example.com","fullName":"","age":"","at":""}`,
			ReplyAccepted, readArgumentsForm{Email: "ada@example.com"}, nil},
		{"an optional value refused", `{"email":"ada@example.com","age":"5"}`, ReplyInvalid, readArgumentsForm{}, []string{"age"}},
		{"a fraction for an integer", `{"email":"ada@example.com","age":"42.5"}`, ReplyInvalid, readArgumentsForm{}, []string{"age"}},
		{"required missing", `{"fullName":"Ada"}`, ReplyInvalid, readArgumentsForm{}, []string{"email"}},
		{"unknown keys alone do not refuse", `{"email":"ada@example.com","x":1}`, ReplyAccepted, readArgumentsForm{Email: "ada@example.com"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := form.ReadArguments(json.RawMessage(tt.args))
			assert.Equal(t, tt.status, reply.Status)
			assert.Equal(t, tt.value, reply.Value)
			var named []string
			for _, p := range reply.Problems {
				named = append(named, p.Field)
			}
			assert.Equal(t, tt.problems, named)
			// The same answer as the field-list function's, judged by
			// the same checker.
			want, problems := CheckFormArguments(json.RawMessage(tt.args), form.Fields())
			assert.Equal(t, problems, reply.Problems)
			if want != nil {
				assert.Equal(t, want, reply.Answers)
			}
		})
	}
}

func TestFormDisplay(t *testing.T) {
	// One renderer: a compiled form is shown as DisplayForm shows its
	// fields, for every golden list.
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			form, err := NewForm[Answers](fields, nil)
			require.NoError(t, err)
			got, err := form.Display(name, displayOpts(name))
			for _, f := range fields {
				if f.Secret() {
					// Like Ask, Display does not show a form
					// with a secret.
					assert.ErrorContains(t, err, fmt.Sprintf("field %q is secret", f.Name))
					return
				}
			}
			require.NoError(t, err)
			want, err := DisplayForm(fields, name, displayOpts(name))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}

	form, err := NewForm[Answers]([]AutoFormField{{Name: "email", Type: TypeEmail}}, &FormOptions{Key: "signup", Message: "Sign up"})
	require.NoError(t, err)
	t.Run("elicit", func(t *testing.T) {
		for _, e := range []*InputRequestOptions{{RequestState: "s"}, {Key: "signup", RequestState: "s"}} {
			res, err := form.Display("signup", &DisplayFormOptions{Title: "T", Elicit: e})
			require.NoError(t, err)
			assert.Equal(t, form.InputRequest("s"), res)
		}
		res, err := form.Display("signup", &DisplayFormOptions{Elicit: &InputRequestOptions{Message: "M"}})
		require.NoError(t, err)
		assert.Equal(t, "M", res.InputRequests["signup"].(*mcp.ElicitParams).Message)
		_, err = form.Display("signup", &DisplayFormOptions{Elicit: &InputRequestOptions{Key: "other"}})
		assert.ErrorContains(t, err, `answered under key "signup"`)
	})
	t.Run("refused", func(t *testing.T) {
		_, err := form.Display("", nil)
		assert.ErrorContains(t, err, "submit tool")
		// The native path carries a name the renderer cannot.
		odd, err := NewForm[Answers]([]AutoFormField{{Name: "a - b"}}, nil)
		require.NoError(t, err)
		_, err = odd.Display("t", nil)
		assert.ErrorIs(t, err, ErrName)
		// The native path leaves out a default JSON cannot hold; the
		// UI path, which carries every default, refuses it.
		ch, err := NewForm[Answers]([]AutoFormField{{Name: "a", Default: make(chan int)}}, nil)
		require.NoError(t, err)
		_, err = ch.Display("t", nil)
		assert.ErrorIs(t, err, ErrDefault)
	})
}

// TestFormArgumentsAgreeWithFormInput sends a valid answer to every golden
// field list both ways, natively and as a browser sends it, and expects the
// same Answers, except where an empty string is absent on the UI path.
func TestFormArgumentsAgreeWithFormInput(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			native, browser := map[string]any{}, map[string]any{}
			for i := range fields {
				f := &fields[i]
				v := sample(f)
				b, err := json.Marshal(v)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &v))
				native[f.Name] = v
				browser[prefab.RendererKey(f.Name)] = browserForm(v)
			}
			want, ok := AcceptedFormInput(accepted(native), "form", fields)
			require.True(t, ok)
			for k, v := range want {
				if v == "" {
					delete(want, k)
				}
			}
			args, err := json.Marshal(browser)
			require.NoError(t, err)
			got, ok := AcceptedFormArguments(args, fields)
			require.True(t, ok, "args %s", args)
			assert.Equal(t, want, got)
		})
	}
}

// FuzzAcceptedFormArguments feeds arbitrary bytes as arguments. Nothing may
// panic, and every accepted value must be one the reference validator
// accepts for its field, under the field's own name.
func FuzzAcceptedFormArguments(f *testing.F) {
	for _, seed := range []string{
		`{"email":"ada@example.com","seats":"3","tags":["a"],"news":"on"}`,
		`{"email":"a@b","seats":" 3","ratio":"1e999","nick":"","plan":["pro"]}`,
		`{"email":"a@b","seats":"0x10","ratio":"-.5e-1","news":"off","__proto__":{}}`,
		`{"email":"a@b","ratio":1e999,"seats":3.0,"at":"2026-07-28T09:30:00Z"}`,
		`{"email":"a@b.co","at":"2026-07-28T09:30"}`, `{"email":"a@b.co","at":"2026-02-30T09:30:59.999"}`,
		`[1,2]`, `null`, `{}`, `{"a":1} x`,
	} {
		f.Add([]byte(seed))
	}
	s, err := FormSchema(fuzzFields)
	require.NoError(f, err)
	refs := map[string]interface{ Validate(any) error }{}
	for _, fd := range fuzzFields {
		refs[fd.Name] = compileProperty(f, s.Properties[fd.Name])
	}
	form, err := NewForm[Answers](fuzzFields, nil)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, problems := CheckFormArguments(data, fuzzFields)
		// The compiled form reads the same answer by the same checker.
		reply := form.ReadArguments(data)
		assert.Equal(t, problems, reply.Problems)
		if a != nil {
			assert.Equal(t, a, reply.Answers)
		} else if reply.Status == ReplyAccepted {
			t.Fatalf("ReadArguments accepted what CheckFormArguments refused: %v", reply.Answers)
		}
		if a == nil {
			return
		}
		for name, v := range a {
			ref, known := refs[name]
			if !known {
				t.Fatalf("accepted unknown key %q", name)
			}
			if err := ref.Validate(v); err != nil {
				t.Errorf("accepted %q=%#v, which the reference validator rejects: %v", name, v, err)
			}
		}
	})
}

// BenchmarkArgumentsScaling measures reading a valid submitted form, as the
// browser sends it (numbers as text, keys camel-cased), at several form
// sizes: the field-list function and the compiled form. Both are linear.
func BenchmarkArgumentsScaling(b *testing.B) {
	for _, n := range []int{1, 8, 64, 512} {
		fields := make([]AutoFormField, n)
		sent := make(map[string]any, n)
		for i := range fields {
			name := fmt.Sprintf("field_n%d", i)
			fields[i] = AutoFormField{Name: name, Type: TypeInteger, Required: true, Max: Bound(20)}
			sent[prefab.RendererKey(name)] = "12"
		}
		args, err := json.Marshal(sent)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("CheckFormArguments/fields=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a, _ := CheckFormArguments(args, fields); len(a) != n {
					b.Fatal("refused")
				}
			}
		})
		form, err := NewForm[Answers](fields, nil)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("ReadArguments/fields=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := form.ReadArguments(args); r.Status != ReplyAccepted {
					b.Fatal(r.Status)
				}
			}
		})
	}
}

// TestReadArgumentsPooled: readArguments reuses its decoders, so each call
// must read only its own input, whatever the calls before it left: a value
// cut short, trailing data, white space, a syntax error. Every call of a
// long interleaved sequence agrees with a decoder made for it alone.
func TestReadArgumentsPooled(t *testing.T) {
	inputs := []string{
		`{"a":1}`, ` {"a":"x"} `, "{\"a\":[1,2.5e3,-0]}\n\t", `{"a":`, `{"a":1}}`, `{"a":1} {}`,
		`{"a":1}]`, `"s"`, `12345678901234567890`, `[]`, `null`, ``, `   `, `{"a":"\ud800"}`,
		`{"x":{"y":[true,false,null]}}`, `{"a":1}x`, `tru`, `{"a":1,}`, strings.Repeat(" ", 5000) + `{}`,
		`{"big":"` + strings.Repeat("z", 5000) + `"}`,
	}
	fresh := func(raw string) (any, error) {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if len(strings.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
			return nil, errTrailing
		}
		for _, e := range canonjson.Members([]byte(raw)) { // {"a":"\ud800"}
			v.(map[string]any)[e.Key] = unclearValue{e}
		}
		return v, nil
	}
	for i := range 2000 {
		raw := inputs[(i*7+i/len(inputs))%len(inputs)]
		got, err := readArguments([]byte(raw))
		want, wantErr := fresh(raw)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("call %d, %.40q: error %v, want %v", i, raw, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("call %d, %.40q: %#v, want %#v", i, raw, got, want)
		}
	}
}

// TestAnswerNumbersExact: a number sent through the arguments becomes the
// float64 a native answer holds only when that float64 is the number
// written; any other stays a json.Number, which the field judges on its
// digits, so that rounding never brings a value into a field's bounds or
// makes it whole. On the model path, such an answer is asked again.
func TestAnswerNumbersExact(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want any
	}{
		{"50", 50.0},
		{"-0", math.Copysign(0, -1)},
		{"0.1", 0.1},
		{"1.50", 1.5},
		{"1e2", 100.0},
		{"1E+20", 1e20},
		{"123456789012345", 123456789012345.0},
		{"9007199254740992", 9007199254740992.0},
		{"9007199254740993", json.Number("9007199254740993")},
		{"50.0000000000000001", json.Number("50.0000000000000001")},
		{"12.0000000000000001", json.Number("12.0000000000000001")},
		{"1e400", json.Number("1e400")},
	} {
		t.Run(tt.in, func(t *testing.T) {
			m := map[string]any{"n": json.Number(tt.in), "list": []any{json.Number(tt.in)}}
			answerNumbers(m)
			assert.Equal(t, tt.want, m["n"])
			assert.Equal(t, tt.want, m["list"].([]any)[0])
		})
	}

	_, codec, _ := newFlowFixture(t)
	team := teamStep // seats: an integer from 1 to 50
	team.When = nil
	flow, err := NewFlow(codec, []Step{team}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	for _, seats := range []string{"50.0000000000000001", "12.0000000000000001"} {
		t.Run("model path "+seats, func(t *testing.T) {
			first, err := flow.Next(context.Background(), directCall(t, bareMeta(), "alice", "t", nil))
			require.NoError(t, err)
			var c struct {
				Arguments map[string]any `json:"arguments"`
			}
			require.NoError(t, json.Unmarshal([]byte(wireJSON(t, first.Result.StructuredContent)), &c))
			req := directCall(t, bareMeta(), "alice", "t", nil)
			req.Params.Arguments = json.RawMessage(`{"mcpform":"` + c.Arguments[StateArgument].(string) + `","team_name":"ab","seats":` + seats + `}`)
			r, err := flow.Next(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, FlowAsk, r.Status, "%v", r.Answers)
			require.Len(t, r.Problems, 1)
			assert.Equal(t, "seats", r.Problems[0].Field)
		})
	}
}

// numberFields are the fields of the numbers-as-written tables: seats an
// integer from 1 to 50, amount a number up to 50, account an integer
// without bounds, ratio a number without bounds.
var numberFields = []AutoFormField{
	{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
	{Name: "amount", Type: TypeNumber, Max: Bound(50)},
	{Name: "account", Type: TypeInteger},
	{Name: "ratio", Type: TypeNumber},
}

// numberCases are numbers as a client writes them, many beyond what a
// float64 holds, with the verdict that judging them as written gives
// (issue 32, findings 1 and 12): the reason in English, or "" and the
// accepted value.
var numberCases = []struct {
	name, field, number string
	reason              string // "" when accepted
	want                any    // the accepted value
}{
	{"above the maximum by 1e-16", "seats", "50.0000000000000001", "greater than the maximum 50", nil},
	{"below the minimum by 1e-17", "seats", "0.99999999999999999", "less than the minimum 1", nil},
	{"not whole by 1e-16", "seats", "1.9999999999999999", "not an integer", nil},
	{"not whole by 1e-16, in bounds", "seats", "12.0000000000000001", "not an integer", nil},
	{"whole, written with a fraction", "seats", "12.000", "", 12.0},
	{"whole, written with an exponent", "seats", "5e1", "", 50.0},
	{"number above the maximum by 1e-16", "amount", "50.0000000000000001", "greater than the maximum 50", nil},
	{"number at the maximum", "amount", "50", "", 50.0},
	{"number rounded once accepted", "amount", "0.10000000000000000001", "", 0.1},
	{"number beyond float64", "ratio", "-1e400", "too large for a number this field holds", nil},
	{"integer beyond float64", "account", "1e400", "", json.Number("1e+400")},
	{"2^53+1 exact", "account", "9007199254740993", "", json.Number("9007199254740993")},
	{"2^53+1 with an exponent", "account", "9.007199254740993e15", "", json.Number("9007199254740993")},
	{"2^53 is a float64", "account", "9007199254740992", "", 9007199254740992.0},
}

// TestNumbersJudgedAsWritten holds every path that reads numbers as
// written (the view's submit, as JSON numbers and as the strings a
// browser sends; the model's call; content of json.Number values handed
// to the native checker) to one verdict per number: the one
// santhosh-tekuri/jsonschema gives on the same schema, with the reason
// that names the real problem. On main, the view path rounded first
// (50.0000000000000001 passed a maximum of 50, 9007199254740993 became
// ...992) and the other paths said "not a number".
func TestNumbersJudgedAsWritten(t *testing.T) {
	schema, err := FormSchema(numberFields)
	require.NoError(t, err)
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{{Key: "n", Fields: numberFields}}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	form, err := NewForm[Answers](numberFields, nil)
	require.NoError(t, err)

	type verdict struct {
		reason string
		value  any
	}
	// Each path judges {"<field>": <number>} and says its verdict.
	paths := map[string]func(t *testing.T, field, number string) verdict{
		"AcceptedFormArguments": func(t *testing.T, field, number string) verdict {
			args := json.RawMessage(`{"` + field + `":` + number + `}`)
			a, ok := AcceptedFormArguments(args, numberFields)
			require.True(t, ok) // no field is required
			if _, problems := CheckFormArguments(args, numberFields); len(problems) > 0 {
				assert.NotContains(t, a, field)
				return verdict{reason: onlyReason(t, problems, field)}
			}
			return verdict{value: a[field]}
		},
		"CheckFormArguments as the browser's string": func(t *testing.T, field, number string) verdict {
			a, problems := CheckFormArguments(json.RawMessage(`{"`+field+`":"`+number+`"}`), numberFields)
			if len(problems) > 0 {
				return verdict{reason: onlyReason(t, problems, field)}
			}
			return verdict{value: a[field]}
		},
		"Form.ReadArguments": func(t *testing.T, field, number string) verdict {
			r := form.ReadArguments(json.RawMessage(`{"` + field + `":` + number + `}`))
			if r.Status != ReplyAccepted {
				return verdict{reason: onlyReason(t, r.Problems, field)}
			}
			return verdict{value: r.Value[field]}
		},
		"model": func(t *testing.T, field, number string) verdict {
			first, err := flow.Next(context.Background(), directCall(t, bareMeta(), "alice", "t", nil))
			require.NoError(t, err)
			req := directCall(t, bareMeta(), "alice", "t", nil)
			req.Params.Arguments = json.RawMessage(`{"mcpform":"` + carried(t, first) + `","` + field + `":` + number + `}`)
			r, err := flow.Next(context.Background(), req)
			require.NoError(t, err)
			if r.Status == FlowAsk {
				return verdict{reason: onlyReason(t, r.Problems, field)}
			}
			require.Equal(t, FlowDone, r.Status)
			return verdict{value: r.Answers[field]}
		},
		"native checker, json.Number": func(t *testing.T, field, number string) verdict {
			content := map[string]any{field: json.Number(number)}
			a, ok := AcceptedFormInput(accepted(content), "form", numberFields)
			require.True(t, ok) // no field is required
			if _, problems := CheckFormInput(accepted(content), "form", numberFields); len(problems) > 0 {
				assert.NotContains(t, a, field)
				return verdict{reason: onlyReason(t, problems, field)}
			}
			assert.Equal(t, json.Number(number), content[field], "the client's content is left as it is")
			return verdict{value: a[field]}
		},
	}
	for _, tt := range numberCases {
		ref := compileProperty(t, schema.Properties[tt.field])
		doc, err := santhosh.UnmarshalJSON(strings.NewReader(tt.number))
		require.NoError(t, err)
		refErr := ref.Validate(doc)
		for name, judge := range paths {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				got := judge(t, tt.field, tt.number)
				assert.Equal(t, verdict{tt.reason, tt.want}, got)
				// The reference refuses what we refuse, but for a number
				// field's number beyond float64, which it can hold.
				if tt.reason != "too large for a number this field holds" {
					assert.Equal(t, tt.reason == "", refErr == nil, "santhosh-tekuri/jsonschema: %v", refErr)
				}
			})
		}
	}
}

// onlyReason returns the reason of the one problem, which names field.
func onlyReason(t *testing.T, problems []*FieldError, field string) string {
	t.Helper()
	require.Len(t, problems, 1)
	assert.Equal(t, field, problems[0].Field)
	require.ErrorIs(t, problems[0], ErrInvalidValue)
	return problemReason(catalog.English, nil, problems[0].Err)
}

// TestUnclearAnswerAskedAgain (issue 32, item 7): an answer sent in the
// arguments, as a view's submit or the model sends it, whose value holds
// invalid UTF-8 or a lone surrogate escape, or whose key is given twice,
// is asked again, naming its field, as other unclear characters are:
// never kept with U+FFFD in place of its bytes, nor with the last of two
// values. The call itself is not refused: the answer is the person's
// problem to fix, not the call's.
func TestUnclearAnswerAskedAgain(t *testing.T) {
	const unreadable, twice = "characters that could not be read", "given more than once"
	cases := []struct {
		name, answers, field, reason string
	}{
		{"invalid UTF-8", "\"email\":\"Ada\xf0\x9f\x98Lovelace@example.com\",\"plan\":\"pro\"", "email", unreadable},
		{"raw 0xFF", "\"email\":\"ada\xff@example.com\",\"plan\":\"pro\"", "email", unreadable},
		{"lone surrogate", `"email":"ada@example.com","plan":"pro\ud800"`, "plan", unreadable},
		{"lone low surrogate", `"email":"\udc00ada@example.com","plan":"pro"`, "email", unreadable},
		{"key twice", `"email":"ada@example.com","plan":"team","plan":"pro"`, "plan", twice},
	}
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	for _, path := range []struct {
		name string
		flow *Flow
		meta mcp.Meta
	}{{"apps", flow, appsMeta()}, {"model", model, bareMeta()}} {
		for _, tt := range cases {
			t.Run("Flow.Next/"+path.name+"/"+tt.name, func(t *testing.T) {
				r, err := path.flow.Next(context.Background(), rawArgs(path.meta, "", `{}`, nil))
				require.NoError(t, err)
				r, err = path.flow.Next(context.Background(), submitted(rawArgs(path.meta, "", `{"mcpform":"`+carried(t, r)+`",`+tt.answers+`}`, nil)))
				require.NoError(t, err)
				require.Equal(t, FlowAsk, r.Status)
				require.Len(t, r.Problems, 1, "%v", r.Problems)
				assert.Equal(t, tt.field, r.Problems[0].Field)
				assert.ErrorIs(t, r.Problems[0], ErrInvalidValue)
				assert.Contains(t, r.Problems[0].Error(), tt.reason)
				assert.NotContains(t, r.Answers, tt.field)
			})
		}
	}
	form, err := NewForm[Answers](accountStep.Fields, nil)
	require.NoError(t, err)
	for _, tt := range cases {
		t.Run("CheckFormArguments/"+tt.name, func(t *testing.T) {
			a, problems := CheckFormArguments(json.RawMessage(`{`+tt.answers+`}`), accountStep.Fields)
			assert.Nil(t, a, "a required field was refused")
			require.Len(t, problems, 1)
			assert.Equal(t, tt.field, problems[0].Field)
			assert.Contains(t, problems[0].Error(), tt.reason)
		})
		t.Run("Form.ReadArguments/"+tt.name, func(t *testing.T) {
			r := form.ReadArguments(json.RawMessage(`{` + tt.answers + `}`))
			require.Equal(t, ReplyInvalid, r.Status)
			require.Len(t, r.Problems, 1)
			assert.Equal(t, tt.field, r.Problems[0].Field)
			assert.Contains(t, r.Problems[0].Error(), tt.reason)
			for _, v := range r.Answers {
				assert.NotContains(t, v, "\ufffd")
			}
		})
	}
}

// TestUnclearValueNeverWritten: a member that said two things cannot be
// marshalled, so no state, digest or result can carry one of its readings.
func TestUnclearValueNeverWritten(t *testing.T) {
	v, err := readArguments([]byte(`{"a":1,"a":2,"b":"\ud800"}`))
	require.NoError(t, err)
	m := v.(map[string]any)
	require.IsType(t, unclearValue{}, m["a"])
	require.IsType(t, unclearValue{}, m["b"])
	_, err = json.Marshal(map[string]any{"a": m["a"]})
	assert.ErrorIs(t, err, canonjson.ErrDuplicateKey)
	_, err = json.Marshal(map[string]any{"b": m["b"]})
	assert.ErrorIs(t, err, canonjson.ErrLoneSurrogate)
}
