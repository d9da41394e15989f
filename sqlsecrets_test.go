package mcpform

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSQLStoreSecrets checks SQLStore against SecretStore's promises, on
// both databases: a key is stored once, ever; Get finds a value until it
// expires or is deleted; DeleteSecret keeps the record that the key was used.
// Each case runs on two handles, as two replicas.
func TestSQLStoreSecrets(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		later, past := time.Now().Add(time.Minute), time.Now().Add(-time.Second)
		type want struct {
			value string
			ok    bool
		}
		for _, tt := range []struct {
			name string
			do   func(a, b SecretStore) error // before b.Get("k")
			err  error                        // what do returns
			getK want
		}{
			{"put then get", func(a, b SecretStore) error { return a.PutSecret(ctx, "k", "v", later) }, nil, want{"v", true}},
			{"missing", func(a, b SecretStore) error { return nil }, nil, want{}},
			{"expired", func(a, b SecretStore) error { return a.PutSecret(ctx, "k", "v", past) }, nil, want{}},
			{"deleted", func(a, b SecretStore) error {
				return errors.Join(a.PutSecret(ctx, "k", "v", later), b.DeleteSecret(ctx, "k"))
			}, nil, want{}},
			{"second put refused, first kept", func(a, b SecretStore) error {
				return errors.Join(a.PutSecret(ctx, "k", "v", later), b.PutSecret(ctx, "k", "w", later))
			}, ErrSecretUsed, want{"v", true}},
			{"put after delete refused", func(a, b SecretStore) error {
				return errors.Join(a.PutSecret(ctx, "k", "v", later), a.DeleteSecret(ctx, "k"), b.PutSecret(ctx, "k", "w", later))
			}, ErrSecretUsed, want{}},
			{"put after expiry refused", func(a, b SecretStore) error {
				return errors.Join(a.PutSecret(ctx, "k", "v", past), b.PutSecret(ctx, "k", "w", later))
			}, ErrSecretUsed, want{}},
			{"keys apart", func(a, b SecretStore) error {
				return errors.Join(a.PutSecret(ctx, "j", "x", later), a.PutSecret(ctx, "k", "v", later), a.DeleteSecret(ctx, "j"))
			}, nil, want{"v", true}},
			{"delete of a missing key", func(a, b SecretStore) error { return a.DeleteSecret(ctx, "k") }, nil, want{}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tables := d.tables(t)
				a, _ := d.store(t, tables)
				b, _ := d.store(t, tables)
				err := tt.do(a, b)
				if tt.err == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, tt.err)
				}
				v, ok, err := b.GetSecret(ctx, "k")
				require.NoError(t, err)
				assert.Equal(t, tt.getK, want{v, ok})
			})
		}
	})
}

// TestSQLStoreSecretsSweep checks that a PutSecret clears expired values and
// forgets keys used more than a day ago, which may then be used again.
func TestSQLStoreSecretsSweep(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		s, _ := d.store(t, d.tables(t))
		clock := &flowClock{t: time.Now()}
		s.now = clock.now
		require.NoError(t, s.PutSecret(ctx, "old", "v", clock.t.Add(time.Minute)))
		clock.t = clock.t.Add(time.Minute + usedFor + time.Second)
		require.NoError(t, s.PutSecret(ctx, "new", "w", clock.t.Add(time.Minute)))
		var rows int
		require.NoError(t, s.db.QueryRow("SELECT COUNT(*) FROM "+s.secrets.name+" WHERE secret_key = 'old'").Scan(&rows))
		assert.Zero(t, rows, "a key used a day ago is forgotten")
		assert.NoError(t, s.PutSecret(ctx, "old", "again", clock.t.Add(time.Minute)))
	})
}
