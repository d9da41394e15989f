// Package token mints and verifies mcpform's request-state tokens: the v1
// signed token, shared byte for byte with the TypeScript SDK's
// createRequestStateCodec, and the s1 sealed token, mcpform's own. It takes
// keys, a TTL and a payload's JSON, and knows nothing of what the payload
// means; package mcpform's RequestStateCodec wraps it.
package token

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The signed token's format is shared with createRequestStateCodec in the
// TypeScript SDK (@modelcontextprotocol/server 2.4.0), so that Go and TS
// servers behind one load balancer accept each other's tokens:
//
//	"v1." B "." M
//	B = base64url(UTF-8 JSON {"p": payload, "exp": unixSeconds, "b": bindTag})
//	M = base64url(HMAC-SHA256(key, "v1." B))
//	bindTag = base64url(HMAC-SHA256(key, "mcp.requestState.bind:" bind)[:16])
//
// base64url is RFC 4648 §5 without padding; "b" is present only when the
// codec binds. exp is whole seconds, as Math.floor(Date.now()/1000) + TTL
// writes it.
//
// A token's prefix is its envelope's version: "v1." signed, "s1." sealed
// (SealedPrefix). Verify refuses any other prefix as malformed, so a
// token of a later envelope is never misread. What the envelope carries
// has versions of its own (a flow's state carries its version in its
// payload). The rule, for every format a run crosses replicas in: a
// release reads the version before its own and its own, and mints what
// the release before it reads, until the next; a new envelope takes a new
// prefix, which a release verifies before the next mints it.
const (
	// Prefix begins every signed token.
	Prefix    = "v1."
	bindLabel = "mcp.requestState.bind:"
	macText   = 43 // base64url length of a SHA-256 MAC
	tagSize   = 16 // bytes of the bind MAC kept in the tag
	// DefaultTTL is the TypeScript SDK's default lifetime of a token.
	DefaultTTL = 10 * time.Minute
	// Leeway is how far apart the clocks of a minter and a verifier may be,
	// either way.
	Leeway = 5 * time.Second
	// MaxExp is the largest exp Verify reads: JavaScript's
	// Number.MAX_SAFE_INTEGER, beyond which a TypeScript peer can't hold
	// the second exactly.
	MaxExp = 1<<53 - 1
	// MinKeySize is the least number of bytes in a key, the same floor as
	// the TypeScript SDK's.
	MinKeySize = 32
)

// StrictBase64URL decodes unpadded base64url, refusing non-zero trailing
// bits. Strict returns a copy of the encoding, so it is made once.
var StrictBase64URL = base64.RawURLEncoding.Strict()

// The four ways a token fails [Codec.Verify]. Their messages never contain
// the token, the payload, the bind string or a key. Package mcpform
// re-exports and documents them.
var (
	ErrMalformed = errors.New("mcpform: malformed requestState")
	ErrMAC       = errors.New("mcpform: requestState MAC mismatch")
	ErrExpired   = errors.New("mcpform: requestState expired")
	ErrBind      = errors.New("mcpform: requestState bound elsewhere")
)

// A Codec mints and verifies tokens under keys, each at least MinKeySize
// bytes: keys[0] mints and every key verifies. It is safe for concurrent
// use.
type Codec struct {
	keys   [][]byte
	ttl    int64 // seconds
	bind   bool
	sealer *Sealer // the keys for sealed tokens
	now    func() time.Time
}

// sealLabel is the HKDF label of a sealed token's keys.
const sealLabel = "mcpform requestState v1"

// New returns a codec under keys, which it keeps (the caller copies them),
// whose tokens live ttl, in whole seconds, by the clock now. With bind set,
// tokens are bound to the bind string given to Mint.
func New(keys [][]byte, ttl time.Duration, bind bool, now func() time.Time) *Codec {
	return &Codec{keys: keys, ttl: int64(ttl / time.Second), bind: bind, now: now, sealer: NewSealer(keys, sealLabel)}
}

// mac returns HMAC-SHA256(key, data).
func mac(key, data []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

// BindTo joins parts into a bind string that encodes them unambiguously:
// each part is written as its length in bytes, a colon and the part, so
// BindTo("a", "bc") is "1:a2:bc" and differs from BindTo("ab", "c"). With
// no parts it returns "", which differs from BindTo(""), "0:".
func BindTo(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 4
	}
	var b strings.Builder
	b.Grow(n)
	var num [20]byte
	for _, p := range parts {
		b.Write(strconv.AppendInt(num[:0], int64(len(p)), 10))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// bindTag returns the base64url bind tag of bind under key.
func bindTag(key []byte, bind string) string {
	return base64.RawURLEncoding.EncodeToString(mac(key, []byte(bindLabel+bind))[:tagSize])
}

// Mint returns a token carrying payload, which must be JSON, that expires
// the codec's TTL after now: sealed, or signed in the TypeScript format.
func (c *Codec) Mint(payload []byte, bind string, sealed bool) (string, error) {
	exp := c.now().Unix() + c.ttl
	if sealed {
		return c.mintSealed(payload, bind, exp)
	}
	env := append([]byte(`{"p":`), payload...)
	env = append(env, `,"exp":`...)
	env = strconv.AppendInt(env, exp, 10)
	if c.bind {
		env = append(append(append(env, `,"b":"`...), bindTag(c.keys[0], bind)...), '"')
	}
	env = append(env, '}')

	enc := base64.RawURLEncoding
	tok := enc.AppendEncode([]byte(Prefix), env)
	sum := mac(c.keys[0], tok)
	return string(enc.AppendEncode(append(tok, '.'), sum)), nil
}

// Verify checks token, sealed or signed as sealed says, and returns its
// payload's JSON, in the order and with the errors that package mcpform's
// RequestStateCodec.Verify documents. A signed token without "p" carries
// null, as the TypeScript codec omits p for an undefined payload.
func (c *Codec) Verify(token, bind string, sealed bool) ([]byte, error) {
	if sealed {
		return c.openSealed(token, bind)
	}
	return c.openSigned(token, bind)
}

// openSigned runs Verify's checks of a signed token.
func (c *Codec) openSigned(token, bind string) ([]byte, error) {
	// 1. Structure. Split at the last dot as the TypeScript codec does; a
	// dot inside the body then fails the MAC or the body decoding.
	dot := strings.LastIndexByte(token, '.')
	if !strings.HasPrefix(token, Prefix) || dot <= len(Prefix) {
		return nil, ErrMalformed
	}
	if !CanonicalBase64URL(token[dot+1:]) {
		return nil, ErrMalformed
	}
	if len(token)-dot-1 != macText {
		return nil, ErrMAC // canonical, but can't be a SHA-256 MAC
	}
	signed := []byte(token[:dot])
	got, err := StrictBase64URL.DecodeString(token[dot+1:])
	if err != nil {
		return nil, ErrMalformed // unreachable after CanonicalBase64URL
	}

	// 2. The MAC, under each key; the one that matches also made the bind tag.
	key := -1
	for i, k := range c.keys {
		if hmac.Equal(mac(k, signed), got) {
			key = i
			break
		}
	}
	if key < 0 {
		return nil, ErrMAC
	}

	// 3. The body: canonical base64url of a UTF-8 JSON object with a whole
	// exp. A key holder made it, but not necessarily a codec, so expect
	// any shape. The strict decoder refuses every non-canonical spelling
	// but line breaks, which it skips.
	bodyText := signed[len(Prefix):]
	if bytes.IndexByte(bodyText, '\n') >= 0 || bytes.IndexByte(bodyText, '\r') >= 0 {
		return nil, ErrMalformed
	}
	body, err := StrictBase64URL.AppendDecode(nil, bodyText)
	if err != nil || !utf8.Valid(body) {
		return nil, ErrMalformed
	}
	// json.Unmarshal checks that body is one JSON value before decoding it.
	// Members match exactly, and a repeated one keeps its last value, as
	// in JSON.parse; null decodes to a nil map.
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || env == nil {
		return nil, ErrMalformed
	}
	exp, ok := parseExp(env["exp"])
	if !ok {
		return nil, ErrMalformed
	}

	if err := c.checkExp(exp); err != nil { // 4.
		return nil, err
	}

	// 5. Binding, in both directions.
	b, hasB := env["b"]
	if !c.bind {
		if hasB {
			return nil, ErrBind
		}
	} else {
		var tag string
		if !hasB || json.Unmarshal(b, &tag) != nil || !hmac.Equal([]byte(tag), []byte(bindTag(c.keys[key], bind))) {
			return nil, ErrBind
		}
	}
	if p, ok := env["p"]; ok {
		return p, nil
	}
	return []byte("null"), nil
}

// parseExp returns the raw JSON value exp as whole seconds, or false unless
// it is written as a minter writes it, at most MaxExp. A fraction, an
// exponent, a sign, a huge value, or another JSON type is refused.
func parseExp(exp []byte) (int64, bool) {
	if len(exp) == 0 || len(exp) > 16 {
		return 0, false
	}
	var n int64
	for _, d := range exp {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, n <= MaxExp
}

// checkExp is Verify's check of the expiry, with leeway for clocks apart
// either way.
func (c *Codec) checkExp(exp int64) error {
	now, leeway := c.now().Unix(), int64(Leeway/time.Second)
	if exp < now-leeway || exp > now+c.ttl+leeway {
		return ErrExpired
	}
	return nil
}

// A sealed token seals its expiry and payload, binary, in mcpform's own
// format:
//
//	exp (8 bytes, big-endian unsigned whole seconds) || payload (JSON)
//
// under the additional data of sealAD, as sealed text.
const sealedExpSize = 8

// sealAD returns a sealed token's additional data: whether the codec binds
// and, if it does, the bind string. A binding codec and one that does not
// never open each other's tokens, as with signed tokens.
func (c *Codec) sealAD(bind string) []byte {
	if !c.bind {
		return []byte{0}
	}
	return append([]byte{1}, bind...)
}

// mintSealed is Mint of a sealed token expiring at exp.
func (c *Codec) mintSealed(payload []byte, bind string, exp int64) (string, error) {
	plain := append(binary.BigEndian.AppendUint64(nil, uint64(exp)), payload...)
	tok, err := c.sealer.Seal(nil, plain, c.sealAD(bind))
	return string(tok), err
}

// openSealed runs Verify's checks of a sealed token.
func (c *Codec) openSealed(token, bind string) ([]byte, error) {
	body, err := c.sealer.Open(nil, []byte(token), c.sealAD(bind))
	if err != nil {
		return nil, err
	}
	if len(body) < sealedExpSize {
		return nil, ErrMalformed
	}
	exp := binary.BigEndian.Uint64(body)
	if exp > MaxExp {
		return nil, ErrMalformed
	}
	if err := c.checkExp(int64(exp)); err != nil {
		return nil, err
	}
	return body[sealedExpSize:], nil
}

// base64URLIndex maps a byte to its value in the base64url alphabet, or -1.
var base64URLIndex = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(alphabet) {
		t[alphabet[i]] = int8(i)
	}
	return t
}()

// CanonicalBase64URL reports whether s is the one unpadded base64url
// spelling of some bytes: only the URL alphabet (no padding, "+", "/" or
// line breaks, which encoding/base64 skips even when strict), a possible
// length, and zero bits after the last whole byte. Lenient decoders read
// several spellings as one MAC; this accepts only the one a minter
// produces.
func CanonicalBase64URL[T string | []byte](s T) bool {
	for i := range len(s) {
		if base64URLIndex[s[i]] < 0 {
			return false
		}
	}
	switch len(s) % 4 {
	case 1:
		return false
	case 2:
		return base64URLIndex[s[len(s)-1]]&0x0f == 0
	case 3:
		return base64URLIndex[s[len(s)-1]]&0x03 == 0
	}
	return true
}
