package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolName is the signup tool's name. Request state is bound to it, so a
// state minted here is refused by any other tool sharing the key.
const toolName = "signup"

// A signup holds what the tool handlers need: the flows, their page and
// the store, which examples/internal/accounts defines for every SDK; this
// example is their go-sdk face.
type signup struct {
	*accounts.Tools
	store     *store
	principal string      // whom state is bound to without auth
	log       *log.Logger // the server's log, for what clients must not read
}

// newSignup returns the signup and set_password tools, sealing their state
// with codec and storing accounts in st. principal "" means localPrincipal.
// pageURL is where the server serves secretPage; "" leaves set_password
// out.
func newSignup(codec *mcpform.RequestStateCodec, st *store, principal, pageURL string) (*signup, error) {
	s := &signup{store: st, principal: cmp.Or(principal, localPrincipal),
		log: log.New(os.Stderr, "mcpform signup: ", log.LstdFlags)}
	var err error
	s.Tools, err = accounts.NewTools(codec, st, pageURL, mcpform.FlowOptions{Principal: s.flowPrincipal, AskModel: *askModelFlag,
		CheckAnswers: *checkFlag})
	return s, err
}

// newServer returns an MCP server with the tools and the MCP Apps viewer
// that shows their steps on hosts that render MCP Apps.
func newServer(s *signup) *mcp.Server {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpform-signup", Version: "v0.1.0"},
		&mcp.ServerOptions{Capabilities: caps})
	tool := &mcp.Tool{
		Name:        toolName,
		Title:       "Sign up",
		Description: "Create an account. The tool asks the person for their details itself; call it with no arguments.",
		// The arguments a view, a link or the model sends back.
		InputSchema: s.Signup.InputSchema(nil),
	}
	// The viewer carries prefab's renderer inline, loading nothing;
	// with the default options, these cannot fail.
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		panic(err)
	}
	if err := mcpform.AddViewer(server, &mcpform.ViewerOptions{Title: "Sign up"}); err != nil {
		panic(err)
	}
	server.AddTool(tool, s.guard("Signup not completed", s.handle))
	if s.Password != nil {
		server.AddTool(passwordToolDef(s.Password), s.guard("Password not set", s.handlePassword))
	}
	// Clients older than 2026-07-28 answer every round too: go-sdk alone
	// would ask them only the first, and wait on them without end. A
	// closing session waits for its calls: no wait outlasts its timeout.
	// Without auth, a client is its remote address (clients.go). By
	// default half the sessions at most hold waiting calls, so that a new
	// client finds an idle session to replace (serve.go), and then a call
	// to end (LegacyOptions.MaxCalls).
	mcpform.AddLegacyRounds(server, &mcpform.LegacyOptions{Timeout: *idleFlag,
		MaxCallsPerClient: *clientCalls, MaxCalls: cmp.Or(*maxCalls, max(*maxSessions/2, 1)), Client: legacyClient})
	return server
}

// secretPage is the page where set_password's person types the password,
// or a 404 without set_password.
func (s *signup) secretPage() http.Handler {
	if s.Page == nil {
		return http.NotFoundHandler()
	}
	return s.Page
}

// handle is the tool handler. It is written once and runs every round, on
// every host: the flow asks in a native form, an MCP Apps view or through
// the model, whichever the client can answer, and the handler only acts
// on the outcome.
func (s *signup) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	principal, err := s.principalOf(req)
	if err != nil {
		return nil, err
	}
	// Next asks, re-asks naming the problems, or finishes. Its errors are
	// JSON-RPC errors to return as they are: -32602 for a state that does
	// not verify, -32021 for a client that can be asked no way.
	round, err := s.Signup.Next(ctx, req)
	if err != nil {
		return nil, err
	}
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in struct {
			Account
			Team
		}
		if err := round.Answers.Decode(&in); err != nil {
			return nil, err
		}
		// Once runs create for the first finish of this run only; a
		// replay, on any replica, gets its outcome and creates nothing.
		return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			o, err := s.store.Create(ctx, round.ID, in.Account, in.Team, principal, round.Language)
			if err != nil {
				return nil, err
			}
			return result(round, o)
		})
	}
	o, ok := s.SignupEnded(accounts.Round{Status: round.Status, Step: round.Step, Attempt: round.Attempt, Problems: round.Problems, Lang: round.Language})
	if !ok {
		return nil, fmt.Errorf("signup: unexpected flow status %v", round.Status)
	}
	return round.Once(ctx, do(round, o))
}
