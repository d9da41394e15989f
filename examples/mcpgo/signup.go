package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/mcpgo"
)

// toolName is the signup tool's name. Request state is bound to it, so a
// state minted here is refused by any other tool sharing the key.
const toolName = "signup"

// A signup holds what the tool handlers need: the flows, their page and
// the store, which examples/internal/accounts defines for every SDK; this
// example is their mcp-go face.
type signup struct {
	*accounts.Tools
	store     *store
	principal string      // whom state is bound to: the example has no auth
	log       *log.Logger // the server's log, for what clients must not read
}

// principalKey is where the transport's context function puts the caller.
type principalKey struct{}

// localPrincipal is whom request state is bound to when the transport has
// no authentication: everyone who can reach the server is one principal.
const localPrincipal = "local"

// withPrincipal is the transports' context function: behind auth, it
// would put the token's user there.
func (s *signup) withPrincipal(ctx context.Context) context.Context {
	return context.WithValue(ctx, principalKey{}, s.principal)
}

// principalOf is FlowOptions.ContextPrincipal: mcp-go hands a handler who
// called only through its context.
func principalOf(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// newSignup returns the signup and set_password tools, sealing their state
// with codec and storing accounts in st. pageURL is where the server
// serves secretPage; "" leaves set_password out.
func newSignup(codec *mcpform.RequestStateCodec, st *store, principal, pageURL string) (*signup, error) {
	s := &signup{store: st, principal: cmp.Or(principal, localPrincipal),
		log: log.New(os.Stderr, "mcpform mcpgo: ", log.LstdFlags)}
	var err error
	s.Tools, err = accounts.NewTools(codec, st, pageURL, mcpform.FlowOptions{ContextPrincipal: principalOf, AskModel: *askModelFlag})
	return s, err
}

// newServer returns an mcp-go server with the tools and the MCP Apps
// viewer that shows their steps on hosts that render MCP Apps.
func newServer(s *signup) *server.MCPServer {
	srv := server.NewMCPServer("mcpform-mcpgo", "v0.1.0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))
	// The viewer carries prefab's renderer inline; with the default
	// options, these cannot fail.
	if err := mcpgo.AddViewer(srv, &mcpform.ViewerOptions{Title: "Sign up"}); err != nil {
		panic(err)
	}
	tool := mcp.NewToolWithRawSchema(toolName,
		"Create an account. The tool asks the person for their details itself; call it with no arguments.",
		s.Signup.InputSchema(nil)) // the arguments a view, a link or the model sends back
	tool.Title = "Sign up"
	if err := mcpgo.AttachViewer(&tool, nil); err != nil {
		panic(err)
	}
	srv.AddTool(tool, s.handle)
	if s.Password != nil {
		srv.AddTool(passwordToolDef(s.Password), s.handlePassword)
	}
	return srv
}

// secretPage is the page where set_password's person types the password,
// or a 404 without set_password.
func (s *signup) secretPage() http.Handler {
	if s.Page == nil {
		return http.NotFoundHandler()
	}
	return s.Page
}

// handle is the signup tool's handler: one round of the flow per call, on
// every host, and one switch over its outcome.
func (s *signup) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Next's errors are returned as they are: mcpgo's transports send a
	// bad state as -32602 and a client that can be asked no way as -32021.
	round, err := mcpgo.Next(ctx, s.Signup, req)
	if err != nil {
		return nil, err
	}
	const what = "Signup not completed"
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in struct {
			Account
			Team
		}
		if err := round.Answers.Decode(&in); err != nil {
			return s.failed(what, err), nil
		}
		// Once runs create for the first finish of this run only; a
		// replay, on any replica, gets its outcome and creates nothing.
		principal := principalOf(ctx)
		res, err := round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			o, err := s.store.Create(ctx, round.ID, in.Account, in.Team, principal, round.Language)
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
	o, ok := s.SignupEnded(accounts.Round{Status: round.Status, Step: round.Step, Attempt: round.Attempt, Problems: round.Problems, Lang: round.Language})
	if !ok {
		return nil, fmt.Errorf("signup: unexpected flow status %v", round.Status)
	}
	return s.once(ctx, round, what, o), nil
}
