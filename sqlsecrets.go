package mcpform

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"time"
)

// secretColumns are the columns of [SQLStore]'s secret table. A row whose
// value is NULL records that its key was used.
const secretColumns = `secret_key TEXT PRIMARY KEY, value TEXT, expires_ms BIGINT NOT NULL`

// Put implements [SecretStore]: the primary key makes a key usable once,
// ever, on every replica. Each Put also clears the values that have
// expired, and forgets used keys a day after: Puts are rare, so they pay.
// Seal the values with [SealSecrets], so that the table and its backups
// hold ciphertext only.
func (s *SQLStore) Put(ctx context.Context, key, value string, expires time.Time) error {
	if err := s.ensure(ctx, s.secTable, secretColumns); err != nil {
		return err
	}
	now := s.now()
	if _, err := s.db.ExecContext(ctx, "UPDATE "+s.secTable+
		" SET value = NULL WHERE value IS NOT NULL AND expires_ms <= $1", now.UnixMilli()); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM "+s.secTable+
		" WHERE expires_ms <= $1", now.Add(-usedFor).UnixMilli()); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, "INSERT INTO "+s.secTable+
		" (secret_key, value, expires_ms) VALUES ($1, $2, $3) ON CONFLICT (secret_key) DO NOTHING",
		key, value, expires.UnixMilli())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return cmp.Or(err, ErrSecretUsed)
	}
	return nil
}

// Get implements [SecretStore].
func (s *SQLStore) Get(ctx context.Context, key string) (string, bool, error) {
	if err := s.ensure(ctx, s.secTable, secretColumns); err != nil {
		return "", false, err
	}
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM "+s.secTable+
		" WHERE secret_key = $1 AND value IS NOT NULL AND expires_ms > $2", key, s.now().UnixMilli()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// Delete implements [SecretStore]: it clears the value and keeps the row,
// the record that the key was used.
func (s *SQLStore) Delete(ctx context.Context, key string) error {
	if err := s.ensure(ctx, s.secTable, secretColumns); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, "UPDATE "+s.secTable+" SET value = NULL WHERE secret_key = $1", key)
	return err
}
