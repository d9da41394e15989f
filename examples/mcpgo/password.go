package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/mcpgo"
)

// passwordTool is the second tool's name: it sets an account's password.
const passwordTool = "set_password"

// secretPath is where the server serves the page the password is typed on.
const secretPath = "/secret"

// passwordToolDef is set_password as clients list it. On an MCP Apps host
// its view asks the email and links to the page; the password is never on
// it.
func passwordToolDef(flow *mcpform.Flow) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(passwordTool, "Set the password of an account you signed up. The tool asks for the email itself, "+
		"and links the person to a page of the server's for the password; call it with no arguments.", flow.InputSchema(nil))
	tool.Title = "Set password"
	if err := mcpgo.AttachViewer(&tool, nil); err != nil {
		panic(err) // impossible with the default options
	}
	return tool
}

// handlePassword is set_password's handler, written once like signup's.
func (s *signup) handlePassword(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	round, err := mcpgo.Next(ctx, s.Password, req)
	if err != nil {
		return nil, err
	}
	const what = "Password not set"
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in NewPassword
		if err := round.Answers.Decode(&in); err != nil {
			return s.failed(what, err), nil
		}
		principal := principalOf(ctx)
		res, err := round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			o, err := s.store.SetNewPassword(ctx, in, principal, round.Language)
			if err != nil {
				return nil, err
			}
			return result(round, o)
		})
		if err != nil {
			return s.failed(what, err), nil
		}
		return res, nil
	}
	o, ok := s.PasswordEnded(accounts.Round{Status: round.Status, Step: round.Step, Attempt: round.Attempt, Problems: round.Problems, Lang: round.Language})
	if !ok {
		return nil, fmt.Errorf("set_password: unexpected flow status %v", round.Status)
	}
	return s.once(ctx, round, what, o), nil
}
