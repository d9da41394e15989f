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

// secretIndexes index the secret table's expiry: of every row, for
// forgetting used keys, and of the rows that still hold a value, for
// clearing those that expired, so that each sweep reads only what it
// changes.
var secretIndexes = []string{
	"expiry (expires_ms)",
	"held (expires_ms) WHERE value IS NOT NULL",
}

// The secret table's statements, by index.
const (
	secPut = iota
	secGet
	secDelete
	secClear
	secForget
)

func secretStatements(t string) []string {
	return []string{
		secPut:    "INSERT INTO " + t + " (secret_key, value, expires_ms) VALUES ($1, $2, $3) ON CONFLICT (secret_key) DO NOTHING",
		secGet:    "SELECT value FROM " + t + " WHERE secret_key = $1 AND value IS NOT NULL AND expires_ms > $2",
		secDelete: "UPDATE " + t + " SET value = NULL WHERE secret_key = $1",
		secClear: "UPDATE " + t + " SET value = NULL WHERE secret_key IN (SELECT secret_key FROM " + t +
			" WHERE value IS NOT NULL AND expires_ms <= $1 ORDER BY expires_ms LIMIT $2)",
		secForget: "DELETE FROM " + t + " WHERE secret_key IN (SELECT secret_key FROM " + t +
			" WHERE expires_ms <= $1 ORDER BY expires_ms LIMIT $2)",
	}
}

// PutSecret implements [SecretStore]: the primary key makes a key usable once,
// ever, on every replica. A PutSecret also clears values that have expired, and
// forgets keys used more than a day ago, a bounded batch of each, when
// the table is due a sweep (see [SQLStore]). Seal the values with
// [SealSecrets], so that the table and its backups hold ciphertext only.
func (s *SQLStore) PutSecret(ctx context.Context, key, value string, expires time.Time) error {
	put, err := s.stmt(ctx, s.secrets, secPut)
	if err != nil {
		return err
	}
	if err := s.sweepSecrets(ctx); err != nil {
		return err
	}
	res, err := put.ExecContext(ctx, key, value, expires.UnixMilli())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return cmp.Or(err, ErrSecretUsed)
	}
	return nil
}

// sweepSecrets clears a batch of expired values and forgets a batch of
// keys used more than usedFor ago, when the table is due.
func (s *SQLStore) sweepSecrets(ctx context.Context) error {
	if !s.sweepDue(s.secrets) {
		return nil
	}
	now := s.now()
	for _, q := range []struct {
		i     int
		until time.Time
	}{{secClear, now}, {secForget, now.Add(-usedFor)}} {
		st, err := s.stmt(ctx, s.secrets, q.i)
		if err != nil {
			return err
		}
		res, err := st.ExecContext(ctx, q.until.UnixMilli(), s.batch)
		if err != nil {
			return err
		}
		s.swept(s.secrets, res)
	}
	return nil
}

// Get implements [SecretStore].
func (s *SQLStore) GetSecret(ctx context.Context, key string) (string, bool, error) {
	get, err := s.stmt(ctx, s.secrets, secGet)
	if err != nil {
		return "", false, err
	}
	var v string
	err = get.QueryRowContext(ctx, key, s.now().UnixMilli()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// DeleteSecret implements [SecretStore]: it clears the value and keeps the row,
// the record that the key was used.
func (s *SQLStore) DeleteSecret(ctx context.Context, key string) error {
	del, err := s.stmt(ctx, s.secrets, secDelete)
	if err != nil {
		return err
	}
	_, err = del.ExecContext(ctx, key)
	return err
}
