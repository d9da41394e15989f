package mcpformtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestScript hands out the answers in turn, then cancels; an empty
// action accepts.
func TestScript(t *testing.T) {
	s := script{{}, Decline()}
	var got []string
	for range 4 {
		got = append(got, s.next().action())
	}
	assert.Equal(t, []string{"accept", "decline", "cancel", "cancel"}, got)
	assert.Equal(t, Answer{Action: "accept", Values: map[string]any{"a": 1}}, Accept(map[string]any{"a": 1}))
}
