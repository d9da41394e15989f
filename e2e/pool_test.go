package e2e_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPoolUnderLoad runs 200 clients at once, each finishing 5 signups,
// on one replica whose database is a PostgreSQL with max_connections=100
// (the default, as .ci/run starts it), and a connection limit of 14 on
// the database, which a two-core machine reaches where it would not open
// 100 at once: every finish is created, with no error, and every account
// has its run's outcome. Unbounded, the replica opened a connection per
// concurrent statement, and finishes failed with "too many clients
// already" (issue 33); here, without the bound, one in a thousand. The
// example bounds its pool (-db-conns, 10 by default), and the rest queue.
func TestPoolUnderLoad(t *testing.T) {
	const (
		dbConns   = 10 // -db-conns' default
		clients   = 200
		perClient = 5
		n         = clients * perClient
	)
	dsn := freshPostgres(t)
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	var maxConns int
	require.NoError(t, db.QueryRow(`SELECT setting::int FROM pg_settings WHERE name = 'max_connections'`).Scan(&maxConns))
	require.Less(t, maxConns, clients, "the server must allow fewer connections than the clients")
	// And the database fewer still, so that a pool without a bound meets
	// the limit here too, on a machine too slow to open 100 at once:
	// -db-conns, and a few to spare.
	// A superuser passes the limit: the replica connects as a role of its own.
	name := dbName(t, dsn)
	role := name + "_app"
	for _, stmt := range []string{
		fmt.Sprintf(`ALTER DATABASE %s CONNECTION LIMIT %d`, name, dbConns+4),
		fmt.Sprintf(`CREATE ROLE %s LOGIN`, role),
		fmt.Sprintf(`GRANT ALL ON DATABASE %s TO %s`, name, role),
		fmt.Sprintf(`GRANT ALL ON SCHEMA public TO %s`, role),
	} {
		_, err = db.Exec(stmt)
		require.NoError(t, err, stmt)
	}
	t.Cleanup(func() { // before the database is dropped
		db.Exec(`DROP OWNED BY ` + role)
		_, err := db.Exec(`DROP ROLE ` + role)
		assert.NoError(t, err)
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.User = url.User(role)
	appDSN := u.String()

	addr := startReplica(t, keyA, "-db", appDSN, "-db-conns", fmt.Sprint(dbConns)).url
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	count := func(got string) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[got]++
	}
	for c := range clients {
		cs := connectHTTP(t, addr, modern, false, nil)
		wg.Go(func() {
			for i := range perClient {
				res, err := call(t, cs, "", nil)
				if err != nil {
					count("error: " + err.Error())
					continue
				}
				email := fmt.Sprintf("pool%d-%d@example.com", c, i)
				res, err = call(t, cs, res.RequestState, mcp.InputResponseMap{"account": accepted(map[string]any{"email": email, "plan": "free"})})
				if err != nil {
					count("error: " + err.Error())
					continue
				}
				count(status(t, res))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, map[string]int{"created": n}, outcomes, "the finishes")
	assert.Equal(t, n, len(accounts(t, "pgx", dsn)), "accounts")
	var recorded int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM outcomes WHERE result IS NOT NULL`).Scan(&recorded))
	assert.Equal(t, n, recorded, "outcomes recorded, one per account")
}

// dbName is the database of the PostgreSQL URL dsn.
func dbName(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	return strings.TrimPrefix(u.Path, "/")
}
