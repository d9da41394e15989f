package main

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the drivers are the example's, never the library's
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	_ "modernc.org/sqlite"
)

// A store holds one account per lower-cased email and salted password hashes,
// in db or, without -db, in mem; runs keeps each flow run's first outcome and
// the secret page's values.
type store struct {
	db   *sql.DB // nil without -db
	mem  *memAccounts
	runs runStore
}

// A runStore keeps the flows' outcomes and secrets: mcpform.SQLStore, which
// replicas share, or memoryRuns, for one process.
type runStore interface {
	mcpform.Outcomes
	mcpform.SecretStore
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

// openStore opens a postgres:// URL or a SQLite file that replicas may share,
// with the runs in it (see mcpform.SQLStore), or for "" a store in the
// process's memory, the fastest for one process.
func openStore(ctx context.Context, dsn string) (*store, error) {
	if dsn == "" {
		// An outcome is kept while a state that may replay its run is valid.
		outcomes := mcpform.NewMemoryOutcomes(deploy.StateTTL + mcpform.RequestStateLeeway)
		return &store{mem: newMemAccounts(), runs: memoryRuns{outcomes, mcpform.NewMemorySecretStore()}}, nil
	}
	driver, name := "sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		driver, name = "pgx", dsn
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		return nil, err
	}
	for _, stmt := range strings.Split(schema, ";") {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, errors.Join(err, db.Close())
		}
	}
	runs, err := mcpform.NewSQLStore(db, &mcpform.SQLStoreOptions{OutcomeTable: "outcomes", SecretTable: "secrets"})
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &store{db: db, runs: runs}, runs.Create(ctx)
}

func (s *store) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// createAccount creates a for run, or reports false when another run holds its email.
func (s *store) createAccount(ctx context.Context, run string, a *account) (bool, error) {
	if s.mem != nil {
		return s.mem.create(run, a), nil
	}
	var owner string // a retry after a crash finds its run's own account
	err := s.db.QueryRowContext(ctx, `INSERT INTO accounts VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (email) DO UPDATE SET email = excluded.email RETURNING idem_key`,
		normalize(a.Email), run, a.FullName, a.Plan, a.TeamName, a.Seats, a.Principal, time.Now().UTC()).Scan(&owner)
	return owner == run, err
}

func normalize(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
