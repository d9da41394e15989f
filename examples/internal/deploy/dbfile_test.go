package deploy

import (
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

// TestCreatePrivate: a new SQLite file, and the -wal and -shm files SQLite
// makes beside it, are readable by their owner alone, whatever the umask
// would allow; an existing file keeps its mode.
func TestCreatePrivate(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "signup.db")
	require.NoError(t, CreatePrivate(db))
	// As the examples open it: WAL mode, which makes the -wal and -shm files.
	st, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(WAL)")
	require.NoError(t, err)
	_, err = st.Exec(`CREATE TABLE t (k TEXT); INSERT INTO t VALUES ('k')`)
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
	require.NoError(t, CreatePrivate(mine))
	fi, err := os.Stat(mine)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "an existing file keeps its mode")

	for _, dsn := range []string{"", "postgres://127.0.0.1:1/x", "postgresql://127.0.0.1:1/x"} {
		assert.NoError(t, CreatePrivate(dsn), dsn)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "nothing made for a DSN that is not a file")
}
