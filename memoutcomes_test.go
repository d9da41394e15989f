package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoryOutcomesOnce checks MemoryOutcomes against what SQLStore.Once
// documents, within one process: replays get the first outcome; a
// duplicate during a slow finish waits for it; a do that fails, returns
// nil or panics releases the run for the next call; waiting ends with
// the context.
func TestMemoryOutcomesOnce(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryOutcomes(0)

	t.Run("replays get the first outcome", func(t *testing.T) {
		var calls atomic.Int32
		first := outcome("first")
		got, err := m.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) { calls.Add(1); return first, nil })
		require.NoError(t, err)
		assert.Same(t, first, got)
		for range 3 {
			again, err := m.Once(ctx, "run-1", counted(&calls, "replay"))
			require.NoError(t, err)
			assert.Equal(t, first, again)
		}
		assert.EqualValues(t, 1, calls.Load())
		found, ok, err := m.LookupOutcome(ctx, "run-1")
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, "first", textOf(found))
	})

	t.Run("duplicates during a slow finish wait for its outcome", func(t *testing.T) {
		var calls atomic.Int32
		const dups = 8
		entered, release := make(chan struct{}), make(chan struct{})
		results := make([]string, dups)
		var wg sync.WaitGroup
		wg.Go(func() {
			got, err := m.Once(ctx, "run-2", func(context.Context) (*mcp.CallToolResult, error) {
				calls.Add(1)
				close(entered)
				<-release
				return outcome("slow first"), nil
			})
			assert.NoError(t, err)
			assert.Equal(t, "slow first", textOf(got))
		})
		<-entered
		for i := range dups {
			wg.Go(func() {
				got, err := m.Once(ctx, "run-2", counted(&calls, "duplicate"))
				assert.NoError(t, err)
				results[i] = textOf(got)
			})
		}
		first, found, err := m.LookupOutcome(ctx, "run-2")
		require.NoError(t, err)
		assert.True(t, found, "claimed")
		assert.Nil(t, first, "not decided")
		close(release)
		wg.Wait()
		for i, r := range results {
			assert.Equal(t, "slow first", r, "duplicate %d", i)
		}
		assert.EqualValues(t, 1, calls.Load(), "side effects run")
	})

	for name, do := range map[string]func(context.Context) (*mcp.CallToolResult, error){
		"fails":      func(context.Context) (*mcp.CallToolResult, error) { return nil, errors.New("boom") },
		"is nil":     func(context.Context) (*mcp.CallToolResult, error) { return nil, nil },
		"panics":     func(context.Context) (*mcp.CallToolResult, error) { panic("boom") },
		"ends early": func(context.Context) (*mcp.CallToolResult, error) { return nil, context.Canceled },
	} {
		t.Run("a do that "+name+" releases the run", func(t *testing.T) {
			key := "released-" + name
			entered, waiting := make(chan struct{}), make(chan struct{})
			var dup string
			var wg sync.WaitGroup
			wg.Go(func() {
				<-entered
				close(waiting)
				got, err := m.Once(ctx, key, func(context.Context) (*mcp.CallToolResult, error) { return outcome("duplicate ran"), nil })
				assert.NoError(t, err)
				dup = textOf(got)
			})
			func() {
				defer func() { recover() }()
				_, err := m.Once(ctx, key, func(c context.Context) (*mcp.CallToolResult, error) {
					close(entered)
					<-waiting
					return do(c)
				})
				assert.Error(t, err)
			}()
			wg.Wait()
			assert.Equal(t, "duplicate ran", dup, "the next call runs its do")
		})
	}

	t.Run("waiting ends with the context", func(t *testing.T) {
		entered, release := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			m.Once(ctx, "run-3", func(context.Context) (*mcp.CallToolResult, error) {
				close(entered)
				<-release
				return outcome("late"), nil
			})
		})
		<-entered
		short, cancel := context.WithCancel(ctx)
		cancel()
		var calls atomic.Int32
		_, err := m.Once(short, "run-3", counted(&calls, "never"))
		assert.ErrorIs(t, err, context.Canceled)
		close(release)
		wg.Wait()
		assert.Zero(t, calls.Load())
	})
}

// TestMemoryOutcomesSweep checks that outcomes are dropped once kept for
// keep, at most a batch per call, so that the store holds only what a
// replay can still reach and no call pays for all of it.
func TestMemoryOutcomesSweep(t *testing.T) {
	ctx := context.Background()
	clock := &flowClock{t: time.Unix(1_800_000_000, 0)}
	m := NewMemoryOutcomes(time.Hour)
	m.now = clock.now
	const n = 3*memSweepBatch + 5
	for i := range n {
		_, err := m.Once(ctx, fmt.Sprint("run-", i), counted(new(atomic.Int32), "old"))
		require.NoError(t, err)
	}
	clock.t = clock.t.Add(time.Hour + time.Second)
	size := func() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.done) + len(m.pending) }
	var sizes []int
	for i := range 4 {
		_, err := m.Once(ctx, fmt.Sprint("new-", i), counted(new(atomic.Int32), "new"))
		require.NoError(t, err)
		sizes = append(sizes, size())
	}
	assert.Equal(t, []int{n - memSweepBatch + 1, n - 2*memSweepBatch + 2, n - 3*memSweepBatch + 3, 4}, sizes)
	var calls atomic.Int32
	got, err := m.Once(ctx, "run-0", counted(&calls, "after keep"))
	require.NoError(t, err)
	assert.Equal(t, "after keep", textOf(got), "an outcome past keep is gone")
	m.mu.Lock()
	assert.LessOrEqual(t, len(m.order)-m.head, 5, "the queue of claims shrinks too")
	kept := []memKey{}
	for k := range m.done {
		kept = append(kept, k)
	}
	want := []memKey{memKeyOf("new-0"), memKeyOf("new-1"), memKeyOf("new-2"), memKeyOf("new-3"), memKeyOf("run-0")}
	assert.ElementsMatch(t, want, kept, "the memory of expired outcomes is freed")
	m.mu.Unlock()
}

// BenchmarkMemoryOutcomesOnce measures a first finish on MemoryOutcomes,
// beside BenchmarkSQLStoreOnce, and the bytes it keeps for it: a
// signup's outcome, with its key.
func BenchmarkMemoryOutcomesOnce(b *testing.B) {
	m := NewMemoryOutcomes(0)
	ctx := context.Background()
	dos := signupDos(1000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for ; b.Loop(); n++ {
		if _, err := m.Once(ctx, runIdempotencyKey(fmt.Sprint(n)), dos[n%len(dos)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "kept-B/op")
	runtime.KeepAlive(m)
}

// signupDos returns n dos, each of a signup of its own person.
func signupDos(n int) []func(context.Context) (*mcp.CallToolResult, error) {
	dos := make([]func(context.Context) (*mcp.CallToolResult, error), n)
	for i := range dos {
		var res mcp.CallToolResult
		if err := json.Unmarshal(signupOutcome(fmt.Sprint("Person ", i), fmt.Sprintf("person-%d@example.com", i)), &res); err != nil {
			panic(err)
		}
		dos[i] = func(context.Context) (*mcp.CallToolResult, error) { return &res, nil }
	}
	return dos
}

// signupOutcome is the JSON of a signup's outcome for email, as a tool
// returns it.
func signupOutcome(name, email string) []byte {
	return fmt.Appendf(nil, `{"content":[{"type":"text","text":"Signup complete: created %s <%s> on the Pro plan."}],`+
		`"structuredContent":{"status":"created","account":{"email":%q,"full_name":%q,"plan":"pro"}}}`, name, email, email, name)
}

// TestMemoryOutcomesKeptSize: what MemoryOutcomes holds for a finished
// run, its outcome and its key included, stays small, since a server
// keeps one for every run its state may still replay: at most 400 bytes
// for a signup's outcome of about 220, kept as it is.
//
// The figure is the live heap's growth over many runs, divided by their
// number, with a collection before each reading. It is robust: the dos,
// keys and results are made before the first reading and are the
// caller's, so only what the store keeps remains; the runs are many, so
// the growth of the map's table and of the queue of claims, which double
// as they fill, is spread over them. Both are in the figure, at their
// worst just after doubling, as they would be in a server.
func TestMemoryOutcomesKeptSize(t *testing.T) {
	const runs = 20000
	dos := signupDos(runs)
	keys := make([]string, runs)
	for i := range keys {
		keys[i] = runIdempotencyKey(fmt.Sprint(i))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMemoryOutcomes(0)
	for i, k := range keys {
		_, err := m.Once(context.Background(), k, dos[i])
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRun := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / runs
	outcomeBytes := 0
	m.mu.Lock()
	for _, d := range m.done {
		outcomeBytes += len(d.outcome)
	}
	m.mu.Unlock()
	t.Logf("%.0f bytes kept a run, with its key and outcome of %.0f bytes on average", perRun, float64(outcomeBytes)/runs)
	assert.LessOrEqual(t, perRun, 400.0, "bytes kept a run")
	runtime.KeepAlive(m)
	runtime.KeepAlive(dos)
	runtime.KeepAlive(keys)
}
