package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	adaPro  = map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro"}
	adaTeam = map[string]any{"email": "ada@example.com", "plan": "team"}
	engines = map[string]any{"team_name": "Analytical Engines", "seats": 12}
)

// TestSignupFlows runs whole signups through go-sdk's client loop, on the
// 2026-07-28 path, on the compatibility bridge for an older client, and over
// both kinds of transport.
func TestSignupFlows(t *testing.T) {
	type flow struct {
		name      string
		script    map[string][]*mcp.ElicitResult
		wantForms []string
		want      account
	}
	flows := []flow{
		{
			name:      "free plan, one round",
			script:    map[string][]*mcp.ElicitResult{"account": {accepted(map[string]any{"email": "bob@example.com", "plan": "free"})}},
			wantForms: []string{"account"},
			want:      account{Email: "bob@example.com", Plan: "free"},
		},
		{
			name:      "pro plan, one round",
			script:    map[string][]*mcp.ElicitResult{"account": {accepted(adaPro)}},
			wantForms: []string{"account"},
			want:      account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"},
		},
		{
			name:      "team plan, two rounds",
			script:    map[string][]*mcp.ElicitResult{"account": {accepted(adaTeam)}, "team": {accepted(engines)}},
			wantForms: []string{"account", "team"},
			want:      account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
		},
		{
			// go-sdk's client refuses to send an answer that breaks the
			// schema, but it asserts no formats: a bad email reaches the
			// server, which asks again. (The raw retries of TestHostile
			// send what no client would.)
			name: "invalid answer asked again",
			script: map[string][]*mcp.ElicitResult{
				"account": {accepted(map[string]any{"email": "ada@", "plan": "team"}), accepted(adaTeam)},
				"team":    {accepted(engines)},
			},
			wantForms: []string{"account", "account", "team"},
			want:      account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
		},
	}
	type client struct {
		name    string
		version string
		mrtr    bool // the client's own multi-round-trip loop
		http    bool
	}
	clients := []client{
		{"2026-07-28 over stdio", modern, true, false},
		{"2026-07-28 over HTTP", modern, true, true},
		// With its loop off, an older go-sdk client is what a client
		// that only knows elicitation/create sees: go-sdk's bridge and
		// mcpform.AddLegacyRounds must do everything.
		{"2025-11-25 over stdio", legacy, false, false},
		{"2025-11-25 over HTTP", legacy, false, true},
		{"2025-06-18 over HTTP", "2025-06-18", false, true},
	}
	for _, c := range clients {
		for _, f := range flows {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				srv := newServer(t, !c.http)
				p := newPerson(f.script)
				cs := srv.connect(t, c.version, c.mrtr, p)
				res, err := call(t, cs, "", nil)
				require.NoError(t, err)
				assert.Equal(t, "created", status(t, res), "result: %s", text(res))
				assert.Equal(t, f.wantForms, p.forms())
				assert.Equal(t, map[string]account{f.want.Email: f.want}, srv.accounts(t))
			})
		}
	}
}

// TestSignupReasks checks that an invalid answer is asked again with a
// message naming the problem, at most 3 times, and that the fourth invalid
// answer ends the signup with nothing created.
func TestSignupReasks(t *testing.T) {
	bad := accepted(map[string]any{"email": "not an email", "plan": "pro"})
	for _, tt := range []struct {
		name    string
		answers []*mcp.ElicitResult
		want    string // final status
		forms   int    // times the form was shown
	}{
		{"valid on the last re-ask", []*mcp.ElicitResult{bad, bad, bad, accepted(adaPro)}, "created", 4},
		{"invalid four times", []*mcp.ElicitResult{bad, bad, bad, bad}, "invalid", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, false)
			p := newPerson(map[string][]*mcp.ElicitResult{"account": tt.answers})
			cs := srv.connect(t, modern, true, p)
			res, err := call(t, cs, "", nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, status(t, res), "result: %s", text(res))
			require.Len(t, p.asked, tt.forms)
			assert.NotContains(t, p.asked[0].message, "Please check")
			for _, a := range p.asked[1:] {
				assert.Contains(t, a.message, "Email must be an email address, like name@example.com.")
			}
			if tt.want == "invalid" {
				assert.True(t, res.IsError)
				assert.Contains(t, text(res), "Email must be an email address, like name@example.com")
				assert.Empty(t, srv.accounts(t))
			}
		})
	}
}

// TestSignupNotCompleted checks that a decline or a cancel, at either step,
// ends the signup with its own result, creates nothing and asks nothing more.
func TestSignupNotCompleted(t *testing.T) {
	decline := &mcp.ElicitResult{Action: "decline"}
	cancel := &mcp.ElicitResult{Action: "cancel"}
	for _, tt := range []struct {
		name   string
		script map[string][]*mcp.ElicitResult
		forms  []string
		want   string
		says   string
	}{
		{"decline the account", map[string][]*mcp.ElicitResult{"account": {decline}}, []string{"account"}, "declined", "declined to give your account details"},
		{"cancel the account", map[string][]*mcp.ElicitResult{"account": {cancel}}, []string{"account"}, "cancelled", "cancelled"},
		{"decline the team", map[string][]*mcp.ElicitResult{"account": {accepted(adaTeam)}, "team": {decline}}, []string{"account", "team"}, "declined", "declined to give your team details"},
		{"cancel the team", map[string][]*mcp.ElicitResult{"account": {accepted(adaTeam)}, "team": {cancel}}, []string{"account", "team"}, "cancelled", "cancelled"},
	} {
		for _, version := range []string{modern, legacy} {
			t.Run(tt.name+"/"+version, func(t *testing.T) {
				srv := newServer(t, false)
				p := newPerson(tt.script)
				cs := srv.connect(t, version, version == modern, p)
				res, err := call(t, cs, "", nil)
				require.NoError(t, err)
				assert.Equal(t, tt.want, status(t, res))
				assert.True(t, strings.HasPrefix(said(res), "Signup not completed: "), "result: %s", text(res))
				assert.Contains(t, said(res), tt.says)
				assert.False(t, res.IsError, "a person's choice is not a tool error")
				assert.Equal(t, tt.forms, p.forms(), "asked again after a refusal")
				assert.Empty(t, srv.accounts(t))
			})
		}
	}
}

// TestSignupIdempotent replays rounds by hand. The first outcome of a run
// of the flow is its outcome: a replay of any of its rounds, with the same
// answers or others, returns it and creates nothing.
func TestSignupIdempotent(t *testing.T) {
	srv := newServer(t, false)
	cs := srv.connect(t, modern, false, nil)
	start := func(t *testing.T) string {
		t.Helper()
		res, err := call(t, cs, "", nil)
		require.NoError(t, err)
		require.Equal(t, "account", asks(t, res))
		return res.RequestState
	}
	answer := func(t *testing.T, state, step string, content map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := call(t, cs, state, mcp.InputResponseMap{step: accepted(content)})
		require.NoError(t, err)
		return res
	}

	res := answer(t, start(t), "account", adaTeam)
	require.Equal(t, "team", asks(t, res))
	final := res.RequestState
	first := answer(t, final, "team", engines)
	require.Equal(t, "created", status(t, first))
	want := map[string]account{"ada@example.com": {Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12}}
	require.Equal(t, want, srv.accounts(t))

	t.Run("same state, same answers", func(t *testing.T) {
		again := answer(t, final, "team", engines)
		assert.Equal(t, "created", status(t, again))
		assert.Equal(t, text(first), text(again), "a replay gets the first result")
		assert.Equal(t, want, srv.accounts(t))
	})
	t.Run("same state, other answers", func(t *testing.T) {
		again := answer(t, final, "team", map[string]any{"team_name": "Difference Engines", "seats": 3})
		assert.Equal(t, text(first), text(again), "the run already created its account")
		assert.Equal(t, want, srv.accounts(t))
	})
	t.Run("first state, five other emails", func(t *testing.T) {
		state := start(t)
		var got []string // the email of the account each replay reports
		for i := range 5 {
			r := answer(t, state, "account", map[string]any{"email": fmt.Sprintf("replay%d@example.com", i), "plan": "free"})
			require.Equal(t, "created", status(t, r))
			a, _ := r.StructuredContent.(map[string]any)["account"].(map[string]any)
			got = append(got, a["email"].(string))
		}
		winner := "replay0@example.com"
		assert.Equal(t, []string{winner, winner, winner, winner, winner}, got, "every replay gets the first outcome")
		all := srv.accounts(t)
		assert.Len(t, all, 2, "ada and the first replay: %v", all)
		assert.Contains(t, all, winner)
	})
	t.Run("an outcome that created nothing stands too", func(t *testing.T) {
		// The run ends with "exists"; replayed with a free email, it
		// still does.
		state := start(t)
		r := answer(t, state, "account", map[string]any{"email": "ADA@example.com", "plan": "free"})
		require.Equal(t, "exists", status(t, r))
		again := answer(t, state, "account", map[string]any{"email": "free@example.com", "plan": "free"})
		assert.Equal(t, "exists", status(t, again))
		assert.Equal(t, text(r), text(again))
		// A decline, replayed as an accept, stays a decline.
		state = start(t)
		d, err := call(t, cs, state, mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "decline"}})
		require.NoError(t, err)
		require.Equal(t, "declined", status(t, d))
		again = answer(t, state, "account", map[string]any{"email": "free@example.com", "plan": "free"})
		assert.Equal(t, "declined", status(t, again))
		assert.NotContains(t, srv.accounts(t), "free@example.com")
	})
	t.Run("two one-round signups in the same second", func(t *testing.T) {
		// Each starts with an identical-looking first round; the second
		// must not pass for a replay of the first.
		var results []string
		for range 2 {
			r := answer(t, start(t), "account", adaPro)
			results = append(results, status(t, r))
		}
		assert.Equal(t, []string{"exists", "exists"}, results, "ada has an account already")
		results = nil
		for range 2 {
			r := answer(t, start(t), "account", map[string]any{"email": "grace@example.com", "plan": "pro"})
			results = append(results, status(t, r))
		}
		assert.Equal(t, []string{"created", "exists"}, results)
	})
	for _, email := range []string{"ada@example.com", "ADA@Example.com"} {
		t.Run("new signup for "+email, func(t *testing.T) {
			p := newPerson(map[string][]*mcp.ElicitResult{"account": {accepted(map[string]any{"email": email, "plan": "free"})}})
			res, err := call(t, srv.connect(t, modern, true, p), "", nil)
			require.NoError(t, err)
			assert.Equal(t, "exists", status(t, res))
			assert.Contains(t, text(res), email+" is already registered")
			assert.True(t, res.IsError)
			assert.Equal(t, want["ada@example.com"], srv.accounts(t)["ada@example.com"], "the account is unchanged")
		})
	}
}
