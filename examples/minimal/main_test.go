package main

import (
	"context"
	"testing"

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
