package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestToolsMeetHostileCalls runs the example's handlers, served by mcp-go
// over its own stdio server, against the calls a careless or hostile host
// makes: a round carried back with a forged state, with a state past its
// lifetime, and from a client older than 2026-07-28 that answers no
// form. Each is refused with -32602 or ends in an error result, and
// creates nothing.
func TestToolsMeetHostileCalls(t *testing.T) {
	now := time.Now()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte(strings.Repeat("k", mcpform.MinRequestStateKeySize))},
		Bind: true, TTL: deploy.StateTTL, Now: func() time.Time { return now },
	})
	require.NoError(t, err)
	st, err := openStore(context.Background(), "")
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s, err := newSignup(codec, st, "", pageURLOf(ln))
	require.NoError(t, err)
	t.Cleanup(servePage(ln, s.Page))
	srv := newServer(s)
	dial := func(t *testing.T, host mcpformtest.Host) *mcpformtest.Client {
		tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
			stdio := server.NewStdioServer(srv)
			stdio.SetContextFunc(s.withPrincipal)
			return stdio.Listen(ctx, in, out)
		})
		return mcpformtest.Dial(t, tr, host)
	}
	accounts := func() (n int) {
		require.NoError(t, st.DB.QueryRow("SELECT COUNT(*) FROM accounts").Scan(&n))
		return n
	}
	pro := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro"})
	lastCall := func(t *testing.T, tool string, answers ...mcpformtest.Answer) (*mcpformtest.Client, json.RawMessage) {
		c := dial(t, mcpformtest.Full)
		res := c.Call(context.Background(), tool, nil, answers...)
		require.Nil(t, res.Err, "%+v", res.Round)
		return c, res.Last
	}
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
	flip := func(s string) string { return s[:len(s)-4] + "AAAA" }

	for _, tt := range []struct {
		name string
		call func(t *testing.T) (*mcpformtest.Client, json.RawMessage) // a nil call is a first call
		code int64                                                     // the JSON-RPC error wanted; 0 for an error result
	}{
		{"a forged state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, toolName, pro)
			return c, withState(t, last, flip)
		}, jsonrpc.CodeInvalidParams},
		{"a state that is not one", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, toolName, pro)
			return c, withState(t, last, func(string) string { return "s1.forged" })
		}, jsonrpc.CodeInvalidParams},
		{"an expired state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, toolName, pro)
			now = now.Add(deploy.StateTTL + time.Hour)
			t.Cleanup(func() { now = now.Add(-deploy.StateTTL - time.Hour) })
			return c, last
		}, jsonrpc.CodeInvalidParams},
		{"set_password, a forged state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := lastCall(t, passwordTool) // the person cancels; the call carries the state
			return c, withState(t, last, flip)
		}, jsonrpc.CodeInvalidParams},
		{"a forged state in the arguments", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			return dial(t, mcpformtest.Bare),
				json.RawMessage(`{"name":"signup","arguments":{"mcpform":"v1.Zm9yZ2Vk.Zm9yZ2Vk","email":"eve@example.com","plan":"pro"}}`)
		}, jsonrpc.CodeInvalidParams},
		{"a state in the arguments that is not a string", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			return dial(t, mcpformtest.Bare), json.RawMessage(`{"name":"signup","arguments":{"mcpform":{"a":1}}}`)
		}, jsonrpc.CodeInvalidParams},
		{"an older client that answers no form", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			return dial(t, mcpformtest.Host{Name: "older, no forms", Protocol: mcpformtest.Legacy}), nil
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
