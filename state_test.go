package mcpform

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"maps"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	require.True(t, strings.HasPrefix(state, token.SealedPrefix), state)
	raw, err := base64.RawURLEncoding.DecodeString(state[len(token.SealedPrefix):])
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
		require.True(t, strings.HasPrefix(state, token.Prefix), state)
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
	err = json.Unmarshal(enc, &want)
	want.Version = stateVersion // as minted, whatever st said
	if err != nil || !sameFlowState(got, want) {
		t.Fatalf("%s: sealed round trip gives %#v, want %#v", enc, got, want)
	}
}

// flowStateGoldenFile holds flow states minted by main at 7850258, the
// last commit with flowstate.go's hand-written codec, so that runs in
// flight when that code was deployed over survive the switch to
// encoding/json. See testdata/flowstate/README.md.
const flowStateGoldenFile = "testdata/flowstate/golden.json"

type flowStateGolden struct {
	Comment string `json:"comment"`
	KeyHex  string `json:"keyHex"`
	Now     int64  `json:"nowUnix"`
	TTL     int64  `json:"ttlSeconds"`
	Tokens  []struct {
		Name   string `json:"name"`
		Sealed bool   `json:"sealed"`
		Bind   string `json:"bind"`
		Token  string `json:"token"`
	} `json:"tokens"`
}

// flowStateGoldens are the states the golden tokens carry, by name, and
// the path each was minted for.
var flowStateGoldens = map[string]struct {
	path Path
	st   flowState
}{
	"native-start": {PathNative, flowState{ID: "1LvqL-rz1rJit7imv_7q8g", Step: "account"}},
	"native-proven": {PathNative, flowState{ID: "1LvqL-rz1rJit7imv_7q8g", Step: "team", Asked: "T1ZbcVq0eP2wP8z7mF6d9A", Attempt: 2,
		Proven: Answers{"email": "ada@example.com", "seats": 5.0, "terms": true, "topics": []any{"billing", "security"}, "note": nil},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}, {"plan", "zX9-yW8_vU7tS6rQ5pO4nM"}}}},
	"view-spanish": {PathView, flowState{ID: "Zm9vYmFyYmF6cXV4cXV1eA", Step: "team", Asked: "a", Attempt: 1,
		Proven: Answers{"name": "José <Ñ> & \u2028 \"q\"", "ratio": 0.125, "big": 1e21},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}}, Lang: "es"}},
	"model-finish": {PathModel, flowState{ID: "bW9kZWwtcnVuLWlkLTEyMw", Step: "confirm",
		Proven: Answers{"email": "grace@example.com", "seats": 12.0, "roles": []any{"admin", "billing", "dev"}, "ok": false},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}, {"team", "Rk9PQkFSQkFaUVVYUVVVWA"}, {"confirm", "cGlubmVkLXN0ZXAtZGlnZXN0"}}}},
}

func flowStateGoldenBind(name string, path Path) string {
	return BindTo("user-"+name, "signup", "digest-of-"+name, path.tag())
}

// TestFlowStateGolden verifies the flow states minted by the code before
// encoding/json took over their encoding (signed and sealed, on the
// native, view and model paths) and decodes them to the states they
// carried.
func TestFlowStateGolden(t *testing.T) {
	b, err := os.ReadFile(flowStateGoldenFile)
	require.NoError(t, err)
	var g flowStateGolden
	require.NoError(t, json.Unmarshal(b, &g))
	require.Len(t, g.Tokens, 2*len(flowStateGoldens), "a golden token per state, signed and sealed")
	key, err := hex.DecodeString(g.KeyHex)
	require.NoError(t, err)
	c, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, TTL: time.Duration(g.TTL) * time.Second,
		Bind: true, Now: fixedClock(time.Unix(g.Now, 0))})
	require.NoError(t, err)
	for _, tok := range g.Tokens {
		want, ok := flowStateGoldens[tok.Name]
		require.True(t, ok, tok.Name)
		require.Equal(t, flowStateGoldenBind(tok.Name, want.path), tok.Bind, tok.Name)
		var got flowState
		require.NoError(t, c.verify(tok.Token, tok.Bind, &got, tok.Sealed), tok.Name)
		require.Equal(t, want.st, got, tok.Name)
		if !tok.Sealed { // the payload as minted is the payload encoding/json mints now
			body, err := base64.RawURLEncoding.DecodeString(strings.Split(tok.Token, ".")[1])
			require.NoError(t, err)
			var env struct{ P json.RawMessage }
			require.NoError(t, json.Unmarshal(body, &env))
			now, err := json.Marshal(&want.st)
			require.NoError(t, err)
			require.Equal(t, string(env.P), string(now), tok.Name)
		}
	}
}

// TestArgumentsDigestAsCallRead: the digest callArguments binds a state
// to, for a flow with no argument of its own, is canonjson's.
func TestArgumentsDigestAsCallRead(t *testing.T) {
	for _, raw := range []string{``, ` { } `, `null`, `{"a":1.0,"b":"x"}`, `{"repo":9007199254740993}`,
		`[1,2.50]`, `"s"`, `{"n":{"y":[1e400,"\u00e9"]}}`} {
		a, err := callArguments(json.RawMessage(raw), nil)
		require.NoError(t, err, raw)
		d, err := canonjson.ArgumentsDigest(json.RawMessage(raw))
		require.NoError(t, err, raw)
		assert.Equal(t, d, a.digest, raw)
	}
}

// rawArgs returns call(…) with the raw JSON arguments raw, from a host
// declaring meta (nil keeps the form-capable client of call).
func rawArgs(meta mcp.Meta, state, raw string, answers map[string]any) *mcp.CallToolRequest {
	req := call("signup", state, answers)
	if meta != nil {
		req.Params.Meta = meta
	}
	req.Params.Arguments = json.RawMessage(raw)
	return req
}

// submitted is req as it reaches the tool when it answers on a path that
// carries the state in the arguments: a view's submit comes through the
// companion; the model calls the tool itself.
func submitted(req *mcp.CallToolRequest) *mcp.CallToolRequest {
	if form, _ := elicitationModes(req); !form && appsDeclared(req) {
		req.Params.Meta = maps.Clone(req.Params.Meta)
		req.Params.Meta[companionMetaKey] = &viewMark{}
	}
	return req
}

// TestBindingExactNumbers (issue 22, finding 4): a state minted for the
// argument repo 9007199254740993 does not finish a call for …992, which
// float64 cannot tell apart, on the native path and on both paths that
// answer through the arguments; the same number, written otherwise, does.
func TestBindingExactNumbers(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	const asked = `{"repo":9007199254740993,"n":1.5}`
	answer := map[string]any{"email": "ada@example.com", "plan": "pro"}
	for _, tt := range []struct {
		name string
		flow *Flow
		meta mcp.Meta
	}{{"native", flow, nil}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.flow.Next(context.Background(), rawArgs(tt.meta, "", asked, nil))
			require.NoError(t, err)
			state := carried(t, r)
			second := func(args string) (*FlowRound, error) {
				if tt.meta == nil {
					return tt.flow.Next(context.Background(), rawArgs(nil, state, args, map[string]any{"account": answer}))
				}
				b, err := json.Marshal(answer)
				require.NoError(t, err)
				return tt.flow.Next(context.Background(), submitted(rawArgs(tt.meta, "", `{"mcpform":"`+state+`",`+args[1:len(args)-1]+`,`+string(b[1:]), nil)))
			}
			for args, ok := range map[string]bool{
				`{"repo":9007199254740992,"n":1.5}`:           false,
				`{"repo":9007199254740994,"n":1.5}`:           false,
				`{"repo":9007199254740993,"n":1.50000000001}`: false,
				`{"n":15e-1, "repo":9007199254740993.0}`:      true,
			} {
				r, err := second(args)
				if !ok {
					require.Error(t, err, args)
					assert.Contains(t, err.Error(), "Invalid or expired requestState", args)
					continue
				}
				require.NoError(t, err, args)
				assert.Equal(t, FlowDone, r.Status, args)
			}
		})
	}
}

// TestBindingFoldedKeys: encoding/json decodes two keys that differ only
// in case into one struct field, the later winning, and the digest cannot
// see their order; so arguments holding such keys, at any depth, are
// refused on every path, and a swap can never finish a call. The refusal
// is -32602, as for all arguments that cannot be bound (issue 32).
func TestBindingFoldedKeys(t *testing.T) {
	for _, args := range []string{
		`{"REPO":"victim","repo":"scratch"}`,
		`{"opts":{"Force":true,"force":false}}`,
		`{"list":[{"name":"a","NAME":"b"}]}`,
		"{\"Kelvin\":1,\"\u212aelvin\":2}", // KELVIN SIGN folds to k
		"{\"ſize\":1,\"size\":2}",          // LATIN SMALL LETTER LONG S folds to s
	} {
		t.Run(args, func(t *testing.T) {
			_, err := canonjson.ArgumentsDigest(json.RawMessage(args))
			assert.ErrorIs(t, err, canonjson.ErrFoldedKeys)
			flow, _, _ := newFlowFixture(t)
			_, err = flow.Next(context.Background(), rawArgs(nil, "", args, nil))
			assertInvalidParams(t, err, canonjson.ErrFoldedKeys)
		})
	}
	for _, args := range []string{`{"repo":"a","Repo2":"b"}`, `{"a":{"x":1},"b":{"X":1}}`, `{"é":1,"e":2}`} {
		_, err := canonjson.ArgumentsDigest(json.RawMessage(args))
		assert.NoError(t, err, args)
	}
}

// TestNumberOutOfRange (issue 22, finding 4): 1e400 in an answer is a
// problem named by its field on every path that reads the arguments,
// never a failed call nor no answer.
func TestNumberOutOfRange(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	team := Step{Key: "team", Fields: teamStep.Fields}
	for _, tt := range []struct {
		name string
		meta mcp.Meta
	}{{"apps", appsMeta()}, {"model", bareMeta()}} {
		t.Run("Flow.Next/"+tt.name, func(t *testing.T) {
			flow, err := NewFlow(codec, []Step{team}, &FlowOptions{Principal: tokenUser, AskModel: true})
			require.NoError(t, err)
			r, err := flow.Next(context.Background(), rawArgs(tt.meta, "", `{}`, nil))
			require.NoError(t, err)
			r, err = flow.Next(context.Background(), submitted(rawArgs(tt.meta, "", `{"mcpform":"`+carried(t, r)+`","team_name":"crew","seats":1e400}`, nil)))
			require.NoError(t, err)
			require.Equal(t, FlowAsk, r.Status)
			require.Len(t, r.Problems, 1)
			assert.Equal(t, "seats", r.Problems[0].Field)
			assert.ErrorIs(t, r.Problems[0], ErrInvalidValue)
		})
	}
	form, err := NewForm[struct {
		Seats int64 `json:"seats"`
	}]([]AutoFormField{{Name: "seats", Type: TypeInteger}}, &FormOptions{AskModel: true, Codec: codec, Principal: tokenUser})
	require.NoError(t, err)
	// The model answers with the state the form minted when it asked.
	asked, err := form.Ask(rawArgs(bareMeta(), "", `{}`, nil), "")
	require.NoError(t, err)
	minted := stateOf(t, asked)
	for name, read := range map[string]func(args string) Reply[struct {
		Seats int64 `json:"seats"`
	}]{
		"ReadCall": func(args string) Reply[struct {
			Seats int64 `json:"seats"`
		}] {
			return form.ReadCall(rawArgs(bareMeta(), "", strings.Replace(args, `"mcpform":""`, `"mcpform":"`+minted+`"`, 1), nil))
		},
		"ReadArguments": func(args string) Reply[struct {
			Seats int64 `json:"seats"`
		}] {
			return form.ReadArguments(json.RawMessage(strings.Replace(args, `"mcpform":"",`, "", 1)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, n := range []string{"1e400", "-1e400"} {
				r := read(`{"mcpform":"","seats":` + n + `}`)
				require.Equal(t, ReplyInvalid, r.Status, n)
				require.Len(t, r.Problems, 1, n)
				assert.Equal(t, "seats", r.Problems[0].Field, n)
			}
			// Issue 32, finding 12: an int64 is exact beyond 2^53, to its
			// own limits, where 9007199254740993 was refused.
			for n, want := range map[string]int64{"9007199254740991": 9007199254740991, "9007199254740993": 9007199254740993,
				"9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64} {
				r := read(`{"mcpform":"","seats":` + n + `}`)
				require.Equal(t, ReplyAccepted, r.Status, n)
				assert.Equal(t, want, r.Value.Seats, n)
			}
		})
	}
}

// BenchmarkCallArguments reads the arguments of an answer through the
// model: the state, two answers and one tool argument.
func BenchmarkCallArguments(b *testing.B) {
	raw := json.RawMessage(`{"mcpform":"` + strings.Repeat("A", 300) + `","email":"ada@example.com","plan":"team","repo":9007199254740993}`)
	own := map[string]bool{StateArgument: true, "email": true, "plan": true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := callArguments(raw, own); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallArgumentsNoNumbers is BenchmarkCallArguments for the
// arguments of the signup flow's answer: strings only.
func BenchmarkCallArgumentsNoNumbers(b *testing.B) {
	raw := json.RawMessage(`{"mcpform":"` + strings.Repeat("A", 300) + `","email":"ada@example.com","plan":"team"}`)
	own := map[string]bool{StateArgument: true, "email": true, "plan": true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := callArguments(raw, own); err != nil {
			b.Fatal(err)
		}
	}
}

// assertInvalidParams asserts that err is the -32602 go-sdk sends for
// arguments that cannot be bound, saying cause.
func assertInvalidParams(t *testing.T, err, cause error) {
	t.Helper()
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
	assert.Contains(t, rpc.Message, cause.Error())
}

// TestBindingTwoThings (issue 32, item 7): arguments that a first-wins
// reader reads differently from encoding/json, or whose text is not
// Unicode, are never bound: a call with them is refused with -32602
// before any state is minted, and a state bound to what one reader reads
// never verifies on them, on the native path and on both paths that
// carry the state in the arguments.
func TestBindingTwoThings(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	answer := map[string]any{"email": "ada@example.com", "plan": "pro"}
	for _, tt := range []struct {
		bound string
		sent  []string
		cause error
	}{
		{`{"amount":10}`, []string{`{"amount":1000000,"amount":10}`, `{"amount":10,"amount":10}`, `{"amount":10,"\u0061mount":10}`}, canonjson.ErrDuplicateKey},
		{`{"amount":10,"to":{"iban":"A"}}`, []string{`{"amount":10,"to":{"iban":"B","iban":"A"}}`}, canonjson.ErrDuplicateKey},
		{`{"s":"\ufffd"}`, []string{`{"s":"\ud800"}`, `{"s":"\udbff"}`, `{"s":"\udc00"}`}, canonjson.ErrLoneSurrogate},
		{`{"s":"\ufffd"}`, []string{"{\"s\":\"\xff\"}", "{\"s\":\"\xed\xa0\x80\"}"}, canonjson.ErrInvalidUTF8},
	} {
		for _, path := range []struct {
			name string
			flow *Flow
			meta mcp.Meta
		}{{"native", flow, nil}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}} {
			t.Run(path.name+"/"+tt.bound, func(t *testing.T) {
				r, err := path.flow.Next(context.Background(), rawArgs(path.meta, "", tt.bound, nil))
				require.NoError(t, err)
				state := carried(t, r)
				for _, sent := range tt.sent {
					_, err := path.flow.Next(context.Background(), rawArgs(path.meta, "", sent, nil))
					assertInvalidParams(t, err, tt.cause)
					if path.meta == nil {
						_, err = path.flow.Next(context.Background(), rawArgs(nil, state, sent, map[string]any{"account": answer}))
					} else {
						b, _ := json.Marshal(answer)
						_, err = path.flow.Next(context.Background(), submitted(rawArgs(path.meta, "", `{"mcpform":"`+state+`",`+sent[1:len(sent)-1]+`,`+string(b[1:]), nil)))
					}
					assertInvalidParams(t, err, tt.cause)
				}
			})
		}
	}
	// The state's own argument, given twice, is not one state either.
	r, err := model.Next(context.Background(), rawArgs(bareMeta(), "", `{}`, nil))
	require.NoError(t, err)
	state := carried(t, r)
	_, err = model.Next(context.Background(), rawArgs(bareMeta(), "", `{"mcpform":"x","mcpform":"`+state+`","email":"ada@example.com","plan":"pro"}`, nil))
	assertInvalidParams(t, err, canonjson.ErrDuplicateKey)
}

// FuzzBindingDefects: arguments with a key given twice, invalid UTF-8 or
// a lone surrogate escape anywhere but in an answer are never bound: they
// have no digest, a first call with them is refused, and a state minted
// for the arguments encoding/json reads in them never verifies on them.
func FuzzBindingDefects(f *testing.F) {
	for _, s := range []string{
		`{"amount":1000000,"amount":10}`, `{"amount":10,"note":"\ud800"}`, "{\"amount\":10,\"note\":\"\xff\"}",
		`{"a":{"b":1,"b":2}}`, `["\udc00"]`, `"\ud800"`, "{\"email\":\"\xff\",\"amount\":10}", `{"mcpform":"x","mcpform":"y"}`,
		`{"\u0061":1,"a":2}`, `{"k\udbff":1}`, `{"amount":10}`, `{"list":[{"x":"\ud83d\ude00"},{"x":"\ude00"}]}`,
	} {
		f.Add([]byte(s))
	}
	flow, _, _ := newFlowFixture(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || canonjson.Check(raw) == nil {
			return
		}
		d, err := canonjson.ArgumentsDigest(raw)
		require.Error(t, err, "%q", raw)
		require.Empty(t, d)
		if _, err := callArguments(raw, nil); err == nil {
			t.Fatalf("%q bound", raw)
		}
		bound := false // a member that is not an answer says two things
		bad := canonjson.Members(raw)
		for _, e := range bad {
			bound = bound || !flow.own[e.Key] || e.Key == StateArgument || e.Key == prefab.ActionArgument || e.Key == prefab.ToolArgument
		}
		if !bound {
			return // only answers say two things: they are asked again
		}
		if _, err := flow.Next(context.Background(), rawArgs(nil, "", string(raw), nil)); err == nil {
			t.Fatalf("a first call with %q was bound", raw)
		}
		// What encoding/json reads, written again, is one thing.
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&v))
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k := range m {
			if flow.own[k] {
				delete(m, k)
			}
		}
		read, err := json.Marshal(m)
		require.NoError(t, err)
		r, err := flow.Next(context.Background(), rawArgs(nil, "", string(read), nil))
		if err != nil {
			return // refused for another reason, such as keys folded
		}
		if _, err := flow.Next(context.Background(), rawArgs(nil, carried(t, r), string(raw), nil)); err == nil {
			t.Fatalf("a state bound to %s verified on %q", read, raw)
		}
	})
}

// TestFlowStateVersion: a state carries its version (stateVersion, under
// "f"), and verifies when it is of this version or the one before,
// unmarked; a state of a later version, as a later release would mint, is
// refused as malformed rather than read as this release reads its own.
func TestFlowStateVersion(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	bind := flowStateGoldenBind("version", PathNative)
	tok, err := flow.mintState(&flowState{ID: "bW9kZWwtcnVuLWlkLTEyMw", Step: "account"}, bind)
	require.NoError(t, err)
	var payload map[string]any
	require.NoError(t, codec.verify(tok, bind, &payload, true))
	assert.Equal(t, map[string]any{"i": "bW9kZWwtcnVuLWlkLTEyMw", "s": "account", "f": 1.0}, payload, "the minted payload")

	for _, tt := range []struct {
		name    string
		version any // nil: unmarked
		err     error
	}{
		{"unmarked, as before versions", nil, nil},
		{"this version", 1, nil},
		{"a later version", 2, ErrMalformed},
		{"a version below any", -1, ErrMalformed},
		{"not a number", "1", ErrMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := map[string]any{"i": "bW9kZWwtcnVuLWlkLTEyMw", "s": "team", "a": map[string]any{"email": "ada@example.com"}}
			if tt.version != nil {
				p["f"] = tt.version
			}
			tok, err := codec.mint(p, bind, true)
			require.NoError(t, err)
			var st flowState
			err = flow.verifyState(tok, bind, &st)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "team", st.Step)
			assert.Equal(t, Answers{"email": "ada@example.com"}, st.Proven)
		})
	}
}
