package mcpgo_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"golang.org/x/text/language"
	_ "modernc.org/sqlite"
)

// A Room is what the examples' form asks.
type Room struct {
	Room  string `json:"room" mcpform:"label=Room,options=a:Attic|b:Basement"`
	Seats int    `json:"seats" mcpform:"label=Seats,min=1,max=8"`
}

// modernCall is a tool call on 2026-07-28 from a client that declared form
// elicitation, answering under key with content (none when nil).
func modernCall(state, key string, content map[string]any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = "book"
	req.Params.RequestState = state
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}}
	if content != nil {
		req.Params.InputResponses = mcp.InputResponses{key: mcp.NewElicitationInputResponse(mcp.ElicitationResult{
			ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}})}
	}
	return req
}

func ExampleAsk() {
	form, _ := mcpform.FormFor[Room](&mcpform.FormOptions{Key: "booking", Message: "Book a room"})
	res, err := mcpgo.Ask(context.Background(), form, modernCall("", "", nil), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	e := res.InputRequests["booking"].Elicitation
	schema, _ := json.Marshal(e.RequestedSchema)
	fmt.Println(res.ResultType, e.Message)
	fmt.Println(string(schema))

	// A client that declared no elicitation is not asked.
	var bare mcp.CallToolRequest
	bare.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{}}}
	_, err = mcpgo.Ask(context.Background(), form, bare, "")
	fmt.Println(err)
	// Output:
	// input_required Book a room
	// {"type":"object","properties":{"room":{"type":"string","title":"Room","oneOf":[{"title":"Attic","const":"a"},{"title":"Basement","const":"b"}]},"seats":{"type":"integer","title":"Seats","minimum":1,"maximum":8}},"required":["room","seats"]}
	// missing required client capabilities: {"requiredCapabilities":{"elicitation":{"form":{}}}}
}

func ExampleRead() {
	form, _ := mcpform.FormFor[Room](&mcpform.FormOptions{Key: "booking"})
	reply := mcpgo.Read(form, modernCall("", "booking", map[string]any{"room": "a", "seats": 2.0}))
	fmt.Println(reply.Status, reply.Value.Room, reply.Value.Seats)
	reply = mcpgo.Read(form, modernCall("", "booking", map[string]any{"room": "c", "seats": 2.0}))
	fmt.Println(reply.Status, reply.Problems)
	// Output:
	// accepted a 2
	// invalid [mcpform: field "room": invalid value: not one of the options]
}

func ExampleReask() {
	form, _ := mcpform.FormFor[Room](&mcpform.FormOptions{Key: "booking", Message: "Book a room"})
	reply := mcpgo.Read(form, modernCall("", "booking", map[string]any{"room": "a", "seats": 9.0}))
	res := mcpgo.Reask(form, reply, "")
	e := res.InputRequests["booking"].Elicitation
	var schema struct {
		Properties map[string]struct{ Default any }
	}
	b, _ := json.Marshal(e.RequestedSchema)
	_ = json.Unmarshal(b, &schema)
	fmt.Println(e.Message)
	fmt.Println("room pre-filled:", schema.Properties["room"].Default)
	// Output:
	// Book a room
	//
	// Seats must be from 1 to 8.
	// room pre-filled: a
}

// ExampleReadCall asks a form with a Codec on a client that answers no
// elicitation: through the model, which calls the tool again with the
// answers and the state it was given, and ReadCall reads them there.
func ExampleReadCall() {
	codec, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("an example key of 32 bytes, or more")}, Bind: true})
	form, _ := mcpform.FormFor[Room](&mcpform.FormOptions{Key: "booking", Message: "Book a room",
		Codec: codec, EveryCallerIsSamePerson: true, AskModel: true})
	ctx := context.Background()
	var req mcp.CallToolRequest
	req.Params.Name = "book"
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{}}}
	fmt.Println(mcpgo.ReadCall(ctx, form, req).Status)
	res, _ := mcpgo.Ask(ctx, form, req, "")
	var ask struct{ Arguments map[string]any }
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &ask)

	// The model's call: the arguments it was given, plus the answers.
	req.Params.Arguments = map[string]any{"mcpform": ask.Arguments["mcpform"], "room": "b", "seats": 3}
	reply := mcpgo.ReadCall(ctx, form, req)
	fmt.Println(reply.Status, reply.Path, reply.Value.Room, reply.Value.Seats)
	// Output:
	// none
	// accepted model b 3
}

type userKey struct{}

func ExampleNext() {
	codec, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("an example key of 32 bytes, or more")}, Bind: true})
	flow, _ := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "plan", Fields: []mcpform.AutoFormField{{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro"}, {Value: "team"}}}}},
		{Key: "team", When: func(a mcpform.Answers) bool { return a["plan"] == "team" },
			Fields: []mcpform.AutoFormField{{Name: "seats", Type: mcpform.TypeInteger, Required: true}}},
	}, &mcpform.FlowOptions{
		// Who the server's auth put in the handler's context.
		ContextPrincipal: func(ctx context.Context) string { s, _ := ctx.Value(userKey{}).(string); return s },
	})
	ctx := context.WithValue(context.Background(), userKey{}, "alice")

	r, _ := mcpgo.Next(ctx, flow, modernCall("", "", nil))
	fmt.Println(r.Status, r.Step)
	r, _ = mcpgo.Next(ctx, flow, modernCall(r.Result.RequestState, "plan", map[string]any{"plan": "team"}))
	fmt.Println(r.Status, r.Step)
	r, _ = mcpgo.Next(ctx, flow, modernCall(r.Result.RequestState, "team", map[string]any{"seats": 5.0}))
	fmt.Println(r.Status, r.Answers["plan"], r.Answers["seats"])
	// Output:
	// ask plan
	// ask team
	// done team 5
}

func ExampleFlowRound_Once() {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // each connection to :memory: is a database of its own
	store, err := mcpform.NewSQLStore(db, nil)
	if err != nil {
		log.Fatal(err)
	}
	codec, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("an example key of 32 bytes, or more")}, Bind: true})
	flow, _ := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "plan", Fields: []mcpform.AutoFormField{{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro"}, {Value: "team"}}}}},
	}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, Outcomes: store})
	created := 0
	handle := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		round, err := mcpgo.Next(ctx, flow, req)
		if err != nil { // a forged or expired state: round is nil
			return nil, err
		}
		if round.Status == mcpform.FlowAsk {
			return round.Result, nil
		}
		return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			if round.Status != mcpform.FlowDone {
				return mcp.NewToolResultText(round.Status.String()), nil
			}
			created++ // create the account: once per run
			return mcp.NewToolResultText(fmt.Sprintf("created, plan %v", round.Answers["plan"])), nil
		})
	}
	ctx := context.Background()
	first, _ := handle(ctx, modernCall("", "", nil))
	for _, plan := range []string{"team", "pro"} { // the last round, then a replay of it
		res, err := handle(ctx, modernCall(first.RequestState, "plan", map[string]any{"plan": plan}))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	fmt.Println("accounts created:", created)
	_, err = handle(ctx, modernCall("s1.forged", "plan", map[string]any{"plan": "pro"}))
	fmt.Println("forged state refused:", errors.Is(err, mcpform.ErrMalformed))
	// Output:
	// created, plan team
	// created, plan team
	// accounts created: 1
	// forged state refused: true
}

// bookServer is an mcp-go server whose "book" tool asks for a Room.
func bookServer() *server.MCPServer {
	form, _ := mcpform.FormFor[Room](&mcpform.FormOptions{Key: "booking", Message: "Book a room"})
	srv := server.NewMCPServer("booking", "v1")
	srv.AddTool(mcp.NewTool("book"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch reply := mcpgo.Read(form, req); reply.Status {
		case mcpform.ReplyNone:
			return mcpgo.Ask(ctx, form, req, "")
		case mcpform.ReplyInvalid:
			return mcpgo.Reask(form, reply, ""), nil
		}
		return mcp.NewToolResultText("booked"), nil
	})
	return srv
}

// bareCall is a 2026-07-28 tools/call of "book" from a client that
// declared no elicitation.
var bareCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bare","version":"v0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}}}`

// Ask's and Next's errors reach the client with the spec's codes over
// mcp-go's own stdio server.
func Example_stdio() {
	// A program serves os.Stdin and os.Stdout with server.ServeStdio(srv);
	// here a client on two pipes sends one call and reads its answer.
	// It hangs up only then: mcp-go cancels the calls still running when
	// its input ends, so a client that closes first may get no answer.
	inR, in := io.Pipe()
	out, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- server.NewStdioServer(bookServer()).Listen(context.Background(), inR, outW) }()
	if _, err := io.WriteString(in, bareCall+"\n"); err != nil {
		log.Fatal(err)
	}
	answer, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(answer)
	in.Close()
	if err := <-served; err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capabilities","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}
}

// Ask's and Next's errors reach the client with the spec's codes over
// mcp-go's own streamable HTTP server, on 2026-07-28 with the HTTP status
// the code maps to.
func Example_streamableHTTP() {
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(bookServer()))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(bareCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	for k, v := range mcp.StandardHeaders("2026-07-28", mcp.MethodToolsCall, json.RawMessage(`{"name":"book"}`)) {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Print(res.StatusCode, " ", string(body))
	// Output:
	// 400 {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capabilities","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}
}

// A flow's tool on a server that renders MCP Apps: the viewer resource
// and its app-only companion, and the tool linked to the viewer. On a host
// without form elicitation, Next then shows each step in a view.
func ExampleAddViewer() {
	srv := server.NewMCPServer("booking", "v1",
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))
	if err := mcpgo.AddViewer(srv, nil); err != nil {
		log.Fatal(err)
	}
	companion := srv.GetTool("mcpform_view_submit").Tool.Meta.AdditionalFields["ui"]
	fmt.Println(companion)
	// Output: map[resourceUri:ui://mcpform/viewer visibility:[app]]
}

func ExampleAttachViewer() {
	tool := mcp.NewTool("book")
	if err := mcpgo.AttachViewer(&tool, nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(tool.Meta.AdditionalFields["ui"])
	// Output: map[resourceUri:ui://mcpform/viewer]
}

func ExampleContentLanguage() {
	res := mcp.NewToolResultText("Contraseña cambiada.")
	mcpgo.ContentLanguage(res, language.Spanish) // a FlowRound's Language, in a handler
	fmt.Println(res.Meta.AdditionalFields["io.modelcontextprotocol/contentLanguage"])
	// Output:
	// es
}
