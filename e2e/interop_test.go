package e2e_test

// The interop tests run the signup server, built as a binary, against the
// official TypeScript client (@modelcontextprotocol/client, pinned in
// interop/package.json), driven by interop/signup-client.mjs: over stdio,
// where the client spawns the server, and over streamable HTTP, where the
// test starts it. Each test sends the driver one plan of calls, made on one
// connection, and checks the transcript it prints.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tsModern is the revision the TypeScript client is pinned to for the
// input_required path; its default negotiation ends at tsLegacy.
const (
	tsModern = "2026-07-28"
	tsLegacy = "2025-11-25"
)

// A tsPlan is the driver's input; see interop/signup-client.mjs.
type tsPlan struct {
	Stdio     *tsStdio `json:"stdio,omitempty"`
	URL       string   `json:"url,omitempty"`
	Pin       string   `json:"pin,omitempty"`
	TimeoutMs int      `json:"timeoutMs,omitempty"`
	// Capabilities replaces the client's capabilities, which declare form
	// elicitation when it is nil.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Calls        []tsCall        `json:"calls"`
}

type tsStdio struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// A tsCall is one tools/call of signup. With Answers the client fulfils
// input requests itself: the n-th time a key is asked gets its n-th answer
// ("*" answers any key). With Manual it sends InputResponses and a request
// state (RequestState, or the state returned by call StateFrom, where a
// negative StateFrom counts back from this call; Tamper alters that
// state: a sealed state gets a bit flipped, a signed one a body claiming
// email mallory@example.com) as they are.
//
// Tool names the tool (default signup) and Arguments its arguments; with
// ArgumentsFrom, the arguments are those result ArgumentsFrom says to send
// back, plus the Values its requestedSchema asks, plus Arguments, as a
// model does (see interop/signup-client.mjs).
type tsCall struct {
	Tool           string           `json:"tool,omitempty"`
	Arguments      map[string]any   `json:"arguments,omitempty"`
	ArgumentsFrom  *int             `json:"argumentsFrom,omitempty"`
	Values         map[string]any   `json:"values,omitempty"`
	Answers        map[string][]any `json:"answers,omitempty"`
	Manual         bool             `json:"manual,omitempty"`
	InputResponses any              `json:"inputResponses,omitempty"`
	RequestState   string           `json:"requestState,omitempty"`
	StateFrom      *int             `json:"stateFrom,omitempty"`
	Tamper         bool             `json:"tamper,omitempty"`
}

type tsTranscript struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Error           *tsError `json:"error"`
	Calls           []tsStep `json:"calls"`
}

// A tsStep is what happened in one call.
type tsStep struct {
	Sent   map[string]any `json:"sent"`  // the call's params, before any automatic round
	Asked  []tsAsked      `json:"asked"` // the input requests the client fulfilled
	Result *tsResult      `json:"result"`
	Error  *tsError       `json:"error"`
}

type tsAsked struct {
	Round           int            `json:"round"`
	Key             string         `json:"key"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// A tsResult is a tool result, or in manual mode an input_required result.
type tsResult struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
			Mode    string `json:"mode"`
			URL     string `json:"url"`
		} `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
	Content      []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent *struct {
		Status  string   `json:"status"`
		Account *account `json:"account"`
		// The link and model paths' contract (mcpform's doc.go).
		RequestedSchema map[string]any `json:"requestedSchema"`
		URL             string         `json:"url"`
		Arguments       map[string]any `json:"arguments"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

type tsError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// final returns the tool's final result, failing the test if the call
// ended otherwise.
func (s tsStep) final(t *testing.T) *tsResult {
	t.Helper()
	require.Nil(t, s.Error, "call failed")
	require.NotNil(t, s.Result)
	require.Empty(t, s.Result.ResultType, "want a final result")
	// One block, such as a link's, or an outcome's two: the heading and
	// summary for the person, then the sentence for the model.
	require.Contains(t, []int{1, 2}, len(s.Result.Content), "%+v", s.Result.Content)
	require.NotNil(t, s.Result.StructuredContent)
	return s.Result
}

// text returns the final result's text for the model: its last block,
// after the heading and summary FlowRound.Outcome writes for the person.
func (r *tsResult) text() string { return r.Content[len(r.Content)-1].Text }

// reasked checks that the call came back input_required, asking key
// again, and returns the message it asks with.
func (s tsStep) reasked(t *testing.T, key string) string {
	t.Helper()
	require.Nil(t, s.Error, "call failed")
	require.NotNil(t, s.Result)
	require.Equal(t, "input_required", s.Result.ResultType)
	require.Len(t, s.Result.InputRequests, 1)
	ir, ok := s.Result.InputRequests[key]
	require.True(t, ok, "want key %q asked, got %v", key, s.Result.InputRequests)
	assert.Equal(t, "elicitation/create", ir.Method)
	assert.NotEmpty(t, s.Result.RequestState)
	return ir.Params.Message
}

// invalidState checks that the call failed with the codec's -32602 error.
func (s tsStep) invalidState(t *testing.T) {
	t.Helper()
	require.Nil(t, s.Result, "want an error, not a result")
	require.NotNil(t, s.Error)
	assert.Equal(t, -32602, s.Error.Code)
	assert.Equal(t, "Invalid or expired requestState", s.Error.Message)
	assert.JSONEq(t, `{"reason":"invalid_request_state"}`, string(s.Error.Data))
}

// tsCreated checks that the call created the account with email.
func tsCreated(t *testing.T, s tsStep, email string) account {
	t.Helper()
	r := s.final(t)
	assert.False(t, r.IsError)
	require.Equal(t, "created", r.StructuredContent.Status, r.text())
	require.NotNil(t, r.StructuredContent.Account)
	assert.Equal(t, email, r.StructuredContent.Account.Email)
	assert.True(t, strings.HasPrefix(r.text(), "Signup complete: created "), r.text())
	return *r.StructuredContent.Account
}

func tsAccept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

var (
	tsDecline = map[string]any{"action": "decline"}
	tsCancel  = map[string]any{"action": "cancel"}
)

func tsAt(i int) *int { return &i }

// tsStateKey returns a random MCPFORM_STATE_KEY value and its bytes.
func tsStateKey(t *testing.T) (string, []byte) {
	t.Helper()
	key := make([]byte, mcpform.MinRequestStateKeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	return hex.EncodeToString(key), key
}

// tsStdioServer returns the plan's stdio field for bin, with more flags in
// args. The client passes only a small allow-list of the environment to
// the server, so the key goes in explicitly.
func tsStdioServer(bin, key string, args ...string) *tsStdio {
	return &tsStdio{Command: bin, Args: append([]string{"-stdio"}, args...), Env: map[string]string{keyEnv: key}}
}

// runTS runs the driver on plan and returns its transcript, with one step
// per call.
func runTS(t *testing.T, plan tsPlan) tsTranscript {
	t.Helper()
	if plan.TimeoutMs == 0 {
		plan.TimeoutMs = 20000
	}
	out, _ := runDriver(t, "signup-client.mjs", plan)
	var tr tsTranscript
	require.NoError(t, json.Unmarshal(out, &tr), "reading the transcript")
	require.Nil(t, tr.Error, "the client could not connect")
	require.Len(t, tr.Calls, len(plan.Calls))
	return tr
}

// runDriver runs the node script in interop/ on plan, as JSON on its
// stdin, and returns what it prints on stdout and on stderr, which a stdio
// server the script spawns shares; the test logs both if it fails.
func runDriver(t *testing.T, script string, plan any) (out, errOut []byte) {
	t.Helper()
	node := testenv.Node(t)
	in, err := json.Marshal(plan)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = testenv.InteropDir(t)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Don't wait for a spawned server forever if node is killed.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("plan:\n%s\noutput:\n%s\nstderr (the driver's and a stdio server's):\n%s", in, stdout.Bytes(), stderr.Bytes())
		}
	})
	require.NoError(t, err, "node %s", script)
	return stdout.Bytes(), stderr.Bytes()
}

// A tsCase is a few calls of a plan, and what they must give.
type tsCase struct {
	name  string
	calls []tsCall
	check func(t *testing.T, steps []tsStep)
}

// runTSCases runs the calls of all cases in order on one connection, then
// checks each case on its own steps in a subtest.
func runTSCases(t *testing.T, plan tsPlan, cases []tsCase) tsTranscript {
	t.Helper()
	var at []int
	for _, c := range cases {
		at = append(at, len(plan.Calls))
		plan.Calls = append(plan.Calls, c.calls...)
	}
	tr := runTS(t, plan)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.check(t, tr.Calls[at[i]:at[i]+len(c.calls)])
		})
	}
	return tr
}

// tsTransports are the two ways the tests reach the server, started with
// more flags in args.
var tsTransports = []struct {
	name  string
	serve func(t *testing.T, bin, key string, args ...string) tsPlan
}{
	{"stdio", func(t *testing.T, bin, key string, args ...string) tsPlan {
		return tsPlan{Stdio: tsStdioServer(bin, key, args...)}
	}},
	{"http", func(t *testing.T, bin, key string, args ...string) tsPlan {
		return tsPlan{URL: startReplica(t, key, args...).url}
	}},
}

// The signup example's native messages (issue 34): where the step
// stands, its message, any problems, and what accepting does, the account
// step being perhaps the last before "Create account", the team step
// surely.
const (
	signupMayCommit = "Depending on your answers, this may be the last step. Accepting it then does this: Create account."
	signupTeamAsked = "Step 2 of 2\n\nTell us about your team\n\nThis is the last step. Accepting it does this: Create account."
)

// signupAccountAsked is the native message of signup's account step,
// naming problems when they are not "".
func signupAccountAsked(problems string) string {
	if problems != "" {
		problems += "\n\n"
	}
	return "Step 1 of up to 2\n\nCreate your account\n\n" + problems + signupMayCommit
}

// TestInteropTSSignup runs signup with the TypeScript client pinned to
// 2026-07-28, over stdio and over HTTP: accept, already registered,
// decline, cancel, and an invalid answer asked again.
func TestInteropTSSignup(t *testing.T) {
	bin := signupBin(t)
	testenv.Node(t)
	for _, tp := range tsTransports {
		t.Run(tp.name, func(t *testing.T) {
			key, _ := tsStateKey(t)
			plan := tp.serve(t, bin, key)
			plan.Pin = tsModern
			tr := runTSCases(t, plan, []tsCase{
				{"accept creates the account",
					[]tsCall{{Answers: map[string][]any{"account": {tsAccept(map[string]any{
						"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "pro"})}}}},
					func(t *testing.T, s []tsStep) {
						require.Len(t, s[0].Asked, 1)
						asked := s[0].Asked[0]
						assert.Equal(t, "account", asked.Key)
						assert.Equal(t, signupAccountAsked(""), asked.Message)
						assert.Equal(t, []any{"email", "plan"}, asked.RequestedSchema["required"])
						a := tsCreated(t, s[0], "ada@example.com")
						assert.Equal(t, "pro", a.Plan)
						assert.Equal(t, "Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan.", s[0].Result.text())
					}},
				// The repeat takes the team plan, so that its last request
				// state carries its answers: a one-round repeat started in
				// the same second as the first signup gets the very same
				// state, which the example takes as its idempotency key, and
				// is answered as a replay of the first ("created ... Pro").
				{"the same email again is already registered",
					[]tsCall{{Answers: map[string][]any{
						"account": {tsAccept(map[string]any{"email": "ADA@example.com", "plan": "team"})},
						"team":    {tsAccept(map[string]any{"team_name": "Engines", "seats": 2})},
					}}},
					func(t *testing.T, s []tsStep) {
						r := s[0].final(t)
						assert.True(t, r.IsError)
						assert.Equal(t, "exists", r.StructuredContent.Status)
						assert.Contains(t, r.text(), "ADA@example.com is already registered")
						assert.Contains(t, r.text(), "Nothing was created")
					}},
				{"decline creates nothing",
					[]tsCall{{Answers: map[string][]any{"account": {tsDecline}}}},
					func(t *testing.T, s []tsStep) {
						r := s[0].final(t)
						assert.Len(t, s[0].Asked, 1, "a decline is not asked again")
						assert.Equal(t, "declined", r.StructuredContent.Status)
						assert.Nil(t, r.StructuredContent.Account)
						assert.Equal(t, "Signup not completed: you declined to give your account details. Nothing was created.", r.text())
					}},
				{"cancel creates nothing",
					[]tsCall{{Answers: map[string][]any{"account": {tsCancel}}}},
					func(t *testing.T, s []tsStep) {
						r := s[0].final(t)
						assert.Len(t, s[0].Asked, 1, "a cancel is not asked again")
						assert.Equal(t, "cancelled", r.StructuredContent.Status)
						assert.Nil(t, r.StructuredContent.Account)
						assert.Equal(t, "Signup not completed: the form was cancelled before it was sent. Nothing was created.", r.text())
					}},
				{"decline at the team step creates nothing",
					[]tsCall{{Answers: map[string][]any{
						"account": {tsAccept(map[string]any{"email": "grace@example.com", "plan": "team"})},
						"team":    {tsDecline},
					}}},
					func(t *testing.T, s []tsStep) {
						r := s[0].final(t)
						assert.Equal(t, "declined", r.StructuredContent.Status)
						assert.Contains(t, r.text(), "you declined to give your team details")
					}},
				{"the declined email is still free",
					[]tsCall{{Answers: map[string][]any{"account": {tsAccept(map[string]any{"email": "grace@example.com", "plan": "free"})}}}},
					func(t *testing.T, s []tsStep) { tsCreated(t, s[0], "grace@example.com") }},
				{"an invalid answer is asked again with the reason",
					[]tsCall{{Answers: map[string][]any{"account": {
						tsAccept(map[string]any{"email": "not-an-email", "plan": "pro"}),
						tsAccept(map[string]any{"email": "alan@example.com", "plan": "pro"}),
					}}}},
					func(t *testing.T, s []tsStep) {
						require.Len(t, s[0].Asked, 2)
						assert.Equal(t, "account", s[0].Asked[1].Key)
						assert.Equal(t, signupAccountAsked("Email must be an email address, like name@example.com."), s[0].Asked[1].Message)
						tsCreated(t, s[0], "alan@example.com")
					}},
			})
			assert.Equal(t, tsModern, tr.ProtocolVersion)
		})
	}
}

// TestInteropTSLegacy runs signup with the TypeScript client's default
// negotiation, which ends at 2025-11-25: go-sdk asks with elicitation/create
// itself, and the middleware of mcpform.AddLegacyRounds carries the second
// round of a team signup.
func TestInteropTSLegacy(t *testing.T) {
	bin := signupBin(t)
	testenv.Node(t)
	for _, tp := range tsTransports {
		t.Run(tp.name, func(t *testing.T) {
			key, _ := tsStateKey(t)
			// Over elicitation/create the client's key is the JSON-RPC
			// request id, so answers are taken in order ("*").
			tr := runTSCases(t, tp.serve(t, bin, key), []tsCase{
				{"accept creates the account",
					[]tsCall{{Answers: map[string][]any{"*": {tsAccept(map[string]any{"email": "old@example.com", "plan": "pro"})}}}},
					func(t *testing.T, s []tsStep) {
						require.Len(t, s[0].Asked, 1)
						assert.Equal(t, signupAccountAsked(""), s[0].Asked[0].Message)
						assert.Equal(t, "pro", tsCreated(t, s[0], "old@example.com").Plan)
					}},
				{"decline creates nothing",
					[]tsCall{{Answers: map[string][]any{"*": {tsDecline}}}},
					func(t *testing.T, s []tsStep) {
						assert.Equal(t, "declined", s[0].final(t).StructuredContent.Status)
					}},
				{"a team signup takes two rounds",
					[]tsCall{{Answers: map[string][]any{"*": {
						tsAccept(map[string]any{"email": "oldteam@example.com", "plan": "team"}),
						tsAccept(map[string]any{"team_name": "Difference Engine", "seats": 4}),
					}}}},
					func(t *testing.T, s []tsStep) {
						require.Len(t, s[0].Asked, 2)
						assert.Equal(t, signupTeamAsked, s[0].Asked[1].Message)
						a := tsCreated(t, s[0], "oldteam@example.com")
						assert.Equal(t, "Difference Engine", a.TeamName)
						assert.Equal(t, 4, a.Seats)
					}},
			})
			assert.Equal(t, tsLegacy, tr.ProtocolVersion)
		})
	}
}

// TestInteropTSHostile sends hand-crafted retries with the TypeScript
// client in manual mode. None creates an account; each gets the step asked
// again, a final result, or -32602; and the server keeps serving.
func TestInteropTSHostile(t *testing.T) {
	bin := signupBin(t)
	testenv.Node(t)
	const victim = "victim@example.com"
	victimAccount := map[string]any{"email": victim, "plan": "free"}
	teamAnswer := map[string]any{"team": tsAccept(map[string]any{"team_name": "Intruders", "seats": 3})}
	victimAnswer := map[string]any{"account": tsAccept(victimAccount)}
	wrongTypes := map[string]any{"account": tsAccept(map[string]any{"email": 42, "full_name": map[string]any{"x": 1}, "plan": "gold"})}

	for _, tp := range tsTransports {
		t.Run(tp.name, func(t *testing.T) {
			keyHex, _ := tsStateKey(t)
			// mint makes a state as the server would to ask the account
			// step of a call without arguments: accepted, the victim's
			// answer to it would finish the signup in one call.
			mint := func(now time.Time, principal, tool string) string {
				return mintState(t, keyHex, principal, tool, now, map[string]any{"i": runID(now), "s": "account"})
			}
			plan := tp.serve(t, bin, keyHex)
			plan.Pin = tsModern
			plan.Calls = []tsCall{{Manual: true}} // call 0 starts a signup: its state asks the account step
			start := tsAt(0)
			runTSCases(t, plan, []tsCase{
				{"wrong types are asked again with the reasons",
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: wrongTypes}},
					func(t *testing.T, s []tsStep) {
						assert.Equal(t, signupAccountAsked("Email must be an email address, like name@example.com. Check Full name: not a string. Choose one of the options for Plan."),
							s[0].reasked(t, "account"))
					}},
				{"only unknown fields are asked again",
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: map[string]any{
						"account": tsAccept(map[string]any{"admin": true, "role": "root"})}}},
					func(t *testing.T, s []tsStep) {
						assert.Equal(t, signupAccountAsked("Enter a value for Email. Choose an option for Plan."), s[0].reasked(t, "account"))
					}},
				{"an unknown field beside valid answers is dropped",
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: map[string]any{
						"account": tsAccept(map[string]any{"email": "extra@example.com", "plan": "free", "admin": true, "seats": 50})}}},
					func(t *testing.T, s []tsStep) {
						assert.Equal(t, account{Email: "extra@example.com", Plan: "free"}, tsCreated(t, s[0], "extra@example.com"))
					}},
				{"an unknown input key is asked again",
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: map[string]any{"bogus": tsAccept(victimAccount)}}},
					func(t *testing.T, s []tsStep) { assert.Equal(t, signupAccountAsked(""), s[0].reasked(t, "account")) }},
				{"an answer to a step not asked is ignored",
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: teamAnswer}},
					func(t *testing.T, s []tsStep) { s[0].reasked(t, "account") }},
				{`action "maybe" is asked again`,
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: map[string]any{
						"account": map[string]any{"action": "maybe", "content": victimAccount}}}},
					func(t *testing.T, s []tsStep) {
						assert.Contains(t, s[0].reasked(t, "account"), "The answer's action is none of accept, decline and cancel.")
					}},
				{"answers without a state start over",
					[]tsCall{{Manual: true, InputResponses: map[string]any{"account": tsAccept(victimAccount)}}},
					func(t *testing.T, s []tsStep) { s[0].reasked(t, "account") }},
				{"an answer that is not an object is a JSON-RPC error",
					[]tsCall{{Manual: true, StateFrom: start, InputResponses: map[string]any{"account": "yes"}}},
					func(t *testing.T, s []tsStep) {
						require.Nil(t, s[0].Result)
						require.NotNil(t, s[0].Error)
						// go-sdk refuses the params before the handler runs:
						// -32602 on a session, and on stateless HTTP -32020,
						// since reading the tool name for its header check
						// fails first.
						assert.Contains(t, []int{-32602, -32020}, s[0].Error.Code, s[0].Error.Message)
					}},
				// A run of its own: the run of call 0 has finished above,
				// and its first outcome is its outcome for good.
				{"invalid answers end the signup after 3 re-asks",
					[]tsCall{
						{Manual: true},
						{Manual: true, StateFrom: tsAt(-1), InputResponses: wrongTypes},
						{Manual: true, StateFrom: tsAt(-1), InputResponses: wrongTypes},
						{Manual: true, StateFrom: tsAt(-1), InputResponses: wrongTypes},
						{Manual: true, StateFrom: tsAt(-1), InputResponses: wrongTypes},
					},
					func(t *testing.T, s []tsStep) {
						for _, st := range s[:4] {
							st.reasked(t, "account")
						}
						r := s[4].final(t)
						assert.True(t, r.IsError)
						assert.Equal(t, "invalid", r.StructuredContent.Status)
						assert.Contains(t, r.text(), "still invalid after 4 attempts")
					}},
				{"a garbage state is -32602",
					[]tsCall{{Manual: true, RequestState: "v1.garbage", InputResponses: teamAnswer}},
					func(t *testing.T, s []tsStep) { s[0].invalidState(t) }},
				{"a tampered state is -32602",
					[]tsCall{
						{Manual: true, StateFrom: start, InputResponses: map[string]any{
							"account": tsAccept(map[string]any{"email": "tamper@example.com", "plan": "team"})}},
						{Manual: true, StateFrom: tsAt(-1), Tamper: true, InputResponses: teamAnswer},
					},
					func(t *testing.T, s []tsStep) {
						s[0].reasked(t, "team")
						s[1].invalidState(t)
					}},
				{"an expired state is -32602",
					[]tsCall{{Manual: true, RequestState: mint(time.Now().Add(-time.Hour), localPrincipal, toolName), InputResponses: victimAnswer}},
					func(t *testing.T, s []tsStep) { s[0].invalidState(t) }},
				{"a state minted for another tool is -32602",
					[]tsCall{{Manual: true, RequestState: mint(time.Now(), localPrincipal, "delete_account"), InputResponses: victimAnswer}},
					func(t *testing.T, s []tsStep) { s[0].invalidState(t) }},
				{"a state minted for another principal is -32602",
					[]tsCall{{Manual: true, RequestState: mint(time.Now(), "mallory", toolName), InputResponses: victimAnswer}},
					func(t *testing.T, s []tsStep) { s[0].invalidState(t) }},
				// The server keeps serving, and none of the above created
				// the accounts they name.
				{"the server still signs up",
					[]tsCall{
						{Answers: map[string][]any{"account": {tsAccept(victimAccount)}}},
						{Answers: map[string][]any{"account": {tsAccept(map[string]any{"email": "tamper@example.com", "plan": "free"})}}},
						{Answers: map[string][]any{"account": {tsAccept(map[string]any{"email": "mallory@example.com", "plan": "free"})}}},
					},
					func(t *testing.T, s []tsStep) {
						tsCreated(t, s[0], victim)
						tsCreated(t, s[1], "tamper@example.com")
						tsCreated(t, s[2], "mallory@example.com")
					}},
				// Control: the same forged state, minted right, is taken,
				// so the refusals above are for the clock, tool and
				// principal, not for the state's shape.
				{"a state minted right is accepted",
					[]tsCall{{Manual: true, RequestState: mint(time.Now(), localPrincipal, toolName), InputResponses: victimAnswer}},
					func(t *testing.T, s []tsStep) {
						r := s[0].final(t)
						assert.Equal(t, "exists", r.StructuredContent.Status, "victim was created just before")
					}},
			})
		})
	}
}

// TestInteropTSTeamFlow runs the two-round team signup (issue 6) over stdio
// with the TypeScript client pinned to 2026-07-28, then replays its second
// round by hand with a forged round-1 answer, which changes nothing.
func TestInteropTSTeamFlow(t *testing.T) {
	bin := signupBin(t)
	testenv.Node(t)
	key, _ := tsStateKey(t)
	team := map[string]any{"team": tsAccept(map[string]any{"team_name": "Analytical", "seats": 3})}
	forged := map[string]any{
		"account": tsAccept(map[string]any{"email": "forged@example.com", "full_name": "Mallory", "plan": "free"}),
		"team":    team["team"],
	}
	runTSCases(t, tsPlan{Stdio: tsStdioServer(bin, key), Pin: tsModern}, []tsCase{
		{"both rounds are asked and the account is created",
			[]tsCall{{Answers: map[string][]any{
				"account": {tsAccept(map[string]any{"email": "babbage@example.com", "full_name": "Charles Babbage", "plan": "team"})},
				"team":    {tsAccept(map[string]any{"team_name": "Difference Engine", "seats": 7})},
			}}},
			func(t *testing.T, s []tsStep) {
				require.Len(t, s[0].Asked, 2)
				assert.Equal(t, []string{"account", "team"}, []string{s[0].Asked[0].Key, s[0].Asked[1].Key})
				assert.Equal(t, signupTeamAsked, s[0].Asked[1].Message)
				assert.Equal(t, []any{"team_name", "seats"}, s[0].Asked[1].RequestedSchema["required"])
				a := tsCreated(t, s[0], "babbage@example.com")
				assert.Equal(t, account{Email: "babbage@example.com", FullName: "Charles Babbage", Plan: "team",
					TeamName: "Difference Engine", Seats: 7}, a)
				assert.Equal(t, `Signup complete: created Charles Babbage <babbage@example.com> on the Team plan for "Difference Engine", 7 seats.`,
					s[0].Result.text())
			}},
		{"a forged round-1 answer in round 2 changes nothing",
			[]tsCall{
				{Manual: true},
				{Manual: true, StateFrom: tsAt(-1), InputResponses: map[string]any{
					"account": tsAccept(map[string]any{"email": "lovelace@example.com", "plan": "team"})}},
				// Round 2's state, with the round-1 answer changed and
				// without the team answer: the team step is asked again.
				{Manual: true, StateFrom: tsAt(-1), InputResponses: map[string]any{"account": forged["account"]}},
				{Manual: true, StateFrom: tsAt(-2), InputResponses: forged},
				// The same round 2 again: the same account, not a second.
				{Manual: true, StateFrom: tsAt(-3), InputResponses: forged},
				{Answers: map[string][]any{"account": {tsAccept(map[string]any{"email": "forged@example.com", "plan": "free"})}}},
			},
			func(t *testing.T, s []tsStep) {
				s[0].reasked(t, "account")
				assert.Equal(t, signupTeamAsked, s[1].reasked(t, "team"))
				assert.Equal(t, signupTeamAsked, s[2].reasked(t, "team"))
				want := account{Email: "lovelace@example.com", Plan: "team", TeamName: "Analytical", Seats: 3}
				assert.Equal(t, want, tsCreated(t, s[3], want.Email))
				assert.Equal(t, `Signup complete: created lovelace@example.com on the Team plan for "Analytical", 3 seats.`, s[3].Result.text())
				assert.Equal(t, want, tsCreated(t, s[4], want.Email), "a replay gets the first result")
				tsCreated(t, s[5], "forged@example.com")
			}},
	})
}
