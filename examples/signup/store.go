package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	// The drivers: the example imports them, the library never does.
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx", for postgres:// URLs
	_ "modernc.org/sqlite"             // "sqlite", pure Go: no cgo
)

// A store keeps accounts, and the outcome of each finished signup, in a SQL
// database: SQLite by default, or PostgreSQL for replicas on several
// machines. It is safe for concurrent use, by this process and by others
// on the same database.
//
// Two unique keys make a signup exactly-once: the normalized email (one
// account per address) and the idempotency key, the flow's run ID. The
// first outcome stored under a key wins: a replay of that signup, with the
// same answers or others, on any replica, gets the stored result and
// creates nothing.
type store struct {
	db       *sql.DB
	postgres bool // placeholders are $1, $2…, not ?
}

// schema creates the tables. Emails are stored lower-cased, so the primary
// key is the unique constraint on the normalized address. passwords holds
// salted hashes only (password.go); secrets holds what the secret page
// received until set_password takes it (secrets.go).
const schema = `
CREATE TABLE IF NOT EXISTS signups (
	idem_key   TEXT PRIMARY KEY,
	status     TEXT NOT NULL,
	result     TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (
	email      TEXT PRIMARY KEY,
	idem_key   TEXT NOT NULL UNIQUE,
	full_name  TEXT NOT NULL,
	plan       TEXT NOT NULL,
	team_name  TEXT NOT NULL,
	seats      INTEGER NOT NULL,
	principal  TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS passwords (
	email      TEXT PRIMARY KEY,
	salt       TEXT NOT NULL,
	hash       TEXT NOT NULL,
	iterations INTEGER NOT NULL,
	updated_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS secrets (
	secret_key TEXT PRIMARY KEY,
	value      TEXT,
	expires_ms BIGINT NOT NULL
)`

// openStore opens the database named by dsn and creates its tables:
// a postgres:// (or postgresql://) URL, a SQLite file path, or "" for a
// SQLite database in memory, which lives as long as the process.
func openStore(ctx context.Context, dsn string) (*store, error) {
	s := &store{}
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		s.postgres = true
		s.db, err = sql.Open("pgx", dsn)
	case dsn == "":
		s.db, err = sql.Open("sqlite", ":memory:")
		// Each connection to :memory: is a database of its own: keep one.
		s.db.SetMaxOpenConns(1)
	default:
		// Several processes may share the file: WAL lets readers work
		// beside the writer, busy_timeout waits out another's lock
		// rather than failing, and BEGIN IMMEDIATE takes the write lock
		// at once, so two writers never deadlock upgrading theirs.
		s.db, err = sql.Open("sqlite", "file:"+dsn+
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	}
	if err != nil {
		return nil, err
	}
	for _, stmt := range strings.Split(schema, ";") {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			s.db.Close()
			return nil, fmt.Errorf("creating the tables: %w", err)
		}
	}
	return s, nil
}

// Close closes the database.
func (s *store) Close() error { return s.db.Close() }

// q rewrites a query's ? placeholders for the database.
func (s *store) q(query string) string {
	if !s.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// An outcome is the final result of a signup, as stored and as returned.
type outcome struct {
	Text    string     `json:"text"`
	IsError bool       `json:"isError,omitempty"`
	Data    resultData `json:"data"`
}

// An account is one signup, as stored and as reported.
type account struct {
	Email     string `json:"email"`
	FullName  string `json:"full_name,omitempty"`
	Plan      string `json:"plan"`
	TeamName  string `json:"team_name,omitempty"`
	Seats     int    `json:"seats,omitempty"`
	Principal string `json:"-"`
}

// resultData is the structured content of a final result, for programs
// (and tests) that read it rather than the text.
type resultData struct {
	// Status is created, exists, declined, cancelled or invalid; for
	// set_password, updated, unknown, declined, cancelled or invalid.
	Status  string   `json:"status"`
	Account *account `json:"account,omitempty"`
}

func notCompleted(status, text string) outcome {
	return outcome{Text: text, Data: resultData{Status: status}}
}

// result is o as the tool's final result.
func (o outcome) result() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: o.Text}},
		StructuredContent: o.Data,
		IsError:           o.IsError,
	}
}

// errReplay reports, inside finish's transaction, that another signup
// holds the key.
var errReplay = errors.New("the idempotency key is taken")

// finish stores the outcome of the run named by idem, once. do runs inside
// the transaction that claims idem: it makes the run's change, if any, and
// returns the outcome to store. If idem already has an outcome, finish
// returns that one, and do's changes are rolled back.
func (s *store) finish(ctx context.Context, idem string, do func(*sql.Tx) (outcome, error)) (outcome, error) {
	for range 3 {
		got, err := s.finishOnce(ctx, idem, do)
		if errors.Is(err, errReplay) {
			return s.outcome(ctx, idem)
		}
		if err == nil || !retryable(err) {
			return got, err
		}
	}
	return outcome{}, errors.New("signup store: too much contention")
}

func (s *store) finishOnce(ctx context.Context, idem string, do func(*sql.Tx) (outcome, error)) (outcome, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return outcome{}, err
	}
	defer tx.Rollback()
	// Claim the key first. A replica finishing the same run at the same
	// moment waits here on the unique key, then finds it taken.
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO signups (idem_key, status, result, created_at)
		VALUES (?, '', '', ?) ON CONFLICT (idem_key) DO NOTHING`), idem, time.Now().UTC())
	if err != nil {
		return outcome{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return outcome{}, errReplay
	}
	o, err := do(tx)
	if err != nil {
		return outcome{}, err
	}
	blob, err := json.Marshal(o)
	if err != nil {
		return outcome{}, err
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE signups SET status = ?, result = ? WHERE idem_key = ?`),
		o.Data.Status, string(blob), idem); err != nil {
		return outcome{}, err
	}
	return o, tx.Commit()
}

// createAccount creates a within tx, under the run idem, and reports
// false when another account holds its email.
func (s *store) createAccount(ctx context.Context, tx *sql.Tx, idem string, a *account) (bool, error) {
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO accounts
		(email, idem_key, full_name, plan, team_name, seats, principal, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING`),
		normalize(a.Email), idem, a.FullName, a.Plan, a.TeamName, a.Seats, a.Principal, time.Now().UTC())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// outcome returns the outcome stored under idem.
func (s *store) outcome(ctx context.Context, idem string) (outcome, error) {
	var blob string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT result FROM signups WHERE idem_key = ?`), idem).Scan(&blob)
	if err != nil {
		return outcome{}, err
	}
	var o outcome
	err = json.Unmarshal([]byte(blob), &o)
	return o, err
}

// retryable reports whether err is a conflict that a new transaction may
// not meet: SQLite's busy or locked database, after busy_timeout, or a
// PostgreSQL serialization failure or deadlock.
func retryable(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked") ||
		strings.Contains(msg, "(SQLSTATE 40001)") || strings.Contains(msg, "(SQLSTATE 40P01)")
}

// normalize returns the form of an email address that is unique per
// account: addresses differ only in case, as most providers treat them.
func normalize(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
