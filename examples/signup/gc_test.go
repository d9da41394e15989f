package main

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGCPercent: without GOGC in the environment, the server collects at
// defaultGCPercent, not Go's 100.
func TestGCPercent(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set, and wins")
	}
	got := debug.SetGCPercent(defaultGCPercent)
	assert.Equal(t, 400, got)
}
