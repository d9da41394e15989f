package mcpform

import (
	"crypto/cipher"

	"github.com/mcpform/mcpform/internal/token"
)

// Sealing is internal/token's: "s1." and base64url of a nonce, AES-256-GCM
// ciphertext and tag, under keys derived from the codec's with HKDF. These
// names keep the root's spelling for the secret store, the links and the
// outcomes, which seal with it.
const (
	sealedPrefix  = token.SealedPrefix
	sealNonceSize = token.NonceSize
	sealTagSize   = token.TagSize
)

// strictBase64URL decodes unpadded base64url, refusing non-zero trailing
// bits.
var strictBase64URL = token.StrictBase64URL

// A sealer seals and opens values under keys derived from a request-state
// codec's keys for one use (label); see token.Sealer.
type sealer struct {
	*token.Sealer
	aeads []cipher.AEAD // aeads[0] seals, for a link's synthetic nonce
}

// newSealer derives a sealer for the use label from keys.
func newSealer(keys [][]byte, label string) *sealer {
	s := token.NewSealer(keys, label)
	return &sealer{Sealer: s, aeads: []cipher.AEAD{s.AEAD()}}
}

// seal appends the sealed text of plain, bound to ad, to dst. raw is
// unused; it is returned for the callers that once reused it.
func (s *sealer) seal(dst, raw, plain, ad []byte) (text, rawOut []byte, err error) {
	text, err = s.Seal(dst, plain, ad)
	return text, raw, err
}

// open appends to dst what text seals under ad; see token.Sealer.Open.
func (s *sealer) open(dst, raw, text, ad []byte) (plain, rawOut []byte, err error) {
	plain, err = s.Open(dst, text, ad)
	return plain, raw, err
}
