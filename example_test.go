package mcpform_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
	_ "modernc.org/sqlite" // the examples' database: the library imports no driver
)

// signupFields is the field list the examples share.
var signupFields = []mcpform.AutoFormField{
	{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
	{Name: "plan", Label: "Plan", Required: true, Options: []mcpform.Option{
		{Value: "free", Label: "Free"}, {Value: "pro", Label: "Pro"},
	}},
	{Name: "seats", Type: mcpform.TypeInteger, Min: mcpform.Bound(1), Max: mcpform.Bound(50), Default: 1},
}

// Signup is what the signup form's answers decode into. FormFor derives
// the form from it: names from the json tags, required unless omitempty,
// and the rest from the mcpform tags.
type Signup struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	Plan  string `json:"plan" mcpform:"label=Plan,options=free:Free|pro:Pro ($12 a month)"`
	Seats int    `json:"seats,omitempty" mcpform:"label=Seats,min=1,max=50,default=1"`
}

// signupForm is compiled once, at start-up: a broken definition fails
// here, never when an answer arrives.
var signupForm = func() *mcpform.Form[Signup] {
	f, err := mcpform.FormFor[Signup](&mcpform.FormOptions{Key: "signup", Message: "Create your account"})
	if err != nil {
		panic(err)
	}
	return f
}()

// signup is the write-once tool handler of the package example, and of
// the README, whose snippet TestREADMESnippet keeps identical to it.
func signup(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	reply := signupForm.ReadCall(req)
	switch reply.Status {
	case mcpform.ReplyNone: // the first call: ask, in the way the client can answer
		return signupForm.Ask(req, "")
	case mcpform.ReplyInvalid: // ask again, naming the problems, keeping the good answers
		return signupForm.Reask(reply, ""), nil
	case mcpform.ReplyAccepted:
		in := reply.Value
		msg := fmt.Sprintf("Created %s on %s with %d seat(s)", in.Email, in.Plan, max(in.Seats, 1))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Signup not completed."}}}, nil
}

// This is the write-once handler: it reads the answer first, asks only when
// there is none, asks again naming the problems when an answer is refused,
// and finishes once the answer is in. The same code serves every round, and
// clients older than 2026-07-28 too, for which go-sdk sends
// elicitation/create itself.
func Example() {
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, signup)

	// A client whose person fills in the form.
	// A client whose person fills in the form: a typo first, then the
	// right address.
	emails := []string{"ada.example.com", "ada@example.com"}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Printf("asked: %q\n", req.Params.Message)
			email := emails[0]
			emails = emails[1:]
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				"email": email, "plan": "pro", "seats": 3,
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
	// asked: "Create your account"
	// asked: "Create your account\n\nEmail must be an email address, like name@example.com."
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
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Bind: true})
	if err != nil {
		log.Fatal(err)
	}
	_, err = mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Fields: []mcpform.AutoFormField{{Name: "email", Type: mcpform.TypeEmail}}},
		{Key: "account", Fields: []mcpform.AutoFormField{{Name: "team_name"}}},
	}, nil)
	fmt.Println(err)
	// Output:
	// mcpform: flow step key "account" is used twice
}

// A team plan takes a second round; the first round's answers travel in
// sealed state, and a client that resends them changed changes nothing.
func ExampleFlow_Next() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Type: mcpform.TypeEmail, Required: true},
			{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro"}, {Value: "team"}}},
		}},
		{Key: "team", Message: "Name your team", Fields: []mcpform.AutoFormField{
			{Name: "team_name", Required: true},
		}, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &mcpform.FlowOptions{
		// Behind auth, the principal is the bearer token's user.
		Principal: func(req *mcp.CallToolRequest) string { return req.Extra.TokenInfo.UserID },
	})
	if err != nil {
		log.Fatal(err)
	}

	// round runs one call of the tool, as go-sdk would deliver it.
	round := func(state string, responses mcp.InputResponseMap) *mcpform.FlowRound {
		req := &mcp.CallToolRequest{
			Params: &mcp.CallToolParamsRaw{
				Meta: exampleFormClient, Name: "signup", RequestState: state, InputResponses: responses,
			},
			Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "user-42"}},
		}
		r, err := flow.Next(context.Background(), req)
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
	// Email must be an email address, like name@example.com.
}

func ExampleFlowStatus_String() {
	fmt.Println(mcpform.FlowDone, mcpform.FlowDeclined)
	// Output:
	// done declined
}

// exampleFormClient is the _meta of a 2026-07-28 request from a client that
// declared form elicitation, as go-sdk's client sends it.
var exampleFormClient = mcp.Meta{
	mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
}

// exampleCodec is a binding codec under exampleKey, as flows need.
func exampleCodec() *mcpform.RequestStateCodec {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Bind: true})
	if err != nil {
		log.Fatal(err)
	}
	return codec
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

// Rotating keys across replicas, in three rolling deploys: the new key
// verifies everywhere before anything mints with it, and the old one
// verifies until what it minted has expired.
func ExampleNewRequestStateCodec_rotation() {
	oldKey := exampleKey
	newKey := []byte("the next key, also 32 bytes long")
	codec := func(keys, verifyOnly []byte) *mcpform.RequestStateCodec {
		opts := mcpform.RequestStateOptions{Keys: [][]byte{keys}, Now: exampleClock}
		if verifyOnly != nil {
			opts.VerifyKeys = [][]byte{verifyOnly}
		}
		c, err := mcpform.NewRequestStateCodec(opts)
		if err != nil {
			log.Fatal(err)
		}
		return c
	}
	step1 := codec(oldKey, newKey) // everywhere, before step 2 begins
	step2 := codec(newKey, oldKey) // everywhere, before step 3 begins
	step3 := codec(newKey, nil)    // twice the TTL after step 2 ended

	promoted, _ := step2.Mint("minted by a replica on step 2", "")
	fmt.Println(step1.Verify(promoted, "", nil)) // a replica not yet promoted
	old, _ := step1.Mint("minted by a replica on step 1", "")
	fmt.Println(step2.Verify(old, "", nil))
	fmt.Println(errors.Is(step3.Verify(old, "", nil), mcpform.ErrMAC))
	// Output:
	// <nil>
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

// A sealing codec encrypts the payload too: whoever holds the token reads
// nothing of it. A token bound elsewhere does not open, and fails as an
// altered one does.
func ExampleRequestStateOptions_seal() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
		Seal: true,
		Now:  exampleClock,
	})
	if err != nil {
		log.Fatal(err)
	}
	alice := mcpform.BindTo("alice", "signup")
	token, err := codec.Mint(map[string]any{"step": 2, "name": "Ada"}, alice)
	if err != nil {
		log.Fatal(err)
	}
	body, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, "s1."))
	fmt.Println(strings.HasPrefix(token, "s1."), bytes.Contains(body, []byte("Ada")))

	var state struct{ Name string }
	fmt.Println(codec.Verify(token, alice, &state), state.Name)
	fmt.Println(errors.Is(codec.Verify(token, mcpform.BindTo("bob", "signup"), nil), mcpform.ErrMAC))
	// Output:
	// true false
	// <nil> Ada
	// true
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

	now = now.Add(10*time.Minute + mcpform.RequestStateLeeway + time.Second)
	fmt.Println(errors.Is(codec.Verify(token, alice, nil), mcpform.ErrExpired))
	// Output:
	// <nil> 2
	// true
	// true
	// true
}

// A tool handler verifies the requestState of a retried call and, when it
// fails, returns RejectState's result as it is, so that the client
// gets a JSON-RPC error rather than an isError result.
func ExampleRejectState() {
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
			return nil, nil, mcpform.RejectState(err) // not wrapped
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

// subscribeFields is the field list the UI examples share.
var subscribeFields = []mcpform.AutoFormField{
	{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
	{Name: "full_name"},
	{Name: "seats", Type: mcpform.TypeInteger, Min: mcpform.Bound(1), Max: mcpform.Bound(50)},
	{Name: "newsletter", Type: mcpform.TypeCheckbox},
}

// This handler asks once, in whichever way the client can answer: a prefab
// form on a host that renders MCP Apps, whose submit calls the same tool
// with arguments, and the native input request anywhere else, answered on
// the retry. The answers are the same either way.
func Example_displayForm() {
	subscribe := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		answers, ok := mcpform.AcceptedFormArguments(req.Params.Arguments, subscribeFields)
		if !ok {
			answers, ok = mcpform.AcceptedFormInput(req.Params.InputResponses, "subscribe", subscribeFields)
		}
		if ok {
			msg := fmt.Sprintf("Subscribed %v: %v", answers["email"], answers)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
		}
		opts := &mcpform.DisplayFormOptions{Title: "Subscribe"}
		if mcpform.PathFor(req.ClientCapabilities()) != mcpform.PathView {
			opts.Elicit = &mcpform.InputRequestOptions{} // key "subscribe", message "Subscribe"
		}
		return mcpform.DisplayForm(subscribeFields, "subscribe", opts)
	}

	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "news", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	if err := mcpform.AddViewer(server, nil); err != nil {
		log.Fatal(err)
	}
	// The submit tool takes raw arguments: a browser sends numbers as text.
	tool := &mcp.Tool{Name: "subscribe", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		log.Fatal(err)
	}
	server.AddTool(tool, subscribe)

	call := func(client *mcp.Client, args any) *mcp.CallToolResult {
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
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "subscribe", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		return res
	}
	text := func(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

	// A client without MCP Apps: go-sdk asks the person natively.
	native := mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked natively:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				"email": "ada@example.com", "full_name": "Ada", "seats": 3, "newsletter": true,
			}}, nil
		},
	})
	fmt.Println(text(call(native, map[string]any{})))

	// A host that renders MCP Apps gets the form; when the person submits
	// it, the view calls the tool with what the browser sends.
	appsCaps := &mcp.ClientCapabilities{}
	appsCaps.AddExtension(mcpform.AppsExtension, map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}})
	host := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{Capabilities: appsCaps})
	form := call(host, map[string]any{})
	fmt.Println("form shown:", strings.HasPrefix(text(form), `{"$prefab":{"version":"0.3"}`))
	fmt.Println(text(call(host, map[string]any{
		"email": "ada@example.com", "fullName": "Ada", "seats": "3", "newsletter": true,
	})))
	// Output:
	// asked natively: Subscribe
	// Subscribed ada@example.com: map[email:ada@example.com full_name:Ada newsletter:true seats:3]
	// form shown: true
	// Subscribed ada@example.com: map[email:ada@example.com full_name:Ada newsletter:true seats:3]
}

func ExampleDisplayForm() {
	fields := []mcpform.AutoFormField{{Name: "newsletter", Label: "Send me the newsletter", Type: mcpform.TypeCheckbox}}
	res, err := mcpform.DisplayForm(fields, "subscribe", nil)
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, res.StructuredContent.(json.RawMessage), "", "  "); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.String())
	// Output:
	// {
	//   "$prefab": {
	//     "version": "0.3"
	//   },
	//   "view": {
	//     "type": "Div",
	//     "cssClass": "pf-app-root",
	//     "children": [
	//       {
	//         "type": "Column",
	//         "cssClass": "p-6 max-w-2xl gap-5",
	//         "children": [
	//           {
	//             "type": "Card",
	//             "children": [
	//               {
	//                 "type": "CardContent",
	//                 "cssClass": "py-4",
	//                 "children": [
	//                   {
	//                     "type": "Form",
	//                     "onSubmit": {
	//                       "action": "toolCall",
	//                       "tool": "subscribe",
	//                       "arguments": {
	//                         "newsletter": "{{ 'on' == newsletter }}"
	//                       },
	//                       "onSuccess": {
	//                         "action": "showToast",
	//                         "message": "Success!",
	//                         "variant": "success"
	//                       },
	//                       "onError": {
	//                         "action": "showToast",
	//                         "message": "Something went wrong",
	//                         "variant": "error"
	//                       }
	//                     },
	//                     "children": [
	//                       {
	//                         "type": "Column",
	//                         "cssClass": "gap-4",
	//                         "children": [
	//                           {
	//                             "type": "Checkbox",
	//                             "name": "newsletter",
	//                             "label": "Send me the newsletter"
	//                           },
	//                           {
	//                             "type": "Button",
	//                             "cssClass": "w-full",
	//                             "label": "Submit",
	//                             "variant": "default",
	//                             "size": "default",
	//                             "disabled": false,
	//                             "submit": true
	//                           }
	//                         ]
	//                       }
	//                     ]
	//                   }
	//                 ]
	//               }
	//             ]
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
}

// With Elicit set, DisplayForm asks natively, under the submit tool's name
// and with the title as the message.
func ExampleDisplayForm_elicit() {
	res, err := mcpform.DisplayForm(subscribeFields, "subscribe", &mcpform.DisplayFormOptions{
		Title:  "Subscribe",
		Elicit: &mcpform.InputRequestOptions{},
	})
	if err != nil {
		log.Fatal(err)
	}
	for key, r := range res.InputRequests {
		p := r.(*mcp.ElicitParams)
		fmt.Printf("%s: %s form %q\n", key, p.Mode, p.Message)
	}
	// Output:
	// subscribe: form form "Subscribe"
}

// The UI path refuses a name prefab's renderer could not read back; the
// native path asks for it.
func ExampleDisplayForm_refusedName() {
	fields := []mcpform.AutoFormField{{Name: "a - b"}}
	_, err := mcpform.DisplayForm(fields, "t", nil)
	fmt.Println(errors.Is(err, mcpform.ErrName))
	_, err = mcpform.DisplayForm(fields, "t", &mcpform.DisplayFormOptions{Elicit: &mcpform.InputRequestOptions{}})
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

func ExampleAcceptedFormArguments() {
	// What prefab's renderer sends for subscribeFields: text for numbers,
	// "" for an empty field, full_name camel-cased, and the checkbox as a
	// boolean.
	args := json.RawMessage(`{"email":"ada@example.com","fullName":"","seats":"3","newsletter":false}`)
	answers, ok := mcpform.AcceptedFormArguments(args, subscribeFields)
	fmt.Println(ok, answers)

	// A first call, with no arguments yet, is no answer.
	_, ok = mcpform.AcceptedFormArguments(json.RawMessage(`{}`), subscribeFields)
	fmt.Println(ok)
	// Output:
	// true map[email:ada@example.com newsletter:false seats:3]
	// false
}

func ExampleCheckFormArguments() {
	args := json.RawMessage(`{"email":"ada@example.com","seats":"500","newsletter":"maybe"}`)
	answers, problems := mcpform.CheckFormArguments(args, subscribeFields)
	fmt.Println(answers)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// map[email:ada@example.com]
	// mcpform: field "seats": invalid value: greater than the maximum 50
	// mcpform: field "newsletter": invalid value: not a boolean
}

func ExampleViewerHTML() {
	// The default viewer is one self-contained page: it loads no file.
	page, err := mcpform.ViewerHTML(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("loads a file:", strings.Contains(page, "<script src=") || strings.Contains(page, "<link rel="))

	// Given a base, it loads the renderer from there, with integrity.
	page, err = mcpform.ViewerHTML(&mcpform.ViewerOptions{BaseURL: mcpform.RendererCDNBaseURL})
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "<link") || strings.HasPrefix(line, "<script src") {
			fmt.Println(line)
		}
	}
	// Output:
	// loads a file: false
	// <link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@maxhealth.tech/prefab@0.3.13/dist/prefab.css" integrity="sha384-82lYoPMpvT84VJh1KSU76YGwLH3/DOGX3+3OZitifwuaQX/nhGFbpfOifnNiy/jb" crossorigin>
	// <script src="https://cdn.jsdelivr.net/npm/@maxhealth.tech/prefab@0.3.13/dist/renderer.auto.min.js" integrity="sha384-xq2ZsFiqOfn0D8KzIrKp1WlA+fh+9mnGlB4g0HOj4V/Br93TPM6KynZL2kV6kby+" crossorigin></script>
}

func ExampleAddViewer() {
	server := mcp.NewServer(&mcp.Implementation{Name: "news", Version: "v1"}, nil)
	if err := mcpform.AddViewer(server, nil); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpform.ViewerURI})
	if err != nil {
		log.Fatal(err)
	}
	c := res.Contents[0]
	meta, _ := json.Marshal(c.Meta)
	fmt.Println(c.URI, c.MIMEType)
	fmt.Println(string(meta))
	// Output:
	// ui://mcpform/viewer text/html;profile=mcp-app
	// {"ui":{"csp":{}}}
}

func ExampleAttachViewer() {
	tool := &mcp.Tool{Name: "subscribe", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		log.Fatal(err)
	}
	meta, _ := json.Marshal(tool.Meta)
	fmt.Println(string(meta))
	// Output:
	// {"ui":{"resourceUri":"ui://mcpform/viewer"},"ui/resourceUri":"ui://mcpform/viewer"}
}

// A booking is the typed answer of the examples below; FormFor derives its
// form from the struct tags.
type booking struct {
	Email string    `json:"email" mcpform:"type=email,label=Email"`
	Room  string    `json:"room" mcpform:"options=babbage:Babbage (6 seats)|lovelace:Lovelace (12 seats)"`
	Seats int       `json:"seats" mcpform:"min=1,max=12"`
	Day   time.Time `json:"day" mcpform:"type=date"`
	Note  *string   `json:"note"`
}

func ExampleFormFor() {
	form, err := mcpform.FormFor[booking](&mcpform.FormOptions{Key: "book", Message: "Book a room"})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range form.Fields() {
		fmt.Printf("%s %s required=%v\n", f.Name, f.Type, f.Required)
	}
	// Output:
	// email email required=true
	// room  required=true
	// seats integer required=true
	// day date required=true
	// note  required=false
}

func ExampleForm_Read() {
	form, err := mcpform.FormFor[booking](&mcpform.FormOptions{Key: "book"})
	if err != nil {
		log.Fatal(err)
	}
	// The retried call's inputResponses, as a client sends them.
	responses := mcp.InputResponseMap{"book": &mcp.ElicitResult{Action: "accept", Content: map[string]any{
		"email": "ada@example.com", "room": "babbage", "seats": 4.0, "day": "2026-08-03",
	}}}
	reply := form.Read(responses)
	fmt.Println(reply.Status)
	fmt.Println(reply.Value.Email, reply.Value.Room, reply.Value.Seats, reply.Value.Day.Format(time.RFC3339), reply.Value.Note == nil)
	// Output:
	// accepted
	// ada@example.com babbage 4 2026-08-03T00:00:00Z true
}

func ExampleForm_Reask() {
	form, err := mcpform.FormFor[booking](&mcpform.FormOptions{Key: "book", Message: "Book a room"})
	if err != nil {
		log.Fatal(err)
	}
	reply := form.Read(mcp.InputResponseMap{"book": &mcp.ElicitResult{Action: "accept", Content: map[string]any{
		"email": "ada@example.com", "room": "babbage", "seats": 40.0, "day": "2026-08-03",
	}}})
	fmt.Println(reply.Status)
	// Ask again, naming the problem; the accepted values come back as
	// defaults, so the person does not type them again.
	res := form.Reask(reply, "")
	fmt.Println(res.InputRequests["book"].(*mcp.ElicitParams).Message)
	// Output:
	// invalid
	// Book a room
	//
	// Seats must be from 1 to 12.
}

func ExampleForm_Schema() {
	form, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
		{Name: "room", Options: []mcpform.Option{{Value: "babbage", Label: "Babbage (6 seats)"}, {Value: "lovelace"}}},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(form.Schema().Properties["room"])
	fmt.Println(string(b))
	// Output:
	// {"type":"string","title":"Room","oneOf":[{"title":"Babbage (6 seats)","const":"babbage"},{"title":"lovelace","const":"lovelace"}]}
}

func ExampleNewForm() {
	type signup struct {
		Email string `json:"email"`
		Seats int8   `json:"seats"`
	}
	form, err := mcpform.NewForm[signup]([]mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "seats", Type: mcpform.TypeInteger},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	// An unbounded integer gets the range of the Go type it decodes into.
	seats := form.Fields()[1]
	fmt.Println(*seats.Min, *seats.Max)

	// A field the struct has no json name for is refused at compile time.
	_, err = mcpform.NewForm[signup]([]mcpform.AutoFormField{{Name: "emial"}}, nil)
	fmt.Println(err)
	// Output:
	// -128 127
	// mcpform: field "emial": invalid name: no field of mcpform_test.signup has this json name
}

// Ask sends the form only to a client that can answer it; any other
// client gets the -32021 error that names the capability it lacks.
func ExampleForm_Ask() {
	noElicitation := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "signup",
		Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}},
	}}
	_, err := signupForm.Ask(noElicitation, "")
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, string(rpcErr.Data))
	}

	canAnswer := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "signup", Meta: exampleFormClient}}
	res, err := signupForm.Ask(canAnswer, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.InputRequests["signup"].(*mcp.ElicitParams).Message)
	// Output:
	// -32021 {"requiredCapabilities":{"elicitation":{"form":{}}}}
	// Create your account
}

// A step can be a compiled form, so each step is compiled once and its
// fields come from the struct its answers decode into.
func ExampleStep() {
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{{Form: signupForm}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(flow.Fields("signup")), "fields asked under", `"signup"`)
	// Output:
	// 3 fields asked under "signup"
}

// In an MCP Apps view, each step's submit says what it does: "Continue"
// until the last step, then the step's own Submit, or "Submit".
func ExampleStep_submit() {
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{{Name: "email", Type: mcpform.TypeEmail, Required: true}}},
		{Key: "team", Message: "Tell us about your team", Fields: []mcpform.AutoFormField{{Name: "team_name"}}, Submit: "Create account"},
	}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	if err != nil {
		log.Fatal(err)
	}
	// A host that renders MCP Apps and answers no forms.
	caps := map[string]any{"extensions": map[string]any{mcpform.AppsExtension: map[string]any{"mimeTypes": []any{mcpform.AppMIMEType}}}}
	round, err := flow.Next(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "signup", Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: caps}}})
	if err != nil {
		log.Fatal(err)
	}
	view, _ := json.Marshal(round.Result.StructuredContent)
	fmt.Println(strings.Contains(string(view), `"Step 1 of 2"`), strings.Contains(string(view), `"label":"Continue"`))
	// Output:
	// true true
}

func ExampleFlow_Fields() {
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{
		{Key: "account", Fields: []mcpform.AutoFormField{{Name: "email", Label: "Email", Type: mcpform.TypeEmail}}},
	}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	if err != nil {
		log.Fatal(err)
	}
	// Name a problem by the title the person was asked with.
	problems := []*mcpform.FieldError{{Field: "email", Err: errors.New("already has an account")}}
	fmt.Println(mcpform.ProblemMessage(flow.Fields("account"), problems))
	// Output:
	// Check Email: already has an account.
}

// A handler gates what a finished run triggers with round.Once: the first
// outcome of the run wins, and a state replayed with other answers, on any
// replica sharing the store, gets it and creates nothing. The store here is
// SQLite in memory; replicas share a file or a PostgreSQL database.
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
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{{Form: signupForm}},
		&mcpform.FlowOptions{EveryCallerIsSamePerson: true, Outcomes: store})
	if err != nil {
		log.Fatal(err)
	}
	created := 0
	handle := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		round, err := flow.Next(ctx, req)
		if err != nil { // a forged or expired state: round is nil
			return nil, err
		}
		if round.Status == mcpform.FlowAsk {
			return round.Result, nil
		}
		return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			if round.Status != mcpform.FlowDone {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: round.Status.String()}}}, nil
			}
			created++ // create the account: once per run
			text := "created " + round.Answers["email"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	ctx := context.Background()
	first, err := handle(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "signup", Meta: exampleFormClient}})
	if err != nil {
		log.Fatal(err)
	}
	answer := func(email string) string {
		res, err := handle(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			Name: "signup", Meta: exampleFormClient, RequestState: first.RequestState,
			InputResponses: mcp.InputResponseMap{"signup": &mcp.ElicitResult{Action: "accept",
				Content: map[string]any{"email": email, "plan": "free"}}},
		}})
		if err != nil {
			log.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	fmt.Println(answer("ada@example.com"))
	fmt.Println(answer("mallory@example.com")) // the same state, replayed
	fmt.Println(created, "account")
	_, err = handle(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "signup", Meta: exampleFormClient, RequestState: "s1.forged",
		InputResponses: mcp.InputResponseMap{"signup": &mcp.ElicitResult{Action: "accept"}},
	}})
	var refused *jsonrpc.Error
	fmt.Println("forged state refused:", errors.As(err, &refused) && refused.Code == jsonrpc.CodeInvalidParams)
	// Output:
	// created ada@example.com
	// created ada@example.com
	// 1 account
	// forged state refused: true
}

// A password is asked on a page of the server's, through URL mode, in the
// same round as the step's other fields; it never passes through the
// client.
func ExampleFlow_SecretPage() {
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{{Key: "password", Fields: []mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "password", Label: "New password", Type: mcpform.TypePassword, Required: true, Min: mcpform.Bound(8)},
	}}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, Secrets: &mcpform.SecretOptions{
		PageURL: "https://example.com/mcp/secret",
		Store:   mcpform.NewMemorySecretStore(),
	}})
	if err != nil {
		log.Fatal(err)
	}
	// The page must say who may use a link.
	_, err = flow.SecretPage(nil)
	fmt.Println(err)
	// Here the server's login proxy names the person in X-User: only the
	// principal the flow bound the link to may use its page.
	page, err := flow.SecretPage(&mcpform.SecretPageOptions{
		Authorize: func(r *http.Request, principal string) error {
			if r.Header.Get("X-User") != principal {
				return errors.New("another person's page")
			}
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Serve the page next to the MCP endpoint.
	mux := http.NewServeMux()
	mux.Handle("/mcp/secret", page)

	r, err := flow.Next(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "set_password", Meta: exampleURLClient}})
	if err != nil {
		log.Fatal(err)
	}
	for _, key := range []string{"password", "password.secret"} {
		p := r.Result.InputRequests[key].(*mcp.ElicitParams)
		fmt.Println(key, p.Mode, strings.HasPrefix(p.URL, "https://example.com/mcp/secret?t="))
	}
	// Output:
	// mcpform: SecretPage needs SecretPageOptions.Authorize, or AnyoneWithTheLink to let whoever holds a link use it
	// password form false
	// password.secret url true
}

// exampleURLClient is the _meta of a request from a client that declared
// both form and URL-mode elicitation.
var exampleURLClient = mcp.Meta{
	mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
}

func ExampleNewMemorySecretStore() {
	store := mcpform.NewMemorySecretStore()
	ctx := context.Background()
	expires := time.Now().Add(10 * time.Minute)
	fmt.Println(store.PutSecret(ctx, "run-1", "s3cret", expires))
	fmt.Println(store.PutSecret(ctx, "run-1", "again", expires)) // a key is used once
	v, ok, _ := store.GetSecret(ctx, "run-1")
	fmt.Println(v, ok)
	_ = store.DeleteSecret(ctx, "run-1")
	_, ok, _ = store.GetSecret(ctx, "run-1")
	fmt.Println(ok)
	// Output:
	// <nil>
	// this link was already used
	// s3cret true
	// false
}

func ExampleAutoFormField_Secret() {
	form, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail},
		{Name: "api_key", Type: mcpform.TypePassword},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range form.Fields() {
		_, inSchema := form.Schema().Properties[f.Name]
		fmt.Println(f.Name, f.Secret(), inSchema)
	}
	// Output:
	// email false true
	// api_key true false
}

// A handler picks the way to ask in one call, and refuses a client that
// declared none with the error the spec gives.
func ExamplePathFor() {
	ask := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch mcpform.PathFor(req.ClientCapabilities()) {
		case mcpform.PathView:
			return mcpform.DisplayForm(signupFields, "signup", nil)
		case mcpform.PathNative:
			return mcpform.FormInputRequest(signupFields, nil)
		}
		return nil, mcpform.NeedCapabilities(mcpform.FormCapability())
	}
	_ = ask

	fmt.Println(mcpform.PathFor(nil))
	// An elicitation capability without modes predates them, and means form.
	fmt.Println(mcpform.PathFor(&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}))
	apps := &mcp.ClientCapabilities{}
	apps.AddExtension(mcpform.AppsExtension, map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}})
	fmt.Println(mcpform.PathFor(apps))
	// A host that answers forms too is asked natively.
	apps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	fmt.Println(mcpform.PathFor(apps))
	// Output:
	// none
	// native
	// view
	// native
}

func ExampleFormCapability() {
	b, _ := json.Marshal(mcpform.FormCapability().Elicitation)
	fmt.Println(string(b))
	// Output:
	// {"form":{}}
}

func ExampleNeedCapabilities() {
	err := mcpform.NeedCapabilities(mcpform.FormCapability())
	var jerr *jsonrpc.Error
	if errors.As(err, &jerr) {
		fmt.Println(jerr.Code, jerr.Message)
		fmt.Println(string(jerr.Data))
	}
	// Output:
	// -32021 Missing required client capabilities
	// {"requiredCapabilities":{"elicitation":{"form":{}}}}
}

// The README's handler serves a client older than 2026-07-28 unchanged,
// re-ask included, once the legacy middleware is installed.
func ExampleAddLegacyRounds() {
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, signup)
	mcpform.AddLegacyRounds(server, &mcpform.LegacyOptions{Timeout: 5 * time.Minute})

	emails := []string{"ada.example.com", "ada@example.com"}
	client := mcp.NewClient(&mcp.Implementation{Name: "old-host", Version: "v1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}, // an old client has no loop of its own
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Printf("elicitation/create: %q\n", req.Params.Message)
			email := emails[0]
			emails = emails[1:]
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": email, "plan": "free"}}, nil
		},
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
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
	// elicitation/create: "Create your account"
	// elicitation/create: "Create your account\n\nEmail must be an email address, like name@example.com."
	// Created ada@example.com on free with 1 seat(s)
}

func ExampleForm_Display() {
	form, err := mcpform.FormFor[booking](&mcpform.FormOptions{Key: "book", Message: "Book a room"})
	if err != nil {
		log.Fatal(err)
	}
	// On a host that renders MCP Apps: the prefab form, whose submit calls
	// the tool "book" with the values.
	res, err := form.Display("book", &mcpform.DisplayFormOptions{Title: "Book a room"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, `{"$prefab":{"version":"0.3"}`))

	// Anywhere else: the same form, asked natively under its key.
	res, err = form.Display("book", &mcpform.DisplayFormOptions{Elicit: &mcpform.InputRequestOptions{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.InputRequests["book"].(*mcp.ElicitParams).Message)
	// Output:
	// true
	// Book a room
}

func ExampleForm_ReadArguments() {
	form, err := mcpform.FormFor[booking](nil)
	if err != nil {
		log.Fatal(err)
	}
	// The call that shows the form carries no arguments yet.
	fmt.Println(form.ReadArguments(json.RawMessage(`{}`)).Status)

	// What prefab's renderer sends once the person submits: numbers as
	// text, and "" for an empty field.
	reply := form.ReadArguments(json.RawMessage(
		`{"email":"ada@example.com","room":"lovelace","seats":"12","day":"2026-08-03","note":""}`))
	fmt.Println(reply.Status)
	fmt.Println(reply.Value.Room, reply.Value.Seats, reply.Value.Day.Format(time.DateOnly), reply.Value.Note == nil)

	reply = form.ReadArguments(json.RawMessage(
		`{"email":"ada@example.com","room":"lovelace","seats":"13","day":"2026-08-03"}`))
	fmt.Println(reply.Status, reply.Problems)
	// Output:
	// none
	// accepted
	// lovelace 12 2026-08-03 true
	// invalid [mcpform: field "seats": invalid value: greater than the maximum 12]
}

func signupEverywhere(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if reply := signupForm.ReadArguments(req.Params.Arguments); reply.Status != mcpform.ReplyNone {
		msg := mcpform.ProblemMessage(signupForm.Fields(), reply.Problems)
		if reply.Status == mcpform.ReplyAccepted {
			in := reply.Value
			msg = fmt.Sprintf("Created %s on %s with %d seat(s)", in.Email, in.Plan, max(in.Seats, 1))
		}
		// An invalid answer leaves the form on screen; the text says
		// what to fix.
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: reply.Status != mcpform.ReplyAccepted}, nil
	}
	if mcpform.PathFor(req.ClientCapabilities()) == mcpform.PathView {
		return signupForm.Display("signup", &mcpform.DisplayFormOptions{Title: "Create your account"})
	}
	return signup(ctx, req)
}

func Example_formDisplay() {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	if err := mcpform.AddViewer(server, nil); err != nil {
		log.Fatal(err)
	}
	tool := &mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		log.Fatal(err)
	}
	server.AddTool(tool, signupEverywhere)

	appsCaps := &mcp.ClientCapabilities{}
	appsCaps.AddExtension(mcpform.AppsExtension, map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}})
	host := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{Capabilities: appsCaps})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := host.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	call := func(args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}

	fmt.Println("form shown:", strings.HasPrefix(call(map[string]any{}), `{"$prefab":{"version":"0.3"}`))
	// What the browser sends: numbers as text.
	fmt.Println(call(map[string]any{"email": "ada@example.com", "plan": "pro", "seats": "80"}))
	fmt.Println(call(map[string]any{"email": "ada@example.com", "plan": "pro", "seats": "3"}))
	// Output:
	// form shown: true
	// Seats must be from 1 to 50.
	// Created ada@example.com on pro with 3 seat(s)
}

func ExampleAnswers_Decode_typed() {
	answers := mcpform.Answers{"day": "2026-08-03", "at": "2026-08-03T10:00:00+02:00", "tags": []any{"av"}, "seats": 4.0}
	var booking struct {
		Day   time.Time `json:"day"`
		At    time.Time `json:"at"`
		Tags  []string  `json:"tags"`
		Seats int       `json:"seats"`
	}
	if err := answers.Decode(&booking); err != nil {
		log.Fatal(err)
	}
	fmt.Println(booking.Day, "|", booking.At, "|", booking.Tags, booking.Seats)

	var wrong struct {
		Seats int8 `json:"seats"`
	}
	fmt.Println(mcpform.Answers{"seats": 300.0}.Decode(&wrong))
	// Output:
	// 2026-08-03 00:00:00 +0000 UTC | 2026-08-03 10:00:00 +0200 +0200 | [av] 4
	// mcpform: field "seats" (Go field Seats): invalid type: a number does not decode into int8
}

func ExampleRequestStateLeeway() {
	now := exampleClock()
	codec := func(ttl time.Duration) *mcpform.RequestStateCodec {
		c, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
			Keys: [][]byte{exampleKey},
			TTL:  ttl,
			Now:  func() time.Time { return now },
		})
		if err != nil {
			log.Fatal(err)
		}
		return c
	}
	short, day := codec(10*time.Minute), codec(24*time.Hour)
	token, err := short.Mint("state", "")
	if err != nil {
		log.Fatal(err)
	}
	long, err := day.Mint("state", "")
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println(errors.Is(short.Verify(long, "", nil), mcpform.ErrExpired))
	now = now.Add(10*time.Minute + mcpform.RequestStateLeeway)
	fmt.Println(short.Verify(token, "", nil))
	now = now.Add(time.Second)
	fmt.Println(errors.Is(short.Verify(token, "", nil), mcpform.ErrExpired))
	// Output:
	// true
	// <nil>
	// true
}

func ExampleForm_InputRequest() {
	res := signupForm.InputRequest("")
	p := res.InputRequests[signupForm.Key()].(*mcp.ElicitParams)
	b, _ := json.Marshal(p.RequestedSchema)
	fmt.Println(p.Mode, p.Message)
	fmt.Println(string(b))
	// Output:
	// form Create your account
	// {"type":"object","properties":{"email":{"type":"string","title":"Email","format":"email"},"plan":{"type":"string","title":"Plan","oneOf":[{"title":"Free","const":"free"},{"title":"Pro ($12 a month)","const":"pro"}]},"seats":{"type":"integer","title":"Seats","default":1,"minimum":1,"maximum":50}},"required":["email","plan"]}
}

func ExampleForm_Fields() {
	for _, f := range signupForm.Fields() {
		fmt.Println(f.Name, f.Type, f.Required)
	}
	// Output:
	// email email true
	// plan  true
	// seats integer false
}

func ExampleForm_Key() {
	fmt.Println(signupForm.Key())
	// Output:
	// signup
}

func ExampleReplyStatus_String() {
	fmt.Println(mcpform.ReplyAccepted, mcpform.ReplyInvalid)
	// Output:
	// accepted invalid
}

func ExampleMemorySecretStore_PutSecret() {
	store := mcpform.NewMemorySecretStore()
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	fmt.Println(store.PutSecret(ctx, "k", "v", expires))
	err := store.PutSecret(ctx, "k", "again", expires)
	fmt.Println(errors.Is(err, mcpform.ErrSecretUsed))
	// Output:
	// <nil>
	// true
}

func ExampleMemorySecretStore_GetSecret() {
	store := mcpform.NewMemorySecretStore()
	ctx := context.Background()
	_, ok, _ := store.GetSecret(ctx, "k")
	fmt.Println(ok)
	_ = store.PutSecret(ctx, "k", "v", time.Now().Add(time.Minute))
	v, ok, _ := store.GetSecret(ctx, "k")
	fmt.Println(v, ok)
	// Output:
	// false
	// v true
}

func ExampleMemorySecretStore_DeleteSecret() {
	store := mcpform.NewMemorySecretStore()
	ctx := context.Background()
	_ = store.PutSecret(ctx, "k", "v", time.Now().Add(time.Minute))
	_ = store.DeleteSecret(ctx, "k")
	_, ok, _ := store.GetSecret(ctx, "k")
	fmt.Println(ok, errors.Is(store.PutSecret(ctx, "k", "v", time.Now().Add(time.Minute)), mcpform.ErrSecretUsed))
	// Output:
	// false true
}

// A FieldError names the field and wraps the rule it breaks, for errors.Is
// and errors.As alike.
func ExampleFieldError() {
	_, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
		{Name: "age", Type: mcpform.TypeInteger, Min: mcpform.Bound(18), Max: mcpform.Bound(1)},
	}, nil)
	var fe *mcpform.FieldError
	fmt.Println(errors.As(err, &fe), fe.Field, errors.Is(err, mcpform.ErrBounds))
	fmt.Println(err)
	// Output:
	// true age true
	// mcpform: field "age": invalid bounds: min 18 is greater than max 1
}

// Sealing keeps the page's secrets out of the database in the clear: the
// store underneath holds only ciphertext, and replicas that share the
// codec's keys open each other's values.
func ExampleSealSecrets() {
	plain := mcpform.NewMemorySecretStore() // in a real server, a database table
	sealed := mcpform.SealSecrets(plain, exampleCodec())
	ctx := context.Background()
	if err := sealed.PutSecret(ctx, "run-1", "s3cret", time.Now().Add(time.Minute)); err != nil {
		log.Fatal(err)
	}
	stored, _, _ := plain.GetSecret(ctx, "run-1")
	fmt.Println(strings.Contains(stored, "s3cret"))
	v, ok, err := sealed.GetSecret(ctx, "run-1")
	fmt.Println(v, ok, err)
	// Output:
	// false
	// s3cret true <nil>
}

// exampleSQLStore returns a store on SQLite in memory.
func exampleSQLStore(opts *mcpform.SQLStoreOptions) *mcpform.SQLStore {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1) // each connection to :memory: is a database of its own
	store, err := mcpform.NewSQLStore(db, opts)
	if err != nil {
		log.Fatal(err)
	}
	return store
}

// One SQLStore keeps both what a flow stores: its outcomes, and, sealed,
// what its secret page receives.
func ExampleSQLStore() {
	codec := exampleCodec()
	store := exampleSQLStore(nil)
	_, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "password", Fields: []mcpform.AutoFormField{
		{Name: "password", Type: mcpform.TypePassword, Required: true},
	}}}, &mcpform.FlowOptions{
		EveryCallerIsSamePerson: true,
		Outcomes:                store,
		Secrets:                 &mcpform.SecretOptions{PageURL: "https://example.com/secret", Store: mcpform.SealSecrets(store, codec)},
	})
	fmt.Println(err)
	// Output:
	// <nil>
}

func ExampleNewSQLStore() {
	path := filepath.Join(os.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	_, err = mcpform.NewSQLStore(db, &mcpform.SQLStoreOptions{OutcomeTable: "run_outcomes", Lease: 30 * time.Second})
	fmt.Println(err)
	_, err = mcpform.NewSQLStore(db, &mcpform.SQLStoreOptions{OutcomeTable: "outcomes; DROP TABLE accounts"})
	fmt.Println(err)
	// Output:
	// <nil>
	// mcpform: SQLStore table name "outcomes; DROP TABLE accounts" is not a plain identifier
}

func ExampleSQLStoreOptions() {
	// Tables named for the application; claims that hold 30 seconds.
	store := exampleSQLStore(&mcpform.SQLStoreOptions{
		OutcomeTable: "mcp_outcomes",
		SecretTable:  "mcp_secrets",
		Lease:        30 * time.Second,
	})
	fmt.Println(store.Create(context.Background()))
	// Output:
	// <nil>
}

func ExampleSQLStore_Create() {
	store := exampleSQLStore(nil)
	// At startup: a database the server cannot write fails here.
	fmt.Println(store.Create(context.Background()))
	// Output:
	// <nil>
}

func ExampleSQLStore_Once() {
	store := exampleSQLStore(nil)
	ctx := context.Background()
	say := func(text string) func(context.Context) (*mcp.CallToolResult, error) {
		return func(context.Context) (*mcp.CallToolResult, error) {
			fmt.Println("running:", text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}
	}
	for _, text := range []string{"first", "second"} {
		res, err := store.Once(ctx, "run-1", say(text))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("outcome:", res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// running: first
	// outcome: first
	// outcome: first
}

func ExampleSQLStore_LookupOutcome() {
	store := exampleSQLStore(nil)
	ctx := context.Background()
	_, found, _ := store.LookupOutcome(ctx, "run-1")
	fmt.Println(found)
	_, _ = store.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) {
		_, found, _ := store.LookupOutcome(ctx, "run-1") // claimed, not decided
		fmt.Println(found)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	first, found, _ := store.LookupOutcome(ctx, "run-1")
	fmt.Println(found, first.Content[0].(*mcp.TextContent).Text)
	// Output:
	// false
	// true
	// true done
}

// Outcomes is what a flow needs for exactly-once; SQLStore is one.
func ExampleOutcomes() {
	var outcomes mcpform.Outcomes = exampleSQLStore(nil)
	_, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{{Form: signupForm}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, Outcomes: outcomes})
	fmt.Println(err)
	// Output:
	// <nil>
}

func ExampleNewMemoryOutcomes() {
	// Outcomes kept an hour: longer than the codec's state lives.
	store := mcpform.NewMemoryOutcomes(time.Hour)
	ctx := context.Background()
	for _, text := range []string{"first", "second"} {
		res, err := store.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) {
			fmt.Println("running:", text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("outcome:", res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// running: first
	// outcome: first
	// outcome: first
}

func ExampleMemoryOutcomes_LookupOutcome() {
	store := mcpform.NewMemoryOutcomes(0)
	ctx := context.Background()
	_, found, _ := store.LookupOutcome(ctx, "run-1")
	fmt.Println(found)
	_, _ = store.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	first, found, _ := store.LookupOutcome(ctx, "run-1")
	fmt.Println(found, first.Content[0].(*mcp.TextContent).Text)
	// Output:
	// false
	// true done
}

func ExampleMemoryOutcomes_Once() {
	store := mcpform.NewMemoryOutcomes(0)
	ctx := context.Background()
	_, err := store.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) {
		return nil, errors.New("the mail server is down")
	})
	fmt.Println(err)
	res, _ := store.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) { // a failure stored nothing
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil
	})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// the mail server is down
	// sent
}

// A side effect passes the run's idempotency key to its provider, so that
// a retry after a crash, which runs do again, charges once.
func ExampleIdempotencyKey() {
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{{Form: signupForm}},
		&mcpform.FlowOptions{EveryCallerIsSamePerson: true, Outcomes: mcpform.NewMemoryOutcomes(0)})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ask, err := flow.Next(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "signup", Meta: exampleFormClient}})
	if err != nil {
		log.Fatal(err)
	}
	round, err := flow.Next(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Name: "signup", Meta: exampleFormClient, RequestState: ask.Result.RequestState,
		InputResponses: mcp.InputResponseMap{"signup": &mcp.ElicitResult{Action: "accept",
			Content: map[string]any{"email": "ada@example.com", "plan": "free"}}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	_, err = round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
		key := mcpform.IdempotencyKey(ctx) // for the provider's Idempotency-Key header
		fmt.Println(len(key) > 0, key == round.ID)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "charged"}}}, nil
	})
	fmt.Println(err, mcpform.IdempotencyKey(ctx) == "")
	// Output:
	// true false
	// <nil> true
}

func ExampleSQLStore_PutSecret() {
	store := exampleSQLStore(nil)
	ctx := context.Background()
	expires := time.Now().Add(10 * time.Minute)
	fmt.Println(store.PutSecret(ctx, "link-1", "sealed value", expires))
	fmt.Println(store.PutSecret(ctx, "link-1", "again", expires)) // a key is used once
	// Output:
	// <nil>
	// this link was already used
}

func ExampleSQLStore_GetSecret() {
	store := exampleSQLStore(nil)
	ctx := context.Background()
	_ = store.PutSecret(ctx, "link-1", "sealed value", time.Now().Add(10*time.Minute))
	v, ok, err := store.GetSecret(ctx, "link-1")
	fmt.Println(v, ok, err)
	// Output:
	// sealed value true <nil>
}

func ExampleSQLStore_DeleteSecret() {
	store := exampleSQLStore(nil)
	ctx := context.Background()
	_ = store.PutSecret(ctx, "link-1", "sealed value", time.Now().Add(10*time.Minute))
	fmt.Println(store.DeleteSecret(ctx, "link-1"))
	_, ok, _ := store.GetSecret(ctx, "link-1")
	fmt.Println(ok)
	// Output:
	// <nil>
	// false
}

// A tool that runs a flow declares the arguments the view, link and model
// paths send back: the state, and each field by name, of any type.
func ExampleFlow_InputSchema() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Bind: true})
	if err != nil {
		log.Fatal(err)
	}
	steps := []mcpform.Step{{Key: "team", Fields: []mcpform.AutoFormField{
		{Name: "team_name", Required: true},
		{Name: "seats", Type: mcpform.TypeInteger, Min: mcpform.Bound(2), Max: mcpform.Bound(50), Default: 5},
	}}}
	flow, err := mcpform.NewFlow(codec, steps, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	if err != nil {
		log.Fatal(err)
	}
	// The schema is JSON, marshalled once: go-sdk reads it on every call.
	// A person asked by a form or a view has no argument to give.
	tool := &mcp.Tool{Name: "signup", InputSchema: flow.InputSchema(nil)}
	fmt.Println(string(tool.InputSchema.(json.RawMessage)))

	// The model, when it may answer, is told what it may send.
	flow, err = mcpform.NewFlow(codec, steps, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, AskModel: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(flow.InputSchema(nil)))
	// Output:
	// {"type":"object"}
	// {"type":"object","properties":{"team_name":{"type":"string","title":"Team Name"},"seats":{"type":"integer","title":"Seats","minimum":2,"maximum":50},"mcpform":{"type":"string","description":"The state of the form, sent back unchanged as a previous result of this tool gave it."},"mcpformAction":{"type":"string","description":"Sent, with the state and no answers, when the person declines to answer.","enum":["decline"]}}}
}

// A form with keys (a codec and a principal) can be asked beyond the
// native path: in an MCP Apps view, and, opted in, through the model.
// ReadCall reads an answer from the arguments only with a state the form
// minted for that ask, and Reply.Path says which path the answer came by,
// so that a handler can refuse what only the model vouches for.
func ExampleForm_ReadCall() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Bind: true})
	if err != nil {
		log.Fatal(err)
	}
	form, err := mcpform.FormFor[Signup](&mcpform.FormOptions{Key: "signup", Message: "Create your account",
		Codec: codec, EveryCallerIsSamePerson: true, AskModel: true})
	if err != nil {
		log.Fatal(err)
	}
	bare := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "signup",
		Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}}}}

	// Answers without a state the form minted are no answer.
	bare.Params.Arguments = json.RawMessage(`{"mcpform":"","email":"mallory@example.com","plan":"pro"}`)
	fmt.Println(form.ReadCall(bare).Status)

	bare.Params.Arguments = nil
	res, err := form.Ask(bare, "")
	if err != nil {
		log.Fatal(err)
	}
	var contract struct {
		Arguments map[string]any `json:"arguments"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &contract); err != nil {
		log.Fatal(err)
	}
	// The model calls again with the arguments it was given and the answers.
	contract.Arguments["email"], contract.Arguments["plan"] = "ada@example.com", "pro"
	bare.Params.Arguments, _ = json.Marshal(contract.Arguments)
	reply := form.ReadCall(bare)
	fmt.Println(reply.Status, reply.Path, reply.Value.Email)
	if reply.Path == mcpform.PathModel {
		fmt.Println("typed by the model: ask the person to confirm before charging")
	}
	// Output:
	// none
	// accepted model ada@example.com
	// typed by the model: ask the person to confirm before charging
}

// seamCall is a tool call as a face other than go-sdk's reads it from its
// SDK (the mcpgo package's does so for mcp-go): here, a first call from a
// client with form elicitation.
type seamCall struct{ answers map[string]seam.Answer }

func (c seamCall) Answer(key string) (seam.Answer, bool)       { a, ok := c.answers[key]; return a, ok }
func (seamCall) Tool() string                                  { return "book" }
func (seamCall) Arguments() (json.RawMessage, error)           { return nil, nil }
func (seamCall) State() string                                 { return "" }
func (seamCall) Modes() (form, url bool)                       { return true, false }
func (seamCall) Apps() bool                                    { return false }
func (seamCall) Legacy() bool                                  { return false }
func (seamCall) ViaView() bool                                 { return false }
func (seamCall) EndView(func(json.RawMessage) ([]byte, error)) {}
func (seamCall) AcceptLanguage() string                        { return "" }
func (seamCall) CapabilityError(form, url bool) error          { return errors.New("cannot answer") }
func (seamCall) StateError(err error) error                    { return err }
func (seamCall) ArgumentsError(err error) error                { return err }

func ExampleForm_Seam() {
	form, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{{Name: "room", Required: true}},
		&mcpform.FormOptions{Key: "booking"})
	if err != nil {
		log.Fatal(err)
	}
	p, _ := form.Seam().Ask(context.Background(), seamCall{}, "s1")
	fmt.Println(p.Requests[0].Key, p.Requests[0].Mode, p.State)
	reply := form.Seam().ReadCall(context.Background(), seamCall{answers: map[string]seam.Answer{
		"booking": {Action: "accept", Content: map[string]any{"room": "a"}}}})
	fmt.Println(reply.Status, reply.Value["room"])
	// Output:
	// booking form s1
	// accepted a
}

func ExampleFlow_Seam() {
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{{Key: "booking", Message: "Book a room",
		Fields: []mcpform.AutoFormField{{Name: "room", Required: true}}}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	if err != nil {
		log.Fatal(err)
	}
	r, p, err := flow.Seam().Next(context.Background(), seamCall{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Status, r.Step, p.Requests[0].Message, p.State != "")
	// Output: ask booking Book a room true
}

func ExamplePath_String() {
	fmt.Println(mcpform.PathNone, mcpform.PathNative, mcpform.PathLegacy, mcpform.PathView, mcpform.PathModel, mcpform.PathLink)
	// Output: none native legacy view model link
}

// A flow that opts in asks a host with neither forms nor MCP Apps through
// the model: an ordinary result whose text and structuredContent say what
// to ask the person and how to call the tool again. The model, not the
// person, types the answers that come back.
func ExampleFlowOptions_askModel() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Bind: true})
	if err != nil {
		log.Fatal(err)
	}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
	}}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, AskModel: true})
	if err != nil {
		log.Fatal(err)
	}
	bare := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "signup",
		Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{}}}}
	r, err := flow.Next(context.Background(), bare)
	if err != nil {
		log.Fatal(err)
	}
	var contract struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		Arguments       map[string]any  `json:"arguments"`
	}
	b, _ := json.Marshal(r.Result.StructuredContent)
	if err := json.Unmarshal(b, &contract); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(contract.RequestedSchema))

	// The model calls again with the arguments it was given and the answer.
	contract.Arguments["email"] = "ada@example.com"
	bare.Params.Arguments, _ = json.Marshal(contract.Arguments)
	r, err = flow.Next(context.Background(), bare)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Status, r.Answers)
	// Output:
	// {"type":"object","properties":{"email":{"type":"string","title":"Email","format":"email"}},"required":["email"]}
	// done map[email:ada@example.com]
}

// The author's own words reach a person in their language through one
// hook, Translate; mcpform's own words come from its catalogs.
func ExampleFlowOptions_translate() {
	spanish := map[string]string{"Create your account": "Crea tu cuenta", "Email": "Correo electrónico"}
	flow, err := mcpform.NewFlow(exampleCodec(), []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Type: mcpform.TypeEmail, Required: true},
		}},
	}, &mcpform.FlowOptions{
		EveryCallerIsSamePerson: true,
		Translate: func(lang language.Tag, text string) string {
			if lang == language.Spanish {
				return spanish[text]
			}
			return "" // as written
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	meta := mcp.Meta{"io.modelcontextprotocol/acceptLanguage": "es-MX, en;q=0.5"}
	maps.Copy(meta, exampleFormClient)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta, Name: "signup"}}
	r, err := flow.Next(context.Background(), req)
	if err != nil {
		log.Fatal(err)
	}
	r, err = flow.Next(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
		Meta: exampleFormClient, Name: "signup", RequestState: r.Result.RequestState,
		InputResponses: mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada"}}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Language, r.Result.Meta["io.modelcontextprotocol/contentLanguage"])
	fmt.Println(r.Result.InputRequests["account"].(*mcp.ElicitParams).Message)
	// Output:
	// es es
	// Crea tu cuenta
	//
	// Correo electrónico: escribe una dirección de correo electrónico, por ejemplo nombre@example.com.
}

func ExampleContentLanguage() {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Cuenta creada."}}}
	mcpform.ContentLanguage(res, language.Spanish)
	fmt.Println(res.Meta)
	// Output:
	// map[io.modelcontextprotocol/contentLanguage:es]
}

// TestDocHandlersMeetHostileCalls runs the handlers the docs show, as a
// server serves them, against the calls a careless or hostile host makes:
// a forged request state and forged view arguments, and a client older
// than 2026-07-28 on a server without AddLegacyRounds, answering badly
// first. None creates anything from them, and none panics: go-sdk does not
// recover a handler's panic, so one would end the test binary.
// ExampleFlowRound_Once shows its handler meeting a forged state.
func TestDocHandlersMeetHostileCalls(t *testing.T) {
	good := map[string]any{"email": "ada@example.com", "plan": "pro", "seats": 3}
	bad := map[string]any{"email": "ada.example.com", "plan": "pro", "seats": 3}
	const created = "Created ada@example.com on pro with 3 seat(s)"
	for _, h := range []struct {
		name    string
		handler mcp.ToolHandler
	}{
		{"the README's signup", signup},
		{"signupEverywhere", signupEverywhere},
	} {
		server := func() *mcp.Server {
			server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, h.handler)
			return server
		}
		t.Run(h.name+"/forged state", func(t *testing.T) {
			c := mcpformtest.NewClient(t, server(), mcpformtest.Full)
			last, err := json.Marshal(map[string]any{"name": "signup", "requestState": "s1.forged",
				"inputResponses": map[string]any{"signup": map[string]any{"action": "accept", "content": bad}}})
			require.NoError(t, err)
			res := c.Replay(context.Background(), last, mcpformtest.Accept(good))
			assert.NotContains(t, res.Rounds[0].Text, "Created", "the bad answer is never taken")
			assert.Equal(t, created, res.Text, "the re-ask finishes: %+v", res.Round)
		})
		t.Run(h.name+"/forged view arguments", func(t *testing.T) {
			c := mcpformtest.NewClient(t, server(), mcpformtest.Full)
			args := maps.Clone(bad)
			args[mcpform.StateArgument] = "v1.forged"
			res := c.Call(context.Background(), "signup", args, mcpformtest.Accept(good))
			assert.NotContains(t, res.Rounds[0].Text, "Created", "the bad answer is never taken: %+v", res.Rounds[0])
		})
		t.Run(h.name+"/older client without AddLegacyRounds", func(t *testing.T) {
			res := mcpformtest.NewClient(t, server(), mcpformtest.Editor).Call(context.Background(), "signup", nil,
				mcpformtest.Accept(bad), mcpformtest.Accept(good))
			assert.NotEqual(t, created, res.Text, "go-sdk bridges one round, so the re-ask cannot finish: %+v", res.Round)
			assert.True(t, res.Err != nil || res.IsError || res.Path != mcpformtest.PathOutcome, "%+v", res.Round)
			res = mcpformtest.NewClient(t, server(), mcpformtest.Editor).Call(context.Background(), "signup", nil, mcpformtest.Accept(good))
			assert.Equal(t, created, res.Text, "a good first answer finishes: %+v", res.Round)
		})
	}
}
