package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hostile retry: what a client that is not a well-behaved SDK can send.
type hostile struct {
	name string
	// state picks the requestState to send, given the states the server
	// minted for asking the account step and, after adaTeam, the team
	// step.
	state   func(t *testing.T, account, team string) string
	answers mcp.InputResponseMap
	// Exactly one of the following is set.
	badState bool   // want the -32602 error
	reask    string // want this step asked again...
	saying   string // ...with a message containing this
	final    string // want a final result with this status
	// created is the account expected afterwards, if any.
	created *account
}

func accountState(_ *testing.T, account, _ string) string { return account }
func teamState(_ *testing.T, _, team string) string       { return team }

// askAccount is the payload of a state that asks the account step, as
// the flow mints it (flow.go): a run ID and the step, nothing proven.
var askAccount = map[string]any{"i": runID(time.Now()), "s": "account"}

func minted(key, principal, tool string, age time.Duration) func(*testing.T, string, string) string {
	return func(t *testing.T, _, _ string) string {
		return mintState(t, key, principal, tool, time.Now().Add(-age), askAccount)
	}
}

var hostiles = []hostile{
	{
		name:  "wrong types",
		state: accountState,
		answers: mcp.InputResponseMap{"account": accepted(map[string]any{
			"email": 42, "full_name": []any{"Ada"}, "plan": true})},
		reask: "account", saying: "Email must be an email address, like name@example.com. Check Full name: not a string. Choose one of the options for Plan.",
	},
	{
		name:    "seats as a string",
		state:   teamState,
		answers: mcp.InputResponseMap{"team": accepted(map[string]any{"team_name": "Analytical Engines", "seats": "12"})},
		reask:   "team", saying: "Seats must be a whole number",
	},
	{
		name:    "seats out of bounds",
		state:   teamState,
		answers: mcp.InputResponseMap{"team": accepted(map[string]any{"team_name": "Analytical Engines", "seats": 51})},
		reask:   "team", saying: "Seats must be from 2 to 50",
	},
	{
		name:    "seats not whole",
		state:   teamState,
		answers: mcp.InputResponseMap{"team": accepted(map[string]any{"team_name": "Analytical Engines", "seats": 2.5})},
		reask:   "team", saying: "Seats must be a whole number",
	},
	{
		name:    "a plan that is not an option",
		state:   accountState,
		answers: mcp.InputResponseMap{"account": accepted(map[string]any{"email": "ada@example.com", "plan": "enterprise"})},
		reask:   "account", saying: "Choose one of the options for Plan",
	},
	{
		name:    "only unknown keys",
		state:   accountState,
		answers: mcp.InputResponseMap{"account": accepted(map[string]any{"mail": "ada@example.com", "tier": "pro"})},
		reask:   "account", saying: "Enter a value for Email. Choose an option for Plan",
	},
	{
		name:  "an unknown key beside valid answers is dropped",
		state: accountState,
		answers: mcp.InputResponseMap{"account": accepted(map[string]any{
			"email": "ada@example.com", "plan": "pro", "admin": true, "seats": 50})},
		final:   "created",
		created: &account{Email: "ada@example.com", Plan: "pro"},
	},
	{
		name:    `action "maybe"`,
		state:   accountState,
		answers: mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "maybe", Content: adaPro}},
		reask:   "account", saying: "The answer's action is none of accept, decline and cancel.",
	},
	{
		name:    "accept without content",
		state:   accountState,
		answers: mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "accept"}},
		reask:   "account", saying: "Enter a value for Email. Choose an option for Plan.",
	},
	{
		name:    "a decline that carries content",
		state:   accountState,
		answers: mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "decline", Content: adaPro}},
		final:   "declined",
	},
	{
		name:    "the answer under another step's key",
		state:   accountState,
		answers: mcp.InputResponseMap{"team": accepted(engines)},
		reask:   "account", saying: "Create your account",
	},
	{
		name:  "a changed round-1 answer resent in round 2",
		state: teamState,
		answers: mcp.InputResponseMap{
			"account": accepted(map[string]any{"email": "mallory@example.com", "plan": "free"}),
			"team":    accepted(map[string]any{"team_name": "Analytical Engines", "seats": 12, "email": "mallory@example.com"}),
		},
		final:   "created",
		created: &account{Email: "ada@example.com", Plan: "team", TeamName: "Analytical Engines", Seats: 12},
	},
	{
		// The control for the forgeries below: a state the test mints
		// with the server's key, tool, principal and clock is accepted,
		// so each of them fails for the one thing it changes.
		name:    "state minted with the server's key, tool and principal",
		state:   minted(keyA, localPrincipal, toolName, 0),
		answers: mcp.InputResponseMap{"account": accepted(adaPro)},
		final:   "created",
		created: &account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "pro"},
	},
	{
		name:     "state minted under another key",
		state:    minted(keyB, localPrincipal, toolName, 0),
		answers:  mcp.InputResponseMap{"account": accepted(adaPro)},
		badState: true,
	},
	{
		name:     "state minted for another tool",
		state:    minted(keyA, localPrincipal, "delete_account", 0),
		answers:  mcp.InputResponseMap{"account": accepted(adaPro)},
		badState: true,
	},
	{
		name:     "state minted for another principal",
		state:    minted(keyA, "mallory", toolName, 0),
		answers:  mcp.InputResponseMap{"account": accepted(adaPro)},
		badState: true,
	},
	{
		name:     "expired state",
		state:    minted(keyA, localPrincipal, toolName, 11*time.Minute),
		answers:  mcp.InputResponseMap{"account": accepted(adaPro)},
		badState: true,
	},
	{
		name: "tampered state",
		state: func(t *testing.T, _, team string) string {
			// The state is sealed: flip one bit of its ciphertext.
			require.True(t, strings.HasPrefix(team, "s1."), team)
			raw, err := jsonBody(team[len("s1."):])
			require.NoError(t, err)
			b := []byte(raw)
			b[len(b)/2] ^= 1
			return "s1." + rawURL(string(b))
		},
		answers:  mcp.InputResponseMap{"team": accepted(engines)},
		badState: true,
	},
	{
		name:     "not a token",
		state:    func(*testing.T, string, string) string { return "let me in" },
		answers:  mcp.InputResponseMap{"account": accepted(adaPro)},
		badState: true,
	},
}

// TestHostile sends each hostile retry by hand, with the client's own loop
// off, over stdio and over HTTP, and checks that the server gives the right
// answer, creates only what the checked answers allow, and keeps serving.
func TestHostile(t *testing.T) {
	for _, transport := range []string{"stdio", "HTTP"} {
		for _, h := range hostiles {
			t.Run(transport+"/"+h.name, func(t *testing.T) {
				srv := newServer(t, transport == "stdio")
				cs := srv.connect(t, modern, false, nil)

				first, err := call(t, cs, "", nil)
				require.NoError(t, err)
				require.Equal(t, "account", asks(t, first))
				second, err := call(t, cs, first.RequestState, mcp.InputResponseMap{"account": accepted(adaTeam)})
				require.NoError(t, err)
				require.Equal(t, "team", asks(t, second))

				res, err := call(t, cs, h.state(t, first.RequestState, second.RequestState), h.answers)
				switch {
				case h.badState:
					requireBadState(t, err)
				case h.reask != "":
					require.NoError(t, err)
					assert.Equal(t, h.reask, asks(t, res))
					assert.Contains(t, message(t, res), h.saying)
				default:
					require.NoError(t, err)
					assert.Equal(t, h.final, status(t, res), "result: %s", text(res))
				}
				if h.created == nil {
					assert.Empty(t, srv.accounts(t), "nothing may be created")
				} else {
					assert.Equal(t, map[string]account{h.created.Email: *h.created}, srv.accounts(t))
				}

				// The server keeps serving the same session.
				r, err := call(t, cs, "", nil)
				require.NoError(t, err)
				r, err = call(t, cs, r.RequestState, mcp.InputResponseMap{"account": accepted(map[string]any{"email": "grace@example.com", "plan": "free"})})
				require.NoError(t, err)
				assert.Equal(t, "created", status(t, r))
			})
		}
	}
}

// TestHostileRawHTTP posts hand-written JSON-RPC to the HTTP server, with
// no SDK on the client side, and checks the bytes that come back.
func TestHostileRawHTTP(t *testing.T) {
	srv := newServer(t, false)
	url := srv.url

	first := rawCall(t, url, formClient, `{}`)
	require.Nil(t, first.Error)
	assert.Equal(t, "input_required", first.Result["resultType"])
	// No "content": null (issue 35, item 5): go-sdk writes a nil list so.
	assert.Equal(t, []any{}, first.Result["content"], "an input_required result carries no content")
	state, _ := first.Result["requestState"].(string)
	require.NotEmpty(t, state)
	quoted, _ := json.Marshal(state)

	for _, tt := range []struct {
		name   string
		params string
		code   int64 // want a JSON-RPC error with this code (-1: any)...
		data   string
		reask  bool // ...or the account step asked again
	}{
		{"tampered state", `{"requestState":"` + flipChar(state, len(state)/2) + `","inputResponses":{"account":{"action":"accept","content":{"email":"ada@example.com","plan":"pro"}}}}`,
			-32602, `{"reason":"invalid_request_state"}`, false},
		// Params that don't decode never reach the tool: go-sdk refuses
		// them (today with -32020, as it reads the tool name for the
		// Mcp-Name header check).
		{"state of the wrong type", `{"requestState":42}`, -1, "", false},
		{"an input response that is not an object", `{"requestState":` + string(quoted) + `,"inputResponses":{"account":"yes"}}`, -1, "", false},
		{`action "maybe"`, `{"requestState":` + string(quoted) + `,"inputResponses":{"account":{"action":"maybe","content":{"email":"ada@example.com","plan":"pro"}}}}`, 0, "", true},
		{"a plan that is a number", `{"requestState":` + string(quoted) + `,"inputResponses":{"account":{"action":"accept","content":{"email":"ada@example.com","plan":7}}}}`, 0, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := rawCall(t, url, formClient, tt.params)
			if tt.code != 0 {
				require.NotNil(t, r.Error, "want an error, got result %v", r.Result)
				if tt.code != -1 {
					assert.Equal(t, tt.code, r.Error.Code)
				}
				if tt.data != "" {
					assert.Equal(t, "Invalid or expired requestState", r.Error.Message)
					assert.JSONEq(t, tt.data, string(r.Error.Data))
				}
			} else {
				require.Nil(t, r.Error)
				assert.Equal(t, "input_required", r.Result["resultType"])
				assert.Contains(t, r.Result["inputRequests"], "account")
			}
			assert.Empty(t, srv.accounts(t))
		})
	}

	// A client that declared no way to answer is asked through its model,
	// where the example opts in; with -ask-model=false it is told so, not
	// asked.
	bare := startReplica(t, keyA, "-db", srv.db, "-ask-model=false").url
	for _, caps := range []map[string]any{{}, {"elicitation": map[string]any{"url": map[string]any{}}}} {
		r := rawCall(t, url, caps, `{}`)
		require.Nil(t, r.Error, "caps %v: want the model asked", caps)
		assert.Equal(t, "complete", r.Result["resultType"])
		sc, _ := r.Result["structuredContent"].(map[string]any)
		assert.Contains(t, sc, "requestedSchema", "caps %v: the model is asked", caps)
		assert.Contains(t, sc, "arguments", "caps %v: the model is asked", caps)

		r = rawCall(t, bare, caps, `{}`)
		require.NotNil(t, r.Error, "caps %v: want -32021, got %v", caps, r.Result)
		assert.Equal(t, int64(-32021), r.Error.Code)
		assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, string(r.Error.Data))
	}
	assert.Empty(t, srv.accounts(t))

	// And it still serves an honest client.
	r := rawCall(t, url, formClient, `{"requestState":`+string(quoted)+`,"inputResponses":{"account":{"action":"accept","content":{"email":"ada@example.com","plan":"pro"}}}}`)
	require.Nil(t, r.Error)
	assert.Equal(t, "complete", r.Result["resultType"])
	assert.Len(t, srv.accounts(t), 1)
}

// rawResponse is a JSON-RPC response as it came over the wire.
type rawResponse struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// formClient declares form elicitation, as a 2026-07-28 client does in
// each request's _meta.
var formClient = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

// rawCall posts a 2026-07-28 tools/call of the signup tool from a client
// with capabilities caps, merging extra (a JSON object) into its params,
// and returns the response.
func rawCall(t *testing.T, url string, caps map[string]any, extra string) rawResponse {
	t.Helper()
	params := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(extra), &params))
	params["name"] = toolName
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    modern,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "0"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// 2026-07-28 repeats the method and tool name in headers, for
	// routing without parsing the body.
	req.Header.Set("Mcp-Protocol-Version", modern)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", toolName)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)

	// The response is one JSON object, or an event stream whose data line
	// holds it.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(data))
		data = nil
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = []byte(d)
			}
		}
	}
	var r rawResponse
	require.NoError(t, json.Unmarshal(data, &r), "status %d, body %q", resp.StatusCode, data)
	return r
}

// flipChar changes the base64url character at i of token to another one.
// Inside the text each character carries six whole bits, so the bytes
// change; the last ones may carry padding bits, which a tamper there can
// miss (once in a thousand runs, for "AA" in place of the last two).
func flipChar(token string, i int) string {
	c := byte('A')
	if token[i] == 'A' {
		c = 'B'
	}
	return token[:i] + string(c) + token[i+1:]
}
