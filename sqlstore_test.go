package mcpform

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"modernc.org/sqlite"
)

// A testDB is one database the store tests run on, opened as many times
// as a test has replicas, each handle counting the statements it sends.
type testDB struct {
	name   string
	driver driver.Driver
	dsn    string
}

// testDBs returns SQLite, in a file of t's, and the PostgreSQL server of
// testenv.PostgresEnv, which a test not under CI skips when it is unset.
func testDBs(t *testing.T) []testDB {
	path := filepath.Join(t.TempDir(), "store.db")
	return []testDB{
		{"sqlite", &sqlite.Driver{}, "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"},
		{"postgres", stdlib.GetDefaultDriver(), ""},
	}
}

// eachDB runs f on each database, as a subtest.
func eachDB(t *testing.T, f func(t *testing.T, db testDB)) {
	for _, db := range testDBs(t) {
		t.Run(db.name, func(t *testing.T) {
			if db.name == "postgres" {
				db.dsn = testenv.Postgres(t)
			}
			f(t, db)
		})
	}
}

// open returns a new handle on the database, a replica's, and the log of
// the statements it sends.
func (d testDB) open(t *testing.T) (*sql.DB, *stmtLog) {
	log := &stmtLog{}
	db := sql.OpenDB(countingConnector{d.dsn, d.driver, log})
	t.Cleanup(func() { db.Close() })
	require.NoError(t, db.Ping(), "connecting to %s", d.name)
	return db, log
}

// store returns a store on a new handle of the database, with tables of
// the test's own that are dropped when it ends, and the handle's log.
func (d testDB) store(t *testing.T, tables *SQLStoreOptions) (*SQLStore, *stmtLog) {
	db, log := d.open(t)
	s, err := NewSQLStore(db, tables)
	require.NoError(t, err)
	return s, log
}

// tables returns options naming tables of the test's own on d, dropped
// when the test ends.
func (d testDB) tables(t *testing.T) *SQLStoreOptions {
	var b [6]byte
	rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	opts := &SQLStoreOptions{OutcomeTable: "outcomes_" + suffix, SecretTable: "secrets_" + suffix}
	admin, _ := d.open(t)
	t.Cleanup(func() {
		for _, table := range []string{opts.OutcomeTable, opts.SecretTable} {
			_, err := admin.Exec("DROP TABLE IF EXISTS " + table)
			assert.NoError(t, err)
		}
	})
	return opts
}

// countingConnector opens connections that log each statement. A
// connection that implements nothing but driver.Conn makes database/sql
// prepare every statement it runs, so Prepare sees them all, and the
// statements it returns log each run, one per round trip.
type countingConnector struct {
	dsn    string
	driver driver.Driver
	log    *stmtLog
}

func (c countingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.driver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return countingConn{conn, c.log}, nil
}

func (c countingConnector) Driver() driver.Driver { return c.driver }

type countingConn struct {
	driver.Conn
	log *stmtLog
}

func (c countingConn) Prepare(query string) (driver.Stmt, error) {
	c.log.mu.Lock()
	c.log.prepared = append(c.log.prepared, query)
	c.log.mu.Unlock()
	st, err := c.Conn.Prepare(query)
	if err != nil {
		return nil, err
	}
	return countingStmt{st, query, c.log}, nil
}

// A countingStmt logs each run of its statement, and fails it when the
// log's fail says so.
type countingStmt struct {
	driver.Stmt
	query string
	log   *stmtLog
}

func (s countingStmt) run() error {
	s.log.add(s.query)
	s.log.mu.Lock()
	fail := s.log.fail
	s.log.mu.Unlock()
	if fail != nil {
		return fail(s.query)
	}
	return nil
}

func (s countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

// A stmtLog records the statements a handle ran, by their first word
// and table, such as "INSERT outcomes", and the texts it prepared.
type stmtLog struct {
	mu       sync.Mutex
	stmts    []string
	prepared []string
	fail     func(query string) error // nil, or whether to fail a run
}

func (l *stmtLog) add(query string) {
	f := strings.Fields(query)
	verb, table := f[0], ""
	for i, w := range f[:len(f)-1] {
		if w == "INTO" || w == "FROM" || (verb == "UPDATE" && i == 0) || w == "EXISTS" {
			table, _, _ = strings.Cut(f[i+1], "_")
			break
		}
	}
	l.mu.Lock()
	l.stmts = append(l.stmts, verb+" "+table)
	l.mu.Unlock()
}

// failing makes the handle fail every run of a statement that contains
// part, until the test ends.
func (l *stmtLog) failing(t *testing.T, part string) {
	l.mu.Lock()
	l.fail = func(query string) error {
		if strings.Contains(query, part) {
			return errors.New("injected failure")
		}
		return nil
	}
	l.mu.Unlock()
	t.Cleanup(func() { l.mu.Lock(); l.fail = nil; l.mu.Unlock() })
}

// take returns the statements logged since the last take.
func (l *stmtLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stmts
	l.stmts = nil
	return s
}

// count returns how many statements logged so far are stmt.
func (l *stmtLog) count(stmt string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.stmts {
		if s == stmt {
			n++
		}
	}
	return n
}

func TestNewSQLStoreRefusals(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, tt := range []struct {
		name string
		db   *sql.DB
		opts *SQLStoreOptions
		want string
	}{
		{"no database", nil, nil, "needs a database"},
		{"a quote", db, &SQLStoreOptions{OutcomeTable: "x'; DROP TABLE y; --"}, "not a plain identifier"},
		{"a space", db, &SQLStoreOptions{SecretTable: "my secrets"}, "not a plain identifier"},
		{"a leading digit", db, &SQLStoreOptions{SecretTable: "1secrets"}, "not a plain identifier"},
		{"three parts", db, &SQLStoreOptions{OutcomeTable: "a.b.c"}, "not a plain identifier"},
		{"an empty part", db, &SQLStoreOptions{OutcomeTable: "a."}, "not a plain identifier"},
		{"one table for both", db, &SQLStoreOptions{OutcomeTable: "t", SecretTable: "t"}, "two names"},
		{"a negative lease", db, &SQLStoreOptions{Lease: -time.Second}, "negative"},
		{"a negative keep", db, &SQLStoreOptions{Keep: -time.Second}, "negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSQLStore(tt.db, tt.opts)
			assert.Nil(t, s)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	s, err := NewSQLStore(db, &SQLStoreOptions{OutcomeTable: "app.run_outcomes", SecretTable: "Secrets_2"})
	require.NoError(t, err)
	assert.Equal(t, []string{"app.run_outcomes", "Secrets_2"}, []string{s.outcomes.name, s.secrets.name})
	s, err = NewSQLStore(db, nil)
	require.NoError(t, err)
	assert.Equal(t, []any{"mcpform_outcomes", "mcpform_secrets", 10 * time.Second, 24 * time.Hour},
		[]any{s.outcomes.name, s.secrets.name, s.lease, s.keep}, "a lease of seconds: a retry after a crash waits that long")
}

// TestNewSQLStoreInMemorySQLite checks that an in-memory SQLite database
// that may open a second connection, which would be another, empty
// database, is refused, naming the fix; and that one connection, or a
// file, is taken.
func TestNewSQLStoreInMemorySQLite(t *testing.T) {
	for _, tt := range []struct {
		dsn   string
		conns int
		ok    bool
	}{
		{":memory:", 0, false},
		{":memory:", 2, false},
		{"file::memory:?cache=shared", 0, false},
		{"file:mem?mode=memory", 4, false},
		{":memory:", 1, true},
		{"file:" + filepath.Join(t.TempDir(), "a.db"), 0, true},
	} {
		t.Run(fmt.Sprintf("%s conns=%d", tt.dsn, tt.conns), func(t *testing.T) {
			db, err := sql.Open("sqlite", tt.dsn)
			require.NoError(t, err)
			defer db.Close()
			db.SetMaxOpenConns(tt.conns)
			_, err = NewSQLStore(db, nil)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, "in-memory SQLite")
			assert.ErrorContains(t, err, "db.SetMaxOpenConns(1)")
		})
	}
}

// TestSQLStoreCreatesTablesOnce checks that the tables are created on first
// use, once per store, and that two stores on one database, as two
// replicas starting together, both find them.
func TestSQLStoreCreatesTablesOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		a, logA := d.store(t, tables)
		b, _ := d.store(t, tables)
		var wg sync.WaitGroup
		for _, s := range []*SQLStore{a, b} {
			wg.Go(func() {
				_, _, err := s.LookupOutcome(ctx, "run")
				assert.NoError(t, err)
				_, _, err = s.GetSecret(ctx, "key")
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		assert.Contains(t, logA.take(), "CREATE outcomes")
		_, _, err := a.LookupOutcome(ctx, "run")
		require.NoError(t, err)
		assert.Equal(t, []string{"SELECT outcomes"}, logA.take(), "the table is known to exist")
	})
}

// TestSQLStoreSweepBounded fills each table with expired rows: a write
// deletes at most a batch of them, through the expiry index, and leaves
// the rest to the next writes; and the sweep statements' plans search
// the index rather than scan the table.
func TestSQLStoreSweepBounded(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		s, _ := d.store(t, tables)
		s.batch = 10
		require.NoError(t, s.Create(ctx))
		old := time.Now().Add(-48 * time.Hour).UnixMilli()
		for i := range 25 {
			_, err := s.db.Exec("INSERT INTO "+tables.OutcomeTable+" (run_key, claim, lease_ms, result, created_ms) VALUES ($1, 'x', $2, '{}', $2)",
				fmt.Sprint("old-", i), old)
			require.NoError(t, err)
			_, err = s.db.Exec("INSERT INTO "+tables.SecretTable+" (secret_key, value, expires_ms) VALUES ($1, NULL, $2)", fmt.Sprint("old-", i), old)
			require.NoError(t, err)
		}
		count := func(table string) (n int) {
			require.NoError(t, s.db.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
			return n
		}
		_, err := s.Once(ctx, "new-0", counted(new(atomic.Int32), "new"))
		require.NoError(t, err)
		require.NoError(t, s.PutSecret(ctx, "new-0", "v", time.Now().Add(time.Minute)))
		assert.Equal(t, []int{15 + 1, 15 + 1}, []int{count(tables.OutcomeTable), count(tables.SecretTable)}, "one batch each")
		for i := 1; i <= 2; i++ {
			_, err := s.Once(ctx, fmt.Sprint("new-", i), counted(new(atomic.Int32), "new"))
			require.NoError(t, err)
			require.NoError(t, s.PutSecret(ctx, fmt.Sprint("new-", i), "v", time.Now().Add(time.Minute)))
		}
		assert.Equal(t, []int{3, 3}, []int{count(tables.OutcomeTable), count(tables.SecretTable)}, "a full batch makes the next write sweep again")

		// The plans: SQLite's, and PostgreSQL's with sequential scans
		// priced out, as on a table too large to read whole.
		conn, err := s.db.Conn(ctx)
		require.NoError(t, err)
		defer conn.Close()
		explain := "EXPLAIN QUERY PLAN "
		if d.name == "postgres" {
			explain = "EXPLAIN "
			_, err := conn.ExecContext(ctx, "SET enable_seqscan = off")
			require.NoError(t, err)
			_, err = conn.ExecContext(ctx, "ANALYZE "+tables.SecretTable)
			require.NoError(t, err)
		}
		for _, q := range []struct{ stmt, index string }{
			{outcomeStatements(tables.OutcomeTable)[outSweep], tables.OutcomeTable + "_expiry"},
			{secretStatements(tables.SecretTable)[secForget], tables.SecretTable + "_expiry"},
			{secretStatements(tables.SecretTable)[secClear], tables.SecretTable + "_held"},
		} {
			rows, err := conn.QueryContext(ctx, explain+q.stmt, time.Now().UnixMilli(), 10)
			require.NoError(t, err)
			var plan []string
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				require.NoError(t, rows.Scan(ptrs...))
				plan = append(plan, fmt.Sprint(vals[len(vals)-1]))
			}
			rows.Close()
			text := strings.Join(plan, "\n")
			assert.Contains(t, text, q.index, "the sweep searches the index:\n%s", text)
			assert.NotRegexp(t, `SCAN `+tables.OutcomeTable+`\b|SCAN `+tables.SecretTable+`\b|Seq Scan`, text, "no scan of the table")
		}
	})
}
