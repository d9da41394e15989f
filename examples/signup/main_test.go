package main

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
