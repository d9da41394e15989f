package e2e_test

// The signup binary on the test kit (mcpformtest): the server's own
// judgement, as each kind of host meets it over streamable HTTP. These
// checks were examples/signup's own, through its terminal demo; the demo's
// rendering is still tested there.

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kitReplica starts a replica on a new SQLite file, and returns a kit
// client of it as host, and the file.
func kitReplica(t *testing.T, host mcpformtest.Host, args ...string) (*mcpformtest.Client, replica, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "signup.db")
	r := startReplica(t, keyA, append([]string{"-db", db}, args...)...)
	return kitDial(t, r, host), r, db
}

func kitDial(t *testing.T, r replica, host mcpformtest.Host) *mcpformtest.Client {
	return mcpformtest.Dial(t, &mcp.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1}, host)
}

// TestKitSignup runs signup as a full 2026-07-28 host sends what the
// person typed, unchecked: the server judges it, names every problem in
// one re-ask, keeps the good answers as defaults, and stores the account
// only once all is well.
func TestKitSignup(t *testing.T) {
	acct := func(m map[string]any) mcpformtest.Answer { return mcpformtest.Accept(m) }
	ada := map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro"}
	team := map[string]any{"email": "ada@example.com", "plan": "team"}
	good := map[string]any{"team_name": "Analytical Engines", "seats": 12}
	for _, tt := range []struct {
		name     string
		answers  []mcpformtest.Answer
		status   string
		want     *account
		asked    [][]string // the questions of each round but the outcome
		problems []string   // named by the last round before the outcome
		says     string     // the outcome's text begins so
	}{
		{"pro plan", []mcpformtest.Answer{acct(ada)}, "created",
			&account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"},
			[][]string{{"email", "full_name", "plan"}}, nil, "Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan."},
		{"team plan takes a second form", []mcpformtest.Answer{acct(team), acct(good)}, "created",
			&account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			[][]string{{"email", "full_name", "plan"}, {"team_name", "seats"}}, nil, "Signup complete: created ada@example.com on the Team plan"},
		{"the server judges what the client sends", []mcpformtest.Answer{acct(team),
			acct(map[string]any{"team_name": "A", "seats": 51}), acct(good)}, "created",
			&account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			[][]string{{"email", "full_name", "plan"}, {"team_name", "seats"}, {"team_name", "seats"}},
			[]string{"Team name must be 2 to 60 characters", "Seats must be from 2 to 50"}, "Signup complete"},
		{"a required answer left empty", []mcpformtest.Answer{acct(map[string]any{"plan": "pro"}),
			acct(map[string]any{"email": "ada@example.com", "plan": "pro"})}, "created",
			&account{Email: "ada@example.com", Plan: "pro"},
			[][]string{{"email", "full_name", "plan"}, {"email", "full_name", "plan"}}, []string{"Enter a value for Email"}, "Signup complete"},
		{"a number that is not one", []mcpformtest.Answer{acct(team),
			acct(map[string]any{"team_name": "Analytical Engines", "seats": "twelve"}), acct(good)}, "created",
			&account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
			[][]string{{"email", "full_name", "plan"}, {"team_name", "seats"}, {"team_name", "seats"}}, []string{"Seats must be a whole number"}, "Signup complete"},
		{"decline", []mcpformtest.Answer{mcpformtest.Decline()}, "declined", nil, [][]string{{"email", "full_name", "plan"}}, nil, "Signup not completed: you declined"},
		{"cancel at the team form", []mcpformtest.Answer{acct(team), mcpformtest.Cancel()}, "cancelled", nil,
			[][]string{{"email", "full_name", "plan"}, {"team_name", "seats"}}, nil, "Signup not completed: the form was cancelled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _, db := kitReplica(t, mcpformtest.Full)
			res := c.Call(context.Background(), toolName, nil, tt.answers...)
			require.Nil(t, res.Err)
			assert.Equal(t, tt.status, res.Status, res.Text)
			assert.True(t, strings.HasPrefix(saidText(res.Text), tt.says), res.Text)
			var asked [][]string
			for _, r := range res.Rounds[:len(res.Rounds)-1] {
				assert.Equal(t, mcpformtest.PathNative, r.Path)
				asked = append(asked, r.Names())
			}
			assert.Equal(t, tt.asked, asked, "the forms asked, round by round")
			if n := len(res.Rounds); n > 1 {
				assert.Equal(t, tt.problems, res.Rounds[n-2].Problems)
			}
			want := map[string]account{}
			if tt.want != nil {
				want[tt.want.Email] = *tt.want
			}
			assert.Equal(t, want, accounts(t, "sqlite", db))
		})
	}
}

// TestKitReaskKeepsGoodAnswers: a bad or missing email is re-asked,
// named, with the good answers as the form's defaults; then the account
// is created.
func TestKitReaskKeepsGoodAnswers(t *testing.T) {
	good := map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro"}
	for _, tt := range []struct {
		name    string
		first   map[string]any
		problem string
		shown   []mcpformtest.Question
	}{
		{"a bad email", map[string]any{"email": "ada@example..com", "full_name": "Ada Lovelace", "plan": "pro"}, "Email must be an email address, like name@example.com",
			[]mcpformtest.Question{{Name: "email", Label: "Email"}, {Name: "full_name", Label: "Full name", Default: "Ada Lovelace"}, {Name: "plan", Label: "Plan", Default: "pro"}}},
		{"a missing email", map[string]any{"plan": "pro"}, "Enter a value for Email",
			[]mcpformtest.Question{{Name: "email", Label: "Email"}, {Name: "full_name", Label: "Full name"}, {Name: "plan", Label: "Plan", Default: "pro"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _, db := kitReplica(t, mcpformtest.Full)
			res := c.Call(context.Background(), toolName, nil, mcpformtest.Accept(tt.first), mcpformtest.Accept(good))
			require.Len(t, res.Rounds, 3)
			reask := res.Rounds[1]
			assert.Equal(t, []string{tt.problem}, reask.Problems)
			assert.Equal(t, signupAccountAsked(tt.problem+"."), reask.Message)
			assert.Equal(t, tt.shown, reask.Questions)
			assert.Equal(t, "created", res.Status)
			assert.Equal(t, map[string]account{"ada@example.com": {Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"}}, accounts(t, "sqlite", db))
		})
	}
}

// TestKitEveryHost: a team signup with a re-ask, then a set_password,
// finish on each of the kit's five hosts, each asked its own way: the
// host matrix without Node or Chromium.
func TestKitEveryHost(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	r, b := startReplica(t, keyA, "-db", db), startReplica(t, keyA, "-db", db)
	for _, host := range mcpformtest.Hosts() {
		t.Run(host.Name, func(t *testing.T) {
			email := strings.ToLower(strings.ReplaceAll(host.Name, " ", "-")) + "@example.com"
			answers := []mcpformtest.Answer{mcpformtest.Accept(map[string]any{"email": email, "plan": "team"}),
				mcpformtest.Accept(map[string]any{"team_name": "A", "seats": 51}),
				mcpformtest.Accept(map[string]any{"team_name": "Analytical Engines", "seats": 12})}
			res := kitDial(t, r, host).Call(context.Background(), toolName, nil, answers...)
			assert.Equal(t, "created", res.Status, res.Text)
			require.Len(t, res.Rounds, 4)
			assert.Equal(t, []string{"Team name must be 2 to 60 characters", "Seats must be from 2 to 50"}, res.Rounds[2].Problems)
			assert.Equal(t, 12, accounts(t, "sqlite", db)[email].Seats)
			// The last call replayed on a second replica finishes the
			// same; a 2025-11-25 call is all its rounds, so replayed it
			// is a new signup, which finds the email taken.
			again := kitDial(t, b, host).Replay(context.Background(), res.Last, answers...)
			if host.Protocol == mcpformtest.Legacy && host.Form {
				assert.Equal(t, "exists", again.Status, again.Text)
			} else {
				assert.Equal(t, res.Text, again.Text, "replayed on the second replica")
			}

			// set_password: the page is posted wherever the host is
			// given its link, and the password crosses no MCP message.
			c := kitDial(t, r, host)
			res = c.Call(context.Background(), passwordTool, nil,
				mcpformtest.Answer{Values: map[string]any{"email": email}, Secrets: map[string]string{"password": secret}},
				mcpformtest.Answer{Values: map[string]any{"email": email}, Secrets: map[string]string{"password": secret}})
			assert.Equal(t, "Password set for "+email+".", saidText(res.Text))
			posted := 0
			for _, r := range res.Rounds {
				if r.Page != 0 {
					assert.Equal(t, 200, r.Page)
					posted++
				}
			}
			assert.Equal(t, 1, posted, "pages posted")
			checkPasswordHash(t, "sqlite", db, email, secret)
			noSecret(t, "the MCP wire", c.Wire()...)
			assert.Equal(t, res.Text, kitDial(t, b, host).Replay(context.Background(), res.Last).Text, "replayed on the second replica")
			assert.Len(t, accounts(t, "sqlite", db), 1+slices.Index(mcpformtest.Hosts(), host))
		})
	}
}

// TestKitHTTPSmoke runs one signup for a client of each generation.
func TestKitHTTPSmoke(t *testing.T) {
	for _, host := range []mcpformtest.Host{mcpformtest.Full, mcpformtest.Editor} {
		t.Run(host.Protocol, func(t *testing.T) {
			c, _, db := kitReplica(t, host)
			res := c.Call(context.Background(), toolName, nil, mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro"}))
			assert.Equal(t, "created", res.Status, res.Text)
			assert.Equal(t, map[string]account{"ada@example.com": {Email: "ada@example.com", Plan: "pro"}}, accounts(t, "sqlite", db))
		})
	}
}

// TestKitSetPassword sets a password after a signup: the page's own check
// refuses a short one, a retry before the page is sent is asked for the
// page again, an unknown email changes nothing, and a cancel leaves only
// the sealed record that the link ended. The password crosses no MCP
// message, and only its hash is stored.
func TestKitSetPassword(t *testing.T) {
	email := map[string]any{"email": "ada@example.com"}
	page := func(pw string) mcpformtest.Answer {
		return mcpformtest.Answer{Values: email, Secrets: map[string]string{"password": pw}}
	}
	for _, tt := range []struct {
		name     string
		answers  []mcpformtest.Answer
		status   string
		text     string
		pages    []int      // the status of each page posted
		problems [][]string // of each round
		left     int        // values left in the secrets table: a closed link's marker and a claim's tag
	}{
		{"set after a refusal", []mcpformtest.Answer{page("short"), page(secret)}, "updated", passwordText,
			[]int{422, 200}, [][]string{{"New password must be 12 to 128 characters."}, {"Check New password: the page for it is still waiting"}, nil}, 2},
		{"Enter before the page is sent", []mcpformtest.Answer{mcpformtest.Accept(email), page(secret)}, "updated", passwordText,
			[]int{200}, [][]string{nil, {"Check New password: the page for it is still waiting"}, nil}, 2},
		{"another's email is unknown", []mcpformtest.Answer{{Values: map[string]any{"email": "bob@example.com"}, Secrets: map[string]string{"password": secret}}},
			"unknown", "Password not set: you have no account bob@example.com. Nothing was changed.", []int{200}, [][]string{nil, nil}, 2},
		{"cancel on the page", []mcpformtest.Answer{mcpformtest.Cancel()}, "cancelled", "Password not set: it was cancelled. Nothing was changed.",
			nil, [][]string{nil, nil}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _, db := kitReplica(t, mcpformtest.Full)
			ctx := context.Background()
			require.Equal(t, "created", c.Call(ctx, toolName, nil, mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro"})).Status)
			res := c.Call(ctx, passwordTool, nil, tt.answers...)
			assert.Equal(t, tt.status, res.Status)
			assert.Equal(t, tt.text, saidText(res.Text))
			var pages []int
			var problems [][]string
			for _, r := range res.Rounds {
				if r.Page != 0 {
					pages = append(pages, r.Page)
				}
				problems = append(problems, r.Problems)
			}
			assert.Equal(t, tt.pages, pages, "the pages posted")
			assert.Equal(t, tt.problems, problems)
			noSecret(t, "the MCP wire", c.Wire()...)
			assert.Equal(t, tt.left, valuesLeft(t, "sqlite", db), "values left in the secrets table")
			if tt.status == "updated" {
				checkPasswordHash(t, "sqlite", db, "ada@example.com", secret)
			} else {
				assert.Zero(t, countRows(t, db, "passwords"), "passwords stored")
			}
		})
	}
}

func countRows(t *testing.T, db, table string) (n int) {
	t.Helper()
	d, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, d.QueryRow(`SELECT COUNT(*) FROM `+table).Scan(&n))
	return n
}

// TestKitStoreErrorIsGeneric breaks the database under each tool: the
// client gets a generic error result with a reference, never the
// database's words, and the server's log gets those words with the same
// reference.
func TestKitStoreErrorIsGeneric(t *testing.T) {
	for _, tt := range []struct{ tool, drop, says string }{
		{toolName, "accounts", "Signup not completed: the server failed to finish it."},
		{passwordTool, "passwords", "Password not set: the server failed to finish it."},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			c, r, db := kitReplica(t, mcpformtest.Full)
			ctx := context.Background()
			ada := map[string]any{"email": "ada@example.com", "plan": "pro"}
			if tt.tool == passwordTool {
				require.Equal(t, "created", c.Call(ctx, toolName, nil, mcpformtest.Accept(ada)).Status)
			}
			d, err := sql.Open("sqlite", db)
			require.NoError(t, err)
			_, err = d.Exec(`DROP TABLE ` + tt.drop)
			require.NoError(t, err)
			d.Close()
			res := c.Call(ctx, tt.tool, nil, mcpformtest.Answer{Values: ada, Secrets: map[string]string{"password": secret}})
			assert.True(t, res.IsError)
			assert.Equal(t, "error", res.Status)
			assert.Contains(t, res.Text, tt.says)
			assert.NotContains(t, res.Text, "no such table", "the database's words stay in the log")
			assert.NotContains(t, res.Text, tt.drop)

			lead := tt.tool + ": reference "
			line, _, _ := strings.Cut(r.logged(t, lead), "\n")
			assert.Contains(t, line, "no such table: "+tt.drop)
			ref := strings.Fields(strings.TrimPrefix(line, lead))[0]
			assert.Contains(t, res.Text, "reference "+strings.TrimSuffix(ref, ":")+".", "the result and the log share the reference")
		})
	}
}

// TestKitStatelessAnswersJSON: a 2026-07-28 call that accepts either gets
// its result as one JSON body, not an event stream, which costs the
// server more and carries nothing more.
func TestKitStatelessAnswersJSON(t *testing.T) {
	r := startReplica(t, keyA)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"test","version":"0"}}}}`
	req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", modern)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", toolName)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var res struct {
		Result struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(data, &res), "%s", data)
	assert.Equal(t, "input_required", res.Result.ResultType)
}

// TestKitSessionsPerClient: one address may open -max-sessions-per-client
// sessions, and then gets 503 while another address is still served,
// whose older client finishes a signup; a session that closes makes room
// for its address.
func TestKitSessionsPerClient(t *testing.T) {
	r := startReplica(t, keyA, "-max-sessions-per-client", "2")
	connect := func(ip string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: ip, Version: "v0"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: r.url, MaxRetries: -1, HTTPClient: fromAddress(t, ip)}, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
		if err == nil {
			t.Cleanup(func() { cs.Close() })
		}
		return cs, err
	}
	var a []*mcp.ClientSession
	for range 2 {
		cs, err := connect("127.0.0.2")
		require.NoError(t, err)
		a = append(a, cs)
	}
	_, err := connect("127.0.0.2")
	require.Error(t, err, "a third session of the same address")
	assert.Contains(t, err.Error(), http.StatusText(http.StatusServiceUnavailable))

	b := mcpformtest.Dial(t, &mcp.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1, HTTPClient: fromAddress(t, "127.0.0.3")}, mcpformtest.Editor)
	res := b.Call(context.Background(), toolName, nil, mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "pro"}))
	assert.Equal(t, "created", res.Status, "another address is served")

	require.NoError(t, a[0].Close())
	require.Eventually(t, func() bool {
		_, err := connect("127.0.0.2")
		return err == nil
	}, 5*time.Second, 50*time.Millisecond, "a session that closes makes room for its address")
}

// TestKitMcpgo runs examples/mcpgo, an mcp-go server, over stdio on every
// host of the kit: the kit speaks the wire, so any server plugs in, and
// the mcp-go face serves every path. A refused seat count is asked again
// by name, and the signup ends as examples/signup's does.
func TestKitMcpgo(t *testing.T) {
	bin := mcpgoBin(t)
	for _, host := range mcpformtest.Hosts() {
		t.Run(host.Name, func(t *testing.T) {
			cmd := exec.Command(bin, "-stdio")
			cmd.Env = append(environ(), keyEnv+"="+keyA)
			c := mcpformtest.Dial(t, &mcp.CommandTransport{Command: cmd}, host)
			res := c.Call(context.Background(), toolName, nil,
				mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
				mcpformtest.Accept(map[string]any{"team_name": "Analytical", "seats": 1}),
				mcpformtest.Accept(map[string]any{"team_name": "Analytical", "seats": 5}))
			require.Nil(t, res.Err)
			assert.Equal(t, "Signup complete: created ada@example.com on the Team plan for \"Analytical\", 5 seats.", saidText(res.Text))
			require.Len(t, res.Rounds, 4)
			assert.Equal(t, []string{"email", "full_name", "plan"}, res.Rounds[0].Names())
			assert.Equal(t, []string{"Seats must be from 2 to 50"}, res.Rounds[2].Problems)
		})
	}
}
