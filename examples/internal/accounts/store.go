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

// Open opens a postgres:// URL or a SQLite file that replicas may share,
// with the runs in it (see mcpform.SQLStore). For "" the runs are in the
// process's memory, and the accounts in mem or, for a nil mem, in SQLite
// in memory, on one connection.
func Open(ctx context.Context, dsn string, mem Memory) (*Store, error) {
	// An outcome is kept while a state that may replay its run is valid.
	inMemory := memoryRuns{mcpform.NewMemoryOutcomes(deploy.StateTTL + mcpform.RequestStateLeeway), mcpform.NewMemorySecretStore()}
	if dsn == "" && mem != nil {
		return &Store{Mem: mem, Runs: inMemory}, nil
	}
	driver, name, conns := "sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)", 0
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		driver, name = "pgx", dsn
	} else if dsn == "" {
		name, conns = ":memory:", 1
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns) // 0: no limit
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
