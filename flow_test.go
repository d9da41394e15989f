package mcpform

import (
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	accountStep = Step{
		Key:     "account",
		Message: "Create your account",
		Fields: []AutoFormField{
			{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
			{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
		},
	}
	teamStep = Step{
		Key:     "team",
		Message: "Set up your team",
		Fields: []AutoFormField{
			{Name: "team_name", Required: true, Min: Bound(2)},
			{Name: "seats", Type: TypeInteger, Required: true, Min: Bound(2), Max: Bound(50)},
		},
		When: func(proven Answers) bool { return proven["plan"] == "team" },
	}
)

// flowClock is a settable clock for expiry tests.
type flowClock struct{ t time.Time }

func (c *flowClock) now() time.Time { return c.t }

func newFlowFixture(t *testing.T) (*Flow, *RequestStateCodec, *flowClock) {
	t.Helper()
	flow, err := NewFlow([]Step{accountStep, teamStep}, nil)
	require.NoError(t, err)
	clock := &flowClock{t: time.Unix(1_800_000_000, 0)}
	codec, err := NewRequestStateCodec(RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")},
		Bind: true,
		Now:  clock.now,
	})
	require.NoError(t, err)
	return flow, codec, clock
}

// call builds the request of one round: the tool, the echoed state and the
// client's answers as key → content, or key → action for a refusal.
func call(tool, state string, answers map[string]any) *mcp.CallToolRequest {
	var responses mcp.InputResponseMap
	if len(answers) > 0 {
		responses = mcp.InputResponseMap{}
		for k, v := range answers {
			switch v := v.(type) {
			case string:
				responses[k] = &mcp.ElicitResult{Action: v}
			case map[string]any:
				responses[k] = &mcp.ElicitResult{Action: "accept", Content: v}
			}
		}
	}
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, RequestState: state, InputResponses: responses}}
}

// asked returns the single input request key of an asking round.
func asked(t *testing.T, r *FlowRound) string {
	t.Helper()
	require.Equal(t, FlowAsk, r.Status)
	require.Len(t, r.Result.InputRequests, 1)
	for k := range r.Result.InputRequests {
		return k
	}
	return ""
}

func TestFlowBranches(t *testing.T) {
	for _, tt := range []struct {
		plan      string
		wantSteps []string
		want      Answers
	}{
		{"pro", []string{"account"}, Answers{"email": "ada@example.com", "plan": "pro"}},
		{"team", []string{"account", "team"}, Answers{"email": "ada@example.com", "plan": "team", "team_name": "Analytical", "seats": 5.0}},
	} {
		t.Run(tt.plan, func(t *testing.T) {
			flow, codec, _ := newFlowFixture(t)
			r, err := flow.Next(call("signup", "", nil), codec, "alice")
			require.NoError(t, err)
			var steps []string
			for r.Status == FlowAsk {
				key := asked(t, r)
				steps = append(steps, key)
				content := map[string]any{"email": "ada@example.com", "plan": tt.plan}
				if key == "team" {
					content = map[string]any{"team_name": "Analytical", "seats": 5.0}
				}
				r, err = flow.Next(call("signup", r.Result.RequestState, map[string]any{key: content}), codec, "alice")
				require.NoError(t, err)
			}
			assert.Equal(t, FlowDone, r.Status)
			assert.Equal(t, tt.wantSteps, steps)
			assert.Equal(t, tt.want, r.Answers)
			assert.Nil(t, r.Result)
		})
	}
}

// round1 runs the first two calls of the team flow and returns the state
// that asks for the team step.
func round1(t *testing.T, flow *Flow, codec *RequestStateCodec) string {
	t.Helper()
	r, err := flow.Next(call("signup", "", nil), codec, "alice")
	require.NoError(t, err)
	r, err = flow.Next(call("signup", r.Result.RequestState, map[string]any{
		"account": map[string]any{"email": "ada@example.com", "plan": "team"},
	}), codec, "alice")
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	return r.Result.RequestState
}

func TestFlowIgnoresForgedEarlierAnswers(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	state := round1(t, flow, codec)
	// Round 2 resends round 1 with a changed email and plan, and smuggles
	// an extra key into the team answer: none of it may count.
	r, err := flow.Next(call("signup", state, map[string]any{
		"account": map[string]any{"email": "mallory@example.com", "plan": "pro"},
		"team":    map[string]any{"team_name": "Analytical", "seats": 5.0, "email": "mallory@example.com"},
	}), codec, "alice")
	require.NoError(t, err)
	require.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team", "team_name": "Analytical", "seats": 5.0}, r.Answers)
}

func TestFlowStateMustBeOurs(t *testing.T) {
	team := map[string]any{"team": map[string]any{"team_name": "Analytical", "seats": 5.0}}
	for _, tt := range []struct {
		name      string
		tool      string
		principal string
		tamper    func(string) string
		advance   time.Duration
	}{
		{name: "another tool", tool: "delete_account", principal: "alice"},
		{name: "another principal", tool: "signup", principal: "mallory"},
		{name: "tampered", tool: "signup", principal: "alice", tamper: func(s string) string {
			b := []byte(s)
			b[len(b)/2] ^= 1
			return string(b)
		}},
		{name: "made up", tool: "signup", principal: "alice", tamper: func(string) string { return `{"s":"team","a":{"plan":"team"}}` }},
		{name: "expired", tool: "signup", principal: "alice", advance: 10*time.Minute + RequestStateLeeway + time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flow, codec, clock := newFlowFixture(t)
			state := round1(t, flow, codec)
			if tt.tamper != nil {
				state = tt.tamper(state)
			}
			clock.t = clock.t.Add(tt.advance)
			r, err := flow.Next(call(tt.tool, state, team), codec, tt.principal)
			assert.Nil(t, r)
			var rpcErr *jsonrpc.Error
			require.True(t, errors.As(err, &rpcErr), "want *jsonrpc.Error, got %T: %v", err, err)
			assert.Equal(t, int64(-32602), rpcErr.Code)
			assert.JSONEq(t, `{"reason":"invalid_request_state"}`, string(rpcErr.Data))
		})
	}
	t.Run("still valid at the TTL", func(t *testing.T) {
		flow, codec, clock := newFlowFixture(t)
		state := round1(t, flow, codec)
		clock.t = clock.t.Add(10 * time.Minute)
		r, err := flow.Next(call("signup", state, team), codec, "alice")
		require.NoError(t, err)
		assert.Equal(t, FlowDone, r.Status)
	})
}

func TestFlowReasksOnlyTheFailingStep(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	state := round1(t, flow, codec)
	r, err := flow.Next(call("signup", state, map[string]any{
		"team": map[string]any{"team_name": "Analytical", "seats": 500.0},
	}), codec, "alice")
	require.NoError(t, err)
	assert.Equal(t, "team", asked(t, r))
	assert.Equal(t, 1, r.Attempt)
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "seats", r.Problems[0].Field)
	msg := r.Result.InputRequests["team"].(*mcp.ElicitParams).Message
	assert.Equal(t, "Set up your team\n\nPlease check: Seats: greater than the maximum 50.", msg)
	assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers, "round 1 is still proven")

	// The re-ask carries round 1 in its own state: answering it finishes.
	r, err = flow.Next(call("signup", r.Result.RequestState, map[string]any{
		"team": map[string]any{"team_name": "Analytical", "seats": 50.0},
	}), codec, "alice")
	require.NoError(t, err)
	require.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team", "team_name": "Analytical", "seats": 50.0}, r.Answers)
}

func TestFlowGivesUpAfterMaxReasks(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	r, err := flow.Next(call("signup", "", nil), codec, "alice")
	require.NoError(t, err)
	bad := map[string]any{"account": map[string]any{"email": "nope", "plan": "pro"}}
	for want := 1; want <= 3; want++ {
		r, err = flow.Next(call("signup", r.Result.RequestState, bad), codec, "alice")
		require.NoError(t, err)
		require.Equal(t, FlowAsk, r.Status, "re-ask %d", want)
		assert.Equal(t, want, r.Attempt)
	}
	r, err = flow.Next(call("signup", r.Result.RequestState, bad), codec, "alice")
	require.NoError(t, err)
	assert.Equal(t, FlowInvalid, r.Status)
	assert.Equal(t, "account", r.Step)
	assert.Equal(t, 4, r.Attempt)
	require.NotEmpty(t, r.Problems)
	assert.ErrorIs(t, r.Problems[0], ErrInvalidValue)
}

func TestFlowRefusals(t *testing.T) {
	for _, tt := range []struct {
		action string
		want   FlowStatus
	}{
		{"decline", FlowDeclined},
		{"cancel", FlowCancelled},
	} {
		t.Run(tt.action, func(t *testing.T) {
			flow, codec, _ := newFlowFixture(t)
			state := round1(t, flow, codec)
			r, err := flow.Next(call("signup", state, map[string]any{"team": tt.action}), codec, "alice")
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Status)
			assert.Equal(t, "team", r.Step)
			assert.Nil(t, r.Result)
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers)
		})
	}
	t.Run("unknown action is a failed answer", func(t *testing.T) {
		flow, codec, _ := newFlowFixture(t)
		state := round1(t, flow, codec)
		r, err := flow.Next(call("signup", state, map[string]any{"team": "maybe"}), codec, "alice")
		require.NoError(t, err)
		assert.Equal(t, "team", asked(t, r))
		assert.Equal(t, 1, r.Attempt)
	})
	t.Run("no answer asks again as it was", func(t *testing.T) {
		flow, codec, _ := newFlowFixture(t)
		state := round1(t, flow, codec)
		r, err := flow.Next(call("signup", state, nil), codec, "alice")
		require.NoError(t, err)
		assert.Equal(t, "team", asked(t, r))
		assert.Equal(t, 0, r.Attempt)
	})
}

func TestNewFlowRefusesBrokenFlows(t *testing.T) {
	good := []AutoFormField{{Name: "a"}}
	for _, tt := range []struct {
		name  string
		steps []Step
		opts  *FlowOptions
		want  string
		is    error
	}{
		{name: "no steps", want: "no steps"},
		{name: "empty key", steps: []Step{{Fields: good}}, want: "step 0 has an empty key"},
		{name: "clashing keys", steps: []Step{{Key: "k", Fields: good}, {Key: "k", Fields: []AutoFormField{{Name: "b"}}}}, want: `step key "k" is used twice`},
		{name: "clashing field names", steps: []Step{{Key: "one", Fields: good}, {Key: "two", Fields: good}}, want: `also asked by step "one"`, is: ErrName},
		{name: "broken field", steps: []Step{{Key: "one", Fields: []AutoFormField{{Name: "n", Type: TypeInteger, Min: Bound(2), Max: Bound(1)}}}}, want: `step "one"`, is: ErrBounds},
		{name: "no fields", steps: []Step{{Key: "one"}}, want: `step "one"`, is: ErrNoFields},
		{name: "negative reasks", steps: []Step{{Key: "one", Fields: good}}, opts: &FlowOptions{MaxReasks: -1}, want: "negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewFlow(tt.steps, tt.opts)
			assert.Nil(t, f)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
		})
	}
}

func TestFlowMisuse(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	unbound, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{make([]byte, 32)}})
	require.NoError(t, err)
	_, err = flow.Next(call("signup", "", nil), unbound, "alice")
	assert.ErrorContains(t, err, "must bind")
	_, err = flow.Next(call("signup", "", nil), nil, "alice")
	assert.ErrorContains(t, err, "must bind")
	_, err = (*Flow)(nil).Next(call("signup", "", nil), codec, "alice")
	assert.ErrorContains(t, err, "without steps")
	_, err = flow.Next(nil, codec, "alice")
	assert.ErrorContains(t, err, "without a tool call")
}

// benchFlowRound is round 2 of the team flow: verify the state, check the
// account answer, mint the next state and ask for the team step.
func benchFlowRound(b *testing.B) (*Flow, *RequestStateCodec, *mcp.CallToolRequest) {
	flow, err := NewFlow([]Step{accountStep, teamStep}, nil)
	require.NoError(b, err)
	codec, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(b, err)
	r, err := flow.Next(call("signup", "", nil), codec, "alice")
	require.NoError(b, err)
	req := call("signup", r.Result.RequestState, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "team"}})
	return flow, codec, req
}

func BenchmarkFlowRound(b *testing.B) {
	flow, codec, req := benchFlowRound(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := flow.Next(req, codec, "alice")
		if err != nil || r.Status != FlowAsk {
			b.Fatal(err, r)
		}
	}
}

// BenchmarkFlowRoundByHand does the same round's work with the bare
// primitives Flow wraps, as a careful handler would: the peer that
// BenchmarkFlowRound's overhead is measured against.
func BenchmarkFlowRoundByHand(b *testing.B) {
	_, codec, req := benchFlowRound(b)
	bind := BindTo("alice", "signup")
	b.ReportAllocs()
	for b.Loop() {
		var st flowState
		if err := codec.Verify(req.Params.RequestState, bind, &st); err != nil {
			b.Fatal(err)
		}
		a, ok := AcceptedFormInput(req.Params.InputResponses, "account", accountStep.Fields)
		if !ok {
			b.Fatal("not accepted")
		}
		token, err := codec.Mint(flowState{ID: st.ID, Step: "team", Proven: a}, bind)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := FormInputRequest(teamStep.Fields, &InputRequestOptions{Key: "team", Message: teamStep.Message, RequestState: token}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFlowID checks the idempotency key: one per run, kept across rounds,
// re-asks and replays, and different for every start.
func TestFlowID(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	r1, err := flow.Next(call("signup", "", nil), codec, "alice")
	require.NoError(t, err)
	other, err := flow.Next(call("signup", "", nil), codec, "alice")
	require.NoError(t, err)
	require.NotEmpty(t, r1.ID)
	assert.NotEqual(t, r1.ID, other.ID, "two starts in the same second share an ID")
	assert.NotEqual(t, r1.Result.RequestState, other.Result.RequestState)

	bad, err := flow.Next(call("signup", r1.Result.RequestState, map[string]any{"account": map[string]any{"email": "x"}}), codec, "alice")
	require.NoError(t, err)
	assert.Equal(t, r1.ID, bad.ID, "re-ask")
	answer := map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}}
	done, err := flow.Next(call("signup", bad.Result.RequestState, answer), codec, "alice")
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, r1.ID, done.ID, "done")
	replay, err := flow.Next(call("signup", bad.Result.RequestState, answer), codec, "alice")
	require.NoError(t, err)
	assert.Equal(t, done.ID, replay.ID, "replay")
}

func TestFlowReasksInvalidOptionalValue(t *testing.T) {
	flow, err := NewFlow([]Step{{Key: "k", Fields: []AutoFormField{
		{Name: "email", Type: TypeEmail, Required: true},
		{Name: "nick", Max: Bound(3)},
	}}}, nil)
	require.NoError(t, err)
	_, codec, _ := newFlowFixture(t)
	r, err := flow.Next(call("t", "", nil), codec, "p")
	require.NoError(t, err)
	r, err = flow.Next(call("t", r.Result.RequestState, map[string]any{"k": map[string]any{"email": "a@b.co", "nick": "toolong", "extra": 1.0}}), codec, "p")
	require.NoError(t, err)
	require.Equal(t, FlowAsk, r.Status)
	assert.Equal(t, 1, r.Attempt)
	assert.Contains(t, r.Result.InputRequests["k"].(*mcp.ElicitParams).Message, "Nick: longer than 3 characters")

	// Unknown keys alone are dropped without a re-ask.
	r, err = flow.Next(call("t", r.Result.RequestState, map[string]any{"k": map[string]any{"email": "a@b.co", "extra": 1.0}}), codec, "p")
	require.NoError(t, err)
	assert.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"email": "a@b.co"}, r.Answers)
}
