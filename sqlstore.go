package mcpform

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// SQLStore keeps what a [Flow] stores in a SQL database through
// database/sql: the first outcome of each run, as [Outcomes], and what the
// secret page receives, as a [SecretStore]. Replicas that open the same
// database share both, so a run finishes exactly once whichever replicas
// its rounds land on. It is safe for concurrent use. The library imports
// no driver: the program does, and opens the *sql.DB. Its zero value is
// not usable; make one with [NewSQLStore].
//
// The tables are created, if they do not exist, by [SQLStore.Create] or
// the first time each is used. They are, with the default names:
//
//	CREATE TABLE mcpform_outcomes (
//		run_key    TEXT PRIMARY KEY, -- the run ID
//		claim      TEXT NOT NULL,    -- who decides the outcome
//		lease_ms   BIGINT NOT NULL,  -- until when, Unix milliseconds
//		result     TEXT,             -- the outcome, JSON; NULL until decided
//		created_ms BIGINT NOT NULL
//	)
//	CREATE TABLE mcpform_secrets (
//		secret_key TEXT PRIMARY KEY,
//		value      TEXT,             -- NULL once taken or expired
//		expires_ms BIGINT NOT NULL
//	)
//
// A finishing round costs one statement to claim its run and one to store
// the outcome, each its own commit, so that replicas see the claim before
// the side effect runs and no transaction is held open across it; a
// duplicate reads the row until the outcome is there.
// Times are the replicas' clocks, so they should agree to well within
// [SQLStoreOptions].Lease.
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
//     A ":memory:" database is one per connection: SetMaxOpenConns(1).
//   - Creating tables: PostgreSQL's CREATE TABLE IF NOT EXISTS can fail
//     when two replicas run it at once; SQLStore tries once more.
type SQLStore struct {
	db                     *sql.DB
	outcomeTable, secTable string
	lease, keep            time.Duration
	now                    func() time.Time

	mu        sync.Mutex
	created   map[string]bool // tables known to exist
	lastSweep time.Time       // of the outcomes table
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
	// Lease is how long a claim on a run holds: the longest a side effect
	// may run, and the longest a duplicate waits for a holder that has
	// crashed before it takes the claim over. Zero means one minute.
	Lease time.Duration
	// Keep is how long an outcome is kept, counted from its claim. It
	// must outlast the flow's request state (its codec's TTL), or a late
	// replay finds no outcome and runs again. Zero means 24 hours.
	Keep time.Duration
}

// NewSQLStore returns a store on db; a nil opts means the defaults. It
// refuses a nil db, a table name that is not a plain identifier, and a
// negative duration, and it does not touch the database.
func NewSQLStore(db *sql.DB, opts *SQLStoreOptions) (*SQLStore, error) {
	if db == nil {
		return nil, errors.New("mcpform: NewSQLStore needs a database")
	}
	s := &SQLStore{db: db, outcomeTable: "mcpform_outcomes", secTable: "mcpform_secrets",
		lease: time.Minute, keep: 24 * time.Hour, now: time.Now, created: map[string]bool{}}
	if opts != nil {
		if opts.Lease < 0 || opts.Keep < 0 {
			return nil, errors.New("mcpform: SQLStoreOptions.Lease and Keep must not be negative")
		}
		s.outcomeTable = cmp.Or(opts.OutcomeTable, s.outcomeTable)
		s.secTable = cmp.Or(opts.SecretTable, s.secTable)
		s.lease = cmp.Or(opts.Lease, s.lease)
		s.keep = cmp.Or(opts.Keep, s.keep)
	}
	for _, t := range []string{s.outcomeTable, s.secTable} {
		if !sqlIdentifier(t) {
			return nil, fmt.Errorf("mcpform: SQLStore table name %q is not a plain identifier", t)
		}
	}
	if s.outcomeTable == s.secTable {
		return nil, errors.New("mcpform: SQLStore's two tables need two names")
	}
	return s, nil
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

// Create creates the store's tables where they do not exist yet. Calling it
// is optional, since each table is created the first time it is used: a
// server calls it at startup so that a database it cannot write to fails
// there rather than at the first finishing round.
func (s *SQLStore) Create(ctx context.Context) error {
	if err := s.ensure(ctx, s.outcomeTable, outcomeColumns); err != nil {
		return err
	}
	return s.ensure(ctx, s.secTable, secretColumns)
}

// ensure creates table with the columns cols, once per store.
func (s *SQLStore) ensure(ctx context.Context, table, cols string) error {
	s.mu.Lock()
	done := s.created[table]
	s.mu.Unlock()
	if done {
		return nil
	}
	stmt := "CREATE TABLE IF NOT EXISTS " + table + " (" + cols + ")"
	_, err := s.db.ExecContext(ctx, stmt)
	if err != nil {
		// Another replica may have created it at the same moment.
		_, err = s.db.ExecContext(ctx, stmt)
	}
	if err != nil {
		return fmt.Errorf("mcpform: creating table %s: %w", table, err)
	}
	s.mu.Lock()
	s.created[table] = true
	s.mu.Unlock()
	return nil
}
