package mcpform

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpform/mcpform/internal/canonjson"
	tokenpkg "github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The TypeScript vectors live in testdata/requeststate; see its README.md.
const (
	rsVectorsGlob = "testdata/requeststate/*.json"
	rsVectorsFile = "testdata/requeststate/vectors.json"
)

type rsVectorFile struct {
	Provenance struct {
		Package   string `json:"package"`
		Version   string `json:"version"`
		Function  string `json:"function"`
		Script    string `json:"script"`
		KeyHex    string `json:"keyHex"`
		NowMillis int64  `json:"nowMillis"`
		Clock     string `json:"clock"`
	} `json:"provenance"`
	Vectors []rsVector  `json:"vectors"`
	Crafted []rsCrafted `json:"crafted"`

	path string
	key  []byte
}

// now is the clock the vectors were minted with.
func (f *rsVectorFile) now() time.Time { return time.UnixMilli(f.Provenance.NowMillis) }

type rsVector struct {
	Name        string          `json:"name"`
	Bind        *string         `json:"bind"` // nil: unbound
	TTLSeconds  *int64          `json:"ttlSeconds"`
	Exp         int64           `json:"exp"`
	Payload     json.RawMessage `json:"payload"`     // absent for an undefined payload
	PayloadJSON *string         `json:"payloadJSON"` // JSON.stringify(payload); nil for undefined
	Token       string          `json:"token"`
}

type rsCrafted struct {
	Name  string    `json:"name"`
	Bind  *string   `json:"bind"`
	Token string    `json:"token"`
	TS    rsOutcome `json:"ts"`
}

// rsOutcome is what interop/requeststate-verify.mjs reports for a token.
type rsOutcome struct {
	OK          bool    `json:"ok"`
	PayloadJSON *string `json:"payloadJSON"`
	Error       string  `json:"error"`
}

// loadRSVectors reads every vector file and fails when there is none, so a
// lost fixture can't make the tests pass vacuously.
func loadRSVectors(t testing.TB) []*rsVectorFile {
	t.Helper()
	paths, err := filepath.Glob(rsVectorsGlob)
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no request-state vectors match %s", rsVectorsGlob)
	var files []*rsVectorFile
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		f := &rsVectorFile{path: path}
		require.NoError(t, json.Unmarshal(data, f), path)
		require.Equal(t, "@modelcontextprotocol/server", f.Provenance.Package, "%s: provenance", path)
		require.Equal(t, "2.4.0", f.Provenance.Version, "%s: provenance", path)
		require.NotZero(t, f.Provenance.NowMillis, "%s: provenance has no clock", path)
		f.key, err = hex.DecodeString(f.Provenance.KeyHex)
		require.NoError(t, err, "%s: provenance key", path)
		require.NotEmpty(t, f.Vectors, "%s has no vectors", path)
		files = append(files, f)
	}
	return files
}

// vector returns the vector called name.
func (f *rsVectorFile) vector(t testing.TB, name string) rsVector {
	t.Helper()
	for _, v := range f.Vectors {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s has no vector %q", f.path, name)
	return rsVector{}
}

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// newRSCodec builds a codec for tests; bind nil means a non-binding codec.
func newRSCodec(t testing.TB, key []byte, bind *string, now time.Time) *RequestStateCodec {
	t.Helper()
	return newRSCodecTTL(t, key, bind, 0, now)
}

func newRSCodecTTL(t testing.TB, key []byte, bind *string, ttl time.Duration, now time.Time) *RequestStateCodec {
	t.Helper()
	c, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, TTL: ttl, Bind: bind != nil, Now: fixedClock(now)})
	require.NoError(t, err)
	return c
}

// ttl is the TTL of a Go codec equal to the TypeScript codec that minted v.
func (v rsVector) ttl() time.Duration {
	if v.TTLSeconds == nil {
		return 0 // the default, 600 s on both sides
	}
	// TTL 0 means the default here, so ask for under a second.
	return max(time.Duration(*v.TTLSeconds)*time.Second, time.Nanosecond)
}

// rsLeeway is RequestStateLeeway in the whole seconds of exp.
const rsLeeway = int64(RequestStateLeeway / time.Second)

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr[T any](v T) *T { return &v }

// rsSentinel names the verification failure err wraps: "mac" and so on, as
// the TypeScript codec names them, "ok" for nil, or "other".
func rsSentinel(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrMalformed):
		return "malformed"
	case errors.Is(err, ErrMAC):
		return "mac"
	case errors.Is(err, ErrExpired):
		return "expired"
	case errors.Is(err, ErrBind):
		return "bind"
	}
	return "other: " + err.Error()
}

// TestRequestStateVectors verifies every TypeScript-minted vector, with a
// codec of the TTL that minted it, to the payload that the TypeScript script
// serialized, and checks its lifetime: the leeway either way, and that a
// codec of a shorter TTL refuses it.
func TestRequestStateVectors(t *testing.T) {
	for _, f := range loadRSVectors(t) {
		for _, v := range f.Vectors {
			t.Run(v.Name, func(t *testing.T) {
				ttl := int64(600)
				if v.TTLSeconds != nil {
					ttl = *v.TTLSeconds
				}
				require.Equal(t, f.now().Unix()+ttl, v.Exp, "the vector's exp")

				at := func(now time.Time) *RequestStateCodec { return newRSCodecTTL(t, f.key, v.Bind, v.ttl(), now) }
				c := at(f.now())
				var raw json.RawMessage
				require.NoError(t, c.Verify(v.Token, deref(v.Bind), &raw))
				want := "null" // an undefined payload reads as null
				if v.PayloadJSON != nil {
					want = *v.PayloadJSON
				}
				assert.Equal(t, want, string(raw), "payload bytes")

				if v.Payload != nil {
					var got, want any
					require.NoError(t, json.Unmarshal(v.Payload, &want))
					require.NoError(t, c.Verify(v.Token, deref(v.Bind), &got))
					assert.Equal(t, want, got, "payload value")
				}
				assert.NoError(t, c.Verify(v.Token, deref(v.Bind), nil), "nil payload")

				lifetime := []struct {
					name string
					now  time.Time
					want error
				}{
					{"in the exp second", time.Unix(v.Exp, 999_999_999), nil},
					{"in the last second of the leeway", time.Unix(v.Exp+rsLeeway, 999_999_999), nil},
					{"a second after the leeway", time.Unix(v.Exp+rsLeeway+1, 0), ErrExpired},
					{"verifier's clock the leeway behind", time.Unix(f.now().Unix()-rsLeeway, 0), nil},
					{"verifier's clock further behind", time.Unix(f.now().Unix()-rsLeeway-1, 999_999_999), ErrExpired},
				}
				for _, l := range lifetime {
					assert.Equal(t, rsSentinel(l.want), rsSentinel(at(l.now).Verify(v.Token, deref(v.Bind), nil)), l.name)
				}
				if ttl > 600 {
					assert.ErrorIs(t, newRSCodec(t, f.key, v.Bind, f.now()).Verify(v.Token, deref(v.Bind), nil), ErrExpired,
						"a codec of the default TTL")
				}
			})
		}
	}
}

// TestRequestStateVectorsReproducible re-runs the node script and compares
// its output with the committed file; with -update it rewrites the file.
func TestRequestStateVectorsReproducible(t *testing.T) {
	out := runNode(t, "requeststate-vectors.mjs", nil)
	checkGolden(t, rsVectorsFile, out)
}

// TestRequestStateMintMatchesTS checks that Go mints the same bytes as the
// TypeScript codec for the same key, clock, TTL, bind and payload, whenever
// both JSON encoders spell the payload alike (encoding/json escapes <, >, &
// and U+2028/9; JSON.stringify doesn't). Byte equality is not required for
// interop, but it shows both sides build the envelope the same way.
func TestRequestStateMintMatchesTS(t *testing.T) {
	compared := 0
	for _, f := range loadRSVectors(t) {
		for _, v := range f.Vectors {
			if v.PayloadJSON == nil || strings.ContainsAny(*v.PayloadJSON, "<>&\u2028\u2029") {
				continue
			}
			t.Run(v.Name, func(t *testing.T) {
				c := newRSCodecTTL(t, f.key, v.Bind, v.ttl(), f.now())
				got, err := c.Mint(json.RawMessage(*v.PayloadJSON), deref(v.Bind))
				require.NoError(t, err)
				assert.Equal(t, v.Token, got)
			})
			compared++
		}
	}
	require.Greater(t, compared, 10, "too few vectors compared")
}

// TestRequestStateCrafted runs the bodies the TypeScript codec never mints
// but a key holder could, and the other spellings of real tokens. Go's
// outcome must equal the one the TypeScript codec gave (recorded in the
// file), except where tsDiffers says why not.
func TestRequestStateCrafted(t *testing.T) {
	const (
		strict   = "Go accepts only canonical unpadded base64url"
		bom      = "TS's TextDecoder drops a UTF-8 BOM; Go's JSON has none"
		tsCrash  = "TS throws a TypeError on this body"
		tsLength = "a truncated MAC is non-canonical base64url in Go; TS decodes it and fails the MAC"
		whole    = "Go reads only an object whose exp is whole seconds up to 2^53-1; TS takes any number and calls the rest expired"
		leeway   = "Go allows RequestStateLeeway for clocks apart; TS allows none"
		lifetime = "Go refuses an exp further ahead than the TTL and leeway; TS has no bound"
	)
	want := map[string]struct {
		err       error // nil: verifies
		payload   string
		tsDiffers string
	}{
		"body-null":                  {err: ErrMalformed, tsDiffers: tsCrash},
		"body-array":                 {err: ErrMalformed, tsDiffers: whole},
		"body-number":                {err: ErrMalformed, tsDiffers: whole},
		"body-string":                {err: ErrMalformed, tsDiffers: whole},
		"body-not-json":              {err: ErrMalformed},
		"body-invalid-utf8":          {err: ErrMalformed},
		"body-bom":                   {err: ErrMalformed, tsDiffers: bom},
		"body-whitespace":            {payload: "1"},
		"body-canonical":             {payload: `"x"`},
		"body-padded":                {err: ErrMalformed, tsDiffers: strict},
		"body-trailing-bits":         {err: ErrMalformed, tsDiffers: strict},
		"body-contains-dot":          {err: ErrMalformed},
		"p-missing":                  {payload: "null"},
		"exp-missing":                {err: ErrMalformed, tsDiffers: whole},
		"exp-string":                 {err: ErrMalformed, tsDiffers: whole},
		"exp-null":                   {err: ErrMalformed, tsDiffers: whole},
		"exp-uppercase-key":          {err: ErrMalformed, tsDiffers: whole},
		"exp-escaped-key":            {payload: "1"},
		"exp-duplicate-last-wins":    {payload: "1"},
		"exp-now":                    {payload: "1"},
		"exp-past":                   {payload: "1", tsDiffers: leeway},
		"exp-fraction-future":        {err: ErrMalformed, tsDiffers: whole},
		"exp-fraction-past":          {err: ErrMalformed, tsDiffers: whole},
		"exp-exponent":               {err: ErrMalformed, tsDiffers: whole},
		"exp-overflow":               {err: ErrMalformed, tsDiffers: whole},
		"exp-negative":               {err: ErrMalformed, tsDiffers: whole},
		"exp-zero":                   {err: ErrExpired},
		"exp-negative-zero":          {err: ErrMalformed, tsDiffers: whole},
		"exp-past-leeway":            {payload: "1", tsDiffers: leeway},
		"exp-past-beyond-leeway":     {err: ErrExpired},
		"exp-ttl-leeway-ahead":       {payload: "1"},
		"exp-beyond-ttl-leeway":      {err: ErrExpired, tsDiffers: lifetime},
		"exp-far-future":             {err: ErrExpired, tsDiffers: lifetime},
		"exp-max-safe-integer":       {err: ErrExpired, tsDiffers: lifetime},
		"exp-above-max-safe-integer": {err: ErrMalformed, tsDiffers: whole},
		"exp-huge-integer":           {err: ErrMalformed, tsDiffers: whole},
		"b-null-unbound":             {err: ErrBind},
		"b-null-bound":               {err: ErrBind, tsDiffers: tsCrash},
		"b-number-bound":             {err: ErrBind},
		"b-escaped-bound":            {payload: "1"},
		"b-before-exp-bound":         {payload: "1"},
		"mac-padded":                 {err: ErrMalformed, tsDiffers: strict},
		"mac-trailing-bits":          {err: ErrMalformed, tsDiffers: strict},
		"mac-standard-alphabet":      {err: ErrMalformed, tsDiffers: strict},
		"mac-space":                  {err: ErrMalformed, tsDiffers: strict},
		"mac-newline":                {err: ErrMalformed, tsDiffers: strict},
		"mac-empty":                  {err: ErrMAC},
		"mac-truncated":              {err: ErrMalformed, tsDiffers: tsLength},
		"mac-bad-length":             {err: ErrMalformed},
	}
	seen := map[string]bool{}
	for _, f := range loadRSVectors(t) {
		require.NotEmpty(t, f.Crafted, "%s has no crafted tokens", f.path)
		for _, cr := range f.Crafted {
			t.Run(cr.Name, func(t *testing.T) {
				w, ok := want[cr.Name]
				require.True(t, ok, "no expectation for crafted token %q: add one", cr.Name)
				seen[cr.Name] = true
				c := newRSCodec(t, f.key, cr.Bind, f.now())
				var raw json.RawMessage
				err := c.Verify(cr.Token, deref(cr.Bind), &raw)
				if w.err != nil {
					assert.ErrorIs(t, err, w.err)
				} else if assert.NoError(t, err) {
					assert.Equal(t, w.payload, string(raw))
				}

				ts := "ok"
				if !cr.TS.OK {
					ts = cr.TS.Error
				}
				if w.tsDiffers == "" {
					assert.Equal(t, ts, rsSentinel(err), "Go and TS disagree")
					if cr.TS.OK && cr.TS.PayloadJSON != nil {
						assert.Equal(t, *cr.TS.PayloadJSON, string(raw))
					}
				} else {
					assert.NotEqual(t, ts, rsSentinel(err), "TS now agrees with Go (%s): drop tsDiffers", w.tsDiffers)
				}
			})
		}
	}
	for name := range want {
		assert.True(t, seen[name], "crafted token %q is gone from the vectors", name)
	}
}

// rsFailure is a token that Verify must reject with want, made from a
// TypeScript vector.
type rsFailure struct {
	name  string
	token string
	key   []byte  // nil: the vectors' key
	bind  *string // the verifying codec's binding; nil: unbound
	now   time.Time
	want  error
}

// rsFailures derives the failure cases from the TypeScript vectors.
func rsFailures(t testing.TB, f *rsVectorFile) []rsFailure {
	unbound := f.vector(t, "unbound-object")
	bound := f.vector(t, "bound-object")
	nul := f.vector(t, "bound-nul-byte")
	empty := f.vector(t, "bound-empty")
	dot := strings.LastIndexByte(unbound.Token, '.')
	body, mac := unbound.Token[3:dot], unbound.Token[dot+1:]
	wrongKey := []byte(strings.Repeat("k", 32))
	now := f.now()

	cases := []rsFailure{
		{name: "wrong key", token: unbound.Token, key: wrongKey, want: ErrMAC},
		{name: "expired", token: unbound.Token, now: time.Unix(unbound.Exp+rsLeeway+1, 0), want: ErrExpired},
		{name: "missing prefix", token: unbound.Token[3:], want: ErrMalformed},
		{name: "v2 prefix", token: "v2." + unbound.Token[3:], want: ErrMalformed},
		{name: "empty body", token: "v1.." + mac, want: ErrMalformed},
		{name: "empty MAC", token: "v1." + body + ".", want: ErrMAC},
		{name: "no dot", token: "v1." + body + mac, want: ErrMalformed},
		{name: "empty token", token: "", want: ErrMalformed},
		{name: "bad base64 char in MAC", token: "v1." + body + "." + mac[:10] + "!" + mac[11:], want: ErrMalformed},
		{name: "bad base64 char in body", token: "v1." + body[:10] + "!" + body[11:] + "." + mac, want: ErrMAC},
		{name: "bound token, unbound codec", token: bound.Token, want: ErrBind},
		{name: "unbound token, bound codec", token: unbound.Token, bind: ptr(deref(bound.Bind)), want: ErrBind},
		{name: "bound token, other bind", token: bound.Token, bind: ptr("user-43/signup"), want: ErrBind},
		{name: "NUL bind, prefix", token: nul.Token, bind: ptr("a"), want: ErrBind},
		{name: "empty bind, unbound codec", token: empty.Token, want: ErrBind},
		{name: "empty bind, bind NUL", token: empty.Token, bind: ptr("\x00"), want: ErrBind},
	}
	for i := range cases {
		if cases[i].now.IsZero() {
			cases[i].now = now
		}
	}
	// Every bit of the decoded body and MAC, flipped in turn.
	flip := func(name, text string, rebuild func(string) string) {
		raw, err := base64.RawURLEncoding.DecodeString(text)
		require.NoError(t, err)
		for bit := range len(raw) * 8 {
			b := append([]byte(nil), raw...)
			b[bit/8] ^= 1 << (bit % 8)
			cases = append(cases, rsFailure{
				name:  fmt.Sprintf("%s bit %d", name, bit),
				token: rebuild(base64.RawURLEncoding.EncodeToString(b)),
				now:   now,
				want:  ErrMAC,
			})
		}
	}
	flip("body", body, func(s string) string { return "v1." + s + "." + mac })
	flip("MAC", mac, func(s string) string { return "v1." + body + "." + s })
	return cases
}

// TestRequestStateFailureCodes checks the sentinel for each way a
// TypeScript-minted token can be wrong.
func TestRequestStateFailureCodes(t *testing.T) {
	for _, f := range loadRSVectors(t) {
		for _, fc := range rsFailures(t, f) {
			t.Run(fc.name, func(t *testing.T) {
				key := fc.key
				if key == nil {
					key = f.key
				}
				c := newRSCodec(t, key, fc.bind, fc.now)
				var p any
				err := c.Verify(fc.token, deref(fc.bind), &p)
				assert.ErrorIs(t, err, fc.want)
				assert.Equal(t, rsSentinel(fc.want), rsSentinel(err), "exactly one sentinel")
				assert.Nil(t, p, "payload written for a rejected token")
			})
		}
	}
}

// TestRequestStateTamper changes every character of a set of tokens in
// turn, and deletes each, and requires that Verify rejects every result.
func TestRequestStateTamper(t *testing.T) {
	const replacements = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \n\x00é"
	type token struct {
		name, token string
		bind        *string
		codec       *RequestStateCodec
	}
	var tokens []token
	for _, f := range loadRSVectors(t) {
		for _, v := range f.Vectors {
			tokens = append(tokens, token{"ts/" + v.Name, v.Token, v.Bind, newRSCodecTTL(t, f.key, v.Bind, v.ttl(), f.now())})
		}
	}
	now := time.Unix(1_800_000_000, 0)
	for _, bind := range []*string{nil, ptr(""), ptr(BindTo("alice", "signup"))} {
		c := newRSCodec(t, []byte(strings.Repeat("g", 32)), bind, now)
		for i, p := range []any{nil, "", map[string]any{"step": 2}, []int{1, 2, 3}} {
			tok, err := c.Mint(p, deref(bind))
			require.NoError(t, err)
			tokens = append(tokens, token{fmt.Sprintf("go/bind=%v/%d", bind != nil, i), tok, bind, c})
		}
	}
	for _, tk := range tokens {
		t.Run(tk.name, func(t *testing.T) {
			require.NoError(t, tk.codec.Verify(tk.token, deref(tk.bind), nil), "the untampered token")
			accepted := 0
			for i := range len(tk.token) {
				for _, r := range replacements {
					changed := tk.token[:i] + string(r) + tk.token[i+1:]
					if changed == tk.token {
						continue
					}
					if err := tk.codec.Verify(changed, deref(tk.bind), nil); err == nil {
						accepted++
						t.Errorf("accepted %q at %d of %q", r, i, tk.token)
					}
				}
				if err := tk.codec.Verify(tk.token[:i]+tk.token[i+1:], deref(tk.bind), nil); err == nil {
					t.Errorf("accepted the token without character %d", i)
				}
				if accepted > 5 {
					t.FailNow()
				}
			}
		})
	}
}

// TestRequestStateExpiry checks the exp boundary and how TTL becomes exp.
func TestRequestStateExpiry(t *testing.T) {
	key := []byte(strings.Repeat("e", 32))
	mintAt := time.Unix(1_700_000_000, 900_000_000) // the fraction is dropped
	tests := []struct {
		name string
		ttl  time.Duration
		exp  int64 // want
	}{
		{"zero means 10 minutes", 0, 1_700_000_000 + 600},
		{"one minute", time.Minute, 1_700_000_000 + 60},
		{"fraction dropped", 1500 * time.Millisecond, 1_700_000_000 + 1},
		{"under a second", time.Nanosecond, 1_700_000_000},
		{"a day", 24 * time.Hour, 1_700_000_000 + 86400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := mintAt
			c, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, TTL: tt.ttl, Now: func() time.Time { return clock }})
			require.NoError(t, err)
			tok, err := c.Mint("x", "")
			require.NoError(t, err)

			minted := mintAt.Unix()
			for _, at := range []struct {
				name string
				now  time.Time
				want error
			}{
				{"at mint", mintAt, nil},
				{"at exp", time.Unix(tt.exp, 0), nil},
				{"end of the exp second", time.Unix(tt.exp, 999_999_999), nil},
				{"end of the leeway", time.Unix(tt.exp+rsLeeway, 999_999_999), nil},
				{"past the leeway", time.Unix(tt.exp+rsLeeway+1, 0), ErrExpired},
				{"long after", time.Unix(tt.exp+100_000, 0), ErrExpired},
				{"verifier the leeway behind", time.Unix(minted-rsLeeway, 0), nil},
				{"verifier further behind", time.Unix(minted-rsLeeway-1, 999_999_999), ErrExpired},
			} {
				clock = at.now
				assert.Equal(t, rsSentinel(at.want), rsSentinel(c.Verify(tok, "", nil)), at.name)
			}
		})
	}
	t.Run("nil Now is the wall clock", func(t *testing.T) {
		c, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}})
		require.NoError(t, err)
		tok, err := c.Mint(1, "")
		require.NoError(t, err)
		require.NoError(t, c.Verify(tok, "", nil))
		var env struct{ Exp int64 }
		body, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(body, &env))
		assert.InDelta(t, time.Now().Unix()+600, env.Exp, 2)
	})
}

// rsSign returns a token of body (JSON text) MACed under key, as a key
// holder could make it without a codec.
func rsSign(key []byte, body string) string {
	signed := "v1." + base64.RawURLEncoding.EncodeToString([]byte(body))
	h := hmac.New(sha256.New, key)
	h.Write([]byte(signed))
	return signed + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// rsExpBodies are bodies that test the exp rules, for a codec of the
// default TTL at now (whole seconds), with what Verify must say of each.
func rsExpBodies(now int64) []struct {
	name, body string
	want       error
} {
	const ttl = 600
	n := func(exp int64) string { return fmt.Sprintf(`{"p":1,"exp":%d}`, exp) }
	return []struct {
		name, body string
		want       error
	}{
		{"now", n(now), nil},
		{"TTL ahead", n(now + ttl), nil},
		{"TTL and leeway ahead", n(now + ttl + rsLeeway), nil},
		{"beyond TTL and leeway", n(now + ttl + rsLeeway + 1), ErrExpired},
		{"a century ahead", n(now + 100*365*86400), ErrExpired},
		{"leeway past", n(now - rsLeeway), nil},
		{"beyond the leeway past", n(now - rsLeeway - 1), ErrExpired},
		{"zero", n(0), ErrExpired},
		{"2^53-1", n(1<<53 - 1), ErrExpired},
		{"2^53", n(1 << 53), ErrMalformed},
		{"huge integer", `{"p":1,"exp":99999999999999999999999}`, ErrMalformed},
		{"infinite", `{"p":1,"exp":1e400}`, ErrMalformed},
		{"negative", `{"p":1,"exp":-1}`, ErrMalformed},
		{"negative zero", `{"p":1,"exp":-0}`, ErrMalformed},
		{"fraction", fmt.Sprintf(`{"p":1,"exp":%d.5}`, now), ErrMalformed},
		{"whole fraction", fmt.Sprintf(`{"p":1,"exp":%d.0}`, now), ErrMalformed},
		{"exponent", fmt.Sprintf(`{"p":1,"exp":%de0}`, now), ErrMalformed},
		{"string", fmt.Sprintf(`{"p":1,"exp":"%d"}`, now), ErrMalformed},
		{"null", `{"p":1,"exp":null}`, ErrMalformed},
		{"true", `{"p":1,"exp":true}`, ErrMalformed},
		{"object", `{"p":1,"exp":{}}`, ErrMalformed},
		{"missing", `{"p":1}`, ErrMalformed},
		{"not an object", fmt.Sprintf(`[%d]`, now), ErrMalformed},
		{"spaced", fmt.Sprintf(` { "exp" : %d , "p" : 1 } `, now), nil},
		{"last of two", fmt.Sprintf(`{"exp":1e400,"p":1,"exp":%d}`, now), nil},
	}
}

// TestRequestStateLifetime checks the exp rules on tokens a key holder
// signed: the window of TTL and leeway, and the refusal of any exp that is
// not whole seconds in range.
func TestRequestStateLifetime(t *testing.T) {
	key := []byte(strings.Repeat("l", 32))
	now := time.Unix(1_767_225_600, 789_000_000)
	c := newRSCodec(t, key, nil, now)
	for _, tt := range rsExpBodies(now.Unix()) {
		t.Run(tt.name, func(t *testing.T) {
			var p any
			err := c.Verify(rsSign(key, tt.body), "", &p)
			assert.Equal(t, rsSentinel(tt.want), rsSentinel(err))
			if tt.want == nil {
				assert.Equal(t, 1.0, p)
			}
		})
	}
	t.Run("a longer TTL's token", func(t *testing.T) {
		day := newRSCodecTTL(t, key, nil, 24*time.Hour, now)
		tok, err := day.Mint(1, "")
		require.NoError(t, err)
		assert.NoError(t, day.Verify(tok, "", nil))
		assert.ErrorIs(t, c.Verify(tok, "", nil), ErrExpired, "a codec of 10 minutes")
		short, err := c.Mint(1, "")
		require.NoError(t, err)
		assert.NoError(t, day.Verify(short, "", nil), "a longer TTL verifies a shorter one's tokens")
	})
}

// TestRequestStateRotation checks that a token of a retired minting key
// verifies while the key is listed, and fails on the MAC once it is gone.
func TestRequestStateRotation(t *testing.T) {
	oldKey := []byte(strings.Repeat("o", 32))
	newKey := []byte(strings.Repeat("n", 40))
	now := time.Unix(1_700_000_000, 0)
	codec := func(bind bool, keys ...[]byte) *RequestStateCodec {
		c, err := NewRequestStateCodec(RequestStateOptions{Keys: keys, Bind: bind, Now: fixedClock(now)})
		require.NoError(t, err)
		return c
	}
	for _, bind := range []bool{false, true} {
		t.Run(fmt.Sprintf("bind=%v", bind), func(t *testing.T) {
			b := ""
			if bind {
				b = BindTo("alice", "signup")
			}
			before := codec(bind, oldKey)
			during := codec(bind, newKey, oldKey)
			after := codec(bind, newKey)

			oldTok, err := before.Mint(map[string]int{"step": 1}, b)
			require.NoError(t, err)
			newTok, err := during.Mint(map[string]int{"step": 2}, b)
			require.NoError(t, err)

			var p map[string]int
			require.NoError(t, during.Verify(oldTok, b, &p), "old token during rotation")
			assert.Equal(t, map[string]int{"step": 1}, p)
			assert.NoError(t, after.Verify(newTok, b, nil), "new token after rotation")
			assert.NoError(t, codec(bind, oldKey, newKey).Verify(newTok, b, nil), "key order does not matter for verifying")
			assert.ErrorIs(t, after.Verify(oldTok, b, nil), ErrMAC, "old token after the old key is removed")
			assert.ErrorIs(t, before.Verify(newTok, b, nil), ErrMAC, "new token before the new key is added")
		})
	}
	t.Run("keys are copied", func(t *testing.T) {
		key := []byte(strings.Repeat("c", 32))
		c := codec(false, key)
		tok, err := c.Mint(1, "")
		require.NoError(t, err)
		key[0] ^= 1
		assert.NoError(t, c.Verify(tok, "", nil))
	})
}

// TestRequestStateConcurrent shares one codec between goroutines, so that
// the race detector sees the pooled scratch state, and checks no goroutine
// reads another's token or payload.
func TestRequestStateConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		seal      bool
		otherBind error // what a token gives under another bind string
	}{{"signed", false, ErrBind}, {"sealed", true, ErrMAC}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewRequestStateCodec(RequestStateOptions{
				Keys: [][]byte{[]byte(strings.Repeat("1", 32)), []byte(strings.Repeat("2", 32))},
				Bind: true, Seal: tc.seal,
			})
			require.NoError(t, err)
			other, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte(strings.Repeat("2", 32))}, Bind: true, Seal: tc.seal})
			require.NoError(t, err)
			errs := make(chan error, 8)
			for g := range 8 {
				go func() { errs <- concurrentRounds(c, other, g, tc.otherBind) }()
			}
			for range 8 {
				assert.NoError(t, <-errs)
			}
		})
	}
}

// concurrentRounds is goroutine g of TestRequestStateConcurrent.
func concurrentRounds(c, other *RequestStateCodec, g int, otherBind error) error {
	for i := range 200 {
		bind := BindTo(fmt.Sprint(g), "tool")
		want := strings.Repeat(fmt.Sprint(i), i%50)
		tok, err := c.Mint(want, bind)
		if g%2 == 1 { // a token of the second key
			tok, err = other.Mint(want, bind)
		}
		if err != nil {
			return err
		}
		var got string
		if err := c.Verify(tok, bind, &got); err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("goroutine %d: payload %q, want %q", g, got, want)
		}
		if err := c.Verify(tok, BindTo(fmt.Sprint(g+1), "tool"), nil); !errors.Is(err, otherBind) {
			return fmt.Errorf("goroutine %d: other bind: %v", g, err)
		}
	}
	return nil
}

// TestRequestStateMisuse checks that programming errors are reported, and
// not as one of the four verification failures.
func TestRequestStateMisuse(t *testing.T) {
	key := []byte(strings.Repeat("m", 32))
	now := time.Unix(1_700_000_000, 0)
	unbound := newRSCodec(t, key, nil, now)
	bound := newRSCodec(t, key, ptr(""), now)
	tok, err := unbound.Mint(12345, "")
	require.NoError(t, err)
	var typedNil *int

	t.Run("short key", func(t *testing.T) {
		_, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key, key[:31]}})
		var kse KeySizeError
		require.ErrorAs(t, err, &kse)
		assert.Equal(t, KeySizeError{Index: 1, Size: 31}, kse)
		assert.Equal(t, "mcpform: request-state key 1 has 31 bytes; want at least 32", err.Error())
	})
	tests := []struct {
		name string
		err  func() error
		want string // part of the message
	}{
		{"no keys", func() error { _, err := NewRequestStateCodec(RequestStateOptions{}); return err }, "Keys is empty"},
		{"empty key", func() error {
			_, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{nil}})
			return err
		}, "key 0 has 0 bytes"},
		{"negative TTL", func() error {
			_, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, TTL: -time.Second})
			return err
		}, "TTL is negative"},
		{"Mint bind without Bind", func() error { _, err := unbound.Mint(1, "alice"); return err }, "without Bind"},
		{"Verify bind without Bind", func() error { return unbound.Verify(tok, "alice", nil) }, "without Bind"},
		{"Mint unmarshalable payload", func() error { _, err := unbound.Mint(make(chan int), ""); return err }, "cannot be marshalled"},
		{"Mint NaN payload", func() error { _, err := bound.Mint(math.NaN(), ""); return err }, "cannot be marshalled"},
		{"Verify non-pointer payload", func() error { var n int; return unbound.Verify(tok, "", n) }, "non-nil pointer"},
		{"Verify typed nil payload", func() error { return unbound.Verify(tok, "", typedNil) }, "non-nil pointer"},
		{"zero codec Mint", func() error { _, err := new(RequestStateCodec).Mint(1, ""); return err }, "not made by NewRequestStateCodec"},
		{"nil codec Verify", func() error { var c *RequestStateCodec; return c.Verify(tok, "", nil) }, "not made by NewRequestStateCodec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, "other: "+err.Error(), rsSentinel(err), "misuse must not look like a verify failure")
			assert.Equal(t, err, RejectState(err), "RejectState must pass misuse through")
			assert.NotContains(t, err.Error(), "NaN", "payload value in the message")
		})
	}
	t.Run("marshal cause reachable", func(t *testing.T) {
		_, err := unbound.Mint(make(chan int), "")
		var ute *json.UnsupportedTypeError
		assert.ErrorAs(t, err, &ute)
	})
}

// TestRequestStateErrorsHideSecrets checks that no failure message carries
// the key, the payload or the bind string.
func TestRequestStateErrorsHideSecrets(t *testing.T) {
	key := []byte("KEY-SECRET-0123456789abcdefghijklmnop")
	const bind = "BIND-SECRET"
	now := time.Unix(1_700_000_000, 0)
	c := newRSCodec(t, key, ptr(bind), now)
	tok, err := c.Mint(map[string]any{"n": 987654321, "s": "PAYLOAD-SECRET"}, bind)
	require.NoError(t, err)
	later := newRSCodec(t, key, ptr(bind), now.Add(time.Hour))
	var wrongType struct{ N string }
	errs := map[string]error{
		"mac":       c.Verify(tok[:len(tok)-2]+"AA", bind, nil),
		"malformed": c.Verify(tok+"=", bind, nil),
		"expired":   later.Verify(tok, bind, nil),
		"bind":      c.Verify(tok, "BIND-SECRET-OTHER", nil),
		"payload":   c.Verify(tok, bind, &wrongType),
	}
	for name, err := range errs {
		t.Run(name, func(t *testing.T) {
			require.Error(t, err)
			for _, secret := range []string{string(key), "KEY-SECRET", bind, "PAYLOAD-SECRET", "987654321", tok} {
				assert.NotContains(t, err.Error(), secret)
			}
		})
	}
	assert.ErrorIs(t, errs["payload"], ErrMalformed, "a payload that does not decode")
	var ute *json.UnmarshalTypeError
	assert.ErrorAs(t, errs["payload"], &ute, "the decoding cause stays reachable")
}

// TestRejectState checks the conversion to the JSON-RPC error.
func TestRejectState(t *testing.T) {
	wantData := `{"reason":"invalid_request_state"}`
	for _, err := range []error{ErrMalformed, ErrMAC, ErrExpired, ErrBind, fmt.Errorf("step 2: %w", ErrMAC)} {
		t.Run(err.Error(), func(t *testing.T) {
			got := RejectState(err)
			wire, ok := got.(*jsonrpc.Error)
			require.True(t, ok, "got %T, want *jsonrpc.Error unwrapped", got)
			assert.Equal(t, int64(-32602), wire.Code)
			assert.Equal(t, "Invalid or expired requestState", wire.Message)
			assert.JSONEq(t, wantData, string(wire.Data))
			wire.Data[0] = 'x' // each call returns its own value
			assert.JSONEq(t, wantData, string(RejectState(err).(*jsonrpc.Error).Data))
		})
	}
	assert.NoError(t, RejectState(nil))
	other := errors.New("database down")
	assert.Same(t, other, RejectState(other))
}

// TestRequestStateHandlerPath proves, over go-sdk in-memory transports, that
// a tool handler returning RejectState reaches the client as a
// JSON-RPC error with its code and data, not as an isError result, for both
// the typed mcp.AddTool and the raw Server.AddTool; and that wrapping the
// error loses that, as the RejectState documentation warns.
func TestRequestStateHandlerPath(t *testing.T) {
	key := []byte(strings.Repeat("h", 32))
	codec, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, Bind: true, Now: fixedClock(time.Unix(1_700_000_000, 0))})
	require.NoError(t, err)
	type state struct{ Step int }
	verify := func(req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var st state
		if err := codec.Verify(req.Params.RequestState, BindTo("anonymous", req.Params.Name), &st); err != nil {
			return nil, RejectState(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("step %d", st.Step)}}}, nil
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "rs", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "typed"}, func(_ context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		res, err := verify(req)
		return res, nil, err
	})
	server.AddTool(&mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return verify(req)
	})
	wrap := func(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
		if err != nil {
			err = fmt.Errorf("wrapped: %w", err)
		}
		return res, err
	}
	mcp.AddTool(server, &mcp.Tool{Name: "wrapped"}, func(_ context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		res, err := wrap(verify(req))
		return res, nil, err
	})
	server.AddTool(&mcp.Tool{Name: "raw-wrapped", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return wrap(verify(req))
	})

	ctx := context.Background()
	cs := connectClient(t, server, mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil), "")

	for _, tool := range []string{"typed", "raw"} {
		t.Run(tool, func(t *testing.T) {
			good, err := codec.Mint(state{Step: 2}, BindTo("anonymous", tool))
			require.NoError(t, err)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, RequestState: good})
			require.NoError(t, err)
			require.False(t, res.IsError)
			assert.Equal(t, "step 2", res.Content[0].(*mcp.TextContent).Text)

			otherTool, err := codec.Mint(state{Step: 2}, BindTo("anonymous", "other"))
			require.NoError(t, err)
			for name, rs := range map[string]string{
				"tampered":   good[:len(good)-1] + "A",
				"other tool": otherTool,
				"empty":      "",
			} {
				t.Run(name, func(t *testing.T) {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, RequestState: rs})
					require.Error(t, err, "got a result: %+v", res)
					var wire *jsonrpc.Error
					require.ErrorAs(t, err, &wire)
					assert.Equal(t, int64(-32602), wire.Code)
					assert.Equal(t, "Invalid or expired requestState", wire.Message)
					assert.JSONEq(t, `{"reason":"invalid_request_state"}`, string(wire.Data))
				})
			}
		})
	}
	// What RejectState's documentation warns of.
	t.Run("wrapped, typed handler: isError result", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wrapped", RequestState: "v1.e30.AAAA"})
		require.NoError(t, err)
		assert.True(t, res.IsError)
	})
	t.Run("wrapped, raw handler: data lost", func(t *testing.T) {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "raw-wrapped", RequestState: "v1.e30.AAAA"})
		var wire *jsonrpc.Error
		require.ErrorAs(t, err, &wire)
		assert.Equal(t, int64(-32602), wire.Code)
		assert.Empty(t, wire.Data)
	})
}

// TestRequestStateConstDocs checks what go doc publishes for the exported
// constants of requeststate.go: each has its own doc, opening with its
// name, and none carries the token-format comment, which documents no
// constant.
func TestRequestStateConstDocs(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "requeststate.go", nil, parser.ParseComments)
	require.NoError(t, err)
	pkg, err := doc.NewFromFiles(fset, []*ast.File{file}, "github.com/mcpform/mcpform")
	require.NoError(t, err)
	docs := map[string]string{}
	for _, v := range pkg.Consts {
		assert.Len(t, v.Names, 1, "one exported constant per declaration, so that each has its own doc: %v", v.Names)
		for _, name := range v.Names {
			docs[name] = v.Doc
		}
	}
	for _, name := range []string{"MinRequestStateKeySize", "RequestStateLeeway"} {
		t.Run(name, func(t *testing.T) {
			d, ok := docs[name]
			require.True(t, ok, "%s is not an exported constant of requeststate.go", name)
			assert.True(t, strings.HasPrefix(d, name+" is "), "doc of %s: %q", name, d)
			assert.NotContains(t, d, "token format")
			assert.NotContains(t, d, "base64url")
		})
	}
}

// TestRequestStateConstsAreToken: the exported constants, spelled out for
// go doc, are the ones internal/token works with.
func TestRequestStateConstsAreToken(t *testing.T) {
	assert.Equal(t, tokenpkg.Leeway, RequestStateLeeway)
	assert.Equal(t, tokenpkg.MinKeySize, MinRequestStateKeySize)
}

func TestBindTo(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{nil, ""},
		{[]string{""}, "0:"},
		{[]string{"", ""}, "0:0:"},
		{[]string{"a", "bc"}, "1:a2:bc"},
		{[]string{"ab", "c"}, "2:ab1:c"},
		{[]string{"1:a"}, "3:1:a"},
		{[]string{"é", "\x00"}, "2:é1:\x00"},
		{[]string{strings.Repeat("x", 10)}, "10:" + strings.Repeat("x", 10)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.parts), func(t *testing.T) {
			assert.Equal(t, tt.want, BindTo(tt.parts...))
		})
	}
	t.Run("distinct", func(t *testing.T) {
		lists := [][]string{nil, {""}, {"", ""}, {"a"}, {"ab"}, {"a", "b"}, {"a", "bc"}, {"ab", "c"}, {"1:a"}, {"1:a", ""}, {"", "1:a"}, {"a:1"}}
		seen := map[string][]string{}
		for _, l := range lists {
			got := BindTo(l...)
			if prev, ok := seen[got]; ok {
				t.Errorf("BindTo(%q) = BindTo(%q) = %q", l, prev, got)
			}
			seen[got] = l
		}
	})
	t.Run("matches the TS vector", func(t *testing.T) {
		f := loadRSVectors(t)[0]
		assert.Equal(t, deref(f.vector(t, "bound-bindto-alice-signup").Bind), BindTo("alice", "signup"))
	})
}

// rsInteropCase is one token for interop/requeststate-verify.mjs.
type rsInteropCase struct {
	Token     string  `json:"token"`
	Bind      *string `json:"bind"`
	Key       string  `json:"key,omitempty"`
	NowMillis int64   `json:"nowMillis,omitempty"`
}

func verifyWithTS(t *testing.T, keyHex string, now time.Time, cases []rsInteropCase) []rsOutcome {
	t.Helper()
	in, err := json.Marshal(map[string]any{"key": keyHex, "nowMillis": now.UnixMilli(), "cases": cases})
	require.NoError(t, err)
	out := runNode(t, "requeststate-verify.mjs", in)
	var res struct {
		Package string      `json:"package"`
		Version string      `json:"version"`
		Results []rsOutcome `json:"results"`
	}
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	require.Equal(t, "@modelcontextprotocol/server", res.Package)
	require.Equal(t, "2.4.0", res.Version)
	require.Len(t, res.Results, len(cases))
	return res.Results
}

// TestRequestStateInteropTS has the TypeScript codec verify Go-minted
// tokens, and checks that it names the same failures as Go for the failure
// cases made from the TypeScript vectors.
func TestRequestStateInteropTS(t *testing.T) {
	needNode(t)
	key := []byte("go-minted request state interop key!")
	keyHex := hex.EncodeToString(key)
	now := time.UnixMilli(1_767_225_600_789)
	payloads := map[string]any{
		"null":       nil,
		"true":       true,
		"false":      false,
		"zero":       0,
		"fraction":   -1.5,
		"big":        1e21,
		"empty":      "",
		"non-ASCII":  "héllo wörld 世界 🎉",
		"separators": "a\u2028b\u2029c",
		"escapes":    "\x00\x1f\"\\/\n\t<script>&amp;</script>",
		"array":      []any{1, "two", nil, true, map[string]any{"x": []any{}}},
		"object":     map[string]any{"b": 1, "a": 2, "ü": "ß", "\u2028": "sep"},
		"struct":     struct{ Step int }{Step: 2},
	}
	binds := map[string]*string{
		"unbound":   nil,
		"empty":     ptr(""),
		"NUL":       ptr("a\x00b"),
		"BindTo":    ptr(BindTo("alice", "signup")),
		"non-ASCII": ptr("ünï ✓ 世界 🎉"),
	}
	type goCase struct {
		name    string
		payload any
		want    string // TS's outcome: ok, or an error
	}
	var names []goCase
	var cases []rsInteropCase
	add := func(name string, payload any, want string, c rsInteropCase) {
		names = append(names, goCase{name, payload, want})
		cases = append(cases, c)
	}
	for bname, bind := range binds {
		c := newRSCodec(t, key, bind, now)
		for pname, p := range payloads {
			tok, err := c.Mint(p, deref(bind))
			require.NoError(t, err)
			add(bname+"/"+pname, p, "ok", rsInteropCase{Token: tok, Bind: bind})
		}
		tok, err := c.Mint("x", deref(bind))
		require.NoError(t, err)
		add(bname+"/last second", "x", "ok", rsInteropCase{Token: tok, Bind: bind, NowMillis: now.Add(600*time.Second).Unix()*1000 + 999})
		add(bname+"/expired", nil, "expired", rsInteropCase{Token: tok, Bind: bind, NowMillis: now.Add(601 * time.Second).Truncate(time.Second).UnixMilli()})
		add(bname+"/tampered", nil, "mac", rsInteropCase{Token: tok[:len(tok)-1] + map[bool]string{true: "A", false: "B"}[!strings.HasSuffix(tok, "A")], Bind: bind})
		add(bname+"/wrong key", nil, "mac", rsInteropCase{Token: tok, Bind: bind, Key: hex.EncodeToString([]byte(strings.Repeat("w", 32)))})
		if bind != nil {
			add(bname+"/other bind", nil, "bind", rsInteropCase{Token: tok, Bind: ptr(deref(bind) + "x")})
			add(bname+"/unbound verifier", nil, "bind", rsInteropCase{Token: tok, Bind: nil})
		} else {
			add(bname+"/bound verifier", nil, "bind", rsInteropCase{Token: tok, Bind: ptr("")})
		}
	}
	// A token of the new key after rotation: TS holds one key at a time.
	oldKey := []byte(strings.Repeat("o", 32))
	rot, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key, oldKey}, Now: fixedClock(now)})
	require.NoError(t, err)
	tok, err := rot.Mint("rotated", "")
	require.NoError(t, err)
	add("rotation/new key", "rotated", "ok", rsInteropCase{Token: tok})
	add("rotation/old key", nil, "mac", rsInteropCase{Token: tok, Key: hex.EncodeToString(oldKey)})

	// The failure cases built from the TypeScript vectors.
	f := loadRSVectors(t)[0]
	fails := rsFailures(t, f)
	failCases := make([]rsInteropCase, len(fails))
	for i, fc := range fails {
		failCases[i] = rsInteropCase{Token: fc.token, Bind: fc.bind, NowMillis: fc.now.UnixMilli()}
		if fc.key != nil {
			failCases[i].Key = hex.EncodeToString(fc.key)
		}
	}

	results := verifyWithTS(t, keyHex, now, cases)
	for i, gc := range names {
		t.Run("go-minted/"+gc.name, func(t *testing.T) {
			r := results[i]
			if gc.want != "ok" {
				assert.Equal(t, rsOutcome{Error: gc.want}, r)
				return
			}
			require.True(t, r.OK, "TS rejected a Go token: %s", r.Error)
			want, err := json.Marshal(gc.payload)
			require.NoError(t, err)
			require.NotNil(t, r.PayloadJSON)
			assert.JSONEq(t, string(want), *r.PayloadJSON)
		})
	}
	tsFails := verifyWithTS(t, f.Provenance.KeyHex, f.now(), failCases)
	for i, fc := range fails {
		t.Run("ts-failure/"+fc.name, func(t *testing.T) {
			assert.Equal(t, rsOutcome{Error: rsSentinel(fc.want)}, tsFails[i], "TS names the failure differently")
		})
	}
}

// FuzzVerify checks that Verify never panics, that it fails only with the
// four sentinels, and that whatever it accepts carries the canonical MAC of
// its prefix and body under the key, and a body whose exp (whole seconds
// within the TTL and leeway of now) and bind tag an independent decoding
// confirms. A forged MAC almost never passes, so it also signs the input as
// a body, to reach the body checks, and requires that Verify names the
// same outcome as the independent decoding for every body. The seeds
// include tokens signed with the vectors' key that cover each exp rule.
// Sealing codecs get the same input as a token and sealed as a body (see
// checkSealed).
func FuzzVerify(f *testing.F) {
	vf := loadRSVectors(f)[0]
	for _, v := range vf.Vectors {
		f.Add(v.Token, deref(v.Bind))
	}
	for _, c := range vf.Crafted {
		f.Add(c.Token, deref(c.Bind))
	}
	exp := vf.now().Unix()
	for _, body := range []string{
		fmt.Sprintf(`{"p":{"a":[1,"x"]},"exp":%d}`, exp),
		fmt.Sprintf(`{"p":1,"exp":%d.5,"exp":%d}`, exp-1, exp),
		fmt.Sprintf(`{"p":1,"exp":%d,"b":"%s"}`, exp, base64.RawURLEncoding.EncodeToString(rsTag(vf.key, "")[:16])),
		fmt.Sprintf(` { "\u0070" : null , "exp" : %de0 , "x" : [ {}, [] ] } `, exp),
		`{"p":"\"}","exp":1e400}`,
		fmt.Sprintf(`{"p":{"i":"x","s":"team","a":{"email":"a@b.c","k":["x","y"]},"p":{"account":"d"}},"exp":%d}`, exp),
		fmt.Sprintf(`{"p":{"i":"x","n":1.5,"a":{"k":{"o":1}}},"exp":%d}`, exp),
	} {
		f.Add(body, "")
	}
	for _, b := range rsExpBodies(exp) {
		f.Add(b.body, "")
		f.Add(rsSign(vf.key, b.body), "")
	}
	for _, body := range [][]byte{sealedBody(exp, `{"i":"x","s":"team"}`), sealedBody(exp, "{"), {1}} {
		f.Add(sealIndependently(vf.key, body, false, ""), "")
		f.Add(sealIndependently(vf.key, body, true, "b"), "b")
		f.Add(string(body), "")
	}
	key, now := vf.key, vf.now()
	unbound := newRSCodec(f, key, nil, now)
	bound := newRSCodec(f, key, ptr(""), now)
	rotated, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte(strings.Repeat("r", 32)), key}, Bind: true, Now: fixedClock(now)})
	require.NoError(f, err)
	sealedUnbound := sealingCodec(f, false, fixedClock(now), key)
	sealedBound := sealingCodec(f, true, fixedClock(now), []byte(strings.Repeat("r", 32)), key)

	mac := func(data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	f.Fuzz(func(t *testing.T, token, bind string) {
		check := func(name string, c *RequestStateCodec, bind string, binds bool) {
			var p any
			err := c.Verify(token, bind, &p)
			if err != nil {
				if s := rsSentinel(err); strings.HasPrefix(s, "other") {
					t.Fatalf("%s: %s", name, s)
				}
				return
			}
			dot := strings.LastIndexByte(token, '.')
			if !strings.HasPrefix(token, "v1.") || dot < 3 {
				t.Fatalf("%s accepted %q: no structure", name, token)
			}
			if want := base64.RawURLEncoding.EncodeToString(mac(token[:dot])); token[dot+1:] != want {
				t.Fatalf("%s accepted %q: MAC is not %s", name, token, want)
			}
			body, err := base64.RawURLEncoding.Strict().DecodeString(token[3:dot])
			if err != nil {
				t.Fatalf("%s accepted %q: body: %v", name, token, err)
			}
			var env map[string]any
			dec := json.NewDecoder(strings.NewReader(string(body)))
			dec.UseNumber() // exp may be out of float64's range
			if err := dec.Decode(&env); err != nil {
				t.Fatalf("%s accepted %q: body %q: %v", name, token, body, err)
			}
			exp, ok := env["exp"].(json.Number)
			n, err := strconv.ParseInt(string(exp), 10, 64)
			if !ok || err != nil || strings.HasPrefix(string(exp), "-") || n < now.Unix()-rsLeeway || n > now.Unix()+600+rsLeeway {
				t.Fatalf("%s accepted %q: exp %v", name, token, env["exp"])
			}
			b, hasB := env["b"]
			if binds {
				want := base64.RawURLEncoding.EncodeToString(mac("mcp.requestState.bind:" + bind)[:16])
				if b != want {
					t.Fatalf("%s accepted %q: bind tag %v, want %s", name, token, b, want)
				}
			} else if hasB {
				t.Fatalf("%s accepted %q with a bind tag", name, token)
			}
		}
		check("unbound", unbound, "", false)
		check("bound", bound, bind, true)
		check("rotated", rotated, bind, true)
		checkSealed(t, token, bind, key, now, sealedUnbound, sealedBound)

		// The input as a body, under a valid MAC.
		signed := "v1." + base64.RawURLEncoding.EncodeToString([]byte(token))
		token = signed + "." + base64.RawURLEncoding.EncodeToString(mac(signed))
		for _, tc := range []struct {
			name  string
			c     *RequestStateCodec
			bind  string
			binds bool
		}{{"signed unbound", unbound, "", false}, {"signed bound", bound, bind, true}} {
			err := tc.c.Verify(token, tc.bind, nil)
			if s := rsSentinel(err); strings.HasPrefix(s, "other") {
				t.Fatalf("%s: %s", tc.name, s)
			}
			want := rsOracle([]byte(signed[3:]), key, tc.bind, tc.binds, now)
			if got := rsSentinel(err); got != want {
				t.Fatalf("%s: body %q: Verify says %s, the oracle %s", tc.name, signed[3:], got, want)
			}
			check(tc.name, tc.c, tc.bind, tc.binds)
			if err == nil {
				checkFlowStatePayload(t, tc.c, token, tc.bind)
			}
		}
	})
}

// checkSealed is FuzzVerify's check of sealing codecs: on token, which
// they accept only if it opens under the key, independently of the codec,
// to a body the oracle takes; and on the token sealed under the key as a
// body, and as a payload after a valid exp, for which Verify must name the
// oracle's outcome and decode a flow state as encoding/json does.
func checkSealed(t *testing.T, token, bind string, key []byte, now time.Time, unbound, bound *RequestStateCodec) {
	for _, tc := range []struct {
		name  string
		c     *RequestStateCodec
		bind  string
		binds bool
	}{{"sealed unbound", unbound, "", false}, {"sealed bound", bound, bind, true}} {
		err := tc.c.Verify(token, tc.bind, nil)
		if s := rsSentinel(err); strings.HasPrefix(s, "other") {
			t.Fatalf("%s: %s", tc.name, s)
		}
		if err == nil {
			body, ok := openIndependently(key, token, tc.binds, tc.bind)
			if !ok {
				t.Fatalf("%s accepted %q, which does not open", tc.name, token)
			}
			if got := sealedOracle(body, now); got != "ok" {
				t.Fatalf("%s accepted %q, whose body %q is %s", tc.name, token, body, got)
			}
		}

		// The input as a body, and as a payload after a valid exp.
		for _, body := range [][]byte{[]byte(token), sealedBody(now.Unix(), token)} {
			sealed := sealIndependently(key, body, tc.binds, tc.bind)
			err = tc.c.Verify(sealed, tc.bind, nil)
			if got, want := rsSentinel(err), sealedOracle(body, now); got != want {
				t.Fatalf("%s: body %q: Verify says %s, the oracle %s", tc.name, body, got, want)
			}
			if err == nil {
				checkFlowStatePayload(t, tc.c, sealed, tc.bind)
			}
		}
	}
}

// sealedOracle is the outcome Verify without a payload should give for
// the body of a sealed token, whose binding the seal checked: an 8-byte
// big-endian exp up to 2^53-1 within the TTL and leeway of now, and any
// payload, which Verify reads only when it decodes it.
func sealedOracle(body []byte, now time.Time) string {
	if len(body) < 8 {
		return "malformed"
	}
	exp := binary.BigEndian.Uint64(body)
	switch {
	case exp > 1<<53-1:
		return "malformed"
	case int64(exp) < now.Unix()-rsLeeway || int64(exp) > now.Unix()+600+rsLeeway:
		return "expired"
	}
	return "ok"
}

// checkFlowStatePayload requires that Verify into a flow state, which
// decodes itself, gives what json.Unmarshal gives from the payload's bytes.
func checkFlowStatePayload(t *testing.T, c *RequestStateCodec, token, bind string) {
	t.Helper()
	var raw json.RawMessage
	var got, want flowState
	if err := c.Verify(token, bind, &raw); err != nil {
		// Only a sealed token's payload is read no sooner than decoded;
		// then it is not JSON, and no flow state either.
		if !strings.HasPrefix(token, "s1.") || !errors.Is(err, ErrMalformed) || !errors.Is(c.Verify(token, bind, &got), ErrMalformed) {
			t.Fatalf("%q into RawMessage: %v", token, err)
		}
		return
	}
	err := c.Verify(token, bind, &got)
	wantErr := json.Unmarshal(raw, &want)
	if (err == nil) != (wantErr == nil) || !sameFlowState(got, want) {
		t.Fatalf("payload %s: Verify gives %#v, %v; json.Unmarshal %#v, %v", raw, got, err, want, wantErr)
	}
	if err != nil && !errors.Is(err, ErrMalformed) {
		t.Fatalf("payload %s: %v does not wrap ErrMalformed", raw, err)
	}
}

// rsTag is the bind tag's MAC, computed without the codec.
func rsTag(key []byte, bind string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("mcp.requestState.bind:" + bind))
	return h.Sum(nil)
}

// rsOracle is an independent reading of a MAC-checked body (base64url
// text): the outcome Verify should give a codec of the default TTL, using
// encoding/json's map decoding (exact keys, last duplicate wins) instead of
// the codec's scanner, and a regular expression for exp.
func rsOracle(bodyText, key []byte, bind string, binds bool, now time.Time) string {
	body, err := base64.RawURLEncoding.Strict().DecodeString(string(bodyText))
	if err != nil || base64.RawURLEncoding.EncodeToString(body) != string(bodyText) || !utf8.Valid(body) || !json.Valid(body) {
		return "malformed"
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || env == nil { // not an object; null decodes to nil
		return "malformed"
	}
	raw, ok := env["exp"]
	if !ok || !rsWholeSeconds.Match(raw) {
		return "malformed"
	}
	exp, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || exp > 1<<53-1 {
		return "malformed"
	}
	if exp < now.Unix()-rsLeeway || exp > now.Unix()+600+rsLeeway {
		return "expired"
	}
	b, hasB := env["b"]
	if !binds {
		if hasB {
			return "bind"
		}
		return "ok"
	}
	var tag string
	if !hasB || json.Unmarshal(b, &tag) != nil || tag != base64.RawURLEncoding.EncodeToString(rsTag(key, bind)[:16]) {
		return "bind"
	}
	return "ok"
}

// rsWholeSeconds is the spelling of an exp a minter writes.
var rsWholeSeconds = regexp.MustCompile(`^[0-9]+$`)

// The benchmarks share realistic tokens, bound to a principal and tool. The
// flow states are those of examples/signup as Flow mints them: asking the
// team step, after the account step proved an email and a plan; and a
// bigger one, after a step of six answers of every type.
func rsBenchFlowState() flowState {
	return flowState{
		ID:     "1LvqL-rz1rJit7imv_7q8g",
		Step:   "team",
		Proven: Answers{"email": "ada@example.com", "plan": "team"},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}},
	}
}

func rsBenchBigFlowState() flowState {
	st := rsBenchFlowState()
	st.Proven = Answers{
		"name":   "Ada Lovelace",
		"email":  "ada@example.com",
		"plan":   "team",
		"seats":  5.0,
		"topics": []any{"billing", "security"},
		"terms":  true,
	}
	return st
}

type rsBenchState struct {
	Step    int               `json:"step"`
	Answers map[string]string `json:"answers"`
}

func rsBenchStruct() rsBenchState {
	return rsBenchState{Step: 2, Answers: map[string]string{"name": "Ada Lovelace", "email": "ada@example.com"}}
}

// rsBenchSetup returns a codec and a token of payload.
func rsBenchSetup(b *testing.B, bind bool, payload any) (c *RequestStateCodec, token, bindStr string) {
	key := []byte(strings.Repeat("b", 32))
	var err error
	c, err = NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, Bind: bind, Now: fixedClock(time.Unix(1_700_000_000, 0))})
	require.NoError(b, err)
	if bind {
		bindStr = BindTo("user-1234567890", "signup")
	}
	token, err = c.Mint(payload, bindStr)
	require.NoError(b, err)
	return c, token, bindStr
}

// rsBenchSealedSetup returns a sealing codec and a bound, sealed token of
// the flow state of rsBenchFlowState, under rsBenchSetup's key and clock.
func rsBenchSealedSetup(b *testing.B) (c *RequestStateCodec, token, bind string) {
	c = sealingCodec(b, true, fixedClock(time.Unix(1_700_000_000, 0)), []byte(strings.Repeat("b", 32)))
	bind = BindTo("user-1234567890", "signup")
	token, err := c.Mint(rsBenchFlowState(), bind)
	require.NoError(b, err)
	return c, token, bind
}

// BenchmarkMint mints a bound token of a flow's state, which encodes
// itself, and of a struct, which encoding/json encodes.
func BenchmarkMint(b *testing.B) {
	for _, bc := range []struct {
		name    string
		payload any
	}{{"bound-flowstate", rsBenchFlowState()}, {"bound-flowstate-big", rsBenchBigFlowState()}, {"bound-struct", rsBenchStruct()}} {
		b.Run(bc.name, func(b *testing.B) {
			c, _, bind := rsBenchSetup(b, true, bc.payload)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Mint(bc.payload, bind); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify measures a bound token decoded into a flow's state (the
// one to hold against BenchmarkHMACBaseline/new, which MACs the same
// token), into a struct through encoding/json, and the checks alone.
func BenchmarkVerify(b *testing.B) {
	for _, bc := range []struct {
		name string
		st   flowState
	}{{"bound-flowstate", rsBenchFlowState()}, {"bound-flowstate-big", rsBenchBigFlowState()}} {
		b.Run(bc.name, func(b *testing.B) {
			c, tok, bind := rsBenchSetup(b, true, bc.st)
			b.SetBytes(int64(len(tok)))
			b.ReportAllocs()
			for b.Loop() {
				var st flowState
				if err := c.Verify(tok, bind, &st); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("bound-struct", func(b *testing.B) {
		c, tok, bind := rsBenchSetup(b, true, rsBenchStruct())
		b.SetBytes(int64(len(tok)))
		b.ReportAllocs()
		for b.Loop() {
			var st rsBenchState
			if err := c.Verify(tok, bind, &st); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bound-nil", func(b *testing.B) {
		c, tok, bind := rsBenchSetup(b, true, rsBenchFlowState())
		b.SetBytes(int64(len(tok)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Verify(tok, bind, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A sealed token, opened into a flow's state and alone: the ones to
	// hold against BenchmarkHMACBaseline/sealed-*, which MACs the same
	// token.
	b.Run("sealed-flowstate", func(b *testing.B) {
		c, tok, bind := rsBenchSealedSetup(b)
		b.SetBytes(int64(len(tok)))
		b.ReportAllocs()
		for b.Loop() {
			var st flowState
			if err := c.Verify(tok, bind, &st); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sealed-nil", func(b *testing.B) {
		c, tok, bind := rsBenchSealedSetup(b)
		b.SetBytes(int64(len(tok)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Verify(tok, bind, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unbound-nil", func(b *testing.B) {
		c, tok, _ := rsBenchSetup(b, false, rsBenchFlowState())
		b.SetBytes(int64(len(tok)))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Verify(tok, "", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHMACBaseline is a bare HMAC-SHA256 of the bytes Verify MACs
// ("v1." and the body of the bound flow-state token): "new" as code without
// the codec computes it, a new HMAC per call; "reset" reuses one HMAC, as
// the codec's pooled state does. The sealed-* variants MAC the whole token
// of BenchmarkVerify/sealed-*, the bytes that opening it reads.
func BenchmarkHMACBaseline(b *testing.B) {
	_, tok, _ := rsBenchSetup(b, true, rsBenchFlowState())
	_, sealed, _ := rsBenchSealedSetup(b)
	key := []byte(strings.Repeat("b", 32))
	for _, bc := range []struct{ name, tok, data string }{
		{"", tok, tok[:strings.LastIndexByte(tok, '.')]},
		{"sealed-", sealed, sealed},
	} {
		data := []byte(bc.data)
		b.Run(bc.name+"new", func(b *testing.B) {
			b.SetBytes(int64(len(bc.tok)))
			b.ReportAllocs()
			for b.Loop() {
				h := hmac.New(sha256.New, key)
				h.Write(data)
				_ = h.Sum(nil)
			}
		})
		b.Run(bc.name+"reset", func(b *testing.B) {
			h := hmac.New(sha256.New, key)
			var sum [sha256.Size]byte
			b.SetBytes(int64(len(bc.tok)))
			b.ReportAllocs()
			for b.Loop() {
				h.Reset()
				h.Write(data)
				_ = h.Sum(sum[:0])
			}
		})
	}
}

var (
	sealKeyA = bytes.Repeat([]byte{'a'}, 32)
	sealKeyB = bytes.Repeat([]byte{'b'}, 40)
	sealNow  = time.Unix(1_800_000_000, 0)
)

// sealingCodec returns a codec with RequestStateOptions.Seal, binding or
// not, of keys at clock.
func sealingCodec(t testing.TB, bind bool, clock func() time.Time, keys ...[]byte) *RequestStateCodec {
	t.Helper()
	c, err := NewRequestStateCodec(RequestStateOptions{Keys: keys, Bind: bind, Now: clock, Seal: true})
	require.NoError(t, err)
	return c
}

// openIndependently opens a sealed token as the format documents it,
// without the codec's code: HKDF-SHA256 of key, AES-256-GCM, the additional
// data of the binding. It returns the body, or ok false.
func openIndependently(key []byte, token string, binds bool, bind string) (body []byte, ok bool) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(strings.TrimPrefix(token, "s1."))
	if !strings.HasPrefix(token, "s1.") || err != nil || len(raw) < 28 {
		return nil, false
	}
	aead := independentAEAD(key)
	ad := []byte{0}
	if binds {
		ad = append([]byte{1}, bind...)
	}
	body, err = aead.Open(nil, raw[:12], raw[12:], ad)
	return body, err == nil
}

// sealedBody is the body of a sealed token: exp, 8 bytes big-endian, and
// the payload's JSON.
func sealedBody(exp int64, payload string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(exp)), payload...)
}

// sealIndependently seals body as a key holder could without the codec.
func sealIndependently(key, body []byte, binds bool, bind string) string {
	aead := independentAEAD(key)
	ad := []byte{0}
	if binds {
		ad = append([]byte{1}, bind...)
	}
	nonce := make([]byte, 12)
	rand.Read(nonce)
	return "s1." + base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, body, ad))
}

func independentAEAD(key []byte) cipher.AEAD {
	k, err := hkdf.Key(sha256.New, key, nil, "mcpform requestState v1", 32)
	if err != nil {
		panic(err)
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		panic(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

// TestSealedRoundTrip: what a sealing codec mints verifies back to the
// payload, is sealed text that opens independently to the envelope, and
// shows nothing of the payload, decoded or not. Two mints of one payload
// differ.
func TestSealedRoundTrip(t *testing.T) {
	big := rsBenchBigFlowState()
	for _, bind := range []*string{nil, ptr(""), ptr(BindTo("alice", "signup"))} {
		c := sealingCodec(t, bind != nil, fixedClock(sealNow), sealKeyA)
		for _, tc := range []struct {
			name    string
			payload any
			into    func() any
			hidden  []string
		}{
			{"flow state", big, func() any { return &flowState{} }, []string{"Ada Lovelace", "ada@example.com", "billing", "1LvqL-rz1rJit7imv_7q8g"}},
			{"struct", rsBenchStruct(), func() any { return &rsBenchState{} }, []string{"Ada Lovelace", "ada@example.com"}},
			{"string", "a secret of sorts", func() any { return new(string) }, []string{"a secret of sorts"}},
			{"nil", nil, func() any { return new(any) }, nil},
		} {
			t.Run(bindName(bind)+"/"+tc.name, func(t *testing.T) {
				tok, err := c.Mint(tc.payload, deref(bind))
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(tok, tokenpkg.SealedPrefix), tok)
				got := tc.into()
				require.NoError(t, c.Verify(tok, deref(bind), got))
				want := tc.into()
				require.NoError(t, json.Unmarshal([]byte(jsonOf(t, tc.payload)), want))
				assert.Equal(t, want, got)

				body, ok := openIndependently(sealKeyA, tok, bind != nil, deref(bind))
				require.True(t, ok, "does not open as documented")
				assert.Equal(t, sealedBody(sealNow.Unix()+600, jsonOf(t, tc.payload)), body)
				raw, err := base64.RawURLEncoding.DecodeString(tok[len(tokenpkg.SealedPrefix):])
				require.NoError(t, err)
				for _, h := range tc.hidden {
					assert.NotContains(t, tok, h)
					assert.NotContains(t, string(raw), h)
					assert.NotContains(t, tok, base64.RawURLEncoding.EncodeToString([]byte(h))[:8])
				}
				again, err := c.Mint(tc.payload, deref(bind))
				require.NoError(t, err)
				assert.NotEqual(t, tok, again, "a nonce was reused")
			})
		}
	}
}

// TestSealedRotation: the first key seals and every key opens, in any
// order; without the sealing key a token does not open.
func TestSealedRotation(t *testing.T) {
	clock := fixedClock(sealNow)
	for _, bind := range []bool{false, true} {
		t.Run(fmt.Sprintf("bind=%v", bind), func(t *testing.T) {
			b := ""
			if bind {
				b = BindTo("alice", "signup")
			}
			before := sealingCodec(t, bind, clock, sealKeyA)
			during := sealingCodec(t, bind, clock, sealKeyB, sealKeyA)
			after := sealingCodec(t, bind, clock, sealKeyB)
			oldTok, err := before.Mint(1, b)
			require.NoError(t, err)
			newTok, err := during.Mint(2, b)
			require.NoError(t, err)

			var p int
			require.NoError(t, during.Verify(oldTok, b, &p), "old token during rotation")
			assert.Equal(t, 1, p)
			require.NoError(t, after.Verify(newTok, b, &p), "new token after rotation")
			assert.Equal(t, 2, p)
			assert.NoError(t, sealingCodec(t, bind, clock, sealKeyA, sealKeyB).Verify(newTok, b, nil), "key order does not matter for opening")
			assert.ErrorIs(t, after.Verify(oldTok, b, nil), ErrMAC, "old token after the old key is removed")
			assert.ErrorIs(t, before.Verify(newTok, b, nil), ErrMAC, "new token before the new key is added")
		})
	}
}

// TestSealedExpiry: expiry, the leeway and the maximum lifetime hold for a
// sealed token as for a signed one.
func TestSealedExpiry(t *testing.T) {
	clock := sealNow
	c := sealingCodec(t, true, func() time.Time { return clock }, sealKeyA)
	tok, err := c.Mint("x", "b")
	require.NoError(t, err)
	exp := sealNow.Unix() + 600
	for _, at := range []struct {
		name string
		now  time.Time
		want error
	}{
		{"at mint", sealNow, nil},
		{"at exp", time.Unix(exp, 999_999_999), nil},
		{"end of the leeway", time.Unix(exp+rsLeeway, 999_999_999), nil},
		{"past the leeway", time.Unix(exp+rsLeeway+1, 0), ErrExpired},
		{"verifier the leeway behind", time.Unix(sealNow.Unix()-rsLeeway, 0), nil},
		{"verifier further behind", time.Unix(sealNow.Unix()-rsLeeway-1, 0), ErrExpired},
	} {
		clock = at.now
		assert.Equal(t, rsSentinel(at.want), rsSentinel(c.Verify(tok, "b", nil)), at.name)
	}

	t.Run("maximum lifetime", func(t *testing.T) {
		day, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{sealKeyA}, TTL: 24 * time.Hour, Bind: true, Now: fixedClock(sealNow), Seal: true})
		require.NoError(t, err)
		long, err := day.Mint("x", "b")
		require.NoError(t, err)
		assert.ErrorIs(t, sealingCodec(t, true, fixedClock(sealNow), sealKeyA).Verify(long, "b", nil), ErrExpired)
		assert.NoError(t, day.Verify(long, "b", nil))
	})
	t.Run("a body of any shape, sealed by a key holder", func(t *testing.T) {
		c := sealingCodec(t, true, fixedClock(sealNow), sealKeyA)
		now := sealNow.Unix()
		for _, tc := range []struct {
			name     string
			body     []byte
			want     string // Verify without a payload
			wantInto string // Verify into an int
		}{
			{"valid", sealedBody(now, "1"), "ok", "ok"},
			{"expired", sealedBody(now-rsLeeway-1, "1"), "expired", "expired"},
			{"too far ahead", sealedBody(now+600+rsLeeway+1, "1"), "expired", "expired"},
			{"exp past 2^53-1", sealedBody(1<<53, "1"), "malformed", "malformed"},
			{"exp negative", sealedBody(-1, "1"), "malformed", "malformed"},
			{"no room for exp", []byte{1, 2, 3}, "malformed", "malformed"},
			{"no payload", sealedBody(now, ""), "ok", "malformed"},
			{"payload not JSON", sealedBody(now, "{"), "ok", "malformed"},
			{"payload of another type", sealedBody(now, `"x"`), "ok", "malformed"},
		} {
			tok := sealIndependently(sealKeyA, tc.body, true, "b")
			assert.Equal(t, tc.want, rsSentinel(c.Verify(tok, "b", nil)), tc.name)
			var n int
			assert.Equal(t, tc.wantInto, rsSentinel(c.Verify(tok, "b", &n)), tc.name+", into an int")
		}
	})
}

// TestSealedBinding: a sealed token opens only for the bind string it was
// sealed for, and a binding codec and one that does not never open each
// other's tokens. The binding is sealed in, so each is ErrMAC.
func TestSealedBinding(t *testing.T) {
	clock := fixedClock(sealNow)
	bound := sealingCodec(t, true, clock, sealKeyA)
	unbound := sealingCodec(t, false, clock, sealKeyA)
	alice := BindTo("alice", "signup", "args")
	tok, err := bound.Mint(1, alice)
	require.NoError(t, err)
	require.NoError(t, bound.Verify(tok, alice, nil))
	for _, other := range []string{BindTo("bob", "signup", "args"), BindTo("alice", "delete", "args"), BindTo("alice", "signup", "other"),
		BindTo("alicesignup", "args"), "", alice + "x"} {
		assert.ErrorIs(t, bound.Verify(tok, other, nil), ErrMAC, other)
	}
	assert.ErrorIs(t, unbound.Verify(tok, "", nil), ErrMAC, "bound token, codec that does not bind")
	emptyBound, err := bound.Mint(1, "")
	require.NoError(t, err)
	assert.ErrorIs(t, unbound.Verify(emptyBound, "", nil), ErrMAC, "bound to the empty string, codec that does not bind")
	free, err := unbound.Mint(1, "")
	require.NoError(t, err)
	assert.ErrorIs(t, bound.Verify(free, "", nil), ErrMAC, "unbound token, codec that binds")
	assert.Equal(t, RejectState(ErrMAC), RejectState(bound.Verify(tok, "", nil)), "the same -32602")
}

// TestSealedTamper changes every byte of sealed tokens to every other
// value, drops each byte, truncates them to every length and extends
// them: none verifies, and each fails with one of the four sentinels.
func TestSealedTamper(t *testing.T) {
	clock := fixedClock(sealNow)
	for _, bind := range []*string{nil, ptr(BindTo("alice", "signup"))} {
		c := sealingCodec(t, bind != nil, clock, sealKeyA, sealKeyB)
		for i, p := range []any{nil, rsBenchFlowState()} {
			tok, err := c.Mint(p, deref(bind))
			require.NoError(t, err)
			t.Run(fmt.Sprintf("%s/%d", bindName(bind), i), func(t *testing.T) {
				require.NoError(t, c.Verify(tok, deref(bind), nil), "the untampered token")
				refused := func(changed, what string) {
					t.Helper()
					err := c.Verify(changed, deref(bind), nil)
					if s := rsSentinel(err); s != "malformed" && s != "mac" {
						t.Fatalf("%s: %s", what, s)
					}
				}
				for i := range len(tok) {
					for b := range 256 {
						if byte(b) != tok[i] {
							refused(tok[:i]+string([]byte{byte(b)})+tok[i+1:], fmt.Sprintf("byte %d set to %#x", i, b))
						}
					}
					refused(tok[:i]+tok[i+1:], fmt.Sprintf("byte %d dropped", i))
					refused(tok[:i], fmt.Sprintf("truncated to %d bytes", i))
				}
				for _, tail := range []string{"A", "AA", "AAA", "AAAA", "Ag", "_", ".", "=", "\n", " "} {
					refused(tok+tail, fmt.Sprintf("extended by %q", tail))
				}
			})
		}
	}
}

// TestSealedAcrossFormats: a signed token offered to a sealing codec, and
// a sealed one to a signing codec, under the same keys, are refused as
// malformed; a token sealed under one key set does not open under another,
// nor what the secret store sealed under the same keys. All are -32602.
func TestSealedAcrossFormats(t *testing.T) {
	clock := fixedClock(sealNow)
	bind := BindTo("alice", "signup")
	sealing := sealingCodec(t, true, clock, sealKeyA)
	signing, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{sealKeyA}, Bind: true, Now: clock})
	require.NoError(t, err)
	sealed, err := sealing.Mint(rsBenchFlowState(), bind)
	require.NoError(t, err)
	signed, err := signing.Mint(rsBenchFlowState(), bind)
	require.NoError(t, err)
	otherKeys, err := sealingCodec(t, true, clock, sealKeyB, bytes.Repeat([]byte{'c'}, 32)).Mint(rsBenchFlowState(), bind)
	require.NoError(t, err)
	store := NewMemorySecretStore()
	require.NoError(t, SealSecrets(store, sealing).PutSecret(t.Context(), bind, `{"p":1}`, sealNow.Add(time.Hour)))
	storeSealed, _, err := store.GetSecret(t.Context(), bind)
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		codec *RequestStateCodec
		token string
		want  error
	}{
		{"signed to a sealing codec", sealing, signed, ErrMalformed},
		{"sealed to a signing codec", signing, sealed, ErrMalformed},
		{"sealed under other keys", sealing, otherKeys, ErrMAC},
		{"sealed by the secret store under the same keys", sealing, storeSealed, ErrMAC},
		{"not a token", sealing, "s1.", ErrMalformed},
		{"too short for a nonce and tag", sealing, tokenpkg.SealedPrefix + base64.RawURLEncoding.EncodeToString(make([]byte, 27)), ErrMalformed},
		{"padded", sealing, sealed + strings.Repeat("=", (4-(len(sealed)-3)%4)%4), ErrMalformed},
		{"a line break inserted", sealing, sealed[:20] + "\n" + sealed[20:], ErrMalformed},
		{"a carriage return inserted", sealing, sealed[:20] + "\r" + sealed[20:], ErrMalformed},
		{"standard base64's alphabet", sealing, sealed[:20] + "+" + sealed[21:], ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.codec.Verify(tc.token, bind, nil)
			assert.Equal(t, rsSentinel(tc.want), rsSentinel(err))
			assert.Equal(t, RejectState(ErrMAC), RejectState(err), "answered as a bad MAC is")
		})
	}
	assert.NoError(t, sealing.Verify(sealed, bind, nil))
	assert.NoError(t, signing.Verify(signed, bind, nil))
}

// TestSealedSize: a sealed state is no longer than the signed one plus the
// nonce, the tag and their base64; it is in fact shorter, having no MAC
// and no bind tag. The states are those of the signup flow.
func TestSealedSize(t *testing.T) {
	clock := fixedClock(sealNow)
	bind := BindTo("user-1234567890", "signup", noArgumentsDigest(t))
	sealing := sealingCodec(t, true, clock, sealKeyA)
	signing, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{sealKeyA}, Bind: true, Now: clock})
	require.NoError(t, err)
	overhead := base64.RawURLEncoding.EncodedLen(tokenpkg.NonceSize + tokenpkg.TagSize)
	for name, st := range map[string]flowState{"team step": rsBenchFlowState(), "after six answers": rsBenchBigFlowState(), "start": {ID: "1LvqL-rz1rJit7imv_7q8g", Step: "account"}} {
		sealed, err := sealing.Mint(st, bind)
		require.NoError(t, err)
		signed, err := signing.Mint(st, bind)
		require.NoError(t, err)
		t.Logf("%s: signed %d bytes, sealed %d", name, len(signed), len(sealed))
		assert.LessOrEqual(t, len(sealed), len(signed)+overhead, name)
	}
}

func noArgumentsDigest(t testing.TB) string {
	d, err := canonjson.ArgumentsDigest(nil)
	require.NoError(t, err)
	return d
}

// bindName names a test's binding: none, the empty string, or a string.
func bindName(bind *string) string {
	switch {
	case bind == nil:
		return "unbound"
	case *bind == "":
		return "bound to empty"
	}
	return "bound"
}

// BenchmarkSealedCost measures issue 17's two bounds as ratios, timing
// each operation and its peer in alternate batches of the same loop, so
// that both see the same load on a shared machine: a flow round with a
// sealed state against one with a signed state (at most 1.3), and opening
// a sealed token (Verify, no payload) against a bare HMAC-SHA256 of the
// same token, new per call and reused (at most 3). ns/op is of no use
// here; read the ratio metrics.
func BenchmarkSealedCost(b *testing.B) {
	b.Run("flow-round", func(b *testing.B) {
		round := func(readable bool) func() {
			_, codec, _ := newFlowFixture(b)
			flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, ReadableState: readable})
			require.NoError(b, err)
			r, err := flow.Next(context.Background(), call("signup", "", nil))
			require.NoError(b, err)
			req := call("signup", r.Result.RequestState, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "team"}})
			return func() {
				if r, err := flow.Next(context.Background(), req); err != nil || r.Status != FlowAsk {
					b.Fatal(err, r)
				}
			}
		}
		t := alternate(b, round(false), round(true))
		b.ReportMetric(t[0]/t[1], "sealed/signed")
	})
	b.Run("open", func(b *testing.B) {
		c, tok, bind := rsBenchSealedSetup(b)
		key, data := []byte(strings.Repeat("b", 32)), []byte(tok)
		h := hmac.New(sha256.New, key)
		var sum [sha256.Size]byte
		t := alternate(b, func() {
			if err := c.Verify(tok, bind, nil); err != nil {
				b.Fatal(err)
			}
		}, func() {
			h := hmac.New(sha256.New, key)
			h.Write(data)
			_ = h.Sum(nil)
		}, func() {
			h.Reset()
			h.Write(data)
			_ = h.Sum(sum[:0])
		})
		b.ReportMetric(t[0]/t[1], "open/hmac-new")
		b.ReportMetric(t[0]/t[2], "open/hmac-reset")
	})
}

// alternate runs each of fs in turn, a batch at a time, b.N batches in
// all, rotating which goes first, and returns each one's total time.
func alternate(b *testing.B, fs ...func()) []float64 {
	const batch = 16
	total := make([]float64, len(fs))
	for i := 0; b.Loop(); i++ {
		for j := range fs {
			k := (i + j) % len(fs)
			start := time.Now()
			for range batch {
				fs[k]()
			}
			total[k] += float64(time.Since(start))
		}
	}
	return total
}
