package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the demo as `go run ./examples/mcpgo` does: the team plan,
// one refused answer asked again by name, and the account created.
func TestDemo(t *testing.T) {
	s, err := newSignup(make([]byte, 32))
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	err = demo(newServer(s))
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(out), "? "), "%s", out)
	assert.Contains(t, string(out), "Please check: Seats: less than the minimum 2.")
	assert.True(t, strings.HasSuffix(string(out), "Welcome, ada@example.com: team plan for Analytical, 5 seats\n"), "%s", out)
	var runs int
	require.NoError(t, s.db.QueryRow("SELECT COUNT(*) FROM mcpform_outcomes WHERE result IS NOT NULL").Scan(&runs))
	assert.Equal(t, 1, runs, "the run's outcome is stored")
}
