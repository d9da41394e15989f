package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// and presents from what it read there. It runs through the seam, as
// another SDK's face does, so that presenting is counted too.
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
			r, _, err := tt.flow.Seam().Next(context.Background(), c)
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

// appsMeta is the per-request _meta of a 2026-07-28 host that renders MCP
// Apps and answers no form; bareMeta that of one that declared nothing.
func appsMeta() mcp.Meta {
	return mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{
		AppsExtension: map[string]any{"mimeTypes": []any{AppMIMEType}}}}}
}

func bareMeta() mcp.Meta { return mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}} }

// argsCall is a call whose arguments are args, from principal's host
// declaring meta.
func argsCall(t testing.TB, meta mcp.Meta, principal, tool string, args map[string]any) *mcp.CallToolRequest {
	req := directCall(t, meta, principal, tool, args)
	if form, _ := elicitationModes(req); !form && appsDeclared(req) {
		req.Params.Meta = maps.Clone(meta)
		req.Params.Meta[companionMetaKey] = theViewMark // a view's submit, through the companion
	}
	return req
}

// directCall is argsCall as the model sends it: a call of the tool
// itself, never through the view's companion.
func directCall(t testing.TB, meta mcp.Meta, principal, tool string, args map[string]any) *mcp.CallToolRequest {
	req := callAs(principal, tool, "", nil)
	req.Params.Meta = meta
	if args != nil {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		req.Params.Arguments = raw
	}
	return req
}

// carried returns the state an asking round carries, in whichever place
// its path puts it.
func carried(t testing.TB, r *FlowRound) string {
	t.Helper()
	require.Equal(t, FlowAsk, r.Status)
	if r.Result.RequestState != "" {
		return r.Result.RequestState
	}
	var c struct {
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &c))
	s, _ := c.Arguments[StateArgument].(string)
	require.NotEmpty(t, s, "no state in the arguments")
	return s
}

// A pathCall is one round of the account step, to be sent on any path.
type pathCall struct {
	principal, tool, state string
	extra, answers         map[string]any // the tool's own arguments; the account answers
}

// roundOutcome is what a round came to, in terms every path shares.
type roundOutcome struct {
	Code     int64 // of a JSON-RPC error
	Status   FlowStatus
	Step     string
	Problems []string
	id       string // the run's, compared only between replays
}

func outcomeOf(r *FlowRound, err error) roundOutcome {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return roundOutcome{Code: rpcErr.Code}
	}
	if err != nil {
		return roundOutcome{Code: -1}
	}
	o := roundOutcome{Status: r.Status, Step: r.Step, id: r.ID}
	for _, p := range r.Problems {
		o.Problems = append(o.Problems, p.Field)
	}
	return o
}

// TestFlowArgumentsHostile sends the same hostile second round natively,
// through an Apps view's arguments and through the model's, and wants the
// same outcome on each: a forged, misbound or replayed state, answers
// outside the schema, extra arguments. None finishes the flow.
func TestFlowArgumentsHostile(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	good := map[string]any{"email": "ada@example.com", "plan": "pro"}
	paths := []struct {
		name string
		flow *Flow
		meta mcp.Meta
	}{{"native", flow, formCaps()}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}}
	send := func(t *testing.T, path int, c pathCall) roundOutcome {
		p := paths[path]
		if p.name == "native" {
			req := callAs(c.principal, c.tool, c.state, map[string]any{"account": c.answers})
			if c.extra != nil {
				raw, _ := json.Marshal(c.extra)
				req.Params.Arguments = raw
			}
			return outcomeOf(p.flow.Next(context.Background(), req))
		}
		args := map[string]any{StateArgument: c.state}
		for k, v := range c.extra {
			args[k] = v
		}
		for k, v := range c.answers {
			args[k] = v
		}
		return outcomeOf(p.flow.Next(context.Background(), argsCall(t, p.meta, c.principal, c.tool, args)))
	}
	forge := func(s string) string {
		return s[:len(s)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(s, "AA")]
	}
	badState := roundOutcome{Code: -32602}
	for _, tt := range []struct {
		name   string
		call   func(state string) pathCall
		want   roundOutcome
		finish bool // and a replay of the call finishes with the same ID
	}{
		{"a good answer", func(s string) pathCall { return pathCall{"alice", "signup", s, nil, good} },
			roundOutcome{Status: FlowDone}, true},
		{"a forged state", func(s string) pathCall { return pathCall{"alice", "signup", forge(s), nil, good} }, badState, false},
		{"a state that is no token", func(s string) pathCall { return pathCall{"alice", "signup", "v1.e30.AAAA", nil, good} }, badState, false},
		{"another person's state", func(s string) pathCall { return pathCall{"mallory", "signup", s, nil, good} }, badState, false},
		{"another tool's state", func(s string) pathCall { return pathCall{"alice", "delete_account", s, nil, good} }, badState, false},
		{"an extra argument", func(s string) pathCall {
			return pathCall{"alice", "signup", s, map[string]any{"admin": true}, good}
		}, badState, false},
		{"an answer outside the schema", func(s string) pathCall {
			return pathCall{"alice", "signup", s, nil, map[string]any{"email": "ada@example.com", "plan": "gold"}}
		}, roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{"plan"}}, false},
		{"a missing required answer", func(s string) pathCall {
			return pathCall{"alice", "signup", s, nil, map[string]any{"plan": "pro"}}
		}, roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{"email"}}, false},
		{"a wrong type", func(s string) pathCall {
			return pathCall{"alice", "signup", s, nil, map[string]any{"email": 42.0, "plan": "pro"}}
		}, roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{"email"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i, p := range paths {
				r, err := p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", nil))
				require.NoError(t, err, p.name)
				c := tt.call(carried(t, r))
				got := send(t, i, c)
				if got.Code == 0 {
					assert.Equal(t, r.ID, got.id, "%s: the run's ID", p.name)
				}
				got.id = ""
				assert.Equal(t, tt.want, got, p.name)
				if tt.finish {
					again := send(t, i, c)
					assert.Equal(t, r.ID, again.id, "%s: a replay has the run's ID", p.name)
				}
			}
		})
	}
}

// FuzzFlowArguments sends arbitrary arguments as the second round of a
// flow asked in an Apps view (apps) or through the model, "STATE" in them
// standing for the state the first round gave. It checks that a round
// never panics, that the arguments decode as encoding/json decodes them,
// numbers as written, and are bound to the same digest, and that nothing outside the schema
// is ever proven.
func FuzzFlowArguments(f *testing.F) {
	for _, s := range []string{
		`{"mcpform":"STATE","email":"ada@example.com","plan":"team"}`,
		`{"mcpform":"STATE","email":"ada@example.com","plan":"pro","extra":{"nested":[1,{"a":null}]}}`,
		`{"mcpform":"STATE","email":"not an email","plan":"gold"}`,
		`{"mcpform":"STATE","email":["ada@example.com"],"plan":1e999}`,
		`{"mcpform":"STATE","mcpform":"other","email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":42,"email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"STATE","team_name":"x","teamName":"y","seats":"12"}`,
		`{"mcpform":"STATE","mcpformAction":"decline","email":"ada@example.com","plan":"pro"}`,
		`{"mcpform":"STATE","mcpformAction":"accept","email":"ada@example.com","plan":"pro"}`,
		`{"mcpformAction":"decline"}`,
		`{"mcpform":"STATE","email":"ada@example.com\u0000","plan":"pro"} `,
		`["mcpform","STATE"]`, `null`, `{`, `{"mcpform":"STATE","email":"\ud800","plan":"pro"}`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	flow, codec, _ := newFlowFixture(f)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(f, err)
	first := map[bool]string{}
	for apps, fl := range map[bool]*Flow{true: flow, false: model} {
		r, err := fl.Next(context.Background(), argsCall(f, map[bool]mcp.Meta{true: appsMeta(), false: bareMeta()}[apps], "alice", "signup", nil))
		require.NoError(f, err)
		first[apps] = carried(f, r)
	}
	f.Fuzz(func(t *testing.T, data []byte, apps bool) {
		fl, meta := model, bareMeta()
		if apps {
			fl, meta = flow, appsMeta()
		}
		raw := bytes.ReplaceAll(data, []byte("STATE"), []byte(first[apps]))

		// The reference: encoding/json with numbers as written, and the
		// digest of what is left.
		got, err := callArguments(raw, fl.own)
		if len(bytes.TrimSpace(raw)) > 0 && (err == nil) != json.Valid(raw) {
			t.Fatalf("callArguments error %v, json.Valid %v", err, json.Valid(raw))
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var ref any
		if err == nil && dec.Decode(&ref) == nil {
			if m, ok := ref.(map[string]any); ok {
				for k := range m {
					if fl.own[k] {
						delete(m, k)
					}
				}
				b, _ := json.Marshal(m)
				want, _ := argumentsDigest(b)
				if got.digest != want {
					t.Fatalf("digest %s of %s, want %s", got.digest, raw, want)
				}
			}
		}

		req := argsCall(t, meta, "alice", "signup", nil)
		req.Params.Arguments = raw
		r, err := fl.Next(context.Background(), req)
		if err != nil {
			return
		}
		if _, ok := r.Answers["email"]; ok || r.Status == FlowDone {
			if _, ok := AcceptedFormInput(mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "accept", Content: r.Answers}}, "account", accountStep.Fields); !ok {
				t.Fatalf("%s proved %v, which the account step refuses", raw, r.Answers)
			}
		}
	})
}

// TestMintedTokenIsJSONText shows what sendBack relies on to write a token
// without escaping it: every token a codec mints, signed or sealed, bound
// or not, whatever its payload, is base64url text and dots.
func TestMintedTokenIsJSONText(t *testing.T) {
	payloads := []any{nil, "", `"\<>&` + "\u2028\x00", map[string]any{"a": []any{1.5, true, "é"}}}
	for _, seal := range []bool{false, true} {
		for _, bind := range []bool{false, true} {
			codec, err := NewRequestStateCodec(RequestStateOptions{
				Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Seal: seal, Bind: bind})
			require.NoError(t, err)
			for _, p := range payloads {
				b := ""
				if bind {
					b = `tool"\` + "\n"
				}
				tok, err := codec.Mint(p, b)
				require.NoError(t, err)
				for i := 0; i < len(tok); i++ {
					c := tok[i]
					if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
						t.Fatalf("seal=%v bind=%v: token %q has %q at %d", seal, bind, tok, c, i)
					}
				}
				r := &round{args: callArgs{rest: []byte(`"x":1`)}}
				var back map[string]any
				require.NoError(t, json.Unmarshal(r.sendBack(tok), &back))
				assert.Equal(t, map[string]any{"x": 1.0, StateArgument: tok}, back)
			}
		}
	}
}
