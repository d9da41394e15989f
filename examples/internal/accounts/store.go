package accounts

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the drivers are the examples', never the library's
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	_ "modernc.org/sqlite"
)

// A Store holds one account per lower-cased email and salted password
// hashes, in DB or, without one, in Mem; Runs keeps each flow run's first
// outcome and the secret page's values.
type Store struct {
	DB   *sql.DB // nil when Mem holds the accounts
	Mem  Memory
	Runs RunStore
}

// A RunStore keeps the flows' outcomes and secrets: mcpform.SQLStore, which
// replicas share, or the memory stores, for one process.
type RunStore interface {
	mcpform.Outcomes
	mcpform.SecretStore
}

// A Memory keeps the accounts of one process, without SQL.
type Memory interface {
	// Create is Store.CreateAccount.
	Create(run string, a *Record) bool
	// SetPassword is Store.SetPassword.
	SetPassword(email, principal, salt, hash string) bool
}

// memoryRuns keeps a single process's runs in its memory: no statement,
// and no queue behind the one connection of an in-memory database.
type memoryRuns struct {
	*mcpform.MemoryOutcomes
	*mcpform.MemorySecretStore
}

const schema = `CREATE TABLE IF NOT EXISTS accounts (email TEXT PRIMARY KEY, idem_key TEXT NOT NULL UNIQUE, full_name TEXT NOT NULL,
	plan TEXT NOT NULL, team_name TEXT NOT NULL, seats INTEGER NOT NULL, principal TEXT NOT NULL, created_at TIMESTAMP NOT NULL);
CREATE TABLE IF NOT EXISTS passwords (email TEXT PRIMARY KEY, salt TEXT NOT NULL, hash TEXT NOT NULL, iterations INTEGER NOT NULL, updated_at TIMESTAMP NOT NULL)`

// DefaultConns is the connections a Store keeps open to PostgreSQL at
// most, unless Open is told otherwise: enough for the statements of a
// busy replica, which each take a millisecond or so, and few enough that
// nine replicas stay below PostgreSQL's default max_connections of 100,
// less the 3 it reserves for superusers.
const DefaultConns = 10

// Open opens a postgres:// URL or a SQLite file that replicas may share,
// with the runs in it (see mcpform.SQLStore). For "" the runs are in the
// process's memory, and the accounts in mem or, for a nil mem, in SQLite
// in memory, on one connection.
//
// A PostgreSQL pool holds at most conns connections (zero or less means
// DefaultConns), all of them kept open while idle. Beyond them, a
// statement waits for a connection to come free, as database/sql queues
// it, rather than opening one the server would refuse with "too many
// clients already": a signup past the bound is slower, never failed.
// Size it so that conns times the replicas stays below the server's
// max_connections, less what other clients of the server use.
func Open(ctx context.Context, dsn string, conns int, mem Memory) (*Store, error) {
	// An outcome is kept while a state that may replay its run is valid.
	inMemory := memoryRuns{mcpform.NewMemoryOutcomes(deploy.StateTTL + mcpform.RequestStateLeeway), mcpform.NewMemorySecretStore()}
	if dsn == "" && mem != nil {
		return &Store{Mem: mem, Runs: inMemory}, nil
	}
	db, err := open(dsn, conns)
	if err != nil {
		return nil, err
	}
	for _, stmt := range strings.Split(schema, ";") {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, errors.Join(err, db.Close())
		}
	}
	if dsn == "" {
		return &Store{DB: db, Runs: inMemory}, nil
	}
	runs, err := mcpform.NewSQLStore(db, &mcpform.SQLStoreOptions{OutcomeTable: "outcomes", SecretTable: "secrets"})
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &Store{DB: db, Runs: runs}, runs.Create(ctx)
}

// open opens dsn's database, and bounds its pool: conns connections to
// PostgreSQL (DefaultConns for zero or less), one to SQLite in memory,
// and none to a SQLite file, whose writers wait for each other in
// SQLite's busy timeout, not for a connection.
func open(dsn string, conns int) (*sql.DB, error) {
	driver, name := "sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	switch {
	case isPostgres(dsn):
		driver, name = "pgx", dsn
		if conns <= 0 {
			conns = DefaultConns
		}
	case dsn == "":
		name, conns = ":memory:", 1
	default:
		conns = 0 // no limit
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	// database/sql keeps 2 idle by default, and would close and reopen
	// the rest between bursts, a connection's setup each time.
	db.SetMaxIdleConns(max(conns, 2))
	return db, nil
}

// isPostgres reports whether dsn is a PostgreSQL URL.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Close closes the database, if there is one.
func (s *Store) Close() error {
	if s.DB == nil {
		return nil
	}
	return s.DB.Close()
}

// CreateAccount creates a for run, or reports false when another run holds
// its email.
func (s *Store) CreateAccount(ctx context.Context, run string, a *Record) (bool, error) {
	if s.DB == nil {
		return s.Mem.Create(run, a), nil
	}
	var owner string // a retry after a crash finds its run's own account
	err := s.DB.QueryRowContext(ctx, `INSERT INTO accounts VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (email) DO UPDATE SET email = excluded.email RETURNING idem_key`,
		Normalize(a.Email), run, a.FullName, a.Plan, a.TeamName, a.Seats, a.Principal, time.Now().UTC()).Scan(&owner)
	return owner == run, err
}

// SetPassword stores the hash as email's password, and reports false when
// principal has no account email.
func (s *Store) SetPassword(ctx context.Context, email, principal, salt, hash string) (bool, error) {
	if s.DB == nil {
		return s.Mem.SetPassword(email, principal, salt, hash), nil
	}
	var one int
	err := s.DB.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE email = $1 AND principal = $2`,
		Normalize(email), principal).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = s.DB.ExecContext(ctx, `INSERT INTO passwords (email, salt, hash, iterations, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO UPDATE SET
		salt = excluded.salt, hash = excluded.hash, iterations = excluded.iterations, updated_at = excluded.updated_at`,
		Normalize(email), salt, hash, PasswordIterations, time.Now().UTC())
	return err == nil, err
}
