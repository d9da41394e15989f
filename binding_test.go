package mcpform

import (
	"context"
	"maps"
	"strings"

	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgumentsDigestAsCallRead: the digest callArguments binds a state
// to, for a flow with no argument of its own, is canonjson's.
func TestArgumentsDigestAsCallRead(t *testing.T) {
	for _, raw := range []string{``, ` { } `, `null`, `{"a":1.0,"b":"x"}`, `{"repo":9007199254740993}`,
		`[1,2.50]`, `"s"`, `{"n":{"y":[1e400,"\u00e9"]}}`} {
		a, err := callArguments(json.RawMessage(raw), nil)
		require.NoError(t, err, raw)
		d, err := argumentsDigest(json.RawMessage(raw))
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
		req.Params.Meta[companionMetaKey] = theViewMark
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
// refused on every path, and a swap can never finish a call.
func TestBindingFoldedKeys(t *testing.T) {
	for _, args := range []string{
		`{"REPO":"victim","repo":"scratch"}`,
		`{"opts":{"Force":true,"force":false}}`,
		`{"list":[{"name":"a","NAME":"b"}]}`,
		"{\"Kelvin\":1,\"\u212aelvin\":2}", // KELVIN SIGN folds to k
		"{\"ſize\":1,\"size\":2}",          // LATIN SMALL LETTER LONG S folds to s
	} {
		t.Run(args, func(t *testing.T) {
			_, err := argumentsDigest(json.RawMessage(args))
			assert.ErrorIs(t, err, errFoldedKeys)
			flow, _, _ := newFlowFixture(t)
			_, err = flow.Next(context.Background(), rawArgs(nil, "", args, nil))
			assert.ErrorIs(t, err, errFoldedKeys)
		})
	}
	for _, args := range []string{`{"repo":"a","Repo2":"b"}`, `{"a":{"x":1},"b":{"X":1}}`, `{"é":1,"e":2}`} {
		_, err := argumentsDigest(json.RawMessage(args))
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
			for _, n := range []string{"1e400", "9007199254740993", "-1e400"} {
				r := read(`{"mcpform":"","seats":` + n + `}`)
				require.Equal(t, ReplyInvalid, r.Status, n)
				require.Len(t, r.Problems, 1, n)
				assert.Equal(t, "seats", r.Problems[0].Field, n)
			}
			r := read(`{"mcpform":"","seats":9007199254740991}`)
			require.Equal(t, ReplyAccepted, r.Status)
			assert.Equal(t, int64(9007199254740991), r.Value.Seats)
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
