package mcpformtest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReask sends 51 seats, of at most 50, which go-sdk's own client
// refuses to send: on every host the server asks again, naming the
// problem and the field's label, and a good answer finishes.
func TestReask(t *testing.T) {
	bad := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 51})
	good := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 5})
	for _, host := range mcpformtest.Hosts() {
		t.Run(host.Name, func(t *testing.T) {
			server, _ := newTestServer(t)
			res := mcpformtest.NewClient(t, server, host).Call(context.Background(), "signup", nil, bad, good)
			assert.Equal(t, "Signed up ada@example.com for 5 seats", res.Text)
			require.Len(t, res.Rounds, 3)
			assert.Empty(t, res.Rounds[0].Problems)
			assert.Equal(t, []string{"Seats must be from 1 to 50"}, res.Rounds[1].Problems)
			assert.Equal(t, []mcpformtest.Question{{Name: "email", Label: "Email", Default: "ada@example.com"}, {Name: "seats", Label: "Seats"}},
				res.Rounds[1].Questions, "the good answer comes back as the default")
			assert.Contains(t, res.Rounds[1].Message, "Sign up")
		})
	}
	t.Run("go-sdk's client refuses it", func(t *testing.T) {
		server, _ := newTestServer(t)
		client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk", Version: "v0"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: bad.Values}, nil
			}})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), st, nil)
		require.NoError(t, err)
		defer ss.Close()
		cs, err := client.Connect(context.Background(), ct, nil)
		require.NoError(t, err)
		defer cs.Close()
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "does not match requested schema")
	})
}

// TestReplay sends a finished call's last params again, on the same
// session and on another: a form's answers still read, with no round
// more. A state tampered with is refused with -32602.
func TestReplay(t *testing.T) {
	server, _ := newTestServer(t)
	ctx := context.Background()
	c := mcpformtest.NewClient(t, server, mcpformtest.Full)
	res := c.Call(ctx, "signup", nil, mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 2}))
	require.Equal(t, "Signed up ada@example.com for 2 seats", res.Text)
	for name, c := range map[string]*mcpformtest.Client{"same session": c, "another": mcpformtest.NewClient(t, server, mcpformtest.Full)} {
		again := c.Replay(ctx, res.Last)
		assert.Equal(t, res.Text, again.Text, name)
		assert.Len(t, again.Rounds, 1, name)
	}
	// On the bare host the state rides in the arguments, as the model
	// sends them back.
	c = mcpformtest.NewClient(t, server, mcpformtest.Bare)
	res = c.Call(ctx, "signup", nil, mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 2}))
	require.Equal(t, "Signed up ada@example.com for 2 seats", res.Text)
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal(res.Last, &p))
	p.Arguments[mcpform.StateArgument] = p.Arguments[mcpform.StateArgument].(string) + "x"
	tampered, _ := json.Marshal(p)
	bad := c.Replay(ctx, tampered)
	require.NotNil(t, bad.Err)
	assert.EqualValues(t, -32602, bad.Err.Code)
	assert.Equal(t, mcpformtest.PathOutcome, bad.Path)
}

// TestScriptRunsOut: a host whose person gives no answer cancels the
// form, which the tool reports; the model, with no answer, calls nothing
// more, and the call ends on its question.
func TestScriptRunsOut(t *testing.T) {
	server, _ := newTestServer(t)
	res := mcpformtest.NewClient(t, server, mcpformtest.Full).Call(context.Background(), "signup", nil)
	assert.Equal(t, "Not signed up.", res.Text)
	res = mcpformtest.NewClient(t, server, mcpformtest.Bare).Call(context.Background(), "signup", nil)
	assert.Equal(t, mcpformtest.PathModel, res.Path)
	assert.Len(t, res.Rounds, 1)
}
