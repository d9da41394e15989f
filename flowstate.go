package mcpform

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// flowState is what a flow's request state carries: where the flow is and
// what it has proven.
//
// Every flow round mints one and verifies one, so it has its own JSON
// encoding and decoding, which the request-state codec uses in place of
// encoding/json's reflection (see [RequestStateCodec.Mint]). Both keep to
// encoding/json's rules for this struct, byte for byte when encoding: the
// struct tags below are the format, and encoding/json reads and writes the
// same JSON.
type flowState struct {
	ID      string  `json:"i"`           // the run ID, random at the start
	Step    string  `json:"s"`           // key of the step being asked
	Asked   string  `json:"k,omitempty"` // pin of Step as it was asked
	Attempt int     `json:"n,omitempty"` // failed answers so far to Step
	Proven  Answers `json:"a,omitempty"` // merged accepted answers of the proven steps
	Pins    pinList `json:"p,omitempty"` // proven step key -> digest of the step it was proven against
	Lang    string  `json:"l,omitempty"` // the language of the first round; "" is English
}

// mintState mints f's state: sealed, unless f has ReadableState.
func (f *Flow) mintState(st *flowState, bind string) (string, error) {
	if f.lang != langEN {
		st.Lang = f.lang.code() // pinned: f speaks the first round's language
	}
	return f.codec.mint(st, bind, !f.readable)
}

// verifyState verifies f's state into st: sealed, unless f has
// ReadableState.
func (f *Flow) verifyState(token, bind string, st *flowState) error {
	return f.codec.verify(token, bind, st, !f.readable)
}

// bindFor returns the string a call of tool's state is bound to, given
// the principal and the digest of its arguments without the flow's own
// (see ownArguments), for a state minted for path: a state verifies only
// on the channel it was minted for.
func (f *Flow) bindFor(tool, principal, digest string, path Path) string {
	if f.unbound {
		return BindTo(principal, tool, path.tag())
	}
	return BindTo(principal, tool, digest, path.tag())
}

// A pinList holds the pins of a flow's proven steps, in step order: each
// step's key and the digest of what it asked. It is a list, not a map,
// because a flow has a few steps and every round decodes it, where a map
// costs a few hundred bytes. In JSON it is an object, {"step": "pin"}, in
// list order; a key given twice keeps its last pin.
type pinList []stepPin

type stepPin struct{ Step, Pin string }

// get returns the pin of step, if it is proven.
func (l pinList) get(step string) (string, bool) {
	for _, p := range l {
		if p.Step == step {
			return p.Pin, true
		}
	}
	return "", false
}

// set adds or replaces the pin of step.
func (l pinList) set(step, pin string) pinList {
	for i := range l {
		if l[i].Step == step {
			l[i].Pin = pin
			return l
		}
	}
	return append(l, stepPin{step, pin})
}

// MarshalJSON writes the list as an object, in order.
func (l pinList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	return l.appendJSON(nil), nil
}

func (l pinList) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, p := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendJSONString(dst, p.Step), ':')
		dst = appendJSONString(dst, p.Pin)
	}
	return append(dst, '}')
}

// UnmarshalJSON reads an object of strings, or null, keeping the order.
func (l *pinList) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil // as encoding/json leaves a map
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: "non-object", Type: reflect.TypeFor[pinList]()}
	}
	out := pinList{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = out.set(k.(string), v)
	}
	*l = out
	return nil
}

// appendJSON appends st as json.Marshal encodes it. A value of a type that
// answers never hold (anything but nil, string, float64, bool, []any and
// []string) is encoded by json.Marshal; its errors are returned.
func (st *flowState) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"i":`...)
	dst = appendJSONString(dst, st.ID)
	dst = append(dst, `,"s":`...)
	dst = appendJSONString(dst, st.Step)
	if st.Asked != "" {
		dst = appendJSONString(append(dst, `,"k":`...), st.Asked)
	}
	if st.Attempt != 0 {
		dst = append(dst, `,"n":`...)
		dst = strconv.AppendInt(dst, int64(st.Attempt), 10)
	}
	if len(st.Proven) > 0 {
		dst = append(dst, `,"a":{`...)
		var (
			err  error
			keys [16]string
		)
		for i, k := range appendSortedKeys(keys[:0], st.Proven) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, k), ':')
			if dst, err = appendJSONAny(dst, st.Proven[k]); err != nil {
				return nil, err
			}
		}
		dst = append(dst, '}')
	}
	if len(st.Pins) > 0 {
		dst = st.Pins.appendJSON(append(dst, `,"p":`...))
	}
	if st.Lang != "" {
		dst = appendJSONString(append(dst, `,"l":`...), st.Lang)
	}
	return append(dst, '}'), nil
}

// appendSortedKeys appends m's keys to keys, in encoding/json's order, and
// sorts them. A state holds a handful of answers, so the callers' buffers
// on the stack hold them.
func appendSortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendJSONAny(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendJSONString(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return appendJSONFloat(dst, v), nil
		}
	case []string:
		if v != nil {
			dst = append(dst, '[')
			for i, s := range v {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendJSONString(dst, s)
			}
			return append(dst, ']'), nil
		}
	case []any:
		if v != nil {
			dst = append(dst, '[')
			var err error
			for i, e := range v {
				if i > 0 {
					dst = append(dst, ',')
				}
				if dst, err = appendJSONAny(dst, e); err != nil {
					return nil, err
				}
			}
			return append(dst, ']'), nil
		}
	}
	b, err := json.Marshal(v) // another type, NaN, or a nil slice
	return append(dst, b...), err
}

// appendJSONFloat appends a finite f as encoding/json does: like
// JavaScript's Number.prototype.toString.
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' { // e-07 becomes e-7
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendJSONString appends s quoted as encoding/json quotes it: with <, >
// and & escaped for HTML, U+2028 and U+2029 escaped for JavaScript, and
// invalid UTF-8 replaced by U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonStringSafe[b] && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// decodeJSON decodes data into st exactly as json.Unmarshal(data, st) would.
// It reads the shapes its own encoding produces without reflection, and
// hands anything else (other keys, other value types, duplicates, null,
// invalid JSON) to json.Unmarshal, so the result never differs.
func (st *flowState) decodeJSON(data []byte) error {
	if !st.decodeFast(data) {
		return json.Unmarshal(data, st)
	}
	return nil
}

// decodeFast decodes data into st and reports true, or reports false and
// leaves st untouched.
func (st *flowState) decodeFast(data []byte) bool {
	d := stateDecoder{b: data, i: skipJSONSpace(data, 0)}
	var (
		out  flowState
		seen [7]bool // i, s, n, a, p, l, k
	)
	ok := d.object(func(key string) bool {
		if len(key) != 1 {
			return false // a key to ignore or to match case-insensitively
		}
		var field int
		ok := false
		switch key[0] {
		case 'i':
			field, ok = 0, d.stringValue(&out.ID)
		case 's':
			field, ok = 1, d.stringValue(&out.Step)
		case 'n':
			field, ok = 2, d.intValue(&out.Attempt)
		case 'a':
			field, ok = 3, d.answers(&out.Proven)
		case 'p':
			field, ok = 4, d.pins(&out.Pins)
		case 'l':
			field, ok = 5, d.stringValue(&out.Lang)
		case 'k':
			field, ok = 6, d.stringValue(&out.Asked)
		}
		if !ok || seen[field] {
			return false // a duplicate merges maps or keeps the last: not worth copying
		}
		seen[field] = true
		return true
	})
	if !ok || d.i != len(data) {
		return false
	}
	// Commit, as encoding/json would into a value that need not be zero:
	// members present overwrite, and an object merges into a map.
	if seen[0] {
		st.ID = out.ID
	}
	if seen[1] {
		st.Step = out.Step
	}
	if seen[2] {
		st.Attempt = out.Attempt
	}
	if seen[3] {
		st.Proven = mergeInto(st.Proven, out.Proven)
	}
	if seen[4] {
		st.Pins = out.Pins // replaced, as UnmarshalJSON does
	}
	if seen[5] {
		st.Lang = out.Lang
	}
	if seen[6] {
		st.Asked = out.Asked
	}
	return true
}

// A stateDecoder reads the JSON text b from index i, skipping whitespace
// after each token. Its strings without escapes share one copy of b, s, so
// that a state's many short strings cost one allocation.
type stateDecoder struct {
	b []byte
	s string // string(b), made on first use
	i int
}

// consume skips c, and the whitespace after it, if b[i] is c.
func (d *stateDecoder) consume(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i = skipJSONSpace(d.b, d.i+1)
		return true
	}
	return false
}

// text returns b[start:end] as a string, sharing s.
func (d *stateDecoder) text(start, end int) string {
	if d.s == "" {
		d.s = string(d.b)
	}
	return d.s[start:end]
}

// str reads a string.
func (d *stateDecoder) str() (string, bool) {
	start := d.i
	if start >= len(d.b) || d.b[start] != '"' {
		return "", false
	}
	end, plain := scanJSONString(d.b, start)
	if end < 0 {
		return "", false
	}
	d.i = skipJSONSpace(d.b, end)
	if plain {
		return d.text(start+1, end-1), true
	}
	var s string
	err := json.Unmarshal(d.b[start:end], &s)
	return s, err == nil
}

func (d *stateDecoder) stringValue(dst *string) (ok bool) {
	*dst, ok = d.str()
	return ok
}

// intValue reads an integer into an int, which encoding/json accepts only
// without a fraction or exponent.
func (d *stateDecoder) intValue(dst *int) bool {
	start := d.i
	end := scanJSONNumber(d.b, start)
	if end < 0 {
		return false
	}
	n, err := strconv.ParseInt(d.text(start, end), 10, strconv.IntSize)
	if err != nil {
		return false
	}
	*dst = int(n)
	d.i = skipJSONSpace(d.b, end)
	return true
}

// scalar reads a string, number, boolean or null as encoding/json decodes
// it into an interface, and refuses arrays and objects.
func (d *stateDecoder) scalar() (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	var v any
	end := -1
	switch d.b[d.i] {
	case '"':
		return d.str()
	case '[', '{':
		return nil, false
	case 't':
		v, end = true, scanJSONLiteral(d.b, d.i, "true")
	case 'f':
		v, end = false, scanJSONLiteral(d.b, d.i, "false")
	case 'n':
		v, end = nil, scanJSONLiteral(d.b, d.i, "null")
	default:
		if end = scanJSONNumber(d.b, d.i); end < 0 {
			return nil, false
		}
		f, err := strconv.ParseFloat(d.text(d.i, end), 64)
		if err != nil {
			return nil, false // out of float64's range: an UnmarshalTypeError
		}
		v = f
	}
	if end < 0 {
		return nil, false
	}
	d.i = skipJSONSpace(d.b, end)
	return v, true
}

// answers reads an object of scalars and arrays of scalars.
func (d *stateDecoder) answers(dst *Answers) bool {
	m := Answers{}
	ok := d.object(func(k string) bool {
		if !d.consume('[') {
			v, ok := d.scalar()
			m[k] = v
			return ok
		}
		var buf [8]any // collects the items, so that the list is allocated once
		list := buf[:0]
		for more := !d.consume(']'); more; more = !d.consume(']') {
			if len(list) > 0 && !d.consume(',') {
				return false
			}
			v, ok := d.scalar()
			if !ok {
				return false
			}
			list = append(list, v)
		}
		m[k] = append(make([]any, 0, len(list)), list...)
		return true
	})
	*dst = m
	return ok
}

// pins reads an object of strings.
func (d *stateDecoder) pins(dst *pinList) bool {
	var buf [4]stepPin // a flow's few steps: the list is allocated once
	l := pinList(buf[:0])
	ok := d.object(func(k string) bool {
		v, ok := d.str()
		l = l.set(k, v)
		return ok
	})
	*dst = append(make(pinList, 0, len(l)), l...)
	return ok
}

// object reads an object, calling value to read each member's value.
func (d *stateDecoder) object(value func(key string) bool) bool {
	if !d.consume('{') {
		return false
	}
	for n := 0; !d.consume('}'); n++ {
		if n > 0 && !d.consume(',') {
			return false
		}
		k, ok := d.str()
		if !ok || !d.consume(':') || !value(k) {
			return false
		}
	}
	return true
}

func mergeInto[M ~map[string]V, V any](dst, src M) M {
	if dst == nil {
		return src
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}
