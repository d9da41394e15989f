package mcpform_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// signupFields is the field list the examples share.
var signupFields = []mcpform.AutoFormField{
	{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
	{Name: "plan", Label: "Plan", Required: true, Options: []mcpform.Option{
		{Value: "free", Label: "Free"}, {Value: "pro", Label: "Pro"},
	}},
	{Name: "seats", Type: mcpform.TypeInteger, Min: mcpform.Bound(1), Max: mcpform.Bound(50), Default: 1},
}

// This is the write-once handler: it reads the answer first, asks only when
// there is none, and finishes once the answer is in. The same code serves
// every round, and clients older than 2026-07-28 too, for which go-sdk
// sends elicitation/create itself.
func Example() {
	signup := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		responses := req.Params.InputResponses
		if answers, ok := mcpform.AcceptedFormInput(responses, "signup", signupFields); ok {
			var in struct {
				Email string `json:"email"`
				Plan  string `json:"plan"`
				Seats int    `json:"seats"`
			}
			if err := answers.Decode(&in); err != nil {
				return nil, err
			}
			msg := fmt.Sprintf("Created %s on %s with %d seat(s)", in.Email, in.Plan, max(in.Seats, 1))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
		}
		if r := mcpform.InputResponse(responses, "signup"); r != nil && r.Action != "accept" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Signup not completed."}}}, nil
		}
		return mcpform.FormInputRequest(signupFields, &mcpform.InputRequestOptions{
			Key:     "signup",
			Message: "Create your account",
		})
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, signup)

	// A client whose person fills in the form.
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				"email": "ada@example.com", "plan": "pro", "seats": 3,
			}}, nil
		},
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Create your account
	// Created ada@example.com on pro with 3 seat(s)
}

func ExampleFormSchema() {
	s, err := mcpform.FormSchema([]mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "first_name", Max: mcpform.Bound(40)},
	})
	if err != nil {
		log.Fatal(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(s)
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "email": {
	//       "type": "string",
	//       "title": "Email",
	//       "format": "email"
	//     },
	//     "first_name": {
	//       "type": "string",
	//       "title": "First Name",
	//       "maxLength": 40
	//     }
	//   },
	//   "required": [
	//     "email"
	//   ]
	// }
}

func ExampleFormSchema_brokenDefinition() {
	_, err := mcpform.FormSchema([]mcpform.AutoFormField{
		{Name: "age", Type: mcpform.TypeInteger, Min: mcpform.Bound(18), Default: 16},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, mcpform.ErrDefault))
	// Output:
	// mcpform: field "age": invalid default: less than the minimum 18
	// true
}

func ExampleFormInputRequest() {
	res, err := mcpform.FormInputRequest(signupFields, &mcpform.InputRequestOptions{
		Key:     "signup",
		Message: "Create your account",
	})
	if err != nil {
		log.Fatal(err)
	}
	p := res.InputRequests["signup"].(*mcp.ElicitParams)
	fmt.Println(p.Mode, "-", p.Message)
	fmt.Println(p.RequestedSchema.(*jsonschema.Schema).PropertyOrder)
	// Output:
	// form - Create your account
	// [email plan seats]
}

func ExampleInputResponse() {
	responses := mcp.InputResponseMap{"signup": &mcp.ElicitResult{Action: "decline"}}
	if _, ok := mcpform.AcceptedFormInput(responses, "signup", signupFields); !ok {
		// Not accepted: a first pass, or a refusal? Only the raw answer says.
		if r := mcpform.InputResponse(responses, "signup"); r != nil {
			fmt.Println("the person chose to", r.Action)
		}
	}
	// Output:
	// the person chose to decline
}

func ExampleAcceptedFormInput() {
	// What came back from the client: untrusted.
	responses := mcp.InputResponseMap{"signup": &mcp.ElicitResult{
		Action: "accept",
		Content: map[string]any{
			"email":   "ada@example.com",
			"plan":    "pro",
			"seats":   500.0, // out of bounds: dropped
			"isAdmin": true,  // not a field: dropped
		},
	}}
	answers, ok := mcpform.AcceptedFormInput(responses, "signup", signupFields)
	fmt.Println(ok, answers)
	// Output:
	// true map[email:ada@example.com plan:pro]
}

func ExampleCheckFormInput() {
	responses := mcp.InputResponseMap{"signup": &mcp.ElicitResult{
		Action:  "accept",
		Content: map[string]any{"email": "ada at example", "plan": "pro", "seats": 2.5},
	}}
	answers, problems := mcpform.CheckFormInput(responses, "signup", signupFields)
	fmt.Println("accepted:", answers != nil)
	for _, p := range problems {
		fmt.Printf("%s: %v\n", p.Field, p.Err)
	}
	// Output:
	// accepted: false
	// email: invalid value: not a valid email address
	// seats: invalid value: not an integer
}

func ExampleAnswers_Decode() {
	answers := mcpform.Answers{"email": "ada@example.com", "seats": 3.0, "tags": []any{"ai", "web"}}
	var signup struct {
		Email string   `json:"email"`
		Seats int      `json:"seats"`
		Tags  []string `json:"tags"`
	}
	if err := answers.Decode(&signup); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", signup)
	// Output:
	// {Email:ada@example.com Seats:3 Tags:[ai web]}
}

func ExampleBound() {
	f := mcpform.AutoFormField{Name: "age", Type: mcpform.TypeInteger, Min: mcpform.Bound(18)}
	fmt.Println(*f.Min)
	// Output:
	// 18
}

func ExampleNewFlow() {
	_, err := mcpform.NewFlow([]mcpform.Step{
		{Key: "account", Fields: []mcpform.AutoFormField{{Name: "email", Type: mcpform.TypeEmail}}},
		{Key: "account", Fields: []mcpform.AutoFormField{{Name: "team_name"}}},
	}, nil)
	fmt.Println(err)
	// Output:
	// mcpform: flow step key "account" is used twice
}

// A team plan takes a second round; the first round's answers travel in
// signed state, and a client that resends them changed changes nothing.
func ExampleFlow_Next() {
	flow, err := mcpform.NewFlow([]mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Type: mcpform.TypeEmail, Required: true},
			{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro"}, {Value: "team"}}},
		}},
		{Key: "team", Message: "Name your team", Fields: []mcpform.AutoFormField{
			{Name: "team_name", Required: true},
		}, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
	})
	if err != nil {
		log.Fatal(err)
	}

	// round runs one call of the tool, as go-sdk would deliver it.
	round := func(state string, responses mcp.InputResponseMap) *mcpform.FlowRound {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			Name: "signup", RequestState: state, InputResponses: responses,
		}}
		r, err := flow.Next(req, codec, "user-42")
		if err != nil {
			log.Fatal(err)
		}
		if r.Step != "" {
			fmt.Println(r.Status, r.Step)
		} else {
			fmt.Println(r.Status)
		}
		return r
	}
	r := round("", nil)
	r = round(r.Result.RequestState, mcp.InputResponseMap{
		"account": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "team"}},
	})
	r = round(r.Result.RequestState, mcp.InputResponseMap{
		"account": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "mallory@example.com", "plan": "team"}},
		"team":    &mcp.ElicitResult{Action: "accept", Content: map[string]any{"team_name": "Analytical Engines"}},
	})
	fmt.Println(r.Answers)
	// Output:
	// ask account
	// ask team
	// done
	// map[email:ada@example.com plan:team team_name:Analytical Engines]
}

func ExampleProblemMessage() {
	fields := []mcpform.AutoFormField{{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true}}
	responses := mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada"}}}
	_, problems := mcpform.CheckFormInput(responses, "form", fields)
	fmt.Println(mcpform.ProblemMessage(fields, problems))
	// Output:
	// Please check: Email: not a valid email address.
}

func ExampleFlowStatus_String() {
	fmt.Println(mcpform.FlowDone, mcpform.FlowDeclined)
	// Output:
	// done declined
}

// exampleKey stands in for a secret of at least 32 random bytes, such as
// one read from crypto/rand once and kept in a secret store.
var exampleKey = []byte("an example key, 32 bytes or more")

// exampleClock fixes the time so that the examples' output is stable; leave
// Now nil in real code.
func exampleClock() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }

func ExampleNewRequestStateCodec() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		TTL:  5 * time.Minute,
		Bind: true,
		Now:  exampleClock,
	})
	if err != nil {
		log.Fatal(err)
	}
	bind := mcpform.BindTo("user-42", "signup")
	token, err := codec.Mint(map[string]int{"step": 2}, bind)
	if err != nil {
		log.Fatal(err)
	}
	var state map[string]int
	if err := codec.Verify(token, bind, &state); err != nil {
		log.Fatal(err)
	}
	fmt.Println(state["step"])
	// Output:
	// 2
}

// Rotating keys: mint with the new key first in the list, keep verifying
// tokens of the old one until they have expired, then drop it.
func ExampleNewRequestStateCodec_rotation() {
	oldKey := exampleKey
	newKey := []byte("the next key, also 32 bytes long")
	before, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{oldKey}, Now: exampleClock})
	during, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{newKey, oldKey}, Now: exampleClock})
	after, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{newKey}, Now: exampleClock})

	token, _ := before.Mint("minted before the rotation", "")
	fmt.Println(during.Verify(token, "", nil))
	fmt.Println(errors.Is(after.Verify(token, "", nil), mcpform.ErrMAC))
	// Output:
	// <nil>
	// true
}

func ExampleRequestStateCodec_Mint() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Now: exampleClock})
	if err != nil {
		log.Fatal(err)
	}
	token, err := codec.Mint(map[string]any{"step": 2, "name": "Ada"}, "")
	if err != nil {
		log.Fatal(err)
	}
	// The body is signed, not encrypted: anyone can read it.
	parts := strings.Split(token, ".")
	body, _ := base64.RawURLEncoding.DecodeString(parts[1])
	fmt.Println(parts[0])
	fmt.Println(string(body))
	fmt.Println(len(parts[2]), "characters of MAC")
	// Output:
	// v1
	// {"p":{"name":"Ada","step":2},"exp":1767269400}
	// 43 characters of MAC
}

func ExampleRequestStateCodec_Verify() {
	now := exampleClock()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
		Now:  func() time.Time { return now },
	})
	if err != nil {
		log.Fatal(err)
	}
	alice := mcpform.BindTo("alice", "signup")
	token, err := codec.Mint(struct{ Step int }{Step: 2}, alice)
	if err != nil {
		log.Fatal(err)
	}

	var state struct{ Step int }
	fmt.Println(codec.Verify(token, alice, &state), state.Step)

	tampered := strings.Replace(token, ".", ".x", 1)
	fmt.Println(errors.Is(codec.Verify(tampered, alice, nil), mcpform.ErrMAC))

	bob := mcpform.BindTo("bob", "signup")
	fmt.Println(errors.Is(codec.Verify(token, bob, nil), mcpform.ErrBind))

	now = now.Add(10*time.Minute + time.Second)
	fmt.Println(errors.Is(codec.Verify(token, alice, nil), mcpform.ErrExpired))
	// Output:
	// <nil> 2
	// true
	// true
	// true
}

// A tool handler verifies the requestState of a retried call and, when it
// fails, returns RequestStateError's result as it is, so that the client
// gets a JSON-RPC error rather than an isError result.
func ExampleRequestStateError() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
		Now:  exampleClock,
	})
	if err != nil {
		log.Fatal(err)
	}
	type signupState struct {
		Step int `json:"step"`
	}
	// principal is who the server authenticated, never a value from the
	// client's request.
	principal := func(req *mcp.CallToolRequest) string {
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			return req.Extra.TokenInfo.UserID
		}
		return "anonymous"
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "signup", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "signup"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		bind := mcpform.BindTo(principal(req), req.Params.Name)
		var state signupState
		if err := codec.Verify(req.Params.RequestState, bind, &state); err != nil {
			return nil, nil, mcpform.RequestStateError(err) // not wrapped
		}
		text := fmt.Sprintf("resuming at step %d", state.Step)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})

	ctx := context.Background()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer serverSession.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	// An earlier round minted this state and returned it to the client.
	state, err := codec.Mint(signupState{Step: 2}, mcpform.BindTo("anonymous", "signup"))
	if err != nil {
		log.Fatal(err)
	}
	for _, requestState := range []string{state, strings.Replace(state, ".", ".x", 1)} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "signup", RequestState: requestState})
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			fmt.Println(wire.Code, wire.Message, string(wire.Data))
			continue
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// resuming at step 2
	// -32602 Invalid or expired requestState {"reason":"invalid_request_state"}
}

func ExampleBindTo() {
	fmt.Println(mcpform.BindTo("alice", "signup"))
	fmt.Println(mcpform.BindTo("a", "bc") == mcpform.BindTo("ab", "c"))
	// Output:
	// 5:alice6:signup
	// false
}

func ExampleKeySizeError() {
	_, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{[]byte("too short")}})
	var kse mcpform.KeySizeError
	if errors.As(err, &kse) {
		fmt.Println(kse.Index, kse.Size)
		fmt.Println(err)
	}
	// Output:
	// 0 9
	// mcpform: request-state key 0 has 9 bytes; want at least 32
}
