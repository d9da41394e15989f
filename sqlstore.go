package mcpform

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SQLStore keeps what a [Flow] stores in a SQL database through
// database/sql: the first outcome of each run, as [Outcomes], and what the
// secret page receives, as a [SecretStore]. Replicas that open the same
// database share both, so a run finishes once whichever replicas its
// rounds land on (see [SQLStore.Once] for exactly what holds). It is safe
// for concurrent use. The library imports no driver: the program does,
// and opens the *sql.DB. Its zero value is not usable; make one with
// [NewSQLStore].
//
// The tables are created, if they do not exist, by [SQLStore.Create] or
// the first time each is used. They are, with the default names:
//
//	CREATE TABLE mcpform_outcomes (
//		run_key    TEXT PRIMARY KEY, -- the run ID
//		claim      TEXT NOT NULL,    -- the holder's fencing token
//		lease_ms   BIGINT NOT NULL,  -- until when, Unix milliseconds
//		result     TEXT,             -- the outcome; NULL until decided
//		created_ms BIGINT NOT NULL   -- the row goes Keep after this
//	)
//	CREATE INDEX mcpform_outcomes_expiry ON mcpform_outcomes (created_ms)
//	CREATE TABLE mcpform_secrets (
//		secret_key TEXT PRIMARY KEY,
//		value      TEXT,             -- NULL once taken or expired
//		expires_ms BIGINT NOT NULL
//	)
//	CREATE INDEX mcpform_secrets_expiry ON mcpform_secrets (expires_ms)
//	CREATE INDEX mcpform_secrets_held ON mcpform_secrets (expires_ms) WHERE value IS NOT NULL
//
// Each statement is prepared once per store, the first time its table is
// used. A finishing round costs one statement to claim its run and one to
// store the outcome, each its own commit, so that replicas see the claim
// before the side effect runs and no transaction is held open across it;
// a duplicate reads the row until the outcome is there. Expired rows are
// deleted in batches of at most a thousand, through the indexes, at most
// once a minute unless the last batch was full: no statement scans a
// table. Times are the replicas' clocks, so they should agree to well
// within [SQLStoreOptions].Lease.
//
// Through [FlowRound.Once] the outcome is sealed with the flow's codec
// before it reaches the store (see [Outcomes]): the result column holds
// ciphertext. [SQLStore.Once] called directly stores do's result as it is.
//
// # SQLite and PostgreSQL
//
// SQLStore is tested on SQLite (modernc.org/sqlite) and PostgreSQL
// (github.com/jackc/pgx/v5/stdlib). This is where the two differ, and
// how SQLStore meets both:
//
//   - Placeholders: PostgreSQL reads only $1, $2, …; SQLite reads ? and
//     also $1, which modernc.org/sqlite binds by position. SQLStore
//     writes $1.
//   - Upserts: both take INSERT … ON CONFLICT (key) DO NOTHING (SQLite
//     from 3.24, PostgreSQL from 9.5). A claim is one, and the rows it
//     affected say whether it took the key.
//   - Locking: SQLStore issues single statements outside transactions,
//     so SQLite's deferred transactions never have to upgrade a read lock
//     (the reason for BEGIN IMMEDIATE elsewhere), and PostgreSQL's READ
//     COMMITTED makes a second INSERT of a key wait for the first and
//     then do nothing.
//   - Several handles on one SQLite file: open it with
//     _pragma=busy_timeout(10000) so that a writer waits out another's
//     lock rather than failing with SQLITE_BUSY, and
//     _pragma=journal_mode(WAL) so that readers work beside the writer.
//   - An in-memory SQLite database is one per connection, and a shared
//     cache fails concurrent writers with SQLITE_LOCKED: [NewSQLStore]
//     refuses one unless db.SetMaxOpenConns(1) was called. For one
//     process, [NewMemoryOutcomes] and [NewMemorySecretStore] are faster.
//   - Creating tables and indexes: PostgreSQL's CREATE … IF NOT EXISTS
//     can fail when two replicas run it at once; SQLStore tries once
//     more. An index of a table named schema.table is named
//     schema.table_expiry, which SQLite spells that way and PostgreSQL
//     puts in the table's schema itself.
type SQLStore struct {
	db          *sql.DB
	outcomes    *sqlTable
	secrets     *sqlTable
	lease, keep time.Duration
	batch       int // rows a sweep deletes at most, per statement
	now         func() time.Time
}

// SQLStoreOptions configures [NewSQLStore]. A nil *SQLStoreOptions and zero
// fields mean the defaults; negative durations are refused.
type SQLStoreOptions struct {
	// OutcomeTable names the table of outcomes: letters, digits and
	// underscores, optionally after a schema name and a dot. Empty means
	// "mcpform_outcomes".
	OutcomeTable string
	// SecretTable names the table of secrets, under the same rules.
	// Empty means "mcpform_secrets".
	SecretTable string
	// Lease is how long a claim on a run holds unless its holder renews
	// it, which it does every third of the lease while do runs: the
	// longest a duplicate waits for a holder that has crashed before it
	// takes the claim over. Zero means 10 seconds.
	Lease time.Duration
	// Keep is how long an outcome is kept, counted from its claim. It
	// also bounds how long a run of a flow that keeps its outcomes here
	// may last, from its first call: a state of an older run is refused
	// as expired, so that no replay outlives the outcome it should get.
	// Zero means 24 hours.
	Keep time.Duration
}

// defaultLease is SQLStoreOptions.Lease's default: short, so that a retry
// after a crash waits seconds, and long against a database's hiccups.
const defaultLease = 10 * time.Second

// sweepBatch is how many expired rows a sweep deletes at most.
const sweepBatch = 1000

// NewSQLStore returns a store on db; a nil opts means the defaults. It
// refuses a nil db, a table name that is not a plain identifier, a
// negative duration, and an in-memory SQLite database that may open a
// second connection, which would see none of the first's rows. It sends
// nothing but, on SQLite with more than one connection allowed, PRAGMA
// database_list, which opens a connection: a SQLite file is created then.
func NewSQLStore(db *sql.DB, opts *SQLStoreOptions) (*SQLStore, error) {
	if db == nil {
		return nil, errors.New("mcpform: NewSQLStore needs a database")
	}
	s := &SQLStore{db: db, lease: defaultLease, keep: 24 * time.Hour, batch: sweepBatch, now: time.Now}
	outcomeTable, secTable := "mcpform_outcomes", "mcpform_secrets"
	if opts != nil {
		if opts.Lease < 0 || opts.Keep < 0 {
			return nil, errors.New("mcpform: SQLStoreOptions.Lease and Keep must not be negative")
		}
		outcomeTable = cmp.Or(opts.OutcomeTable, outcomeTable)
		secTable = cmp.Or(opts.SecretTable, secTable)
		s.lease = cmp.Or(opts.Lease, s.lease)
		s.keep = cmp.Or(opts.Keep, s.keep)
	}
	for _, t := range []string{outcomeTable, secTable} {
		if !sqlIdentifier(t) {
			return nil, fmt.Errorf("mcpform: SQLStore table name %q is not a plain identifier", t)
		}
	}
	if outcomeTable == secTable {
		return nil, errors.New("mcpform: SQLStore's two tables need two names")
	}
	if err := sqliteOneConn(db); err != nil {
		return nil, err
	}
	s.outcomes = newSQLTable(outcomeTable, outcomeColumns, outcomeIndexes, outcomeStatements)
	s.secrets = newSQLTable(secTable, secretColumns, secretIndexes, secretStatements)
	return s, nil
}

// sqliteOneConn refuses an in-memory SQLite database on which database/sql
// may open a second connection: that one would be another, empty
// database, and a run's outcome would vanish between its claim and its
// record.
func sqliteOneConn(db *sql.DB) error {
	if !strings.Contains(strings.ToLower(reflect.TypeOf(db.Driver()).String()), "sqlite") ||
		db.Stats().MaxOpenConnections == 1 {
		return nil
	}
	rows, err := db.Query("PRAGMA database_list")
	if err != nil {
		return nil // not SQLite after all, or not reachable yet: the first use says
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var name, file string
		if rows.Scan(&seq, &name, &file) == nil && name == "main" && file == "" {
			return errors.New("mcpform: NewSQLStore: an in-memory SQLite database is one per connection; " +
				"call db.SetMaxOpenConns(1) first, open a file, or use NewMemoryOutcomes")
		}
	}
	return nil
}

// sqlIdentifier reports whether name is [schema.]table, each part letters,
// digits and underscores not starting with a digit: safe to put in a
// statement unquoted, on both databases.
func sqlIdentifier(name string) bool {
	parts := strings.Split(name, ".")
	if len(parts) > 2 || len(name) > 127 {
		return false
	}
	for _, p := range parts {
		if p == "" || (p[0] >= '0' && p[0] <= '9') {
			return false
		}
		for _, c := range p {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// Create creates the store's tables and indexes where they do not exist
// yet, and prepares the store's statements. Calling it is optional, since
// each table is created the first time it is used: a server calls it at
// startup so that a database it cannot write to fails there rather than
// at the first finishing round.
func (s *SQLStore) Create(ctx context.Context) error {
	if _, err := s.stmt(ctx, s.outcomes, 0); err != nil {
		return err
	}
	_, err := s.stmt(ctx, s.secrets, 0)
	return err
}

// A sqlTable is one of a store's tables: what creates it, and the
// statements the store sends it, prepared once.
type sqlTable struct {
	name   string
	create [][]string // steps, each a statement and its alternatives
	text   []string   // the statements, by index

	mu       sync.Mutex
	stmts    atomic.Pointer[[]*sql.Stmt] // prepared, by index
	sweptAt  time.Time                   // when it was last swept
	sweepDue bool                        // the last sweep found a full batch
}

// newSQLTable returns the table name with columns cols, indexes made by
// index (given the index's bare name, the table's, and the table part
// alone) and the statements made by stmts from the table's name.
func newSQLTable(name, cols string, indexes []string, stmts func(string) []string) *sqlTable {
	t := &sqlTable{name: name, text: stmts(name)}
	t.create = [][]string{{"CREATE TABLE IF NOT EXISTS " + name + " (" + cols + ")"}}
	schema, bare, dotted := strings.Cut(name, ".")
	if !dotted {
		schema, bare = "", name
	}
	for _, ix := range indexes {
		suffix, def, _ := strings.Cut(ix, " ")
		alts := []string{"CREATE INDEX IF NOT EXISTS " + bare + "_" + suffix + " ON " + name + " " + def}
		if dotted { // SQLite names an attached database's index, not its table
			alts = append(alts, "CREATE INDEX IF NOT EXISTS "+schema+"."+bare+"_"+suffix+" ON "+bare+" "+def)
		}
		t.create = append(t.create, alts)
	}
	return t
}

// stmt returns t's statement i, prepared on s's database once t exists.
func (s *SQLStore) stmt(ctx context.Context, t *sqlTable, i int) (*sql.Stmt, error) {
	if p := t.stmts.Load(); p != nil {
		return (*p)[i], nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.stmts.Load(); p != nil {
		return (*p)[i], nil
	}
	for _, alts := range t.create {
		if err := s.exec(ctx, alts); err != nil {
			return nil, fmt.Errorf("mcpform: creating table %s: %w", t.name, err)
		}
	}
	stmts := make([]*sql.Stmt, len(t.text))
	for j, q := range t.text {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			for _, p := range stmts[:j] {
				p.Close()
			}
			return nil, fmt.Errorf("mcpform: preparing a statement on %s: %w", t.name, err)
		}
		stmts[j] = st
	}
	t.stmts.Store(&stmts)
	return stmts[i], nil
}

// exec runs the first of alts that succeeds, going through them twice:
// another replica may be creating the same table at the same moment.
func (s *SQLStore) exec(ctx context.Context, alts []string) error {
	var errs []error
	for range 2 {
		for _, q := range alts {
			_, err := s.db.ExecContext(ctx, q)
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
	}
	return errs[len(errs)-1]
}

// sweepDue reports whether t is due a sweep, marking it swept if so: at
// most once every sweepEvery, unless the last sweep found more to do.
func (s *SQLStore) sweepDue(t *sqlTable) bool {
	now := s.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.sweepDue && now.Sub(t.sweptAt) < sweepEvery {
		return false
	}
	t.sweptAt, t.sweepDue = now, false
	return true
}

// swept records how many rows a sweep of t deleted: a full batch leaves
// the next write to sweep again.
func (s *SQLStore) swept(t *sqlTable, res sql.Result) {
	if n, err := res.RowsAffected(); err == nil && n >= int64(s.batch) {
		t.mu.Lock()
		t.sweepDue = true
		t.mu.Unlock()
	}
}

// outcomeKeep is how long s keeps an outcome, which bounds how long a run
// of a flow that stores its outcomes in s may last.
func (s *SQLStore) outcomeKeep() time.Duration { return s.keep }
