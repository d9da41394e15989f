package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClientOf(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"192.0.2.7:5000", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:5000", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:5000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:80", "fe80::/64"},
		{"pipe", ""},
	} {
		t.Run(tt.remote, func(t *testing.T) {
			assert.Equal(t, tt.want, clientOf(&http.Request{RemoteAddr: tt.remote}))
		})
	}
}

// TestSessionKnowsItsClient: a session's tool calls know the address
// that opened it, which the legacy rounds bound calls by. The caps per
// address are e2e's (TestKitSessionsPerClient).
func TestSessionKnowsItsClient(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "who", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: legacyClient(ctx, req)}}}, nil
		})
	ts := httptest.NewServer(newHTTPHandler(server, httpLimits{SessionTimeout: time.Minute, MaxSessions: 10, MaxSessionsPerClient: 2}))
	t.Cleanup(ts.Close) // after the session's own cleanup
	// From 127.0.0.3, so that no default could pass for the address.
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	client := mcp.NewClient(&mcp.Implementation{Name: "who", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Skipf("no loopback address 127.0.0.3 here (%v): this needs Linux's 127/8", err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "who"})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.3", res.Content[0].(*mcp.TextContent).Text, "the client the legacy rounds see")
}
