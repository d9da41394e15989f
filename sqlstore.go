package mcpform

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
//		lease_ms   BIGINT NOT NULL,  -- until when, Unix ms on the database's clock
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
// table. Leases are written and compared on the database's clock alone
// (julianday('now') on SQLite, clock_timestamp() on PostgreSQL), so a
// replica whose clock is ahead of the others' by more than the lease
// still sees a live claim as live. Expiry (Keep) and a secret's expiry
// are on the replicas' clocks, which need only agree to well within
// them.
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
//     _pragma=journal_mode(WAL) so that readers work beside the writer
//     (modernc.org/sqlite's DSN; mattn/go-sqlite3 spells them
//     _busy_timeout=10000&_journal_mode=WAL). The program opens the
//     connections, so SQLStore cannot set them; without them, ordinary
//     contention can fail a write with "database is locked", and the
//     outcome of a finished run is then held unknown (see
//     [SQLStore.Once]).
//   - The database's clock: SQLStore spells it as the driver's type
//     name suggests (SQLite if it contains "sqlite"), and the other way
//     when the database refuses to prepare that.
//   - An in-memory SQLite database is one per connection, and a shared
//     cache fails concurrent writers with SQLITE_LOCKED: [NewSQLStore]
//     refuses one unless db.SetMaxOpenConns(1) was called. For one
//     process, [NewMemoryOutcomes] and [NewMemorySecretStore] are faster.
//   - Creating tables and indexes: PostgreSQL's CREATE … IF NOT EXISTS
//     can fail when two replicas run it at once; SQLStore tries once
//     more. An index of a table named schema.table is named
//     schema.table_expiry, which SQLite spells that way and PostgreSQL
//     puts in the table's schema itself.
//
// Bound db's pool (db.SetMaxOpenConns) below the server's connection
// limit, PostgreSQL's max_connections: an unbounded pool opens a
// connection per concurrent call, and past the limit statements fail.
// With the pool exhausted, calls queue: each statement waits, as
// database/sql does, for a connection to come free. A do that has
// returned has its outcome written within 10 seconds, whatever its
// caller's context, so while the queue drains faster than that, nothing
// fails after do.
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
	// The database's clock is spelled as the driver's name suggests, and
	// the other way if the database refuses that.
	nows := []string{postgresNow, sqliteNow}
	if isSQLite(db) {
		nows[0], nows[1] = nows[1], nows[0]
	}
	s.outcomes = newSQLTable(outcomeTable, outcomeColumns, outcomeIndexes,
		outcomeStatements(outcomeTable, nows[0]), outcomeStatements(outcomeTable, nows[1]))
	s.secrets = newSQLTable(secTable, secretColumns, secretIndexes, secretStatements(secTable))
	return s, nil
}

// sqliteOneConn refuses an in-memory SQLite database on which database/sql
// may open a second connection: that one would be another, empty
// database, and a run's outcome would vanish between its claim and its
// record.
func sqliteOneConn(db *sql.DB) error {
	if !isSQLite(db) || db.Stats().MaxOpenConnections == 1 {
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

// isSQLite reports whether db's driver names itself SQLite.
func isSQLite(db *sql.DB) bool {
	return strings.Contains(strings.ToLower(reflect.TypeOf(db.Driver()).String()), "sqlite")
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
	texts  [][]string // the statements, by index, in each dialect to try

	mu       sync.Mutex
	stmts    atomic.Pointer[[]*sql.Stmt] // prepared, by index
	sweptAt  time.Time                   // when it was last swept
	sweepDue bool                        // the last sweep found a full batch
}

// newSQLTable returns the table name with columns cols, indexes made by
// index (given the index's bare name, the table's, and the table part
// alone) and the statements texts, by index: the first set of them that
// the database prepares, one set per dialect.
func newSQLTable(name, cols string, indexes []string, texts ...[]string) *sqlTable {
	t := &sqlTable{name: name, texts: texts}
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
	var first error
	for _, text := range t.texts {
		stmts, err := s.prepare(ctx, text)
		if err == nil {
			t.stmts.Store(&stmts)
			return stmts[i], nil
		}
		first = cmp.Or(first, err)
	}
	return nil, fmt.Errorf("mcpform: preparing a statement on %s: %w", t.name, first)
}

// prepare prepares every statement of text, or none.
func (s *SQLStore) prepare(ctx context.Context, text []string) ([]*sql.Stmt, error) {
	stmts := make([]*sql.Stmt, len(text))
	for j, q := range text {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			for _, p := range stmts[:j] {
				p.Close()
			}
			return nil, err
		}
		stmts[j] = st
	}
	return stmts, nil
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

// outcomeColumns are the columns of [SQLStore]'s outcome table.
const outcomeColumns = `run_key TEXT PRIMARY KEY, claim TEXT NOT NULL, lease_ms BIGINT NOT NULL,
	result TEXT, created_ms BIGINT NOT NULL`

// outcomeIndexes index the outcome table's expiry, for the sweep.
var outcomeIndexes = []string{"expiry (created_ms)"}

// claimUnrecorded is the claim of a run whose side effect ran but whose
// outcome could not be stored: no fencing token is this short, so no
// holder renews or records it, and its lease lasts until the row expires.
const claimUnrecorded = "unrecorded"

// The outcome table's statements, by index.
const (
	outClaim = iota
	outRead
	outTake
	outRenew
	outRecord
	outMark
	outRelease
	outSweep
)

// The database's clock, in Unix milliseconds, as SQLite and PostgreSQL
// spell it. Leases are written and compared on it alone, so that replicas
// whose clocks disagree still agree on whether a claim is live.
const (
	sqliteNow   = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
	postgresNow = "CAST(date_part('epoch', clock_timestamp()) * 1000 AS BIGINT)"
)

// outcomeStatements returns the outcome table t's statements, with now
// the database's clock in Unix milliseconds (sqliteNow or postgresNow).
// Every lease is now plus a duration the store passes; a read returns
// what is left of the lease, on the same clock.
func outcomeStatements(t, now string) []string {
	return []string{
		outClaim:   "INSERT INTO " + t + " (run_key, claim, lease_ms, created_ms) VALUES ($1, $2, " + now + " + $3, $4) ON CONFLICT (run_key) DO NOTHING",
		outRead:    "SELECT result, claim, lease_ms - " + now + " FROM " + t + " WHERE run_key = $1",
		outTake:    "UPDATE " + t + " SET claim = $1, lease_ms = " + now + " + $2 WHERE run_key = $3 AND claim = $4 AND result IS NULL AND lease_ms <= " + now,
		outRenew:   "UPDATE " + t + " SET lease_ms = " + now + " + $1 WHERE run_key = $2 AND claim = $3 AND result IS NULL",
		outRecord:  "UPDATE " + t + " SET result = $1 WHERE run_key = $2 AND claim = $3",
		outMark:    "UPDATE " + t + " SET claim = $1, lease_ms = " + now + " + $2 WHERE run_key = $3 AND claim = $4 AND result IS NULL",
		outRelease: "DELETE FROM " + t + " WHERE run_key = $1 AND claim = $2 AND result IS NULL",
		outSweep: "DELETE FROM " + t + " WHERE run_key IN (SELECT run_key FROM " + t +
			" WHERE created_ms < $1 ORDER BY created_ms LIMIT $2)",
	}
}

const (
	// pollFirst and pollMax bound how often a duplicate reads the row of
	// the claim it waits on: soon at first, for a quick side effect, then
	// less and less often.
	pollFirst = 10 * time.Millisecond
	pollMax   = 250 * time.Millisecond
	// recordTimeout bounds storing or releasing an outcome once do has
	// returned, which happens even if the caller's context has ended: the
	// side effect has happened, or not, either way.
	recordTimeout = 10 * time.Second
	// recordTries is how many times a holder tries to store an outcome,
	// and then to mark it unrecorded, backing off from recordBackoff.
	recordTries   = 5
	recordBackoff = 50 * time.Millisecond
	// sweepEvery is how often a store deletes a batch of expired rows
	// from a table, unless the last batch was full.
	sweepEvery = time.Minute
)

// errClaimLost is the cause of do's context ending when another caller
// took the claim over: the holder could not renew it within its lease.
var errClaimLost = errors.New("mcpform: this run's claim was taken over; its outcome is another call's")

// Once implements [Outcomes], on a claim that replicas see. Claiming a
// run is one INSERT … ON CONFLICT DO NOTHING, with a random fencing token,
// and storing its outcome one UPDATE conditional on that token. This is
// what holds:
//
//   - While do runs, its holder renews the claim every third of the
//     lease: one statement each, none for a do shorter than that. A
//     duplicate, on any replica, reads the row until the outcome is
//     there, and returns it without calling its own do.
//   - When do fails, panics or returns nil, the claim is released: the
//     next call runs do again.
//   - When do succeeds and its outcome cannot be stored, because it
//     cannot be encoded (a NaN in StructuredContent) or sealed, or its
//     write fails after a few tries, the run is marked unrecorded
//     instead: that call and every later one, until the row expires
//     (Keep), fail with [ErrOutcomeUnknown], and none calls do again.
//   - When the mark fails too, the call fails with [ErrOutcomeUnknown],
//     and the holder keeps the claim held in the background, renewing
//     its lease and trying again to store the outcome, then the mark,
//     until one is stored: duplicates wait meanwhile, and get the
//     outcome once it is stored. Only if the holder's process stops, or
//     cannot renew the lease before it lapses, first, is the claim left
//     to lapse, as after a crash, and the error says so.
//   - The database is the record: if it is lost (restored from a backup
//     older than the claim, or replaced), a retry finds no row and runs
//     do again, with the same [IdempotencyKey] through a flow.
//   - When the holder stops renewing for a whole lease, because its
//     process crashed or lost the database, a duplicate takes the claim
//     over and calls its own do: a side effect cut short by a crash may
//     have happened once already, and runs again after at most a lease.
//     Pass [IdempotencyKey] to whatever do calls, so that the provider
//     does it once. A holder that learns it lost the claim sees do's
//     context end with that cause, and its call returns the outcome of
//     the one who took over, or [ErrOutcomeUnknown].
func (s *SQLStore) Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if do == nil {
		return nil, errors.New("mcpform: SQLStore.Once without a function")
	}
	return onceDecoded(ctx, s, key, do)
}

// sealsOutcomes reports that the store keeps outcomes at rest, where a
// flow seals them.
func (s *SQLStore) sealsOutcomes() bool { return true }

// onceJSON is Once on the outcome's JSON, whichever SDK's result it is.
func (s *SQLStore) onceJSON(ctx context.Context, key string, do func(context.Context) (*rawOutcome, error)) ([]byte, error) {
	if err := s.sweepOutcomes(ctx); err != nil {
		return nil, err
	}
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(id[:])
	first, held, err := s.await(ctx, key, token, true)
	if err != nil || !held {
		return first, err
	}
	return s.decide(ctx, key, token, do)
}

// await reads key's row until it has an outcome, or, when mayClaim,
// until token holds its claim: taken at first, taken again once its
// holder released it, or taken over once its lease lapsed. Without
// mayClaim, a released or lapsed claim is ErrOutcomeUnknown.
func (s *SQLStore) await(ctx context.Context, key, token string, mayClaim bool) (first []byte, held bool, err error) {
	insert, wait := mayClaim, pollFirst
	for {
		first, held, gone, err := s.claim(ctx, key, token, insert, mayClaim)
		switch {
		case err != nil || first != nil || held:
			return first, held, err
		case gone && !mayClaim:
			return nil, false, ErrOutcomeUnknown
		}
		insert = gone // the holder released it: claim it afresh
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, false, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}

// claim tries to take key with token. It returns the outcome stored under
// key, or whether the claim is now token's; neither while another holds
// it, and gone when there is no row to read.
func (s *SQLStore) claim(ctx context.Context, key, token string, insert, mayClaim bool) (first []byte, held, gone bool, err error) {
	lease := s.lease.Milliseconds()
	if insert {
		n, err := s.execOutcome(ctx, outClaim, key, token, lease, s.now().UnixMilli())
		if err != nil || n == 1 {
			return nil, n == 1, false, err
		}
	}
	read, err := s.stmt(ctx, s.outcomes, outRead)
	if err != nil {
		return nil, false, false, err
	}
	var result sql.NullString
	var holder string
	var left int64 // of the holder's lease, in milliseconds
	err = read.QueryRowContext(ctx, key).Scan(&result, &holder, &left)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, true, nil
	case err != nil:
		return nil, false, false, err
	case result.Valid:
		return []byte(result.String), false, false, nil
	case holder == claimUnrecorded:
		return nil, false, false, ErrOutcomeUnknown
	case left > 0:
		return nil, false, false, nil
	case !mayClaim:
		return nil, false, false, ErrOutcomeUnknown
	}
	// The holder's lease has lapsed: take the claim over, unless the
	// holder has just renewed it or another waiter has taken it.
	n, err := s.execOutcome(ctx, outTake, token, lease, key, holder)
	return nil, n == 1, false, err
}

// decide calls do under token's claim on key, renewing it while do runs,
// and records do's result, or releases the claim when there is none.
// Once do has returned, the claim is never released: a result that
// cannot be encoded, or an encoder that panics, marks the run unrecorded.
func (s *SQLStore) decide(ctx context.Context, key, token string, do func(context.Context) (*rawOutcome, error)) ([]byte, error) {
	dctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	r := &renewal{s: s, key: key, token: token, lost: lost, until: s.now().Add(s.lease)}
	r.mu.Lock()
	r.timer = time.AfterFunc(s.lease/3, r.renew)
	r.mu.Unlock()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	returned, decided := false, false
	defer func() {
		switch {
		case !returned: // do panicked: as if it failed
			r.stop()
			s.execOutcome(rctx, outRelease, key, token)
		case !decided: // the encoder panicked: do's effect may have happened
			_, err := s.unrecorded(rctx, key, token, nil, nil)
			s.keepHeld(r, err)
		}
	}()
	raw, err := do(dctx)
	returned = true
	if err == nil && raw == nil {
		err = errOutcomeNil
	}
	if err != nil {
		decided = true
		r.stop()
		_, rerr := s.execOutcome(rctx, outRelease, key, token)
		return nil, errors.Join(err, rerr)
	}
	defer r.stop() // renewing while the outcome is stored, tries and all
	first, err := s.record(rctx, key, token, raw)
	decided = true
	s.keepHeld(r, err)
	return first, err
}

// keepHeld stops r and, when err says that neither the outcome nor the
// mark could be stored, goes on holding r's claim and trying to store
// them, in the background.
func (s *SQLStore) keepHeld(r *renewal, err error) {
	r.stop()
	var held *heldError
	if errors.As(err, &held) {
		go s.hold(r.key, r.token, held.blob, r.until)
	}
}

// hold keeps token's claim on key held after neither its outcome, blob,
// nor the mark of it unrecorded could be stored: it renews the lease and
// tries to store blob (when there is one) and then the mark, backing off
// from recordBackoff to a third of the lease, so that while this process
// reaches the database no lapse of the lease frees a run whose side
// effect may have happened. It stops once either is stored, once the
// claim is no longer token's, once it could not renew the lease, which
// ends at until on s's clock, before it lapsed, or after Keep.
func (s *SQLStore) hold(key, token string, blob []byte, until time.Time) {
	wait, end := recordBackoff, time.Now().Add(s.keep)
	for time.Now().Before(end) {
		time.Sleep(wait)
		wait = min(2*wait, s.lease/3)
		if s.holdOnce(key, token, blob, &until) {
			return
		}
	}
}

// holdOnce is one round of hold; it reports whether holding is over.
func (s *SQLStore) holdOnce(key, token string, blob []byte, until *time.Time) bool {
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	now := s.now()
	n, err := s.execOutcome(ctx, outRenew, s.lease.Milliseconds(), key, token)
	switch {
	case err == nil && n == 0: // stored after all, taken over, or gone
		return true
	case err == nil:
		*until = now.Add(s.lease)
	case !now.Before(*until): // lapsed: a retry may take the run over
		return true
	}
	if blob != nil {
		if _, err := s.execOutcome(ctx, outRecord, string(blob), key, token); err == nil {
			return true
		}
	}
	_, err = s.execOutcome(ctx, outMark, claimUnrecorded, s.keep.Milliseconds(), key, token)
	return err == nil
}

// A heldError is [ErrOutcomeUnknown] when neither the outcome nor the
// mark of its run unrecorded could be stored, so that only the holder's
// claim, held by [SQLStore.hold], keeps the run from running again.
type heldError struct {
	cause error
	blob  []byte // the outcome, or nil when it could not be encoded
}

func (e *heldError) Error() string {
	return "mcpform: the outcome of this run could not be stored, nor the run marked unrecorded; its side effect may have happened. " +
		"This replica keeps the run claimed and keeps trying to store its outcome; should it stop, or lose the database for a whole lease, " +
		"before it does, a retry runs do again, with the same IdempotencyKey (" + e.cause.Error() + ")"
}

func (e *heldError) Is(target error) bool { return target == ErrOutcomeUnknown }

func (e *heldError) Unwrap() error { return e.cause }

// record encodes do's result and stores it as key's outcome while token
// holds the claim, trying again on errors; when it cannot, it marks the
// run unrecorded, so that no one calls do again.
func (s *SQLStore) record(ctx context.Context, key, token string, raw *rawOutcome) ([]byte, error) {
	blob, err := raw.encode()
	if err != nil {
		return s.unrecorded(ctx, key, token, nil, err)
	}
	n, err := s.retry(ctx, outRecord, string(blob), key, token)
	if err == nil && n == 1 {
		return blob, nil
	}
	if err == nil { // another took the claim over: its outcome is the run's
		first, _, err := s.await(ctx, key, token, false)
		return first, err
	}
	return s.unrecorded(ctx, key, token, blob, err)
}

// unrecorded marks key, which token holds, unrecorded, because its
// outcome, blob (nil if it could not be encoded), could not be recorded
// for cause, and reports ErrOutcomeUnknown; or returns the outcome of the
// one who took the claim over. When the mark cannot be stored either, the
// error is a *heldError, and the caller holds the claim on.
func (s *SQLStore) unrecorded(ctx context.Context, key, token string, blob []byte, cause error) ([]byte, error) {
	n, err := s.retry(ctx, outMark, claimUnrecorded, s.keep.Milliseconds(), key, token)
	switch {
	case err == nil && n == 0:
		first, _, err := s.await(ctx, key, token, false)
		return first, err
	case err != nil:
		return nil, &heldError{cause: errors.Join(cause, err), blob: blob}
	}
	if cause == nil {
		return nil, ErrOutcomeUnknown
	}
	return nil, fmt.Errorf("%w (%w)", ErrOutcomeUnknown, cause)
}

// retry runs the outcome statement i up to recordTries times, backing
// off, until it runs, and returns the rows it affected.
func (s *SQLStore) retry(ctx context.Context, i int, args ...any) (int64, error) {
	wait := recordBackoff
	for try := 1; ; try++ {
		n, err := s.execOutcome(ctx, i, args...)
		if err == nil || try == recordTries {
			return n, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
}

// execOutcome runs the outcome statement i and returns the rows it
// affected.
func (s *SQLStore) execOutcome(ctx context.Context, i int, args ...any) (int64, error) {
	st, err := s.stmt(ctx, s.outcomes, i)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// A renewal keeps a claim held while do runs: every third of the lease
// it extends the lease, and when it finds the claim taken over, or
// cannot renew it before it lapses, it ends do's context.
type renewal struct {
	s          *SQLStore
	key, token string
	lost       context.CancelCauseFunc

	mu      sync.Mutex // held while renewing
	stopped bool
	timer   *time.Timer
	until   time.Time // when the lease ends, on s's clock
}

func (r *renewal) renew() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	s := r.s
	now := s.now()
	next := now.Add(s.lease)
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	n, err := s.execOutcome(ctx, outRenew, s.lease.Milliseconds(), r.key, r.token)
	switch {
	case err == nil && n == 0, err != nil && !now.Before(r.until):
		r.lost(errClaimLost)
	case err == nil:
		r.until = next
		r.timer.Reset(s.lease / 3)
	default: // try again soon, within the lease
		r.timer.Reset(s.lease / 10)
	}
}

// stop ends the renewal, waiting for one under way.
func (r *renewal) stop() {
	r.mu.Lock()
	r.stopped = true
	r.timer.Stop()
	r.mu.Unlock()
}

// LookupOutcome implements [Outcomes]. A run marked unrecorded is found, with
// no outcome: its Once reports [ErrOutcomeUnknown].
func (s *SQLStore) LookupOutcome(ctx context.Context, key string) (*mcp.CallToolResult, bool, error) {
	return lookupDecoded(ctx, s, key)
}

// lookupJSON is LookupOutcome of the outcome's JSON.
func (s *SQLStore) lookupJSON(ctx context.Context, key string) ([]byte, bool, error) {
	read, err := s.stmt(ctx, s.outcomes, outRead)
	if err != nil {
		return nil, false, err
	}
	var result sql.NullString
	var holder string
	var left int64
	err = read.QueryRowContext(ctx, key).Scan(&result, &holder, &left)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case !result.Valid:
		return nil, true, nil
	}
	return []byte(result.String), true, nil
}

// sweepOutcomes deletes a batch of the outcomes older than the store's
// Keep, when the table is due, so that it holds only what a replay can
// still reach.
func (s *SQLStore) sweepOutcomes(ctx context.Context) error {
	sweep, err := s.stmt(ctx, s.outcomes, outSweep)
	if err != nil || !s.sweepDue(s.outcomes) {
		return err
	}
	res, err := sweep.ExecContext(ctx, s.now().Add(-s.keep).UnixMilli(), s.batch)
	if err != nil {
		return err
	}
	s.swept(s.outcomes, res)
	return nil
}

// secretColumns are the columns of [SQLStore]'s secret table. A row whose
// value is NULL records that its key was used.
const secretColumns = `secret_key TEXT PRIMARY KEY, value TEXT, expires_ms BIGINT NOT NULL`

// secretIndexes index the secret table's expiry: of every row, for
// forgetting used keys, and of the rows that still hold a value, for
// clearing those that expired, so that each sweep reads only what it
// changes.
var secretIndexes = []string{
	"expiry (expires_ms)",
	"held (expires_ms) WHERE value IS NOT NULL",
}

// The secret table's statements, by index.
const (
	secPut = iota
	secGet
	secDelete
	secClear
	secForget
)

func secretStatements(t string) []string {
	return []string{
		secPut:    "INSERT INTO " + t + " (secret_key, value, expires_ms) VALUES ($1, $2, $3) ON CONFLICT (secret_key) DO NOTHING",
		secGet:    "SELECT value FROM " + t + " WHERE secret_key = $1 AND value IS NOT NULL AND expires_ms > $2",
		secDelete: "UPDATE " + t + " SET value = NULL WHERE secret_key = $1",
		secClear: "UPDATE " + t + " SET value = NULL WHERE secret_key IN (SELECT secret_key FROM " + t +
			" WHERE value IS NOT NULL AND expires_ms <= $1 ORDER BY expires_ms LIMIT $2)",
		secForget: "DELETE FROM " + t + " WHERE secret_key IN (SELECT secret_key FROM " + t +
			" WHERE expires_ms <= $1 ORDER BY expires_ms LIMIT $2)",
	}
}

// PutSecret implements [SecretStore]: the primary key makes a key usable once,
// ever, on every replica. A PutSecret also clears values that have expired, and
// forgets keys used more than a day ago, a bounded batch of each, when
// the table is due a sweep (see [SQLStore]). Seal the values with
// [SealSecrets], so that the table and its backups hold ciphertext only.
func (s *SQLStore) PutSecret(ctx context.Context, key, value string, expires time.Time) error {
	put, err := s.stmt(ctx, s.secrets, secPut)
	if err != nil {
		return err
	}
	if err := s.sweepSecrets(ctx); err != nil {
		return err
	}
	res, err := put.ExecContext(ctx, key, value, expires.UnixMilli())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return cmp.Or(err, ErrSecretUsed)
	}
	return nil
}

// sweepSecrets clears a batch of expired values and forgets a batch of
// keys used more than usedFor ago, when the table is due.
func (s *SQLStore) sweepSecrets(ctx context.Context) error {
	if !s.sweepDue(s.secrets) {
		return nil
	}
	now := s.now()
	for _, q := range []struct {
		i     int
		until time.Time
	}{{secClear, now}, {secForget, now.Add(-usedFor)}} {
		st, err := s.stmt(ctx, s.secrets, q.i)
		if err != nil {
			return err
		}
		res, err := st.ExecContext(ctx, q.until.UnixMilli(), s.batch)
		if err != nil {
			return err
		}
		s.swept(s.secrets, res)
	}
	return nil
}

// Get implements [SecretStore].
func (s *SQLStore) GetSecret(ctx context.Context, key string) (string, bool, error) {
	get, err := s.stmt(ctx, s.secrets, secGet)
	if err != nil {
		return "", false, err
	}
	var v string
	err = get.QueryRowContext(ctx, key, s.now().UnixMilli()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// DeleteSecret implements [SecretStore]: it clears the value and keeps the row,
// the record that the key was used.
func (s *SQLStore) DeleteSecret(ctx context.Context, key string) error {
	del, err := s.stmt(ctx, s.secrets, secDelete)
	if err != nil {
		return err
	}
	_, err = del.ExecContext(ctx, key)
	return err
}
