package mcpform

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/format"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AcceptedFormArguments returns the accepted values of a submitted
// [DisplayForm], checked against fields, and whether the answer was
// accepted. Pass the submit tool's raw arguments, req.Params.Arguments.
//
// A browser does not send what a native client sends, so the values are
// first made typed, field by field:
//
//   - "" means absent, for every field;
//   - for a number, integer or range field, a string in the form of an
//     HTML number ("42", "-1.5", "2e3") becomes that number; anything else,
//     such as " 42", "0x10", "NaN" or "1e999", is left as it is, and so is
//     dropped as not a number;
//   - for a datetime or datetime-local field, a local date and time as a
//     datetime-local input sends it, "2026-08-03T10:00" with optional
//     seconds and fraction, carries no zone: it is read as UTC, and becomes
//     "2026-08-03T10:00:00Z";
//   - for a checkbox or boolean field, "on" becomes true, and an absent
//     value false;
//   - a key the renderer camel-cased (fullName for a field full_name) is
//     read as that field's, unless the field's own name was sent too.
//
// Nothing else is converted: a list for a single choice, or one string for
// a multiple choice, is dropped. Then the rules of [AcceptedFormInput]
// apply, unchanged, so a handler gets the same [Answers] whichever path the
// person took, and nothing outside the field's schema: values such as a
// number below Min (the browser does not enforce it) are dropped, and a
// missing required field fails the whole answer.
//
// AcceptedFormArguments returns nil, false when args is not a JSON object,
// when it is an object with no keys, which is what a first call carries
// (the submitted form always sends its fields), when a required value is
// missing or invalid, and when fields is broken. To learn why, call
// [CheckFormArguments].
func AcceptedFormArguments(args json.RawMessage, fields []AutoFormField) (Answers, bool) {
	a, _ := CheckFormArguments(args, fields)
	return a, a != nil
}

// CheckFormArguments is [AcceptedFormArguments] with the reasons, reported
// as [CheckFormInput] reports them and named by field, whatever key the
// renderer used. When args is not a JSON object or has no keys there is no
// answer to check, and CheckFormArguments returns nil, nil. A broken fields
// is returned as its only problem.
func CheckFormArguments(args json.RawMessage, fields []AutoFormField) (Answers, []*FieldError) {
	raw, ok := decodeArguments(args)
	if !ok {
		return nil, nil
	}
	c, err := uncompiled(fields)
	if err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{Err: err} // ErrNoFields
		}
		return nil, []*FieldError{fe}
	}
	accepted, problems, missing := checkCompiled(c.normalizeArguments(raw), c.fields, c.lookup, true)
	if missing {
		return nil, problems
	}
	return accepted, problems
}

// ReadArguments is [Form.Read] for the UI path: it reads the arguments a
// submitted [Form.Display] called the submit tool with, made typed as
// [AcceptedFormArguments] describes, and judges and decodes them as Read
// does. Arguments that are not a JSON object, or an object with no keys,
// as on the call that showed the form, are no answer: the Reply's Status is
// ReplyNone. Any other object is an accepted answer, which is ReplyAccepted
// or ReplyInvalid; the UI has no decline.
func (f *Form[T]) ReadArguments(args json.RawMessage) Reply[T] {
	raw, ok := decodeArguments(args)
	if !ok {
		return Reply[T]{Status: ReplyNone}
	}
	// The same path as a native answer, from here on.
	return f.Read(mcp.InputResponseMap{f.c.key: &mcp.ElicitResult{
		Action: "accept", Content: f.c.normalizeArguments(raw),
	}})
}

// decodeArguments decodes arguments that must be a JSON object with at
// least one key, through readArguments, the one decoder of arguments.
func decodeArguments(args json.RawMessage) (map[string]any, bool) {
	v, err := readArguments(args)
	m, ok := v.(map[string]any)
	if err != nil || !ok || len(m) == 0 {
		return nil, false
	}
	answerNumbers(m)
	return m, true
}

// errTrailing reports arguments with more than one JSON value.
var errTrailing = errors.New("mcpform: arguments hold more than one JSON value")

// readArguments is the one decoder of a tool call's arguments, for every
// path that reads them (see callArguments and decodeArguments): one JSON
// value, decoded by encoding/json with its numbers kept as written, as
// json.Number, so that nothing of the call is read through float64. A
// number too large for any Go type is therefore no error here: a field
// names it as a problem, and the binding digest covers it as written.
//
// JSON that says two things, a key given twice, invalid UTF-8 or a lone
// surrogate escape (see canonjson.Check), is found in the same call, on
// the bytes, before anything is read from it: in an object, each member
// that holds one is decoded as an unclearValue, for the caller to refuse
// (the tool's own arguments) or ask again (an answer); any other value
// that holds one is an error.
func readArguments(raw []byte) (any, error) {
	v, err := decodeValue(raw)
	if err != nil {
		return nil, err
	}
	if bad := canonjson.Members(raw); bad != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, bad[0].Err
		}
		for _, e := range bad {
			m[e.Key] = unclearValue{e}
		}
	}
	return v, nil
}

// An unclearValue stands, in decoded arguments or an answer's content,
// for a member whose key or value says two things (see readArguments). It
// is never bound, and never kept as an answer: checkReason refuses it,
// naming its field.
type unclearValue struct{ err *canonjson.MemberError }

// MarshalJSON fails with u's defect: what said two things is never
// written anywhere, in a state, a digest or a result, as one of them.
func (u unclearValue) MarshalJSON() ([]byte, error) { return nil, u.err }

// reason is why an answer holding u is asked again.
func (u unclearValue) reason() *catalog.Reason {
	if errors.Is(u.err, canonjson.ErrDuplicateKey) {
		return refused(catalog.GivenTwice)
	}
	return refused(catalog.NotUnicode)
}

// decodeValue decodes raw, one JSON value, with its numbers as written,
// through a pooled decoder.
func decodeValue(raw []byte) (any, error) {
	d, _ := argDecoders.Get().(*argDecoder)
	if d == nil {
		d = &argDecoder{}
		d.dec = json.NewDecoder(&d.src)
		d.dec.UseNumber()
	}
	d.src.Reset(raw)
	var v any
	err := d.dec.Decode(&v)
	if err == nil {
		// One value and white space: the next token is the end of the input.
		if _, end := d.dec.Token(); end != io.EOF {
			err = errTrailing
		}
	}
	if err != nil {
		return nil, err // d is dropped: its state after an error is not known
	}
	if len(raw) <= maxPooledArguments {
		d.src.Reset(nil)
		argDecoders.Put(d)
	}
	return v, nil
}

// readContent reads an answer's content that a face handed as written,
// through readArguments, the one decoder, so that a native answer is read
// as the arguments are: numbers as written (see answerNumbers), and a
// field whose value says two things asked again. Content that is not an
// object is returned as something that is not one either.
func readContent(raw json.RawMessage) any {
	v, err := readArguments(raw)
	if err != nil {
		return raw
	}
	if m, ok := v.(map[string]any); ok {
		answerNumbers(m)
	}
	return v
}

// An argDecoder is a json.Decoder over a reader whose bytes change with
// each call. The decoder reads one value and stops at the end of its
// input, so it can go on to the next call's: pooled, a call's arguments
// cost no decoder, reader or buffer of their own.
type argDecoder struct {
	src bytes.Reader
	dec *json.Decoder
}

var argDecoders sync.Pool

// maxPooledArguments bounds the arguments whose decoder goes back to the
// pool, so that the pool never keeps the buffer of a large call.
const maxPooledArguments = 4 << 10

// answerNumbers turns each number among the answers m, and in their
// lists, into the float64 that go-sdk decodes a native answer's number
// into, when that float64 is exactly the number written, so that a
// handler gets the same [Answers] on every path. A number no float64
// holds exactly (1e400, 50.0000000000000001, 9007199254740993) stays a
// json.Number, which a field judges on its digits, as written: it is
// never rounded into a field's bounds or into a whole number. Only an
// accepted one is converted then (see acceptedNumber).
func answerNumbers(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case json.Number:
			m[k] = answerNumber(v)
		case []any:
			for i, it := range v {
				if n, ok := it.(json.Number); ok {
					v[i] = answerNumber(n)
				}
			}
		}
	}
}

func answerNumber(n json.Number) any {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return n
	}
	// An integer of up to 15 digits is exact; any other number is exact
	// when the float64's shortest spelling is the same number.
	if s := string(n); (len(s) > 15 || !canonjson.IsCanonicalInteger(s)) &&
		canonjson.Number(s) != canonjson.Number(strconv.FormatFloat(f, 'g', -1, 64)) {
		return n // rounded: not the number that was written
	}
	return f
}

// normalizeArguments turns what a browser sent, raw, into the typed content
// checkCompiled judges; raw is changed and returned. It never reads beyond
// the field list: keys that name no field are left for the checker to drop.
// It costs one pass over the fields, whatever was sent.
func (c *compiled) normalizeArguments(raw map[string]any) map[string]any {
	c.renameArguments(raw)
	for i := range c.fields {
		f := &c.fields[i]
		v, present := raw[f.Name]
		if s, ok := v.(string); present && ok && s == "" {
			delete(raw, f.Name)
			present = false
		}
		switch f.kind() {
		case kindBoolean:
			if !present {
				raw[f.Name] = false
			} else if v == "on" {
				raw[f.Name] = true
			}
		case kindNumber, kindInteger:
			if present {
				raw[f.Name] = browserNumber(v)
			}
		case kindString:
			if s, ok := v.(string); present && ok && f.format() == "date-time" {
				raw[f.Name] = localDateTime(s)
			}
		}
	}
	return raw
}

// renameArguments moves each value the renderer delivered under a
// camel-cased key to its field's name, unless the field's own name was sent
// too, the key names a field itself, or two fields share the key (lists
// DisplayForm refuses, but the checker still takes).
func (c *compiled) renameArguments(raw map[string]any) {
	var owner map[string]int // renamed key -> field index, -1 when shared
	for i := range c.fields {
		name := c.fields[i].Name
		if key := prefab.RendererKey(name); key != name {
			if owner == nil {
				owner = make(map[string]int)
			}
			if _, dup := owner[key]; dup {
				owner[key] = -1
			} else {
				owner[key] = i
			}
		}
	}
	for key, i := range owner {
		v, sent := raw[key]
		if !sent || i < 0 || c.lookup(key) >= 0 {
			continue
		}
		name := c.fields[i].Name
		if _, own := raw[name]; !own {
			delete(raw, key)
			raw[name] = v
		}
	}
}

// browserNumber returns v made a number, when it is a string in the form
// of an HTML valid floating-point number, as answerNumber makes a JSON
// number: the float64 that is exactly that number, or else the number as
// written, a json.Number, for the checker to judge on its digits. Any
// other v is returned as it is, for the checker to refuse or judge.
// Nothing is rounded before it is judged: 50.0000000000000001 stays
// above a maximum of 50.
func browserNumber(v any) any {
	if s, ok := v.(string); ok && isHTMLNumber(s) {
		return answerNumber(json.Number(s))
	}
	return v
}

// isHTMLNumber reports whether s is an HTML valid floating-point number:
// an optional '-', digits with an optional fraction or a fraction alone,
// and an optional exponent. It is what an <input type=number> submits, and
// nothing a person would have to guess at: no sign '+', no space, no hex,
// no NaN or Infinity.
func isHTMLNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(s, "E")
	}
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	if intPart == "" && !hasFrac || intPart != "" && !format.AllDigits(intPart) || hasFrac && !format.AllDigits(frac) {
		return false
	}
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		return format.AllDigits(exp)
	}
	return true
}

// localDateTime returns s as an RFC 3339 date-time in UTC when s has the
// form of an HTML local date and time, YYYY-MM-DDTHH:MM with optional
// seconds and a fraction of up to three digits, which is what a
// datetime-local input sends; it adds ":00" for missing seconds and the
// zone "Z". Any other s is returned as it is, for the checker to judge:
// the result is only ever accepted as a valid date-time.
func localDateTime(s string) string {
	const minute = len("2006-01-02T15:04")
	if len(s) < minute || !hasShape(s[:minute], "dddd-dd-ddTdd:dd") {
		return s
	}
	switch rest := s[minute:]; {
	case rest == "":
		return s + ":00Z"
	case len(rest) == 3 && hasShape(rest, ":dd"),
		len(rest) >= 5 && len(rest) <= 7 && hasShape(rest[:4], ":dd.") && format.AllDigits(rest[4:]):
		return s + "Z"
	}
	return s
}

// hasShape reports whether s matches shape, in which 'd' stands for an ASCII
// digit and any other byte for itself.
func hasShape(s, shape string) bool {
	if len(s) != len(shape) {
		return false
	}
	for i := range len(s) {
		if shape[i] == 'd' && (s[i] < '0' || s[i] > '9') || shape[i] != 'd' && s[i] != shape[i] {
			return false
		}
	}
	return true
}
