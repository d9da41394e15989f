package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSmoke runs a whole session for a moment, against both servers: each
// completes signups of both plans, with no failure, and the table compares
// them. It says nothing of speed.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example and starts Node")
	}
	cfg := config{Clients: []int{1, 3}, Duration: 300 * time.Millisecond, Count: 1, Plan: "mix",
		Servers: []string{"go", "ts"}, Node: testenv.Node(t), Root: testenv.Root(t)}
	require.NoError(t, cfg.check())
	var out strings.Builder
	runs, err := run(context.Background(), cfg, &out)
	require.NoError(t, err, "output so far:\n%s", out.String())
	require.Len(t, runs, 4)
	for _, r := range runs {
		assert.Positive(t, r.signups, "%s at c=%d completed no signup", r.server, r.clients)
		assert.Zero(t, r.errors, "%s at c=%d", r.server, r.clients)
		assert.Positive(t, r.peak, "%s's peak memory", r.server)
		assert.Positive(t, r.p99, "%s's p99", r.server)
	}
	assert.Contains(t, out.String(), "| clients | signups/s, Go ÷ TS |")
}

func TestConfigCheck(t *testing.T) {
	good := config{Clients: []int{1}, Duration: time.Second, Count: 1, Plan: "pro", Servers: []string{"go", "ts"}}
	require.NoError(t, good.check())
	for name, mutate := range map[string]func(*config){
		"no duration":    func(c *config) { c.Duration = 0 },
		"no runs":        func(c *config) { c.Count = 0 },
		"unknown plan":   func(c *config) { c.Plan = "gold" },
		"unknown server": func(c *config) { c.Servers = []string{"rust"} },
	} {
		t.Run(name, func(t *testing.T) {
			c := good
			mutate(&c)
			assert.Error(t, c.check())
		})
	}
	_, err := parseInts("1,x")
	assert.Error(t, err)
	n, err := parseInts("1, 16,64")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 16, 64}, n)
}
