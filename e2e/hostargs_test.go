package e2e_test

// Hostile arguments on the paths where answers and state travel in a
// tool's arguments (an MCP Apps view's submit, the model's call, the
// link's call back), against the binary: each gets the answer the same
// hostility gets on the native path, and nothing is created.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An argsPath is a kind of host whose answers travel in the arguments.
type argsPath struct {
	name    string
	version string
	apps    bool // an MCP Apps view submits; otherwise the model calls
}

var argsPaths = []argsPath{
	{"view", modern, true},
	{"view", legacy, true},
	{"model", modern, false},
}

// connect returns a client session with the server at url, declaring the
// Apps extension or nothing.
func (p argsPath) connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	if p.apps {
		return appsClient(t, &server{url: url, http: true}, p.version)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "v0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: p.version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call sends args to tool as the path does: a view through the app-only
// companion, naming the tool; the model directly.
func (p argsPath) call(cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	if p.apps {
		args = merged(args, map[string]any{"mcpformTool": tool})
		tool = companionTool
	}
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
}

// first calls tool with no arguments and returns the state its result
// says to send back.
func (p argsPath) first(t *testing.T, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	require.NoError(t, err)
	sc, _ := res.StructuredContent.(map[string]any)
	args, _ := sc["arguments"].(map[string]any)
	state, _ := args[mcpform.StateArgument].(string)
	require.NotEmpty(t, state, "no state in %s", jsonOf(t, res))
	return state
}

// outcomeOf is a call's outcome, as the same for every path: a JSON-RPC
// error's code, the step asked again with the problems it names, or the
// final status and text, its tokens blanked.
func outcomeOf(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return fmt.Sprintf("error %d", rpcErr.Code)
	}
	require.NoError(t, err)
	if last := endedOf(t, res); last != nil { // a view's submit's last result
		res = last
	}
	var step, says string
	sc, _ := res.StructuredContent.(map[string]any)
	switch {
	case len(res.InputRequests) > 0: // native
		step, says = asks(t, res), message(t, res)
	case sc["$prefab"] != nil: // a view
		v := viewOf(t, res)
		step, says = formOf(map[string]any{"properties": fieldSet(v.fields)}), v.problems
	case sc["requestedSchema"] != nil: // the model
		step, says = formOf(sc["requestedSchema"]), text(res)
	default: // links and states differ from call to call
		return status(t, res) + ": " + tokenRe.ReplaceAllString(text(res), "<token>")
	}
	// The problems are the paragraph after the message, or all a view
	// tells the model after its own.
	paras := strings.Split(says, "\n\n")
	if len(res.InputRequests) > 0 {
		// Natively, where the step stands comes first, and what
		// accepting does last (issue 34).
		paras = paras[1:]
		if strings.HasSuffix(paras[len(paras)-1], ": Create account.") {
			paras = paras[:len(paras)-1]
		}
	}
	if sc["$prefab"] == nil {
		paras = paras[1:]
	}
	if len(paras) > 0 && paras[0] != "" && !strings.HasPrefix(paras[0], "Ask the person") {
		return "ask " + step + ": " + paras[0]
	}
	return "ask " + step
}

func fieldSet(names []string) map[string]any {
	m := map[string]any{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// A hostileArgs is one hostile call of the account step: the state and
// answers sent, and arguments added.
type hostileArgs struct {
	name string
	// state turns the state the server sent (for the path, or natively)
	// into the one sent; other is a state of set_password's, asked the
	// same way.
	state   func(t *testing.T, state, other string) string
	answers map[string]any
	extra   map[string]any // arguments beyond the answers and the state
	want    string         // the outcome, on every path and natively
}

func sameState(_ *testing.T, state, _ string) string { return state }

var ada = map[string]any{"email": "ada@example.com", "plan": "pro"}

var hostileArgsCases = []hostileArgs{
	{"a forged state", func(t *testing.T, _, _ string) string {
		return mintState(t, keyB, localPrincipal, toolName, time.Now(), askAccount)
	}, ada, nil, "error -32602"},
	{"a tampered state", func(_ *testing.T, s, _ string) string { return flipChar(s, len(s)/2) }, ada, nil, "error -32602"},
	{"set_password's state", func(_ *testing.T, _, other string) string { return other }, ada, nil, "error -32602"},
	{"an expired state", func(t *testing.T, _, _ string) string {
		return mintState(t, keyA, localPrincipal, toolName, time.Now().Add(-24*time.Hour), askAccount)
	}, ada, nil, "error -32602"},
	{"an argument of the tool's own added", sameState, ada, map[string]any{"admin": true}, "error -32602"},
	// A later step's field is a flow's key, not the tool's: it is not
	// taken as that step's answer before the step is asked.
	{"a later step's answers sent early", sameState, map[string]any{"email": "ada@example.com", "plan": "team", "team_name": "Early", "seats": 3}, nil,
		"ask team"},
	{"a plan outside the schema", sameState, map[string]any{"email": "ada@example.com", "plan": "gold"}, nil,
		"ask account: Choose one of the options for Plan."},
	{"an email that is a number", sameState, map[string]any{"email": 42, "plan": "pro"}, nil,
		"ask account: Email must be an email address, like name@example.com."},
	{"a full name too long", sameState, map[string]any{"email": "ada@example.com", "plan": "pro", "full_name": strings.Repeat("a", 101)}, nil,
		"ask account: Full name must be 100 characters or fewer."},
}

// TestHostileArguments sends each hostile call on every path whose answers
// are arguments, and the same hostility natively, and checks that both get
// the same outcome and that nothing is created.
func TestHostileArguments(t *testing.T) {
	srv := newServer(t, false)
	native := srv.connect(t, modern, false, nil)
	for _, tt := range hostileArgsCases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, native, "", nil)
			require.NoError(t, err)
			other, err := setPassword(native, "", nil)
			require.NoError(t, err)
			res, err = native.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, Arguments: tt.extra,
				RequestState:   tt.state(t, res.RequestState, other.RequestState),
				InputResponses: mcp.InputResponseMap{"account": accepted(tt.answers)}})
			assert.Equal(t, tt.want, outcomeOf(t, res, err), "native")

			for _, p := range argsPaths {
				cs := p.connect(t, srv.url)
				args := merged(tt.answers, tt.extra, map[string]any{
					mcpform.StateArgument: tt.state(t, p.first(t, cs, toolName), p.first(t, cs, passwordTool))})
				res, err := p.call(cs, toolName, args)
				assert.Equal(t, tt.want, outcomeOf(t, res, err), "%s %s", p.name, p.version)
				if p.apps && tt.want != "error -32602" {
					// The model sending the view's state itself, not
					// through the companion: refused whatever it holds.
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, Arguments: args})
					assert.Equal(t, "error -32602", outcomeOf(t, res, err), "%s %s, called by the model", p.name, p.version)
				}
			}
			assert.Empty(t, srv.accounts(t))
		})
	}
}

// TestHostileArgumentsOtherPrincipal: a state sent back to a replica that
// binds calls to another principal is refused as natively, and creates
// nothing.
func TestHostileArgumentsOtherPrincipal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "signup.db")
	ours := startReplica(t, keyA, "-db", db).url
	theirs := startReplica(t, keyA, "-db", db, "-principal", "mallory").url
	send := func(cs *mcp.ClientSession, p *mcp.CallToolParams) string {
		res, err := cs.CallTool(context.Background(), p)
		return outcomeOf(t, res, err)
	}
	res, err := call(t, connectHTTP(t, ours, modern, false, nil), "", nil)
	require.NoError(t, err)
	assert.Equal(t, "error -32602", send(connectHTTP(t, theirs, modern, false, nil), &mcp.CallToolParams{Name: toolName,
		RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"account": accepted(ada)}}), "native")
	for _, p := range argsPaths {
		state := p.first(t, p.connect(t, ours), toolName)
		res, err := p.call(p.connect(t, theirs), toolName, merged(ada, map[string]any{mcpform.StateArgument: state}))
		assert.Equal(t, "error -32602", outcomeOf(t, res, err), "%s %s", p.name, p.version)
	}
	assert.Empty(t, accounts(t, "sqlite", db))
}

// TestHostileArgumentsReplay: the team step's state sent twice with other
// answers, on each path and natively: the second gets the first outcome,
// and each run leaves one account, with the first answers.
func TestHostileArgumentsReplay(t *testing.T) {
	srv := newServer(t, false)
	runs := []struct {
		name  string
		email string
		send  func(t *testing.T, email string, team map[string]any) string // the outcome of the team step
	}{{"native", "native@example.com", nil}}
	native := srv.connect(t, modern, false, nil)
	var final string
	runs[0].send = func(t *testing.T, email string, team map[string]any) string {
		if final == "" {
			res, err := call(t, native, "", nil)
			require.NoError(t, err)
			res, err = call(t, native, res.RequestState, mcp.InputResponseMap{"account": accepted(map[string]any{"email": email, "plan": "team"})})
			require.NoError(t, err)
			final = res.RequestState
		}
		res, err := call(t, native, final, mcp.InputResponseMap{"team": accepted(team)})
		return outcomeOf(t, res, err)
	}
	for i, p := range argsPaths {
		var args map[string]any
		runs = append(runs, struct {
			name  string
			email string
			send  func(t *testing.T, email string, team map[string]any) string
		}{p.name + " " + p.version, fmt.Sprintf("path%d@example.com", i), func(t *testing.T, email string, team map[string]any) string {
			cs := p.connect(t, srv.url)
			if args == nil {
				res, err := p.call(cs, toolName, merged(
					map[string]any{"email": email, "plan": "team", mcpform.StateArgument: p.first(t, cs, toolName)}))
				require.NoError(t, err)
				sc, _ := res.StructuredContent.(map[string]any)
				args, _ = sc["arguments"].(map[string]any)
				require.NotNil(t, args, "the team step: %s", jsonOf(t, res))
			}
			res, err := p.call(cs, toolName, merged(args, team))
			return outcomeOf(t, res, err)
		}})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			first := r.send(t, r.email, map[string]any{"team_name": "First", "seats": 3})
			assert.True(t, strings.HasPrefix(first, "created: "), first)
			assert.Equal(t, first, r.send(t, r.email, map[string]any{"team_name": "Second", "seats": 4}), "the replay")
			assert.Equal(t, account{Email: r.email, Plan: "team", TeamName: "First", Seats: 3}, srv.accounts(t)[r.email])
		})
	}
	assert.Len(t, srv.accounts(t), len(runs))
}

// TestHostileArgumentsPassword: on set_password's view and model paths, a
// password sent in the arguments changes nothing: the call gets what it
// gets without it (the page's link, which alone sets a password), and no
// password is stored.
func TestHostileArgumentsPassword(t *testing.T) {
	srv := newServer(t, false)
	signUp(t, srv.connect(t, modern, false, nil), "ada@example.com")
	for _, p := range argsPaths {
		t.Run(p.name+" "+p.version, func(t *testing.T) {
			cs := p.connect(t, srv.url)
			send := func(extra map[string]any) string {
				args := merged(extra, map[string]any{mcpform.StateArgument: p.first(t, cs, passwordTool), "email": "ada@example.com"})
				res, err := p.call(cs, passwordTool, args)
				return outcomeOf(t, res, err)
			}
			want := send(nil)
			assert.Equal(t, want, send(map[string]any{"password": secret}))
			noPassword(t, srv.db, "ada@example.com")
		})
	}
}
