package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheck: JSON that encoding/json reads one way and other readers
// another is found, at any depth and in keys; JSON that says one thing
// is not.
func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want error
	}{
		{`{"amount":1000000,"amount":10}`, ErrDuplicateKey},
		{`{"a":{"b":1,"b":1}}`, ErrDuplicateKey},
		{`[{"x":1},{"y":[{"z":1,"z":2}]}]`, ErrDuplicateKey},
		{`{"a":1,"\u0061":2}`, ErrDuplicateKey},
		{`{"\/":1,"/":2}`, ErrDuplicateKey},
		{`{"é":1,"\u00e9":2}`, ErrDuplicateKey},
		{`{"😀":1,"\ud83d\ude00":2}`, ErrDuplicateKey},
		{dupMany(40), ErrDuplicateKey},
		{`"\ud800"`, ErrLoneSurrogate},
		{`"\udbff"`, ErrLoneSurrogate},
		{`"\udc00"`, ErrLoneSurrogate},
		{`"a\ud800b"`, ErrLoneSurrogate},
		{`"\ud800\ud800"`, ErrLoneSurrogate},
		{`"\ud800\u0041"`, ErrLoneSurrogate},
		{`{"\ud800":1}`, ErrLoneSurrogate},
		{`"\udfff\ud800"`, ErrLoneSurrogate},
		{"\"\xff\"", ErrInvalidUTF8},
		{"\"Ada\xf0\x9f\x98Lovelace\"", ErrInvalidUTF8},
		{"\"\xed\xa0\x80\"", ErrInvalidUTF8}, // a surrogate encoded in UTF-8
		{"{\"k\xc0\":1}", ErrInvalidUTF8},
		{"[1,{\"a\":[\"\xfe\"]}]", ErrInvalidUTF8},

		{`{"amount":10}`, nil},
		{`"\ufffd"`, nil},
		{"\"\xef\xbf\xbd\"", nil},
		{`"\ud83d\ude00"`, nil},
		{`"\uDBFF\uDFFF"`, nil},
		{`{"a":1,"A":2}`, nil}, // folded keys are Marshal's to refuse
		{`{"a":{"b":1},"b":{"a":1},"c":[{"a":1},{"a":1}]}`, nil},
		{`{"a\"":1,"a":2,"a\\":3}`, nil},
		{dupMany(0), nil},
		{`[1,-2.5e3,true,false,null,"x",{},[]]`, nil},
		{`"\\ud800"`, nil}, // an escaped backslash, then text
	} {
		t.Run(tt.raw, func(t *testing.T) {
			require.True(t, json.Valid([]byte(tt.raw)), "the case is JSON")
			err := Check([]byte(tt.raw))
			assert.ErrorIs(t, err, tt.want)
			if tt.want == nil {
				assert.NoError(t, err)
			}
		})
	}
}

// dupMany is an object of 40 keys that, with n > 0, gives its nth key
// again: past the keys compared one by one.
func dupMany(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		b.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	if n > 0 {
		b.WriteString(`"k` + strconv.Itoa(n-1) + `":2,`)
	}
	b.WriteString(`"end":0}`)
	return b.String()
}

// TestMembers: each member with a defect is named by its key as
// encoding/json decodes it, marked when the defect is the key.
func TestMembers(t *testing.T) {
	got := Members([]byte("{\"name\":\"Ada\xffLovelace\",\"ok\":1,\"amount\":1,\"amount\":2,\"deep\":{\"x\":[\"\\ud800\"]},\"k\xff\":1}"))
	want := []*MemberError{
		{Key: "name", Err: ErrInvalidUTF8},
		{Key: "amount", InKey: true, Err: ErrDuplicateKey},
		{Key: "deep", Err: ErrLoneSurrogate},
		{Key: "k\ufffd", InKey: true, Err: ErrInvalidUTF8},
	}
	assert.Equal(t, want, got)
	assert.Nil(t, Members([]byte(`{"a":1,"b":[{"a":1}]}`)))
	assert.Equal(t, []*MemberError{{Err: ErrLoneSurrogate}}, Members([]byte(`["\udc00"]`)))
	assert.Nil(t, Members([]byte(`"x"`)))
	var me *MemberError
	require.ErrorAs(t, Members([]byte(`{"a":1,"a":2}`))[0], &me)
	assert.ErrorIs(t, me, ErrDuplicateKey)
	assert.Contains(t, me.Error(), `"a"`)
}

// TestArgumentsDigestRefusesTwoThings: a state bound to {"amount":10}
// could verify on {"amount":1000000,"amount":10}, which a first-wins
// reader reads as 1000000: arguments that say two things get no digest.
func TestArgumentsDigestRefusesTwoThings(t *testing.T) {
	for _, raw := range []string{`{"amount":1000000,"amount":10}`, `{"s":"\ud800"}`, `{"s":"\udbff"}`, "{\"s\":\"\xff\"}"} {
		d, err := ArgumentsDigest([]byte(raw))
		assert.Error(t, err, raw)
		assert.Empty(t, d, raw)
	}
	a, err := ArgumentsDigest([]byte(`{"amount":10}`))
	require.NoError(t, err)
	b, err := ArgumentsDigest([]byte(`{"s":"\ufffd"}`))
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
}

// FuzzCheck holds Check to a reference read from encoding/json's token
// stream: JSON it passes has no key twice in an object, no bytes that are
// not UTF-8, and no string that decodes to U+FFFD unless U+FFFD was
// written; and each defect it reports is one the reference sees.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"",
		`[{"x":{"y":1,"y":2}}]`, `{"\ud800":1,"\udbff":2}`, `"\ufffd"`, dupMany(3), `{"a":[1,2,{"b":"c"}],"d":null}`, `{`, `"\u`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := Check(raw) // never panics, on anything
		bad := Members(raw)
		EachMember(raw, func(k, v []byte) {})
		if !json.Valid(raw) {
			return
		}
		require.Equal(t, err != nil, bad != nil, "Check %v, Members %v", err, bad)
		dup, fffd := reference(t, raw)
		written := bytes.Contains(raw, []byte("\xef\xbf\xbd")) || bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`))
		switch {
		case errors.Is(err, ErrDuplicateKey):
			require.True(t, dup || !utf8.Valid(raw) || fffd, "a duplicate the tokens do not show: %q", raw)
		case errors.Is(err, ErrInvalidUTF8):
			require.False(t, utf8.Valid(raw), "%q", raw)
		case errors.Is(err, ErrLoneSurrogate):
			require.True(t, fffd, "a lone surrogate that decodes to no U+FFFD: %q", raw)
		case err == nil:
			require.False(t, dup, "a duplicate key passed: %q", raw)
			require.True(t, utf8.Valid(raw), "invalid UTF-8 passed: %q", raw)
			require.True(t, !fffd || written, "a U+FFFD nobody wrote: %q", raw)
		default:
			t.Fatalf("unknown defect %v", err)
		}
	})
}

// reference reads raw's tokens: whether an object has a key twice, and
// whether a string or key decodes to one holding U+FFFD.
func reference(t *testing.T, raw []byte) (dup, fffd bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return dup, fffd
		}
		require.NoError(t, err)
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.key
		if top != nil && top.object {
			top.key = !top.key
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, object: true, key: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].key = true
				}
			}
			continue
		case string:
			fffd = fffd || strings.ContainsRune(tok, utf8.RuneError)
			if isKey {
				dup = dup || top.keys[tok]
				top.keys[tok] = true
			}
		}
	}
}

// BenchmarkMembers walks the arguments of an answer through the model, as
// readArguments does on every call: it costs no allocation.
func BenchmarkMembers(b *testing.B) {
	raw := []byte(`{"mcpform":"` + strings.Repeat("A", 300) + `","email":"ada@example.com","plan":"team","repo":9007199254740993,"to":{"iban":"DE00","name":"Lovelace \u00e9"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if Members(raw) != nil {
			b.Fatal("a defect")
		}
	}
}

// TestEachMember: each member's key as written and value's bytes, in
// order, whitespace around them left out.
func TestEachMember(t *testing.T) {
	var got []string
	ok := EachMember([]byte(` { "action" : "accept", "\u0063ontent":{"a":[1,{"b":"}"}]} ,"n":-1.5e3,"x":null}`), func(k, v []byte) {
		got = append(got, string(k)+"="+string(v))
	})
	assert.True(t, ok)
	assert.Equal(t, []string{`"action"="accept"`, `"\u0063ontent"={"a":[1,{"b":"}"}]}`, `"n"=-1.5e3`, `"x"=null`}, got)
	assert.True(t, EachMember([]byte(`{}`), func(k, v []byte) { t.Fatal("no member") }))
	for _, raw := range []string{`[]`, `"x"`, ``, `null`} {
		assert.False(t, EachMember([]byte(raw), func(k, v []byte) {}), raw)
	}
}
