package mcpform

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadForms reads every field list under testdata/forms, keyed by file
// name without extension. It fails the test when there are none, so a
// misplaced testdata folder cannot make the golden suites pass vacuously.
func loadForms(t testing.TB) map[string][]AutoFormField {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "forms", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no field lists in testdata/forms")
	forms := make(map[string][]AutoFormField, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var fields []AutoFormField
		require.NoError(t, json.Unmarshal(data, &fields), p)
		forms[strings.TrimSuffix(filepath.Base(p), ".json")] = fields
	}
	return forms
}

func TestAutoFormFieldJSON(t *testing.T) {
	// The JSON a TypeScript AutoFormField takes, with every key set.
	const ts = `{"name":"seats","label":"Seats","type":"integer","description":"How many",
		"placeholder":"1","required":true,"options":[{"value":"1","label":"One"},{"value":"2"}],
		"multiple":true,"min":1,"max":2,"default":["1"]}`
	var got AutoFormField
	require.NoError(t, json.Unmarshal([]byte(ts), &got))
	want := AutoFormField{
		Name: "seats", Label: "Seats", Type: TypeInteger, Description: "How many",
		Placeholder: "1", Required: true,
		Options:  []Option{{Value: "1", Label: "One"}, {Value: "2"}},
		Multiple: true, Min: Bound(1), Max: Bound(2), Default: []any{"1"},
	}
	assert.Equal(t, want, got)

	// Zero values are left out, so a Go field list marshals to the
	// minimal JSON a TypeScript author would write.
	b, err := json.Marshal(AutoFormField{Name: "email", Type: TypeEmail})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"email","type":"email"}`, string(b))
}

func TestHumanize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"first_name", "First Name"},
		{"createdAt", "Created At"},
		{"user-id", "User Id"},
		{"snake__and--kebab", "Snake And Kebab"},
		{"__private", " Private"},
		{"trailing_", "Trailing "},
		{"URLValue", "URLValue"},
		{"x2Y", "X2 Y"},
		{"2fa_code", "2fa Code"},
		{"o'neil.name", "O'Neil.Name"},
		{"already Spaced", "Already Spaced"},
		{"a", "A"},
		{"", ""},
		// Where the TypeScript rule, which knows only ASCII word
		// characters, would give "PréNom", "éMile Zola" and "StraßE Name".
		{"prénom", "Prénom"},
		{"émileZola", "Émile Zola"},
		{"straße_name", "Straße Name"},
		{"名前", "名前"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, humanize(tt.in))
		})
	}
}

// TestBrokenFields checks that every broken definition is refused by every
// entry point with an error that names the field and the rule.
func TestBrokenFields(t *testing.T) {
	opts := []Option{{Value: "a"}, {Value: "b"}}
	for _, tt := range []struct {
		name      string
		fields    []AutoFormField
		wantErr   error
		wantField string
		wantText  string
	}{
		{"no fields", nil, ErrNoFields, "", "no fields"},
		{"empty name", []AutoFormField{{Name: "ok"}, {Name: ""}}, ErrName, "", "field 1 has an empty name"},
		{"duplicate name", []AutoFormField{{Name: "x"}, {Name: "x", Type: TypeEmail}}, ErrName, "x", "duplicate name"},
		{"invalid UTF-8 name", []AutoFormField{{Name: "a\xffb"}}, ErrName, "a\xffb", "not valid UTF-8"},
		{"min above max", []AutoFormField{{Name: "age", Type: TypeInteger, Min: Bound(10), Max: Bound(5)}}, ErrBounds, "age", "min 10 is greater than max 5"},
		{"min above max on checkbox", []AutoFormField{{Name: "ok", Type: TypeCheckbox, Min: Bound(2), Max: Bound(1)}}, ErrBounds, "ok", "greater than max"},
		{"NaN bound", []AutoFormField{{Name: "n", Type: TypeNumber, Min: Bound(math.NaN())}}, ErrBounds, "n", "not a finite number"},
		{"infinite bound", []AutoFormField{{Name: "n", Type: TypeNumber, Max: Bound(math.Inf(1))}}, ErrBounds, "n", "not a finite number"},
		{"negative length", []AutoFormField{{Name: "s", Min: Bound(-1)}}, ErrBounds, "s", "length bound -1"},
		{"fractional length", []AutoFormField{{Name: "s", Max: Bound(2.5)}}, ErrBounds, "s", "length bound 2.5"},
		{"huge length", []AutoFormField{{Name: "s", Max: Bound(1e12)}}, ErrBounds, "s", "length bound"},
		{"negative item bound", []AutoFormField{{Name: "m", Options: opts, Multiple: true, Min: Bound(-1)}}, ErrBounds, "m", "item count bound -1"},
		{"fractional item bound", []AutoFormField{{Name: "m", Options: opts, Multiple: true, Max: Bound(0.5)}}, ErrBounds, "m", "item count bound 0.5"},
		{"empty option value", []AutoFormField{{Name: "o", Options: []Option{{Value: "a"}, {Label: "None"}}}}, ErrOptions, "o", "option 1 has an empty value"},
		{"duplicate option value", []AutoFormField{{Name: "o", Options: []Option{{Value: "a"}, {Value: "a", Label: "A"}}}}, ErrOptions, "o", `duplicate option value "a"`},
		{"default not an option", []AutoFormField{{Name: "o", Options: opts, Default: "c"}}, ErrDefault, "o", "not one of the options"},
		{"multi default not an option", []AutoFormField{{Name: "o", Options: opts, Multiple: true, Default: []string{"a", "c"}}}, ErrDefault, "o", "not one of the options"},
		{"multi default not strings", []AutoFormField{{Name: "o", Options: opts, Multiple: true, Default: []any{"a", 1.0}}}, ErrDefault, "o", "not one of the options"},
		{"multi default too many", []AutoFormField{{Name: "o", Options: opts, Multiple: true, Max: Bound(1), Default: []string{"a", "b"}}}, ErrDefault, "o", "more than 1 choices"},
		{"default below min", []AutoFormField{{Name: "age", Type: TypeInteger, Min: Bound(18), Default: 5}}, ErrDefault, "age", "less than the minimum 18"},
		{"default above max", []AutoFormField{{Name: "t", Type: TypeNumber, Max: Bound(1), Default: 1.5}}, ErrDefault, "t", "greater than the maximum 1"},
		{"fractional integer default", []AutoFormField{{Name: "n", Type: TypeInteger, Default: 1.5}}, ErrDefault, "n", "not an integer"},
		{"NaN default", []AutoFormField{{Name: "n", Type: TypeNumber, Default: math.NaN()}}, ErrDefault, "n", "not a number"},
		{"default too long", []AutoFormField{{Name: "s", Max: Bound(2), Default: "abc"}}, ErrDefault, "s", "longer than 2 characters"},
		{"default not an email", []AutoFormField{{Name: "e", Type: TypeEmail, Default: "nobody"}}, ErrDefault, "e", "not a valid email address"},
		{"default not a date", []AutoFormField{{Name: "d", Type: TypeDate, Default: "2026-02-30"}}, ErrDefault, "d", "not a valid date"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			check := func(t *testing.T, err error) {
				t.Helper()
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), tt.wantText)
				if tt.wantErr == ErrNoFields {
					return
				}
				var fe *FieldError
				require.True(t, errors.As(err, &fe), "want a *FieldError, got %T", err)
				assert.Equal(t, tt.wantField, fe.Field)
				assert.Contains(t, err.Error(), fmt.Sprintf("field %q", tt.wantField))
			}
			_, err := FormSchema(tt.fields)
			check(t, err)
			_, err = FormInputRequest(tt.fields, nil)
			check(t, err)

			// Answers checked against a broken list are never accepted,
			// and the definition error is the reason given.
			a, problems := checkContent(map[string]any{"x": "y"}, tt.fields)
			assert.Nil(t, a)
			require.Len(t, problems, 1)
			check(t, problems[0])
		})
	}
}

// TestDefaultOfWrongTypeIsDropped pins the TypeScript behaviour we keep: a
// default whose JSON type does not fit the field is left out, not refused.
func TestDefaultOfWrongTypeIsDropped(t *testing.T) {
	fields := []AutoFormField{
		{Name: "n", Type: TypeInteger, Default: "5"},
		{Name: "b", Type: TypeCheckbox, Default: "on"},
		{Name: "s", Default: 3},
		{Name: "m", Options: []Option{{Value: "a"}}, Multiple: true, Default: "a"},
		{Name: "e", Options: []Option{{Value: "a"}}, Default: []string{"a"}},
	}
	s, err := FormSchema(fields)
	require.NoError(t, err)
	for _, f := range fields {
		assert.Nil(t, s.Properties[f.Name].Default, f.Name)
	}
}

func TestFieldErrorUnwrap(t *testing.T) {
	err := error(&FieldError{Field: "age", Err: ErrMissing})
	assert.ErrorIs(t, err, ErrMissing)
	assert.Equal(t, `mcpform: field "age": missing required value`, err.Error())
}

// TestCheckValueGoValues covers what a Go caller passes in-process, not
// only what encoding/json decodes: named numeric types and a []string for
// a multiple choice mean the same as their JSON twins.
func TestCheckValueGoValues(t *testing.T) {
	type seats int
	type ratio float32
	type level uint8
	integer := AutoFormField{Name: "n", Type: TypeInteger, Min: Bound(1), Max: Bound(50)}
	multi := AutoFormField{Name: "m", Options: []Option{{Value: "a"}, {Value: "b"}}, Multiple: true, Max: Bound(2)}
	for _, tt := range []struct {
		name  string
		field AutoFormField
		v     any
		want  string // "" means kept
	}{
		{"float64", integer, 5.0, ""},
		{"json.Number", integer, json.Number("5"), ""},
		{"bad json.Number", integer, json.Number("5x"), "not a number"},
		{"int", integer, 5, ""},
		{"named int", integer, seats(5), ""},
		{"named int out of bounds", integer, seats(51), "greater than the maximum 50"},
		{"named uint", integer, level(3), ""},
		{"named float32 fraction", integer, ratio(2.5), "not an integer"},
		{"NaN", integer, math.NaN(), "not a number"},
		{"string is no number", integer, "5", "not a number"},
		{"[]any", multi, []any{"a", "b"}, ""},
		{"[]string", multi, []string{"a", "b"}, ""},
		{"[]string off the options", multi, []string{"a", "z"}, "a choice is not one of the options"},
		{"[]string too many", multi, []string{"a", "b", "a"}, "more than 2 choices"},
		{"[]int is no list of choices", multi, []int{1}, "not a list"},
		{"[]any with a number", multi, []any{"a", 1.0}, "a choice is not one of the options"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.field.checkValue(tt.v))
		})
	}
}

// TestNamedIntegerDefault is the regression test for a named integer type
// used as a default, which the schema used to leave out.
func TestNamedIntegerDefault(t *testing.T) {
	type seats int
	s, err := FormSchema([]AutoFormField{{Name: "seats", Type: TypeInteger, Default: seats(5)}})
	if err != nil {
		t.Fatal(err)
	}
	assert.JSONEq(t, `5`, string(s.Properties["seats"].Default))

	_, err = FormSchema([]AutoFormField{{Name: "seats", Type: TypeInteger, Max: Bound(4), Default: seats(5)}})
	assert.ErrorIs(t, err, ErrDefault)
}

// TestDateTimeSignedFieldsRefused is the regression test for signed
// fields: RFC 3339's fields are DIGITs, and a field refuses a date-time
// with a signed one (internal/format's TestDateTimeDigitsOnly has the
// rest).
func TestDateTimeSignedFieldsRefused(t *testing.T) {
	f := AutoFormField{Name: "at", Type: TypeDatetime}
	for _, s := range []string{
		"2026-08-03T+1:00:00Z",
		"2026-08-03T-0:00:00Z",
		"2026-08-03T01:+0:00Z",
		"2026-08-03T01:00:+0Z",
		"2026-08-03T01:00:00++1:00",
		"2026-08-03T01:00:00+-0:00",
		"2026-08-03T01:00:00+01:+0",
		"2026-08-03T 1:00:00Z",
		"+026-08-03T01:00:00Z",
	} {
		assert.NotEmpty(t, f.checkValue(s), "checkValue(%q) kept it", s)
	}
}

// TestBoundsWrittenWhole: a message prints a whole-number bound as a
// person writes it, never in scientific notation (issue 32, finding 12:
// "greater than the maximum 1e+11").
func TestBoundsWrittenWhole(t *testing.T) {
	for _, tt := range []struct {
		name  string
		field AutoFormField
		v     any
		want  string
	}{
		{"maximum", AutoFormField{Name: "n", Type: TypeInteger, Max: Bound(1e11)}, 2e11, "100000000000"},
		{"minimum", AutoFormField{Name: "n", Type: TypeNumber, Min: Bound(-5e15)}, -6e15, "-5000000000000000"},
		{"fraction", AutoFormField{Name: "n", Type: TypeNumber, Max: Bound(0.5)}, 0.75, "0.5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.field.checkValue(tt.v)
			assert.Contains(t, got, tt.want)
			assert.NotContains(t, got, "e+")
		})
	}
}

// TestCheckValueExactIntegers: a Go integer is judged as it is, and a
// float64 against a bound kept as written by exact comparison where it
// equals the float64 nearest the bound; main judged both through a
// float64 (issue 32, finding 12).
func TestCheckValueExactIntegers(t *testing.T) {
	beyond := AutoFormField{Name: "n", Type: TypeInteger, Max: Bound(9007199254740992)}
	var exact AutoFormField // max 9223372036854775807, kept as written
	require.NoError(t, exact.setBound(true, "9223372036854775807"))
	exact.Name, exact.Type = "n", TypeInteger
	require.Equal(t, 9223372036854775808.0, *exact.Max, "Max holds the float64 nearest")
	for _, tt := range []struct {
		name  string
		field AutoFormField
		v     any
		want  string // "" means kept
	}{
		{"int64 above a float bound", beyond, int64(9007199254740993), "greater than the maximum 9007199254740992"},
		{"int64 at a float bound", beyond, int64(9007199254740992), ""},
		{"uint64 far above", beyond, uint64(math.MaxUint64), "greater than the maximum 9007199254740992"},
		{"json.Number above", beyond, json.Number("9007199254740992.5"), "greater than the maximum 9007199254740992"},
		{"float64 equal to the nearest, above the exact bound", exact, 9223372036854775808.0, "greater than the maximum 9223372036854775807"},
		{"float64 just below", exact, 9223372036854774784.0, ""},
		{"int64 at the exact bound", exact, int64(math.MaxInt64), ""},
		{"json.Number at the exact bound", exact, json.Number("9223372036854775807"), ""},
		{"json.Number above the exact bound", exact, json.Number("9223372036854775808"), "greater than the maximum 9223372036854775807"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.field.checkValue(tt.v))
		})
	}
	// A caller who sets another Max sets a float64 bound: the exact one
	// no longer counts.
	moved := exact
	moved.Max = Bound(10)
	assert.Equal(t, "greater than the maximum 10", moved.checkValue(11.0))
}
