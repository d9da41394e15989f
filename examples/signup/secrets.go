package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/mcpform/mcpform"
)

// dbSecrets is an mcpform.SecretStore on the example's database, so that a
// secret page posted to one replica completes a flow retried on another.
// The page's values wait in the secrets table, sealed by
// mcpform.SealSecrets, until set_password takes them, or for the link's
// lifetime at most: Get ignores an expired value, and the next Put clears
// it.
type dbSecrets struct{ s *store }

// secrets returns the store's SecretStore.
func (s *store) secrets() mcpform.SecretStore { return dbSecrets{s} }

// usedFor is how long a used key is remembered after its value expires:
// longer than any link stays valid, as in mcpform.MemorySecretStore.
const usedFor = 24 * time.Hour

// Put implements mcpform.SecretStore: the primary key makes a key usable
// once, ever, on every replica.
func (d dbSecrets) Put(ctx context.Context, key, value string, expires time.Time) error {
	s, now := d.s, time.Now()
	// Clear expired values, and forget used keys a day later. Puts are
	// rare, so they pay for it.
	if _, err := s.db.ExecContext(ctx, s.q(`UPDATE secrets SET value = NULL
		WHERE value IS NOT NULL AND expires_ms <= ?`), now.UnixMilli()); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM secrets WHERE expires_ms <= ?`),
		now.Add(-usedFor).UnixMilli()); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO secrets (secret_key, value, expires_ms)
		VALUES (?, ?, ?) ON CONFLICT (secret_key) DO NOTHING`), key, value, expires.UnixMilli())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return cmp.Or(err, mcpform.ErrSecretUsed)
	}
	return nil
}

// Get implements mcpform.SecretStore.
func (d dbSecrets) Get(ctx context.Context, key string) (string, bool, error) {
	s := d.s
	var v string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT value FROM secrets
		WHERE secret_key = ? AND value IS NOT NULL AND expires_ms > ?`), key, time.Now().UnixMilli()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// Delete implements mcpform.SecretStore: it clears the value and keeps
// the row, the record that the key was used.
func (d dbSecrets) Delete(ctx context.Context, key string) error {
	_, err := d.s.db.ExecContext(ctx, d.s.q(`UPDATE secrets SET value = NULL WHERE secret_key = ?`), key)
	return err
}
