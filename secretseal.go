package mcpform

import (
	"context"
	"errors"
	"time"
)

// errUnsealed reports a stored value that opens under none of the codec's
// keys: written by another deployment, or damaged.
var errUnsealed = errors.New("mcpform: a sealed secret opens under none of the codec's keys")

// secretSealLabel is the HKDF label of the secret store's keys, which
// differ from the request state's: neither opens what the other sealed.
const secretSealLabel = "mcpform secret store v1"

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
	return &sealedStore{store: store, sealer: newSealer(codec.keys, secretSealLabel)}
}

type sealedStore struct {
	store  SecretStore
	sealer *sealer
}

// PutSecret seals value and stores it under key.
func (s *sealedStore) PutSecret(ctx context.Context, key, value string, expires time.Time) error {
	sealed, _, err := s.sealer.seal(nil, nil, []byte(value), []byte(key))
	if err != nil {
		return err
	}
	return s.store.PutSecret(ctx, key, string(sealed), expires)
}

// GetSecret returns the value under key, opened.
func (s *sealedStore) GetSecret(ctx context.Context, key string) (string, bool, error) {
	v, ok, err := s.store.GetSecret(ctx, key)
	if err != nil || !ok {
		return "", ok, err
	}
	plain, _, err := s.sealer.open(nil, nil, []byte(v), []byte(key))
	if err != nil {
		return "", false, errUnsealed
	}
	return string(plain), true, nil
}

// DeleteSecret removes the value under key.
func (s *sealedStore) DeleteSecret(ctx context.Context, key string) error {
	return s.store.DeleteSecret(ctx, key)
}
