// Package e2e_test is mcpform's end-to-end suite. It builds examples/signup
// once, runs the binary as a host, a client and an operator would, and
// checks what reaches the wire and the database: whole signups for clients
// of every protocol revision, hostile retries, replicas on one database,
// abuse of the HTTP server, the official TypeScript client, set_password's
// secret page in a real Chromium, the host matrix (every kind of host, each
// asked its own way, the MCP Apps one in Chromium), hostile arguments on
// the view, model and link paths, and benchmarks against a hand-built
// server.
//
// Tests that need Node, Chromium or PostgreSQL skip without them, and fail
// under CI=true; see internal/testenv.
package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

// What the example promises its clients and operators.
const (
	toolName       = "signup"
	keyEnv         = "MCPFORM_STATE_KEY"
	localPrincipal = "local"
	listening      = "mcpform signup: listening on "
	mcpgoListening = "mcpform mcpgo: listening on "
)

// Protocol revisions the tests negotiate.
const (
	modern = "2026-07-28"
	legacy = "2025-11-25"
)

// Test keys: 32 bytes each, hex, as MCPFORM_STATE_KEY takes them.
var (
	keyA = strings.Repeat("a1", 32)
	keyB = strings.Repeat("b2", 32)
)

func TestMain(m *testing.M) {
	if os.Getenv(handBuiltEnv) == "1" {
		serveHandBuilt() // the benchmarks' peer, in a process of its own
		return
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// signupBin builds examples/signup, once for the whole run, and returns
// the binary's path.
func signupBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "mcpform-e2e-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "signup")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", binPath, "./examples/signup")
		cmd.Dir = testenv.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("go build ./examples/signup: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// environ is the test's environment without MCPFORM_STATE_KEY.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, keyEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// runBin runs the binary with args, env added to the environment and
// stdin, and returns its exit code and output.
func runBin(t *testing.T, env []string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, signupBin(t), args...)
	cmd.Env = append(environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), o.String(), e.String()
	}
	require.NoError(t, err)
	return 0, o.String(), e.String()
}

// A replica is a server process started by startReplica.
type replica struct {
	url    string
	pid    int
	stderr func() string // its stderr so far
	// stop interrupts it, waits for it to exit and returns how long that
	// took; it is called when the test ends, if not before.
	stop func() time.Duration
}

// logged waits up to 10s for the replica's stderr to hold want and returns
// it from want's first line on. The server writes a log line before it
// answers, but the pipe reaches the test when the reader gets to it, so a
// test that reads at once can miss it.
func (r replica) logged(t testing.TB, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		logs := r.stderr()
		if i := strings.Index(logs, want); i >= 0 {
			return logs[i:]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the server's stderr within 10s:\n%s", want, logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startReplica starts the binary with -http on a free loopback port, key as
// MCPFORM_STATE_KEY ("" for none) and more flags in args.
func startReplica(t testing.TB, key string, args ...string) replica {
	t.Helper()
	return startReplicaOf(t, signupBin(t), key, args...)
}

// startReplicaOf is startReplica for the example built as bin, which
// prints its listening line as examples/signup does, under its own name.
func startReplicaOf(t testing.TB, bin, key string, args ...string) replica {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	cmd.Env = environ()
	if key != "" {
		cmd.Env = append(cmd.Env, keyEnv+"="+key)
	}
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	var mu sync.Mutex
	var log strings.Builder
	r := replica{pid: cmd.Process.Pid, stderr: func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}}
	url := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			u, ok := strings.CutPrefix(sc.Text(), listening)
			if !ok {
				u, ok = strings.CutPrefix(sc.Text(), mcpgoListening)
			}
			if ok {
				url <- u
			}
		}
	}()
	var once sync.Once
	var took time.Duration
	r.stop = func() time.Duration {
		once.Do(func() {
			start := time.Now()
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			err := cmd.Wait()
			took = time.Since(start)
			assert.NoError(t, err, "the server should exit cleanly on interrupt; stderr:\n%s", r.stderr())
		})
		return took
	}
	t.Cleanup(func() { r.stop() })
	select {
	case r.url = <-url:
		require.Regexp(t, `^http://127\.0\.0\.1:[0-9]+/mcp$`, r.url)
		return r
	case <-done:
		t.Fatalf("the server exited before it printed its URL; stderr:\n%s", r.stderr())
	case <-time.After(30 * time.Second):
		t.Fatalf("no listening line in 30s; stderr:\n%s", r.stderr())
	}
	return r
}

// A server is one signup server process on a database of its own, and the
// client sessions the test opened on it.
type server struct {
	db   string // the SQLite file the server stores accounts in
	url  string // its HTTP endpoint, when it serves HTTP
	http bool
}

// newServer starts a server on a new SQLite file: over HTTP, or, with
// stdio, one process per client, spawned by connect.
func newServer(t testing.TB, stdio bool) *server {
	t.Helper()
	s := &server{db: filepath.Join(t.TempDir(), "signup.db"), http: !stdio}
	if !stdio {
		s.url = startReplica(t, keyA, "-db", s.db).url
	}
	return s
}

// connect returns a client session with s. version "" negotiates the latest
// revision. With mrtr false, the client's automatic multi-round-trip loop
// is off, and input_required results reach the caller.
func (s *server) connect(t testing.TB, version string, mrtr bool, p *person) *mcp.ClientSession {
	t.Helper()
	if s.http {
		return connectHTTP(t, s.url, version, mrtr, p)
	}
	cmd := exec.Command(signupBin(t), "-stdio", "-db", s.db)
	cmd.Env = append(environ(), keyEnv+"="+keyA)
	return connectTransport(t, &mcp.CommandTransport{Command: cmd}, version, mrtr, p)
}

// connectHTTP returns a client session over streamable HTTP at url.
func connectHTTP(t testing.TB, url, version string, mrtr bool, p *person) *mcp.ClientSession {
	t.Helper()
	return connectTransport(t, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, version, mrtr, p)
}

func connectTransport(t testing.TB, tr mcp.Transport, version string, mrtr bool, p *person) *mcp.ClientSession {
	t.Helper()
	// Every client declares form elicitation, as the server asks only
	// clients that can answer; one that answers by hand has no handler.
	opts := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !mrtr},
		Capabilities: &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
		},
	}
	if p != nil {
		opts.ElicitationHandler = p.elicit
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "signup-e2e", Version: "v0"}, opts)
	cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	if version != "" {
		require.Equal(t, version, cs.InitializeResult().ProtocolVersion, "negotiated revision")
	}
	return cs
}

// An account is a row of the example's accounts table.
type account struct {
	Email    string `json:"email"`
	FullName string `json:"full_name,omitempty"`
	Plan     string `json:"plan"`
	TeamName string `json:"team_name,omitempty"`
	Seats    int    `json:"seats,omitempty"`
}

// accounts returns every account in the database, by email. driver is
// "sqlite" or "pgx".
func accounts(t testing.TB, driver, dsn string) map[string]account {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT email, full_name, plan, team_name, seats FROM accounts`)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return map[string]account{} // no server opened the file yet
	}
	require.NoError(t, err)
	defer rows.Close()
	all := map[string]account{}
	for rows.Next() {
		var a account
		require.NoError(t, rows.Scan(&a.Email, &a.FullName, &a.Plan, &a.TeamName, &a.Seats))
		all[a.Email] = a
	}
	require.NoError(t, rows.Err())
	return all
}

// accounts returns the accounts s has stored.
func (s *server) accounts(t testing.TB) map[string]account {
	t.Helper()
	return accounts(t, "sqlite", s.db)
}

// call calls the signup tool once, with the given answers and state.
func call(t testing.TB, cs *mcp.ClientSession, state string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, InputResponses: answers, RequestState: state})
}

// asks returns the one form an input_required result asks for.
func asks(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.InputRequests, 1, "want one input request, got result %+v", res)
	for k := range res.InputRequests {
		return k
	}
	return ""
}

// message returns the message of the form res asks for.
func message(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	form := asks(t, res)
	ep, ok := res.InputRequests[form].(*mcp.ElicitParams)
	require.True(t, ok, "input request %q is %T", form, res.InputRequests[form])
	return ep.Message
}

// status returns the status a final result reports in its structured
// content, or "" for a result that has none.
func status(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotNil(t, res)
	m, _ := res.StructuredContent.(map[string]any)
	s, _ := m["status"].(string)
	return s
}

// text returns a result's text content.
// said is what a final result tells the model: its last text block, after
// the heading and summary that FlowRound.Outcome writes for the person.
func said(res *mcp.CallToolResult) string {
	for i := len(res.Content) - 1; i >= 0; i-- {
		if tc, ok := res.Content[i].(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// saidText is said of an mcpformtest result's Text, whose blocks are
// joined by newlines: its last line.
func saidText(text string) string { return text[strings.LastIndex(text, "\n")+1:] }

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// requireBadState asserts that err is the JSON-RPC error for a request
// state that does not verify.
func requireBadState(t testing.TB, err error) {
	t.Helper()
	require.Error(t, err)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "want a JSON-RPC error, got %T: %v", err, err)
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	require.Equal(t, "Invalid or expired requestState", werr.Message)
	require.JSONEq(t, `{"reason":"invalid_request_state"}`, string(werr.Data))
}

// noArguments is the digest a flow binds a call without arguments to: the
// SHA-256 of the JSON null, unpadded base64url (mcpform's internal/canonjson).
var noArguments = func() string {
	sum := sha256.Sum256([]byte("null"))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}()

// mintState mints a flow state as the signup tool would, sealed, for the
// given principal and tool and a call without arguments, under key (hex)
// and clock.
func mintState(t testing.TB, key, principal, tool string, now time.Time, payload any) string {
	t.Helper()
	k, err := hex.DecodeString(key)
	require.NoError(t, err)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{k}, Bind: true, Now: func() time.Time { return now }, Seal: true,
	})
	require.NoError(t, err)
	// "form": bound to the native channel, as a state sent in requestState is.
	tok, err := codec.Mint(payload, mcpform.BindTo(principal, tool, noArguments, "form"))
	require.NoError(t, err)
	return tok
}

// runID returns a run ID as a flow makes one (newRunID, round.go) for a run
// started at start: its start in 6 bytes of Unix seconds, big-endian, and
// 12 random bytes, base64url. A flow with outcomes refuses a state whose
// run ID is not of this form, or started longer ago than it keeps them.
func runID(start time.Time) string {
	var id [18]byte
	secs := uint64(start.Unix())
	for i := range 6 {
		id[i] = byte(secs >> (8 * (5 - i)))
	}
	_, _ = rand.Read(id[6:])
	return base64.RawURLEncoding.EncodeToString(id[:])
}

// A person answers the forms a client is shown, from a script, and records
// what it was asked.
type person struct {
	mu     sync.Mutex
	script map[string][]*mcp.ElicitResult // answers by form, in turn
	asked  []shown
}

// shown is one form as the person saw it.
type shown struct {
	form    string // "account" or "team"
	message string
}

func newPerson(script map[string][]*mcp.ElicitResult) *person {
	return &person{script: maps.Clone(script)} // the person uses up its copy
}

func accepted(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

func (p *person) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	form := formOf(req.Params.RequestedSchema)
	p.asked = append(p.asked, shown{form, req.Params.Message})
	q := p.script[form]
	if len(q) == 0 {
		return nil, errors.New("the script has no answer left for form " + form)
	}
	p.script[form] = q[1:]
	return q[0], nil
}

// forms returns the forms the person was shown, in order.
func (p *person) forms() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var f []string
	for _, a := range p.asked {
		f = append(f, a.form)
	}
	return f
}

// formOf names a requested schema by the step whose fields it asks for.
func formOf(schema any) string {
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	switch {
	case props["email"] != nil:
		return "account"
	case props["team_name"] != nil:
		return "team"
	}
	return "unknown"
}

// jsonBody decodes a token part, unpadded base64url.
func jsonBody(part string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(part)
	return string(b), err
}

// rawURL encodes s as a token part.
func rawURL(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
