package main

import (
	"context"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
)

// TestHandlerForgedState runs the README's handler against a forged
// state in the arguments, where the view and model paths carry theirs, on
// every host: the server does not panic, and nothing is created; the form
// is asked afresh, and the script's end cancels it. (A Form's native
// path carries no state of mcpform's: its input responses are the
// client's answers, with or without a requestState, by design.)
func TestHandlerForgedState(t *testing.T) {
	for _, host := range mcpformtest.Hosts() {
		for name, params := range map[string]string{
			"arguments":      `{"name":"signup","arguments":{"mcpform":"v1.Zm9yZ2Vk.Zm9yZ2Vk","email":"eve@example.com","plan":"pro"}}`,
			"not a string":   `{"name":"signup","arguments":{"mcpform":{"a":1},"email":"eve@example.com","plan":"pro"}}`,
			"a view's marks": `{"name":"signup","arguments":{"mcpform":"x","mcpformTool":"signup","mcpformAction":"render"}}`,
		} {
			t.Run(host.Name+"/"+name, func(t *testing.T) {
				res := mcpformtest.NewClient(t, newServer(), host).Replay(context.Background(), []byte(params))
				assert.NotContains(t, res.Text, "Created", "a forged state creates nothing")
			})
		}
	}
}
