package mcpform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingCall is a call from another face that counts how often a round
// reads each fact of it.
type countingCall struct {
	*fakeCall
	reads map[string]int
}

func (c *countingCall) read(fact string) { c.reads[fact]++ }

func (c *countingCall) Tool() string { c.read("Tool"); return c.fakeCall.Tool() }
func (c *countingCall) State() string {
	c.read("State")
	return c.fakeCall.State()
}
func (c *countingCall) Arguments() (json.RawMessage, error) {
	c.read("Arguments")
	return c.fakeCall.Arguments()
}
func (c *countingCall) Modes() (bool, bool) { c.read("Modes"); return c.fakeCall.Modes() }
func (c *countingCall) Apps() bool          { c.read("Apps"); return c.fakeCall.Apps() }
func (c *countingCall) ViaView() bool       { c.read("ViaView"); return c.fakeCall.ViaView() }
func (c *countingCall) Legacy() bool        { c.read("Legacy"); return c.fakeCall.Legacy() }
func (c *countingCall) AcceptLanguage() string {
	c.read("AcceptLanguage")
	return c.fakeCall.AcceptLanguage()
}

// TestRoundReadsCallOnce runs first and answering rounds on every path a
// call can take, and a refused one, and wants each fact of the call read
// at most once: the round reads its call in one place, and judges, mints
// and presents from what it read there.
func TestRoundReadsCallOnce(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	native, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true, AskModel: true})
	require.NoError(t, err)
	answer := map[string]any{"email": "ada@example.com", "plan": "team"}
	// stateOf returns the state the first round of flow on c's host
	// carries, asked with no count.
	stateOf := func(t *testing.T, flow *Flow, c fakeCall) string {
		r, err := flow.next(context.Background(), &c)
		require.NoError(t, err)
		if r.face != nil {
			return r.face.state // the native path, on another face
		}
		return carried(t, r)
	}
	withArgs := func(t *testing.T, c fakeCall, state string) fakeCall {
		args := map[string]any{StateArgument: state}
		for k, v := range answer {
			args[k] = v
		}
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		c.args = raw
		return c
	}
	for _, tt := range []struct {
		name string
		flow *Flow
		call func(t *testing.T) fakeCall
		step string // the step the round asks; "" for a refusal
	}{
		{"native, first", native, func(*testing.T) fakeCall { return fakeCall{form: true, url: true} }, "account"},
		{"native, answered", native, func(t *testing.T) fakeCall {
			c := fakeCall{form: true, accept: "fr"}
			c.state = stateOf(t, native, c)
			c.answers = map[string]seam.Answer{"account": {Action: "accept", Content: answer}}
			return c
		}, "team"},
		{"legacy, answered", native, func(t *testing.T) fakeCall {
			c := fakeCall{form: true, legacy: true}
			c.state = stateOf(t, native, c)
			c.answers = map[string]seam.Answer{"account": {Action: "accept", Content: answer}}
			return c
		}, "team"},
		{"view, first", native, func(*testing.T) fakeCall { return fakeCall{apps: true} }, "account"},
		{"view, answered", native, func(t *testing.T) fakeCall {
			c := fakeCall{apps: true, view: true}
			return withArgs(t, c, stateOf(t, native, c))
		}, "team"},
		{"model, first", model, func(*testing.T) fakeCall { return fakeCall{} }, "account"},
		{"model, answered", model, func(t *testing.T) fakeCall {
			c := fakeCall{}
			return withArgs(t, c, stateOf(t, model, c))
		}, "team"},
		{"refused", native, func(*testing.T) fakeCall { return fakeCall{} }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := tt.call(t)
			c := &countingCall{fakeCall: &fc, reads: map[string]int{}}
			r, err := tt.flow.next(context.Background(), c)
			if tt.step == "" {
				require.ErrorIs(t, err, errFakeCapability)
			} else {
				require.NoError(t, err)
				require.Equal(t, FlowAsk, r.Status)
				require.Equal(t, tt.step, r.Step)
			}
			twice := map[string]int{}
			for fact, n := range c.reads {
				if n > 1 {
					twice[fact] = n
				}
			}
			assert.Equal(t, map[string]int{}, twice, "facts read more than once")
		})
	}
}
