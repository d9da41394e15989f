package mcpform

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMemorySecretStore(t *testing.T) {
	ctx := context.Background()
	clock := &flowClock{t: time.Unix(1_800_000_000, 0)}
	s := NewMemorySecretStore()
	s.now = clock.now
	expires := clock.t.Add(time.Minute)

	require.NoError(t, s.PutSecret(ctx, "k", "v", expires))
	assert.ErrorIs(t, s.PutSecret(ctx, "k", "other", expires), ErrSecretUsed, "a key is stored once")
	v, ok, err := s.GetSecret(ctx, "k")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "v", v)

	require.NoError(t, s.DeleteSecret(ctx, "k"))
	_, ok, _ = s.GetSecret(ctx, "k")
	assert.False(t, ok, "deleted")
	assert.ErrorIs(t, s.PutSecret(ctx, "k", "again", expires), ErrSecretUsed, "still used after DeleteSecret")
	require.NoError(t, s.DeleteSecret(ctx, "missing"))

	require.NoError(t, s.PutSecret(ctx, "late", "v", expires))
	clock.t = expires
	_, ok, _ = s.GetSecret(ctx, "late")
	assert.False(t, ok, "expired")

	// Past the memory of used keys, the entry is gone for good.
	clock.t = expires.Add(usedFor + time.Second)
	require.NoError(t, s.PutSecret(ctx, "other", "v", clock.t.Add(time.Minute)))
	s.mu.Lock()
	_, kept := s.entries["late"]
	s.mu.Unlock()
	assert.False(t, kept, "swept")
}

func TestSecretLinkKey(t *testing.T) {
	base := secretLink{Principal: "alice", Tool: "set_password", Run: "r1", Step: "password"}
	seen := map[string]bool{base.key(): true}
	for _, l := range []secretLink{
		{Principal: "bob", Tool: "set_password", Run: "r1", Step: "password"},
		{Principal: "alice", Tool: "signup", Run: "r1", Step: "password"},
		{Principal: "alice", Tool: "set_password", Run: "r2", Step: "password"},
		{Principal: "alice", Tool: "set_password", Run: "r1", Step: "other"},
		{Principal: "alice\x00set_password", Tool: "", Run: "r1", Step: "password"},
	} {
		k := l.key()
		assert.False(t, seen[k], "%+v shares a key", l)
		seen[k] = true
		assert.NotContains(t, k, "alice")
	}
}

// TestMemorySecretStoreSweepBounded fills the store with values that
// expire: each PutSecret clears at most a batch of them, soonest first, and
// later forgets at most a batch of used keys, so that no PutSecret walks the
// whole store, and what is swept still ends up swept.
func TestMemorySecretStoreSweepBounded(t *testing.T) {
	ctx := context.Background()
	clock := &flowClock{t: time.Unix(1_800_000_000, 0)}
	s := NewMemorySecretStore()
	s.now = clock.now
	const n = 2*memSecretBatch + 3
	for i := range n {
		// Expiring in reverse order of their Puts.
		require.NoError(t, s.PutSecret(ctx, fmt.Sprint("k", i), "v", clock.t.Add(time.Duration(n-i)*time.Second)))
	}
	held := func() (n int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.entries {
			if e.held {
				n++
			}
		}
		return n
	}
	clock.t = clock.t.Add(time.Duration(n+1) * time.Second)
	var got []int
	for i := range 3 {
		require.NoError(t, s.PutSecret(ctx, fmt.Sprint("new", i), "v", clock.t.Add(time.Hour)))
		got = append(got, held())
	}
	assert.Equal(t, []int{n - memSecretBatch + 1, n - 2*memSecretBatch + 2, 3}, got, "values held after each PutSecret")

	clock.t = clock.t.Add(time.Hour + usedFor + time.Second)
	var sizes []int
	for i := range 4 {
		require.NoError(t, s.PutSecret(ctx, fmt.Sprint("later", i), "v", clock.t.Add(time.Hour)))
		s.mu.Lock()
		sizes = append(sizes, len(s.entries))
		s.mu.Unlock()
	}
	total := n + 3
	assert.Equal(t, []int{total - memSecretBatch + 1, total - 2*memSecretBatch + 2, 3, 4}, sizes,
		"keys after each PutSecret: a batch forgotten, until only the live keys are left")
}
