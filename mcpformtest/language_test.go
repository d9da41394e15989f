package mcpformtest_test

import (
	"context"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProblemsInEveryLanguage: the fields a re-ask refuses are reported
// from what the server sends for machines, on every path, the same in
// Spanish as in English, and the words of the problems are the person's
// language.
func TestProblemsInEveryLanguage(t *testing.T) {
	bad := mcpformtest.Accept(map[string]any{"email": "ada@", "seats": 51})
	for _, host := range []mcpformtest.Host{mcpformtest.Full, mcpformtest.CLI, mcpformtest.Editor, mcpformtest.AppsOnly, mcpformtest.Bare} {
		t.Run(host.Name, func(t *testing.T) {
			reask := map[string]mcpformtest.Round{}
			for _, lang := range []string{"en", "es-ES,es;q=0.9"} {
				h := host
				h.Language = lang
				res := mcpformtest.NewClient(t, newServer(t), h).Call(context.Background(), "signup", nil, bad)
				require.GreaterOrEqual(t, len(res.Rounds), 2, "the first ask and its re-ask")
				reask[lang[:2]] = res.Rounds[1]
			}
			en, es := reask["en"], reask["es"]
			assert.Equal(t, []string{"email", "seats"}, en.Fields)
			assert.Equal(t, en.Fields, es.Fields, "the same fields in Spanish")
			assert.Equal(t, []string{"Email must be an email address, like name@example.com", "Seats must be from 1 to 50"}, en.Problems)
			require.Len(t, es.Problems, 2, "the Spanish re-ask's problems")
			assert.NotEqual(t, en.Problems, es.Problems, "the words are Spanish")
		})
	}
}
