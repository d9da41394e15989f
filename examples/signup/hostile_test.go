package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestToolsMeetHostileCalls runs the example's handlers, as served, against
// the calls a careless or hostile host makes: a round carried back with a
// forged state, with a state past its lifetime, and from a client older
// than 2026-07-28 that answers no form. Each is refused with a JSON-RPC
// error or an error result the host can show, creates nothing, and never
// panics: go-sdk does not recover a handler's panic, so one would end the
// test binary.
func TestToolsMeetHostileCalls(t *testing.T) {
	now := time.Now()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte(strings.Repeat("k", mcpform.MinRequestStateKeySize))},
		Bind: true, TTL: deploy.StateTTL, Now: func() time.Time { return now },
	})
	require.NoError(t, err)
	s, st := newTestSignupWith(t, codec)
	server := newServer(s)
	pro := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro"})

	// lastCall finishes a Pro signup on host and returns its last call,
	// which carries the state and the answers.
	lastCall := func(t *testing.T, host mcpformtest.Host) (*mcpformtest.Client, json.RawMessage) {
		c := mcpformtest.NewClient(t, server, host)
		res := c.Call(context.Background(), toolName, nil, pro)
		require.Nil(t, res.Err, "%+v", res.Round)
		return c, res.Last
	}
	// withState returns the call last with its state changed by f.
	withState := func(t *testing.T, last json.RawMessage, f func(string) string) json.RawMessage {
		var params map[string]any
		require.NoError(t, json.Unmarshal(last, &params))
		state, ok := params["requestState"].(string)
		require.True(t, ok, "the last call carries a state: %s", last)
		params["requestState"] = f(state)
		b, err := json.Marshal(params)
		require.NoError(t, err)
		return b
	}
	accounts := func() int { return len(storedAccounts(t, st)) }

	for _, tt := range []struct {
		name string
		// call returns the client and the hostile call; a nil call
		// is the tool's first call, with no arguments.
		call func(t *testing.T) (*mcpformtest.Client, json.RawMessage)
		code int64 // the JSON-RPC error wanted; 0 for an error result
	}{
		{"a forged state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, mcpformtest.Full)
			return c, withState(t, last, func(s string) string { return s[:len(s)-4] + "AAAA" })
		}, jsonrpc.CodeInvalidParams},
		{"a state that is not one", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, mcpformtest.Full)
			return c, withState(t, last, func(string) string { return "s1.forged" })
		}, jsonrpc.CodeInvalidParams},
		{"an expired state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, mcpformtest.Full)
			now = now.Add(deploy.StateTTL + time.Hour)
			t.Cleanup(func() { now = now.Add(-deploy.StateTTL - time.Hour) })
			return c, last
		}, jsonrpc.CodeInvalidParams},
		{"set_password, a forged state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			// The person cancels the first round; its call carries the state.
			c := mcpformtest.NewClient(t, server, mcpformtest.Full)
			res := c.Call(context.Background(), passwordTool, nil)
			require.Nil(t, res.Err, "%+v", res.Round)
			return c, withState(t, res.Last, func(s string) string { return s[:len(s)-4] + "AAAA" })
		}, jsonrpc.CodeInvalidParams},
		{"a forged state in the arguments", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			return mcpformtest.NewClient(t, server, mcpformtest.Bare),
				json.RawMessage(`{"name":"signup","arguments":{"mcpform":"v1.Zm9yZ2Vk.Zm9yZ2Vk","email":"eve@example.com","plan":"pro"}}`)
		}, jsonrpc.CodeInvalidParams},
		{"a state in the arguments that is not a string", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			return mcpformtest.NewClient(t, server, mcpformtest.Bare), json.RawMessage(`{"name":"signup","arguments":{"mcpform":{"a":1}}}`)
		}, jsonrpc.CodeInvalidParams},
		{"an older client that answers no form", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			return mcpformtest.NewClient(t, server, mcpformtest.Host{Name: "older, no forms", Protocol: mcpformtest.Legacy}), nil
		}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, call := tt.call(t)
			before := accounts()
			var res *mcpformtest.Result
			if call == nil {
				res = c.Call(context.Background(), toolName, nil, pro)
			} else {
				res = c.Replay(context.Background(), call, pro)
			}
			if tt.code != 0 {
				require.NotNil(t, res.Err, "the call is refused: %+v", res.Round)
				assert.Equal(t, tt.code, res.Err.Code)
			} else {
				require.Nil(t, res.Err)
				assert.True(t, res.IsError, "the call ends in an error result the host can show: %+v", res.Round)
				assert.NotEmpty(t, res.Text)
			}
			assert.Equal(t, before, accounts(), "nothing is created")
		})
	}
}
