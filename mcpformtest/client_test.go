package mcpformtest_test

import (
	"context"
	"io"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPipe runs the server over a stream, as a stdio server is, rather
// than go-sdk's in-memory transport.
func TestPipe(t *testing.T) {
	server, _ := newTestServer(t)
	tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
	})
	res := mcpformtest.Dial(t, tr, mcpformtest.Editor).Call(context.Background(), "signup", nil,
		mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 0}),
		mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 1}))
	assert.Equal(t, "Signed up ada@example.com for 1 seats", res.Text)
	require.Len(t, res.Rounds, 3)
	assert.Equal(t, []string{"Seats: less than the minimum 1"}, res.Rounds[1].Problems)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
