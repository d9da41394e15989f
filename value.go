package mcpform

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/format"
)

// checkValue returns why v does not satisfy the field's property schema,
// in English, or "" when it does (see checkReason).
func (f *AutoFormField) checkValue(v any) string {
	if r := f.checkReason(v); r != nil {
		return r.Error()
	}
	return ""
}

// checkValueIn returns why v does not satisfy the field's property
// schema, in l, or "" when it does.
func (f *AutoFormField) checkValueIn(l lang, v any) string {
	if r := f.checkReason(v); r != nil {
		return r.In(catalog.Lang(l))
	}
	return ""
}

// checkReason returns why v does not satisfy the field's property schema,
// or nil when it does. It is the single judge of values: answers and
// defaults both go through it. A reason is a message of the catalogs,
// said in any language by lookup, and never quotes the value, which is
// untrusted.
func (f *AutoFormField) checkReason(v any) *catalog.Reason {
	switch f.kind() {
	case kindBoolean:
		if _, ok := v.(bool); !ok {
			return refused(msgNotBoolean)
		}
	case kindNumber, kindInteger:
		n, ok := toFloat(v)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return refused(msgNotNumber)
		}
		if f.kind() == kindInteger && n != math.Trunc(n) {
			return refused(msgNotInteger)
		}
		if f.Min != nil && n < *f.Min {
			return refusedBound(msgLessThanMin, "min", *f.Min)
		}
		if f.Max != nil && n > *f.Max {
			return refusedBound(msgGreaterThanMax, "max", *f.Max)
		}
	case kindEnum:
		s, ok := v.(string)
		if !ok {
			return refused(msgNotString)
		}
		if !f.hasOption(s) {
			return refused(msgNotOption)
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
			return refused(msgNotList)
		}
		if f.Min != nil && float64(n) < *f.Min {
			return refusedBound(msgFewerChoices, "min", *f.Min)
		}
		if f.Max != nil && float64(n) > *f.Max {
			return refusedBound(msgMoreChoices, "max", *f.Max)
		}
		if !f.allOptions(v) {
			return refused(msgChoiceNotOption)
		}
	default:
		s, ok := v.(string)
		if !ok {
			return refused(msgNotString)
		}
		if reason := f.checkText(s); reason != nil {
			return reason
		}
		// JSON Schema counts characters as code points; the
		// TypeScript helper counts UTF-16 units, so an emoji counts
		// twice there.
		if f.Min != nil || f.Max != nil {
			n := float64(utf8.RuneCountInString(s))
			if f.Min != nil && n < *f.Min {
				return refusedBound(msgShorter, "min", *f.Min)
			}
			if f.Max != nil && n > *f.Max {
				return refusedBound(msgLonger, "max", *f.Max)
			}
		}
		switch f.format() {
		case "email":
			if !format.Email(s) {
				return refused(msgNotEmail)
			}
		case "uri":
			if !format.URI(s) {
				return refused(msgNotURI)
			}
		case "date":
			if !format.Date(s) {
				return refused(msgNotDate)
			}
		case "date-time":
			if !format.DateTime(s) {
				return refused(msgNotDateTime)
			}
		}
	}
	return nil
}

// checkText returns why s is refused as a text answer of any format, or
// nil. JSON Schema's formats allow all of what it refuses, which no person
// means to type into one line: doc.go lists the difference.
//
//   - Controls: C0 but tab, DEL and C1 (U+0080 to U+009F). They do not
//     show on screen, NUL is refused by PostgreSQL's text type, and ESC
//     or CSI sequences drive terminals that show logs.
//   - Line breaks outside a textarea: CR, LF, NEL (U+0085) and the line
//     and paragraph separators U+2028 and U+2029, which turn a value into
//     more lines of a mail header or a log.
//   - Unless the field allows them (AllowBidi): bidirectional
//     embeddings, overrides and isolates, and the invisible marks that
//     change how text reads or compares without showing: zero-width
//     space, word joiner and invisible operators (U+200B, U+2060 to
//     U+2064), the direction marks LRM, RLM and ALM (U+200E, U+200F,
//     U+061C), U+180E and the BOM U+FEFF.
//   - A zero-width joiner or non-joiner (U+200D, U+200C) that joins
//     nothing, unless AllowBidi: each must stand between two characters
//     that are neither white space, nor a control, nor a format
//     character. Persian and Indic scripts put them between letters and
//     after a virama, and emoji sequences between emoji (after a
//     variation selector or skin tone too); a joiner at either end, next
//     to a space or beside another joiner hides in text instead.
func (f *AutoFormField) checkText(s string) *catalog.Reason {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\r':
				if f.Type != TypeTextarea {
					return refused(msgLineBreak)
				}
			case c < 0x20 && c != '\t' || c == 0x7f:
				return refused(msgControl)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if reason := f.checkRune(s, i, r, size); reason != nil {
			return reason
		}
		i += size
	}
	return nil
}

// checkRune is checkText's rule for the non-ASCII rune r at s[i:i+size].
func (f *AutoFormField) checkRune(s string, i int, r rune, size int) *catalog.Reason {
	switch {
	case r == 0x85 || r == 0x2028 || r == 0x2029:
		if f.Type != TypeTextarea {
			return refused(msgLineBreak)
		}
	case r < 0xa0:
		return refused(msgControl) // C1
	case f.AllowBidi:
	case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069:
		return refused(msgBidi)
	case isInvisibleMark(r):
		return refused(msgInvisible)
	case r == 0x200c || r == 0x200d:
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+size:])
		if i == 0 || i+size == len(s) || !joinable(before) || !joinable(after) {
			return refused(msgJoiner)
		}
	}
	return nil
}

// isInvisibleMark reports whether r is one of the zero-width and direction
// marks checkText refuses without AllowBidi.
func isInvisibleMark(r rune) bool {
	switch r {
	case 0x200b, 0x200e, 0x200f, 0x061c, 0x180e, 0xfeff:
		return true
	}
	return 0x2060 <= r && r <= 0x2064
}

// joinable reports whether a zero-width joiner may stand beside r: r is
// neither white space, nor a control, nor a format character (a joiner,
// a mark or a bidi control), nor invalid UTF-8.
func joinable(r rune) bool {
	return r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.Is(unicode.Cc, r) && !unicode.Is(unicode.Cf, r)
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

// refused returns the reason k, which has no placeholder. Each is made
// once and shared: nothing changes a Reason.
func refused(k msg) *catalog.Reason { return &fixedReasons[k] }

var fixedReasons = func() (r [msgCount]catalog.Reason) {
	for k := range r {
		r[k].Msg = msg(k)
	}
	return r
}()

// refusedBound returns the reason k, whose placeholder name is filled
// with the bound b.
func refusedBound(k msg, name string, b float64) *catalog.Reason {
	return &catalog.Reason{Msg: k, Args: []string{name, formatBound(b)}}
}

// reasonIn returns err's reason in l when err carries one, a
// *catalog.Reason that checkReason gave; otherwise s, the words err was
// given in.
func reasonIn(l lang, err error, s string) string {
	var r *catalog.Reason
	if errors.As(err, &r) {
		return r.In(catalog.Lang(l))
	}
	return s
}

// toFloat converts a number, as decoded by encoding/json or built in Go
// (a named type such as "type seats int" included), to a float64, and
// reports whether v was a number at all. The result may be NaN or infinite,
// which no JSON number is: callers refuse those.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64: // what encoding/json decodes: the hot path
		return n, true
	case json.Number:
		// Only a number a float64 holds exactly: rounding must not bring
		// a value into bounds or make it whole (see answerNumber).
		f, ok := answerNumber(n).(float64)
		return f, ok
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

// digits parses a run of ASCII digits, and nothing else: no sign, no
// space. uinames.go reads numbers with it; internal/format has its own.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
