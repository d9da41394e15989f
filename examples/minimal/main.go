// The minimal example is the README's handler as a program. Usage: minimal [-stdio].
// With no flags, an in-process client, playing a person, types a bad email
// first, and the server asks again, naming the problem. -stdio serves a host.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type Signup struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	Plan  string `json:"plan" mcpform:"label=Plan,options=free:Free|pro:Pro ($12 a month)"`
	Seats int    `json:"seats,omitempty" mcpform:"label=Seats,min=1,max=50,default=1"`
}

var signupForm = func() *mcpform.Form[Signup] {
	f, err := mcpform.FormFor[Signup](&mcpform.FormOptions{Key: "signup", Message: "Create your account"})
	if err != nil {
		panic(err) // a broken definition fails at start-up, never at answer time
	}
	return f
}()

func signup(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	reply := signupForm.Read(req.Params.InputResponses)
	switch reply.Status {
	case mcpform.ReplyNone: // the first call: ask, if the client can answer
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
	server := mcp.NewServer(&mcp.Implementation{Name: "minimal", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}}, signup)
	if *stdio {
		log.Fatal(server.Run(context.Background(), &mcp.StdioTransport{}))
	}
	res, err := demo(context.Background(), server)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
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
	if _, err := server.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "signup"})
}
