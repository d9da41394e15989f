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
// are dropped in small batches as the store is used. Outcomes are kept
// compressed against a recent one, which is therefore kept up to twice
// the keep. Its zero value is not usable; make one with
// [NewMemoryOutcomes].
type MemoryOutcomes struct {
	keep time.Duration
	now  func() time.Time
	pack memPacker

	mu    sync.Mutex
	runs  map[memKey]*memRun
	order []memClaim // claims, oldest first, from head
	head  int
}

// A memKey is a run's key as MemoryOutcomes keeps it: 128 bits of its
// SHA-256, fixed in size and held in place rather than as a string of its
// own. Two keys share a run only if SHA-256 collides on those bits.
type memKey [16]byte

func memKeyOf(key string) memKey {
	sum := sha256.Sum256([]byte(key))
	return memKey(sum[:16])
}

// A memRun is one run's claim: its outcome once decided, as pack kept
// it. What a kept outcome costs is what the store holds for each finished
// run, so the channel a duplicate waits on is made only when a duplicate
// comes while the run is undecided, and closed when its holder decides or
// releases it.
type memRun struct {
	result string   // "" while undecided
	dict   *memDict // what result is compressed against; nil: as it is
	wait   chan struct{}
}

// memClaim is a claim in the order of expiry; expires is in Unix
// nanoseconds, the smallest form of the time.
type memClaim struct {
	key     memKey
	run     *memRun
	expires int64
}

// memSweepBatch is how many expired outcomes a call drops at most.
const memSweepBatch = 64

// NewMemoryOutcomes returns an empty MemoryOutcomes that keeps each
// outcome for keep after its claim. keep must outlast the flow's request
// state (its codec's TTL), or a late replay runs again; zero or less
// means 24 hours.
func NewMemoryOutcomes(keep time.Duration) *MemoryOutcomes {
	if keep <= 0 {
		keep = 24 * time.Hour
	}
	return &MemoryOutcomes{keep: keep, now: time.Now, runs: map[memKey]*memRun{}}
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
		r, ok := m.runs[key]
		if !ok {
			r = &memRun{}
			m.runs[key] = r
			m.order = append(m.order, memClaim{key, r, m.now().Add(m.keep).UnixNano()})
			m.mu.Unlock()
			return m.decide(ctx, key, r, do)
		}
		first, dict := r.result, r.dict
		if first == "" && r.wait == nil {
			r.wait = make(chan struct{})
		}
		wait := r.wait
		m.mu.Unlock()
		if first != "" {
			return unpack(first, dict)
		}
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
	if err == nil && len(blob) == 0 { // an empty outcome is none: "" is undecided
		err = errOutcomeNil
	}
	if err != nil {
		m.release(key, r)
		return nil, err
	}
	kept, dict := m.pack.pack(blob, m.now().UnixNano(), int64(m.keep))
	m.mu.Lock()
	r.result, r.dict = kept, dict
	r.wake()
	m.mu.Unlock()
	return blob, nil
}

// release forgets the claim r on key, so that the next call claims it.
func (m *MemoryOutcomes) release(key memKey, r *memRun) {
	m.mu.Lock()
	if m.runs[key] == r {
		delete(m.runs, key)
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

// sweep drops at most memSweepBatch outcomes that have expired, oldest
// first; m.mu is held.
func (m *MemoryOutcomes) sweep() {
	now := m.now().UnixNano()
	for range memSweepBatch {
		if m.head == len(m.order) || now < m.order[m.head].expires {
			break
		}
		c := m.order[m.head]
		if m.runs[c.key] == c.run {
			delete(m.runs, c.key)
		}
		m.order[m.head] = memClaim{}
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
	r, ok := m.runs[k]
	var first string
	var dict *memDict
	if ok {
		first, dict = r.result, r.dict
	}
	m.mu.Unlock()
	if first == "" {
		return nil, ok, nil
	}
	blob, err := unpack(first, dict)
	return blob, err == nil, err
}
