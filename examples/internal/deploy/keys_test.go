package deploy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewCodec: keys come from the environment's value, comma-separated
// hex of at least 32 bytes each; a bad one is refused without quoting it,
// and none at all makes a random key, with a warning naming the server.
func TestNewCodec(t *testing.T) {
	good, other := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	for _, tt := range []struct {
		name, env, err string
	}{
		{"one key", good, ""},
		{"two keys, spaces", good + " , " + other, ""},
		{"empty key", good + ",", "key 1 is empty"},
		{"not hex", "zz" + good[2:], "key 0 is not hex"},
		{"too short", "a1a1", "key 0 has 2 bytes; want at least 32 (64 hex digits)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var warn bytes.Buffer
			c, err := NewCodec(tt.env, &warn, "srv")
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				assert.NotContains(t, err.Error(), tt.env, "the value is a secret")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, c)
			assert.Empty(t, warn.String())
		})
	}
	var warn bytes.Buffer
	c, err := NewCodec("", &warn, "srv")
	require.NoError(t, err)
	require.NotNil(t, c)
	assert.Contains(t, warn.String(), "srv: warning: "+KeyEnv+" is not set")
}
