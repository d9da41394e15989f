package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCreatePrivate: a new SQLite file, and the -wal and -shm files SQLite
// makes beside it, are readable by their owner alone, whatever the umask
// would allow; an existing file keeps its mode.
func TestCreatePrivate(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "signup.db")
	require.NoError(t, createPrivate(db))
	st, err := openStore(context.Background(), db)
	require.NoError(t, err)
	_, err = st.db.Exec(`INSERT INTO secrets (secret_key, value, expires_ms) VALUES ('k', 'v', 1)`)
	require.NoError(t, err)
	for _, name := range []string{"signup.db", "signup.db-wal", "signup.db-shm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if assert.NoError(t, err, "SQLite in WAL mode makes %s", name) {
			assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), name)
		}
	}
	require.NoError(t, st.Close())

	mine := filepath.Join(dir, "mine.db")
	require.NoError(t, os.WriteFile(mine, nil, 0o640))
	require.NoError(t, os.Chmod(mine, 0o640))
	require.NoError(t, createPrivate(mine))
	fi, err := os.Stat(mine)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "an existing file keeps its mode")

	for _, dsn := range []string{"", "postgres://127.0.0.1:1/x", "postgresql://127.0.0.1:1/x"} {
		assert.NoError(t, createPrivate(dsn), dsn)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "nothing made for a DSN that is not a file")
}
