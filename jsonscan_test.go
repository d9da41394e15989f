package mcpform

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestValidJSON checks validJSON against utf8.Valid and json.Valid, the
// two checks it replaces, on edge cases of the grammar; FuzzFlowState
// compares them on any input.
func TestValidJSON(t *testing.T) {
	nest := func(n int, open, close string) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	inputs := map[string]string{
		"empty":               ``,
		"space":               " \t\r\n",
		"literals":            `[true,false,null]`,
		"bad literal":         `[tru]`,
		"literal prefix":      `nul`,
		"numbers":             `[0,-0,1.5,-1e3,1E+2,2e-7,123456789012345678901234567890]`,
		"leading zero":        `01`,
		"bare minus":          `-`,
		"dot without digits":  `1.`,
		"exponent no digits":  `1e+`,
		"plus sign":           `+1`,
		"strings":             `["","\"\\\/\b\f\n\r\t\u00e9\uD83C\uDF89","ünï 🎉"]`,
		"bad escape":          `"\x"`,
		"short unicode":       `"\u12"`,
		"control character":   "\"a\x1fb\"",
		"DEL":                 "\"\x7f\"",
		"invalid UTF-8":       "\"\xff\"",
		"truncated UTF-8":     "\"\xe4\xb8\"",
		"surrogate in UTF-8":  "\"\xed\xa0\x80\"",
		"non-ASCII outside":   "[1]\xc3\xa9",
		"objects":             `{"a":{"b":[{},[]]},"c":1}`,
		"trailing comma":      `{"a":1,}`,
		"missing colon":       `{"a" 1}`,
		"non-string key":      `{1:2}`,
		"two values":          `1 2`,
		"unclosed":            `[1,{"a":[`,
		"depth 10000":         nest(10000, "[", "]"),
		"depth 10001":         nest(10001, "[", "]"),
		"object depth 10001":  strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
		"object depth 10000":  strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
		"unterminated string": `"abc`,
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want := utf8.Valid([]byte(in)) && json.Valid([]byte(in))
			assert.Equal(t, want, validJSON([]byte(in)))
		})
	}
}
