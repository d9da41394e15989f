package mcpform

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientKey is where the tests put the name of a session's client, as an
// HTTP server puts the remote address in the initialize request's context.
type clientKey struct{}

func clientFromContext(ctx context.Context, _ *mcp.CallToolRequest) string {
	s, _ := ctx.Value(clientKey{}).(string)
	return s
}

// TestLegacyClientBounds: one client, however many sessions it opens,
// cannot fill the server's bound on waiting calls and starve another
// client. Client A abandons calls on three sessions and is refused beyond
// MaxCallsPerClient; client B is still asked. A client Client cannot name
// is bounded per session and in all only. Before, A's sessions filled
// MaxCalls and B was refused.
func TestLegacyClientBounds(t *testing.T) {
	server := askServer(t, &LegacyOptions{Timeout: time.Hour, MaxCallsPerSession: 2, MaxCallsPerClient: 3, MaxCalls: 6,
		Client: clientFromContext})
	in := func(name string) context.Context { return context.WithValue(context.Background(), clientKey{}, name) }
	wait := func(c *rawClient, asked, replies int) {
		t.Helper()
		require.Eventually(t, func() bool {
			gotAsked, gotReplies := c.counts()
			return gotAsked == asked && gotReplies == replies+1
		}, 5*time.Second, time.Millisecond)
	}
	const clientFull = "-32603 mcpform: this client has 3 calls waiting for input already, the most it may; answer or cancel one first"
	// Each session's calls settle before the next session opens, so
	// that which of them are asked is known.
	var a []*rawClient
	for i, want := range []int{2, 1, 0} {
		c := newRawClientIn(t, in("A"), server, true)
		a = append(a, c)
		c.call(t, fmt.Sprint("a", i, "-"), 2)
		wait(c, want, 2-want)
		if want < 2 {
			assert.Equal(t, map[string]int{clientFull: 2 - want}, c.errors(), "session %d of A", i)
		}
	}

	b := newRawClientIn(t, in("B"), server, true)
	b.call(t, "b", 2)
	wait(b, 2, 0)

	// Unnamed clients share the rest, one session's bound each.
	u1, u2 := newRawClient(t, server, true), newRawClient(t, server, true)
	u1.call(t, "u", 1)
	wait(u1, 1, 0)
	u2.call(t, "u", 1)
	wait(u2, 0, 1)
	assert.Equal(t, map[string]int{
		"-32603 mcpform: the server has 6 calls waiting for input, the most it serves at once; try again later": 1,
	}, u2.errors())

	// A call that ends makes room for its client.
	require.NoError(t, a[0].conn.Close())
	require.Eventually(t, func() bool {
		a[1].call(t, fmt.Sprint("retry", time.Now().UnixNano()), 1)
		time.Sleep(10 * time.Millisecond)
		n, _ := a[1].counts()
		return n == 2
	}, 5*time.Second, 20*time.Millisecond, "A is asked again once one of its calls ends")
}

func TestLegacyClientDefaults(t *testing.T) {
	for _, tt := range []struct {
		name string
		req  *mcp.CallToolRequest
		want string
	}{
		{"authenticated", &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}}, "user:alice"},
		{"no user ID", &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{}}}, ""},
		{"no auth", &mcp.CallToolRequest{Extra: &mcp.RequestExtra{}}, ""},
		{"no extra", &mcp.CallToolRequest{}, ""},
		{"nil", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, defaultClient(context.Background(), tt.req)) })
	}
	for _, tt := range []struct {
		perClient, total, want int
	}{{0, 0, 32}, {0, 40, 10}, {0, 2, 1}, {5, 0, 5}, {-1, 1000, 32}} {
		t.Run(fmt.Sprint(tt.perClient, "/", tt.total), func(t *testing.T) {
			assert.Equal(t, tt.want, newCallBounds(0, tt.perClient, tt.total).perClient)
		})
	}
}
