package mcpform

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// accounts has 64-bit integers whose bounds and answers go beyond 2^53,
// the largest integer up to which every float64 is whole and exact.
type accounts struct {
	Account int64   `json:"account" mcpform:"min=-9007199254740993,max=9007199254740993"`
	Serial  uint64  `json:"serial"`
	Ledger  int64   `json:"ledger"`
	Small   *int8   `json:"small"`
	Ratio   float64 `json:"ratio" mcpform:"max=1e11"`
}

// TestFormForExactIntegers (issue 32, finding 12): an int64 or uint64
// field is exact through its bounds (max=9007199254740993 compiles, and
// the limits are the type's own), its answers (9007199254740993 decodes
// as itself, on every path that has it as written) and its messages
// (integers in digits, never 9.007199254740992e+15), in every language.
func TestFormForExactIntegers(t *testing.T) {
	form, err := FormFor[accounts](nil)
	require.NoError(t, err, "max=9007199254740993 in a tag is a bound an int64 holds")

	read := map[string]func(field, number string) Reply[accounts]{
		"ReadArguments": func(field, number string) Reply[accounts] {
			// Each key once: a key given twice is asked again (issue 32, item 7).
			args := map[string]json.RawMessage{"small": []byte("1"), "ratio": []byte("1"), "account": []byte("1"), "serial": []byte("1"), "ledger": []byte("1")}
			args[field] = json.RawMessage(number)
			b, err := json.Marshal(args)
			require.NoError(t, err)
			return form.ReadArguments(b)
		},
		"Read with json.Number content": func(field, number string) Reply[accounts] {
			content := map[string]any{"small": 1.0, "ratio": 1.0, "account": 1.0, "serial": 1.0, "ledger": 1.0, field: json.Number(number)}
			return form.Read(mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "accept", Content: content}})
		},
	}
	for _, tt := range []struct {
		name, field, number string
		want                int64  // the int64 decoded, for account and ledger
		wantU               uint64 // for serial
		reason              string // "" when accepted; in English
		german              string
	}{
		{"bound as written", "account", "9007199254740993", 9007199254740993, 0, "", ""},
		{"beyond the bound", "account", "9007199254740994", 0, 0, "greater than the maximum 9007199254740993", "größer als das Maximum von 9007199254740993"},
		{"below the bound", "account", "-9007199254740994", 0, 0, "less than the minimum -9007199254740993", "kleiner als das Minimum von -9007199254740993"},
		{"at the lower bound", "account", "-9007199254740993", -9007199254740993, 0, "", ""},
		{"int64 limit", "ledger", "9223372036854775807", math.MaxInt64, 0, "", ""},
		{"int64 lower limit", "ledger", "-9223372036854775808", math.MinInt64, 0, "", ""},
		{"past the int64 limit", "ledger", "9223372036854775808", 0, 0, "greater than the maximum 9223372036854775807", "größer als das Maximum von 9223372036854775807"},
		{"past the int64 limit, as an exponent", "ledger", "1e19", 0, 0, "greater than the maximum 9223372036854775807", "größer als das Maximum von 9223372036854775807"},
		{"uint64 limit", "serial", "18446744073709551615", 0, math.MaxUint64, "", ""},
		{"2^53+1 into a uint64", "serial", "9007199254740993", 0, 9007199254740993, "", ""},
		{"past the uint64 limit", "serial", "18446744073709551616", 0, 0, "greater than the maximum 18446744073709551615", "größer als das Maximum von 18446744073709551615"},
		{"int8 limit", "small", "128", 0, 0, "greater than the maximum 127", "größer als das Maximum von 127"},
		{"float bound, whole", "ratio", "100000000000.5", 0, 0, "greater than the maximum 100000000000", "größer als das Maximum von 100000000000"},
	} {
		for name, read := range read {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				r := read(tt.field, tt.number)
				if tt.reason != "" {
					require.Equal(t, ReplyInvalid, r.Status)
					assert.Equal(t, tt.reason, onlyReason(t, r.Problems, tt.field))
					var f AutoFormField
					for _, g := range form.Fields() {
						if g.Name == tt.field {
							f = g
						}
					}
					assert.Equal(t, tt.german, f.checkValueIn(catalog.German, json.Number(tt.number)))
					assert.Equal(t, tt.reason, f.checkValueIn(catalog.English, json.Number(tt.number)))
					return
				}
				require.Equal(t, ReplyAccepted, r.Status, "%v", r.Problems)
				switch tt.field {
				case "account":
					assert.Equal(t, tt.want, r.Value.Account)
				case "ledger":
					assert.Equal(t, tt.want, r.Value.Ledger)
				case "serial":
					assert.Equal(t, tt.wantU, r.Value.Serial)
				}
			})
		}
	}

	// A native answer is a float64 already: the nearest to what was
	// written. It is judged as it is, and never converted past the limit.
	r := form.Read(mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "accept", Content: map[string]any{
		"small": 1.0, "ratio": 1.0, "account": 1.0, "serial": 1.0, "ledger": 9223372036854775807.0}}})
	require.Equal(t, ReplyInvalid, r.Status, "2^63 is past the int64 limit")
	assert.Equal(t, "greater than the maximum 9223372036854775807", onlyReason(t, r.Problems, "ledger"))
}

// TestExactBoundsRefused: a bound kept as written is checked as written:
// against the other bound and against the Go type.
func TestExactBoundsRefused(t *testing.T) {
	_, err := FormFor[struct {
		N int64 `json:"n" mcpform:"min=9007199254740993,max=9007199254740992"`
	}](nil)
	require.ErrorIs(t, err, ErrBounds)
	assert.Contains(t, err.Error(), "min 9007199254740993 is greater than max 9007199254740992")

	_, err = FormFor[struct {
		N int64 `json:"n" mcpform:"max=9223372036854775808"`
	}](nil)
	require.ErrorIs(t, err, ErrBounds)
	assert.Contains(t, err.Error(), "bound 9223372036854775808 does not fit int64")

	_, err = FormFor[struct {
		N uint8 `json:"n" mcpform:"max=1e11"`
	}](nil)
	require.ErrorIs(t, err, ErrBounds)
	assert.Contains(t, err.Error(), "bound 100000000000 does not fit uint8")
}

// TestAnswersDecodeExactIntegers: Decode stores an integer as it was
// accepted, a json.Number on its digits and a Go int64 as it is, never
// through a float64.
func TestAnswersDecodeExactIntegers(t *testing.T) {
	var v struct {
		A int64  `json:"a"`
		B uint64 `json:"b"`
		C int64  `json:"c"`
		D int8   `json:"d"`
	}
	require.NoError(t, Answers{"a": json.Number("9007199254740993"), "b": json.Number("18446744073709551615"),
		"c": int64(math.MaxInt64), "d": json.Number("-1.28e2")}.Decode(&v))
	assert.Equal(t, int64(9007199254740993), v.A)
	assert.Equal(t, uint64(math.MaxUint64), v.B)
	assert.Equal(t, int64(math.MaxInt64), v.C)
	assert.Equal(t, int8(-128), v.D)
	for _, bad := range []Answers{{"a": json.Number("9223372036854775808")}, {"b": json.Number("-1")},
		{"d": json.Number("128")}, {"a": json.Number("1.5")}, {"a": 9223372036854775807.0}} {
		assert.ErrorIs(t, bad.Decode(&v), ErrType, "%v", bad)
	}
}
