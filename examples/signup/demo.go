package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/examples/internal/terminal"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoOptions say how the demo talks to the person: examples/internal/
// terminal's, which examples/mcpgo's demo shares.
type demoOptions = terminal.Options

// runDemo runs the signup server and an in-process go-sdk client on
// 2026-07-28 that asks the person in the terminal: it reads answers from in
// and writes the transcript to out. tool is the tool to demonstrate:
// signup, or set_password, which runs after a signup. An opts.Lang of ""
// is the locale's (LC_ALL, LC_MESSAGES, LANG).
func runDemo(ctx context.Context, st *store, in io.Reader, out io.Writer, opts demoOptions, tool string) error {
	if opts.Lang == "" {
		opts.Lang = terminal.Language(os.Getenv)
	}
	// The demo's state never leaves the process, so a random key is right
	// here and needs no warning; a set MCPFORM_STATE_KEY is still used.
	codec, err := deploy.NewCodec(os.Getenv, io.Discard, "mcpform signup")
	if err != nil {
		return err
	}
	// The secret page, on a loopback port of the demo's own.
	ln, err := listenHTTP("127.0.0.1:0")
	if err != nil {
		return err
	}
	s, err := newSignup(codec, st, "", pageURLOf(ln))
	if err != nil {
		ln.Close()
		return err
	}
	defer servePage(ln, s.secretPage(), 0)()
	tools := []string{toolName}
	if tool == passwordTool {
		tools = append(tools, passwordTool)
	}
	_, err = demo(ctx, newServer(s), in, out, opts, tools...)
	return err
}

// demo calls tools, signup by default, one after the other against server,
// and returns the last final result.
//
// The client answers the input requests itself, round by round, rather
// than through go-sdk's loop, which would check each answer against the
// schema first. This client checks nothing: what the person types goes to
// the server, whose checks are the ones that count, and whose re-ask, with
// the problems named, is what the person sees (examples/internal/terminal).
//
// A URL-mode request links to the server's secret page. The person would
// open it in a browser; here the demo plays the browser too.
func demo(ctx context.Context, server *mcp.Server, in io.Reader, out io.Writer, opts demoOptions, tools ...string) (*mcp.CallToolResult, error) {
	if len(tools) == 0 {
		tools = []string{toolName}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "signup-demo", Version: "v0.1.0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, mcpform.AnswersAsSentTransport(st), nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	d := terminal.New(in, out, opts)
	// An empty ProtocolVersion asks for the latest, 2026-07-28.
	cs, err := client.Connect(ctx, &orderTransport{Transport: ct, demo: d}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	d.Intro("go-sdk", cs.InitializeResult().ProtocolVersion, tools...)
	var res *mcp.CallToolResult
	call := func(ctx context.Context, tool, lang string, answers map[string]terminal.Answer, state string) (*terminal.Reply, error) {
		params := &mcp.CallToolParams{Name: tool, RequestState: state}
		if lang != "" {
			params.Meta = mcp.Meta{terminal.AcceptLanguageKey: lang}
		}
		if answers != nil {
			params.InputResponses = mcp.InputResponseMap{}
			for key, a := range answers {
				params.InputResponses[key] = &mcp.ElicitResult{Action: a.Action, Content: a.Content}
			}
		}
		var err error
		if res, err = cs.CallTool(ctx, params); err != nil {
			return nil, err
		}
		reply := &terminal.Reply{State: res.RequestState, Requests: map[string]terminal.Request{}}
		for key, ir := range res.InputRequests {
			ep, ok := ir.(*mcp.ElicitParams)
			if !ok {
				return nil, fmt.Errorf("input request %q is %T, not an elicitation", key, ir)
			}
			schema, err := json.Marshal(ep.RequestedSchema)
			if err != nil {
				return nil, err
			}
			reply.Requests[key] = terminal.Request{Mode: ep.Mode, Message: ep.Message, URL: ep.URL, Schema: schema}
		}
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				reply.Texts = append(reply.Texts, t.Text)
			}
		}
		return reply, nil
	}
	if err := d.Run(ctx, call, tools...); err != nil {
		return nil, err
	}
	return res, nil
}

// orderTransport is a client transport that hands each response's result
// to the demo, which reads its forms' property order: go-sdk decodes a
// requested schema into a map, which forgets the order the server asked
// in.
type orderTransport struct {
	mcp.Transport
	demo *terminal.Demo
}

func (t *orderTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return &orderConn{Connection: c, demo: t.demo}, err
}

type orderConn struct {
	mcp.Connection
	demo *terminal.Demo
}

func (c *orderConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Result != nil {
		c.demo.ReadResult(resp.Result)
	}
	return msg, err
}
