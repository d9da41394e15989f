package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/mcpform/mcpform/internal/secretpage"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldClient connects a go-sdk client at version with its own
// input_required loop off below 2026-07-28, as a real old client has none.
func oldClient(t *testing.T, server *mcp.Server, version string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	return connectOld(t, server, version, elicit, false)
}

// uncheckedClient is oldClient for a client that does not check its
// answers against the schema, as the TypeScript client does not: its
// receiving middleware answers elicitation/create itself, past go-sdk's
// client-side check.
func uncheckedClient(t *testing.T, server *mcp.Server, version string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	return connectOld(t, server, version, elicit, true)
}

func connectOld(t testing.TB, server *mcp.Server, version string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), unchecked bool) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "v0"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: version < legacy.StatelessRevision},
		ElicitationHandler: elicit,
	})
	if unchecked {
		client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if r, ok := req.(*mcp.ElicitRequest); ok && method == "elicitation/create" {
					return elicit(ctx, r)
				}
				return next(ctx, method, req)
			}
		})
	}
	cs := connectClient(t, server, client, version)
	require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
	return cs
}

// wireSchemas records the schema of each elicitation/create the server
// sends, as it goes on the wire. Add it before AddLegacyRounds, so that it
// is the inner sending middleware and sees what the legacy rounds send.
func wireSchemas(t *testing.T, server *mcp.Server) *[][]byte {
	var mu sync.Mutex
	var out [][]byte
	server.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ElicitParams); ok {
				b, err := json.Marshal(p.RequestedSchema)
				assert.NoError(t, err)
				mu.Lock()
				out = append(out, b)
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return &out
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1, "want one content item, got %#v", res)
	return res.Content[0].(*mcp.TextContent).Text
}

// twoSteps returns a tool handler that asks in two rounds, an account and
// then a team, carrying the first answers in the request state (unsigned:
// this is a test), and finishes with "done" and every answer.
func twoSteps(t testing.TB) mcp.ToolHandler {
	account, err := NewForm[Answers]([]AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	}, &FormOptions{Key: "account", Message: "Create your account"})
	require.NoError(t, err)
	team, err := NewForm[Answers]([]AutoFormField{
		{Name: "team_name", Required: true, Min: Bound(2)},
		{Name: "seats", Type: TypeInteger, Required: true, Min: Bound(2), Max: Bound(50)},
	}, &FormOptions{Key: "team", Message: "Set up your team"})
	require.NoError(t, err)
	result := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		state := req.Params.RequestState
		if state == "" {
			r := account.Read(req.Params.InputResponses)
			switch r.Status {
			case ReplyNone:
				return account.InputRequest(""), nil
			case ReplyInvalid:
				return account.Reask(r, ""), nil
			case ReplyAccepted:
				b, err := json.Marshal(r.Value)
				return team.InputRequest(string(b)), err
			}
			return result(r.Status.String()), nil
		}
		r := team.Read(req.Params.InputResponses)
		switch r.Status {
		case ReplyNone:
			return team.InputRequest(state), nil
		case ReplyInvalid:
			return team.Reask(r, state), nil
		case ReplyAccepted:
			var all Answers
			if err := json.Unmarshal([]byte(state), &all); err != nil {
				return nil, err
			}
			for k, v := range r.Value {
				all[k] = v
			}
			b, err := json.Marshal(all)
			return result("done " + string(b)), err
		}
		return result(r.Status.String()), nil
	}
}

// TestLegacyRounds runs a two-round call for a client on 2025-11-25, which
// knows nothing of input_required: go-sdk's bridge alone asks one round,
// and AddLegacyRounds asks them all.
func TestLegacyRounds(t *testing.T) {
	handler := twoSteps(t)
	const done = `done {"email":"ada@example.com","plan":"team","seats":5,"team_name":"Analytical"}`
	both := []string{"Create your account", "Set up your team"}
	for _, tt := range []struct {
		name      string
		install   bool
		opts      *LegacyOptions
		version   string
		wantAsked []string
		wantText  string
	}{
		{"bridge alone asks one round", false, nil, "2025-11-25", []string{"Create your account"}, ""},
		{"AddLegacyRounds", true, nil, "2025-11-25", both, done},
		{"AddLegacyRounds with options", true, &LegacyOptions{Timeout: time.Minute, MaxRounds: 2, MaxCallsPerSession: 1, MaxCalls: 1}, "2025-11-25", both, done},
		{"a 2026-07-28 client passes through", true, nil, "2026-07-28", both, done},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			if tt.install {
				AddLegacyRounds(server, tt.opts)
			}
			var asked []string
			cs := oldClient(t, server, tt.version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, req.Params.Message)
				if len(asked) == 1 {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "team"}}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"team_name": "Analytical", "seats": 5}}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			require.NoError(t, err)
			assert.Equal(t, tt.wantAsked, asked)
			if tt.wantText == "" {
				assert.NotEmpty(t, res.InputRequests, "without AddLegacyRounds the old client is left with a request it cannot read")
				return
			}
			assert.Equal(t, tt.wantText, text(t, res))
		})
	}
}

// requireLegacyError checks that err is a JSON-RPC error with code -32603
// that contains want and says "mcpform:" once.
func requireLegacyError(t *testing.T, err error, want string) {
	t.Helper()
	var jerr *jsonrpc.Error
	require.True(t, errors.As(err, &jerr), "want a JSON-RPC error, got %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), jerr.Code, "code of %q", jerr.Message)
	assert.Contains(t, jerr.Message, want)
	assert.Equal(t, 1, strings.Count(jerr.Message, "mcpform:"), "one prefix in %q", jerr.Message)
}

// schemaDefaults returns the defaults of a requested schema's properties,
// as JSON.
func schemaDefaults(t *testing.T, schema any) map[string]string {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	defaults := map[string]string{}
	for name, p := range s.Properties {
		if p.Default != nil {
			defaults[name] = string(p.Default)
		}
	}
	return defaults
}

// TestLegacyReask: a legacy client that does not check its own answers
// sends values the form refuses. go-sdk's Elicit would end the call with
// JSON-RPC code 0, or, blind to formats, let a bad email through; here the
// handler's own checker judges every answer, the bridge's first round
// included, and its re-ask names every problem, formats too, with only the
// good values pre-filled.
func TestLegacyReask(t *testing.T) {
	type ask struct {
		Message  string
		Defaults map[string]string
	}
	for _, tt := range []struct {
		name    string
		answers []map[string]any // each answer in turn
		want    []ask
	}{
		{"off the schema", []map[string]any{
			{"email": "ada@example.com", "plan": "gold"},
			{"email": "ada@example.com", "plan": "team"},
			{"team_name": "Analytical", "seats": 500},
			{"team_name": "Analytical", "seats": 5},
		}, []ask{
			{"Create your account", map[string]string{}},
			{"Create your account\n\nChoose one of the options for Plan.", map[string]string{"email": `"ada@example.com"`}},
			{"Set up your team", map[string]string{}},
			{"Set up your team\n\nSeats must be from 2 to 50.", map[string]string{"team_name": `"Analytical"`}},
		}},
		{"a bad email and a bad plan, both named", []map[string]any{
			{"email": "ada.example.com", "plan": "gold"},
			{"email": "ada@example.com", "plan": "team"},
			{"team_name": "Analytical", "seats": 5},
		}, []ask{
			{"Create your account", map[string]string{}},
			{"Create your account\n\nEmail must be an email address, like name@example.com. Choose one of the options for Plan.", map[string]string{}},
			{"Set up your team", map[string]string{}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, twoSteps(t))
			AddLegacyRounds(server, nil)
			var asked []ask
			cs := uncheckedClient(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, ask{req.Params.Message, schemaDefaults(t, req.Params.RequestedSchema)})
				if len(asked) > len(tt.answers) {
					return &mcp.ElicitResult{Action: "cancel"}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: tt.answers[len(asked)-1]}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			require.NoError(t, err)
			assert.Equal(t, tt.want, asked)
			assert.Equal(t, `done {"email":"ada@example.com","plan":"team","seats":5,"team_name":"Analytical"}`, text(t, res))
		})
	}
}

// TestLegacyEnding: a client that keeps sending an answer the form
// refuses, a bad email and a plan off the schema, gets the same outcome on
// 2025-11-25 as on 2026-07-28: the flow asks MaxReasks times again and
// then ends with its own FlowInvalid result, not with a JSON-RPC error.
func TestLegacyEnding(t *testing.T) {
	const maxReasks = 2
	codec, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true, MaxReasks: maxReasks})
	require.NoError(t, err)
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := flow.Next(context.Background(), req)
		if err != nil {
			return nil, err
		}
		if r.Status == FlowAsk {
			return r.Result, nil
		}
		msg := fmt.Sprintf("%s %s after %d: %s", r.Status, r.Step, r.Attempt, ProblemMessage(flow.Fields(r.Step), r.Problems))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
	}
	bad := map[string]any{"email": "ada.example.com", "plan": "gold"}
	const want = "invalid account after 3: Email must be an email address, like name@example.com. Choose one of the options for Plan."

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			AddLegacyRounds(server, nil)
			asked := 0
			elicit := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: bad}, nil
			}
			// A 2026-07-28 client retries by itself, as TypeScript's does,
			// without checking the answer against the schema: by hand here,
			// since go-sdk's own loop checks it.
			var cs *mcp.ClientSession
			if version >= legacy.StatelessRevision {
				cs = connectClient(t, server, mcp.NewClient(&mcp.Implementation{Name: "new", Version: "v0"}, &mcp.ClientOptions{
					MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}, ElicitationHandler: elicit,
				}), version)
			} else {
				cs = uncheckedClient(t, server, version, elicit)
			}
			params := &mcp.CallToolParams{Name: "signup"}
			res, err := cs.CallTool(context.Background(), params)
			for rounds := 0; err == nil && len(res.InputRequests) > 0 && rounds < 10; rounds++ {
				asked++
				params.InputResponses = mcp.InputResponseMap{}
				for key := range res.InputRequests {
					params.InputResponses[key] = &mcp.ElicitResult{Action: "accept", Content: bad}
				}
				params.RequestState = res.RequestState
				res, err = cs.CallTool(context.Background(), params)
			}
			require.NoError(t, err)
			assert.Equal(t, maxReasks+1, asked, "times asked")
			assert.Equal(t, want, text(t, res))
		})
	}
}

// labelledFields have a single and a multiple choice whose labels differ
// from their values, so the compiled schema carries titled choices.
var labelledFields = []AutoFormField{
	{Name: "room", Label: "Room", Required: true, Options: []Option{
		{Value: "babbage", Label: "Babbage (6 seats)"}, {Value: "lovelace", Label: "Lovelace (12 seats)"},
	}},
	{Name: "extras", Label: "Extras", Multiple: true, Options: []Option{
		{Value: "tea", Label: "Tea and coffee"}, {Value: "screen"},
	}},
	{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(12), Required: true},
}

type roomBooking struct {
	Room   string   `json:"room"`
	Extras []string `json:"extras,omitempty"`
	Seats  int      `json:"seats"`
}

// TestLegacySchema: a go-sdk client at 2025-11-25 sees the compiled form's
// titled choices; one at 2025-06-18, whose revision predates them, sees
// enum plus enumNames carrying the same labels, and a multiple choice as
// enum items. Both answers decode into the typed struct.
func TestLegacySchema(t *testing.T) {
	form, err := NewForm[roomBooking](labelledFields, &FormOptions{Message: "Book a room"})
	require.NoError(t, err)
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reply := form.Read(req.Params.InputResponses)
		switch reply.Status {
		case ReplyNone:
			return form.InputRequest(""), nil
		case ReplyInvalid:
			return form.Reask(reply, ""), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %+v", reply.Status, reply.Value)}}}, nil
	}
	titledRoom := `{"type":"string","title":"Room","oneOf":[{"const":"babbage","title":"Babbage (6 seats)"},{"const":"lovelace","title":"Lovelace (12 seats)"}]}`
	titledExtras := `{"type":"array","title":"Extras","items":{"anyOf":[{"const":"tea","title":"Tea and coffee"},{"const":"screen","title":"screen"}]}}`
	for _, tt := range []struct {
		version, wantRoom, wantExtras string
	}{
		{"2025-11-25", titledRoom, titledExtras},
		{"2025-06-18",
			`{"type":"string","title":"Room","enum":["babbage","lovelace"],"enumNames":["Babbage (6 seats)","Lovelace (12 seats)"]}`,
			`{"type":"array","title":"Extras","items":{"type":"string","enum":["tea","screen"]}}`},
		{"2026-07-28", titledRoom, titledExtras},
	} {
		t.Run(tt.version, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "book", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			wire := wireSchemas(t, server)
			AddLegacyRounds(server, nil)
			var schemas []map[string]json.RawMessage
			cs := oldClient(t, server, tt.version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				b, err := json.Marshal(req.Params.RequestedSchema)
				require.NoError(t, err)
				var s struct {
					Properties map[string]json.RawMessage `json:"properties"`
				}
				require.NoError(t, json.Unmarshal(b, &s))
				schemas = append(schemas, s.Properties)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"room": "lovelace", "extras": []any{"tea"}, "seats": 12}}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "book"})
			require.NoError(t, err)
			assert.Equal(t, "accepted {Room:lovelace Extras:[tea] Seats:12}", text(t, res))
			require.Len(t, schemas, 1)
			assert.JSONEq(t, tt.wantRoom, string(schemas[0]["room"]))
			assert.JSONEq(t, tt.wantExtras, string(schemas[0]["extras"]))
			if tt.version >= legacy.StatelessRevision {
				assert.Empty(t, *wire, "a 2026-07-28 client is asked with input_required, not elicitation/create")
				return
			}
			require.Len(t, *wire, 1)
			assert.Equal(t, []string{"room", "extras", "seats"}, legacy.PropertyOrder((*wire)[0]), "the fields keep their order")
		})
	}
}

// TestLegacyReaskKeepsOrderAndLabels: a re-ask at 2025-06-18 is downgraded
// too, keeps the field order, and pre-fills the good values.
func TestLegacyReaskKeepsOrderAndLabels(t *testing.T) {
	form, err := NewForm[roomBooking](labelledFields, &FormOptions{Message: "Book a room"})
	require.NoError(t, err)
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "book", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reply := form.Read(req.Params.InputResponses)
			if reply.Status != ReplyAccepted {
				return form.Reask(reply, ""), nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%+v", reply.Value)}}}, nil
		})
	wire := wireSchemas(t, server)
	AddLegacyRounds(server, nil)
	var messages, rooms []string
	cs := uncheckedClient(t, server, "2025-06-18", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		b, err := json.Marshal(req.Params.RequestedSchema)
		require.NoError(t, err)
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &s))
		messages = append(messages, req.Params.Message)
		rooms = append(rooms, string(s.Properties["room"]))
		if len(messages) == 1 {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"room": "lovelace", "seats": 13}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"room": "lovelace", "seats": 12}}, nil
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "book"})
	require.NoError(t, err)
	assert.Equal(t, "{Room:lovelace Extras:[] Seats:12}", text(t, res))
	assert.Equal(t, []string{"Book a room", "Book a room\n\nSeats must be from 1 to 12."}, messages)
	var orders []string
	for _, b := range *wire {
		orders = append(orders, strings.Join(legacy.PropertyOrder(b), ","))
	}
	assert.Equal(t, []string{"room,extras,seats", "room,extras,seats"}, orders, "the fields keep their order")
	require.Len(t, rooms, 2)
	assert.JSONEq(t, `{"type":"string","title":"Room","enum":["babbage","lovelace"],"enumNames":["Babbage (6 seats)","Lovelace (12 seats)"],"default":"lovelace"}`, rooms[1])
}

// BenchmarkLegacyCall is a whole one-round tool call from a 2025-11-25
// client over go-sdk in memory, with go-sdk's bridge alone and with
// AddLegacyRounds, whose sending side reads, downgrades and bounds
// the elicitation: the cost of that, against the bridge in the same run.
func BenchmarkLegacyCall(b *testing.B) {
	form, err := NewForm[Answers](labelledFields, nil)
	require.NoError(b, err)
	for _, bb := range []struct {
		name   string
		legacy bool
	}{{"bridge", false}, {"AddLegacyRounds", true}} {
		b.Run(bb.name, func(b *testing.B) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "book", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if r := form.Read(req.Params.InputResponses); r.Status == ReplyNone {
						return form.InputRequest(""), nil
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				})
			if bb.legacy {
				AddLegacyRounds(server, nil)
			}
			cs := connectOld(b, server, "2025-11-25", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"room": "lovelace", "seats": 3}}, nil
			}, false)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLegacyForgotten: a server that forgets AddLegacyRounds gives a client
// on 2025-11-25 a JSON-RPC error naming it once the flow would ask a second
// time, not an empty result it cannot read; the same flow finishes with the
// middleware, and for a 2026-07-28 client without it. The handler passes
// Next a context of its own, which the middleware does not need.
func TestLegacyForgotten(t *testing.T) {
	codec, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := flow.Next(context.Background(), req)
		if err != nil {
			return nil, err
		}
		if r.Status == FlowAsk {
			return r.Result, nil
		}
		b, err := json.Marshal(r.Answers)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String() + " " + string(b)}}}, err
	}
	answers := map[string]map[string]any{
		"account": {"email": "ada@example.com", "plan": "team"},
		"team":    {"team_name": "Analytical", "seats": 5},
	}
	const done = `done {"email":"ada@example.com","plan":"team","seats":5,"team_name":"Analytical"}`
	for _, tt := range []struct {
		name      string
		install   bool
		version   string
		wantAsked int
		wantErr   string
	}{
		{"2025-11-25 without AddLegacyRounds", false, "2025-11-25", 1,
			"mcpform: this flow needs more than one round for a client older than 2026-07-28: the server must call mcpform.AddLegacyRounds"},
		{"2025-06-18 without AddLegacyRounds", false, "2025-06-18", 1, "the server must call mcpform.AddLegacyRounds"},
		{"2025-11-25 with AddLegacyRounds", true, "2025-11-25", 2, ""},
		{"2026-07-28 without AddLegacyRounds", false, "2026-07-28", 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := signupServer(handler, tt.install)
			asked := 0
			cs := oldClient(t, server, tt.version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				key := "account"
				if req.Params.Message == "Step 2 of 2\n\n"+teamStep.Message { // where the step stands, as natively
					key = "team"
				}
				return &mcp.ElicitResult{Action: "accept", Content: answers[key]}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			assert.Equal(t, tt.wantAsked, asked, "times asked")
			if tt.wantErr != "" {
				requireLegacyError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, done, text(t, res))
		})
	}
}

// TestLegacyForgottenForm: a lone Form asked again, on a server without
// AddLegacyRounds, of a client on 2025-11-25 names the missing call, as a
// flow does: Ask with a JSON-RPC error, Reask, which cannot return one,
// with a tool error; never the empty result go-sdk's bridge would send.
// With the middleware, or for a 2026-07-28 client, the form is asked
// again and finishes.
func TestLegacyForgottenForm(t *testing.T) {
	form, err := NewForm[map[string]any](accountStep.Fields, &FormOptions{Key: "account", Message: accountStep.Message})
	require.NoError(t, err)
	handler := func(reask bool) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch reply := form.ReadCall(req); reply.Status {
			case ReplyAccepted:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "created " + reply.Answers["email"].(string)}}}, nil
			case ReplyInvalid:
				if reask {
					return form.Reask(reply, ""), nil
				}
			}
			return form.Ask(req, "")
		}
	}
	const fix = "mcpform: asking a form again needs a second round for a client older than 2026-07-28: the server must call mcpform.AddLegacyRounds"
	for _, tt := range []struct {
		name      string
		reask     bool
		install   bool
		version   string
		wantAsked int
		wantErr   string // a JSON-RPC error
		wantTool  string // a tool error
	}{
		{"Ask, 2025-11-25 without AddLegacyRounds", false, false, "2025-11-25", 1, fix, ""},
		{"Reask, 2025-11-25 without AddLegacyRounds", true, false, "2025-11-25", 1, "", fix},
		{"Reask, 2025-11-25 with AddLegacyRounds", true, true, "2025-11-25", 2, "", ""},
		{"Ask, 2025-11-25 with AddLegacyRounds", false, true, "2025-11-25", 2, "", ""},
		{"Reask, 2026-07-28 without AddLegacyRounds", true, false, "2026-07-28", 2, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := signupServer(handler(tt.reask), tt.install)
			asked := 0
			cs := uncheckedClient(t, server, tt.version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				// The schema's format is not asserted, so only the form
				// refuses this email, and asks again.
				email := "ada at example.com"
				if asked > 1 {
					email = "ada@example.com"
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": email, "plan": "pro"}}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			assert.Equal(t, tt.wantAsked, asked, "times asked")
			switch {
			case tt.wantErr != "":
				requireLegacyError(t, err, tt.wantErr)
			case tt.wantTool != "":
				require.NoError(t, err)
				assert.True(t, res.IsError)
				assert.Equal(t, tt.wantTool, text(t, res))
			default:
				require.NoError(t, err)
				assert.False(t, res.IsError)
				assert.Equal(t, "created ada@example.com", text(t, res))
			}
		})
	}
}

// signupServer serves handler as the tool "signup", with the middleware
// of AddLegacyRounds when install is set.
func signupServer(handler mcp.ToolHandler, install bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	if install {
		AddLegacyRounds(server, nil)
	}
	return server
}

// TestLegacySecretFlow: a go-sdk client on 2025-11-25 consents to the page
// by elicitationId, the person sends it a moment later, and the call
// finishes, with the completion notification for that ID, through
// AddLegacyRounds.
func TestLegacySecretFlow(t *testing.T) {
	defer func(d time.Duration) { legacyPoll = d }(legacyPoll)
	legacyPoll = 20 * time.Millisecond
	fx := newSecretFixture(t, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "set_password", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}
			r, err := fx.flow.Next(context.Background(), req)
			switch {
			case err != nil:
				return nil, err
			case r.Status == FlowAsk:
				return r.Result, nil
			}
			b, _ := json.Marshal(r.Answers)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String() + " " + string(b)}}}, nil
		})
	AddLegacyRounds(server, &LegacyOptions{Timeout: 10 * time.Second})

	var (
		mu        sync.Mutex
		ids       []string // elicitationIds of the URL-mode requests
		completed []string
		posted    sync.WaitGroup
	)
	client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "v0"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com"}}, nil
			}
			mu.Lock()
			ids = append(ids, req.Params.ElicitationID)
			mu.Unlock()
			// The person opens the page and types, after the consent.
			posted.Add(1)
			go func() {
				defer posted.Done()
				time.Sleep(5 * legacyPoll)
				assert.Equal(t, http.StatusOK, send(t, req.Params.URL, "correct horse battery"))
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			mu.Lock()
			completed = append(completed, req.Params.ElicitationID)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	cs := connectClient(t, server, client, "2025-11-25")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "set_password"})
	require.NoError(t, err)
	posted.Wait()
	require.Len(t, res.Content, 1)
	assert.Equal(t, `done {"email":"ada@example.com","password":"correct horse battery"}`, res.Content[0].(*mcp.TextContent).Text)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(completed) == 1 }, 5*time.Second, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, ids, 1, "the page is asked once, then waited for")
	assert.NotEmpty(t, ids[0])
	assert.Equal(t, ids, completed)
}

func TestURLElicitationID(t *testing.T) {
	_, codec, clock := newFlowFixture(t)
	link := func(run, step string) string {
		tok, err := codec.Mint(&secretLink{Principal: "alice", Tool: "t", Run: run, Step: step}, BindTo("mcpform/secret-link"))
		require.NoError(t, err)
		return "https://example.com/secret?t=" + url.QueryEscape(tok)
	}
	// urlElicitationID is the ID AddLegacyRounds gives the request for link.
	urlElicitationID := func(link string) string { return legacy.ElicitationID(secretpage.PageKey(link)) }
	a := urlElicitationID(link("r1", "password"))
	assert.Equal(t, a, urlElicitationID(link("r1", "password")))
	first := link("r1", "password")
	clock.t = clock.t.Add(time.Minute)
	assert.NotEqual(t, first, link("r1", "password"), "minted anew")
	assert.Equal(t, a, urlElicitationID(link("r1", "password")), "the same page")
	assert.NotEqual(t, a, urlElicitationID(link("r2", "password")))
	assert.NotEqual(t, a, urlElicitationID(link("r1", "other")))
	assert.NotEqual(t, a, urlElicitationID(strings.Replace(link("r1", "password"), "example.com", "example.org", 1)))
	assert.Equal(t, urlElicitationID("https://x/y"), urlElicitationID("https://x/y"))
	assert.NotEqual(t, urlElicitationID("https://x/y"), urlElicitationID("https://x/z"))
}

// TestLegacyOwnRequests: what this package builds while AddLegacyRounds
// serves a call is sent unjudged by go-sdk, and the stand-in that carries
// its answer past Elicit is read back by InputResponse. internal/legacy's
// TestOwnRequests holds the rest: a handler's own and copies are judged,
// and no client's JSON makes a stand-in.
func TestLegacyOwnRequests(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "n", Type: TypeInteger, Max: Bound(5)}}, nil)
	require.NoError(t, err)
	idle := form.InputRequest("").InputRequests[form.Key()].(*mcp.ElicitParams)
	unmark := legacy.Serving(nil) // as while the middleware serves a call
	built, err := FormInputRequest([]AutoFormField{{Name: "n"}}, nil)
	require.NoError(t, err)
	asked := form.InputRequest("").InputRequests[form.Key()].(*mcp.ElicitParams)
	copied := *asked
	unmark()
	for _, tt := range []struct {
		name string
		p    *mcp.ElicitParams
		want bool
	}{
		{"Form.InputRequest", asked, true},
		{"FormInputRequest", built.InputRequests[DefaultInputKey].(*mcp.ElicitParams), true},
		{"built while no call was served", idle, false},
		{"a handler's own", &mcp.ElicitParams{Mode: "form", Message: "m"}, false},
		{"a copy of the package's", &copied, false},
		{"nil", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, legacy.IsOwn(tt.p)) })
	}

	answer := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 99.0}}
	s := legacy.StandIn(answer)
	assert.Nil(t, s.Content, "Elicit judges no stand-in")
	assert.Same(t, answer, InputResponse(mcp.InputResponseMap{"form": s}, "form"))
	assert.Same(t, answer, legacy.Answer(answer))
	for _, r := range []*mcp.ElicitResult{{Action: "decline"}, {Action: "accept"}, nil} {
		assert.Same(t, r, InputResponse(mcp.InputResponseMap{"form": r}, "form"), "nothing to unwrap: passed as it is")
	}
}

// TestFaceWaits: the flow seam's Wait, through which a face other than
// go-sdk's bounds its legacy calls that wait, applies the defaults of
// AddLegacyRounds, with its errors: four calls of a session wait, a fifth
// is refused with -32603, and a call that ends makes room.
func TestFaceWaits(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	type session struct{ id string }
	s, other := session{"a"}, session{"b"}
	var done []func()
	for range legacy.DefaultMaxCallsPerSession {
		d, err := flow.Seam().Wait(s, "")
		require.NoError(t, err)
		done = append(done, d)
	}
	_, err := flow.Seam().Wait(s, "")
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), rpc.Code)
	assert.Equal(t, "mcpform: this session has 4 calls waiting for input already, the most it may; answer or cancel one first", rpc.Message)
	d, err := flow.Seam().Wait(other, "")
	require.NoError(t, err, "another session has its own bound")
	d()
	done[0]()
	done[0]() // twice uncounts once
	d, err = flow.Seam().Wait(s, "")
	require.NoError(t, err, "a call that ended made room")
	_, err = flow.Seam().Wait(s, "")
	require.Error(t, err, "but only one")
	for _, d := range append(done[1:], d) {
		d()
	}
}

// legacyPasswordServer returns a server whose set_password tool runs fx's
// flow, served by AddLegacyRounds, and says how it ended and with what.
func legacyPasswordServer(fx *secretFixture) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "set_password", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}
			r, err := fx.flow.Next(ctx, req)
			switch {
			case err != nil:
				return nil, err
			case r.Status == FlowAsk:
				return r.Result, nil
			}
			b, _ := json.Marshal(r.Answers)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String() + " " + string(b)}}}, nil
		})
	AddLegacyRounds(server, &LegacyOptions{Timeout: 10 * time.Second})
	return server
}

// TestLegacyRoundInOrder (issue 35, item 1): on 2025-11-25, AddLegacyRounds
// asks the first round too one request at a time, in the flow's order,
// the form before its link, where go-sdk's bridge sent both at once. A
// client that answers concurrent requests in the opposite order, link
// first, never gets the chance; one that dismisses a link that comes
// before its form, to give the email first, is never shown one: the call
// does not end there.
func TestLegacyRoundInOrder(t *testing.T) {
	defer func(d time.Duration) { legacyPoll = d }(legacyPoll)
	legacyPoll = 20 * time.Millisecond
	const done = `done {"email":"ada@example.com","password":"correct horse battery"}`
	for _, tt := range []struct {
		name string
		// linkFirst is what the client does with a link that comes while
		// the email is unanswered: answer it first (opposite order), or
		// cancel it to answer the email first.
		linkFirst string
		// email is what the client does with the form: "" accepts.
		email     string
		wantOrder []string
		wantText  string
	}{
		{"answers concurrent requests in the opposite order", "accept", "", []string{"form", "url"}, done},
		{"cancels the link to answer the email first", "cancel", "", []string{"form", "url"}, done},
		// A cancel of the form cancels the flow: its link is not asked.
		{"cancels the email", "accept", "cancel", []string{"form"}, "cancelled {}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			server := legacyPasswordServer(fx)
			var (
				mu       sync.Mutex
				order    []string // the modes, as the client saw them
				open     int      // requests shown and not yet answered
				most     int
				answered bool // the email
				urlCame  = make(chan struct{}, 1)
				posted   sync.WaitGroup
			)
			client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "v0"}, &mcp.ClientOptions{
				MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
					Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					order = append(order, req.Params.Mode)
					open++
					most = max(most, open)
					emailDone := answered
					mu.Unlock()
					defer func() { mu.Lock(); open--; mu.Unlock() }()
					if req.Params.Mode != "url" {
						// The person looks at what else is shown; a link
						// shown beside the form is answered first.
						select {
						case <-urlCame:
						case <-time.After(300 * time.Millisecond):
						}
						mu.Lock()
						answered = true
						mu.Unlock()
						if tt.email != "" {
							return &mcp.ElicitResult{Action: tt.email}, nil
						}
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com"}}, nil
					}
					if !emailDone {
						defer func() { urlCame <- struct{}{} }()
						if tt.linkFirst == "cancel" {
							return &mcp.ElicitResult{Action: "cancel"}, nil
						}
					}
					posted.Add(1)
					go func() {
						defer posted.Done()
						time.Sleep(5 * legacyPoll)
						assert.Equal(t, http.StatusOK, send(t, req.Params.URL, "correct horse battery"))
					}()
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			})
			cs := connectClient(t, server, client, "2025-11-25")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_password"})
			require.NoError(t, err)
			posted.Wait()
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tt.wantOrder, order, "the requests, in the order the client saw them")
			assert.Equal(t, 1, most, "requests shown at once")
			require.Len(t, res.Content, 1)
			assert.Equal(t, tt.wantText, res.Content[0].(*mcp.TextContent).Text)
		})
	}
}

// TestLegacyCompleteNotice (issue 35, item 4): on 2025-11-25, once the
// secret page has the secret, the server tells the client with
// notifications/elicitation/complete, naming the URL elicitation it sent,
// and the call finishes: at once, not at the bridge's next poll, which
// here is an hour away. A client may consent to the link and wait for the
// notice, or, as the MCP Inspector does, answer the request only once the
// person says they are done or it hears the notice: then the person need
// not say it.
func TestLegacyCompleteNotice(t *testing.T) {
	defer func(d time.Duration) { legacyPoll = d }(legacyPoll)
	legacyPoll = time.Hour
	for _, tt := range []struct {
		name string
		// untilNotice: the client answers the link once it hears the
		// notice, and cancels it if it hears none within five seconds.
		untilNotice bool
	}{
		{"consents, then the page is sent", false},
		{"answers once it hears the page was sent", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			server := legacyPasswordServer(fx)
			var (
				mu        sync.Mutex
				ids       []string // elicitationIds of the URL-mode requests
				completed []string
				postAt    time.Time // the person sends the page
				heardAt   time.Time // the client hears it has the secret
				heard     = make(chan struct{}, 1)
				posted    sync.WaitGroup
			)
			client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "v0"}, &mcp.ClientOptions{
				MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
					Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if req.Params.Mode != "url" {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com"}}, nil
					}
					mu.Lock()
					ids = append(ids, req.Params.ElicitationID)
					mu.Unlock()
					posted.Add(1)
					go func() { // the person opens the page
						defer posted.Done()
						time.Sleep(100 * time.Millisecond)
						mu.Lock()
						postAt = time.Now()
						mu.Unlock()
						assert.Equal(t, http.StatusOK, send(t, req.Params.URL, "correct horse battery"))
					}()
					if tt.untilNotice {
						select {
						case <-heard:
						case <-time.After(5 * time.Second):
							return &mcp.ElicitResult{Action: "cancel"}, nil
						}
					}
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
				ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
					mu.Lock()
					defer mu.Unlock()
					completed = append(completed, req.Params.ElicitationID)
					heardAt = time.Now()
					select {
					case heard <- struct{}{}:
					default:
					}
				},
			})
			cs := connectClient(t, server, client, "2025-11-25")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "set_password"})
			require.NoError(t, err, "the call waits for the next poll")
			posted.Wait()
			require.Len(t, res.Content, 1)
			assert.Equal(t, `done {"email":"ada@example.com","password":"correct horse battery"}`, res.Content[0].(*mcp.TextContent).Text)
			require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(completed) == 1 }, 5*time.Second, 10*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, ids, 1, "the page is asked once, then waited for")
			assert.Equal(t, ids, completed, "the notice names the URL elicitation, once")
			assert.True(t, heardAt.After(postAt), "heard at %v, before the page was sent at %v", heardAt, postAt)
		})
	}
}
