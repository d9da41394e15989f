package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the demo as `go run ./examples/mcpgo` does: the team plan,
// one refused answer asked again by name, and the account created, with
// the text examples/signup gives.
func TestDemo(t *testing.T) {
	st, err := openStore(context.Background(), "")
	require.NoError(t, err)
	defer st.Close()
	codec, err := deploy.NewCodec(func(string) string { return "" }, io.Discard, "mcpform mcpgo")
	require.NoError(t, err)
	s, err := newSignup(codec, st, "", "")
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, demo(s, newServer(s), &out))
	assert.Equal(t, 3, strings.Count(out.String(), "? "), "%s", out.String())
	assert.Contains(t, out.String(), "Seats must be from 2 to 50.")
	assert.True(t, strings.HasSuffix(out.String(),
		"Signup complete: created Ada Lovelace <ada@example.com> on the Team plan for \"Analytical Engines\", 12 seats.\n"), "%s", out.String())
	var n int
	require.NoError(t, st.DB.QueryRow("SELECT COUNT(*) FROM accounts WHERE principal = 'local'").Scan(&n))
	assert.Equal(t, 1, n, "the account is stored, bound to the local principal")
}
