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

// fromAddress returns an HTTP client whose connections come from the
// loopback address ip, or skips where the system has no such address.
func fromAddress(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("no loopback address %s here (%v): clients from several addresses need Linux's 127/8", ip, err)
	}
	ln.Close()
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestSessionsPerClient: one address may open MaxSessionsPerClient
// sessions, and then gets 503 while another address is still served, and
// a session's tool calls know the address that opened it, which the
// legacy rounds bound calls by.
func TestSessionsPerClient(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "who", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: legacyClient(ctx, req)}}}, nil
		})
	ts := httptest.NewServer(newHTTPHandler(server, httpLimits{SessionTimeout: time.Minute, MaxSessions: 10, MaxSessionsPerClient: 2}))
	t.Cleanup(ts.Close) // after the sessions' own cleanups
	connect := func(ip string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: ip, Version: "v0"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: ts.URL, MaxRetries: -1, HTTPClient: fromAddress(t, ip)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err == nil {
			t.Cleanup(func() { cs.Close() })
		}
		return cs, err
	}
	var a []*mcp.ClientSession
	for range 2 {
		cs, err := connect("127.0.0.2")
		require.NoError(t, err)
		a = append(a, cs)
	}
	_, err := connect("127.0.0.2")
	require.Error(t, err, "a third session of the same address")
	assert.Contains(t, err.Error(), http.StatusText(http.StatusServiceUnavailable))

	b, err := connect("127.0.0.3")
	require.NoError(t, err, "another address is served")
	res, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: "who"})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.3", res.Content[0].(*mcp.TextContent).Text, "the client the legacy rounds see")

	// A session that closes makes room for its address.
	require.NoError(t, a[0].Close())
	require.Eventually(t, func() bool {
		_, err := connect("127.0.0.2")
		return err == nil
	}, 5*time.Second, 50*time.Millisecond)
}
