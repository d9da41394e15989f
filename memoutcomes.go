package mcpform

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MemoryOutcomes is an [Outcomes] in one process's memory: the fast store
// for a server without replicas, and for tests. Its Once keeps
// [SQLStore.Once]'s promises within the process: a duplicate waits for
// the running do and gets its outcome; a do that fails, panics or returns
// nil releases the run, so the next call runs do again; an outcome is
// kept, and replays get it, for the store's keep. Nothing is leased, so
// no running do loses its claim; and what a process keeps in memory ends
// with it, so after a restart a replay runs do again: use [SQLStore] when
// that matters, or when replicas serve the same runs. Expired outcomes
// are dropped in small batches as the store is used, so memory is
// bounded by the outcomes a replay can still reach. Its zero value is not
// usable; make one with [NewMemoryOutcomes].
type MemoryOutcomes struct {
	keep time.Duration
	now  func() time.Time

	mu      sync.Mutex
	pending map[memKey]*memRun // claimed runs, undecided
	done    map[memKey]memDone // decided runs and their outcomes
	order   []memClaim         // claims, oldest first, from head
	head    int
}

// A memKey is a run's key as MemoryOutcomes keeps it: 128 bits of its
// SHA-256, fixed in size and held in place rather than as a string of its
// own. Two keys share a run only if SHA-256 collides on those bits.
type memKey [16]byte

func memKeyOf(key string) memKey {
	sum := sha256.Sum256([]byte(key))
	return memKey(sum[:16])
}

// A memRun is the claim of a run being decided. The channel a duplicate
// waits on is made only when a duplicate comes, and closed when the
// holder decides or releases the run.
type memRun struct {
	wait    chan struct{}
	expires int64
}

// memClaim is a claim in the order of expiry; expires is in Unix
// nanoseconds, the smallest form of the time.
type memClaim struct {
	key     memKey
	expires int64
}

// A memDone is a decided run: its outcome's JSON, as do returned it, and
// when the run expires. A string rather than a []byte: it is never
// written again, and is one word smaller.
type memDone struct {
	outcome string
	expires int64
}

// memSweepBatch is how many expired outcomes a call drops at most.
const memSweepBatch = 64

// NewMemoryOutcomes returns an empty MemoryOutcomes that keeps each
// outcome for keep after its claim; zero or less means 24 hours. keep
// also bounds how long a run of a flow that keeps its outcomes here may
// last, from its first call: a state of an older run is refused as
// expired, so that no replay outlives the outcome it should get.
func NewMemoryOutcomes(keep time.Duration) *MemoryOutcomes {
	if keep <= 0 {
		keep = 24 * time.Hour
	}
	return &MemoryOutcomes{keep: keep, now: time.Now, pending: map[memKey]*memRun{}, done: map[memKey]memDone{}}
}

// Once implements [Outcomes].
func (m *MemoryOutcomes) Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if do == nil {
		return nil, errors.New("mcpform: MemoryOutcomes.Once without a function")
	}
	return onceDecoded(ctx, m, key, do)
}

// onceJSON is Once on the outcome's JSON.
func (m *MemoryOutcomes) onceJSON(ctx context.Context, s string, do func(context.Context) ([]byte, error)) ([]byte, error) {
	key := memKeyOf(s)
	for {
		m.mu.Lock()
		m.sweep()
		if d, ok := m.done[key]; ok {
			m.mu.Unlock()
			return []byte(d.outcome), nil
		}
		r, ok := m.pending[key]
		if !ok {
			r = &memRun{expires: m.now().Add(m.keep).UnixNano()}
			m.pending[key] = r
			m.order = append(m.order, memClaim{key, r.expires})
			m.mu.Unlock()
			return m.decide(ctx, key, r, do)
		}
		if r.wait == nil {
			r.wait = make(chan struct{})
		}
		wait := r.wait
		m.mu.Unlock()
		select {
		case <-wait: // decided, or released: look again
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// decide calls do for the run r, which this call holds, and stores its
// result, or releases r when there is none.
func (m *MemoryOutcomes) decide(ctx context.Context, key memKey, r *memRun, do func(context.Context) ([]byte, error)) ([]byte, error) {
	returned := false
	defer func() {
		if !returned { // do panicked: as if it failed
			m.release(key, r)
		}
	}()
	blob, err := do(ctx)
	returned = true
	if err == nil && blob == nil {
		err = errOutcomeNil
	}
	if err != nil {
		m.release(key, r)
		return nil, err
	}
	kept := string(blob) // a copy: the caller gets blob back, and may change it
	m.mu.Lock()
	if m.pending[key] == r { // else its claim expired while do ran
		delete(m.pending, key)
		m.done[key] = memDone{kept, r.expires}
	}
	r.wake()
	m.mu.Unlock()
	return blob, nil
}

// release forgets the claim r on key, so that the next call claims it.
func (m *MemoryOutcomes) release(key memKey, r *memRun) {
	m.mu.Lock()
	if m.pending[key] == r {
		delete(m.pending, key)
	}
	r.wake()
	m.mu.Unlock()
}

// wake wakes the duplicates waiting for r, if any; m.mu is held.
func (r *memRun) wake() {
	if r.wait != nil {
		close(r.wait)
		r.wait = nil
	}
}

// sweep drops at most memSweepBatch claims and outcomes that have
// expired, oldest first; m.mu is held.
func (m *MemoryOutcomes) sweep() {
	now := m.now().UnixNano()
	for range memSweepBatch {
		if m.head == len(m.order) || now < m.order[m.head].expires {
			break
		}
		c := m.order[m.head]
		if d, ok := m.done[c.key]; ok && d.expires <= now {
			delete(m.done, c.key)
		}
		if r, ok := m.pending[c.key]; ok && r.expires <= now {
			delete(m.pending, c.key)
		}
		m.head++
	}
	if m.head > 0 && m.head >= len(m.order)/2 {
		m.order = append(m.order[:0], m.order[m.head:]...)
		m.head = 0
	}
}

// LookupOutcome implements [Outcomes].
func (m *MemoryOutcomes) LookupOutcome(ctx context.Context, key string) (*mcp.CallToolResult, bool, error) {
	return lookupDecoded(ctx, m, key)
}

// lookupJSON is LookupOutcome of the outcome's JSON.
func (m *MemoryOutcomes) lookupJSON(_ context.Context, key string) ([]byte, bool, error) {
	k := memKeyOf(key)
	m.mu.Lock()
	d, ok := m.done[k]
	_, claimed := m.pending[k]
	m.mu.Unlock()
	if !ok {
		return nil, claimed, nil
	}
	return []byte(d.outcome), true, nil
}

// outcomeKeep is how long m keeps an outcome, which bounds how long a run
// of a flow that stores its outcomes in m may last.
func (m *MemoryOutcomes) outcomeKeep() time.Duration { return m.keep }
