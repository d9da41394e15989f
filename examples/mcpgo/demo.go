package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform/examples/internal/terminal"
)

// runDemo runs the demo of tool, signup or set_password after a signup,
// against srv: what main does with no flags. An opts.Lang of "" is the
// locale's (LC_ALL, LC_MESSAGES, LANG).
func runDemo(ctx context.Context, s *signup, srv *server.MCPServer, in io.Reader, out io.Writer, opts terminal.Options, tool string) error {
	if opts.Lang == "" {
		opts.Lang = terminal.Language(os.Getenv)
	}
	tools := []string{toolName}
	if tool == passwordTool {
		tools = append(tools, passwordTool)
	}
	_, err := demo(ctx, s, srv, in, out, opts, tools...)
	return err
}

// demo calls tools, signup by default, one after the other against srv,
// through an in-process mcp-go client on 2026-07-28, and returns the last
// final result. The person answers in the terminal, as in
// examples/signup's demo, whose client-neutral part this shares
// (examples/internal/terminal): in opts.Lang, the locale's language; with
// a value the server refused offered back for editing; and with a secret
// typed on the server's page never shown.
//
// The client leaves the input requests to the demo (mcp-go's manual round
// trips), which answers them round by round: it checks nothing, and what
// the person types goes to the server, whose re-ask is what the person
// reads.
func demo(ctx context.Context, s *signup, srv *server.MCPServer, in io.Reader, out io.Writer, opts terminal.Options, tools ...string) (*mcp.CallToolResult, error) {
	if len(tools) == 0 {
		tools = []string{toolName}
	}
	ctx = s.withPrincipal(ctx) // the in-process transport passes the caller's context
	d := terminal.New(in, out, opts)
	c := client.NewClient(&orderTransport{InProcessTransport: transport.NewInProcessTransport(srv), demo: d},
		client.WithManualInputRoundTrips(),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}))
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-demo", Version: "v0.1.0"}
	started, err := c.Initialize(ctx, init)
	if err != nil {
		return nil, err
	}
	d.Intro("mcp-go", started.ProtocolVersion, tools...)
	var res *mcp.CallToolResult
	call := func(ctx context.Context, tool, lang string, answers map[string]terminal.Answer, state string) (*terminal.Reply, error) {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.RequestState = tool, state
		if lang != "" {
			req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{terminal.AcceptLanguageKey: lang}}
		}
		if answers != nil {
			req.Params.InputResponses = mcp.InputResponses{}
			for key, a := range answers {
				req.Params.InputResponses[key] = mcp.NewElicitationInputResponse(mcp.ElicitationResult{
					ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(a.Action), Content: a.Content}})
			}
		}
		var err error
		if res, err = c.CallTool(ctx, req); err != nil {
			return nil, err
		}
		return replyOf(res)
	}
	if err := d.Run(ctx, call, tools...); err != nil {
		return nil, err
	}
	return res, nil
}

// replyOf is res as the demo reads it: its forms and links to answer, or
// its final text.
func replyOf(res *mcp.CallToolResult) (*terminal.Reply, error) {
	reply := &terminal.Reply{State: res.RequestState, Requests: map[string]terminal.Request{}}
	for key, ir := range res.InputRequests {
		ep := ir.Elicitation
		if ep == nil {
			return nil, fmt.Errorf("input request %q is %s, not an elicitation", key, ir.Method)
		}
		schema, err := json.Marshal(ep.RequestedSchema)
		if err != nil {
			return nil, err
		}
		reply.Requests[key] = terminal.Request{Mode: ep.Mode, Message: ep.Message, URL: ep.URL, Schema: schema}
	}
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			reply.Texts = append(reply.Texts, t.Text)
		}
	}
	return reply, nil
}

// orderTransport is the in-process transport, handing each response's
// result to the demo, which reads its forms' property order: mcp-go
// decodes a requested schema into a map, which forgets the order the
// server asked in.
type orderTransport struct {
	*transport.InProcessTransport
	demo *terminal.Demo
}

func (t *orderTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.InProcessTransport.SendRequest(ctx, req)
	if err == nil && resp != nil && resp.Result != nil {
		t.demo.ReadResult(resp.Result)
	}
	return resp, err
}
