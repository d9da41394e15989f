package main

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
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
		{"2026-07-28 in memory", modern, true, false},
		{"2026-07-28 over HTTP", modern, true, true},
		// With its loop off, an older go-sdk client is what a client
		// that only knows elicitation/create sees: go-sdk's bridge and
		// mcpform.LegacyRounds must do everything.
		{"2025-11-25 in memory", legacy, false, false},
		{"2025-11-25 over HTTP", legacy, false, true},
		{"2025-06-18 over HTTP", "2025-06-18", false, true},
	}
	for _, c := range clients {
		for _, f := range flows {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				s, st := newTestSignup(t)
				server := newServer(s)
				p := newPerson(f.script)
				var cs *mcp.ClientSession
				if c.http {
					cs = connectHTTP(t, serveHTTPTest(t, server), c.version, c.mrtr, p)
				} else {
					cs = connect(t, server, c.version, c.mrtr, p)
				}
				res, err := call(t, cs, "", nil)
				require.NoError(t, err)
				assert.Equal(t, "created", status(t, res), "result: %s", text(res))
				assert.Equal(t, f.wantForms, p.forms())
				got, ok := st.get(f.want.Email)
				require.True(t, ok, "no account for %s", f.want.Email)
				got.Principal, got.Created = "", time.Time{}
				assert.Equal(t, f.want, got)
				assert.Equal(t, 1, st.len())
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
			s, st := newTestSignup(t)
			p := newPerson(map[string][]*mcp.ElicitResult{"account": tt.answers})
			cs := connect(t, newServer(s), modern, true, p)
			res, err := call(t, cs, "", nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, status(t, res), "result: %s", text(res))
			require.Len(t, p.asked, tt.forms)
			assert.NotContains(t, p.asked[0].message, "Please check")
			for _, a := range p.asked[1:] {
				assert.Contains(t, a.message, "Please check: Email: not a valid email address.")
			}
			if tt.want == "invalid" {
				assert.True(t, res.IsError)
				assert.Contains(t, text(res), "Email: not a valid email address")
				assert.Equal(t, 0, st.len())
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
				s, st := newTestSignup(t)
				p := newPerson(tt.script)
				cs := connect(t, newServer(s), version, version == modern, p)
				res, err := call(t, cs, "", nil)
				require.NoError(t, err)
				assert.Equal(t, tt.want, status(t, res))
				assert.True(t, strings.HasPrefix(text(res), "Signup not completed: "), "result: %s", text(res))
				assert.Contains(t, text(res), tt.says)
				assert.False(t, res.IsError, "a person's choice is not a tool error")
				assert.Equal(t, tt.forms, p.forms(), "asked again after a refusal")
				assert.Equal(t, 0, st.len())
			})
		}
	}
}

// TestSignupIdempotent replays rounds by hand: the final round twice, and
// a second signup for a registered email.
func TestSignupIdempotent(t *testing.T) {
	s, st := newTestSignup(t)
	cs := connect(t, newServer(s), modern, false, nil)

	res, err := call(t, cs, "", nil)
	require.NoError(t, err)
	require.Equal(t, "account", asks(t, res))
	res, err = call(t, cs, res.RequestState, mcp.InputResponseMap{"account": accepted(adaTeam)})
	require.NoError(t, err)
	require.Equal(t, "team", asks(t, res))
	final := res.RequestState

	first, err := call(t, cs, final, mcp.InputResponseMap{"team": accepted(engines)})
	require.NoError(t, err)
	require.Equal(t, "created", status(t, first))
	require.Equal(t, 1, st.len())

	t.Run("same state, same answers", func(t *testing.T) {
		again, err := call(t, cs, final, mcp.InputResponseMap{"team": accepted(engines)})
		require.NoError(t, err)
		assert.Equal(t, "created", status(t, again))
		assert.Equal(t, text(first), text(again), "a replay gets the first result")
		assert.Equal(t, 1, st.len())
	})
	t.Run("same state, other answers", func(t *testing.T) {
		again, err := call(t, cs, final, mcp.InputResponseMap{"team": accepted(map[string]any{"team_name": "Difference Engines", "seats": 3})})
		require.NoError(t, err)
		assert.Equal(t, text(first), text(again), "the state's signup already created its account")
		a, _ := st.get("ada@example.com")
		assert.Equal(t, "Analytical Engines", a.TeamName)
		assert.Equal(t, 1, st.len())
	})
	t.Run("two one-round signups in the same second", func(t *testing.T) {
		// Each starts with an identical-looking first round; the second
		// must not pass for a replay of the first.
		s, st := newTestSignup(t)
		cs := connect(t, newServer(s), modern, false, nil)
		var results []string
		for range 2 {
			res, err := call(t, cs, "", nil)
			require.NoError(t, err)
			res, err = call(t, cs, res.RequestState, mcp.InputResponseMap{"account": accepted(adaPro)})
			require.NoError(t, err)
			results = append(results, status(t, res))
		}
		assert.Equal(t, []string{"created", "exists"}, results)
		assert.Equal(t, 1, st.len())
	})
	for _, email := range []string{"ada@example.com", "ADA@Example.com"} {
		t.Run("new signup for "+email, func(t *testing.T) {
			p := newPerson(map[string][]*mcp.ElicitResult{"account": {accepted(map[string]any{"email": email, "plan": "free"})}})
			res, err := call(t, connect(t, newServer(s), modern, true, p), "", nil)
			require.NoError(t, err)
			assert.Equal(t, "exists", status(t, res))
			assert.Contains(t, text(res), email+" is already registered")
			assert.True(t, res.IsError)
			a, _ := st.get("ada@example.com")
			assert.Equal(t, "team", a.Plan, "the account is unchanged")
			assert.Equal(t, 1, st.len())
		})
	}
}

// TestPrincipal checks whom request state is bound to.
func TestPrincipal(t *testing.T) {
	s, _ := newTestSignup(t)
	for _, tt := range []struct {
		name  string
		extra *mcp.RequestExtra
		want  string
		err   bool
	}{
		{"no transport info", nil, "local", false},
		{"no auth", &mcp.RequestExtra{}, "local", false},
		{"a token's user", &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}, "user:alice", false},
		{"a token without a user", &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{}}, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.principalOf(&mcp.CallToolRequest{Extra: tt.extra})
			if tt.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
