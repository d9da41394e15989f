package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
	"unicode/utf8"
)

// JSON that says two things: encoding/json reads each of these one way,
// other readers another, so a digest of what encoding/json decoded would
// bind two different calls to one state.
var (
	// ErrDuplicateKey refuses an object with one key given twice, after
	// unescaping: encoding/json keeps the last, gjson and many gateways
	// the first.
	ErrDuplicateKey = errors.New("mcpform: an object holds one key twice")
	// ErrInvalidUTF8 refuses a string with bytes that are not UTF-8,
	// which encoding/json reads as U+FFFD.
	ErrInvalidUTF8 = errors.New("mcpform: a string holds invalid UTF-8")
	// ErrLoneSurrogate refuses a string with a \u escape of a surrogate
	// that is not half of a pair, which encoding/json reads as U+FFFD.
	ErrLoneSurrogate = errors.New("mcpform: a string holds a lone surrogate escape")
)

// A MemberError is a defect that [Members] found in one member of an
// object.
type MemberError struct {
	Key   string // the member's key, as encoding/json decodes it
	InKey bool   // the defect is the key itself: given twice, or its text
	Err   error  // ErrDuplicateKey, ErrInvalidUTF8 or ErrLoneSurrogate
}

func (e *MemberError) Error() string { return e.Err.Error() + " (member " + quote(e.Key) + ")" }

func (e *MemberError) Unwrap() error { return e.Err }

// Check returns the first defect of raw, one JSON value, that makes it say
// two things: ErrDuplicateKey, ErrInvalidUTF8 or ErrLoneSurrogate, at
// any depth and in keys too; nil when there is none. It reads raw once,
// allocating only for escaped keys and large objects. On raw that is not
// valid JSON it stops early, never failing: a decoder reports that.
func Check(raw []byte) error {
	c := getChecker(raw)
	defer c.put()
	c.value(0)
	return c.err
}

// Members is [Check] for raw that is one JSON object: it returns a
// MemberError for each member whose key or value holds a defect, with
// the first defect found there, in the order of raw; nil when there is
// none. A defect of raw that is not an object is returned as one
// MemberError with the key "".
func Members(raw []byte) []*MemberError {
	c := getChecker(raw)
	defer c.put()
	c.space()
	if c.i >= len(c.b) || c.b[c.i] != '{' {
		c.value(0)
		if c.err != nil {
			return []*MemberError{{Err: c.err}}
		}
		return nil
	}
	var bad []*MemberError
	c.object(0, func(key []byte, inKey bool) {
		bad = append(bad, &MemberError{Key: decodeKey(key), InKey: inKey, Err: c.err})
		c.err = nil
	})
	return bad
}

// EachMember calls fn with the key, as written with its quotes, and the
// value's bytes of each member of raw, one JSON object, in order, and
// reports whether raw is an object. It finds no defect: it is for raw that
// a decoder accepted, to read a few members without decoding the rest.
func EachMember(raw []byte, fn func(key, value []byte)) bool {
	c := getChecker(raw)
	defer c.put()
	c.space()
	if c.i >= len(c.b) || c.b[c.i] != '{' {
		return false
	}
	c.i++
	for {
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return c.i < len(c.b) && c.b[c.i] == '}'
		}
		start := c.i
		c.str()
		key := c.b[start:c.i]
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return false
		}
		c.i++
		c.space()
		start = c.i
		c.value(1)
		fn(key, c.b[start:c.i])
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ',' {
			return c.i < len(c.b) && c.b[c.i] == '}'
		}
		c.i++
	}
}

// maxDepth stops the walk where encoding/json stops decoding.
const maxDepth = 10000

// linearKeys is the number of keys an object's new key is compared with
// one by one; beyond it, a set is built.
const linearKeys = 16

// A checker walks JSON once, noting its first defect in err.
type checker struct {
	b    []byte
	i    int
	err  error
	keys [][]byte // the keys of the objects being walked, innermost last
}

// checkers are pooled, so that a walk's stack of keys is reused: a walk
// of arguments of the usual size allocates nothing.
var checkers = sync.Pool{New: func() any { return &checker{keys: make([][]byte, 0, 32)} }}

func getChecker(raw []byte) *checker {
	c := checkers.Get().(*checker)
	c.b, c.i, c.err = raw, 0, nil
	return c
}

func (c *checker) put() {
	if cap(c.keys) > 1024 {
		return // a huge object's stack is not kept
	}
	clear(c.keys[:cap(c.keys)]) // no input is kept alive by the pool
	c.b, c.keys, c.err = nil, c.keys[:0], nil
	checkers.Put(c)
}

func (c *checker) note(err error) {
	if c.err == nil {
		c.err = err
	}
}

// stop ends the walk: the input is not JSON.
func (c *checker) stop() { c.i = len(c.b) }

func (c *checker) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

// value walks the value at c.i.
func (c *checker) value(depth int) {
	c.space()
	if c.i >= len(c.b) || depth > maxDepth {
		c.stop()
		return
	}
	switch c.b[c.i] {
	case '{':
		c.object(depth, nil)
	case '[':
		c.i++
		c.space()
		if c.i < len(c.b) && c.b[c.i] == ']' {
			c.i++
			return
		}
		for c.i < len(c.b) {
			c.value(depth + 1)
			c.space()
			if c.i >= len(c.b) {
				return
			}
			switch c.b[c.i] {
			case ',':
				c.i++
			case ']':
				c.i++
				return
			default:
				c.stop()
			}
		}
	case '"':
		c.str()
	default: // a number, true, false or null
		for c.i < len(c.b) {
			switch c.b[c.i] {
			case ',', ']', '}', ' ', '\t', '\r', '\n':
				return
			}
			c.i++
		}
	}
}

// object walks the object at c.i. When member is set, it is called after
// each member in which a defect was noted, with the member's key as
// written and whether the defect is in the key.
func (c *checker) object(depth int, member func(key []byte, inKey bool)) {
	c.i++
	base := len(c.keys)
	defer func() { c.keys = c.keys[:base] }()
	var set map[string]struct{}
	for {
		c.space()
		if c.i >= len(c.b) {
			return
		}
		if c.b[c.i] == '}' {
			c.i++
			return
		}
		if c.b[c.i] != '"' {
			c.stop()
			return
		}
		start := c.i
		s, escaped := c.str()
		written := c.b[start:c.i]
		if escaped {
			s = unescape(s)
		}
		dup := false
		if set == nil {
			for _, k := range c.keys[base:] {
				if bytes.Equal(k, s) {
					dup = true
					break
				}
			}
			if len(c.keys)-base >= linearKeys {
				set = make(map[string]struct{}, 2*linearKeys)
				for _, k := range c.keys[base:] {
					set[string(k)] = struct{}{}
				}
			}
		} else {
			_, dup = set[string(s)]
		}
		if dup {
			c.note(ErrDuplicateKey)
		}
		if set != nil {
			set[string(s)] = struct{}{}
		} else {
			c.keys = append(c.keys, s)
		}
		inKey := c.err != nil
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			c.stop()
			return
		}
		c.i++
		c.value(depth + 1)
		if member != nil && c.err != nil {
			member(written, inKey)
		}
		c.space()
		if c.i >= len(c.b) {
			return
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			return
		default:
			c.stop()
			return
		}
	}
}

// str walks the string at c.i, noting invalid UTF-8 and lone surrogate
// escapes, and returns what is between its quotes and whether that holds
// an escape.
func (c *checker) str() (s []byte, escaped bool) {
	b := c.b
	start := c.i + 1
	for i := start; i < len(b); {
		ch := b[i]
		if ch < utf8.RuneSelf && ch != '"' && ch != '\\' {
			i++ // the common case: plain ASCII
			continue
		}
		switch {
		case ch == '"':
			c.i = i + 1
			return b[start:i], escaped
		case ch == '\\':
			escaped = true
			if i+1 < len(b) && b[i+1] == 'u' {
				r := hex4(b, i+2)
				i += 6
				switch {
				case 0xd800 <= r && r < 0xdc00: // high: a low must follow
					if lo := hex4(b, i+2); i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' && 0xdc00 <= lo && lo < 0xe000 {
						i += 6
					} else {
						c.note(ErrLoneSurrogate)
					}
				case 0xdc00 <= r && r < 0xe000:
					c.note(ErrLoneSurrogate)
				}
				continue
			}
			i += 2
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				c.note(ErrInvalidUTF8)
			}
			i += size
		}
	}
	c.stop()
	return nil, escaped
}

// hex4 returns the four hex digits at b[i:], or -1.
func hex4(b []byte, i int) rune {
	if i < 0 || i+4 > len(b) {
		return -1
	}
	var r rune
	for _, ch := range b[i : i+4] {
		switch {
		case '0' <= ch && ch <= '9':
			ch -= '0'
		case 'a' <= ch && ch <= 'f':
			ch = ch - 'a' + 10
		case 'A' <= ch && ch <= 'F':
			ch = ch - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(ch)
	}
	return r
}

// unescape returns the text of the string s, which holds an escape, as
// encoding/json decodes it, for keys to be compared; a defect is noted
// by str, so its bytes here only need to be some bytes.
func unescape(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			out = append(out, s[i])
			i++
			continue
		}
		switch e := s[i+1]; e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(s, i+2)
			i += 6
			if 0xd800 <= r && r < 0xdc00 && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo := hex4(s, i+2); 0xdc00 <= lo && lo < 0xe000 {
					r = (r-0xd800)<<10 | (lo - 0xdc00) + 0x10000
					i += 6
				}
			}
			if r < 0 || 0xd800 <= r && r < 0xe000 {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, e)
		}
		i += 2
	}
	return out
}

// decodeKey returns the key written, quotes included, as encoding/json
// decodes it.
func decodeKey(written []byte) string {
	var k string
	if json.Unmarshal(written, &k) != nil {
		return string(written)
	}
	return k
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
