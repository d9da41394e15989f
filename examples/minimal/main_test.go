package main

import (
	"context"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the demo: the bad email is asked again, and the good one
// creates the account.
func TestDemo(t *testing.T) {
	res, err := demo(context.Background(), newServer())
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "Created ada@example.com on pro with 3 seat(s)", res.Content[0].(*mcp.TextContent).Text)
}

// TestHosts finishes a signup on each kind of host, each asked its own
// way. The first answers are ones go-sdk's own client would refuse to
// send, an email without an @ and 51 seats of at most 50: every host
// shows the server's re-ask, naming both, and the second answers finish.
func TestHosts(t *testing.T) {
	bad := mcpformtest.Accept(map[string]any{"email": "ada.example.com", "plan": "pro", "seats": 51})
	good := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro", "seats": 3})
	for _, tt := range []struct {
		host mcpformtest.Host
		path mcpformtest.Path
	}{
		{mcpformtest.Full, mcpformtest.PathNative},
		{mcpformtest.CLI, mcpformtest.PathNative},
		{mcpformtest.Editor, mcpformtest.PathLegacy},
		{mcpformtest.AppsOnly, mcpformtest.PathView},
		{mcpformtest.Bare, mcpformtest.PathModel},
	} {
		t.Run(tt.host.Name, func(t *testing.T) {
			c := mcpformtest.NewClient(t, newServer(), tt.host)
			res := c.Call(context.Background(), "signup", nil, bad, good)
			require.Nil(t, res.Err)
			assert.Equal(t, "Created ada@example.com on pro with 3 seat(s)", res.Text)
			require.Len(t, res.Rounds, 3)
			for i, problems := range [][]string{nil, {"Email must be an email address, like name@example.com", "Seats must be from 1 to 50"}} {
				r := res.Rounds[i]
				assert.Equal(t, tt.path, r.Path, "round %d", i+1)
				assert.Equal(t, []string{"email", "plan", "seats"}, r.Names(), "round %d", i+1)
				assert.Equal(t, problems, r.Problems, "round %d", i+1)
			}
		})
	}
}

// TestHostsDecline: a person who declines on any host is told so, and
// nothing is created.
func TestHostsDecline(t *testing.T) {
	for _, host := range mcpformtest.Hosts() {
		t.Run(host.Name, func(t *testing.T) {
			res := mcpformtest.NewClient(t, newServer(), host).Call(context.Background(), "signup", nil, mcpformtest.Decline())
			assert.Equal(t, mcpformtest.PathOutcome, res.Path)
			assert.Equal(t, "Signup not completed.", res.Text)
			assert.Len(t, res.Rounds, 2)
		})
	}
}
