package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// installLegacy adds m to the server as the docs say: on both sides, or,
// as mcpform documented it before, on the receiving side only.
func installLegacy(server *mcp.Server, m mcp.Middleware, sending bool) {
	server.AddReceivingMiddleware(m)
	if sending {
		server.AddSendingMiddleware(m)
	}
}

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
// sends, as it goes on the wire. Add it before LegacyRounds, so that it is
// the inner sending middleware and sees what LegacyRounds sends.
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
// and LegacyRounds asks them all, installed either way.
func TestLegacyRounds(t *testing.T) {
	handler := twoSteps(t)
	const done = `done {"email":"ada@example.com","plan":"team","seats":5,"team_name":"Analytical"}`
	both := []string{"Create your account", "Set up your team"}
	for _, tt := range []struct {
		name       string
		middleware mcp.Middleware
		sending    bool
		version    string
		wantAsked  []string
		wantText   string
	}{
		{"bridge alone asks one round", nil, false, "2025-11-25", []string{"Create your account"}, ""},
		{"LegacyRounds on the receiving side only", LegacyRounds, false, "2025-11-25", both, done},
		{"LegacyRounds on both sides", LegacyRounds, true, "2025-11-25", both, done},
		{"NewLegacyRounds on both sides", NewLegacyRounds(&LegacyOptions{Timeout: time.Minute, MaxRounds: 2}), true, "2025-11-25", both, done},
		{"a 2026-07-28 client passes through", LegacyRounds, true, "2026-07-28", both, done},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			if tt.middleware != nil {
				installLegacy(server, tt.middleware, tt.sending)
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
				assert.NotEmpty(t, res.InputRequests, "without LegacyRounds the old client is left with a request it cannot read")
				return
			}
			assert.Equal(t, tt.wantText, text(t, res))
		})
	}
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
			installLegacy(server, NewLegacyRounds(&LegacyOptions{MaxRounds: tt.max}), true)
			asked := 0
			cs := oldClient(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 1}}, nil
			})
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "loop"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("more than %d times", tt.wantAsked))
			assert.Equal(t, tt.wantAsked, asked)
		})
	}
}

// TestLegacyReask: a legacy client that does not check its own answers
// sends a value the schema refuses. go-sdk's Elicit would end the call with
// JSON-RPC code 0; LegacyRounds asks again, naming the problem, with the
// good values pre-filled, in every round, the bridge's first included.
func TestLegacyReask(t *testing.T) {
	handler := twoSteps(t)
	// Each answer in turn; the first of each step is off-schema.
	answers := []map[string]any{
		{"email": "ada@example.com", "plan": "gold"},
		{"email": "ada@example.com", "plan": "team"},
		{"team_name": "Analytical", "seats": 500},
		{"team_name": "Analytical", "seats": 5},
	}
	type ask struct {
		Message  string
		Defaults map[string]string
	}
	for _, tt := range []struct {
		name    string
		sending bool
		want    []ask
		wantErr string
	}{
		{"receiving side only: the call ends", false, []ask{{"Create your account", map[string]string{}}},
			"elicitation result content does not match requested schema"},
		{"both sides: asked again", true, []ask{
			{"Create your account", map[string]string{}},
			{"Create your account\n\nPlease check: Plan: not one of the options.", map[string]string{"email": `"ada@example.com"`}},
			{"Set up your team", map[string]string{}},
			{"Set up your team\n\nPlease check: Seats: greater than the maximum 50.", map[string]string{"team_name": `"Analytical"`}},
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			installLegacy(server, LegacyRounds, tt.sending)
			var asked []ask
			cs := uncheckedClient(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				var s struct {
					Properties map[string]struct {
						Default json.RawMessage `json:"default"`
					} `json:"properties"`
				}
				b, _ := json.Marshal(req.Params.RequestedSchema)
				require.NoError(t, json.Unmarshal(b, &s))
				defaults := map[string]string{}
				for name, p := range s.Properties {
					if p.Default != nil {
						defaults[name] = string(p.Default)
					}
				}
				asked = append(asked, ask{req.Params.Message, defaults})
				return &mcp.ElicitResult{Action: "accept", Content: answers[len(asked)-1]}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			assert.Equal(t, tt.want, asked)
			if tt.wantErr != "" {
				var jerr *jsonrpc.Error
				require.True(t, errors.As(err, &jerr), "want a JSON-RPC error, got %v", err)
				assert.Equal(t, int64(0), jerr.Code)
				assert.Contains(t, jerr.Message, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, `done {"email":"ada@example.com","plan":"team","seats":5,"team_name":"Analytical"}`, text(t, res))
		})
	}
}

// TestLegacyReaskGivesUp: a client that keeps sending the refused value is
// asked MaxRounds times in all, then the call ends with an error that
// names the problem.
func TestLegacyReaskGivesUp(t *testing.T) {
	fields := []AutoFormField{{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}}}
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "pick", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a, ok := AcceptedFormInput(req.Params.InputResponses, DefaultInputKey, fields); ok {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a["plan"].(string)}}}, nil
			}
			return FormInputRequest(fields, nil)
		})
	installLegacy(server, NewLegacyRounds(&LegacyOptions{MaxRounds: 3}), true)
	asked := 0
	cs := uncheckedClient(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"plan": "gold"}}, nil
	})
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pick"})
	require.Error(t, err)
	assert.Equal(t, 3, asked)
	assert.Contains(t, err.Error(), "Plan: not one of the options")
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
			installLegacy(server, LegacyRounds, true)
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
	installLegacy(server, LegacyRounds, true)
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
// that walked away, or a transport that drops them.
type rawClient struct {
	conn    mcp.Connection
	mu      sync.Mutex
	replies map[string]*jsonrpc.Response
	asked   int
}

func newRawClient(t *testing.T, server *mcp.Server) *rawClient {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{conn: conn, replies: map[string]*jsonrpc.Response{}}
	go func() {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			c.mu.Lock()
			switch m := msg.(type) {
			case *jsonrpc.Response:
				c.replies[fmt.Sprint(m.ID.Raw())] = m
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

func (c *rawClient) send(t *testing.T, id, method, params string) {
	t.Helper()
	rid, err := jsonrpc.MakeID(id)
	require.NoError(t, err)
	require.NoError(t, c.conn.Write(context.Background(), &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}))
}

func (c *rawClient) reply(id string) *jsonrpc.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replies[id]
}

func (c *rawClient) counts() (asked, replies int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked, len(c.replies)
}

// TestLegacyAbandoned: calls whose client never answers the elicitation
// end at the deadline, and leave the goroutine count where it was. With
// LegacyRounds on the receiving side only, go-sdk's bridge waits for good.
func TestLegacyAbandoned(t *testing.T) {
	const n = 20
	const timeout = 100 * time.Millisecond
	fields := []AutoFormField{{Name: "name", Required: true}}
	for _, tt := range []struct {
		name    string
		sending bool
	}{{"both sides: freed", true}, {"receiving side only: held", false}} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return FormInputRequest(fields, nil)
				})
			installLegacy(server, NewLegacyRounds(&LegacyOptions{Timeout: timeout}), tt.sending)
			c := newRawClient(t, server)
			time.Sleep(10 * time.Millisecond) // let the session's goroutines settle
			before := runtime.NumGoroutine()

			for i := range n {
				c.send(t, fmt.Sprint(i), "tools/call", `{"name":"ask","arguments":{}}`)
			}
			require.Eventually(t, func() bool { asked, _ := c.counts(); return asked == n }, 5*time.Second, time.Millisecond)
			assert.GreaterOrEqual(t, runtime.NumGoroutine(), before+n, "each waiting call holds goroutines")

			if !tt.sending {
				time.Sleep(5 * timeout)
				_, replies := c.counts()
				assert.Equal(t, 1, replies, "only initialize is answered: the calls wait for good")
				return // the cleanup closes the session, which frees them
			}
			require.Eventually(t, func() bool { _, replies := c.counts(); return replies == n+1 }, 5*time.Second, time.Millisecond)
			for i := range n {
				r := c.reply(fmt.Sprint(i))
				var jerr *jsonrpc.Error
				require.True(t, errors.As(r.Error, &jerr), "call %d: want a JSON-RPC error, got %v", i, r.Error)
				assert.Contains(t, jerr.Message, "did not answer within 100ms")
			}
			// Polled here, not with assert.Eventually, which counts
			// goroutines of its own.
			now := runtime.NumGoroutine()
			for end := time.Now().Add(5 * time.Second); now > before && time.Now().Before(end); now = runtime.NumGoroutine() {
				time.Sleep(5 * time.Millisecond)
			}
			if now > before {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutines: %d before the calls, %d after:\n%s", before, now, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

func TestLegacyProblems(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"email":{"type":"string","title":"Email","format":"email"},
		"plan":{"type":"string","title":"Plan","oneOf":[{"const":"pro","title":"Pro"},{"const":"team","title":"Team"}]},
		"seats":{"type":"integer","minimum":1,"maximum":50},
		"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b"]},"maxItems":1},
		"code":{"type":"string","title":"Code","pattern":"^[A-Z]+$"},
		"ok":{"type":"boolean","title":"OK"}
	},"required":["email","seats"]}`
	for _, tt := range []struct {
		name     string
		content  string
		want     string
		wantGood map[string]any
	}{
		{"choice", `{"email":"a@b.c","seats":2,"plan":"gold"}`, "Please check: Plan: not one of the options.",
			map[string]any{"email": "a@b.c", "seats": 2.0}},
		{"missing and out of range", `{"seats":51}`, "Please check: Email: missing required value; Seats: greater than the maximum 50.",
			map[string]any{}},
		{"wrong types", `{"email":"a@b.c","seats":"2","ok":"yes"}`, "Please check: Seats: not a number; OK: not a boolean.",
			map[string]any{"email": "a@b.c"}},
		{"a multiple choice", `{"email":"a@b.c","seats":1,"tags":["a","b"]}`, "Please check: Tags: more than 1 choices.",
			map[string]any{"email": "a@b.c", "seats": 1.0}},
		{"a keyword mcpform fields lack", `{"email":"a@b.c","seats":1,"code":"abc"}`, "Please check: Code: not a valid answer.",
			map[string]any{"email": "a@b.c", "seats": 1.0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, r := elicitSchema(json.RawMessage(schema))
			require.NotNil(t, s)
			var content map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.content), &content))
			require.Error(t, r.Validate(content), "the case must be one go-sdk refuses")
			got, good := legacyProblems(s, content)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantGood, good)
		})
	}

	// Refused as a whole, with every property fine on its own.
	s, r := elicitSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`))
	content := map[string]any{"a": "x", "b": "y"}
	require.Error(t, r.Validate(content))
	got, _ := legacyProblems(s, content)
	assert.Equal(t, "Please check: the answer does not match the form.", got)
}

// BenchmarkLegacyCall is a whole one-round tool call from a 2025-11-25
// client over go-sdk in memory, with go-sdk's bridge alone and with
// LegacyRounds on both sides, whose sending side reads, checks and bounds
// the elicitation: the cost of that, against the bridge in the same run.
func BenchmarkLegacyCall(b *testing.B) {
	form, err := NewForm[Answers](labelledFields, nil)
	require.NoError(b, err)
	for _, bb := range []struct {
		name   string
		legacy bool
	}{{"bridge", false}, {"LegacyRounds", true}} {
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
				installLegacy(server, LegacyRounds, true)
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
