package mcpform

import (
	"context"
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

	require.NoError(t, s.Put(ctx, "k", "v", expires))
	assert.ErrorIs(t, s.Put(ctx, "k", "other", expires), ErrSecretUsed, "a key is stored once")
	v, ok, err := s.Get(ctx, "k")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "v", v)

	require.NoError(t, s.Delete(ctx, "k"))
	_, ok, _ = s.Get(ctx, "k")
	assert.False(t, ok, "deleted")
	assert.ErrorIs(t, s.Put(ctx, "k", "again", expires), ErrSecretUsed, "still used after Delete")
	require.NoError(t, s.Delete(ctx, "missing"))

	require.NoError(t, s.Put(ctx, "late", "v", expires))
	clock.t = expires
	_, ok, _ = s.Get(ctx, "late")
	assert.False(t, ok, "expired")

	// Past the memory of used keys, the entry is gone for good.
	clock.t = expires.Add(usedFor + time.Second)
	require.NoError(t, s.Put(ctx, "other", "v", clock.t.Add(time.Minute)))
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
