package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// finishRequest runs the team flow to its last round and returns the
// request that would finish it.
func finishRequest(t *testing.T, flow *Flow, args string) *mcp.CallToolRequest {
	t.Helper()
	req := call("signup", "", nil)
	req.Params.Arguments = json.RawMessage(args)
	r, err := flow.Next(context.Background(), req)
	require.NoError(t, err)
	req = call("signup", r.Result.RequestState, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "team"}})
	req.Params.Arguments = json.RawMessage(args)
	r, err = flow.Next(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	req = call("signup", r.Result.RequestState, map[string]any{"team": map[string]any{"team_name": "Analytical", "seats": 5.0}})
	req.Params.Arguments = json.RawMessage(args)
	return req
}

// TestFlowAfterDeploy runs rounds against one flow and finishes them
// against a second one with the same keys, as after a deploy between two
// rounds: no FlowDone may carry a value the new steps refuse.
func TestFlowAfterDeploy(t *testing.T) {
	tightened := Step{Key: "account", Message: "Create your account", Fields: []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true, Max: Bound(10)},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	}}
	country := Step{Key: "account", Message: "Create your account", Fields: append(cloneFields(accountStep.Fields),
		AutoFormField{Name: "country", Required: true})}
	relabelled := Step{Key: "account", Message: "Create your account", Fields: []AutoFormField{
		{Name: "email", Label: "Work email", Type: TypeEmail, Required: true},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	}}
	for _, tt := range []struct {
		name    string
		account Step
		want    []error // the problems the account step is asked again with
	}{
		{name: "unchanged", account: accountStep},
		{name: "max length lowered", account: tightened, want: []error{ErrChanged}},
		{name: "required field added", account: country, want: []error{ErrChanged}},
		{name: "label changed", account: relabelled, want: []error{ErrChanged}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, codec, _ := newFlowFixture(t)
			after, err := NewFlow(codec, []Step{tt.account, teamStep}, &FlowOptions{Principal: tokenUser})
			require.NoError(t, err)
			req := finishRequest(t, before, "")
			r, err := after.Next(context.Background(), req)
			require.NoError(t, err)
			if tt.want == nil {
				assert.Equal(t, FlowDone, r.Status)
				return
			}
			require.Equal(t, "account", asked(t, r))
			require.Len(t, r.Problems, len(tt.want))
			for i, w := range tt.want {
				assert.ErrorIs(t, r.Problems[i], w)
			}
			assert.Empty(t, r.Answers, "nothing stale is carried on")
			msg := r.Result.InputRequests["account"].(*mcp.ElicitParams).Message
			assert.Contains(t, msg, "Please check: "+ErrChanged.Error())
		})
	}
}

// TestFlowAskedStepChanged: an answer to the step a state asked is read
// only against the questions that state asked. When the step changed
// since (a deploy between two rounds, or another flow of the same key on
// the tool and codec), the step is asked again as it is now, and nothing
// from the answer is taken.
func TestFlowAskedStepChanged(t *testing.T) {
	fewerSeats := Step{Key: "team", Message: teamStep.Message, When: teamStep.When, Fields: []AutoFormField{
		{Name: "team_name", Label: "Team name", Required: true},
		{Name: "seats", Label: "Seats", Type: TypeInteger, Required: true, Min: Bound(2), Max: Bound(4)},
	}}
	before, codec, _ := newFlowFixture(t)
	after, err := NewFlow(codec, []Step{accountStep, fewerSeats}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	req := finishRequest(t, before, "") // answers the team step with 5 seats
	r, err := after.Next(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	require.Len(t, r.Problems, 1)
	assert.ErrorIs(t, r.Problems[0], ErrChanged)
	assert.NotContains(t, r.Answers, "seats")
	assert.Equal(t, "ada@example.com", r.Answers["email"], "the proven step is kept")
}

// TestFlowRechecksProvenAnswers: a proven answer that the step's Check refuses
// later (the room was taken meanwhile) asks the step again.
func TestFlowRechecksProvenAnswers(t *testing.T) {
	taken := false
	room := Step{Key: "account", Fields: accountStep.Fields, Check: func(a Answers) []*FieldError {
		if taken && a["plan"] == "team" {
			return []*FieldError{{Field: "plan", Err: errors.New("no team seats are left")}}
		}
		return nil
	}}
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{room, teamStep}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	req := finishRequest(t, flow, "")
	taken = true
	r, err := flow.Next(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, "account", asked(t, r))
	assert.Contains(t, r.Result.InputRequests["account"].(*mcp.ElicitParams).Message, "Plan: no team seats are left")
	// The email still passes: it is offered again as the default.
	schema := wireJSON(t, r.Result.InputRequests["account"].(*mcp.ElicitParams).RequestedSchema)
	assert.Contains(t, schema, `"default":"ada@example.com"`)
	assert.NotContains(t, schema, `"default":"team"`)
}

// TestFlowStateWithoutProof: a state sealed at a later step with nothing
// proven (from an older version, or a minting bug) starts at step one
// rather than finishing with empty answers.
func TestFlowStateWithoutProof(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	digest, err := argumentsDigest(nil)
	require.NoError(t, err)
	token, err := codec.mint(flowState{ID: "run", Step: "team"}, BindTo("alice", "signup", digest, PathNative.tag()), true)
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), call("signup", token, map[string]any{"team": map[string]any{"team_name": "Analytical", "seats": 5.0}}))
	require.NoError(t, err)
	assert.Equal(t, "account", asked(t, r))
	assert.Empty(t, r.Answers)
}

func TestFlowStepCheck(t *testing.T) {
	slot := Step{Key: "booking", Fields: []AutoFormField{
		{Name: "room", Label: "Room", Required: true},
		{Name: "time", Label: "Time", Required: true},
	}, Check: func(a Answers) []*FieldError {
		var problems []*FieldError
		if a["room"] == "ada" {
			problems = append(problems, &FieldError{Field: "room", Err: errors.New("booked at that time")})
		}
		if t, _ := a["time"].(string); len(t) != 5 || t[2] != ':' {
			problems = append(problems, &FieldError{Field: "time", Err: errors.New("not HH:MM")})
		}
		return problems
	}}
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{slot}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), call("book", "", nil))
	require.NoError(t, err)
	r, err = flow.Next(context.Background(), call("book", r.Result.RequestState, map[string]any{"booking": map[string]any{"room": "ada", "time": "10:00"}}))
	require.NoError(t, err)
	require.Equal(t, "booking", asked(t, r))
	assert.Equal(t, 1, r.Attempt)
	p := r.Result.InputRequests["booking"].(*mcp.ElicitParams)
	assert.Equal(t, DefaultInputMessage+"\n\nPlease check: Room: booked at that time.", p.Message)
	assert.Contains(t, wireJSON(t, p.RequestedSchema), `"default":"10:00"`, "the good answer is pre-filled")

	r, err = flow.Next(context.Background(), call("book", r.Result.RequestState, map[string]any{"booking": map[string]any{"room": "babbage", "time": "10:00"}}))
	require.NoError(t, err)
	require.Equal(t, FlowDone, r.Status)
	assert.Equal(t, Answers{"room": "babbage", "time": "10:00"}, r.Answers)
}

func TestFlowUnknownAction(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	state := round1(t, flow)
	r, err := flow.Next(context.Background(), call("signup", state, map[string]any{"team": "maybe"}))
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	assert.Contains(t, r.Result.InputRequests["team"].(*mcp.ElicitParams).Message, "the answer's action is none of accept, decline and cancel")
}
