package main

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTPSmoke runs one signup over the example's HTTP handler, for a
// client of each generation. The end-to-end suite, in e2e/, runs the built
// binary through everything else.
func TestHTTPSmoke(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s, st := newTestSignup(t)
			ts := httptest.NewServer(newHTTPHandler(newServer(s), httpLimits{SessionTimeout: time.Minute, MaxSessions: 10}))
			defer ts.Close()
			client := mcp.NewClient(&mcp.Implementation{Name: "smoke", Version: "v0"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "pro"}}, nil
				},
			})
			ctx := context.Background()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName})
			require.NoError(t, err)
			assert.Equal(t, "created", status(t, res), "%+v", res.Content)
			assert.Equal(t, []account{{Email: "ada@example.com", Plan: "pro"}}, storedAccounts(t, st))
		})
	}
}

// TestPrincipal checks whom request state is bound to: the bearer token's
// user behind auth, and the one local principal without.
func TestPrincipal(t *testing.T) {
	s, _ := newTestSignup(t)
	for _, tt := range []struct {
		name  string
		extra *mcp.RequestExtra
		want  string // "" for an error
	}{
		{"no transport info", nil, "local"},
		{"no auth", &mcp.RequestExtra{}, "local"},
		{"a token's user", &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}, "user:alice"},
		{"a token without a user", &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.principalOf(&mcp.CallToolRequest{Extra: tt.extra})
			if tt.want == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
