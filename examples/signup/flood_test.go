package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionCapClosesIdlest: sessions left idle, as a flood from many
// addresses leaves them, no longer lock a new client out until the
// session timeout. At the cap, an initialize closes the session idle
// longest; only when every session has a request open is it refused.
func TestSessionCapClosesIdlest(t *testing.T) {
	const max = 3
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	release := make(chan struct{})
	var waiting atomic.Int32
	server.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			waiting.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{}, nil
		})
	server.AddTool(&mcp.Tool{Name: "now", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	ts := httptest.NewServer(newHTTPHandler(server, httpLimits{SessionTimeout: time.Hour, MaxSessions: max}))
	t.Cleanup(ts.Close)
	connect := func() (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "v0"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			t.Cleanup(func() { cs.Close() })
		}
		return cs, err
	}
	ids := func() map[string]bool {
		m := map[string]bool{}
		for ss := range server.Sessions() {
			m[ss.ID()] = true
		}
		return m
	}

	var flood []*mcp.ClientSession
	for range max {
		cs, err := connect()
		require.NoError(t, err)
		flood = append(flood, cs)
		time.Sleep(5 * time.Millisecond) // distinct idle times
	}
	// The second is used last: the first is idle longest.
	_, err := flood[1].CallTool(context.Background(), &mcp.CallToolParams{Name: "now"})
	require.NoError(t, err)

	var newest *mcp.ClientSession
	t.Run("a new client closes the idlest", func(t *testing.T) {
		cs, err := connect()
		newest = cs
		require.NoError(t, err, "a new client at the cap of idle sessions")
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "now"})
		require.NoError(t, err)
		got := ids()
		assert.Len(t, got, max)
		assert.False(t, got[flood[0].ID()], "the session idle longest is closed")
		assert.True(t, got[flood[1].ID()])
		assert.True(t, got[flood[2].ID()])
	})

	t.Run("busy sessions are kept", func(t *testing.T) {
		require.NotNil(t, newest, "the new client above")
		// Every open session has a call waiting: none may be closed.
		for _, cs := range append(flood[1:], newest) {
			go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait"})
		}
		require.Eventually(t, func() bool { return waiting.Load() == max }, 5*time.Second, 5*time.Millisecond)
		before := ids()
		_, err := connect()
		assert.Error(t, err, "503: every session has a request open")
		assert.Equal(t, before, ids())
		close(release) // before the clients close, which waits for their calls
	})
}
