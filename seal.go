package mcpform

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
)

// Sealed text is the one format of everything mcpform seals, request state
// and stored secrets alike:
//
//	"s1." base64url(nonce || ciphertext || tag)
//
// with AES-256-GCM, a random 12-byte nonce and a 16-byte tag, base64url
// unpadded. The additional data, which the tag authenticates but the text
// does not carry, says what the sealed value belongs to.
const (
	sealedPrefix   = "s1."
	sealNonceSize  = 12
	sealTagSize    = 16
	sealedMinBytes = sealNonceSize + sealTagSize
)

// A sealer seals and opens values under keys derived from a request-state
// codec's keys with HKDF-SHA256: one AES-256 key per codec key, apart from
// the MAC keys, and per use (label), so that what one use seals no other
// opens. The first key seals and every key opens, so rotating the codec's
// keys rotates these too. A sealer is safe for concurrent use.
type sealer struct {
	aeads []cipher.AEAD // aeads[i] is keys[i]'s; aeads[0] seals
}

// newSealer derives a sealer for the use label from keys.
func newSealer(keys [][]byte, label string) *sealer {
	s := &sealer{aeads: make([]cipher.AEAD, len(keys))}
	for i, k := range keys {
		// An empty salt: the keys are already uniformly random (RFC 5869 §3.1).
		key, err := hkdf.Key(sha256.New, k, nil, label, 32)
		if err != nil {
			panic(err) // only for an output beyond 255 hashes
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			panic(err) // a 32-byte key always makes a cipher
		}
		if s.aeads[i], err = cipher.NewGCM(block); err != nil {
			panic(err)
		}
	}
	return s
}

// seal appends the sealed text of plain, bound to ad, to dst, using raw as
// scratch for the binary form; it returns both, for reuse.
func (s *sealer) seal(dst, raw, plain, ad []byte) (text, rawOut []byte, err error) {
	a := s.aeads[0]
	raw = append(raw[:0], make([]byte, sealNonceSize)...)
	if _, err := rand.Read(raw); err != nil {
		return dst, raw, err
	}
	raw = a.Seal(raw, raw[:sealNonceSize], plain, ad)
	dst = base64.RawURLEncoding.AppendEncode(append(dst, sealedPrefix...), raw)
	return dst, raw, nil
}

// open appends to dst what text seals under ad, using raw as scratch for
// the binary form, and returns both. It fails with ErrMalformed when text
// is not sealed text (the prefix, canonical base64url, room for a nonce
// and tag), and with ErrMAC when it opens under no key: altered, sealed
// under other keys or for another use, or bound to other data.
func (s *sealer) open(dst, raw, text, ad []byte) (plain, rawOut []byte, err error) {
	// The strict decoder refuses every non-canonical spelling but line
	// breaks, which it skips: refusing those too leaves only the canonical
	// one, in one pass where canonicalBase64URL would take another.
	body, ok := bytes.CutPrefix(text, []byte(sealedPrefix))
	if !ok || base64.RawURLEncoding.DecodedLen(len(body)) < sealedMinBytes ||
		bytes.IndexByte(body, '\n') >= 0 || bytes.IndexByte(body, '\r') >= 0 {
		return dst, raw, ErrMalformed
	}
	raw, err = strictBase64URL.AppendDecode(raw[:0], body)
	if err != nil {
		return dst, raw, ErrMalformed
	}
	nonce, sealed := raw[:sealNonceSize], raw[sealNonceSize:]
	for _, a := range s.aeads {
		if plain, err := a.Open(dst, nonce, sealed, ad); err == nil {
			return plain, raw, nil
		}
	}
	return dst, raw, ErrMAC
}

// A sealed request-state token (RequestStateOptions.Seal) seals its expiry
// and payload, binary, in mcpform's own format, which needs no JSON
// envelope to scan on every open:
//
//	exp (8 bytes, big-endian unsigned whole seconds) || payload (JSON)
//
// under the additional data of appendSealAD, as sealed text.
const (
	requestStateSealLabel = "mcpform requestState v1" // HKDF label of the keys
	sealedExpSize         = 8
)

// appendSealAD appends a sealed token's additional data: whether the codec
// binds and, if it does, the bind string. A binding codec and one that
// does not never open each other's tokens, as with signed tokens.
func (c *RequestStateCodec) appendSealAD(dst []byte, bind string) []byte {
	if !c.bind {
		return append(dst, 0)
	}
	return append(append(dst, 1), bind...)
}

// mintSealed is mint of a sealed token expiring at exp.
func (c *RequestStateCodec) mintSealed(s *requestStateScratch, payload any, bind string, exp int64) (string, error) {
	plain, err := appendPayload(binary.BigEndian.AppendUint64(s.buf[:0], uint64(exp)), payload)
	if err != nil {
		return "", marshalError(err)
	}
	s.buf = plain
	s.tag = c.appendSealAD(s.tag[:0], bind)
	tok, raw, err := c.sealer.seal(s.body[:0], s.raw, plain, s.tag)
	s.body, s.raw = tok, raw
	if err != nil {
		return "", err
	}
	return string(tok), nil
}

// openSealed runs Verify's checks of a sealed token and returns an
// envelope of its payload.
func (c *RequestStateCodec) openSealed(s *requestStateScratch, token, bind string) (envelope, error) {
	s.buf = append(s.buf[:0], token...)
	s.tag = c.appendSealAD(s.tag[:0], bind)
	body, raw, err := c.sealer.open(s.body[:0], s.raw, s.buf, s.tag)
	s.body, s.raw = body, raw
	if err != nil {
		return envelope{}, err
	}
	if len(body) < sealedExpSize {
		return envelope{}, ErrMalformed
	}
	exp := binary.BigEndian.Uint64(body)
	if exp > maxRequestStateExp {
		return envelope{}, ErrMalformed
	}
	if err := c.checkExp(int64(exp)); err != nil {
		return envelope{}, err
	}
	return envelope{p: body[sealedExpSize:], hasP: true}, nil
}
