package mcpformtest_test

import (
	"context"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretPage: the page refuses a PIN too short, in its own words,
// which the round reports; the server says the page is still waiting;
// the next answer's PIN is taken. Neither PIN crosses the MCP wire.
func TestSecretPage(t *testing.T) {
	server, page := newTestServer(t)
	c := mcpformtest.NewClient(t, server, mcpformtest.Full)
	c.Pages = page
	short := mcpformtest.Answer{Values: ada, Secrets: map[string]string{"pin": "12"}}
	res := c.Call(context.Background(), "set_pin", nil, short, paid)
	require.Len(t, res.Rounds, 3)
	first, second := res.Rounds[0], res.Rounds[1]
	assert.Equal(t, 422, first.Page)
	assert.Equal(t, []string{"PIN must be 4 to 8 characters."}, first.Problems)
	assert.Equal(t, mcpformtest.PathURL, second.Path, "the form was taken; the page alone is asked")
	assert.Equal(t, first.Link, second.Link)
	assert.Equal(t, 200, second.Page)
	assert.Equal(t, []string{"Check PIN: the page for it is still waiting"}, second.Problems)
	assert.Equal(t, "PIN set for ada@example.com", res.Text)
	for _, m := range c.Wire() {
		assert.NotContains(t, m, `"12"`)
		assert.NotContains(t, m, `"1234"`)
	}
}
