package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The releases a rolling deploy spans, as commits of this repository.
//
// previousRelease is the last main (a first-parent commit) before HEAD's
// formats to change one of the formats a run crosses replicas in: the
// state, its binding, the run ID, the secret link, the view's submit and
// its companion. A deploy from it to HEAD, or back, must lose no run in
// flight. A change of one of those formats (see the version constants:
// stateVersion in the root's state.go, linkVersion in internal/secretpage,
// SubmitVersion in internal/prefab, the token's prefixes in
// internal/token) sets previousRelease to the main before it.
//
// firstRelease is the main before formats carried versions: HEAD reads
// its runs as well, one way, as it was not yet such a release and need
// not read what HEAD writes.
const (
	// Merge i32-flow: each state records its steps' paths, after the
	// link's padding (7fb4ff4) and the view's arguments as text (fc379fe).
	previousRelease = "b0eee44ee3b881c2ec69581b304b340a1823bd64"
	firstRelease    = "7850258d4c514451a725702800e6faf8dfae4dca"
)

var (
	releaseMu   sync.Mutex
	releaseBins = map[string]*releaseBuild{}
)

type releaseBuild struct {
	once sync.Once
	path string
	err  error
}

// releaseBin builds examples/signup as it was at commit, once for the
// whole run, in a git worktree of its own in a temporary directory, and
// returns the binary's path. A commit missing from the clone (a shallow
// one) skips the test, or fails it under CI, where .ci/run fetches the
// history.
func releaseBin(t *testing.T, commit string) string {
	t.Helper()
	root := testenv.Root(t)
	if err := exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		testenv.Missing(t, "commit %.7s is not in this clone (a shallow one?); git fetch --unshallow", commit)
	}
	releaseMu.Lock()
	b := releaseBins[commit]
	if b == nil {
		b = &releaseBuild{}
		releaseBins[commit] = b
	}
	releaseMu.Unlock()
	signupBin(t) // makes binDir, which TestMain removes
	b.once.Do(func() { b.path, b.err = buildRelease(root, commit) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// buildRelease checks commit out in a git worktree of its own in the
// temporary directory, builds examples/signup there into signupBin's
// directory and removes the worktree. The worktree's path is the same on
// every run, so that the build cache serves the next.
func buildRelease(root, commit string) (string, error) {
	tree := filepath.Join(os.TempDir(), "mcpform-release-"+commit[:12])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := func(dir string, args ...string) error {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return errors.New(strings.Join(args, " ") + ": " + err.Error() + "\n" + string(out))
		}
		return nil
	}
	remove := func() {
		run(root, "git", "worktree", "remove", "--force", tree)
		os.RemoveAll(tree)
	}
	remove() // left by a run that was killed
	// --force: a run killed after its directory was removed leaves the
	// worktree registered, with its directory missing.
	if err := run(root, "git", "worktree", "add", "--force", "--detach", tree, commit); err != nil {
		return "", err
	}
	defer remove()
	bin := filepath.Join(binDir, "signup-"+commit[:12])
	if err := run(tree, "go", "build", "-o", bin, "./examples/signup"); err != nil {
		return "", err
	}
	return bin, nil
}

// A switchboard is one endpoint in front of two replicas, as a load
// balancer is during a rolling deploy: everything goes to the first until
// the first tools/call has reached it, and from then on to the second,
// but for a 2025-11-25 session, which stays where it was opened.
type switchboard struct {
	url      string
	from, to *url.URL

	mu       sync.Mutex
	switched bool
	counts   [2]int              // requests sent to from and to since begin
	sessions map[string]*url.URL // Mcp-Session-Id → the replica that opened it
}

// newSwitchboard starts a switchboard; its replicas are set by begin.
func newSwitchboard(t *testing.T) *switchboard {
	s := &switchboard{sessions: map[string]*url.URL{}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(pr.In.Context().Value(targetKey{}).(*url.URL))
		},
		ModifyResponse: func(res *http.Response) error {
			if id := res.Header.Get("Mcp-Session-Id"); id != "" {
				s.mu.Lock()
				if s.sessions[id] == nil {
					s.sessions[id] = res.Request.Context().Value(targetKey{}).(*url.URL)
				}
				s.mu.Unlock()
			}
			return nil
		},
		FlushInterval: -1, // event streams as they come
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct{ Method string }
		tool := json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call"
		proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, s.route(r, tool))))
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// begin sends what comes next to the replica at from, until the first
// tools/call, and then to the one at to.
func (s *switchboard) begin(t *testing.T, from, to replica) {
	parse := func(raw string) *url.URL {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		return &url.URL{Scheme: u.Scheme, Host: u.Host}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.from, s.to, s.switched, s.counts = parse(from.url), parse(to.url), false, [2]int{}
}

// served returns how many requests went to each replica since begin.
func (s *switchboard) served() (from, to int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[0], s.counts[1]
}

type targetKey struct{}

// route returns the replica r goes to; a tools/call switches what comes
// after it.
func (s *switchboard) route(r *http.Request, toolCall bool) *url.URL {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.from
	if s.switched {
		u = s.to
	}
	if id := s.sessions[r.Header.Get("Mcp-Session-Id")]; id != nil {
		u = id
	}
	s.switched = s.switched || toolCall
	if u == s.from {
		s.counts[0]++
	} else if u == s.to {
		s.counts[1]++
	}
	return u
}

// appsHost is a 2026-07-28 host that shows MCP Apps views and has no
// form elicitation: its calls carry no session, so a view's submit can
// land on another replica than the view came from.
var appsHost = mcpformtest.Host{Name: "Apps", Protocol: mcpformtest.Latest, Apps: true}

// TestRollingDeploy runs a replica of one release and one of another on
// one SQLite file with one key, behind a switchboard, and begins each run
// on the one and finishes it on the other, on every path: native forms,
// the model's arguments (-ask-model), an MCP Apps view submitted through
// its companion, the secret page's link on each kind of host, and a
// 2025-11-25 client, whose session stays put while its page is posted to
// the other replica. Nothing is lost: every run finishes as it would on
// one replica.
func TestRollingDeploy(t *testing.T) {
	head := signupBin(t)
	previous := releaseBin(t, previousRelease)
	first := releaseBin(t, firstRelease)
	for _, tt := range []struct {
		name     string
		from, to string
	}{
		{"previous to HEAD", previous, head},
		{"HEAD to previous", head, previous},
		{"7850258 to HEAD", first, head},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSwitchboard(t)
			db := filepath.Join(t.TempDir(), "signup.db")
			args := []string{"-db", db, "-page-url", sb.url + "/secret"}
			from, to := startReplicaOf(t, tt.from, keyA, args...), startReplicaOf(t, tt.to, keyA, args...)
			call := func(t *testing.T, host mcpformtest.Host, tool string, answers ...mcpformtest.Answer) *mcpformtest.Result {
				sb.begin(t, from, to)
				c := mcpformtest.Dial(t, &mcp.StreamableClientTransport{Endpoint: sb.url + "/mcp", MaxRetries: -1}, host)
				res := c.Call(context.Background(), tool, nil, answers...)
				require.Nil(t, res.Err, "%s", res.Text)
				for _, r := range res.Rounds {
					require.Contains(t, []int{0, http.StatusOK}, r.Page, "the page of %s's link on the other replica", r.Path)
				}
				from, to := sb.served()
				require.NotZero(t, from, "requests the run began on")
				require.NotZero(t, to, "requests the run went on with on the other release")
				return res
			}
			team := map[string]any{"team_name": "Analytical Engines", "seats": 12}
			for _, p := range []struct {
				name string
				host mcpformtest.Host
				path mcpformtest.Path
			}{
				{"native", mcpformtest.Full, mcpformtest.PathNative},
				{"model", mcpformtest.Bare, mcpformtest.PathModel},
				{"view", appsHost, mcpformtest.PathView},
			} {
				t.Run(p.name, func(t *testing.T) {
					email := p.name + "@example.com"
					res := call(t, p.host, toolName,
						mcpformtest.Accept(map[string]any{"email": email, "plan": "team"}), mcpformtest.Accept(team))
					assert.Equal(t, "created", res.Status, res.Text)
					assert.Equal(t, p.path, res.Rounds[0].Path)
					assert.Equal(t, 12, accounts(t, "sqlite", db)[email].Seats)
				})
			}
			for _, p := range []struct {
				name    string
				host    mcpformtest.Host
				account string // made by a run above
			}{
				{"link in a form", mcpformtest.Full, "native@example.com"},
				{"link in a view", appsHost, "view@example.com"},
				{"link for the model", mcpformtest.Bare, "model@example.com"},
				{"legacy", mcpformtest.Editor, "native@example.com"},
			} {
				t.Run(p.name, func(t *testing.T) {
					pw := secret + "-" + strings.ReplaceAll(p.name, " ", "-")
					password := mcpformtest.Answer{Values: map[string]any{"email": p.account}, Secrets: map[string]string{"password": pw}}
					res := call(t, p.host, passwordTool, password, password)
					assert.Equal(t, "Password set for "+p.account+".", saidText(res.Text), "rounds: %+v", res.Rounds)
					checkPasswordHash(t, "sqlite", db, p.account, pw)
				})
			}
		})
	}
}
