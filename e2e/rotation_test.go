package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verifyKeyEnv is the example's variable of keys that only open.
const verifyKeyEnv = "MCPFORM_STATE_VERIFY_KEY"

// rotationSteps are the keys of each step of a rotation from keyA to keyB,
// as the example's doc gives them: the step every replica starts on, then
// the three that each replica takes in turn, rolling.
var rotationSteps = []struct{ name, key, verify string }{
	{"old", keyA, ""},
	{"step 1: new verify-only", keyA, keyB},
	{"step 2: new promoted", keyB, keyA},
	{"step 3: old retired", keyB, ""},
}

// TestKeyRotationAcrossReplicas (issue 33, item 2) rotates the request-state
// key of three replicas of each example, sharing one database (SQLite and
// PostgreSQL), in the three rolling steps its doc gives
// (MCPFORM_STATE_VERIFY_KEY), one replica restarted at a time, while
// signups go on on the native and view paths and set_password on the link
// path. Every phase, between two restarts, begins a run of each path and
// takes every run in flight one round further, each round on another
// replica than the last: a state, a link, a page's secret or an outcome
// is made on one replica and opened on another, one or both of which have
// just taken a step. Every run finishes, once; its last call, replayed on
// each replica in that phase (and, for a view, the next), gets its
// outcome. With the new key first in one step, or with verify-only keys
// ignored, a replica with the old key alone opens nothing a promoted one
// made: -32602, or "a stored outcome opens under none of the codec's
// keys".
//
// The test takes each step as soon as the last replica took the one
// before, where the doc waits twice the TTL before step 3, for all that
// the old key sealed to expire: so no round here carries a state or link
// older than one phase, and the phase before step 3 has every replica
// on step 2.
func TestKeyRotationAcrossReplicas(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.name+"/sqlite", func(t *testing.T) {
			rotateReplicas(t, ex.bin, "sqlite", filepath.Join(t.TempDir(), "shared.db"))
		})
		t.Run(ex.name+"/postgres", func(t *testing.T) {
			rotateReplicas(t, ex.bin, "pgx", freshPostgres(t))
		})
	}
}

// rotateReplicas is TestKeyRotationAcrossReplicas for the example built as
// bin, on the database at dsn, through driver.
func rotateReplicas(t *testing.T, bin, driver, db string) {
	// The secret page's public URL is a proxy in front of the replicas, as
	// a load balancer is, which sends each visit to the replica the test
	// picks.
	var target atomic.Pointer[url.URL]
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target.Load())
		pr.Out.Host = pr.In.Host
	}})
	t.Cleanup(proxy.Close)
	args := []string{"-db", db, "-page-url", proxy.URL + "/secret"}

	type slot struct {
		replica
		step    int
		clients *clientScope
		native  *mcp.ClientSession
		links   *mcp.ClientSession
		view    *mcpformtest.Client
	}
	slots := make([]*slot, 3)
	start := func(i, step int) {
		s := rotationSteps[step]
		t.Setenv(verifyKeyEnv, s.verify)
		slots[i] = &slot{replica: startReplicaOf(t, bin, s.key, args...), step: step, clients: &clientScope{T: t}}
	}
	for i := range slots {
		start(i, 0)
	}
	defer func() { // sessions end before their replicas do
		for _, s := range slots {
			s.clients.end()
		}
	}()
	on := func(i int) *slot { return slots[i%len(slots)] }
	nativeOf := func(s *slot) *mcp.ClientSession {
		if s.native == nil {
			s.native = connectHTTP(s.clients, s.url, modern, false, nil)
		}
		return s.native
	}
	linksOf := func(s *slot) *mcp.ClientSession {
		if s.links == nil {
			s.links = connectURL(s.clients, s.url, modern, nil)
		}
		return s.links
	}
	viewOf := func(s *slot) *mcpformtest.Client {
		if s.view == nil {
			s.view = mcpformtest.Dial(s.clients, &mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1}, mcpformtest.AppsOnly)
		}
		return s.view
	}
	ctx := context.Background()
	team := map[string]any{"team_name": "Analytical Engines", "seats": 12}

	// A run is a list of rounds, one a phase; round k of run j takes
	// replica j+phase, so that its rounds move from replica to replica.
	type run struct {
		name   string
		done   int // rounds taken
		rounds []func(s *slot, where string)
	}
	var runs []*run
	const phases = 10 // phase 0, and one after each of 9 restarts
	emails := map[string]string{}
	for p := range phases {
		// set_password needs an account: made before anything rotates.
		email := fmt.Sprintf("link%d@example.com", p)
		signUp(t, linksOf(slots[0]), email)
		emails[email] = "link"
	}
	// newRuns returns a run of each path, begun at phase p.
	newRuns := func(p int) []*run {
		var out []*run
		{ // native: the account form, the team form, the outcome
			email := fmt.Sprintf("native%d@example.com", p)
			emails[email] = "team"
			var state string
			answers := mcp.InputResponseMap{"team": accepted(team)}
			out = append(out, &run{name: "native " + email, rounds: []func(*slot, string){
				func(s *slot, where string) {
					res, err := call(t, nativeOf(s), "", nil)
					require.NoError(t, err, where)
					require.Equal(t, "account", asks(t, res), where)
					state = res.RequestState
				},
				func(s *slot, where string) {
					res, err := call(t, nativeOf(s), state, mcp.InputResponseMap{"account": accepted(map[string]any{"email": email, "plan": "team"})})
					require.NoError(t, err, where)
					require.Equal(t, "team", asks(t, res), where)
					state = res.RequestState
				},
				func(s *slot, where string) {
					res, err := call(t, nativeOf(s), state, answers)
					require.NoError(t, err, where)
					require.Equal(t, "created", status(t, res), "%s: %s", where, text(res))
					for i, s := range slots {
						again, err := call(t, nativeOf(s), state, answers)
						require.NoError(t, err, "%s, replayed on replica %d", where, i)
						assert.Equal(t, text(res), text(again), "%s, replayed on replica %d", where, i)
					}
				},
			}})
		}
		{ // view: the account view submitted, then the team view
			email := fmt.Sprintf("view%d@example.com", p)
			emails[email] = "team"
			var last []byte
			var final string
			out = append(out, &run{name: "view " + email, rounds: []func(*slot, string){
				func(s *slot, where string) {
					res := viewOf(s).Call(ctx, toolName, nil, mcpformtest.Accept(map[string]any{"email": email, "plan": "team"}))
					require.Nil(t, res.Err, where)
					require.Len(t, res.Rounds, 2, where)
					require.Equal(t, mcpformtest.PathView, res.Rounds[1].Path, where)
					require.Equal(t, []string{"team_name", "seats"}, res.Rounds[1].Names(), where)
					last = res.Last // the account view's submit, with its state
				},
				func(s *slot, where string) {
					res := viewOf(s).Replay(ctx, last, mcpformtest.Accept(team))
					require.Nil(t, res.Err, where)
					require.Equal(t, "created", res.Status, "%s: %s", where, res.Text)
					final, last = res.Text, res.Last
				},
				func(_ *slot, where string) {
					for i, s := range slots {
						res := viewOf(s).Replay(ctx, last)
						require.Nil(t, res.Err, "%s, replayed on replica %d", where, i)
						assert.Equal(t, final, res.Text, "%s, replayed on replica %d", where, i)
					}
				},
			}})
		}
		{ // link: the form and the page's link; the page posted on one
			// replica and the call finished on the next; the outcome
			email := fmt.Sprintf("link%d@example.com", p)
			var state, link string
			answers := mcp.InputResponseMap{passwordForm: accepted(map[string]any{"email": email}), passwordPage: &mcp.ElicitResult{Action: "accept"}}
			out = append(out, &run{name: "link " + email, rounds: []func(*slot, string){
				func(s *slot, where string) {
					res, err := setPassword(linksOf(s), "", nil)
					require.NoError(t, err, where)
					link, state = pageLink(t, res, proxy.URL), res.RequestState
				},
				func(s *slot, where string) {
					page := slots[(slices.Index(slots, s)+1)%len(slots)]
					u, err := url.Parse(page.url)
					require.NoError(t, err)
					target.Store(&url.URL{Scheme: u.Scheme, Host: u.Host})
					code, body := postPage(t, link, secret)
					require.Equal(t, http.StatusOK, code, "%s, the page on the next replica: %s", where, body)
					res, err := setPassword(linksOf(s), state, answers)
					require.NoError(t, err, where)
					require.Equal(t, "updated", status(t, res), "%s: %s", where, text(res))
					for i, s := range slots {
						again, err := setPassword(linksOf(s), state, answers)
						require.NoError(t, err, "%s, replayed on replica %d", where, i)
						assert.Equal(t, text(res), text(again), "%s, replayed on replica %d", where, i)
					}
				},
			}})
		}
		return out
	}

	steps := func() string {
		var b []byte
		for i, s := range slots {
			b = fmt.Appendf(b, " %d:%s", i, rotationSteps[s.step].name)
		}
		return string(b)
	}
	for p := 0; ; p++ {
		if p > 0 && p < phases { // restart one replica a step further, rolling
			i := (p - 1) % len(slots)
			step := slots[i].step + 1
			slots[i].clients.end()
			slots[i].stop()
			start(i, step)
		}
		if p < phases {
			runs = append(runs, newRuns(p)...)
		}
		left := runs[:0]
		for j, r := range runs {
			s := on(j + p)
			where := fmt.Sprintf("%s, round %d in phase %d on replica %d, replicas on%s", r.name,
				r.done+1, p, (j+p)%len(slots), steps())
			r.rounds[0](s, where)
			r.done++
			if r.rounds = r.rounds[1:]; len(r.rounds) > 0 {
				left = append(left, r)
			}
		}
		runs = left
		if p >= phases && len(runs) == 0 {
			break
		}
	}
	for _, s := range slots {
		require.Equal(t, len(rotationSteps)-1, s.step, "every replica took every step")
	}

	got := accounts(t, driver, db)
	assert.Len(t, got, len(emails), "one account per run, and no other")
	for email, kind := range emails {
		a, ok := got[email]
		if !assert.True(t, ok, "no account %s", email) {
			continue
		}
		if kind == "team" {
			assert.Equal(t, account{Email: email, Plan: "team", TeamName: "Analytical Engines", Seats: 12}, a)
		} else {
			checkPasswordHash(t, driver, db, email, secret)
		}
	}
}

// A clientScope is a test's TB whose Cleanups run when end is called,
// not when the test ends: the sessions of one replica, which end before
// the test restarts it.
type clientScope struct {
	*testing.T
	cleanups []func()
}

// Cleanup registers f to run at end.
func (c *clientScope) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }

// end runs the cleanups, last registered first.
func (c *clientScope) end() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.cleanups = nil
}
