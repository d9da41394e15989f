package mcpform

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

func outcomeStatements(t string) []string {
	return []string{
		outClaim:   "INSERT INTO " + t + " (run_key, claim, lease_ms, created_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (run_key) DO NOTHING",
		outRead:    "SELECT result, claim, lease_ms FROM " + t + " WHERE run_key = $1",
		outTake:    "UPDATE " + t + " SET claim = $1, lease_ms = $2 WHERE run_key = $3 AND claim = $4 AND result IS NULL AND lease_ms <= $5",
		outRenew:   "UPDATE " + t + " SET lease_ms = $1 WHERE run_key = $2 AND claim = $3 AND result IS NULL",
		outRecord:  "UPDATE " + t + " SET result = $1 WHERE run_key = $2 AND claim = $3",
		outMark:    "UPDATE " + t + " SET claim = $1, lease_ms = $2 WHERE run_key = $3 AND claim = $4 AND result IS NULL",
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
//   - When do succeeds and its outcome cannot be stored, after a few
//     tries, the run is marked unrecorded instead: that call and every
//     later one, until the row expires (Keep), fail with
//     [ErrOutcomeUnknown], and none calls do again.
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
func (s *SQLStore) onceJSON(ctx context.Context, key string, do func(context.Context) ([]byte, error)) ([]byte, error) {
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
	now := s.now()
	lease := now.Add(s.lease)
	if insert {
		n, err := s.execOutcome(ctx, outClaim, key, token, lease.UnixMilli(), now.UnixMilli())
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
	var until int64
	err = read.QueryRowContext(ctx, key).Scan(&result, &holder, &until)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, true, nil
	case err != nil:
		return nil, false, false, err
	case result.Valid:
		return []byte(result.String), false, false, nil
	case holder == claimUnrecorded:
		return nil, false, false, ErrOutcomeUnknown
	case until > now.UnixMilli():
		return nil, false, false, nil
	case !mayClaim:
		return nil, false, false, ErrOutcomeUnknown
	}
	// The holder's lease has lapsed: take the claim over, unless the
	// holder has just renewed it or another waiter has taken it.
	n, err := s.execOutcome(ctx, outTake, token, lease.UnixMilli(), key, holder, now.UnixMilli())
	return nil, n == 1, false, err
}

// decide calls do under token's claim on key, renewing it while do runs,
// and stores do's result, or releases the claim when there is none.
func (s *SQLStore) decide(ctx context.Context, key, token string, do func(context.Context) ([]byte, error)) ([]byte, error) {
	dctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	r := &renewal{s: s, key: key, token: token, lost: lost, until: s.now().Add(s.lease)}
	r.mu.Lock()
	r.timer = time.AfterFunc(s.lease/3, r.renew)
	r.mu.Unlock()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	returned := false
	defer func() {
		if !returned { // do panicked: as if it failed
			r.stop()
			s.execOutcome(rctx, outRelease, key, token)
		}
	}()
	blob, err := do(dctx)
	returned = true
	if err == nil && blob == nil {
		err = errOutcomeNil
	}
	if err != nil {
		r.stop()
		_, rerr := s.execOutcome(rctx, outRelease, key, token)
		return nil, errors.Join(err, rerr)
	}
	defer r.stop() // renewing while the outcome is stored, tries and all
	return s.record(rctx, key, token, blob)
}

// record stores blob as key's outcome while token holds the claim, trying
// again on errors; when it cannot, it marks the run unrecorded, so that
// no one calls do again.
func (s *SQLStore) record(ctx context.Context, key, token string, blob []byte) ([]byte, error) {
	n, werr := s.retry(ctx, outRecord, string(blob), key, token)
	if werr == nil && n == 1 {
		return blob, nil
	}
	if werr == nil { // another took the claim over: its outcome is the run's
		first, _, err := s.await(ctx, key, token, false)
		return first, err
	}
	n, merr := s.retry(ctx, outMark, claimUnrecorded, s.now().Add(s.keep).UnixMilli(), key, token)
	if merr == nil && n == 0 {
		first, _, err := s.await(ctx, key, token, false)
		return first, err
	}
	return nil, fmt.Errorf("%w (%w)", ErrOutcomeUnknown, errors.Join(werr, merr))
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
	n, err := s.execOutcome(ctx, outRenew, next.UnixMilli(), r.key, r.token)
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
	var until int64
	err = read.QueryRowContext(ctx, key).Scan(&result, &holder, &until)
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
