// Package rawanswers keeps a retried tools/call's input responses as the
// client sent them, for go-sdk's face. go-sdk decodes them with
// encoding/json before any hook a library can reach: a number becomes
// the nearest float64, a key given twice its last value, invalid UTF-8
// U+FFFD. [Params] copies their bytes, base64-encoded, into the call's
// params._meta under [MetaKey], where go-sdk keeps a string as it is, and
// removes whatever the client itself sent there; every other byte of the
// message stays as it was, so go-sdk decodes the same call, with one more
// _meta member. Over HTTP, [Copy] makes the same copy for a request
// header instead, and the body stays as it was. [Lookup] reads one answer
// back from either.
//
// A client can write the member itself where no wrapper removes it, so
// every copy a wrapper writes begins with a mark drawn at random when the
// process starts, which no client is ever sent, and [Lookup] reads only
// a copy that carries it.
package rawanswers

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/mcpform/mcpform/internal/canonjson"
)

// MetaKey is the params._meta member that holds the input responses as
// sent: the process's mark, a dot, and their JSON's bytes in standard
// base64, which keeps invalid UTF-8.
const MetaKey = "io.mcpform/inputResponses"

// mark begins each copy this process writes. It is random, so a client
// cannot write a copy that Lookup reads, and it never leaves the
// process: a wrapper writes it into a message the server reads, and
// removes any a client sent.
var mark = rand.Text() + "."

// MaxMessage bounds the messages rewritten: a larger one passes
// unchanged, and the core reads go-sdk's decoding of its answers.
const MaxMessage = 1 << 20

// Header is the HTTP request header in which a wrapper of a streamable
// HTTP handler hands the core a tools/call's input responses as sent,
// written as [MetaKey]'s value is. go-sdk gives a tool handler its
// request's header (mcp.RequestExtra), so the body reaches go-sdk as the
// client sent it, and go-sdk decodes no byte more than was sent.
const Header = "Mcpform-Input-Responses"

// Copy returns the value of [Header] for msg, one JSON-RPC message, and
// whether msg is a tools/call request to copy it for: the process's
// mark and the bytes of the call's inputResponses, or the mark alone
// when the call holds none, or holds them twice, which says two things.
// It reports false for any other message, for a batch, for a message
// that is not JSON and for one larger than [MaxMessage]: the core then
// reads go-sdk's decoding, and what it cannot read, go-sdk refuses.
func Copy(msg []byte) (kept string, ok bool) {
	if !worthReading(msg) || !json.Valid(msg) {
		return "", false
	}
	var method, params []byte
	twice := false
	canonjson.EachMember(msg, func(k, v []byte) {
		switch {
		case keyIs(k, "method"):
			twice = twice || method != nil
			method = v
		case keyIs(k, "params"):
			twice = twice || params != nil
			params = v
		}
	})
	if twice || params == nil || !isToolsCall(method) {
		return "", false
	}
	var answers []byte
	canonjson.EachMember(params, func(k, v []byte) {
		if keyIs(k, "inputResponses") {
			twice = twice || answers != nil
			answers = v
		}
	})
	if twice || answers == nil {
		return mark, true
	}
	return mark + base64.StdEncoding.EncodeToString(answers), true
}

// Params returns params, a tools/call request's params, with a copy of
// the bytes of its inputResponses as sent under [MetaKey] in its _meta,
// and without any value the client sent under that key. It returns
// params itself when there is nothing to copy or remove, when they are
// larger than [MaxMessage], when they are not JSON, and when they are
// ambiguous: inputResponses given twice is not copied.
func Params(params []byte) []byte {
	if !worthReading(params) || !json.Valid(params) {
		return params
	}
	if p := rewrite(params); p != nil {
		return p
	}
	return params
}

// worthReading reports whether b, within bounds, may hold input
// responses or the member that copies them: either key written plainly,
// or an escape, which may spell either.
func worthReading(b []byte) bool {
	return len(b) <= MaxMessage && (bytes.Contains(b, []byte("inputResponses")) || bytes.IndexByte(b, '\\') >= 0)
}

func isToolsCall(method []byte) bool {
	if string(method) == `"tools/call"` {
		return true
	}
	var s string
	return bytes.IndexByte(method, '\\') >= 0 && json.Unmarshal(method, &s) == nil && s == "tools/call"
}

// rewrite is Params for params that are JSON; nil for no change.
func rewrite(params []byte) []byte {
	var answers []byte
	var metas [][]byte
	twice := false
	if !canonjson.EachMember(params, func(k, v []byte) {
		switch {
		case keyIs(k, "inputResponses"):
			twice = twice || answers != nil
			answers = v
		case keyIs(k, "_meta"):
			metas = append(metas, v)
		}
	}) {
		return nil
	}
	if twice {
		answers = nil // which was sent is unclear: go-sdk's decoding stands
	}
	forged := false
	for _, m := range metas {
		switch {
		case string(m) == "null":
		case !canonjson.EachMember(m, func(k, _ []byte) { forged = forged || keyIs(k, MetaKey) }):
			return nil // not an object: go-sdk refuses the call
		}
	}
	if answers == nil && !forged {
		return nil
	}
	if len(metas) == 0 {
		// A first _meta, after the last member: params hold inputResponses.
		end := bytes.LastIndexByte(params, '}')
		out := make([]byte, 0, len(params)+base64.StdEncoding.EncodedLen(len(answers))+len(MetaKey)+16)
		out = append(out, params[:end]...)
		out = append(out, `,"_meta":`...)
		out = appendMeta(out, nil, answers)
		return append(out, params[end:]...)
	}
	return splice(params, metas, func(out []byte, i int) []byte {
		var kept []byte
		if i == len(metas)-1 {
			kept = answers // the last _meta is the one a decoder keeps
		}
		return appendMeta(out, metas[i], kept)
	})
}

// appendMeta appends meta, a _meta object or null, without any member
// named MetaKey and with answers' bytes under that key when answers is
// not nil.
func appendMeta(out, meta, answers []byte) []byte {
	out = append(out, '{')
	n := 0
	canonjson.EachMember(meta, func(k, v []byte) {
		if keyIs(k, MetaKey) {
			return
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, v...)
	})
	if answers != nil {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, `"`+MetaKey+`":"`...)
		out = append(out, mark...)
		out = base64.StdEncoding.AppendEncode(out, answers)
		out = append(out, '"')
	}
	return append(out, '}')
}

// splice returns b with each of parts, slices of b in order, replaced by
// what put appends for it.
func splice(b []byte, parts [][]byte, put func(out []byte, i int) []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/3+len(MetaKey)+16)
	last := 0
	for i, p := range parts {
		at := cap(b) - cap(p) // p is b[at:at+len(p)]
		out = append(out, b[last:at]...)
		out = put(out, i)
		last = at + len(p)
	}
	return append(out, b[last:]...)
}

// keyIs reports whether the key k, as written with its quotes, is name
// once unescaped, as go-sdk's decoder matches a member to a field.
func keyIs(k []byte, name string) bool {
	if bytes.IndexByte(k, '\\') < 0 {
		return len(k) == len(name)+2 && string(k[1:len(k)-1]) == name
	}
	var s string
	return json.Unmarshal(k, &s) == nil && s == name
}

// A Response is one input response as the client sent it.
type Response struct {
	// Raw is the response's bytes, for the core to check what they
	// decode to.
	Raw []byte
	// Action is its action as encoding/json reads it; "" when it is not a
	// string, or when the response, its action or its content is given
	// twice, which says two things.
	Action string
	// Content is its content's bytes; nil when it has none, or null.
	Content json.RawMessage
}

// Lookup returns the response under key in kept, the value of [MetaKey]
// or [Header], and whether there is one: false when a wrapper of this process did not
// write kept. Its action and content are the members encoding/json reads
// into an elicitation result, as go-sdk does: their names matched without
// regard to case.
func Lookup(kept string, key string) (Response, bool) {
	if len(kept) < len(mark) || subtle.ConstantTimeCompare([]byte(kept[:len(mark)]), []byte(mark)) != 1 {
		return Response{}, false
	}
	raw, err := base64.StdEncoding.DecodeString(kept[len(mark):])
	if err != nil || !json.Valid(raw) {
		return Response{}, false
	}
	var r Response
	twice := false
	canonjson.EachMember(raw, func(k, v []byte) {
		if keyIs(k, key) {
			twice = twice || r.Raw != nil
			r.Raw = v
		}
	})
	if r.Raw == nil {
		return Response{}, false
	}
	var action []byte
	canonjson.EachMember(r.Raw, func(k, v []byte) {
		switch {
		case foldedKeyIs(k, "action"):
			twice = twice || action != nil
			action = v
		case foldedKeyIs(k, "content"):
			twice = twice || r.Content != nil
			r.Content = v
		}
	})
	if string(r.Content) == "null" {
		r.Content = nil
	}
	if !twice && action != nil {
		_ = json.Unmarshal(action, &r.Action) // not a string: ""
	}
	return r, true
}

// foldedKeyIs is keyIs without regard to case, as encoding/json matches
// a member to a struct field.
func foldedKeyIs(k []byte, name string) bool {
	if bytes.IndexByte(k, '\\') < 0 {
		return len(k) == len(name)+2 && strings.EqualFold(string(k[1:len(k)-1]), name)
	}
	var s string
	return json.Unmarshal(k, &s) == nil && strings.EqualFold(s, name)
}
