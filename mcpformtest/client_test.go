package mcpformtest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
	assert.Equal(t, []string{"Seats must be from 1 to 50"}, res.Rounds[1].Problems)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestDialHTTP runs the server behind streamable HTTP, an http.Handler,
// for a host of each revision: go-sdk serves 2026-07-28 statelessly, and
// 2025-11-25, whose legacy rounds need a session, statefully.
func TestDialHTTP(t *testing.T) {
	server, _ := newTestServer(t)
	for _, host := range []mcpformtest.Host{mcpformtest.Full, mcpformtest.Editor} {
		t.Run(host.Name, func(t *testing.T) {
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
				&mcp.StreamableHTTPOptions{Stateless: host.Protocol == mcpformtest.Latest}))
			t.Cleanup(ts.Close) // after the client's own cleanup
			c := mcpformtest.Dial(t, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, host)
			res := c.Call(context.Background(), "signup", nil,
				mcpformtest.Accept(map[string]any{"email": "ada", "seats": 2}),
				mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 2}))
			assert.Equal(t, "Signed up ada@example.com for 2 seats", res.Text)
			require.Len(t, res.Rounds, 3)
			assert.Equal(t, []string{"Email must be an email address, like name@example.com"}, res.Rounds[1].Problems)
		})
	}
}
