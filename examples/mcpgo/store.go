package main

import (
	"context"

	"github.com/mcpform/mcpform/examples/internal/accounts"
)

// The store is examples/internal/accounts', shared with examples/signup.
type store = accounts.Store

// openStore opens the store of dsn (see accounts.Open), with -db-conns
// connections at most to PostgreSQL: for "", the
// accounts in SQLite in memory and the runs in the process's memory.
func openStore(ctx context.Context, dsn string) (*store, error) {
	return accounts.Open(ctx, dsn, *dbConns, nil)
}
