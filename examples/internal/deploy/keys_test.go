package deploy

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envOf returns a getenv of the environment env.
func envOf(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}

// TestNewCodec: keys come from the environment's values, comma-separated
// hex of at least 32 bytes each; a bad one is refused without quoting it,
// and none at all makes a random key, with a warning naming the server.
func TestNewCodec(t *testing.T) {
	good, other := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	for _, tt := range []struct {
		name        string
		env, verify string
		err         string
	}{
		{"one key", good, "", ""},
		{"two keys, spaces", good + " , " + other, "", ""},
		{"empty key", good + ",", "", KeyEnv + ": key 1 is empty"},
		{"not hex", "zz" + good[2:], "", KeyEnv + ": key 0 is not hex"},
		{"too short", "a1a1", "", KeyEnv + ": key 0 has 2 bytes; want at least 32 (64 hex digits)"},
		{"a verify-only key", good, other, ""},
		{"two verify-only keys", good, other + "," + strings.Repeat("c3", 32), ""},
		{"verify-only key not hex", good, "zz" + other[2:], VerifyKeyEnv + ": key 0 is not hex"},
		{"verify-only key too short", good, other + ",b2b2", VerifyKeyEnv + ": key 1 has 2 bytes; want at least 32 (64 hex digits)"},
		{"verify-only keys alone", "", other, VerifyKeyEnv + " is set without " + KeyEnv},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var warn bytes.Buffer
			c, err := NewCodec(envOf(map[string]string{KeyEnv: tt.env, VerifyKeyEnv: tt.verify}), &warn, "srv")
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				for _, v := range []string{tt.env, tt.verify} {
					if v != "" {
						assert.NotContains(t, err.Error(), v, "the value is a secret")
					}
				}
				return
			}
			require.NoError(t, err)
			require.NotNil(t, c)
			assert.Empty(t, warn.String())
		})
	}
	var warn bytes.Buffer
	c, err := NewCodec(envOf(nil), &warn, "srv")
	require.NoError(t, err)
	require.NotNil(t, c)
	assert.Contains(t, warn.String(), "srv: warning: "+KeyEnv+" is not set")
}

// TestNewCodecVerifyOnly: a key in VerifyKeyEnv opens what a replica
// that seals with it made, and never seals itself.
func TestNewCodecVerifyOnly(t *testing.T) {
	oldKey, newKey := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	step1, err := NewCodec(envOf(map[string]string{KeyEnv: oldKey, VerifyKeyEnv: newKey}), nil, "srv")
	require.NoError(t, err)
	step2, err := NewCodec(envOf(map[string]string{KeyEnv: newKey, VerifyKeyEnv: oldKey}), nil, "srv")
	require.NoError(t, err)
	oldOnly := codecOf(t, oldKey)

	tok, err := step2.Mint("promoted", "b")
	require.NoError(t, err)
	assert.NoError(t, step1.Verify(tok, "b", nil), "a replica on step 1 opens what one on step 2 minted")
	tok, err = step1.Mint("not yet", "b")
	require.NoError(t, err)
	assert.NoError(t, oldOnly.Verify(tok, "b", nil), "step 1 mints under the old key, which every replica has")
	assert.NoError(t, step2.Verify(tok, "b", nil))
}

func codecOf(t *testing.T, key string) *mcpform.RequestStateCodec {
	k, err := hex.DecodeString(key)
	require.NoError(t, err)
	c, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{k}, Bind: true, TTL: StateTTL})
	require.NoError(t, err)
	return c
}
