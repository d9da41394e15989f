package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// person answers in the demo, in turn, printing what it is asked.
type person struct {
	out     io.Writer
	answers []map[string]any
}

func (p *person) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	fmt.Fprintf(p.out, "? %s\n", req.Params.Message)
	if len(p.answers) == 0 {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
	}
	a := p.answers[0]
	p.answers = p.answers[1:]
	b, _ := json.Marshal(a)
	fmt.Fprintf(p.out, "> %s\n", b)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: a}}, nil
}

// demo signs up the team plan through an in-process mcp-go client on
// 2026-07-28, which fulfils each input request itself: one seat is
// refused, and asked again naming the problem.
func demo(s *signup, srv *server.MCPServer, out io.Writer) error {
	ctx := s.withPrincipal(context.Background()) // the in-process transport passes the caller's context
	p := &person{out: out, answers: []map[string]any{
		{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "team"},
		{"team_name": "Analytical Engines", "seats": 1},
		{"team_name": "Analytical Engines", "seats": 12},
	}}
	c, err := client.NewInProcessClientWithOptions(srv, client.WithElicitationHandler(p))
	if err != nil {
		return err
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-demo", Version: "v0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	var call mcp.CallToolRequest
	call.Params.Name = toolName
	res, err := c.CallTool(ctx, call)
	if err != nil {
		return err
	}
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			fmt.Fprintln(out, t.Text)
		}
	}
	return nil
}
