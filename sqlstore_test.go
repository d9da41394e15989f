package mcpform

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// now returns how the statements spell the database's clock.
func (d testDB) now() string {
	if d.name == "sqlite" {
		return sqliteNow
	}
	return postgresNow
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
// one of parts, until the test ends or healed is called.
func (l *stmtLog) failing(t *testing.T, parts ...string) {
	l.mu.Lock()
	l.fail = func(query string) error {
		for _, part := range parts {
			if strings.Contains(query, part) {
				return errors.New("injected failure")
			}
		}
		return nil
	}
	l.mu.Unlock()
	t.Cleanup(l.healed)
}

// healed ends failing.
func (l *stmtLog) healed() { l.mu.Lock(); l.fail = nil; l.mu.Unlock() }

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
			{outcomeStatements(tables.OutcomeTable, d.now())[outSweep], tables.OutcomeTable + "_expiry"},
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

// outcome is a final result saying text, with a status for programs.
func outcome(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"status": text}}
}

// textOf returns a result's text, or "<nil>".
func textOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return "<nil>"
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// counted returns a do that counts its calls and returns outcome(text).
func counted(calls *atomic.Int32, text string) func(context.Context) (*mcp.CallToolResult, error) {
	return func(context.Context) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return outcome(text), nil
	}
}

func TestSQLStoreOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		a, _ := d.store(t, tables)
		b, logB := d.store(t, tables) // a replica: another handle on the database

		t.Run("the first outcome wins, on every replica", func(t *testing.T) {
			var calls atomic.Int32
			first := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "taken"}},
				StructuredContent: map[string]any{"status": "exists"}, IsError: true}
			got, err := a.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) {
				calls.Add(1)
				return first, nil
			})
			require.NoError(t, err)
			assert.Same(t, first, got)
			for _, s := range []*SQLStore{a, b} {
				again, err := s.Once(ctx, "run-1", counted(&calls, "other answers"))
				require.NoError(t, err)
				assert.Equal(t, first, again, "the stored outcome is the tool result, as JSON")
			}
			assert.EqualValues(t, 1, calls.Load())
		})

		t.Run("an error stores nothing", func(t *testing.T) {
			boom := errors.New("boom")
			_, err := a.Once(ctx, "run-2", func(context.Context) (*mcp.CallToolResult, error) { return nil, boom })
			assert.ErrorIs(t, err, boom)
			_, err = a.Once(ctx, "run-2", func(context.Context) (*mcp.CallToolResult, error) { return nil, nil })
			assert.ErrorContains(t, err, "neither a result nor an error")
			first, found, err := b.LookupOutcome(ctx, "run-2")
			require.NoError(t, err)
			assert.False(t, found, "the claim is released")
			assert.Nil(t, first)
			got, err := b.Once(ctx, "run-2", func(context.Context) (*mcp.CallToolResult, error) { return outcome("retried"), nil })
			require.NoError(t, err)
			assert.Equal(t, "retried", textOf(got))
		})

		t.Run("a duplicate during a slow finish waits for its outcome", func(t *testing.T) {
			var calls atomic.Int32
			const dups = 3
			entered, results := make(chan struct{}), make([]string, dups)
			polled := logB.count("SELECT outcomes")
			var wg sync.WaitGroup
			wg.Go(func() {
				got, err := a.Once(ctx, "run-3", func(context.Context) (*mcp.CallToolResult, error) {
					calls.Add(1)
					close(entered)
					// Finish only once every duplicate has read the
					// claim and is waiting on it.
					for deadline := time.Now().Add(10 * time.Second); logB.count("SELECT outcomes") < polled+dups; {
						if time.Now().After(deadline) {
							return nil, errors.New("the duplicates never waited")
						}
						time.Sleep(time.Millisecond)
					}
					return outcome("slow first"), nil
				})
				assert.NoError(t, err)
				assert.Equal(t, "slow first", textOf(got))
			})
			<-entered
			for i := range dups {
				wg.Go(func() {
					got, err := b.Once(ctx, "run-3", counted(&calls, "duplicate"))
					assert.NoError(t, err)
					results[i] = textOf(got)
				})
			}
			wg.Wait()
			assert.Equal(t, []string{"slow first", "slow first", "slow first"}, results)
			assert.EqualValues(t, 1, calls.Load(), "the side effect ran once")
		})

		t.Run("waiting ends with the context", func(t *testing.T) {
			release := make(chan struct{})
			entered := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				_, err := a.Once(ctx, "run-4", func(context.Context) (*mcp.CallToolResult, error) {
					close(entered)
					<-release
					return outcome("late"), nil
				})
				assert.NoError(t, err)
			})
			<-entered
			logB.take()
			short, cancel := context.WithCancel(ctx)
			go func() {
				for logB.count("SELECT outcomes") == 0 {
					time.Sleep(time.Millisecond)
				}
				cancel() // once b waits on a's claim
			}()
			var calls atomic.Int32
			_, err := b.Once(short, "run-4", counted(&calls, "never"))
			assert.ErrorIs(t, err, context.Canceled)
			close(release)
			wg.Wait()
			assert.Zero(t, calls.Load())
		})

		t.Run("a lapsed claim is taken over", func(t *testing.T) {
			now := time.Now()
			_, err := a.db.Exec("INSERT INTO "+tables.OutcomeTable+" (run_key, claim, lease_ms, created_ms) VALUES ($1, $2, $3, $4)",
				"run-5", "crashed", now.Add(-time.Millisecond).UnixMilli(), now.Add(-time.Minute).UnixMilli())
			require.NoError(t, err)
			first, found, err := b.LookupOutcome(ctx, "run-5")
			require.NoError(t, err)
			assert.True(t, found, "claimed, not decided")
			assert.Nil(t, first)
			var calls atomic.Int32
			got, err := b.Once(ctx, "run-5", counted(&calls, "recovered"))
			require.NoError(t, err)
			assert.Equal(t, "recovered", textOf(got))
			assert.EqualValues(t, 1, calls.Load())
		})

		t.Run("a holder whose claim was taken over gets the first outcome", func(t *testing.T) {
			got, err := a.Once(ctx, "run-6", func(dctx context.Context) (*mcp.CallToolResult, error) {
				// The holder stalls past its lease, on the database's clock.
				_, err := a.db.Exec("UPDATE "+tables.OutcomeTable+" SET lease_ms = lease_ms - $1 WHERE run_key = 'run-6'",
					(a.lease + time.Second).Milliseconds())
				require.NoError(t, err)
				taken, err := b.Once(ctx, "run-6", func(context.Context) (*mcp.CallToolResult, error) { return outcome("taker"), nil })
				assert.NoError(t, err)
				assert.Equal(t, "taker", textOf(taken))
				return outcome("stalled"), nil
			})
			require.NoError(t, err)
			assert.Equal(t, "taker", textOf(got))
		})

		t.Run("lookup", func(t *testing.T) {
			first, found, err := a.LookupOutcome(ctx, "never")
			require.NoError(t, err)
			assert.False(t, found)
			assert.Nil(t, first)
			first, found, err = a.LookupOutcome(ctx, "run-1")
			require.NoError(t, err)
			assert.True(t, found)
			assert.Equal(t, "taken", textOf(first))
		})
	})
}

// TestSQLStoreStatements counts the statements a store sends: claiming a
// run is one, storing its outcome one more, a do shorter than a third of
// the lease adds none, and a replay reads; and each statement is prepared
// once, not parsed again on every call.
func TestSQLStoreStatements(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		s, log := d.store(t, tables)
		s.db.SetMaxOpenConns(1) // one connection, so each statement is prepared on it once
		log.take()
		_, err := s.Once(ctx, "warm", counted(new(atomic.Int32), "warm"))
		require.NoError(t, err)
		assert.Equal(t, []string{"CREATE outcomes", "CREATE outcomes", "DELETE outcomes", "INSERT outcomes", "UPDATE outcomes"}, log.take(),
			"the first use creates the table and its index, and sweeps it")
		for i := range 3 {
			_, err = s.Once(ctx, fmt.Sprint("run-", i), counted(new(atomic.Int32), "first"))
			require.NoError(t, err)
			assert.Equal(t, []string{"INSERT outcomes", "UPDATE outcomes"}, log.take(), "a first finish: claim, then store")
		}
		_, err = s.Once(ctx, "run-0", counted(new(atomic.Int32), "replay"))
		require.NoError(t, err)
		assert.Equal(t, []string{"INSERT outcomes", "SELECT outcomes"}, log.take(), "a replay: the claim fails, then read")
		_, _, err = s.LookupOutcome(ctx, "run-1")
		require.NoError(t, err)

		log.mu.Lock()
		defer log.mu.Unlock()
		prepared := map[string]int{}
		for _, q := range log.prepared {
			prepared[q]++
		}
		for _, q := range outcomeStatements(tables.OutcomeTable, d.now()) {
			assert.LessOrEqual(t, prepared[q], 1, "prepared again: %s", q)
		}
		for _, i := range []int{outClaim, outRead, outRecord, outSweep} {
			assert.Equal(t, 1, prepared[outcomeStatements(tables.OutcomeTable, d.now())[i]], "prepared once: %s", outcomeStatements(tables.OutcomeTable, d.now())[i])
		}
	})
}

// BenchmarkSQLStoreOnce measures a first finish, a claim and a stored
// outcome, against its peer BenchmarkSQLStoreOnceByHand, the transaction
// examples/signup used before SQLStore (BEGIN, claim, store, COMMIT), on
// the same database in the same run.
func BenchmarkSQLStoreOnce(b *testing.B) {
	benchDBs(b, func(b *testing.B, db *sql.DB, table string) {
		s, err := NewSQLStore(db, &SQLStoreOptions{OutcomeTable: table, SecretTable: table + "_s"})
		require.NoError(b, err)
		ctx := context.Background()
		res := outcome("created")
		do := func(context.Context) (*mcp.CallToolResult, error) { return res, nil }
		for i := 0; b.Loop(); i++ {
			if _, err := s.Once(ctx, fmt.Sprintf("run-%d", i), do); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSQLStoreOnceByHand(b *testing.B) {
	benchDBs(b, func(b *testing.B, db *sql.DB, table string) {
		_, err := db.Exec("CREATE TABLE " + table + " (idem_key TEXT PRIMARY KEY, status TEXT NOT NULL, result TEXT NOT NULL, created_at TIMESTAMP NOT NULL)")
		require.NoError(b, err)
		ctx := context.Background()
		res := outcome("created")
		for i := 0; b.Loop(); i++ {
			err := func() error {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				defer tx.Rollback()
				idem := fmt.Sprintf("run-%d", i)
				if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" (idem_key, status, result, created_at) VALUES ($1, '', '', $2) ON CONFLICT (idem_key) DO NOTHING",
					idem, time.Now().UTC()); err != nil {
					return err
				}
				blob, err := json.Marshal(res)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, "UPDATE "+table+" SET status = $1, result = $2 WHERE idem_key = $3", "created", string(blob), idem); err != nil {
					return err
				}
				return tx.Commit()
			}()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchDBs runs f on a SQLite file in WAL mode and, when there is one, the
// PostgreSQL server of testenv.PostgresEnv, each with a fresh table name.
func benchDBs(b *testing.B, f func(b *testing.B, db *sql.DB, table string)) {
	dsns := map[string]string{"sqlite": "file:" + filepath.Join(b.TempDir(), "bench.db") +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"}
	if pg := os.Getenv(testenv.PostgresEnv); pg != "" {
		dsns["pgx"] = pg
	}
	for _, driver := range []string{"sqlite", "pgx"} {
		dsn, ok := dsns[driver]
		if !ok {
			continue
		}
		b.Run(driver, func(b *testing.B) {
			db, err := sql.Open(driver, dsn)
			require.NoError(b, err)
			defer db.Close()
			var r [6]byte
			rand.Read(r[:])
			table := "bench_" + hex.EncodeToString(r[:])
			defer db.Exec("DROP TABLE IF EXISTS " + table)
			defer db.Exec("DROP TABLE IF EXISTS " + table + "_s")
			f(b, db, table)
		})
	}
}

// leased returns tables's options with a lease of d.
func leased(tables *SQLStoreOptions, d time.Duration) *SQLStoreOptions {
	o := *tables
	o.Lease = d
	return &o
}

// TestSQLStoreSlowDo runs a do that outlasts its lease several times over
// while a duplicate waits on another replica: the holder renews its claim,
// so the duplicate never takes it over, and the side effect runs once.
func TestSQLStoreSlowDo(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		const lease = time.Second
		tables := leased(d.tables(t), lease)
		a, logA := d.store(t, tables)
		b, logB := d.store(t, tables)
		var calls atomic.Int32
		entered := make(chan struct{})
		results := make([]string, 2)
		var wg sync.WaitGroup
		wg.Go(func() {
			got, err := a.Once(ctx, "slow", func(dctx context.Context) (*mcp.CallToolResult, error) {
				calls.Add(1)
				close(entered)
				logA.take()
				// Run for three leases, and until the duplicate has read
				// the claim after the first lease has passed.
				start, polled := time.Now(), 0
				for time.Since(start) < 3*lease || polled == 0 {
					time.Sleep(10 * time.Millisecond)
					if time.Since(start) > lease && polled == 0 {
						polled = logB.count("SELECT outcomes")
					}
					if dctx.Err() != nil {
						return nil, context.Cause(dctx)
					}
				}
				return outcome("slow first"), nil
			})
			assert.NoError(t, err)
			results[0] = textOf(got)
		})
		<-entered
		wg.Go(func() {
			got, err := b.Once(ctx, "slow", counted(&calls, "duplicate"))
			assert.NoError(t, err)
			results[1] = textOf(got)
		})
		wg.Wait()
		assert.Equal(t, []string{"slow first", "slow first"}, results)
		assert.EqualValues(t, 1, calls.Load(), "side effects run")
		assert.Contains(t, logA.take(), "UPDATE outcomes", "the holder renewed its claim")
	})
}

// TestSQLStoreFailedWrite fails every write of an outcome: the holder
// tries, then marks the run unrecorded, and reports ErrOutcomeUnknown; a
// duplicate that waited, and a retry long after the lease, on another
// replica, get the same error and never run the side effect again.
func TestSQLStoreFailedWrite(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := leased(d.tables(t), time.Second)
		a, logA := d.store(t, tables)
		b, logB := d.store(t, tables)
		logA.failing(t, "SET result")
		var calls atomic.Int32
		entered := make(chan struct{})
		var dupErr error
		var wg sync.WaitGroup
		wg.Go(func() {
			<-entered
			_, dupErr = b.Once(ctx, "run", counted(&calls, "duplicate"))
		})
		polled := logB.count("SELECT outcomes")
		_, err := a.Once(ctx, "run", func(context.Context) (*mcp.CallToolResult, error) {
			calls.Add(1)
			close(entered)
			for logB.count("SELECT outcomes") == polled { // the duplicate waits
				time.Sleep(time.Millisecond)
			}
			return outcome("created"), nil
		})
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.NotContains(t, err.Error(), "created", "no payload in the error")
		wg.Wait()
		assert.ErrorIs(t, dupErr, ErrOutcomeUnknown, "the duplicate that waited")

		clock := &flowClock{t: time.Now().Add(time.Hour)} // long past the lease
		b.now = clock.now
		_, err = b.Once(ctx, "run", counted(&calls, "retry"))
		assert.ErrorIs(t, err, ErrOutcomeUnknown, "a retry after the lease")
		assert.EqualValues(t, 1, calls.Load(), "side effects run")
		first, found, err := b.LookupOutcome(ctx, "run")
		require.NoError(t, err)
		assert.True(t, found)
		assert.Nil(t, first)
	})
}

// TestSQLStoreSkewedClocks runs a do that outlasts its lease while a
// duplicate waits on another replica whose clock is ahead of the
// holder's by far more than the lease, and the other way round: leases
// are on the database's clock, so the duplicate never takes a live claim
// over, and the side effect runs once.
func TestSQLStoreSkewedClocks(t *testing.T) {
	const lease, skew = time.Second, 30 * time.Second
	for _, tt := range []struct {
		name               string
		holderAt, waiterAt time.Duration // from the true time
	}{
		{"the duplicate's clock ahead", 0, skew},
		{"the holder's clock ahead", skew, 0},
		{"the duplicate's clock behind", 0, -skew},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eachDB(t, func(t *testing.T, d testDB) {
				ctx := context.Background()
				tables := leased(d.tables(t), lease)
				a, _ := d.store(t, tables)
				b, logB := d.store(t, tables)
				a.now = func() time.Time { return time.Now().Add(tt.holderAt) }
				b.now = func() time.Time { return time.Now().Add(tt.waiterAt) }
				var calls atomic.Int32
				entered := make(chan struct{})
				results := make([]string, 2)
				var wg sync.WaitGroup
				wg.Go(func() {
					got, err := a.Once(ctx, "skewed", func(dctx context.Context) (*mcp.CallToolResult, error) {
						calls.Add(1)
						close(entered)
						// Run past two leases, and until the duplicate has
						// read the claim a few times since.
						start, polled := time.Now(), logB.count("SELECT outcomes")
						for time.Since(start) < 2*lease || logB.count("SELECT outcomes") < polled+3 {
							if dctx.Err() != nil {
								return nil, context.Cause(dctx)
							}
							time.Sleep(10 * time.Millisecond)
						}
						return outcome("holder"), nil
					})
					assert.NoError(t, err)
					results[0] = textOf(got)
				})
				<-entered
				wg.Go(func() {
					got, err := b.Once(ctx, "skewed", counted(&calls, "duplicate"))
					assert.NoError(t, err)
					results[1] = textOf(got)
				})
				wg.Wait()
				assert.Equal(t, []string{"holder", "holder"}, results)
				assert.EqualValues(t, 1, calls.Load(), "side effects run")
			})
		})
	}
}

// TestSQLStoreUnrecordedHeld fails both the write of a run's outcome and
// the mark of it unrecorded: the holder reports ErrOutcomeUnknown, saying
// what holds, and keeps the claim held, so that a retry on another
// replica long after the lease waits rather than run do again, and gets
// the outcome once the holder can store it. When the holder cannot reach
// the database at all, a retry after the lease runs do again, as the
// error said.
func TestSQLStoreUnrecordedHeld(t *testing.T) {
	const lease = time.Second
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := leased(d.tables(t), lease)
		a, logA := d.store(t, tables)
		b, _ := d.store(t, tables)

		t.Run("held while the database answers", func(t *testing.T) {
			logA.failing(t, "SET result", "SET claim")
			var calls atomic.Int32
			_, err := a.Once(ctx, "held", counted(&calls, "created"))
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.ErrorContains(t, err, "same IdempotencyKey", "says what a retry does should the holder stop")
			assert.NotContains(t, err.Error(), "will not run again")
			time.Sleep(2 * lease) // long past the lease
			done := make(chan struct{})
			var got *mcp.CallToolResult
			var retryErr error
			go func() {
				defer close(done)
				got, retryErr = b.Once(ctx, "held", counted(&calls, "retry"))
			}()
			select {
			case <-done:
				t.Fatalf("the retry did not wait for the holder: %v, %v", textOf(got), retryErr)
			case <-time.After(2 * lease):
			}
			assert.EqualValues(t, 1, calls.Load(), "the retry waits, and runs nothing")
			logA.healed() // the holder can store the outcome now
			select {
			case <-done:
			case <-time.After(10 * lease):
				t.Fatal("the holder never stored the outcome")
			}
			require.NoError(t, retryErr)
			assert.Equal(t, "created", textOf(got), "the holder's outcome")
			assert.EqualValues(t, 1, calls.Load(), "side effects run")
		})

		t.Run("taken over when the holder loses the database", func(t *testing.T) {
			logA.failing(t, "UPDATE")
			var calls atomic.Int32
			_, err := a.Once(ctx, "lost", counted(&calls, "created"))
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.ErrorContains(t, err, "should it stop, or lose the database for a whole lease, before it does, a retry runs do again, with the same IdempotencyKey")
			got, err := b.Once(ctx, "lost", counted(&calls, "retry"))
			require.NoError(t, err)
			assert.Equal(t, "retry", textOf(got))
			assert.EqualValues(t, 2, calls.Load(), "as the error said")
		})
	})
}

// TestSQLStoreClaimLost takes a holder's claim away while do runs: do's
// context ends, with the cause, and the holder's outcome is not stored
// over the new holder's claim.
func TestSQLStoreClaimLost(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := leased(d.tables(t), time.Second)
		a, _ := d.store(t, tables)
		_, err := a.Once(ctx, "run", func(dctx context.Context) (*mcp.CallToolResult, error) {
			_, err := a.db.Exec("UPDATE " + tables.OutcomeTable + " SET claim = 'thief' WHERE run_key = 'run'")
			require.NoError(t, err)
			select {
			case <-dctx.Done():
				assert.ErrorIs(t, context.Cause(dctx), errClaimLost)
			case <-time.After(30 * time.Second):
				t.Error("do's context did not end when its claim was taken")
			}
			return outcome("stale"), nil
		})
		assert.ErrorIs(t, err, ErrOutcomeUnknown, "the thief never stored an outcome")
		var claim string
		var result sql.NullString
		require.NoError(t, a.db.QueryRow("SELECT claim, result FROM "+tables.OutcomeTable+" WHERE run_key = 'run'").Scan(&claim, &result))
		assert.Equal(t, "thief", claim)
		assert.False(t, result.Valid, "the lost holder stored nothing")
	})
}

// crashChildEnv names the database, as "driver dsn table", that
// TestSQLStoreCrash's child process claims a run on.
const crashChildEnv = "MCPFORM_TEST_CRASH_CHILD"

// TestSQLStoreCrash claims a run in a child process, with the default
// lease, and kills it (SIGKILL) inside do: the parent's retry, on its own
// handle, waits out the crashed holder's lease, seconds rather than a
// minute, then takes the run over and runs do.
func TestSQLStoreCrash(t *testing.T) {
	if spec := os.Getenv(crashChildEnv); spec != "" {
		crashChild(spec)
		return
	}
	eachDB(t, func(t *testing.T, d testDB) {
		tables := d.tables(t)
		driverName := map[string]string{"sqlite": "sqlite", "postgres": "pgx"}[d.name]
		cmd := exec.Command(os.Args[0], "-test.run=^TestSQLStoreCrash$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+driverName+" "+d.dsn+" "+tables.OutcomeTable)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "in do\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child never reached do: %q, %v", line, err)
		}
		require.NoError(t, cmd.Process.Kill()) // SIGKILL, inside do
		cmd.Wait()

		b, _ := d.store(t, tables)
		first, found, err := b.LookupOutcome(context.Background(), "crashed")
		require.NoError(t, err)
		require.True(t, found, "the child's claim")
		require.Nil(t, first)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		var calls atomic.Int32
		got, err := b.Once(ctx, "crashed", counted(&calls, "recovered"))
		require.NoError(t, err, "the retry waited more than 30 s for a crashed holder")
		t.Logf("the retry took the run over after %v", time.Since(start).Round(10*time.Millisecond))
		assert.Equal(t, "recovered", textOf(got))
		assert.EqualValues(t, 1, calls.Load())
	})
}

// crashChild claims the run "crashed" on the database of spec, with the
// store's default lease, says so on stdout inside do, and waits there to
// be killed.
func crashChild(spec string) {
	f := strings.Fields(spec)
	db, err := sql.Open(f[0], f[1])
	if err != nil {
		panic(err)
	}
	s, err := NewSQLStore(db, &SQLStoreOptions{OutcomeTable: f[2], SecretTable: f[2] + "_s"})
	if err != nil {
		panic(err)
	}
	s.Once(context.Background(), "crashed", func(context.Context) (*mcp.CallToolResult, error) {
		os.Stdout.WriteString("in do\n")
		select {}
	})
	panic("Once returned")
}

// TestSQLStorePanic: a do that panics releases its claim, as one that
// fails does, so that the next call, on any replica, runs do.
func TestSQLStorePanic(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		a, _ := d.store(t, tables)
		b, _ := d.store(t, tables)
		assert.PanicsWithValue(t, "boom", func() {
			a.Once(ctx, "run", func(context.Context) (*mcp.CallToolResult, error) { panic("boom") })
		})
		_, found, err := b.LookupOutcome(ctx, "run")
		require.NoError(t, err)
		assert.False(t, found, "released")
		got, err := b.Once(ctx, "run", counted(new(atomic.Int32), "after the panic"))
		require.NoError(t, err)
		assert.Equal(t, "after the panic", textOf(got))
	})
}

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
