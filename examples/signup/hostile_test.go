package main

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandlersRefuseBadStates runs the example's handlers, signup and
// set_password, against a forged state (natively and in the arguments)
// and an expired one: each call ends in an error, the server does not
// panic, and no account is created.
func TestHandlersRefuseBadStates(t *testing.T) {
	s, st := newTestSignup(t)
	for _, tool := range []string{toolName, "set_password"} {
		for _, tt := range []struct {
			name   string
			host   mcpformtest.Host
			params string
		}{
			{"forged requestState", mcpformtest.Full, `{"name":"` + tool + `","requestState":"v1.Zm9yZ2Vk.Zm9yZ2Vk",` +
				`"inputResponses":{"account":{"action":"accept","content":{"email":"eve@example.com"}}}}`},
			{"forged state in the arguments", mcpformtest.Bare, `{"name":"` + tool + `","arguments":{"mcpform":"v1.Zm9yZ2Vk.Zm9yZ2Vk","email":"eve@example.com"}}`},
			{"a state that is not a string", mcpformtest.Bare, `{"name":"` + tool + `","arguments":{"mcpform":{"a":1}}}`},
		} {
			t.Run(tool+"/"+tt.name, func(t *testing.T) {
				res := mcpformtest.NewClient(t, newServer(s), tt.host).Replay(context.Background(), []byte(tt.params))
				require.NotNil(t, res.Err, "%s", res.Text)
				assert.Equal(t, int64(-32602), res.Err.Code, res.Err.Message)
			})
		}
	}
	t.Run("expired", func(t *testing.T) {
		key, err := hex.DecodeString(strings.Repeat("a1", 32))
		require.NoError(t, err)
		past, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true, TTL: deploy.StateTTL,
			Now: func() time.Time { return time.Now().Add(-2 * deploy.StateTTL) }})
		require.NoError(t, err)
		then, err := newSignup(past, st, "", "")
		require.NoError(t, err)
		first := mcpformtest.NewClient(t, newServer(then), mcpformtest.Full).Call(context.Background(), toolName, nil, mcpformtest.Cancel())
		require.Nil(t, first.Err)
		require.Contains(t, string(first.Last), "requestState")
		res := mcpformtest.NewClient(t, newServer(s), mcpformtest.Full).Replay(context.Background(), first.Last)
		require.NotNil(t, res.Err, "%s", res.Text)
		assert.Equal(t, int64(-32602), res.Err.Code, res.Err.Message)
	})
	assert.Empty(t, storedAccounts(t, st))
}
