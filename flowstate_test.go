package mcpform

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flowStates are states whose encoding the tests compare with
// encoding/json's: every value type answers hold, and strings and numbers
// that encoding/json spells in its own way.
var flowStates = map[string]flowState{
	"zero":    {},
	"start":   {ID: "1LvqL-rz1rJit7imv_7q8g", Step: "account"},
	"spanish": {ID: "x", Step: "team", Pins: pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}}, Lang: "es"},
	"proven": {ID: "x", Step: "team", Attempt: 2, Proven: Answers{
		"email": "ada@example.com", "seats": 5.0, "terms": true, "topics": []any{"billing", "security"},
		"none": nil, "empty": []any{}, "names": []string{"a", "b"},
	}, Pins: pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}, {"b", ""}}},
	"escapes": {ID: "\"\\/\b\f\n\r\t\x00\x1f\x7f", Step: "<script>&amp;</script>", Proven: Answers{
		"\u2028key\u2029": "a\u2028b\u2029c", "é": "ünï ✓ 世界 🎉", "bad": "\xff\xfeok\xc3", "": "",
	}},
	"numbers": {Step: "n", Attempt: -1, Proven: Answers{
		"a": 1e3, "b": math.Copysign(0, -1), "c": 12.5, "d": 1e21, "e": 1e-7, "f": 1e20, "g": 1e-6,
		"h": -123456789.125, "i": math.MaxFloat64, "j": math.SmallestNonzeroFloat64, "k": 0.1, "l": float64(1 << 53),
	}},
	"in-process types": {Proven: Answers{"int": 5, "uint8": uint8(7), "float32": float32(0.1), "map": map[string]int{"x": 1},
		"nil list": []any(nil), "nil strings": []string(nil), "nested": []any{[]any{"x"}, map[string]any{"y": 1.0}}}},
	"empty maps": {ID: "e", Step: "s", Proven: Answers{}, Pins: pinList{}},
}

// jsonOf is encoding/json's encoding of v, the reference.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// sameFlowState reports deep equality, telling -0 from 0, which
// reflect.DeepEqual does not.
func sameFlowState(a, b flowState) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return reflect.DeepEqual(a, b) && string(ja) == string(jb) && (errA == nil) == (errB == nil)
}

// omitEmpty returns st as it reads back from its encoding, which omits
// empty maps.
func omitEmpty(st flowState) flowState {
	if len(st.Proven) == 0 {
		st.Proven = nil
	}
	if len(st.Pins) == 0 {
		st.Pins = nil
	}
	return st
}

// TestFlowStateThroughCodec checks that a flow state minted by the codec
// verifies to an equal state, and that the token equals the one minted from
// encoding/json's bytes of the same state.
func TestFlowStateThroughCodec(t *testing.T) {
	key := []byte(strings.Repeat("f", 32))
	c := newRSCodec(t, key, ptr(""), fixedNow)
	for name, st := range flowStates {
		if name == "in-process types" {
			continue // decodes to other types, by design
		}
		t.Run(name, func(t *testing.T) {
			tok, err := c.Mint(st, "")
			require.NoError(t, err)
			viaJSON, err := c.Mint(json.RawMessage(jsonOf(t, st)), "")
			require.NoError(t, err)
			assert.Equal(t, viaJSON, tok)
			ptrTok, err := c.Mint(&st, "")
			require.NoError(t, err)
			assert.Equal(t, tok, ptrTok, "a pointer mints the same token")

			var got flowState
			require.NoError(t, c.Verify(tok, "", &got))
			var want flowState
			require.NoError(t, json.Unmarshal([]byte(jsonOf(t, st)), &want))
			assert.True(t, sameFlowState(want, got), "got %#v, want %#v", got, want)
		})
	}
	t.Run("nil pointer", func(t *testing.T) {
		tok, err := c.Mint((*flowState)(nil), "")
		require.NoError(t, err)
		var raw json.RawMessage
		require.NoError(t, c.Verify(tok, "", &raw))
		assert.Equal(t, "null", string(raw))
		assert.ErrorContains(t, c.Verify(tok, "", (*flowState)(nil)), "non-nil pointer")
	})
	t.Run("payload that does not decode", func(t *testing.T) {
		tok, err := c.Mint(map[string]any{"n": "two"}, "")
		require.NoError(t, err)
		var got flowState
		err = c.Verify(tok, "", &got)
		assert.ErrorIs(t, err, ErrMalformed)
		var ute *json.UnmarshalTypeError
		assert.ErrorAs(t, err, &ute)
	})
}

// fixedNow is a clock for tests that only need one.
var fixedNow = time.Unix(1_767_225_600, 0)

// FuzzFlowState checks, for any state that decodes, that its encoding
// decodes back to the same state; and that the state, sealed as a flow
// seals it, opens to the same state, is no longer than signed, and does
// not show its encoding.
func FuzzFlowState(f *testing.F) {
	for _, st := range flowStates {
		f.Add([]byte(jsonOf(f, st)))
	}
	for _, s := range []string{`{"a":{"x":[1,"y",null,true]}}`, `{"i":"x","s":"a","l":"ja","l":"es"}`, `{"l":""}`, `{"i":"\ud800"}`, `{"n":-0}`, `[`, `{"a":{"k":"one","k":"two"}}`, "{\"i\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	flow, _ := sealFlow(f, false, sealKeyA)
	signing := flow.codec
	const bind = "3:bob6:signup"
	f.Fuzz(func(t *testing.T, data []byte) {
		var st flowState
		if json.Unmarshal(data, &st) != nil {
			return
		}
		enc, err := json.Marshal(st)
		if err != nil {
			return
		}
		var again flowState
		if err := json.Unmarshal(enc, &again); err != nil || !sameFlowState(again, omitEmpty(st)) {
			t.Fatalf("%s: round trip gives %#v, %v; want %#v", enc, again, err, st)
		}
		checkSealedFlowState(t, flow, signing, st, enc, bind)
	})
}

// sealFlow returns the signup flow of newFlowFixture over a codec of keys
// that does not seal (a flow seals whatever its codec does), readable or
// not, with its clock.
func sealFlow(t testing.TB, readable bool, keys ...[]byte) (*Flow, *flowClock) {
	t.Helper()
	clock := &flowClock{t: sealNow}
	codec, err := NewRequestStateCodec(RequestStateOptions{Keys: keys, Bind: true, Now: clock.now})
	require.NoError(t, err)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, ReadableState: readable})
	require.NoError(t, err)
	return flow, clock
}

var sealAnswers = map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "team"}}

// teamState returns the state a flow mints to ask the team step, after
// the account step proved sealAnswers.
func teamState(t *testing.T, flow *Flow) (state, id string) {
	t.Helper()
	r, err := flow.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	r, err = flow.Next(context.Background(), call("signup", r.Result.RequestState, sealAnswers))
	require.NoError(t, err)
	require.Equal(t, "team", asked(t, r))
	return r.Result.RequestState, r.ID
}

// TestFlowStateSealed: a flow's state is sealed though its codec signs:
// neither the answers nor the run ID show in it, decoded or not, and the
// flow finishes from it with the answers and ID it proved. ReadableState
// mints states the client can read.
func TestFlowStateSealed(t *testing.T) {
	flow, _ := sealFlow(t, false, sealKeyA)
	state, id := teamState(t, flow)
	require.True(t, strings.HasPrefix(state, sealedPrefix), state)
	raw, err := base64.RawURLEncoding.DecodeString(state[len(sealedPrefix):])
	require.NoError(t, err)
	for _, v := range []string{"ada@example.com", "team", "account", id} {
		assert.NotContains(t, state, v)
		assert.NotContains(t, string(raw), v)
	}
	done, err := flow.Next(context.Background(), call("signup", state, map[string]any{"team": map[string]any{"team_name": "Engines", "seats": 5.0}}))
	require.NoError(t, err)
	require.Equal(t, FlowDone, done.Status)
	assert.Equal(t, id, done.ID, "the run ID is kept in the sealed state")
	assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team", "team_name": "Engines", "seats": 5.0}, done.Answers)

	t.Run("ReadableState", func(t *testing.T) {
		flow, _ := sealFlow(t, true, sealKeyA)
		state, _ := teamState(t, flow)
		require.True(t, strings.HasPrefix(state, requestStatePrefix), state)
		body, err := base64.RawURLEncoding.DecodeString(strings.Split(state, ".")[1])
		require.NoError(t, err)
		assert.Contains(t, string(body), "ada@example.com")
	})
}

// TestFlowStateSealedRefusals: every state a sealed flow must refuse gets
// the -32602 error of RejectState: moved to another principal, tool
// or set of arguments; expired; tampered; sealed under other keys; signed
// where sealed is expected, and the reverse.
func TestFlowStateSealedRefusals(t *testing.T) {
	flow, clock := sealFlow(t, false, sealKeyA)
	readable, _ := sealFlow(t, true, sealKeyA)
	otherKeys, _ := sealFlow(t, false, sealKeyB)
	state, _ := teamState(t, flow)
	signed, _ := teamState(t, readable)
	team := map[string]any{"team": map[string]any{"team_name": "Engines", "seats": 5.0}}
	withArgs := call("signup", state, team)
	withArgs.Params.Arguments = json.RawMessage(`{"coupon":"SPRING"}`) // not a field: fields ride in the arguments on the view and model paths
	flipped := []byte(state)
	flipped[len(flipped)/2] ^= 1

	for _, tc := range []struct {
		name string
		flow *Flow
		req  *mcp.CallToolRequest
		at   time.Time
	}{
		{"another principal", flow, callAs("mallory", "signup", state, team), sealNow},
		{"another tool", flow, call("delete_account", state, team), sealNow},
		{"other arguments", flow, withArgs, sealNow},
		{"expired", flow, call("signup", state, team), sealNow.Add(10*time.Minute + RequestStateLeeway + time.Second)},
		{"tampered", flow, call("signup", string(flipped), team), sealNow},
		{"sealed under other keys", otherKeys, call("signup", state, team), sealNow},
		{"signed where sealed is expected", flow, call("signup", signed, team), sealNow},
		{"sealed where signed is expected", readable, call("signup", state, team), sealNow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock.t = tc.at
			defer func() { clock.t = sealNow }()
			r, err := tc.flow.Next(context.Background(), tc.req)
			assert.Nil(t, r)
			assert.Equal(t, RejectState(ErrMAC), err)
		})
	}
	r, err := flow.Next(context.Background(), call("signup", state, team))
	require.NoError(t, err, "the control")
	assert.Equal(t, FlowDone, r.Status)
}

// TestFlowStateSealedRotation: a flow whose codec has a new first key
// finishes the runs sealed under the old one; once the old key is dropped,
// they get -32602.
func TestFlowStateSealedRotation(t *testing.T) {
	before, _ := sealFlow(t, false, sealKeyA)
	during, _ := sealFlow(t, false, sealKeyB, sealKeyA)
	after, _ := sealFlow(t, false, sealKeyB)
	team := map[string]any{"team": map[string]any{"team_name": "Engines", "seats": 5.0}}
	old, _ := teamState(t, before)
	r, err := during.Next(context.Background(), call("signup", old, team))
	require.NoError(t, err)
	assert.Equal(t, FlowDone, r.Status)
	_, err = after.Next(context.Background(), call("signup", old, team))
	assert.Equal(t, RejectState(ErrMAC), err)

	fresh, _ := teamState(t, during)
	r, err = after.Next(context.Background(), call("signup", fresh, team))
	require.NoError(t, err)
	assert.Equal(t, FlowDone, r.Status, "the new key seals")
}

// checkSealedFlowState is FuzzFlowState's check of st sealed by flow.
func checkSealedFlowState(t *testing.T, flow *Flow, signing *RequestStateCodec, st flowState, enc []byte, bind string) {
	sealed, err := flow.mintState(&st, bind)
	if err != nil {
		t.Fatalf("%s: sealing: %v", enc, err)
	}
	signed, err := signing.Mint(&st, bind)
	if err != nil {
		t.Fatalf("%s: signing: %v", enc, err)
	}
	if len(sealed) > len(signed) {
		t.Fatalf("%s: sealed %d bytes, signed %d", enc, len(sealed), len(signed))
	}
	if b64 := base64.RawURLEncoding.EncodeToString(enc); len(enc) >= 12 && strings.Contains(sealed, b64[4:len(b64)-4]) {
		t.Fatalf("%s: the sealed state shows its encoding", enc)
	}
	var got flowState
	if err := flow.verifyState(sealed, bind, &got); err != nil {
		t.Fatalf("%s: opening: %v", enc, err)
	}
	var want flowState
	if err := json.Unmarshal(enc, &want); err != nil || !sameFlowState(got, want) {
		t.Fatalf("%s: sealed round trip gives %#v, want %#v", enc, got, want)
	}
}
