package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlCharacters sends the example a name and a quoted email local
// part holding NUL, CR LF and a bidi override, on SQLite and on PostgreSQL,
// where NUL once came back as a raw database error. Each answer is asked
// again naming its field, and nothing is stored; a clean answer on the
// same state is then created, so the server kept working.
func TestControlCharacters(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "signup.db")
		testControlCharacters(t, db, func(t *testing.T) map[string]account { return accounts(t, "sqlite", db) })
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := freshPostgres(t)
		testControlCharacters(t, dsn, func(t *testing.T) map[string]account { return accounts(t, "pgx", dsn) })
	})
}

func testControlCharacters(t *testing.T, dsn string, stored func(*testing.T) map[string]account) {
	cs := connectHTTP(t, startReplica(t, keyA, "-db", dsn).url, modern, false, nil)
	res, err := call(t, cs, "", nil)
	require.NoError(t, err)
	require.Equal(t, "account", asks(t, res))
	state := res.RequestState

	const (
		name  = "Check Full name: "
		email = "Check Email: "
	)
	for _, tt := range []struct {
		name, field, value, want string
	}{
		{"NUL in a name", "full_name", "Ada\x00Lovelace", name + "a control character."},
		{"CR LF in a name", "full_name", "Ada\r\nLovelace", name + "a line break, which only a multi-line field takes."},
		{"bidi override in a name", "full_name", "Ada \u202eecalevoL", name + "a bidirectional control character."},
		{"CR LF and a header in a quoted email", "email", "\"x\r\nBcc: victim@evil.test\"@example.com", email + "a line break, which only a multi-line field takes."},
		{"NUL in a quoted email", "email", "\"a\x00b\"@example.com", email + "a control character."},
		{"bidi override in a quoted email", "email", "\"\u202eada\"@example.com", email + "a bidirectional control character."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answer := map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro", tt.field: tt.value}
			res, err := call(t, cs, state, mcp.InputResponseMap{"account": accepted(answer)})
			require.NoError(t, err)
			require.False(t, res.IsError, "result: %s", text(res))
			assert.Equal(t, "account", asks(t, res), "asked again")
			assert.Contains(t, message(t, res), tt.want)
			assert.Empty(t, stored(t), "stored")
		})
	}

	clean := map[string]any{"email": "\"ada lovelace\"@example.com", "full_name": "Ada Lovelace", "plan": "pro"}
	res, err = call(t, cs, state, mcp.InputResponseMap{"account": accepted(clean)})
	require.NoError(t, err)
	require.Equal(t, "created", status(t, res), text(res))
	assert.Equal(t, map[string]account{clean["email"].(string): {Email: clean["email"].(string), FullName: "Ada Lovelace", Plan: "pro"}}, stored(t))
}
