package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
			assert.Contains(t, msg, "\n\n"+upperFirst(ErrChanged.Error())+".")
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
	digest, err := canonjson.ArgumentsDigest(nil)
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
	assert.Equal(t, DefaultInputMessage+"\n\nCheck Room: booked at that time.", p.Message)
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
	assert.Contains(t, r.Result.InputRequests["team"].(*mcp.ElicitParams).Message, "\n\nThe answer's action is none of accept, decline and cancel.")
}

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
		req.Params.Meta[companionMetaKey] = &viewMark{} // a view's submit, through the companion
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
// numbers as written, and are bound to the same digest, that JSON that
// says two things is bound never, and that nothing outside the schema is
// ever proven.
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
		`["mcpform","STATE"]`, `null`, `{`, `{"mcpform":"STATE","email":"ada@example.com","plan":"pro","x":{"k":1,"K":2}}`, `{"mcpform":"STATE","email":"\ud800","plan":"pro"}`,
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
		// Valid JSON is refused only for keys that differ only in case,
		// which a digest taken without key order could not tell apart,
		// and for a key given twice, invalid UTF-8 or a lone surrogate
		// escape anywhere but in an answer, which readers read
		// differently (issue 32, item 7).
		if errors.Is(err, canonjson.ErrFoldedKeys) && json.Valid(raw) {
			return
		}
		if defect := canonjson.Check(raw); defect != nil && json.Valid(raw) {
			if err == nil {
				// Only an answer may say two things: it is asked again.
				for _, e := range canonjson.Members(raw) {
					if !fl.own[e.Key] || e.Key == StateArgument || e.Key == prefab.ActionArgument || e.Key == prefab.ToolArgument {
						t.Fatalf("%q bound although %q says two things: %v", raw, e.Key, e)
					}
				}
			} else if !errors.Is(err, canonjson.ErrDuplicateKey) && !errors.Is(err, canonjson.ErrInvalidUTF8) && !errors.Is(err, canonjson.ErrLoneSurrogate) {
				t.Fatalf("%q refused for %v, not for what it says twice (%v)", raw, err, defect)
			}
		}
		if err != nil && json.Valid(raw) && canonjson.Check(raw) != nil {
			return
		}
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
				want, _ := canonjson.ArgumentsDigest(b)
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
