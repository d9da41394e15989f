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
	"github.com/mcpform/mcpform/mcpgo"
)

// toolName is the signup tool's name. Request state is bound to it, so a
// state minted here is refused by any other tool sharing the key.
const toolName = "signup"

// The signup's questions are these two types, the only field list, as in
// examples/signup.

// An Account is what the first step asks.
type Account struct {
	Email    string `json:"email" mcpform:"label=Email,type=email" jsonschema:"One account per address; we send receipts here."`
	FullName string `json:"full_name,omitempty" mcpform:"label=Full name,max=100" jsonschema:"How we greet you."`
	Plan     Plan   `json:"plan" mcpform:"label=Plan,default=free" jsonschema:"Pro is $12 a month. Team is $10 a seat a month, and asks about your team next."`
}

// A Team is what the second step asks, of the team plan only.
type Team struct {
	TeamName string `json:"team_name" mcpform:"label=Team name,min=2,max=60"`
	Seats    int    `json:"seats" mcpform:"label=Seats,min=2,max=50,default=5" jsonschema:"How many people will sign in."`
}

// A Plan is asked as a choice among its Options, titled with their labels.
type Plan string

func (Plan) Options() []mcpform.Option {
	return []mcpform.Option{
		{Value: "free", Label: "Free"},
		{Value: "pro", Label: "Pro, $12 a month"},
		{Value: "team", Label: "Team, $10 a seat a month"},
	}
}

// A signup holds what the tool handlers need: the flows and the store.
type signup struct {
	flow      *mcpform.Flow // signup's
	password  *mcpform.Flow // set_password's (password.go); nil without it
	page      http.Handler  // set_password's secret page
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
	account, err := mcpform.FormFor[Account](&mcpform.FormOptions{Key: "account", Message: "Create your account"})
	if err != nil {
		return nil, err
	}
	team, err := mcpform.FormFor[Team](&mcpform.FormOptions{Key: "team", Message: "Tell us about your team"})
	if err != nil {
		return nil, err
	}
	s := &signup{store: st, principal: cmp.Or(principal, localPrincipal),
		log: log.New(os.Stderr, "mcpform mcpgo: ", log.LstdFlags)}
	s.flow, err = mcpform.NewFlow(codec, []mcpform.Step{
		{Form: account},
		{Form: team, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &mcpform.FlowOptions{
		ContextPrincipal: principalOf,
		Outcomes:         st.runs, // the first outcome of each run wins, on every replica
		AskModel:         *askModelFlag,
	})
	if err != nil {
		return nil, err
	}
	if pageURL != "" {
		if s.password, err = newPasswordFlow(codec, st, pageURL); err != nil {
			return nil, err
		}
		if s.page, err = s.password.SecretPage(&mcpform.SecretPageOptions{AnyoneWithTheLink: true}); err != nil {
			return nil, err
		}
	}
	return s, nil
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
		s.flow.InputSchema(nil)) // the arguments a view, a link or the model sends back
	tool.Title = "Sign up"
	if err := mcpgo.AttachViewer(&tool, nil); err != nil {
		panic(err)
	}
	srv.AddTool(tool, s.handle)
	if s.password != nil {
		srv.AddTool(passwordToolDef(s.password), s.handlePassword)
	}
	return srv
}

// secretPage is the page where set_password's person types the password,
// or a 404 without set_password.
func (s *signup) secretPage() http.Handler {
	if s.page == nil {
		return http.NotFoundHandler()
	}
	return s.page
}

// handle is the signup tool's handler: one round of the flow per call, on
// every host, and one switch over its outcome.
func (s *signup) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Next's errors are returned as they are: mcpgo's transports send a
	// bad state as -32602 and a client that can be asked no way as -32021.
	round, err := mcpgo.Next(ctx, s.flow, req)
	if err != nil {
		return nil, err
	}
	var o outcome
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in struct {
			Account
			Team
		}
		if err := round.Answers.Decode(&in); err != nil {
			return s.failed("Signup not completed", err), nil
		}
		// Once runs create for the first finish of this run only; a
		// replay, on any replica, gets its outcome and creates nothing.
		principal := principalOf(ctx)
		res, err := round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			return s.create(ctx, round.ID, in.Account, in.Team, principal)
		})
		if err != nil {
			return s.failed("Signup not completed", err), nil
		}
		return res, nil
	case mcpform.FlowDeclined:
		o = notCompleted("declined", fmt.Sprintf(
			"Signup not completed: you declined to give your %s details. Nothing was created.", round.Step))
	case mcpform.FlowCancelled:
		o = notCompleted("cancelled", "Signup not completed: the form was cancelled before it was sent. Nothing was created.")
	case mcpform.FlowInvalid:
		o = notCompleted("invalid", fmt.Sprintf(
			"Signup not completed: the %s details were still invalid after %d attempts. %s Nothing was created.",
			round.Step, round.Attempt, mcpform.ProblemMessage(s.flow.Fields(round.Step), round.Problems)))
		o.IsError = true
	default:
		return nil, fmt.Errorf("signup: unexpected flow status %v", round.Status)
	}
	return s.once(ctx, round, "Signup not completed", o), nil
}

// create creates the account of run, or reports that its email is taken.
func (s *signup) create(ctx context.Context, run string, a Account, t Team, principal string) (*mcp.CallToolResult, error) {
	acct := account{Email: a.Email, FullName: a.FullName, Plan: string(a.Plan), Principal: principal}
	if a.Plan == "team" {
		acct.TeamName, acct.Seats = t.TeamName, t.Seats
	}
	ok, err := s.store.createAccount(ctx, run, &acct)
	if err != nil || ok {
		return outcome{Text: createdText(acct), Data: resultData{Status: "created", Account: &acct}}.result(), err
	}
	o := notCompleted("exists", fmt.Sprintf("Signup not completed: %s is already registered. "+
		"Sign in instead, or sign up with another email. Nothing was created.", a.Email))
	o.IsError = true
	return o.result(), nil
}
