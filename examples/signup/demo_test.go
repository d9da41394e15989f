package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
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
				"Plan (required; one of these; default free)\n    Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.\n    · free\n    · pro – Pro, $12 a month\n    · team – Team, $10 a seat a month\n",
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
			// The client sends what was typed; the server judges it all,
			// and names every problem in one re-ask.
			name:   "the server judges what the client sends",
			input:  "ada@example.com\n\nTEAM\nA\n51\nAnalytical Engines\n12\n",
			status: "created", rounds: 4,
			want: &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			shows: []string{`accept "team" {"seats":51,"team_name":"A"}`,
				"Please check: Team name: shorter than 2 characters; Seats: greater than the maximum 50."},
		},
		{
			name:   "a required answer left empty",
			input:  "\n\npro\nada@example.com\n\n\n",
			status: "created", rounds: 3,
			want:  &account{Email: "ada@example.com", Plan: "pro"},
			shows: []string{"Please check: Email: missing required value.", "Plan (required; one of these; default pro)"},
		},
		{
			name:   "a number that is not one",
			input:  "ada@example.com\n\nteam\nAnalytical Engines\ntwelve\nAnalytical Engines\n12\n",
			status: "created", rounds: 4,
			want:  &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			shows: []string{`"seats":"twelve"`, "Seats: not a number"},
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
			res, err := demo(ctx, newServer(s), strings.NewReader(tt.input), &out, demoOptions{verbose: true})
			require.NoError(t, err, "transcript:\n%s", out.String())
			transcript := out.String()

			assert.Equal(t, tt.status, status(t, res), "transcript:\n%s", transcript)
			assert.Equal(t, tt.rounds, strings.Count(transcript, "client → tools/call signup"), "transcript:\n%s", transcript)
			for _, s := range tt.shows {
				assert.Contains(t, transcript, s)
			}
			// The final result is the transcript's last word.
			require.Len(t, res.Content, 1)
			final := res.Content[0].(*mcp.TextContent).Text
			assert.True(t, strings.HasSuffix(strings.TrimSpace(transcript), final), "transcript:\n%s", transcript)
			var want []account
			if tt.want != nil {
				want = []account{*tt.want}
			}
			assert.Equal(t, want, storedAccounts(t, st), "transcript:\n%s", transcript)
		})
	}
}

// TestDemoShowsServerReask is the lesson of the demo: the client checks
// nothing, so a bad email reaches the server as typed, and what the person
// sees next is the server's own re-ask, naming the problem, with the good
// answers filled in. The good email then creates the account.
func TestDemoShowsServerReask(t *testing.T) {
	s, st := newTestSignup(t)
	var out bytes.Buffer
	res, err := demo(context.Background(), newServer(s),
		strings.NewReader("ada@example..com\nAda Lovelace\npro\nada@example.com\n\n\n"), &out, demoOptions{verbose: true})
	require.NoError(t, err)
	screen := out.String()

	sent := `accept "account" {"email":"ada@example..com","full_name":"Ada Lovelace","plan":"pro"}`
	reask := "  Create your account\n\n  Please check: Email: not a valid email address.\n"
	require.Contains(t, screen, sent, "the bad email goes to the server as typed")
	require.Contains(t, screen, reask)
	assert.Less(t, strings.Index(screen, sent), strings.Index(screen, reask), "the re-ask answers the bad email")
	assert.Contains(t, screen[strings.Index(screen, reask):], "Full name (optional; up to 100 characters; default Ada Lovelace)",
		"the good answers come back as defaults")
	assert.Equal(t, "created", status(t, res))
	assert.Equal(t, []account{{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"}}, storedAccounts(t, st))
}

// TestDemoSetPassword runs the demo of set_password after a signup: it
// shows the link, plays the browser on the page, whose own check refuses a
// short password, and never shows the password, nor stores it.
func TestDemoSetPassword(t *testing.T) {
	const good = "correct horse battery staple"
	for _, tt := range []struct {
		name, input, status string
		shows               []string
	}{
		{"set after a refusal", "ada@example.com\n\npro\nada@example.com\nshort\n" + good + "\n", "updated", []string{
			`input_required: url "password.secret"`,
			"  Link: http://127.0.0.1:",
			"The demo plays your browser too",
			"browser → POST http://127.0.0.1:",
			": 422 Unprocessable Entity\n\n  The page says: Shorter than 12 characters.",
			"> " + strings.Repeat("•", len(good)) + "\n\nbrowser → POST",
			": 200 OK",
			`accept "password" {"email":"ada@example.com"}` + "\n         accept \"password.secret\"",
			"Password set for ada@example.com.",
		}},
		{"Enter before the page is sent", "ada@example.com\n\npro\nada@example.com\n\n" + good + "\n", "updated", []string{
			"→ left to your browser",
			`accept "password" {"email":"ada@example.com"}` + "\n         accept \"password.secret\"\n         requestState echoed as received (111 bytes)\n" +
				`server ← input_required: url "password.secret"`,
			"Please check: New password: the page for it is still waiting.",
			"Password set for ada@example.com.",
		}},
		{"another's email is unknown", "ada@example.com\n\npro\nbob@example.com\n" + good + "\n", "unknown", []string{
			"Password not set: you have no account bob@example.com. Nothing was changed.",
		}},
		{"cancel on the page", "ada@example.com\n\npro\nada@example.com\ncancel\n", "cancelled", []string{
			`cancel "password.secret"`, "Password not set: it was cancelled.",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A SQLite file, whose secrets table the test reads.
			s, st := newTestSignupOn(t, filepath.Join(t.TempDir(), "signup.db"))
			var out bytes.Buffer
			res, err := demo(context.Background(), newServer(s), strings.NewReader(tt.input), &out, demoOptions{verbose: true}, toolName, passwordTool)
			require.NoError(t, err, "transcript:\n%s", out.String())
			screen := out.String()
			assert.Equal(t, tt.status, status(t, res), screen)
			for _, want := range tt.shows {
				assert.Contains(t, screen, want)
			}
			assert.NotContains(t, screen, good, "the password is never shown")
			var n int
			require.NoError(t, st.db.QueryRow(`SELECT COUNT(*) FROM secrets WHERE value IS NOT NULL`).Scan(&n))
			// An ending other than done leaves one value: the record, sealed,
			// that the link's request ended, so that its page says so.
			assert.Equal(t, map[bool]int{true: 1, false: 0}[tt.status == "cancelled"], n, "values left in the secrets table")
			require.NoError(t, st.db.QueryRow(`SELECT COUNT(*) FROM passwords`).Scan(&n))
			assert.Equal(t, map[bool]int{true: 1, false: 0}[tt.status == "updated"], n, "passwords stored")
		})
	}
}

// TestDemoEchoesOnlyPipedInput checks that answers typed at a terminal,
// which the terminal shows, are not printed a second time.
func TestDemoEchoesOnlyPipedInput(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		s, _ := newTestSignup(t)
		var out bytes.Buffer
		_, err := demo(context.Background(), newServer(s), strings.NewReader("ada@example.com\n\npro\n"), &out, demoOptions{interactive: interactive})
		require.NoError(t, err)
		assert.Equal(t, !interactive, strings.Contains(out.String(), "> ada@example.com"), "interactive=%v:\n%s", interactive, out.String())
	}
}

// newTestSignup returns the tools on a store in memory, signing with a
// fixed key and serving the secret page on a loopback port, and the store.
func newTestSignup(t *testing.T) (*signup, *store) {
	t.Helper()
	return newTestSignupOn(t, "")
}

// newTestSignupOn is newTestSignup on the store of dsn, as -db takes it.
func newTestSignupOn(t *testing.T, dsn string) (*signup, *store) {
	t.Helper()
	codec, err := newCodec(strings.Repeat("a1", 32), io.Discard)
	require.NoError(t, err)
	st, err := openStore(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	ln, err := listenHTTP("127.0.0.1:0")
	require.NoError(t, err)
	s, err := newSignup(codec, st, "", pageURLOf(ln))
	require.NoError(t, err)
	t.Cleanup(servePage(ln, s.secretPage(), 0))
	return s, st
}

// storedAccounts returns the accounts in st, by email.
func storedAccounts(t *testing.T, st *store) []account {
	t.Helper()
	if st.mem != nil {
		return st.mem.list()
	}
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

// TestDemoTraceOnlyVerbose: the person reads questions and results; the
// protocol trace, with its JSON, is for -v.
func TestDemoTraceOnlyVerbose(t *testing.T) {
	trace := []string{"client → tools/call", "server ← input_required", "requestState", `{"email"`, "── round"}
	for _, verbose := range []bool{false, true} {
		s, _ := newTestSignup(t)
		var out bytes.Buffer
		_, err := demo(context.Background(), newServer(s), strings.NewReader("ada@example.com\n\npro\n"), &out, demoOptions{verbose: verbose})
		require.NoError(t, err)
		for _, line := range trace {
			assert.Equal(t, verbose, strings.Contains(out.String(), line), "%q, verbose=%v:\n%s", line, verbose, out.String())
		}
		assert.Contains(t, out.String(), "Signup complete: created ada@example.com on the Pro plan.")
	}
}

// TestDemoReadsSecretsWithoutEcho: at a terminal, the page's password is
// read by the no-echo reader, never from the echoed input, and never
// printed; other answers are read as typed.
func TestDemoReadsSecretsWithoutEcho(t *testing.T) {
	const good = "correct horse battery staple"
	s, _ := newTestSignup(t)
	var out bytes.Buffer
	secrets := 0
	opts := demoOptions{interactive: true, readSecret: func() (string, error) { secrets++; return good, nil }}
	res, err := demo(context.Background(), newServer(s), strings.NewReader("ada@example.com\n\npro\nada@example.com\n"), &out, opts, toolName, passwordTool)
	require.NoError(t, err, out.String())
	assert.Equal(t, "updated", status(t, res), out.String())
	assert.Equal(t, 1, secrets, "the password alone is read without echo")
	assert.NotContains(t, out.String(), good)
}
