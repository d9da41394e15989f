package mcpform

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// errUnsealed reports a stored value that opens under none of the codec's
// keys: written by another deployment, or damaged.
var errUnsealed = errors.New("mcpform: a sealed secret opens under none of the codec's keys")

// sealedPrefix marks a sealed value and the version of its format.
const sealedPrefix = "s1."

// SealSecrets returns a [SecretStore] that keeps its values in store sealed
// with AES-256-GCM, so that a database holding them, its logs and its
// backups hold ciphertext only. The keys are derived from codec's: the
// first seals and every key opens, so rotating the codec's keys rotates
// these too, and replicas that share the codec's keys open each other's
// values. Each value is bound to its store key, so a sealed value copied
// under another key does not open.
//
// Get reports a value that opens under no key as an error rather than as
// missing: it was sealed by a deployment with other keys, or damaged.
// SealSecrets panics on a nil store or an unusable codec.
func SealSecrets(store SecretStore, codec *RequestStateCodec) SecretStore {
	if store == nil || codec == nil || len(codec.keys) == 0 {
		panic("mcpform: SealSecrets needs a store and a codec")
	}
	s := &sealedStore{store: store}
	for _, k := range codec.keys {
		mac := hmac.New(sha256.New, k)
		mac.Write([]byte("mcpform secret store v1"))
		block, err := aes.NewCipher(mac.Sum(nil))
		if err != nil {
			panic(err) // a 32-byte key always makes a cipher
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			panic(err)
		}
		s.aeads = append(s.aeads, aead)
	}
	return s
}

type sealedStore struct {
	store SecretStore
	aeads []cipher.AEAD // aeads[0] seals
}

// Put seals value and stores it under key.
func (s *sealedStore) Put(ctx context.Context, key, value string, expires time.Time) error {
	a := s.aeads[0]
	nonce := make([]byte, a.NonceSize(), a.NonceSize()+len(value)+a.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	sealed := a.Seal(nonce, nonce, []byte(value), []byte(key))
	return s.store.Put(ctx, key, sealedPrefix+base64.RawURLEncoding.EncodeToString(sealed), expires)
}

// Get returns the value under key, opened.
func (s *sealedStore) Get(ctx context.Context, key string) (string, bool, error) {
	v, ok, err := s.store.Get(ctx, key)
	if err != nil || !ok {
		return "", ok, err
	}
	raw, found := strings.CutPrefix(v, sealedPrefix)
	sealed, err := base64.RawURLEncoding.DecodeString(raw)
	if !found || err != nil {
		return "", false, errUnsealed
	}
	for _, a := range s.aeads {
		if len(sealed) < a.NonceSize() {
			break
		}
		if plain, err := a.Open(nil, sealed[:a.NonceSize()], sealed[a.NonceSize():], []byte(key)); err == nil {
			return string(plain), true, nil
		}
	}
	return "", false, errUnsealed
}

// Delete removes the value under key.
func (s *sealedStore) Delete(ctx context.Context, key string) error {
	return s.store.Delete(ctx, key)
}
