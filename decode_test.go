package mcpform

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upper decodes itself, so Decode leaves it to encoding/json.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

type DecodeInner struct {
	City string `json:"city"`
}

type decodeTarget struct {
	Day     time.Time       `json:"day"`
	At      time.Time       `json:"at"`
	When    *time.Time      `json:"when"`
	Tags    []string        `json:"tags"`
	Seats   int             `json:"seats"`
	Small   int8            `json:"small"`
	Count   uint            `json:"count"`
	Ratio   float32         `json:"ratio"`
	Note    *string         `json:"note"`
	OK      bool            `json:"ok"`
	Name    string          // untagged: matched by its Go name, in any case
	Raw     json.RawMessage `json:"raw"`
	Any     any             `json:"any"`
	Shout   upper           `json:"shout"`
	Skipped string          `json:"-"`
	*DecodeInner
}

// TestAnswersDecode checks that Answers.Decode converts as a compiled
// form does, and leaves other types to encoding/json.
func TestAnswersDecodeTyped(t *testing.T) {
	plus2 := time.FixedZone("", 2*3600)
	note := "window"
	when := time.Date(2026, 8, 3, 23, 59, 59, 0, time.UTC)
	for _, tt := range []struct {
		name string
		a    Answers
		want decodeTarget
	}{
		{"date at UTC midnight", Answers{"day": "2026-08-03"}, decodeTarget{Day: time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC)}},
		{"date-time with its offset", Answers{"at": "2026-08-03T10:00:00.5+02:00"}, decodeTarget{At: time.Date(2026, 8, 3, 10, 0, 0, 5e8, plus2)}},
		{"date-time, lower case", Answers{"when": "2026-08-03t23:59:59z"}, decodeTarget{When: &when}},
		{"multi-select from JSON", Answers{"tags": []any{"av", "tea"}}, decodeTarget{Tags: []string{"av", "tea"}}},
		{"multi-select built in Go", Answers{"tags": []string{"av"}}, decodeTarget{Tags: []string{"av"}}},
		{"empty multi-select", Answers{"tags": []any{}}, decodeTarget{Tags: []string{}}},
		{"integers", Answers{"seats": 4.0, "small": -128.0, "count": 7.0}, decodeTarget{Seats: 4, Small: -128, Count: 7}},
		{"a Go integer", Answers{"seats": 4}, decodeTarget{Seats: 4}},
		{"number", Answers{"ratio": 0.5}, decodeTarget{Ratio: 0.5}},
		{"pointer allocated", Answers{"note": note}, decodeTarget{Note: &note}},
		{"boolean", Answers{"ok": true}, decodeTarget{OK: true}},
		{"case-insensitive name", Answers{"NAME": "Ada"}, decodeTarget{Name: "Ada"}},
		{"json fallback", Answers{"raw": []any{"x"}, "any": 1.0}, decodeTarget{Raw: json.RawMessage(`["x"]`), Any: 1.0}},
		{"UnmarshalText kept", Answers{"shout": "hi"}, decodeTarget{Shout: "HI"}},
		{"embedded pointer allocated", Answers{"city": "London"}, decodeTarget{DecodeInner: &DecodeInner{City: "London"}}},
		{"unknown and skipped keys ignored", Answers{"nope": 1.0, "-": "x", "Skipped": "x"}, decodeTarget{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got decodeTarget
			require.NoError(t, tt.a.Decode(&got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAnswersDecodeRefuses(t *testing.T) {
	for _, tt := range []struct {
		name  string
		a     Answers
		field string
	}{
		{"fraction into int", Answers{"seats": 3.5}, "seats"},
		{"overflow int8", Answers{"small": 128.0}, "small"},
		{"negative into uint", Answers{"count": -1.0}, "count"},
		{"huge into int", Answers{"seats": 1e300}, "seats"},
		{"string into int", Answers{"seats": "3"}, "seats"},
		{"number into string", Answers{"Name": 3.0}, "Name"},
		{"not a date", Answers{"day": "2026-02-30"}, "day"},
		{"number into time", Answers{"day": 1.0}, "day"},
		{"list with a number", Answers{"tags": []any{"a", 1.0}}, "tags"},
		{"string into list", Answers{"tags": "a"}, "tags"},
		{"number into bool", Answers{"ok": 1.0}, "ok"},
		{"overflow float32", Answers{"ratio": 1e300}, "ratio"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got decodeTarget
			err := tt.a.Decode(&got)
			require.ErrorIs(t, err, ErrType)
			var fe *FieldError
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, tt.field, fe.Field)
			assert.NotContains(t, err.Error(), "2026-02-30", "errors never quote the value")
		})
	}
}

// TestAnswersDecodeNonStruct: other targets decode through encoding/json,
// and nil Answers leave the target as it is.
func TestAnswersDecodeNonStruct(t *testing.T) {
	var m map[string]any
	require.NoError(t, Answers{"tags": []string{"a"}, "n": 1.0}.Decode(&m))
	assert.Equal(t, map[string]any{"tags": []any{"a"}, "n": 1.0}, m)

	got := decodeTarget{Name: "kept"}
	require.NoError(t, Answers(nil).Decode(&got))
	assert.Equal(t, "kept", got.Name)

	assert.Error(t, Answers{"a": 1.0}.Decode(decodeTarget{}), "not a pointer")
}
