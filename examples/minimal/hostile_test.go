package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandlerMeetsHostileCalls runs the README's handler, as served here,
// against the calls a careless or hostile host makes: a round carried
// back with a forged state, with a state past its lifetime, and from a
// client older than 2026-07-28 on a server without AddLegacyRounds. Each
// ends without creating anything, and never in a panic: go-sdk does not
// recover a handler's panic, so one would end the test binary.
func TestHandlerMeetsHostileCalls(t *testing.T) {
	now := time.Now()
	saved := signupForm
	signupForm = newSignupForm(func() time.Time { return now })
	t.Cleanup(func() { signupForm = saved })
	pro := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro", "seats": 3})
	const created = "Created ada@example.com on pro with 3 seat(s)"

	// viewCall returns the client and the call of a view's submit, which
	// carries the form's state.
	viewCall := func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
		c := mcpformtest.NewClient(t, newServer(), mcpformtest.AppsOnly)
		res := c.Call(context.Background(), "signup", nil, pro)
		require.Nil(t, res.Err, "%+v", res.Round)
		require.Equal(t, created, res.Text, "the control: the real state finishes")
		return c, res.Last
	}
	withState := func(t *testing.T, last json.RawMessage, f func(string) string) json.RawMessage {
		var params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
			Meta      map[string]any `json:"_meta,omitempty"`
		}
		require.NoError(t, json.Unmarshal(last, &params))
		state, ok := params.Arguments[mcpform.StateArgument].(string)
		require.True(t, ok, "the view's submit carries the state: %s", last)
		params.Arguments[mcpform.StateArgument] = f(state)
		b, err := json.Marshal(params)
		require.NoError(t, err)
		return b
	}
	for _, tt := range []struct {
		name string
		call func(t *testing.T) (*mcpformtest.Client, json.RawMessage)
	}{
		{"a forged state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := viewCall(t)
			return c, withState(t, last, func(s string) string { return s[:len(s)-4] + "AAAA" })
		}},
		{"a state that is not one", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := viewCall(t)
			return c, withState(t, last, func(string) string { return "v1.forged" })
		}},
		{"an expired state", func(t *testing.T) (*mcpformtest.Client, json.RawMessage) {
			c, last := viewCall(t)
			now = now.Add(time.Hour)
			t.Cleanup(func() { now = now.Add(-time.Hour) })
			return c, last
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, call := tt.call(t)
			res := c.Replay(context.Background(), call)
			assert.NotEqual(t, created, res.Text, "a hostile call creates nothing: %+v", res.Round)
			assert.True(t, res.Err != nil || res.IsError || res.Path != mcpformtest.PathOutcome,
				"it is refused or asked again: %+v", res.Round)
		})
	}

	t.Run("an older client on a server without AddLegacyRounds", func(t *testing.T) {
		// go-sdk bridges the first round itself; a second it cannot.
		server := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
		server.AddTool(&mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}}, signup)
		bad := mcpformtest.Accept(map[string]any{"email": "ada.example.com", "plan": "pro", "seats": 3})
		res := mcpformtest.NewClient(t, server, mcpformtest.Editor).Call(context.Background(), "signup", nil, bad, pro)
		assert.NotEqual(t, created, res.Text, "the bad answer creates nothing: %+v", res.Round)
		assert.True(t, res.Err != nil || res.IsError, "the call ends in an error the host can show: %+v", res.Round)

		res = mcpformtest.NewClient(t, server, mcpformtest.Editor).Call(context.Background(), "signup", nil, pro)
		assert.Equal(t, created, res.Text, "a good first answer finishes: %+v", res.Round)
	})
}

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
