package mcpform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCall is a call from another face: answers by key, declared modes,
// and its own errors.
type fakeCall struct {
	ctx     context.Context
	state   string
	answers map[string]seam.Answer
	form    bool
}

func (c *fakeCall) Tool() string                        { return "signup" }
func (c *fakeCall) Arguments() (json.RawMessage, error) { return nil, nil }
func (c *fakeCall) State() string                       { return c.state }
func (c *fakeCall) Context() context.Context            { return c.ctx }
func (c *fakeCall) Modes() (bool, bool)                 { return c.form, false }
func (c *fakeCall) CapabilityError(bool, bool) error    { return errFakeCapability }
func (c *fakeCall) StateError(error) error              { return errFakeState }
func (c *fakeCall) Answer(key string) (seam.Answer, bool) {
	a, ok := c.answers[key]
	return a, ok
}

var (
	errFakeCapability = assert.AnError
	errFakeState      = context.DeadlineExceeded
)

type ctxUser struct{}

func TestSeamPrincipal(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	steps := []Step{accountStep}
	fromCtx := func(ctx context.Context) string { s, _ := ctx.Value(ctxUser{}).(string); return s }
	both, err := NewFlow(codec, steps, &FlowOptions{Principal: tokenUser, ContextPrincipal: fromCtx})
	require.NoError(t, err)
	goOnly, err := NewFlow(codec, steps, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	ctxOnly, err := NewFlow(codec, steps, &FlowOptions{ContextPrincipal: fromCtx})
	require.NoError(t, err)
	other := &fakeCall{ctx: context.WithValue(context.Background(), ctxUser{}, "alice"), form: true}
	for _, tt := range []struct {
		name string
		flow *Flow
		call seam.Call
		want string
		err  bool
	}{
		{"go-sdk, Principal", both, (*sdkCall)(call("signup", "", nil)), "alice", false},
		{"other face, ContextPrincipal", both, other, "alice", false},
		{"go-sdk, ContextPrincipal from Next's context", ctxOnly, (*sdkCall)(call("signup", "", nil)), "alice", false},
		{"other face without ContextPrincipal", goOnly, other, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.flow.principalOf(other.ctx, tt.call)
			assert.Equal(t, tt.err, err != nil, "%v", err)
			assert.Equal(t, tt.want, got)
		})
	}
	// A state minted on one face verifies on the other: one principal.
	r, err := both.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	other.state = r.Result.RequestState
	other.answers = map[string]seam.Answer{"account": {Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "pro"}}}
	done, err := both.next(other.ctx, other)
	require.NoError(t, err)
	assert.Equal(t, FlowDone, done.Status)
	assert.Equal(t, r.ID, done.ID)
}

func TestSeamErrorsAreTheFaces(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	_, err = flow.next(context.Background(), &fakeCall{form: false})
	assert.Equal(t, errFakeCapability, err)
	_, err = flow.next(context.Background(), &fakeCall{form: true, state: "v1.x.y"})
	assert.Equal(t, errFakeState, err)
}

// TestSeamRound: the round as other faces get it asks with the bytes the
// form was compiled to, and a nil go-sdk request is a call with nothing in
// it, as before.
func TestSeamRound(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	r, err := seam.Next(flow, &fakeCall{form: true})
	require.NoError(t, err)
	require.Len(t, r.Requests, 1)
	assert.Equal(t, "account", r.Requests[0].Key)
	assert.Equal(t, json.RawMessage(flow.steps[0].c.schema), r.Requests[0].Schema)
	assert.NotEmpty(t, r.State)
	assert.Same(t, &flow.steps[0].c.face, r.Requests[0].Face, "a step asked as compiled offers its slot")
	core, ok := r.Core.(*FlowRound)
	require.True(t, ok)
	assert.Nil(t, core.Result, "the core builds no go-sdk result for another face")

	var tc *sdkCall
	assert.Equal(t, "", tc.Tool())
	_, ok = tc.Answer("x")
	assert.False(t, ok)
	form, url := tc.Modes()
	assert.False(t, form || url)
}

// TestJudgeNotObject: content that is not an object, which go-sdk's types
// cannot carry but other faces' can, is refused, not read as empty.
func TestJudgeNotObject(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "a"}}, nil)
	require.NoError(t, err)
	status, _, problems := form.c.judge(&fakeCall{answers: map[string]seam.Answer{DefaultInputKey: {Action: "accept", Content: []any{1.0}}}})
	assert.Equal(t, ReplyInvalid, status)
	require.Len(t, problems, 1)
	assert.ErrorIs(t, problems[0], ErrInvalidValue)
}
