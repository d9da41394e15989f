package accounts

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenBoundsPool: a PostgreSQL pool is bounded, DefaultConns unless
// told otherwise; SQLite in memory
// has its one connection, and a SQLite file no bound. sql.Open connects
// to nothing, so no server is needed.
func TestOpenBoundsPool(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.db")
	for _, tt := range []struct {
		name  string
		dsn   string
		conns int
		want  int // MaxOpenConnections; 0 is no limit
	}{
		{"postgres default", "postgres://u@127.0.0.1:1/db", 0, DefaultConns},
		{"postgresql default", "postgresql://u@127.0.0.1:1/db", -3, DefaultConns},
		{"postgres told", "postgres://u@127.0.0.1:1/db", 25, 25},
		{"sqlite in memory", "", 0, 1},
		{"sqlite in memory told", "", 25, 1},
		{"sqlite file", file, 25, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := open(tt.dsn, tt.conns)
			require.NoError(t, err)
			defer db.Close()
			assert.Equal(t, tt.want, db.Stats().MaxOpenConnections)
		})
	}
}
