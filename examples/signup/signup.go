package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolName is the signup tool's name. Request state is bound to it, so a
// state minted here is refused by any other tool sharing the key.
const toolName = "signup"

// The signup's questions are these two types, the only field list: FormFor
// derives each step from one, and native forms, MCP Apps views, what the
// model is asked and the decoded answers all come from it.

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
	principal string      // whom state is bound to without auth
	log       *log.Logger // the server's log, for what clients must not read
}

// newSignup returns the signup and set_password tools, sealing their state
// with codec and storing accounts in st. principal "" means localPrincipal.
// pageURL is where the server serves secretPage; "" leaves set_password
// out.
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
		log: log.New(os.Stderr, "mcpform signup: ", log.LstdFlags)}
	s.flow, err = mcpform.NewFlow(codec, []mcpform.Step{
		{Form: account},
		{Form: team, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &mcpform.FlowOptions{
		Principal: s.flowPrincipal,
		Outcomes:  st.runs, // the first outcome of each run wins, on every replica
		// A host with neither forms nor MCP Apps is asked through its
		// model: nothing here is a consent the person must give.
		AskModel: *askModelFlag,
	})
	if err != nil {
		return nil, err
	}
	if pageURL != "" {
		if s.password, err = newPasswordFlow(codec, st, pageURL, s.flowPrincipal); err != nil {
			return nil, err
		}
		if s.page, err = passwordPage(s.password); err != nil {
			return nil, err
		}
	}
	return s, nil
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
		InputSchema: s.flow.InputSchema(nil),
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
	if s.password != nil {
		server.AddTool(passwordToolDef(s.password), s.guard("Password not set", s.handlePassword))
	}
	// Clients older than 2026-07-28 answer every round too: go-sdk alone
	// would ask them only the first, and wait on them without end. A
	// closing session waits for its calls: no wait outlasts its timeout.
	// Without auth, a client is its remote address (clients.go).
	mcpform.AddLegacyRounds(server, &mcpform.LegacyOptions{Timeout: *idleFlag,
		MaxCallsPerClient: *clientCalls, Client: legacyClient})
	return server
}

// secretPage is the page where set_password's person types the password,
// or a 404 without set_password.
func (s *signup) secretPage() http.Handler {
	if s.page == nil {
		return http.NotFoundHandler()
	}
	return s.page
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
	round, err := s.flow.Next(ctx, req)
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
			return nil, err
		}
		// Once runs create for the first finish of this run only; a
		// replay, on any replica, gets its outcome and creates nothing.
		return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			return s.create(ctx, round.ID, in.Account, in.Team, principal)
		})
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
	return round.Once(ctx, o.do)
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
