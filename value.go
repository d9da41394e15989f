package mcpform

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// checkValue returns why v does not satisfy the field's property schema, or
// "" when it does. It is the single judge of values: answers and defaults
// both go through it. Reasons never quote the value, which is untrusted.
func (f *AutoFormField) checkValue(v any) string {
	switch f.kind() {
	case kindBoolean:
		if _, ok := v.(bool); !ok {
			return "not a boolean"
		}
	case kindNumber, kindInteger:
		n, ok := toFloat(v)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return "not a number"
		}
		if f.kind() == kindInteger && n != math.Trunc(n) {
			return "not an integer"
		}
		if f.Min != nil && n < *f.Min {
			return "less than the minimum " + formatBound(*f.Min)
		}
		if f.Max != nil && n > *f.Max {
			return "greater than the maximum " + formatBound(*f.Max)
		}
	case kindEnum:
		s, ok := v.(string)
		if !ok {
			return "not a string"
		}
		if !f.hasOption(s) {
			return "not one of the options"
		}
	case kindMulti:
		// A list decoded from JSON is []any; one built in Go may be a
		// []string. Both mean the same answer.
		var n int
		switch items := v.(type) {
		case []any:
			n = len(items)
		case []string:
			n = len(items)
		default:
			return "not a list"
		}
		if f.Min != nil && float64(n) < *f.Min {
			return "fewer than " + formatBound(*f.Min) + " choices"
		}
		if f.Max != nil && float64(n) > *f.Max {
			return "more than " + formatBound(*f.Max) + " choices"
		}
		if !f.allOptions(v) {
			return "a choice is not one of the options"
		}
	default:
		s, ok := v.(string)
		if !ok {
			return "not a string"
		}
		if reason := f.checkText(s); reason != "" {
			return reason
		}
		// JSON Schema counts characters as code points; the
		// TypeScript helper counts UTF-16 units, so an emoji counts
		// twice there.
		if f.Min != nil || f.Max != nil {
			n := float64(utf8.RuneCountInString(s))
			if f.Min != nil && n < *f.Min {
				return "shorter than " + formatBound(*f.Min) + " characters"
			}
			if f.Max != nil && n > *f.Max {
				return "longer than " + formatBound(*f.Max) + " characters"
			}
		}
		switch f.format() {
		case "email":
			if !isEmail(s) {
				return "not a valid email address"
			}
		case "uri":
			if !isURI(s) {
				return "not a valid absolute URI"
			}
		case "date":
			if !isDate(s) {
				return "not a valid date (YYYY-MM-DD)"
			}
		case "date-time":
			if !isDateTime(s) {
				return "not a valid date-time (RFC 3339)"
			}
		}
	}
	return ""
}

// checkText returns why s is refused as a text answer of any format, or
// "". A text answer holds no C0 control character but tab, and no CR or
// LF outside a textarea: they are invisible on screen, NUL is refused by
// PostgreSQL's text type, and CR LF turns a value into more lines of a
// mail header or a log. Nor does it hold a bidirectional embedding,
// override or isolate, unless the field allows them (AllowBidi). JSON
// Schema's formats allow all of these: doc.go lists the difference.
func (f *AutoFormField) checkText(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			if f.Type != TypeTextarea {
				return "a line break, which only a multi-line field takes"
			}
		case c < 0x20 && c != '\t':
			return "a control character"
		case c == 0xE2 && !f.AllowBidi && i+2 < len(s) && isBidiControl(s[i+1], s[i+2]):
			return "a bidirectional control character"
		}
	}
	return ""
}

// isBidiControl reports whether b1 b2 are the last two bytes of the UTF-8
// encoding, after 0xE2, of U+202A to U+202E (E2 80 AA to AE) or U+2066 to
// U+2069 (E2 81 A6 to A9).
func isBidiControl(b1, b2 byte) bool {
	return b1 == 0x80 && 0xAA <= b2 && b2 <= 0xAE || b1 == 0x81 && 0xA6 <= b2 && b2 <= 0xA9
}

// allOptions reports whether every item of the list v, a []any or a
// []string, is one of the field's option values.
func (f *AutoFormField) allOptions(v any) bool {
	switch items := v.(type) {
	case []string:
		for _, s := range items {
			if !f.hasOption(s) {
				return false
			}
		}
	case []any:
		for _, it := range items {
			if s, ok := it.(string); !ok || !f.hasOption(s) {
				return false
			}
		}
	}
	return true
}

func (f *AutoFormField) hasOption(s string) bool {
	for _, o := range f.Options {
		if o.Value == s {
			return true
		}
	}
	return false
}

func formatBound(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }

// toFloat converts a number, as decoded by encoding/json or built in Go
// (a named type such as "type seats int" included), to a float64, and
// reports whether v was a number at all. The result may be NaN or infinite,
// which no JSON number is: callers refuse those.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64: // what encoding/json decodes: the hot path
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	}
	return 0, false
}
