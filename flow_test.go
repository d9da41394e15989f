package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/auth"
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

func newFlowFixture(t testing.TB) (*Flow, *RequestStateCodec, *flowClock) {
	t.Helper()
	clock := &flowClock{t: time.Unix(1_800_000_000, 0)}
	codec, err := NewRequestStateCodec(RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")},
		Bind: true,
		Now:  clock.now,
	})
	require.NoError(t, err)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	return flow, codec, clock
}

// tokenUser is the principal of a call: its bearer token's user.
func tokenUser(req *mcp.CallToolRequest) string {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return ""
	}
	return req.Extra.TokenInfo.UserID
}

// call builds the request of one round: the tool, the echoed state and the
// client's answers as key → content, or key → action for a refusal.
func call(tool, state string, answers map[string]any) *mcp.CallToolRequest {
	return callAs("alice", tool, state, answers)
}

// formCaps is the per-request _meta of a 2026-07-28 client that declared
// form elicitation.
func formCaps() mcp.Meta {
	return mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}
}

// callAs is call by principal, a client that declared form elicitation.
func callAs(principal, tool, state string, answers map[string]any) *mcp.CallToolRequest {
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
	return &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Meta: formCaps(), Name: tool, RequestState: state, InputResponses: responses},
		Extra:  &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: principal}},
	}
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
			flow, _, _ := newFlowFixture(t)
			r, err := flow.Next(context.Background(), call("signup", "", nil))
			require.NoError(t, err)
			var steps []string
			for r.Status == FlowAsk {
				key := asked(t, r)
				steps = append(steps, key)
				content := map[string]any{"email": "ada@example.com", "plan": tt.plan}
				if key == "team" {
					content = map[string]any{"team_name": "Analytical", "seats": 5.0}
				}
				r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, map[string]any{key: content}))
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
func round1(t *testing.T, flow *Flow) string {
	t.Helper()
	r, err := flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, map[string]any{
		"account": map[string]any{"email": "ada@example.com", "plan": "team"},
	}))
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	return r.Result.RequestState
}

func TestFlowIgnoresForgedEarlierAnswers(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	state := round1(t, flow)
	// Round 2 resends round 1 with a changed email and plan, and smuggles
	// an extra key into the team answer: none of it may count.
	r, err := flow.Next(context.Background(), call("signup", state, map[string]any{
		"account": map[string]any{"email": "mallory@example.com", "plan": "pro"},
		"team":    map[string]any{"team_name": "Analytical", "seats": 5.0, "email": "mallory@example.com"},
	}))
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
			flow, _, clock := newFlowFixture(t)
			state := round1(t, flow)
			if tt.tamper != nil {
				state = tt.tamper(state)
			}
			clock.t = clock.t.Add(tt.advance)
			r, err := flow.Next(context.Background(), callAs(tt.principal, tt.tool, state, team))
			assert.Nil(t, r)
			var rpcErr *jsonrpc.Error
			require.True(t, errors.As(err, &rpcErr), "want *jsonrpc.Error, got %T: %v", err, err)
			assert.Equal(t, int64(-32602), rpcErr.Code)
			assert.JSONEq(t, `{"reason":"invalid_request_state"}`, string(rpcErr.Data))
		})
	}
	t.Run("still valid at the TTL", func(t *testing.T) {
		flow, _, clock := newFlowFixture(t)
		state := round1(t, flow)
		clock.t = clock.t.Add(10 * time.Minute)
		r, err := flow.Next(context.Background(), call("signup", state, team))
		require.NoError(t, err)
		assert.Equal(t, FlowDone, r.Status)
	})
}

func TestFlowReasksOnlyTheFailingStep(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	state := round1(t, flow)
	r, err := flow.Next(context.Background(), call("signup", state, map[string]any{
		"team": map[string]any{"team_name": "Analytical", "seats": 500.0},
	}))
	require.NoError(t, err)
	assert.Equal(t, "team", asked(t, r))
	assert.Equal(t, 1, r.Attempt)
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "seats", r.Problems[0].Field)
	msg := r.Result.InputRequests["team"].(*mcp.ElicitParams).Message
	assert.Equal(t, "Step 2 of 2\n\nSet up your team\n\nSeats must be from 2 to 50.", msg, "issue 34: where the step stands, then its message")
	assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers, "round 1 is still proven")

	// The re-ask carries round 1 in its own state: answering it finishes.
	r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, map[string]any{
		"team": map[string]any{"team_name": "Analytical", "seats": 50.0},
	}))
	require.NoError(t, err)
	require.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team", "team_name": "Analytical", "seats": 50.0}, r.Answers)
}

func TestFlowGivesUpAfterMaxReasks(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	r, err := flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	bad := map[string]any{"account": map[string]any{"email": "nope", "plan": "pro"}}
	for want := 1; want <= 3; want++ {
		r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, bad))
		require.NoError(t, err)
		require.Equal(t, FlowAsk, r.Status, "re-ask %d", want)
		assert.Equal(t, want, r.Attempt)
	}
	r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, bad))
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
			flow, _, _ := newFlowFixture(t)
			state := round1(t, flow)
			r, err := flow.Next(context.Background(), call("signup", state, map[string]any{"team": tt.action}))
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Status)
			assert.Equal(t, "team", r.Step)
			assert.Nil(t, r.Result)
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers)
		})
	}
	t.Run("unknown action is a failed answer", func(t *testing.T) {
		flow, _, _ := newFlowFixture(t)
		state := round1(t, flow)
		r, err := flow.Next(context.Background(), call("signup", state, map[string]any{"team": "maybe"}))
		require.NoError(t, err)
		assert.Equal(t, "team", asked(t, r))
		assert.Equal(t, 1, r.Attempt)
	})
	t.Run("no answer asks again as it was", func(t *testing.T) {
		flow, _, _ := newFlowFixture(t)
		state := round1(t, flow)
		r, err := flow.Next(context.Background(), call("signup", state, nil))
		require.NoError(t, err)
		assert.Equal(t, "team", asked(t, r))
		assert.Equal(t, 0, r.Attempt)
	})
}

func TestNewFlowRefusesBrokenFlows(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	unbinding, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{make([]byte, 32)}})
	require.NoError(t, err)
	good := []AutoFormField{{Name: "a"}}
	form, err := NewForm[Answers](good, &FormOptions{Key: "f"})
	require.NoError(t, err)
	for _, tt := range []struct {
		name  string
		codec *RequestStateCodec
		steps []Step
		opts  *FlowOptions
		want  string
		is    error
	}{
		{name: "nil codec", steps: []Step{{Key: "k", Fields: good}}, want: "needs a request-state codec"},
		{name: "codec that does not bind", codec: unbinding, steps: []Step{{Key: "k", Fields: good}}, want: "must bind"},
		{name: "no steps", codec: codec, want: "no steps"},
		{name: "empty key", codec: codec, steps: []Step{{Fields: good}}, want: "step 0 has an empty key"},
		{name: "clashing keys", codec: codec, steps: []Step{{Key: "k", Fields: good}, {Key: "k", Fields: []AutoFormField{{Name: "b"}}}}, want: `step key "k" is used twice`},
		{name: "clashing field names", codec: codec, steps: []Step{{Key: "one", Fields: good}, {Key: "two", Fields: good}}, want: `also asked by step "one"`, is: ErrName},
		{name: "clashing with a form", codec: codec, steps: []Step{{Key: "one", Fields: good}, {Form: form}}, want: `also asked by step "one"`, is: ErrName},
		{name: "form and fields", codec: codec, steps: []Step{{Form: form, Key: "f"}}, want: "has a Form and its own"},
		{name: "broken field", codec: codec, steps: []Step{{Key: "one", Fields: []AutoFormField{{Name: "n", Type: TypeInteger, Min: Bound(2), Max: Bound(1)}}}}, want: `step "one"`, is: ErrBounds},
		{name: "no fields", codec: codec, steps: []Step{{Key: "one"}}, want: `step "one"`, is: ErrNoFields},
		{name: "a secret named like the page's token", codec: codec, steps: []Step{{Key: "pw", Fields: []AutoFormField{{Name: "t", Type: TypePassword}}}},
			opts: &FlowOptions{Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}},
			want: `field "t": invalid name: is the name of one of the secret page's own inputs (t, c, a)`, is: ErrName},
		{name: "a secret named like the page's stop", codec: codec, steps: []Step{{Key: "pw", Fields: []AutoFormField{{Name: "a", Type: TypePassword}}}},
			opts: &FlowOptions{Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}},
			want: `field "a"`, is: ErrName},
		{name: "negative reasks", codec: codec, steps: []Step{{Key: "one", Fields: good}}, opts: &FlowOptions{MaxReasks: -1}, want: "negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := NewFlow(tt.codec, tt.steps, tt.opts)
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
	flow, _, _ := newFlowFixture(t)
	_, err := (*Flow)(nil).Next(context.Background(), call("signup", "", nil))
	assert.ErrorContains(t, err, "without steps")
	_, err = flow.Next(context.Background(), nil)
	assert.ErrorContains(t, err, "without a tool call")
}

// benchFlowRound is round 2 of the team flow: verify the state, check the
// account answer, mint the next state and ask for the team step.
func benchFlowRound(b *testing.B) (*Flow, *RequestStateCodec, *mcp.CallToolRequest) {
	flow, codec, _ := newFlowFixture(b)
	r, err := flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(b, err)
	req := call("signup", r.Result.RequestState, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "team"}})
	return flow, codec, req
}

// BenchmarkFlowRound runs that round on each path: native, in an MCP Apps
// view's arguments (the browser's text values), and through the model's.
// The paths that answer through the arguments must cost at most 1.2 times
// the native round. Flows seal their state; native-signed is the same
// native round with FlowOptions.ReadableState, the peer of sealing, which
// must cost at least 1/1.3 of the sealed round.
func BenchmarkFlowRound(b *testing.B) {
	flow, codec, native := benchFlowRound(b)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(b, err)
	readable, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, ReadableState: true})
	require.NoError(b, err)
	r, err := readable.Next(context.Background(), call("signup", "", nil))
	require.NoError(b, err)
	signed := call("signup", r.Result.RequestState, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "team"}})
	// second returns round 2 of a flow asked with meta, answered through
	// the arguments.
	second := func(flow *Flow, meta mcp.Meta) *mcp.CallToolRequest {
		r, err := flow.Next(context.Background(), argsCall(b, meta, "alice", "signup", nil))
		require.NoError(b, err)
		return argsCall(b, meta, "alice", "signup", map[string]any{
			StateArgument: carried(b, r), "email": "ada@example.com", "plan": "team"})
	}
	for _, bb := range []struct {
		name string
		flow *Flow
		req  *mcp.CallToolRequest
	}{
		{"native", flow, native},
		{"native-signed", readable, signed},
		{"apps", flow, second(flow, appsMeta())},
		{"model", model, second(model, bareMeta())},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := bb.flow.Next(context.Background(), bb.req)
				if err != nil || r.Status != FlowAsk || r.Step != "team" {
					b.Fatal(err, r)
				}
			}
		})
		// Natively, go-sdk decodes the answers before the handler runs;
		// in the arguments, Next decodes them itself. The wire variant
		// decodes the call's params from JSON each round, as go-sdk does,
		// so that both pay for reading the answer.
		// A view's submit comes as a call of the companion, which its
		// middleware routes and marks: the wire variant pays for that too.
		sent := *bb.req.Params
		viaView := viaCompanion(bb.req)
		if viaView {
			var args map[string]any
			require.NoError(b, json.Unmarshal(sent.Arguments, &args))
			args[prefab.ToolArgument] = sent.Name
			sent.Name, sent.Arguments = prefab.CompanionTool, mustJSON(args)
			sent.Meta = appsMeta()
		}
		params, err := json.Marshal(&sent)
		require.NoError(b, err)
		route := companionMiddleware(ViewerURI)(listing(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
			r, err := bb.flow.Next(ctx, req.(*mcp.CallToolRequest))
			if err != nil || r.Status != FlowAsk || r.Step != "team" {
				b.Fatal(err, r)
			}
			return nil, nil
		}, attachedTool(b, "signup")))
		b.Run("wire/"+bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var p mcp.CallToolParamsRaw
				if err := json.Unmarshal(params, &p); err != nil {
					b.Fatal(err)
				}
				if _, err := route(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &p, Extra: bb.req.Extra}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFlowRoundByHand does the same round's work with the bare
// primitives, as a careful handler would without a Flow and without
// compiled forms: the peer that BenchmarkFlowRound is measured against (it
// is also what a round of the first version cost).
func BenchmarkFlowRoundByHand(b *testing.B) {
	_, codec, req := benchFlowRound(b)
	b.ReportAllocs()
	for b.Loop() {
		// The state is bound to the arguments too, as Flow binds it.
		digest, err := canonjson.ArgumentsDigest(req.Params.Arguments)
		if err != nil {
			b.Fatal(err)
		}
		bind := BindTo("alice", "signup", digest, PathNative.tag())
		// Sealed, as a flow's state is, with the codec's own sealing.
		var st flowState
		if err := codec.verify(req.Params.RequestState, bind, &st, true); err != nil {
			b.Fatal(err)
		}
		a, ok := AcceptedFormInput(req.Params.InputResponses, "account", accountStep.Fields)
		if !ok {
			b.Fatal("not accepted")
		}
		token, err := codec.mint(flowState{ID: st.ID, Step: "team", Proven: a}, bind, true)
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
	flow, _, _ := newFlowFixture(t)
	r1, err := flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	other, err := flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	require.NotEmpty(t, r1.ID)
	assert.NotEqual(t, r1.ID, other.ID, "two starts in the same second share an ID")
	assert.NotEqual(t, r1.Result.RequestState, other.Result.RequestState)

	bad, err := flow.Next(context.Background(), call("signup", r1.Result.RequestState, map[string]any{"account": map[string]any{"email": "x"}}))
	require.NoError(t, err)
	assert.Equal(t, r1.ID, bad.ID, "re-ask")
	answer := map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}}
	done, err := flow.Next(context.Background(), call("signup", bad.Result.RequestState, answer))
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, r1.ID, done.ID, "done")
	replay, err := flow.Next(context.Background(), call("signup", bad.Result.RequestState, answer))
	require.NoError(t, err)
	assert.Equal(t, done.ID, replay.ID, "replay")
}

func TestFlowReasksInvalidOptionalValue(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{{Key: "k", Fields: []AutoFormField{
		{Name: "email", Type: TypeEmail, Required: true},
		{Name: "nick", Max: Bound(3)},
	}}}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), call("t", "", nil))
	require.NoError(t, err)
	r, err = flow.Next(context.Background(), call("t", r.Result.RequestState, map[string]any{"k": map[string]any{"email": "a@b.co", "nick": "toolong", "extra": 1.0}}))
	require.NoError(t, err)
	require.Equal(t, FlowAsk, r.Status)
	assert.Equal(t, 1, r.Attempt)
	assert.Contains(t, r.Result.InputRequests["k"].(*mcp.ElicitParams).Message, "Nick must be 3 characters or fewer.")

	// Unknown keys alone are dropped without a re-ask.
	r, err = flow.Next(context.Background(), call("t", r.Result.RequestState, map[string]any{"k": map[string]any{"email": "a@b.co", "extra": 1.0}}))
	require.NoError(t, err)
	assert.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"email": "a@b.co"}, r.Answers)
}

func TestFlowBindsArguments(t *testing.T) {
	for _, tt := range []struct {
		name    string
		unbound bool
		minted  string
		retried string
		wantErr bool
	}{
		{name: "same arguments", minted: `{"repo":"foo"}`, retried: `{"repo":"foo"}`},
		{name: "same arguments spelled otherwise", minted: `{"n":1,"repo":"foo"}`, retried: ` { "repo" : "foo", "n": 1.0 }`},
		{name: "absent, null and {} are alike", minted: ``, retried: `{}`},
		{name: "null and absent", minted: `null`, retried: ``},
		{name: "other arguments", minted: `{"repo":"foo"}`, retried: `{"repo":"bar"}`, wantErr: true},
		{name: "arguments added", minted: ``, retried: `{"repo":"bar"}`, wantErr: true},
		{name: "other arguments, unbound", unbound: true, minted: `{"repo":"foo"}`, retried: `{"repo":"bar"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, codec, _ := newFlowFixture(t)
			flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, UnboundArguments: tt.unbound})
			require.NoError(t, err)
			req := finishRequest(t, flow, tt.minted)
			req.Params.Arguments = json.RawMessage(tt.retried)
			r, err := flow.Next(context.Background(), req)
			if !tt.wantErr {
				require.NoError(t, err)
				assert.Equal(t, FlowDone, r.Status)
				return
			}
			assert.Nil(t, r)
			var rpcErr *jsonrpc.Error
			require.ErrorAs(t, err, &rpcErr)
			assert.Equal(t, int64(-32602), rpcErr.Code)
		})
	}
}

func TestFlowFields(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	got := flow.Fields("team")
	assert.Equal(t, teamStep.Fields, got)
	got[0].Name = "changed"
	assert.Equal(t, "team_name", flow.Fields("team")[0].Name, "a copy")
	assert.Nil(t, flow.Fields("nope"))
}

// TestFlowCapabilities: a client that did not declare form elicitation is
// never sent an input request it cannot answer, over go-sdk in memory.
func TestFlowCapabilities(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	for _, tt := range []struct {
		name    string
		version string
		elicit  bool
		wantErr bool
	}{
		{"2026-07-28 without elicitation", "2026-07-28", false, true},
		{"2025-11-25 without elicitation", "2025-11-25", false, true},
		{"2026-07-28 with elicitation", "2026-07-28", true, false},
		{"2025-11-25 with elicitation", "2025-11-25", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					r, err := flow.Next(context.Background(), req)
					switch {
					case err != nil:
						return nil, err
					case r.Status == FlowAsk:
						return r.Result, nil
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String()}}}, nil
				})
			opts := &mcp.ClientOptions{}
			if tt.elicit {
				opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "pro"}}, nil
				}
			}
			cs := connectClient(t, server, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, opts), tt.version)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup"})
			if !tt.wantErr {
				require.NoError(t, err)
				require.Len(t, res.Content, 1)
				assert.Equal(t, "done", res.Content[0].(*mcp.TextContent).Text)
				return
			}
			var rpcErr *jsonrpc.Error
			require.ErrorAs(t, err, &rpcErr)
			assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
			assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, string(rpcErr.Data))
		})
	}
}

// TestFlowNeedsPrincipal: a flow says who calls, or says in so many words
// that every caller is one person; it is never bound to "" by default.
func TestFlowNeedsPrincipal(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	fromCtx := func(ctx context.Context) string { s, _ := ctx.Value(ctxUser{}).(string); return s }
	for _, tt := range []struct {
		name string
		opts *FlowOptions
		ok   bool
	}{
		{"nil options", nil, false},
		{"no principal", &FlowOptions{AskModel: true}, false},
		{"Principal", &FlowOptions{Principal: tokenUser}, true},
		{"ContextPrincipal", &FlowOptions{ContextPrincipal: fromCtx}, true},
		{"every caller is the same person", &FlowOptions{EveryCallerIsSamePerson: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewFlow(codec, []Step{accountStep}, tt.opts)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, errNoPrincipal)
			assert.ErrorContains(t, err, "EveryCallerIsSamePerson")
		})
	}
	// go-sdk's Next reads ContextPrincipal from the context it is given.
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{ContextPrincipal: fromCtx})
	require.NoError(t, err)
	first, err := flow.Next(context.WithValue(context.Background(), ctxUser{}, "alice"), call("signup", "", nil))
	require.NoError(t, err)
	answer := map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}}
	_, err = flow.Next(context.WithValue(context.Background(), ctxUser{}, "mallory"), call("signup", first.Result.RequestState, answer))
	assert.Error(t, err, "a state minted for alice is refused for mallory")
	done, err := flow.Next(context.WithValue(context.Background(), ctxUser{}, "alice"), call("signup", first.Result.RequestState, answer))
	require.NoError(t, err)
	assert.Equal(t, FlowDone, done.Status)
}

// marshalCounter counts how often encoding/json marshals it.
type marshalCounter struct{ n atomic.Int64 }

func (c *marshalCounter) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte(`"counted"`), nil
}

// go-sdk's streamable HTTP handler reads a tool's input schema on every
// tools/call of a 2026-07-28 client, for its x-mcp-header check, by
// marshalling it. The flow's schema is bytes marshalled once, when the tool
// is built: no call marshals it again, and every call reads the same bytes.
func TestFlowInputSchemaIsMarshalledOnce(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true, AskModel: true})
	require.NoError(t, err)
	counter := &marshalCounter{}
	base := &jsonschema.Schema{Type: "object", Extra: map[string]any{"x-counted": counter}}

	var schema any = flow.InputSchema(base)
	raw, ok := schema.(json.RawMessage)
	require.True(t, ok, "InputSchema returns %T, want json.RawMessage", schema)
	assert.Equal(t, int64(1), counter.n.Load(), "InputSchema marshals base once")
	var got struct {
		Type       string         `json:"type"`
		Counted    string         `json:"x-counted"`
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, "object", got.Type)
	assert.Equal(t, "counted", got.Counted, "base's own keywords are kept")
	for _, k := range []string{StateArgument, prefab.ActionArgument, "email", "plan", "team_name", "seats"} {
		assert.Contains(t, got.Properties, k)
	}
	assert.Equal(t, string(raw), string(flow.InputSchema(base)), "the same schema on every call of InputSchema")

	server := mcp.NewServer(&mcp.Implementation{Name: "schema", Version: "v0"}, nil)
	tool := &mcp.Tool{Name: "signup", InputSchema: schema}
	server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	defer srv.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "schema-test", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	require.GreaterOrEqual(t, cs.InitializeResult().ProtocolVersion, "2026-07-28", "the header check runs for 2026-07-28 clients")

	counter.n.Store(0)
	for i := range 3 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
		require.NoError(t, err, "call %d", i)
		require.False(t, res.IsError, "call %d: %+v", i, res)
	}
	assert.Zero(t, counter.n.Load(), "tools/call marshalled the input schema again")
	after, ok := tool.InputSchema.(json.RawMessage)
	require.True(t, ok)
	assert.Same(t, &raw[0], &after[0], "the tool keeps the bytes it was given")
	assert.Equal(t, string(raw), string(after))
}

// TestFlowInputSchemaPortable (issue 35, item 3): the tool's schema lists
// what its caller may send, each with a type, as the Inspector's
// portability check asks: nothing without the model path, the fields and
// the state with it, and each view's key too only for a base that refuses
// other properties. No field is listed twice under another name.
func TestFlowInputSchemaPortable(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	closed := &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Properties: map[string]*jsonschema.Schema{"repo": {Type: "string"}}}
	for _, tt := range []struct {
		name  string
		model bool
		base  *jsonschema.Schema
		want  []string
	}{
		{"no model path", false, nil, nil},
		{"the model path", true, nil, []string{"email", "plan", "team_name", "seats", StateArgument, prefab.ActionArgument}},
		{"a closed base", false, closed, []string{"repo", "email", "plan", "team_name", "seats", StateArgument,
			prefab.ActionArgument, prefab.ToolArgument, "teamName"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true, AskModel: tt.model})
			require.NoError(t, err)
			raw := flow.InputSchema(tt.base)
			var got struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			require.NoError(t, json.Unmarshal(raw, &got))
			assert.ElementsMatch(t, tt.want, slices.Collect(maps.Keys(got.Properties)), "%s", raw)
			for name, p := range got.Properties {
				assert.Contains(t, p, "type", "property %q has no type: the Inspector warns", name)
				assert.NotContains(t, p, "default", "property %q: a default is the form's to show", name)
			}
		})
	}
}

// TestFlowInputSchemaRefusesOwnKeys: a tool argument named as a field, or
// as the key prefab's renderer sends a field under, would be read as an
// answer and left out of the binding; InputSchema refuses a base that
// declares one, naming it, and keeps a base's other properties.
func TestFlowInputSchemaRefusesOwnKeys(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	for _, name := range []string{"team_name", "teamName", "email"} {
		t.Run(name, func(t *testing.T) {
			base := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{name: {Type: "string"}}}
			assert.PanicsWithValue(t, func() string {
				field := name
				if name == "teamName" {
					field = "team_name"
				}
				return `mcpform: Flow.InputSchema: base's property "` + name + `" is where the flow reads field "` + field +
					`"'s answer, and is left out of what its state is bound to: rename the tool's argument`
			}(), func() { flow.InputSchema(base) })
		})
	}
	base := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"repo": {Type: "string"}}}
	assert.NotPanics(t, func() { flow.InputSchema(base) })
}

// transferFlow builds, for one call of transfer_funds, the flow that
// confirms it: its message names the call's arguments, its When asks a
// second confirmation for an amount above a trillion cents, and its
// Check refuses a memo that repeats the source account. It is built per
// call, on the codec built once (see "A flow per call" on Flow).
func transferFlow(t *testing.T, codec *RequestStateCodec, req *mcp.CallToolRequest) *Flow {
	t.Helper()
	var args struct {
		From, To string
		Amount   json.Number
	}
	dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&args))
	big := len(args.Amount.String()) > 15
	flow, err := NewFlow(codec, []Step{
		{Key: "confirm", Message: fmt.Sprintf("Transfer %s cents from %s to %s?", args.Amount, args.From, args.To),
			Fields: []AutoFormField{{Name: "ok", Type: TypeBoolean, Required: true}, {Name: "memo"}},
			Check: func(a Answers) []*FieldError {
				if m, _ := a["memo"].(string); m == args.From {
					return []*FieldError{{Field: "memo", Err: fmt.Errorf("the memo repeats %s", args.From)}}
				}
				return nil
			}},
		{Key: "large", Message: fmt.Sprintf("%s cents is a large amount: sure?", args.Amount),
			Fields: []AutoFormField{{Name: "sure", Type: TypeBoolean, Required: true}},
			When:   func(Answers) bool { return big }},
	}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	return flow
}

// TestFlowPerCall: a flow built per call, from the call's arguments,
// asks with a message that names them exactly, judges by them, and
// verifies the state the flow of the previous call minted; a call with
// other arguments is refused.
func TestFlowPerCall(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	const args = `{"from":"CHK-1","to":"SAV-2","amount":9007199254740993}`
	transfer := func(state string, answers map[string]any, raw string) (*FlowRound, error) {
		req := callAs("alice", "transfer_funds", state, answers)
		req.Params.Arguments = json.RawMessage(raw)
		return transferFlow(t, codec, req).Next(context.Background(), req)
	}
	message := func(r *FlowRound, key string) string {
		require.Equal(t, FlowAsk, r.Status)
		p, ok := r.Result.InputRequests[key].(*mcp.ElicitParams)
		require.True(t, ok, "no request %q in %v", key, r.Result.InputRequests)
		return p.Message
	}
	r, err := transfer("", nil, args)
	require.NoError(t, err)
	assert.Equal(t, "Step 1 of up to 2\n\nTransfer 9007199254740993 cents from CHK-1 to SAV-2?", message(r, "confirm"), "issue 34: a later step has a When")

	r, err = transfer(r.Result.RequestState, map[string]any{"confirm": map[string]any{"ok": true, "memo": "CHK-1"}}, args)
	require.NoError(t, err)
	require.Len(t, r.Problems, 1, "the Check judges by the call's arguments")
	assert.ErrorContains(t, r.Problems[0], "the memo repeats CHK-1")
	message(r, "confirm")

	_, err = transfer(r.Result.RequestState, map[string]any{"confirm": map[string]any{"ok": true}},
		`{"from":"CHK-1","to":"SAV-2","amount":9007199254740992}`)
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "a state bound to other arguments")
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcErr.Code)

	r, err = transfer(r.Result.RequestState, map[string]any{"confirm": map[string]any{"ok": true}}, args)
	require.NoError(t, err)
	assert.Equal(t, "Step 2 of 2\n\n9007199254740993 cents is a large amount: sure?", message(r, "large"), "When sees the amount")
	r, err = transfer(r.Result.RequestState, map[string]any{"large": map[string]any{"sure": true}}, args)
	require.NoError(t, err)
	require.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"ok": true, "sure": true}, r.Answers)
}

// TestFlowEmptyPrincipal: a call whose principal reads as "" is refused
// on its first round, before anyone is asked, unless the flow says every
// caller is the same person; on the root face and through a form.
func TestFlowEmptyPrincipal(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	fromCtx := func(ctx context.Context) string { s, _ := ctx.Value(ctxUser{}).(string); return s }
	for _, tt := range []struct {
		name string
		opts *FlowOptions
		ok   bool
	}{
		{"Principal", &FlowOptions{Principal: tokenUser}, false},
		{"ContextPrincipal", &FlowOptions{ContextPrincipal: fromCtx}, false},
		{"Principal, every caller the same person", &FlowOptions{Principal: tokenUser, EveryCallerIsSamePerson: true}, true},
		{"every caller the same person", &FlowOptions{EveryCallerIsSamePerson: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flow, err := NewFlow(codec, []Step{accountStep}, tt.opts)
			require.NoError(t, err)
			r, err := flow.Next(context.Background(), callAs("", "signup", "", nil))
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, FlowAsk, r.Status)
				return
			}
			require.ErrorIs(t, err, errEmptyPrincipal)
			assert.Nil(t, r)
			assert.ErrorContains(t, err, `returned ""`)
			assert.ErrorContains(t, err, "EveryCallerIsSamePerson")
		})
	}
	t.Run("a form", func(t *testing.T) {
		form := keyedForm(t, accountStep.Fields, true)
		_, err := form.Ask(argsCall(t, bareMeta(), "", "signup", nil), "")
		assert.ErrorIs(t, err, errEmptyPrincipal)
	})
}
