package mcpform

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretLinkClaim: a link is claimed once, ever, and leaves no value
// in the store; only the proof its claim gave proves it, and a refusal is
// recorded once, for every replica sharing the store.
func TestSecretLinkClaim(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	store := NewMemorySecretStore()
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	link := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-1", Step: "password"}
	other := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-2", Step: "password"}

	proof, err := link.claim(ctx, store, codec, expires)
	require.NoError(t, err)
	_, err = link.claim(ctx, store, codec, expires)
	assert.ErrorIs(t, err, ErrSecretUsed, "a second opening")
	_, held, err := store.Get(ctx, link.keyFor(linkOpened))
	require.NoError(t, err)
	assert.False(t, held, "the claim is the store's record of a used key, not a value")
	otherProof, err := other.claim(ctx, store, codec, expires)
	require.NoError(t, err)

	for _, tt := range []struct {
		name   string
		cookie *http.Cookie
		want   bool
	}{
		{"its proof", &http.Cookie{Name: link.cookieName(), Value: proof}, true},
		{"no cookie", nil, false},
		{"another link's proof", &http.Cookie{Name: link.cookieName(), Value: otherProof}, false},
		{"a forged proof", &http.Cookie{Name: link.cookieName(), Value: proof + "x"}, false},
		{"its proof under another name", &http.Cookie{Name: other.cookieName(), Value: proof}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/secret", nil)
			if tt.cookie != nil {
				r.AddCookie(tt.cookie)
			}
			assert.Equal(t, tt.want, link.holds(r, codec))
		})
	}

	refused, err := link.refused(ctx, store)
	require.NoError(t, err)
	assert.False(t, refused)
	for range 2 {
		require.NoError(t, link.refuse(ctx, store, expires), "refusing twice is refusing")
	}
	refused, err = link.refused(ctx, store)
	require.NoError(t, err)
	assert.True(t, refused)
	refused, err = other.refused(ctx, store)
	require.NoError(t, err)
	assert.False(t, refused, "a refusal is the link's own")
}
