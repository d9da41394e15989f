package main

import (
	"context"

	"github.com/mcpform/mcpform/examples/internal/accounts"
)

// The store is examples/internal/accounts', shared with examples/mcpgo:
// SQL for replicas, or, without -db, memAccounts (memstore.go).
type store = accounts.Store

// openStore opens the store of dsn (see accounts.Open), with -db-conns
// connections at most to PostgreSQL, or for "" a store in the process's
// memory, the fastest for one process.
func openStore(ctx context.Context, dsn string) (*store, error) {
	return accounts.Open(ctx, dsn, *dbConns, memory{newMemAccounts()})
}

// memory is memAccounts as the store's accounts.Memory.
type memory struct{ *memAccounts }

func (m memory) Create(run string, a *account) bool { return m.create(run, a) }
func (m memory) SetPassword(email, principal, salt, hash string) bool {
	return m.setPassword(email, principal, salt, hash)
}
