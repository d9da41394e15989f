package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The benchmarks run one whole team signup per iteration against a server
// process over streamable HTTP on loopback: three tools/call requests
// through go-sdk's client and its multi-round-trip loop, two elicitations
// answered at once, and an account stored in SQLite in memory.
// BenchmarkSignupMcpform runs the example's binary; BenchmarkSignupHandBuilt
// the same flow written without mcpform, as a server author would by hand
// (literal schemas, type assertions, an HMAC over JSON), served by this test
// binary re-run as a helper process. The ratio of the two is what mcpform
// costs in a real round trip.
//
//	go test -run '^$' -bench Signup -count 10 ./e2e | tee /tmp/b.txt
//	go run golang.org/x/perf/cmd/benchstat@latest /tmp/b.txt

func BenchmarkSignupMcpform(b *testing.B) {
	benchSignup(b, startReplica(b, keyA).url)
}

func BenchmarkSignupHandBuilt(b *testing.B) {
	benchSignup(b, startHandBuilt(b))
}

func benchSignup(b *testing.B, url string) {
	var n atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if formOf(req.Params.RequestedSchema) == "team" {
				return accepted(map[string]any{"team_name": "Analytical Engines", "seats": 12}), nil
			}
			email := "user" + strconv.FormatInt(n.Add(1), 10) + "@example.com"
			return accepted(map[string]any{"email": email, "full_name": "Ada Lovelace", "plan": "team"}), nil
		},
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	require.NoError(b, err)
	defer cs.Close()

	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError || len(res.InputRequests) > 0 || status(b, res) != "created" {
			b.Fatalf("signup did not complete: %+v", res)
		}
	}
}

// handBuiltEnv, set to 1, makes the test binary serve the hand-built
// signup over HTTP instead of running tests; see TestMain.
const handBuiltEnv = "MCPFORM_E2E_HANDBUILT"

// startHandBuilt starts the test binary as the hand-built server and
// returns its URL.
func startHandBuilt(t testing.TB) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), handBuiltEnv+"=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), listening)
	require.True(t, ok, "the hand-built server said %q", line)
	return url
}

// serveHandBuilt serves the hand-built signup on a loopback port until
// the process is killed.
func serveHandBuilt() {
	h, err := newHandBuilt()
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "hand-built", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)}, h.handle)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%shttp://%s/mcp\n", listening, ln.Addr())
	log.Fatal(http.Serve(ln, handler))
}

// TestHandBuilt checks that the hand-built baseline does the same job as
// the example, so that the benchmark compares like with like.
func TestHandBuilt(t *testing.T) {
	raw := connectHTTP(t, startHandBuilt(t), modern, false, nil)
	first, err := call(t, raw, "", nil)
	require.NoError(t, err)
	ref, err := call(t, connectHTTP(t, startReplica(t, keyA).url, modern, false, nil), "", nil)
	require.NoError(t, err)
	got, _ := json.Marshal(first.InputRequests)
	want, _ := json.Marshal(ref.InputRequests)
	assert.JSONEq(t, string(want), string(got), "the same form")

	// go-sdk's client would refuse to send a name that breaks the schema,
	// so the hand-built server is driven raw here, like TestHostile.
	res, err := call(t, raw, first.RequestState, mcp.InputResponseMap{"account": accepted(
		map[string]any{"email": "ada@example.com", "plan": "team", "full_name": 7})})
	require.NoError(t, err)
	require.Equal(t, "team", asks(t, res), "an invalid optional value is dropped")
	team := res.RequestState
	res, err = call(t, raw, team, mcp.InputResponseMap{"team": accepted(map[string]any{"team_name": "A", "seats": 12})})
	require.NoError(t, err)
	require.Equal(t, "team", asks(t, res), "a short team name is asked again")
	assert.Contains(t, message(t, res), "Please check: Team name: shorter than 2 characters.")
	res, err = call(t, raw, res.RequestState, mcp.InputResponseMap{"team": accepted(engines)})
	require.NoError(t, err)
	assert.Equal(t, "created", status(t, res))
	assert.Equal(t, "Analytical Engines", res.StructuredContent.(map[string]any)["account"].(map[string]any)["team_name"])
	again, err := call(t, raw, team, mcp.InputResponseMap{"team": accepted(map[string]any{"team_name": "Other", "seats": 3})})
	require.NoError(t, err)
	assert.Equal(t, text(res), text(again), "a replay of the run gets its first outcome")

	_, err = call(t, raw, res.RequestState+"x", mcp.InputResponseMap{"team": accepted(engines)})
	requireBadState(t, err)
}

// handBuilt is the signup flow without mcpform.
type handBuilt struct {
	key     []byte
	db      *sql.DB
	account *jsonschema.Schema
	team    *jsonschema.Schema
}

func newHandBuilt() (*handBuilt, error) {
	key := bytes.Repeat([]byte{0xa1}, 32)
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`CREATE TABLE signups (idem_key TEXT PRIMARY KEY, result TEXT NOT NULL)`,
		`CREATE TABLE accounts (email TEXT PRIMARY KEY, idem_key TEXT NOT NULL UNIQUE, full_name TEXT NOT NULL,
			plan TEXT NOT NULL, team_name TEXT NOT NULL, seats INTEGER NOT NULL)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			return nil, err
		}
	}
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	return &handBuilt{
		key: key,
		db:  db,
		account: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"email":     {Type: "string", Title: "Email", Description: "One account per address; we send receipts here.", Format: "email"},
				"full_name": {Type: "string", Title: "Full name", Description: "How we greet you.", MaxLength: i(100)},
				"plan": {Type: "string", Title: "Plan", Description: "Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.",
					OneOf: []*jsonschema.Schema{option("free", "Free"), option("pro", "Pro, $12 a month"),
						option("team", "Team, $10 a seat a month")},
					Default: json.RawMessage(`"free"`)},
			},
			PropertyOrder: []string{"email", "full_name", "plan"},
			Required:      []string{"email", "plan"},
		},
		team: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"team_name": {Type: "string", Title: "Team name", MinLength: i(2), MaxLength: i(60)},
				"seats": {Type: "integer", Title: "Seats", Description: "How many people will sign in.",
					Minimum: f(2), Maximum: f(50), Default: json.RawMessage(`5`)},
			},
			PropertyOrder: []string{"team_name", "seats"},
			Required:      []string{"team_name", "seats"},
		},
	}, nil
}

// option is a titled choice, as SEP-1330 writes one.
func option(value, title string) *jsonschema.Schema {
	var c any = value
	return &jsonschema.Schema{Const: &c, Title: title}
}

// handState is what the hand-built state carries.
type handState struct {
	ID      string         `json:"i"`
	Step    string         `json:"s"`
	Attempt int            `json:"n,omitempty"`
	Proven  map[string]any `json:"a,omitempty"`
	Exp     int64          `json:"exp"`
	Bind    string         `json:"b"`
}

func (h *handBuilt) mac(data []byte) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write(data)
	return m.Sum(nil)
}

func (h *handBuilt) mint(st handState, bind string) (string, error) {
	st.Exp = time.Now().Add(10 * time.Minute).Unix()
	st.Bind = base64.RawURLEncoding.EncodeToString(h.mac([]byte("bind:" + bind))[:16])
	body, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	signed := "v1." + base64.RawURLEncoding.EncodeToString(body)
	return signed + "." + base64.RawURLEncoding.EncodeToString(h.mac([]byte(signed))), nil
}

var errBadState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid or expired requestState",
	Data: json.RawMessage(`{"reason":"invalid_request_state"}`)}

func (h *handBuilt) verify(token, bind string) (handState, error) {
	var st handState
	dot := strings.LastIndexByte(token, '.')
	if !strings.HasPrefix(token, "v1.") || dot < 3 {
		return st, errBadState
	}
	mac, err := base64.RawURLEncoding.DecodeString(token[dot+1:])
	if err != nil || !hmac.Equal(mac, h.mac([]byte(token[:dot]))) {
		return st, errBadState
	}
	body, err := base64.RawURLEncoding.DecodeString(token[3:dot])
	if err != nil || json.Unmarshal(body, &st) != nil {
		return st, errBadState
	}
	tag := base64.RawURLEncoding.EncodeToString(h.mac([]byte("bind:" + bind))[:16])
	if st.Exp < time.Now().Unix() || !hmac.Equal([]byte(tag), []byte(st.Bind)) {
		return st, errBadState
	}
	return st, nil
}

func (h *handBuilt) ask(step string, st handState, bind, problem string) (*mcp.CallToolResult, error) {
	st.Step = step
	tok, err := h.mint(st, bind)
	if err != nil {
		return nil, err
	}
	// The example's messages: where the step stands, its words, a
	// problem, and what accepting does.
	schema, msg, last := h.account, "Step 1 of up to 2\n\nCreate your account",
		"Depending on your answers, this may be the last step. Accepting it then does this: Create account."
	if step == "team" {
		schema, msg, last = h.team, "Step 2 of 2\n\nTell us about your team", "This is the last step. Accepting it does this: Create account."
	}
	if problem != "" {
		msg += "\n\nPlease check: " + problem + "."
	}
	msg += "\n\n" + last
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{step: &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}},
		RequestState:  tok,
	}, nil
}

func (h *handBuilt) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	bind := localPrincipal + "\x00" + req.Params.Name
	if req.Params.RequestState == "" && len(req.Params.InputResponses) == 0 && rendersApps(req.ClientCapabilities()) {
		return nil, errors.New("the benchmark's client renders no MCP Apps")
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
		return nil, errors.New("the client can't be asked")
	}
	if req.Params.RequestState == "" {
		var id [16]byte
		rand.Read(id[:])
		return h.ask("account", handState{ID: base64.RawURLEncoding.EncodeToString(id[:]), Proven: map[string]any{}}, bind, "")
	}
	st, err := h.verify(req.Params.RequestState, bind)
	if err != nil {
		return nil, err
	}
	if st.Proven == nil {
		st.Proven = map[string]any{}
	}
	r, _ := req.Params.InputResponses[st.Step].(*mcp.ElicitResult)
	switch {
	case r == nil:
		return h.ask(st.Step, st, bind, "")
	case r.Action == "decline":
		return notCompleted("declined", "Signup not completed: you declined."), nil
	case r.Action == "cancel":
		return notCompleted("cancelled", "Signup not completed: cancelled."), nil
	}
	var problem string
	if r.Action != "accept" || r.Content == nil {
		problem = "the answer has no content"
	} else if st.Step == "account" {
		problem = checkAccount(r.Content, st.Proven)
	} else {
		problem = checkTeam(r.Content, st.Proven)
	}
	if problem != "" {
		st.Attempt++
		if st.Attempt > 3 {
			return notCompleted("invalid", "Signup not completed: "+problem), nil
		}
		return h.ask(st.Step, st, bind, problem)
	}
	st.Attempt = 0
	if st.Step == "account" && st.Proven["plan"] == "team" {
		return h.ask("team", st, bind, "")
	}
	return h.finish(ctx, "flow:"+st.ID, st.Proven)
}

// rendersApps is the example's MCP Apps check, by hand.
func rendersApps(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	ext, _ := caps.Extensions["io.modelcontextprotocol/ui"].(map[string]any)
	types, _ := ext["mimeTypes"].([]any)
	for _, t := range types {
		if t == "text/html;profile=mcp-app" {
			return true
		}
	}
	return false
}

// checkAccount copies the valid account answers into proven, or says what
// is wrong with a required one. An invalid optional value is dropped.
func checkAccount(c, proven map[string]any) string {
	email, ok := c["email"].(string)
	if !ok {
		return "Email: not a string"
	}
	if at := strings.LastIndexByte(email, '@'); at < 1 || at == len(email)-1 || strings.ContainsAny(email, " \t") {
		return "Email: not a valid email address"
	}
	plan, _ := c["plan"].(string)
	if plan != "free" && plan != "pro" && plan != "team" {
		return "Plan: not one of the options"
	}
	proven["email"], proven["plan"] = email, plan
	if name, ok := c["full_name"].(string); ok && len([]rune(name)) <= 100 {
		proven["full_name"] = name
	}
	return ""
}

func checkTeam(c, proven map[string]any) string {
	name, ok := c["team_name"].(string)
	if !ok {
		return "Team name: not a string"
	}
	if n := len([]rune(name)); n < 2 {
		return "Team name: shorter than 2 characters"
	} else if n > 60 {
		return "Team name: longer than 60 characters"
	}
	seats, ok := c["seats"].(float64)
	if !ok || seats != math.Trunc(seats) || seats < 2 || seats > 50 {
		return "Seats: not a whole number from 2 to 50"
	}
	proven["team_name"], proven["seats"] = name, seats
	return ""
}

// finish creates the account once per run ID, as the example's store
// does: the first outcome stored under the ID is returned to any replay.
func (h *handBuilt) finish(ctx context.Context, idem string, p map[string]any) (*mcp.CallToolResult, error) {
	email, _ := p["email"].(string)
	a := account{Email: email, Plan: p["plan"].(string)}
	a.FullName, _ = p["full_name"].(string)
	if a.Plan == "team" {
		a.TeamName, _ = p["team_name"].(string)
		seats, _ := p["seats"].(float64)
		a.Seats = int(seats)
	}
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var stored string
	if tx.QueryRowContext(ctx, `SELECT result FROM signups WHERE idem_key = ?`, idem).Scan(&stored) == nil {
		var res mcp.CallToolResult
		return &res, json.Unmarshal([]byte(stored), &res)
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		strings.ToLower(email), idem, a.FullName, a.Plan, a.TeamName, a.Seats)
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Signup complete: created " + email + "."}},
		StructuredContent: map[string]any{"status": "created", "account": a}}
	if n, _ := r.RowsAffected(); n == 0 {
		res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: email + " is already registered."}},
			StructuredContent: map[string]any{"status": "exists"}, IsError: true}
	}
	blob, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO signups VALUES (?, ?)`, idem, string(blob)); err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

func notCompleted(status, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"status": status}}
}
