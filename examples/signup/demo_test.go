package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs the terminal demo with piped answers, as
// printf '…' | go run ./examples/signup does: what the person reads, in
// order, what the client sends, and the outcome. What the server judges,
// on every host, is e2e's (e2e/kit_test.go).
func TestDemo(t *testing.T) {
	const good = "correct horse battery staple"
	ada := &account{Email: "ada@example.com", Plan: "pro"}
	pw := []string{toolName, passwordTool}
	for _, tt := range []struct {
		name, input, status string
		tools               []string // signup if none
		want                *account // the account created, if any
		rounds              int      // tools/call requests of the first tool
		shows               []string // what the transcript shows, in this order
	}{
		{"pro plan", "ada@example.com\nAda Lovelace\npro\n", "created", nil,
			&account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"}, 2, []string{
				"Create your account", "Email (required; an email address)", "Full name (optional; up to 100 characters)",
				"Plan (required; one of these; default free)\n    Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.\n    · free\n    · pro – Pro, $12 a month\n    · team – Team, $10 a seat a month\n",
				"Account created\nEmail: ada@example.com\nFull name: Ada Lovelace\nPlan: Pro\n\n" +
					"Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan."}},
		{"team plan takes a second form", "ada@example.com\nAda Lovelace\nteam\nAnalytical Engines\n12\n", "created", nil,
			&account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "team", TeamName: "Analytical Engines", Seats: 12}, 3, []string{
				"Tell us about your team", "Team name (required; 2 to 60 characters)",
				"Seats (required; a whole number from 2 to 50; default 5)", `accept "team" {"seats":12,"team_name":"Analytical Engines"}`}},
		{"empty answers take the defaults", "ada@example.com\n\n\n", "created", nil,
			&account{Email: "ada@example.com", Plan: "free"}, 2, []string{`→ "free" (the default)`}},
		{"team seats by default", "ada@example.com\n\nteam\nAnalytical Engines\n\n", "created", nil,
			&account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 5}, 3, nil},
		// What was typed goes as typed, a number as one and text as
		// text; an option in any case; the server's re-ask names it all.
		{"typed answers", "ada@example.com\n\nTEAM\nA\n51\nAnalytical Engines\ntwelve\nAnalytical Engines\n12\n", "created", nil,
			&account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12}, 5, []string{
				`accept "team" {"seats":51,"team_name":"A"}`, "Team name must be 2 to 60 characters. Seats must be from 2 to 50.",
				`"seats":"twelve"`, "Seats must be a whole number."}},
		{"a required answer left empty", "\n\npro\nada@example.com\n\n\n", "created", nil, ada, 3,
			[]string{"Enter a value for Email.", "Plan (required; one of these; default pro)"}},
		{"cancel at the team form", "ada@example.com\n\nteam\nCANCEL\n", "cancelled", nil, nil, 3,
			[]string{`cancel "team"`, "Not completed\nNothing was created.\n\nSignup not completed: the form was cancelled"}},
		// The client checks nothing: the bad email goes as typed, and
		// the person reads the server's re-ask, good answers filled in.
		{"the server's re-ask", "ada@example..com\nAda Lovelace\npro\nada@example.com\n\n\n", "created", nil,
			&account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"}, 3, []string{
				`accept "account" {"email":"ada@example..com","full_name":"Ada Lovelace","plan":"pro"}`,
				"  Create your account\n\n  Email must be an email address, like name@example.com.\n",
				"Full name (optional; up to 100 characters; default Ada Lovelace)"}},
		{"the last answer needs no newline", "ada@example.com\n\npro", "created", nil, ada, 2, nil},
		{"decline", "decline\n", "declined", nil, nil, 2, []string{"→ decline", `decline "account"`, "Signup not completed: you declined"}},
		{"no input at all means cancel", "", "cancelled", nil, nil, 2, []string{"(end of input)", "→ cancel"}},
		{"input that ends early means cancel", "ada@example.com\nAda\n", "cancelled", nil, nil, 2, nil},
		// set_password shows the link, plays the browser on the page,
		// whose own check speaks, and never shows the password.
		{"password set after a refusal", "ada@example.com\n\npro\nada@example.com\nshort\n" + good + "\n", "updated", pw, ada, 2, []string{
			`input_required: url "password.secret"`, "  Link: http://127.0.0.1:", "The demo plays your browser too",
			"browser → POST http://127.0.0.1:", ": 422 Unprocessable Entity\n\n  The page says: New password must be 12 to 128 characters.",
			"> (hidden)\n\nbrowser → POST", ": 200 OK",
			`accept "password" {"email":"ada@example.com"}` + "\n         accept \"password.secret\"", "Password set for ada@example.com."}},
		{"Enter before the page is sent", "ada@example.com\n\npro\nada@example.com\n\n" + good + "\n", "updated", pw, ada, 2, []string{
			"→ left to your browser",
			`accept "password" {"email":"ada@example.com"}` + "\n         accept \"password.secret\"\n         requestState echoed as received (",
			" bytes)\n" + `server ← input_required: url "password.secret"`,
			"Check New password: the page for it is still waiting.", "Password set\nEmail: ada@example.com\n\nPassword set for ada@example.com."}},
		{"cancel on the page", "ada@example.com\n\npro\nada@example.com\ncancel\n", "cancelled", pw, ada, 2, []string{
			`cancel "password.secret"`, "Password not set: it was cancelled."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, st := newTestSignup(t)
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := demo(ctx, newServer(s), strings.NewReader(tt.input), &out, demoOptions{Verbose: true}, tt.tools...)
			screen := out.String()
			require.NoError(t, err, "transcript:\n%s", screen)
			assert.Equal(t, tt.status, status(t, res), "transcript:\n%s", screen)
			assert.Equal(t, tt.rounds, strings.Count(screen, "client → tools/call signup"), "transcript:\n%s", screen)
			rest := screen
			for _, s := range tt.shows {
				i := strings.Index(rest, s)
				if !assert.GreaterOrEqual(t, i, 0, "%q, after what came before, in:\n%s", s, screen) {
					break
				}
				rest = rest[i+len(s):]
			}
			assert.NotContains(t, screen, good, "the password is never shown")
			// The final result is the transcript's last word: its heading
			// and summary for the person, then the model's sentence.
			require.Len(t, res.Content, 2)
			assert.True(t, strings.HasSuffix(strings.TrimSpace(screen), res.Content[0].(*mcp.TextContent).Text+"\n\n"+res.Content[1].(*mcp.TextContent).Text),
				"transcript:\n%s", screen)
			var want []account
			if tt.want != nil {
				want = []account{*tt.want}
			}
			assert.Equal(t, want, storedAccounts(t, st))
		})
	}
}

// TestDemoOptions: answers typed at a terminal, which the terminal shows,
// are not printed a second time; the protocol trace, with its JSON, is
// for -v alone.
func TestDemoOptions(t *testing.T) {
	trace := []string{"client → tools/call", "server ← input_required", "requestState", `{"email"`, "── round"}
	for _, opts := range []demoOptions{{}, {Interactive: true}, {Verbose: true}} {
		s, _ := newTestSignup(t)
		var out bytes.Buffer
		_, err := demo(context.Background(), newServer(s), strings.NewReader("ada@example.com\n\npro\n"), &out, opts)
		require.NoError(t, err)
		screen := out.String()
		assert.Equal(t, !opts.Interactive, strings.Contains(screen, "> ada@example.com"), "%+v:\n%s", opts, screen)
		for _, line := range trace {
			assert.Equal(t, opts.Verbose, strings.Contains(screen, line), "%q, %+v:\n%s", line, opts, screen)
		}
		assert.Contains(t, screen, "Signup complete: created ada@example.com on the Pro plan.")
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
	opts := demoOptions{Interactive: true, ReadSecret: func() (string, error) { secrets++; return good, nil }}
	res, err := demo(context.Background(), newServer(s), strings.NewReader("ada@example.com\n\npro\nada@example.com\n"), &out, opts, toolName, passwordTool)
	require.NoError(t, err, out.String())
	assert.Equal(t, "updated", status(t, res), out.String())
	assert.Equal(t, 1, secrets, "the password alone is read without echo")
	assert.NotContains(t, out.String(), good)
}

// newTestSignup returns the tools on a store in memory, signing with a
// fixed key and serving the secret page on a loopback port, and the store.
func newTestSignup(t *testing.T) (*signup, *store) {
	t.Helper()
	codec, err := deploy.NewCodec(func(env string) string {
		if env == deploy.KeyEnv {
			return strings.Repeat("a1", 32)
		}
		return ""
	}, io.Discard, "mcpform signup")
	require.NoError(t, err)
	return newTestSignupWith(t, codec)
}

// newTestSignupWith is newTestSignup with the codec given.
func newTestSignupWith(t *testing.T, codec *mcpform.RequestStateCodec) (*signup, *store) {
	t.Helper()
	st, err := openStore(context.Background(), "")
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
	if m, ok := st.Mem.(memory); ok && st.DB == nil {
		return m.list()
	}
	rows, err := st.DB.Query(`SELECT email, full_name, plan, team_name, seats FROM accounts ORDER BY email`)
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

// TestDemoSpeaksLANG checks issue 34, item 9: run with LANG=fr_FR.UTF-8,
// the demo speaks French, and so do the server's re-ask and the secret
// page, which the client asks in French; no English of its own is left.
// A secret typed on the page, refused or taken, never shows, not even as
// its length.
func TestDemoSpeaksLANG(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "fr_FR.UTF-8")
	const refused, good = "tiny-secret", "correct horse battery staple"
	st, err := openStore(context.Background(), "")
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	input := "ada@example..com\n\npro\nada@example.com\n\n\nada@example.com\n" + refused + "\n" + good + "\n"
	require.NoError(t, runDemo(ctx, st, strings.NewReader(input), &out, demoOptions{}, passwordTool))
	screen := out.String()
	for _, want := range []string{
		"Démo d'inscription mcpform\u00a0: un client go-sdk appelle «\u00a0signup\u00a0», puis «\u00a0set_password\u00a0».",
		"Répondez à chaque question.", "(obligatoire\u00a0; une adresse e-mail)", "Adresse e-mail\u00a0: saisissez une adresse e-mail, par exemple nom@example.com.",
		"La démo joue aussi votre navigateur", "La page dit\u00a0: Nouveau mot de passe\u00a0: saisissez de 12 à 128 caractères.", "(sur la page)", "> (masqué)",
		"Mot de passe défini\nAdresse e-mail\u00a0: ada@example.com\n\nMot de passe défini pour ada@example.com.",
	} {
		assert.Contains(t, screen, want)
	}
	for _, english := range []string{"Answer each question", "required;", "Please check", "The page says", "(on the page)", "The demo plays"} {
		assert.NotContains(t, screen, english, "English left in:\n%s", screen)
	}
	for _, secret := range []string{refused, good, "•"} {
		assert.NotContains(t, screen, secret, "a secret shows in:\n%s", screen)
	}
}

// TestDemoOffersBack checks issue 34, item 9: a value the server refused
// is offered back, as "[value]", which Enter keeps and anything typed
// replaces; a value it took comes back as its default.
func TestDemoOffersBack(t *testing.T) {
	s, st := newTestSignup(t)
	var out bytes.Buffer
	input := "ada@example.com\n\nteam\nA\n51\n\n12\nAnalytical Engines\n\n"
	res, err := demo(context.Background(), newServer(s), strings.NewReader(input), &out, demoOptions{Verbose: true})
	screen := out.String()
	require.NoError(t, err, screen)
	assert.Equal(t, "created", status(t, res), screen)
	rest := screen
	for _, want := range []string{
		`accept "team" {"seats":51,"team_name":"A"}`,
		"  [A] > \n    → A (as you typed it)", "Seats (required; a whole number from 2 to 50)", "  [51] > 12\n", `accept "team" {"seats":12,"team_name":"A"}`,
		"  [A] > Analytical Engines\n",
	} {
		i := strings.Index(rest, want)
		if !assert.GreaterOrEqual(t, i, 0, "%q, after what came before, in:\n%s", want, screen) {
			break
		}
		rest = rest[i+len(want):]
	}
	assert.Equal(t, []account{{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12}}, storedAccounts(t, st))
}

// TestDemoChecksAnswers: with -check-answers, the terminal demo shows the
// answers before the account is created; changing the account step asks
// it again, filled in, and the account is created with the new answer
// only once the person keeps them.
func TestDemoChecksAnswers(t *testing.T) {
	*checkFlag = true
	t.Cleanup(func() { *checkFlag = false })
	s, st := newTestSignup(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	input := "ada@example.com\nAda\npro\nchange:account\nbo@example.com\n\n\nkeep\n"
	res, err := demo(ctx, newServer(s), strings.NewReader(input), &out, demoOptions{})
	screen := out.String()
	require.NoError(t, err, "transcript:\n%s", screen)
	assert.Equal(t, "created", status(t, res), "transcript:\n%s", screen)
	for _, want := range []string{"Check your answers", "Email: ada@example.com", "keep – Create account", "Email: bo@example.com"} {
		assert.Contains(t, screen, want)
	}
	assert.Equal(t, []account{{Email: "bo@example.com", FullName: "Ada", Plan: "pro"}}, storedAccounts(t, st))
}

// TestDemoProblemWords: the terminal prints a refused answer's problem as
// the native re-ask words it, which is what mcpform.ProblemMessage, a view
// and the secret page say of it (the root's TestProblemWordsOnEveryPath,
// in every language): one sentence naming the field and the fix, with no
// validator's words. A whole number out of its bounds is told its bounds.
func TestDemoProblemWords(t *testing.T) {
	for _, tt := range []struct {
		name, seats string
		answer      any
		want        string
	}{
		{"a whole number below its bounds", "1", 1.0, "Seats must be from 2 to 50."},
		{"a number that isn't whole", "2.5", 2.5, "Seats must be a whole number."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestSignup(t)
			var out bytes.Buffer
			input := "ada@example.com\n\nteam\nAnalytical Engines\n" + tt.seats + "\nAnalytical Engines\n12\n"
			_, err := demo(context.Background(), newServer(s), strings.NewReader(input), &out, demoOptions{})
			require.NoError(t, err)
			screen := out.String()
			_, problems := mcpform.CheckFormInput(mcp.InputResponseMap{"team": &mcp.ElicitResult{Action: "accept",
				Content: map[string]any{"team_name": "Analytical Engines", "seats": tt.answer}}}, "team", s.Signup.Fields("team"))
			said := mcpform.ProblemMessage(s.Signup.Fields("team"), problems)
			assert.Equal(t, tt.want, said)
			assert.Contains(t, screen, "  Tell us about your team\n\n  "+said+"\n", "the terminal prints the re-ask")
			for _, jargon := range []string{"minimum", "maximum", "integer", "Enter a whole number"} {
				assert.NotContains(t, screen, jargon)
			}
		})
	}
}
