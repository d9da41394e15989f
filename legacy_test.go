package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

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
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: version < firstStatelessRevision},
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

// TestLegacyMaxRounds: a handler that never stops asking ends with an error
// after MaxRounds asks, rather than asking forever.
func TestLegacyMaxRounds(t *testing.T) {
	fields := []AutoFormField{{Name: "n", Type: TypeInteger, Required: true}}
	for _, tt := range []struct {
		max, wantAsked int
	}{{0, maxLegacyRounds}, {3, 3}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "loop", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return FormInputRequest(fields, nil)
				})
			AddLegacyRounds(server, &LegacyOptions{MaxRounds: tt.max})
			asked := 0
			cs := oldClient(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 1}}, nil
			})
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "loop"})
			requireLegacyError(t, err, fmt.Sprintf("asked for input more than %d times", tt.wantAsked))
			assert.Equal(t, tt.wantAsked, asked)
		})
	}
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
			{"Create your account\n\nPlease check: Plan: not one of the options.", map[string]string{"email": `"ada@example.com"`}},
			{"Set up your team", map[string]string{}},
			{"Set up your team\n\nPlease check: Seats: greater than the maximum 50.", map[string]string{"team_name": `"Analytical"`}},
		}},
		{"a bad email and a bad plan, both named", []map[string]any{
			{"email": "ada.example.com", "plan": "gold"},
			{"email": "ada@example.com", "plan": "team"},
			{"team_name": "Analytical", "seats": 5},
		}, []ask{
			{"Create your account", map[string]string{}},
			{"Create your account\n\nPlease check: Email: not a valid email address; Plan: not one of the options.", map[string]string{}},
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
	const want = "invalid account after 3: Please check: Email: not a valid email address; Plan: not one of the options."

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
			if version >= firstStatelessRevision {
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
			if tt.version >= firstStatelessRevision {
				assert.Empty(t, *wire, "a 2026-07-28 client is asked with input_required, not elicitation/create")
				return
			}
			require.Len(t, *wire, 1)
			assert.Equal(t, []string{"room", "extras", "seats"}, propertyOrder((*wire)[0]), "the fields keep their order")
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
	assert.Equal(t, []string{"Book a room", "Book a room\n\nPlease check: Seats: greater than the maximum 12."}, messages)
	var orders []string
	for _, b := range *wire {
		orders = append(orders, strings.Join(propertyOrder(b), ","))
	}
	assert.Equal(t, []string{"room,extras,seats", "room,extras,seats"}, orders, "the fields keep their order")
	require.Len(t, rooms, 2)
	assert.JSONEq(t, `{"type":"string","title":"Room","enum":["babbage","lovelace"],"enumNames":["Babbage (6 seats)","Lovelace (12 seats)"],"default":"lovelace"}`, rooms[1])
}

// rawClient is a client on 2025-11-25 that speaks JSON-RPC over a
// connection by hand and never answers the server's requests: a client
// that walked away, or a transport that drops them. It keeps the replies
// it gets, or, for many calls, only counts them by code and message.
type rawClient struct {
	conn    mcp.Connection
	keep    bool
	mu      sync.Mutex
	replies map[string]*jsonrpc.Response
	errs    map[string]int // "code message" → replies
	n       int            // replies
	asked   int
}

func newRawClient(t *testing.T, server *mcp.Server, keep bool) *rawClient {
	t.Helper()
	return newRawClientIn(t, context.Background(), server, keep)
}

// newRawClientIn is newRawClient whose session the server serves in
// sctx, as go-sdk serves an HTTP session in its initialize request's.
func newRawClientIn(t *testing.T, sctx context.Context, server *mcp.Server, keep bool) *rawClient {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(sctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{conn: conn, keep: keep, replies: map[string]*jsonrpc.Response{}, errs: map[string]int{}}
	go func() {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			c.mu.Lock()
			switch m := msg.(type) {
			case *jsonrpc.Response:
				c.n++
				if id := fmt.Sprint(m.ID.Raw()); c.keep || id == "init" {
					c.replies[id] = m
				}
				var jerr *jsonrpc.Error
				if errors.As(m.Error, &jerr) {
					c.errs[fmt.Sprint(jerr.Code, " ", jerr.Message)]++
				}
			case *jsonrpc.Request:
				if m.Method == "elicitation/create" {
					c.asked++ // and never answered
				}
			}
			c.mu.Unlock()
		}
	}()
	c.send(t, "init", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"v0"}}`)
	require.Eventually(t, func() bool { return c.reply("init") != nil }, 5*time.Second, time.Millisecond)
	require.NoError(t, conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}))
	return c
}

func (c *rawClient) send(t testing.TB, id, method, params string) {
	t.Helper()
	rid, err := jsonrpc.MakeID(id)
	require.NoError(t, err)
	require.NoError(t, c.conn.Write(context.Background(), &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}))
}

// call sends n tools/call requests of the tool "ask", with IDs prefix0 on.
func (c *rawClient) call(t testing.TB, prefix string, n int) {
	for i := range n {
		c.send(t, fmt.Sprint(prefix, i), "tools/call", `{"name":"ask","arguments":{}}`)
	}
}

func (c *rawClient) reply(id string) *jsonrpc.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replies[id]
}

// counts returns the elicitations the client was sent and the replies it
// got, initialize's included.
func (c *rawClient) counts() (asked, replies int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked, c.n
}

// errors returns the error replies by "code message".
func (c *rawClient) errors() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.errs)
}

// askServer returns a server whose tool "ask" asks a form on every call,
// with the legacy rounds of opts.
func askServer(t testing.TB, opts *LegacyOptions) *mcp.Server {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "name", Required: true}}, nil)
	require.NoError(t, err)
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return form.InputRequest(""), nil
		})
	AddLegacyRounds(server, opts)
	return server
}

// settledGoroutines returns the goroutine count once it has stopped
// falling to at most want, or after 5 s. It polls by hand: assert.Eventually
// counts goroutines of its own.
func settledGoroutines(want int) int {
	now := runtime.NumGoroutine()
	for end := time.Now().Add(5 * time.Second); now > want && time.Now().Before(end); now = runtime.NumGoroutine() {
		time.Sleep(5 * time.Millisecond)
	}
	return now
}

func stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// TestLegacyAbandoned: calls whose client never answers the elicitation
// end at the deadline with a JSON-RPC error, and leave the goroutine count
// where it was.
func TestLegacyAbandoned(t *testing.T) {
	const n = 4
	c := newRawClient(t, askServer(t, &LegacyOptions{Timeout: 100 * time.Millisecond, MaxCallsPerSession: n}), true)
	time.Sleep(10 * time.Millisecond) // let the session's goroutines settle
	before := runtime.NumGoroutine()

	c.call(t, "", n)
	require.Eventually(t, func() bool { asked, _ := c.counts(); return asked == n }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { _, replies := c.counts(); return replies == n+1 }, 5*time.Second, time.Millisecond)
	for i := range n {
		requireLegacyError(t, c.reply(fmt.Sprint(i)).Error, "did not answer within 100ms")
	}
	if now := settledGoroutines(before); now > before {
		t.Errorf("goroutines: %d before the calls, %d after:\n%s", before, now, stacks())
	}
}

// TestLegacyAbandonedCalls sends 2,000 calls on one session of a client
// on 2025-11-25 that never answers: the calls beyond the session's bound
// are refused at once, so goroutines and memory stay bounded whatever the
// client sends, and closing the session ends the waits of those it holds,
// long before their Timeout. Without a bound each call held two goroutines
// and about 50 KB until Timeout, 10 minutes by default. (e2e's
// TestAbandonedCalls sends 20,000 to the example's binary.)
func TestLegacyAbandonedCalls(t *testing.T) {
	const (
		n     = 2000
		batch = 250
	)
	c := newRawClient(t, askServer(t, &LegacyOptions{Timeout: time.Hour}), false)
	time.Sleep(10 * time.Millisecond) // let the session's goroutines settle
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	heapBefore, before := mem.HeapAlloc, runtime.NumGoroutine()
	// Each waiting call holds a few goroutines; the refused, none.
	bound := before + 4*maxLegacyCallsPerSession + 16
	peak := before
	for sent := 0; sent < n; sent += batch {
		c.call(t, fmt.Sprint("b", sent, "-"), batch)
		// Each call is either asked or answered: wait for all of them.
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
			if asked, replies := c.counts(); asked+replies-1 >= sent+batch {
				break
			}
			time.Sleep(time.Millisecond)
		}
		peak = max(peak, runtime.NumGoroutine())
		if peak > bound {
			asked, replies := c.counts()
			t.Fatalf("after %d calls: %d goroutines, over %d (%d before); %d asked, %d answered",
				sent+batch, peak, bound, before, asked, replies-1)
		}
	}
	asked, replies := c.counts()
	assert.Equal(t, maxLegacyCallsPerSession, asked, "calls asked")
	assert.Equal(t, map[string]int{
		"-32603 mcpform: this session has 4 calls waiting for input already, the most it may; answer or cancel one first": n - maxLegacyCallsPerSession,
	}, c.errors(), "the refused calls")
	assert.Equal(t, n-maxLegacyCallsPerSession, replies-1, "calls answered")
	runtime.GC()
	runtime.ReadMemStats(&mem)
	grown := int64(mem.HeapAlloc) - int64(heapBefore)
	assert.Less(t, grown, int64(16<<20), "heap grew by %d bytes", grown)
	t.Logf("%d calls: at most %d goroutines (%d before), heap grew by %d KB", n, peak, before, grown>>10)

	// The client goes away: the waits end with the session, not at
	// their Timeout an hour from now.
	start := time.Now()
	require.NoError(t, c.conn.Close())
	if now := settledGoroutines(before); now > before {
		t.Errorf("goroutines: %d before the calls, %d after the session closed:\n%s", before, now, stacks())
	}
	t.Logf("the waits ended %v after the session closed", time.Since(start))
}

// TestLegacyCallBounds: a session may hold MaxCallsPerSession calls, and
// all sessions together MaxCalls; beyond, a call is refused at once, and a
// call that ends makes room.
func TestLegacyCallBounds(t *testing.T) {
	server := askServer(t, &LegacyOptions{Timeout: time.Hour, MaxCallsPerSession: 2, MaxCalls: 3})
	a, b := newRawClient(t, server, true), newRawClient(t, server, true)
	waitCounts := func(c *rawClient, asked, replies int) {
		t.Helper()
		require.Eventually(t, func() bool {
			gotAsked, gotReplies := c.counts()
			return gotAsked == asked && gotReplies == replies+1
		}, 5*time.Second, time.Millisecond)
	}
	a.call(t, "a", 3)
	waitCounts(a, 2, 1)
	assert.Equal(t, map[string]int{
		"-32603 mcpform: this session has 2 calls waiting for input already, the most it may; answer or cancel one first": 1,
	}, a.errors())
	b.call(t, "b", 2)
	waitCounts(b, 1, 1)
	assert.Equal(t, map[string]int{
		"-32603 mcpform: the server has 3 calls waiting for input, the most it serves at once; try again later": 1,
	}, b.errors())

	require.NoError(t, a.conn.Close()) // a's two calls end with it
	require.Eventually(t, func() bool {
		b.call(t, fmt.Sprint("retry", time.Now().UnixNano()), 1)
		time.Sleep(10 * time.Millisecond)
		asked, _ := b.counts()
		return asked == 2
	}, 5*time.Second, 20*time.Millisecond, "a call is served once others end")
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
