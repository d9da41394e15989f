package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the terminal demo with piped answers, as
// printf '…' | go run ./examples/signup does.
func TestDemo(t *testing.T) {
	for _, tt := range []struct {
		name   string
		input  string
		status string
		want   *account // the account created, if any
		rounds int      // tools/call requests the client made
		shows  []string // what the transcript must show
	}{
		{
			name:   "pro plan",
			input:  "ada@example.com\nAda Lovelace\npro\n",
			status: "created", rounds: 2,
			want: &account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"},
			shows: []string{
				"Create your account",
				"Email (required; an email address)",
				"Full name (optional; up to 100 characters)",
				"Plan (required; one of free, pro, team; default free)",
				"Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan.",
			},
		},
		{
			name:   "team plan takes a second form",
			input:  "ada@example.com\nAda Lovelace\nteam\nAnalytical Engines\n12\n",
			status: "created", rounds: 3,
			want: &account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			shows: []string{
				"Tell us about your team",
				"Team name (required; 2 to 60 characters)",
				"Seats (required; a whole number from 2 to 50; default 5)",
				`accept "team" {"seats":12,"team_name":"Analytical Engines"}`,
			},
		},
		{
			name:   "empty answers take the defaults",
			input:  "ada@example.com\n\n\n",
			status: "created", rounds: 2,
			want:  &account{Email: "ada@example.com", Plan: "free"},
			shows: []string{`→ "free" (the default)`},
		},
		{
			name:   "team seats by default",
			input:  "ada@example.com\n\nteam\nAnalytical Engines\n\n",
			status: "created", rounds: 3,
			want: &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 5},
		},
		{
			name:   "locally invalid answers are asked again",
			input:  "ada\n\nada@example.com\n\nTEAM\nA\nAnalytical Engines\n51\n2.5\ntwelve\n12\n",
			status: "created", rounds: 3,
			want:  &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			shows: []string{"✗ not an email address", "✗ required", "✗ wrong length", "✗ out of range", "✗ not a whole number", "✗ not a number"},
		},
		{
			name:   "the server asks again for what the client let through",
			input:  "ada@example..com\n\npro\nada@example.com\n\npro\n",
			status: "created", rounds: 3,
			want:  &account{Email: "ada@example.com", Plan: "pro"},
			shows: []string{"Please check: Email: not a valid email address."},
		},
		{
			name:   "the last answer needs no newline",
			input:  "ada@example.com\n\npro",
			status: "created", rounds: 2,
			want: &account{Email: "ada@example.com", Plan: "pro"},
		},
		{
			name:   "decline",
			input:  "decline\n",
			status: "declined", rounds: 2,
			shows: []string{"→ decline", `decline "account"`, "Signup not completed: you declined"},
		},
		{
			name:   "cancel at the team form",
			input:  "ada@example.com\n\nteam\nCANCEL\n",
			status: "cancelled", rounds: 3,
			shows: []string{`cancel "team"`, "Signup not completed: the form was cancelled"},
		},
		{
			name:   "no input at all means cancel",
			input:  "",
			status: "cancelled", rounds: 2,
			shows: []string{"(end of input)", "→ cancel"},
		},
		{
			name:   "input that ends early means cancel",
			input:  "ada@example.com\nAda\n",
			status: "cancelled", rounds: 2,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, st := newTestSignup(t)
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := demo(ctx, newServer(s), strings.NewReader(tt.input), &out, false)
			require.NoError(t, err, "transcript:\n%s", out.String())
			transcript := out.String()

			assert.Equal(t, tt.status, status(t, res), "transcript:\n%s", transcript)
			assert.Equal(t, tt.rounds, strings.Count(transcript, "client → tools/call signup"), "transcript:\n%s", transcript)
			for _, s := range tt.shows {
				assert.Contains(t, transcript, s)
			}
			// The final result is the transcript's last word.
			assert.True(t, strings.HasSuffix(strings.TrimSpace(transcript), text(res)), "transcript:\n%s", transcript)
			var want []account
			if tt.want != nil {
				want = []account{*tt.want}
			}
			assert.Equal(t, want, storedAccounts(t, st), "transcript:\n%s", transcript)
		})
	}
}

// TestDemoEchoesOnlyPipedInput checks that answers typed at a terminal,
// which the terminal shows, are not printed a second time.
func TestDemoEchoesOnlyPipedInput(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		s, _ := newTestSignup(t)
		var out bytes.Buffer
		_, err := demo(context.Background(), newServer(s), strings.NewReader("ada@example.com\n\npro\n"), &out, interactive)
		require.NoError(t, err)
		assert.Equal(t, !interactive, strings.Contains(out.String(), "> ada@example.com"), "interactive=%v:\n%s", interactive, out.String())
	}
}

// newTestSignup returns a signup tool on a store in memory, signing with a
// fixed key, and its store.
func newTestSignup(t *testing.T) (*signup, *store) {
	t.Helper()
	codec, err := newCodec(strings.Repeat("a1", 32), io.Discard)
	require.NoError(t, err)
	st, err := openStore(context.Background(), "")
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	s, err := newSignup(codec, st, "")
	require.NoError(t, err)
	return s, st
}

// storedAccounts returns the accounts in st, by email.
func storedAccounts(t *testing.T, st *store) []account {
	t.Helper()
	rows, err := st.db.Query(`SELECT email, full_name, plan, team_name, seats FROM accounts ORDER BY email`)
	require.NoError(t, err)
	defer rows.Close()
	var all []account
	for rows.Next() {
		var a account
		require.NoError(t, rows.Scan(&a.Email, &a.FullName, &a.Plan, &a.TeamName, &a.Seats))
		all = append(all, a)
	}
	require.NoError(t, rows.Err())
	return all
}

// status returns the status a final result reports.
func status(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotNil(t, res)
	m, _ := res.StructuredContent.(map[string]any) // as the client decoded it
	s, _ := m["status"].(string)
	return s
}

// text returns a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
