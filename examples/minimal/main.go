// The minimal example is the README's handler as a program, on a form with
// keys, so that MCP Apps hosts get a view. Usage: minimal [-stdio].
// With no flags, an in-process client, playing a person, types a bad email
// first, and the server asks again, naming the problem. -stdio serves a host.
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type Signup struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	Plan  string `json:"plan" mcpform:"label=Plan,options=free:Free|pro:Pro ($12 a month)"`
	Seats int    `json:"seats,omitempty" mcpform:"label=Seats,min=1,max=50,default=1"`
}

// signupForm has keys, beyond the README's form, so that a host that
// renders MCP Apps but answers no form gets a view: its submit is read
// only with the state the form minted for it. The key is random per
// process, which is right for one stdio server; replicas share one.
var signupForm = newSignupForm(nil)

// newSignupForm compiles the form, with now as its state's clock (nil is
// time.Now): a test moves it past the state's lifetime.
func newSignupForm(now func() time.Time) *mcpform.Form[Signup] {
	key := make([]byte, mcpform.MinRequestStateKeySize)
	if _, err := rand.Read(key); err != nil {
		panic(err)
	}
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true, Now: now})
	if err != nil {
		panic(err)
	}
	f, err := mcpform.FormFor[Signup](&mcpform.FormOptions{Key: "signup", Message: "Create your account",
		Codec: codec, EveryCallerIsSamePerson: true, // stdio: one person, no authentication
		AskModel: true}) // a host with no form and no view asks through its model
	if err != nil {
		panic(err) // a broken definition fails at start-up, never at answer time
	}
	return f
}

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

func main() {
	stdio := flag.Bool("stdio", false, "serve the tool over stdin and stdout")
	flag.Parse()
	server := newServer()
	if *stdio {
		// Native answers are read as the host sent them, numbers exact.
		log.Fatal(server.Run(context.Background(), mcpform.AnswersAsSentTransport(&mcp.StdioTransport{})))
	}
	res, err := demo(context.Background(), server)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
}

// newServer serves signup, with the viewer and its app-only submit tool
// for MCP Apps hosts, and rounds of elicitation/create for 2025-11-25
// hosts that answer forms, which mcpform judges and asks again.
func newServer() *mcp.Server {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "minimal", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	if err := mcpform.AddViewer(server, nil); err != nil {
		log.Fatal(err)
	}
	tool := &mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}}
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		log.Fatal(err)
	}
	server.AddTool(tool, signup)
	mcpform.AddLegacyRounds(server, nil)
	return server
}

func demo(ctx context.Context, server *mcp.Server) (*mcp.CallToolResult, error) {
	emails := []string{"ada.example.com", "ada@example.com"}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Printf("asked: %q\n  answer: email %s, plan pro, 3 seats\n", req.Params.Message, emails[0])
			content := map[string]any{"email": emails[0], "plan": "pro", "seats": 3}
			emails = emails[1:]
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, mcpform.AnswersAsSentTransport(st), nil); err != nil {
		return nil, err
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup"})
}
