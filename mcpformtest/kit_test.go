package mcpformtest_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	ada  = map[string]any{"email": "ada@example.com"}
	pin  = map[string]string{"pin": "1234"}
	paid = mcpformtest.Answer{Values: ada, Secrets: pin}
)

// paths returns the path of each of res's rounds.
func paths(res *mcpformtest.Result) []mcpformtest.Path {
	var out []mcpformtest.Path
	for _, r := range res.Rounds {
		out = append(out, r.Path)
	}
	return out
}

// TestHostKinds sets a PIN on each host, each asking its own way: the
// form and the page in one native round, a form then a link, an
// elicitation/create then a link, a view that links to the page, and the
// model, given the link too. The page is posted wherever it is linked.
func TestHostKinds(t *testing.T) {
	const (
		form, legacy      = mcpformtest.PathForm, mcpformtest.PathLegacy
		view, model, link = mcpformtest.PathView, mcpformtest.PathModel, mcpformtest.PathLink
		done              = mcpformtest.PathOutcome
	)
	for _, tt := range []struct {
		host  mcpformtest.Host
		paths []mcpformtest.Path
		asked [][]string // the questions of each round
	}{
		{mcpformtest.Full, []mcpformtest.Path{form, done}, [][]string{{"email"}, nil}},
		{mcpformtest.CLI, []mcpformtest.Path{form, link, done}, [][]string{{"email"}, nil, nil}},
		{mcpformtest.Editor, []mcpformtest.Path{legacy, link, done}, [][]string{{"email"}, nil, nil}},
		{mcpformtest.AppsOnly, []mcpformtest.Path{view, done}, [][]string{{"email"}, nil}},
		{mcpformtest.Bare, []mcpformtest.Path{model, done}, [][]string{{"email"}, nil}},
	} {
		t.Run(tt.host.Name, func(t *testing.T) {
			server, page := newTestServer(t)
			c := mcpformtest.NewClient(t, server, tt.host)
			c.Pages = page
			res := c.Call(context.Background(), "set_pin", nil, paid, paid)
			assert.Equal(t, "PIN set for ada@example.com", res.Text)
			assert.Equal(t, tt.paths, paths(res))
			var asked [][]string
			posted := 0
			for _, r := range res.Rounds {
				asked = append(asked, r.Names())
				if r.Page != 0 {
					assert.Equal(t, 200, r.Page)
					assert.True(t, strings.HasPrefix(r.Link, "https://pages.test/secret?t="), r.Link)
					posted++
				}
			}
			assert.Equal(t, tt.asked, asked)
			assert.Equal(t, 1, posted, "pages posted")
			for _, m := range c.Wire() {
				assert.NotContains(t, m, `"1234"`, "the PIN crossed the MCP wire")
			}
		})
	}
}

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
			assert.Equal(t, []string{"Seats: greater than the maximum 50"}, res.Rounds[1].Problems)
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
	assert.Equal(t, []string{"Shorter than 4 characters."}, first.Problems)
	assert.Equal(t, mcpformtest.PathURL, second.Path, "the form was taken; the page alone is asked")
	assert.Equal(t, first.Link, second.Link)
	assert.Equal(t, 200, second.Page)
	assert.Equal(t, []string{"PIN: the page for it is still waiting"}, second.Problems)
	assert.Equal(t, "PIN set for ada@example.com", res.Text)
	for _, m := range c.Wire() {
		assert.NotContains(t, m, `"12"`)
		assert.NotContains(t, m, `"1234"`)
	}
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

// TestPipe runs the server over a stream, as a stdio server is, rather
// than go-sdk's in-memory transport.
func TestPipe(t *testing.T) {
	server, _ := newTestServer(t)
	tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
	})
	res := mcpformtest.Dial(t, tr, mcpformtest.Editor).Call(context.Background(), "signup", nil,
		mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 0}),
		mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 1}))
	assert.Equal(t, "Signed up ada@example.com for 1 seats", res.Text)
	require.Len(t, res.Rounds, 3)
	assert.Equal(t, []string{"Seats: less than the minimum 1"}, res.Rounds[1].Problems)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
