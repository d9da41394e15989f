package mcpform

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Errors that say why part of an answer was not accepted. They reach callers
// wrapped in a [*FieldError] that names the field.
var (
	// ErrUnknownField reports an answered key that names no field.
	ErrUnknownField = errors.New("unknown field")
	// ErrInvalidValue reports a value that does not satisfy its field's
	// property schema. The wrapping error says which rule it breaks,
	// without repeating the value.
	ErrInvalidValue = errors.New("invalid value")
	// ErrMissing reports a required field with no acceptable value.
	ErrMissing = errors.New("missing required value")
)

// Answers holds the accepted values of a form answer, keyed by field name.
// Values have their JSON types: string, float64 (or another Go number, when
// the caller built the content in-process), bool, and []any of strings for a
// multiple-choice field. A nil Answers holds nothing.
type Answers map[string]any

// Decode stores the answers in the value pointed to by v, as encoding/json
// would from the equivalent JSON object; a struct's json tags name the
// fields. An integer field decodes into any Go integer type, and a
// multiple-choice field into a []string. Decoding nil Answers leaves v as it
// is.
func (a Answers) Decode(v any) error {
	if a == nil {
		return nil
	}
	b, err := json.Marshal(map[string]any(a))
	if err != nil {
		return fmt.Errorf("mcpform: decoding answers: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("mcpform: decoding answers: %w", err)
	}
	return nil
}

// InputResponse returns the client's form answer under key, or nil when
// there is none: on a first call, for an unknown key, or when the response
// under key is not an elicitation result. Use it to tell a decline
// (Action "decline") or cancel (Action "cancel") from a first pass, which
// [AcceptedFormInput] reports alike. The result is the client's raw,
// unchecked answer. A nil responses has no answers.
func InputResponse(responses mcp.InputResponseMap, key string) *mcp.ElicitResult {
	r, _ := responses[key].(*mcp.ElicitResult)
	return r
}

// AcceptedFormInput returns the accepted values of the client's form answer
// under key, checked against fields, and whether the answer was accepted.
//
// The answer is untrusted. A value is kept only when its key names a field
// and the value satisfies that field's property in [FormSchema], exactly as a
// JSON Schema 2020-12 validator asserting formats would judge it: email, uri,
// date and date-time formats, string lengths in Unicode code points, item
// counts, and integers as whole numbers (42.0 is an integer). Other keys and
// values are dropped. If a required field is then missing, the whole answer
// fails.
//
// AcceptedFormInput returns nil, false when there is no answer, when it was
// declined or cancelled, when it was accepted without content, when a
// required value is missing or invalid, and when fields is broken. To learn
// why, call [CheckFormInput].
func AcceptedFormInput(responses mcp.InputResponseMap, key string, fields []AutoFormField) (Answers, bool) {
	a, _ := CheckFormInput(responses, key, fields)
	return a, a != nil
}

// CheckFormInput is [AcceptedFormInput] with the reasons. It returns the
// accepted answers, or nil when the answer as a whole fails, and one
// [*FieldError] for every dropped value (wrapping [ErrUnknownField] or
// [ErrInvalidValue]) and every missing required field (wrapping
// [ErrMissing]), in field order, then unknown keys in key order. The
// problems are meant for asking again with a message that names them.
//
// When there is no accepted answer to check, CheckFormInput returns nil, nil;
// read [InputResponse] to learn whether the person declined. A broken
// fields is returned as its only problem.
func CheckFormInput(responses mcp.InputResponseMap, key string, fields []AutoFormField) (Answers, []*FieldError) {
	r := InputResponse(responses, key)
	if r == nil || r.Action != "accept" || r.Content == nil {
		return nil, nil
	}
	return checkContent(r.Content, fields)
}

// checkContent applies the acceptance rules to an answer's content; both the
// native and the UI path end here.
func checkContent(content map[string]any, fields []AutoFormField) (Answers, []*FieldError) {
	if err := checkFields(fields); err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{Err: err}
		}
		return nil, []*FieldError{fe}
	}
	// Walk the content rather than the fields: one pass over what the
	// client sent, with a linear name match that beats hashing for forms
	// of a person's size.
	var keptBuf [64]bool
	var kept []bool
	if len(fields) <= len(keptBuf) {
		kept = keptBuf[:len(fields)]
	} else {
		kept = make([]bool, len(fields))
	}
	var problems []*FieldError
	accepted := make(Answers, len(content))
	unknown := false
	for name, v := range content {
		i := fieldIndex(fields, name)
		if i < 0 {
			unknown = true
			continue
		}
		if reason := fields[i].checkValue(v); reason != "" {
			problems = append(problems, fieldErr(name, ErrInvalidValue, "%s", reason))
			continue
		}
		accepted[name] = v
		kept[i] = true
	}
	missing := false
	for i := range fields {
		if fields[i].Required && !kept[i] {
			missing = true
			if _, sent := content[fields[i].Name]; !sent {
				problems = append(problems, &FieldError{Field: fields[i].Name, Err: ErrMissing})
			}
		}
	}
	if len(problems) > 1 {
		// Report in field order, whatever order the map gave.
		slices.SortFunc(problems, func(a, b *FieldError) int {
			return fieldIndex(fields, a.Field) - fieldIndex(fields, b.Field)
		})
	}
	if unknown {
		problems = appendUnknown(problems, content, fields)
	}
	if missing {
		return nil, problems
	}
	return accepted, problems
}

// appendUnknown reports the keys of content that name no field, sorted so
// the report is stable.
func appendUnknown(problems []*FieldError, content map[string]any, fields []AutoFormField) []*FieldError {
	var unknown []string
	for k := range content {
		if fieldIndex(fields, k) < 0 {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		problems = append(problems, &FieldError{Field: k, Err: ErrUnknownField})
	}
	return problems
}

func fieldIndex(fields []AutoFormField, name string) int {
	for i := range fields {
		if fields[i].Name == name {
			return i
		}
	}
	return -1
}

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
		items, ok := v.([]any)
		if !ok {
			return "not a list"
		}
		if f.Min != nil && float64(len(items)) < *f.Min {
			return "fewer than " + formatBound(*f.Min) + " choices"
		}
		if f.Max != nil && float64(len(items)) > *f.Max {
			return "more than " + formatBound(*f.Max) + " choices"
		}
		for _, it := range items {
			s, ok := it.(string)
			if !ok || !f.hasOption(s) {
				return "a choice is not one of the options"
			}
		}
	default:
		s, ok := v.(string)
		if !ok {
			return "not a string"
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

func (f *AutoFormField) hasOption(s string) bool {
	for _, o := range f.Options {
		if o.Value == s {
			return true
		}
	}
	return false
}

func formatBound(b float64) string { return strconv.FormatFloat(b, 'g', -1, 64) }

// toFloat converts a number, as decoded by encoding/json or built in Go, to
// a float64, and reports whether v was a number at all. The result may be
// NaN or infinite, which no JSON number is: callers refuse those.
func toFloat(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int8:
		f = float64(n)
	case int16:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint8:
		f = float64(n)
	case uint16:
		f = float64(n)
	case uint32:
		f = float64(n)
	case uint64:
		f = float64(n)
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return f, true
}

// The format checks below implement the semantics of the format assertions
// of github.com/santhosh-tekuri/jsonschema/v6, which the tests use as the
// reference judge, without its per-call cost of a full schema evaluation.

// isEmail reports whether s is an email address: an unquoted local part of
// at most 64 bytes of atext and single dots (or a quoted one without
// backslash or quote), an '@', and a hostname or a bracketed IP literal;
// at most 254 bytes in all.
func isEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return false
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return false
		}
		for i := 0; i < len(local); i++ {
			c := local[i]
			if !isAlnum(c) && !strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", rune(c)) {
				return false
			}
		}
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(ip)
	}
	return isHostname(domain)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isHostname reports whether s (less one trailing dot) is at most 253 bytes
// of dot-separated labels of 1 to 63 letters, digits and inner hyphens.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for {
		label, rest, more := strings.Cut(s, ".")
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isIPv4 reports whether s is four dot-separated decimals from 0 to 255
// without leading zeros.
func isIPv4(s string) bool {
	for i := range 4 {
		group, rest, more := strings.Cut(s, ".")
		if more != (i < 3) {
			return false
		}
		if len(group) > 1 && group[0] == '0' {
			return false
		}
		n, err := strconv.Atoi(group)
		if err != nil || n < 0 || n > 255 {
			return false
		}
		s = rest
	}
	return true
}

func isIPv6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Zone() == ""
}

// isURI reports whether s parses as an absolute URL, with any IPv6 host
// bracketed and valid.
func isURI(s string) bool {
	if isPlainURL(s) {
		return true
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") || !isIPv6(host) {
			return false
		}
	}
	return u.IsAbs()
}

// isDate reports whether s is a full-date, YYYY-MM-DD, that exists in the
// proleptic Gregorian calendar: what time.Parse with time.DateOnly accepts,
// without its cost.
// isPlainURL reports whether s is an absolute URL of the common, plain
// shape that url.Parse always accepts: scheme "://" host [":" port] and
// then only characters that need no escaping and are never rejected. It
// spares the common case url.Parse's allocation; anything else, including
// every string with '%', an IPv6 host or a non-ASCII byte, goes the long
// way.
func isPlainURL(s string) bool {
	// A scheme is a letter, then letters, digits, '+', '-' and '.'.
	i := 0
	for i < len(s) && (isAlnum(s[i]) && (i > 0 || s[i] > '9') || i > 0 && strings.IndexByte("+-.", s[i]) >= 0) {
		i++
	}
	if i == 0 || !strings.HasPrefix(s[i:], "://") {
		return false
	}
	s = s[i+3:]
	i = 0
	for i < len(s) && (isAlnum(s[i]) || s[i] == '-' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && s[i] == ':' {
		i++
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && s[i] != '/' && s[i] != '?' && s[i] != '#' {
		return false
	}
	for ; i < len(s); i++ {
		if !isAlnum(s[i]) && !strings.ContainsRune("-._~!$&'()*+,;=:@/?#", rune(s[i])) {
			return false
		}
	}
	return true
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// digits parses a run of ASCII digits, and nothing else.
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

// isDateTime reports whether s is an RFC 3339 date-time: a full date, 't'
// or 'T', and a full time with a 'z'/'Z' or ±hh:mm offset. A leap second
// is allowed only at 23:59 UTC.
func isDateTime(s string) bool {
	if len(s) < 20 || (s[10] != 't' && s[10] != 'T') {
		return false
	}
	return isDate(s[:10]) && isTime(s[11:])
}

func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := atoi(s[0:2])
	m, ok2 := atoi(s[3:5])
	sec, ok3 := atoi(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	s = s[8:]
	if rest, ok := strings.CutPrefix(s, "."); ok {
		n := 0
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		if n == 0 {
			return false
		}
		s = rest[n:]
	}
	if s != "z" && s != "Z" {
		if len(s) != 6 || s[3] != ':' {
			return false
		}
		var sign int
		switch s[0] {
		case '+':
			sign = -1
		case '-':
			sign = +1
		default:
			return false
		}
		zh, ok1 := atoi(s[1:3])
		zm, ok2 := atoi(s[4:6])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return false
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || (h == 23 && m == 59)
}

// atoi parses a field of a time the way strconv.Atoi does, which accepts a
// sign ("+1", "-0"); the reference judge does too, so this must.
func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}
