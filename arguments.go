package mcpform

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
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
//   - for a checkbox or boolean field, "on" becomes true, and an absent
//     value false;
//   - a key the renderer camel-cased (fullName for a field full_name) is
//     read as that field's, unless the field's own name was sent too.
//
// Nothing else is converted: a list for a single choice, or one string for
// a multiple choice, is dropped. Then the rules of [AcceptedFormInput]
// apply, unchanged, so a handler gets the same [Answers] whichever path the
// person took: values outside the field's schema, such as a number below
// Min (the browser does not enforce it), are dropped, and a missing
// required field fails the whole answer.
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
// answer to check, and CheckFormArguments returns nil, nil.
func CheckFormArguments(args json.RawMessage, fields []AutoFormField) (Answers, []*FieldError) {
	raw, ok := decodeArguments(args)
	if !ok {
		return nil, nil
	}
	return checkContent(normalizeArguments(raw, fields), fields)
}

// decodeArguments decodes a JSON object with its numbers kept as written,
// so that one out-of-range number fails its field, not the whole answer.
func decodeArguments(args json.RawMessage) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || len(m) == 0 {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data: not one JSON value
	}
	return m, true
}

// normalizeArguments turns what a browser sent into the typed content
// checkContent judges. It never reads beyond the field list: keys that name
// no field are passed on for checkContent to drop.
func normalizeArguments(raw map[string]any, fields []AutoFormField) map[string]any {
	content := make(map[string]any, len(raw))
	for k, v := range raw {
		if fieldIndex(fields, k) < 0 {
			if i := renamedField(fields, k); i >= 0 {
				if _, sent := raw[fields[i].Name]; !sent {
					k = fields[i].Name
				}
			}
		}
		content[k] = v
	}
	for i := range fields {
		f := &fields[i]
		v, present := content[f.Name]
		if s, ok := v.(string); present && ok && s == "" {
			delete(content, f.Name)
			present = false
		}
		switch f.kind() {
		case kindBoolean:
			if !present {
				content[f.Name] = false
			} else if v == "on" {
				content[f.Name] = true
			}
		case kindNumber, kindInteger:
			if present {
				content[f.Name] = browserNumber(v)
			}
		}
	}
	return content
}

// renamedField returns the index of the one field the renderer delivers
// under key, when key is not its name, or -1.
func renamedField(fields []AutoFormField, key string) int {
	found := -1
	for i := range fields {
		if fields[i].Name != key && rendererKey(fields[i].Name) == key {
			if found >= 0 {
				return -1 // ambiguous: DisplayForm refuses such lists
			}
			found = i
		}
	}
	return found
}

// browserNumber returns v as a float64 when it is a finite JSON number or a
// string in the form of an HTML valid floating-point number, and v as it is
// otherwise, for checkContent to refuse.
func browserNumber(v any) any {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case string:
		if !isHTMLNumber(n) {
			return v
		}
		s = n
	default:
		return v
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return v // out of range: not a number any JSON Schema accepts
	}
	return f
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
	if intPart == "" && !hasFrac || intPart != "" && !allDigits(intPart) || hasFrac && !allDigits(frac) {
		return false
	}
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		return allDigits(exp)
	}
	return true
}
