package e2e_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// TestReplicasShareOneDatabase runs two replica processes of the example on
// one database, SQLite (a shared file) and PostgreSQL, and replays rounds
// of one signup to both: whatever lands where, one run of the flow creates
// at most one account, and every replay gets the first outcome.
func TestReplicasShareOneDatabase(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "shared.db")
		testSharedDatabase(t, db, func(t *testing.T) map[string]account { return accounts(t, "sqlite", db) })
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := freshPostgres(t)
		testSharedDatabase(t, dsn, func(t *testing.T) map[string]account { return accounts(t, "pgx", dsn) })
	})
}

func testSharedDatabase(t *testing.T, dsn string, stored func(*testing.T) map[string]account) {
	a := connectHTTP(t, startReplica(t, keyA, "-db", dsn).url, modern, false, nil)
	b := connectHTTP(t, startReplica(t, keyA, "-db", dsn).url, modern, false, nil)
	replicas := []*mcp.ClientSession{a, b}

	t.Run("final round replayed to both", func(t *testing.T) {
		res, err := call(t, a, "", nil)
		require.NoError(t, err)
		res, err = call(t, a, res.RequestState, mcp.InputResponseMap{"account": accepted(adaTeam)})
		require.NoError(t, err)
		require.Equal(t, "team", asks(t, res))
		final := res.RequestState
		require.True(t, strings.HasPrefix(final, "s1."), "the state is sealed: %s", final)
		answers := mcp.InputResponseMap{"team": accepted(engines)}

		first, err := call(t, b, final, answers)
		require.NoError(t, err)
		require.Equal(t, "created", status(t, first), text(first))
		for i, cs := range replicas {
			again, err := call(t, cs, final, answers)
			require.NoError(t, err)
			assert.Equal(t, text(first), text(again), "replay to replica %d", i)
		}
		want := account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12}
		assert.Equal(t, map[string]account{want.Email: want}, stored(t))
	})

	t.Run("final round sent to both at once", func(t *testing.T) {
		res, err := call(t, b, "", nil)
		require.NoError(t, err)
		grace := map[string]any{"email": "grace@example.com", "plan": "team"}
		res, err = call(t, b, res.RequestState, mcp.InputResponseMap{"account": accepted(grace)})
		require.NoError(t, err)
		final := res.RequestState
		// Eight retries race, four on each replica, with four different
		// team answers: exactly one of them decides.
		texts := make([]string, 8)
		var wg sync.WaitGroup
		for i := range texts {
			wg.Go(func() {
				team := map[string]any{"team_name": fmt.Sprintf("Team %d", i%4), "seats": 2 + i%4}
				r, err := call(t, replicas[i%2], final, mcp.InputResponseMap{"team": accepted(team)})
				if assert.NoError(t, err) {
					texts[i] = status(t, r) + ": " + text(r)
				}
			})
		}
		wg.Wait()
		for _, got := range texts[1:] {
			assert.Equal(t, texts[0], got)
		}
		assert.Contains(t, texts[0], "created: ")
		assert.Contains(t, stored(t), "grace@example.com")
		assert.Len(t, stored(t), 2)
	})

	t.Run("first state replayed with five emails", func(t *testing.T) {
		res, err := call(t, a, "", nil)
		require.NoError(t, err)
		state := res.RequestState
		var texts []string
		for i := range 5 {
			email := fmt.Sprintf("five%d@example.com", i)
			r, err := call(t, replicas[i%2], state, mcp.InputResponseMap{"account": accepted(map[string]any{"email": email, "plan": "free"})})
			require.NoError(t, err)
			texts = append(texts, text(r))
		}
		var created []string
		for email := range stored(t) {
			if len(email) == len("five0@example.com") && email[:4] == "five" {
				created = append(created, email)
			}
		}
		assert.LessOrEqual(t, len(created), 1, "accounts created by one run: %v", created)
		for _, got := range texts[1:] {
			assert.Equal(t, texts[0], got, "every replay gets the first outcome")
		}
	})
}

// freshPostgres creates a database of its own on the server in
// testenv.PostgresEnv, drops it when the test ends, and returns its URL.
func freshPostgres(t *testing.T) string {
	server := testenv.Postgres(t)
	admin, err := sql.Open("pgx", server)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close() })
	require.NoError(t, admin.Ping(), "connecting to %s", testenv.PostgresEnv)

	var suffix [6]byte
	rand.Read(suffix[:])
	name := "mcpform_e2e_" + hex.EncodeToString(suffix[:])
	_, err = admin.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	// Registered before any replica starts, so it runs after they stop.
	t.Cleanup(func() {
		_, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		assert.NoError(t, err)
	})
	u, err := url.Parse(server)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}
