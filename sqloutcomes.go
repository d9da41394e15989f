package mcpform

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outcomeColumns are the columns of [SQLStore]'s outcome table.
const outcomeColumns = `run_key TEXT PRIMARY KEY, claim TEXT NOT NULL, lease_ms BIGINT NOT NULL,
	result TEXT, created_ms BIGINT NOT NULL`

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
	// sweepEvery is how often a store deletes the outcomes older than
	// its Keep.
	sweepEvery = time.Hour
)

// Once implements [Outcomes]. Claiming a run is one INSERT … ON CONFLICT
// DO NOTHING, and storing its outcome one UPDATE. A duplicate reads the
// run's row until the outcome is there, or until the claim's lease has
// lapsed; then it takes the claim over, and calls its own do.
func (s *SQLStore) Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if do == nil {
		return nil, errors.New("mcpform: SQLStore.Once without a function")
	}
	return onceDecoded(ctx, s, key, do)
}

// onceJSON is Once on the outcome's JSON, whichever SDK's result it is.
func (s *SQLStore) onceJSON(ctx context.Context, key string, do func(context.Context) ([]byte, error)) ([]byte, error) {
	if err := s.ensure(ctx, s.outcomeTable, outcomeColumns); err != nil {
		return nil, err
	}
	if err := s.sweep(ctx); err != nil {
		return nil, err
	}
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(id[:])
	insert, wait := true, pollFirst
	for {
		first, until, gone, err := s.claim(ctx, key, token, insert)
		switch {
		case err != nil:
			return nil, err
		case first != nil:
			return first, nil
		case !until.IsZero():
			return s.decide(ctx, key, token, until, do)
		}
		insert = gone // the holder released it: claim it afresh
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}

// claim tries to take key with token. It returns the outcome stored under
// key, or when the claim is now token's, until when it holds; neither
// while another holds it, and gone when there is no row to read.
func (s *SQLStore) claim(ctx context.Context, key, token string, insert bool) (first []byte, until time.Time, gone bool, err error) {
	now := s.now()
	lease := now.Add(s.lease)
	if insert {
		res, err := s.db.ExecContext(ctx, "INSERT INTO "+s.outcomeTable+
			" (run_key, claim, lease_ms, created_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (run_key) DO NOTHING",
			key, token, lease.UnixMilli(), now.UnixMilli())
		if err != nil {
			return nil, time.Time{}, false, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return nil, lease, false, err
		}
	}
	var result sql.NullString
	var held int64
	err = s.db.QueryRowContext(ctx, "SELECT result, lease_ms FROM "+s.outcomeTable+" WHERE run_key = $1", key).
		Scan(&result, &held)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, time.Time{}, true, nil
	case err != nil:
		return nil, time.Time{}, false, err
	case result.Valid:
		return []byte(result.String), time.Time{}, false, nil
	case held > now.UnixMilli():
		return nil, time.Time{}, false, nil
	}
	// The holder's lease has lapsed: take the claim over, unless another
	// waiter has just done so.
	res, err := s.db.ExecContext(ctx, "UPDATE "+s.outcomeTable+
		" SET claim = $1, lease_ms = $2 WHERE run_key = $3 AND result IS NULL AND lease_ms = $4",
		token, lease.UnixMilli(), key, held)
	if err != nil {
		return nil, time.Time{}, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return nil, lease, false, err
	}
	return nil, time.Time{}, false, nil
}

// decide calls do under token's claim on key, which holds until until,
// and stores its result, or releases the claim when there is none.
func (s *SQLStore) decide(ctx context.Context, key, token string, until time.Time, do func(context.Context) ([]byte, error)) ([]byte, error) {
	dctx, cancel := context.WithDeadline(ctx, until)
	blob, err := do(dctx)
	cancel()
	if err == nil && blob == nil {
		err = errOutcomeNil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err != nil {
		_, rerr := s.db.ExecContext(rctx, "DELETE FROM "+s.outcomeTable+
			" WHERE run_key = $1 AND claim = $2 AND result IS NULL", key, token)
		return nil, errors.Join(err, rerr)
	}
	r, err := s.db.ExecContext(rctx, "UPDATE "+s.outcomeTable+
		" SET result = $1 WHERE run_key = $2 AND result IS NULL", string(blob), key)
	if err != nil {
		return nil, err
	}
	if n, err := r.RowsAffected(); err != nil || n == 1 {
		return blob, err
	}
	// Our lease lapsed, and the one who took the claim over decided first.
	first, _, err := s.lookupJSON(rctx, key)
	if err == nil && first == nil {
		err = errors.New("mcpform: the outcome of a run was deleted before it was stored")
	}
	return first, err
}

// Lookup implements [Outcomes].
func (s *SQLStore) Lookup(ctx context.Context, key string) (*mcp.CallToolResult, bool, error) {
	return lookupDecoded(ctx, s, key)
}

// lookupJSON is Lookup of the outcome's JSON.
func (s *SQLStore) lookupJSON(ctx context.Context, key string) ([]byte, bool, error) {
	if err := s.ensure(ctx, s.outcomeTable, outcomeColumns); err != nil {
		return nil, false, err
	}
	var result sql.NullString
	err := s.db.QueryRowContext(ctx, "SELECT result FROM "+s.outcomeTable+" WHERE run_key = $1", key).Scan(&result)
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

// sweep deletes the outcomes older than the store's Keep, at most once
// every sweepEvery per store, so that the table holds only what a replay
// can still reach.
func (s *SQLStore) sweep(ctx context.Context) error {
	now := s.now()
	s.mu.Lock()
	due := now.Sub(s.lastSweep) >= sweepEvery
	if due {
		s.lastSweep = now
	}
	s.mu.Unlock()
	if !due {
		return nil
	}
	_, err := s.db.ExecContext(ctx, "DELETE FROM "+s.outcomeTable+" WHERE created_ms < $1", now.Add(-s.keep).UnixMilli())
	return err
}
