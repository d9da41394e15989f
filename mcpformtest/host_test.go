package mcpformtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
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
		form, legacy      = mcpformtest.PathNative, mcpformtest.PathLegacy
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
