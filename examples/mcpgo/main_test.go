package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/examples/internal/terminal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the demo as `printf … | go run ./examples/mcpgo` does:
// the team plan, one refused answer asked again by name, and the account
// created, with the text examples/signup gives, headed for the person.
func TestDemo(t *testing.T) {
	s, st := newDemoSignup(t)
	var out strings.Builder
	input := "ada@example.com\nAda Lovelace\nteam\nAnalytical Engines\n1\n\n12\n"
	_, err := demo(context.Background(), s, newServer(s), strings.NewReader(input), &out, terminal.Options{})
	require.NoError(t, err)
	screen := out.String()
	assert.Contains(t, screen, "mcpform signup demo: a mcp-go client calls the \"signup\" tool.")
	assert.Equal(t, 2, strings.Count(screen, "  Seats ("), "the team step asked twice:\n%s", screen)
	assert.Contains(t, screen, "Seats must be from 2 to 50.")
	assert.True(t, strings.HasSuffix(screen, "\nAccount created\nEmail: ada@example.com\nFull name: Ada Lovelace\nPlan: Team\n"+
		"Team name: Analytical Engines\nSeats: 12\n\n"+
		"Signup complete: created Ada Lovelace <ada@example.com> on the Team plan for \"Analytical Engines\", 12 seats.\n"), "%s", screen)
	var n int
	require.NoError(t, st.DB.QueryRow("SELECT COUNT(*) FROM accounts WHERE principal = 'local'").Scan(&n))
	assert.Equal(t, 1, n, "the account is stored, bound to the local principal")
}

// newDemoSignup returns the tools on a store in memory, sealing with a
// random key and serving the secret page on a loopback port, and the store.
func newDemoSignup(t *testing.T) (*signup, *store) {
	t.Helper()
	st, err := openStore(context.Background(), "")
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	codec, err := deploy.NewCodec(func(string) string { return "" }, io.Discard, "mcpform mcpgo")
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s, err := newSignup(codec, st, "", pageURLOf(ln))
	require.NoError(t, err)
	t.Cleanup(servePage(ln, s.Page))
	return s, st
}

// demoContext is a test's context for a demo: the page's rounds take a
// while under load, and a stuck demo fails rather than hangs.
func demoContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
