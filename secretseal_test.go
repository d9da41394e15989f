package mcpform

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.True(t, strings.HasPrefix(raw, sealedPrefix))
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
			"short":     sealedPrefix + "AAAA",
			"not b64":   sealedPrefix + "!!!",
			"bit flip":  raw[:len(raw)-2] + string(raw[len(raw)-2]^1) + raw[len(raw)-1:],
			"no prefix": strings.TrimPrefix(raw, sealedPrefix),
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
