// Package canonjson writes a tool call's arguments in the canonical JSON
// that mcpform binds a flow's state to, and digests it. The canonical
// form keeps every value exactly, numbers included, and spells numbers as
// JavaScript's JSON.stringify does, so that a value a browser parses and
// sends back unchanged keeps its digest.
package canonjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// nullDigest is the digest of absent, null and {} arguments.
var nullDigest = Digest([]byte("null"))

// ErrTrailing refuses arguments that hold more than one JSON value.
var ErrTrailing = errors.New("mcpform: arguments hold more than one JSON value")

// ArgumentsDigest returns the digest of a tool call's arguments raw: of
// their canonical JSON (see Marshal), read as one JSON value with numbers
// kept as written. Absent, null and {} arguments share one digest. It
// fails for arguments that are not one JSON value, with ErrFoldedKeys,
// and with the defects [Check] finds: arguments that say two things are
// never bound.
func ArgumentsDigest(raw []byte) (string, error) {
	if t := bytes.Trim(raw, " \t\r\n"); len(t) == 0 { // JSON's white space only
		return nullDigest, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", ErrTrailing
	}
	if err := Check(raw); err != nil {
		return "", err
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nullDigest, nil
	}
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	return Digest(b), nil
}

// Marshal returns v, as a json.Decoder with UseNumber decodes it, in the
// canonical form the binding digest is taken of. It depends only on the
// value that was written, exactly: key order and white space do not
// change it, nor does how a string is escaped ("\u00e9" is "é"), nor the spelling of a
// number of the same exact decimal value (1, 1.0, 10e-1 and 1e0 are one),
// but any two numbers that differ do, however far beyond float64's
// precision (9007199254740993 is not 9007199254740992). Numbers are
// written as JavaScript's JSON.stringify writes them, so that a value a
// browser parses and sends back unchanged keeps its digest; v is changed
// in place.
//
// Key order is lost, so an object with two keys that differ only in case
// is refused with ErrFoldedKeys: encoding/json decodes both into one
// struct field, the later one winning, so their order, which the digest
// cannot see, would choose what a handler reads.
func Marshal(v any) ([]byte, error) {
	folded := false
	v = numbers(v, &folded)
	if folded {
		return nil, ErrFoldedKeys
	}
	return json.Marshal(v)
}

// ErrFoldedKeys refuses arguments that hold an object with two keys that
// differ only in case.
var ErrFoldedKeys = errors.New("mcpform: arguments hold an object with two keys that differ only in case")

// numbers replaces every json.Number in v by its canonical form, in
// place, and returns v; it sets *folded when an object of v has two
// keys that differ only in case.
func numbers(v any, folded *bool) any {
	switch v := v.(type) {
	case json.Number:
		if c := Number(string(v)); c != string(v) {
			return json.Number(c)
		}
	case map[string]any:
		if len(v) > 1 && !*folded {
			*folded = foldedKeys(v)
		}
		for k, x := range v {
			v[k] = numbers(x, folded)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x, folded)
		}
	}
	return v
}

// foldedKeys reports whether two keys of m are equal under Unicode case
// folding, as encoding/json matches a key to a struct field.
func foldedKeys[V any](m map[string]V) bool {
	seen := make(map[string]struct{}, len(m))
	for k := range m {
		f := foldKey(k)
		if _, ok := seen[f]; ok {
			return true
		}
		seen[f] = struct{}{}
	}
	return false
}

// foldKey returns s with each rune replaced by the least rune of its case
// folding orbit, so that two strings equal under strings.EqualFold have
// the same key.
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// Number returns the JSON number s, which must be valid, in the
// form JavaScript's Number.prototype.toString gives its exact decimal
// value, computed on the digits, never through float64: the significant
// digits, without leading or trailing zeros, placed by its exponent. -0
// is 0. A number whose exponent does not fit an int32 is returned as it
// is written, which stays exact but not canonical; no client writes one.
func Number(s string) string {
	if IsCanonicalInteger(s) {
		return s // the common case, already in canonical form
	}
	neg := strings.HasPrefix(s, "-")
	mant, exp := strings.TrimPrefix(s, "-"), 0
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		e, err := strconv.ParseInt(mant[i+1:], 10, 32)
		if err != nil {
			return s
		}
		mant, exp = mant[:i], int(e)
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return "0"
	}
	// The value is digits × 10^point; n places the decimal point as
	// ECMA-262's Number::toString does: value = 0.digits × 10^n.
	point := exp - len(frac)
	trimmed := strings.TrimRight(digits, "0")
	point += len(digits) - len(trimmed)
	digits = trimmed
	k := len(digits)
	n := k + point
	var b strings.Builder
	b.Grow(k + 24)
	if neg {
		b.WriteByte('-')
	}
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteString(digits[:1])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}

// IsCanonicalInteger reports whether s is an integer as Number
// writes it: digits without a leading zero, at most 21 of them, and a
// sign only before a digit other than 0.
func IsCanonicalInteger(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 21 || d[0] == '0' && (len(d) > 1 || len(s) > 1) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// Digest returns the binding digest of canonical JSON: base64url of its
// SHA-256.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
