package deploy

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// CreatePrivate creates the SQLite file dsn, empty, readable and writable
// by its owner alone (0600), unless it exists or dsn is not a file (""
// or a postgres:// URL). The file holds password hashes and the secret
// page's sealed values: SQLite would create it 0644 under the usual umask,
// readable by every user of the machine. SQLite gives its -wal and -shm
// files the database file's mode. An existing file keeps the mode its
// owner gave it.
func CreatePrivate(dsn string) error {
	if dsn == "" || strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return nil
	}
	f, err := os.OpenFile(dsn, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}
