package mcpform

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

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
