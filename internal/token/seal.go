package token

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
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
	// SealedPrefix begins all sealed text.
	SealedPrefix = "s1."
	// NonceSize and TagSize are AES-GCM's, as sealed text holds them.
	NonceSize      = 12
	TagSize        = 16
	sealedMinBytes = NonceSize + TagSize
)

// A Sealer seals and opens values under keys derived from a codec's keys
// with HKDF-SHA256: one AES-256 key per codec key, apart from the MAC
// keys, and per use (label), so that what one use seals no other opens.
// The first key seals and every key opens, so rotating the codec's keys
// rotates these too. A Sealer is safe for concurrent use.
type Sealer struct {
	aeads []cipher.AEAD // aeads[i] is keys[i]'s; aeads[0] seals
}

// NewSealer derives a Sealer for the use label from keys.
func NewSealer(keys [][]byte, label string) *Sealer {
	s := &Sealer{aeads: make([]cipher.AEAD, len(keys))}
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

// AEAD returns the AEAD that seals, for a caller that picks its own
// (synthetic) nonce.
func (s *Sealer) AEAD() cipher.AEAD { return s.aeads[0] }

// Seal appends the sealed text of plain, bound to ad, to dst, under a
// random nonce.
func (s *Sealer) Seal(dst, plain, ad []byte) ([]byte, error) {
	raw := make([]byte, NonceSize, NonceSize+len(plain)+TagSize)
	if _, err := rand.Read(raw); err != nil {
		return dst, err
	}
	raw = s.aeads[0].Seal(raw, raw, plain, ad)
	return base64.RawURLEncoding.AppendEncode(append(dst, SealedPrefix...), raw), nil
}

// Open appends to dst what text seals under ad. It fails with ErrMalformed
// when text is not sealed text (the prefix, canonical base64url, room for
// a nonce and tag), and with ErrMAC when it opens under no key: altered,
// sealed under other keys or for another use, or bound to other data.
func (s *Sealer) Open(dst, text, ad []byte) ([]byte, error) {
	// The strict decoder refuses every non-canonical spelling but line
	// breaks, which it skips: refusing those too leaves only the canonical
	// one.
	body, ok := bytes.CutPrefix(text, []byte(SealedPrefix))
	if !ok || base64.RawURLEncoding.DecodedLen(len(body)) < sealedMinBytes ||
		bytes.IndexByte(body, '\n') >= 0 || bytes.IndexByte(body, '\r') >= 0 {
		return dst, ErrMalformed
	}
	raw, err := StrictBase64URL.AppendDecode(nil, body)
	if err != nil {
		return dst, ErrMalformed
	}
	nonce, sealed := raw[:NonceSize], raw[NonceSize:]
	for _, a := range s.aeads {
		if plain, err := a.Open(dst, nonce, sealed, ad); err == nil {
			return plain, nil
		}
	}
	return dst, ErrMAC
}
