package mcpform

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/token"
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

func sealCodec(t *testing.T, keys ...[]byte) *RequestStateCodec {
	t.Helper()
	c, err := NewRequestStateCodec(RequestStateOptions{Keys: keys, Bind: true})
	require.NoError(t, err)
	return c
}

func TestSealSecrets(t *testing.T) {
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	oldKey, newKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	inner := NewMemorySecretStore()
	sealed := SealSecrets(inner, sealCodec(t, oldKey))

	const secret = `{"password":"correct horse battery"}`
	require.NoError(t, sealed.PutSecret(ctx, "k", secret, expires))
	raw, ok, err := inner.GetSecret(ctx, "k")
	require.NoError(t, err)
	require.True(t, ok)
	assert.NotContains(t, raw, "correct", "the inner store holds ciphertext")
	assert.True(t, strings.HasPrefix(raw, token.SealedPrefix))
	v, ok, err := sealed.GetSecret(ctx, "k")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, secret, v)

	t.Run("a second PutSecret of a key is refused, as by the inner store", func(t *testing.T) {
		assert.ErrorIs(t, sealed.PutSecret(ctx, "k", "again", expires), ErrSecretUsed)
	})
	t.Run("rotation: a new first key opens what the old one sealed", func(t *testing.T) {
		v, ok, err := SealSecrets(inner, sealCodec(t, newKey, oldKey)).GetSecret(ctx, "k")
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, secret, v)
	})
	t.Run("without the sealing key it does not open", func(t *testing.T) {
		_, ok, err := SealSecrets(inner, sealCodec(t, newKey)).GetSecret(ctx, "k")
		assert.False(t, ok)
		assert.ErrorIs(t, err, errUnsealed)
	})
	t.Run("a value moved under another key does not open", func(t *testing.T) {
		require.NoError(t, inner.PutSecret(ctx, "moved", raw, expires))
		_, ok, err := sealed.GetSecret(ctx, "moved")
		assert.False(t, ok)
		assert.ErrorIs(t, err, errUnsealed)
	})
	t.Run("a damaged or plain value does not open", func(t *testing.T) {
		for key, v := range map[string]string{
			"plain":     secret,
			"short":     token.SealedPrefix + "AAAA",
			"not b64":   token.SealedPrefix + "!!!",
			"bit flip":  raw[:len(raw)-2] + string(raw[len(raw)-2]^1) + raw[len(raw)-1:],
			"no prefix": strings.TrimPrefix(raw, token.SealedPrefix),
		} {
			require.NoError(t, inner.PutSecret(ctx, key, v, expires))
			_, ok, err := sealed.GetSecret(ctx, key)
			assert.False(t, ok, key)
			assert.ErrorIs(t, err, errUnsealed, key)
		}
	})
	t.Run("missing and deleted are not errors", func(t *testing.T) {
		_, ok, err := sealed.GetSecret(ctx, "missing")
		assert.False(t, ok)
		assert.NoError(t, err)
		require.NoError(t, sealed.DeleteSecret(ctx, "k"))
		_, ok, err = sealed.GetSecret(ctx, "k")
		assert.False(t, ok)
		assert.NoError(t, err)
	})
	t.Run("two seals of one value differ", func(t *testing.T) {
		require.NoError(t, sealed.PutSecret(ctx, "a", "same", expires))
		require.NoError(t, sealed.PutSecret(ctx, "b", "same", expires))
		a, _, _ := inner.GetSecret(ctx, "a")
		b, _, _ := inner.GetSecret(ctx, "b")
		assert.NotEqual(t, a, b)
	})
}

// TestSecretFlowSealed runs the secret page's round trip over a sealed
// store: the flow still gets the secret, and the store never holds it.
func TestSecretFlowSealed(t *testing.T) {
	fx := newSecretFixture(t, nil)
	inner := NewMemorySecretStore()
	flow, err := NewFlow(fx.codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: fx.page.URL + "/secret", Store: SealSecrets(inner, fx.codec)}})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	link := pageLink(t, r)
	page, err := flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)
	fx.page.Config.Handler = page
	assert.Equal(t, http.StatusOK, send(t, link, "correct horse battery"))
	inner.mu.Lock()
	for _, e := range inner.entries {
		assert.NotContains(t, e.value, "correct")
	}
	inner.mu.Unlock()
	done, err := flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{
		"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}))
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, "correct horse battery", done.Answers["password"])
}
