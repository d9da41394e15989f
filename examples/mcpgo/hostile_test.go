package main

import (
	"context"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandlersRefuseBadStates runs the example's signup handler, on
// mcp-go's face, against a forged state, natively and in the arguments:
// each call ends in -32602, the server does not panic, and no account is
// created.
func TestHandlersRefuseBadStates(t *testing.T) {
	st, err := openStore(context.Background(), "")
	require.NoError(t, err)
	defer st.Close()
	codec, err := deploy.NewCodec("", io.Discard, "mcpform mcpgo")
	require.NoError(t, err)
	s, err := newSignup(codec, st, "", "")
	require.NoError(t, err)
	for _, tt := range []struct {
		name   string
		host   mcpformtest.Host
		params string
	}{
		{"forged requestState", mcpformtest.Full, `{"name":"signup","requestState":"v1.Zm9yZ2Vk.Zm9yZ2Vk",` +
			`"inputResponses":{"account":{"action":"accept","content":{"email":"eve@example.com"}}}}`},
		{"forged state in the arguments", mcpformtest.Bare, `{"name":"signup","arguments":{"mcpform":"v1.Zm9yZ2Vk.Zm9yZ2Vk","email":"eve@example.com"}}`},
		{"a state that is not a string", mcpformtest.Bare, `{"name":"signup","arguments":{"mcpform":{"a":1}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(s)
			tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
				stdio := server.NewStdioServer(srv)
				stdio.SetContextFunc(s.withPrincipal)
				return stdio.Listen(ctx, in, out)
			})
			res := mcpformtest.Dial(t, tr, tt.host).Replay(context.Background(), []byte(tt.params))
			require.NotNil(t, res.Err, "%s", res.Text)
			assert.Equal(t, int64(-32602), res.Err.Code, res.Err.Message)
		})
	}
	var n int
	require.NoError(t, st.DB.QueryRow("SELECT COUNT(*) FROM accounts").Scan(&n))
	assert.Zero(t, n, "no account is created")
}
