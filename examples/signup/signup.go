package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolName is the signup tool's name. Request state is bound to it, so a
// state minted here is refused by any other tool sharing the key.
const toolName = "signup"

// localPrincipal is whom request state is bound to when the transport has
// no authentication (stdio, the demo, plain HTTP): everyone who can reach
// the server is one principal. Behind auth (go-sdk's auth.RequireBearerToken),
// the principal is the token's UserID instead.
const localPrincipal = "local"

// The signup's questions are these two types: FormFor derives each step's
// fields from one, in order, from its tags. That is the only field list:
// the native forms, the UI form and the decoded answers all come from it.

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

// A Plan is what an account pays for. FormFor asks a Plan as a choice among
// its Options, each titled with its label; a client that shows only the
// values still has the prices from the field's description.
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
	principal string                     // whom state is bound to without auth
	ui        *mcpform.Form[signupInput] // the whole signup on one form
	log       *log.Logger                // the server's log, for what clients must not read
}

// signupInput is a finished signup's answers.
type signupInput struct {
	Account
	Team
}

// newSignup returns the signup and set_password tools, signing their state
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
	}, &mcpform.FlowOptions{Principal: s.flowPrincipal})
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
	// A form in the browser can't branch between rounds, so the UI path
	// asks both steps' fields at once, the team questions optional there
	// and required by handleUI for the team plan.
	fields := account.Fields()
	for _, f := range team.Fields() {
		f.Required, f.Placeholder = false, "Team plan only"
		fields = append(fields, f)
	}
	s.ui, err = mcpform.NewForm[signupInput](fields, &mcpform.FormOptions{Key: "signup"})
	return s, err
}

// newServer returns an MCP server with the signup tool and the MCP Apps
// viewer that shows the tool's form on hosts that render MCP Apps.
func newServer(s *signup) *mcp.Server {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpform-signup", Version: "v0.1.0"},
		&mcp.ServerOptions{Capabilities: caps})
	tool := &mcp.Tool{
		Name:        toolName,
		Title:       "Sign up",
		Description: "Create an account. The tool asks the person for their details itself; call it with no arguments.",
		// Raw arguments: the form in an MCP Apps view submits to this
		// tool, and a browser sends numbers as text.
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}
	// The viewer loads prefab's renderer from its pinned CDN location.
	// Errors are impossible with the default options.
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		panic(err)
	}
	if err := mcpform.AddViewer(server, &mcpform.ViewerOptions{Title: "Sign up"}); err != nil {
		panic(err)
	}
	server.AddTool(tool, s.guard("Signup not completed", s.handle))
	if s.password != nil {
		server.AddTool(passwordToolDef, s.guard("Password not set", s.handlePassword))
	}
	// Clients older than 2026-07-28 answer every round too: go-sdk alone
	// would ask them only the first, and wait on them without end.
	mcpform.AddLegacyRounds(server, nil)
	return server
}

// guard returns h, whose errors other than JSON-RPC ones become a generic
// error result, beginning with what, and go to the server's log in full.
// Those errors come from the database: its own words can quote what a
// client sent (PostgreSQL: invalid byte sequence for encoding "UTF8":
// 0x00) or name the schema, and reach the client as JSON-RPC code 0. The
// JSON-RPC errors of mcpform.Flow.Next (-32602, -32021) are the protocol's,
// and pass as they are.
func (s *signup) guard(what string, h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req)
		var rpcErr *jsonrpc.Error
		if err == nil || errors.As(err, &rpcErr) {
			return res, err
		}
		// A reference pairs what the person reports with the log line.
		ref := make([]byte, 4)
		rand.Read(ref) // never fails; see crypto/rand.Read
		s.log.Printf("%s: reference %x: %v", req.Params.Name, ref, err)
		o := notCompleted("error", fmt.Sprintf("%s: the server failed to finish it. Try again in a while; "+
			"if it keeps failing, tell the operator the reference %x.", what, ref))
		o.IsError = true
		return o.result(), nil
	}
}

// secretPage is the page where set_password's person types the password,
// or a 404 without set_password.
func (s *signup) secretPage() http.Handler {
	if s.page == nil {
		return http.NotFoundHandler()
	}
	return s.page
}

// handle is the tool handler. It is written once and runs every round: the
// first call, each retry carrying answers and request state, the
// re-invocation go-sdk makes for a client older than 2026-07-28 after it has
// asked with elicitation/create itself, and the call a form in an MCP Apps
// view makes when the person submits it.
func (s *signup) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	principal, err := s.principalOf(req)
	if err != nil {
		return nil, err
	}
	// A host that renders MCP Apps gets the form as a UI, unless it is
	// already answering natively.
	if req.Params.RequestState == "" && len(req.Params.InputResponses) == 0 &&
		mcpform.PathFor(req.ClientCapabilities()) == mcpform.PathApps {
		return s.handleUI(ctx, req, principal)
	}
	// Next asks, re-asks naming the problems, or finishes. Its errors are
	// JSON-RPC errors to return as they are: -32602 for a state that does
	// not verify, -32021 for a client that declared no way to answer.
	round, err := s.flow.Next(req)
	if err != nil {
		return nil, err
	}
	// round.ID names this run of the flow, in every round and every
	// replay of one: the idempotency key of its outcome.
	idem := "flow:" + round.ID
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in signupInput
		if err := round.Answers.Decode(&in); err != nil {
			return nil, err
		}
		return s.finish(ctx, in.Account, in.Team, principal, idem)
	case mcpform.FlowDeclined:
		return s.settle(ctx, idem, notCompleted("declined", fmt.Sprintf(
			"Signup not completed: you declined to give your %s details. Nothing was created.", round.Step)))
	case mcpform.FlowCancelled:
		return s.settle(ctx, idem, notCompleted("cancelled",
			"Signup not completed: the form was cancelled before it was sent. Nothing was created."))
	case mcpform.FlowInvalid:
		o := notCompleted("invalid", fmt.Sprintf(
			"Signup not completed: the %s details were still invalid after %d attempts. %s Nothing was created.",
			round.Step, round.Attempt, mcpform.ProblemMessage(s.flow.Fields(round.Step), round.Problems)))
		o.IsError = true
		return s.settle(ctx, idem, o)
	}
	return nil, fmt.Errorf("signup: unexpected flow status %v", round.Status)
}

// handleUI serves a client that renders MCP Apps: the first call shows
// the form, and the form's submit calls the tool again with the values as
// its arguments. The host, not a signed state, vouches for a submitted
// form, as for any MCP Apps tool call.
func (s *signup) handleUI(ctx context.Context, req *mcp.CallToolRequest, principal string) (*mcp.CallToolResult, error) {
	reply := s.ui.ReadArguments(req.Params.Arguments)
	switch {
	case reply.Status == mcpform.ReplyNone:
		return s.showForm(nil) // the first call: no arguments
	case reply.Status == mcpform.ReplyInvalid:
		return s.showForm(reply.Problems)
	case reply.Value.Plan == "team":
		// Optional on the form, the team questions are required for the
		// team plan.
		var problems []*mcpform.FieldError
		for _, name := range []string{"team_name", "seats"} {
			if _, ok := reply.Answers[name]; !ok {
				problems = append(problems, &mcpform.FieldError{Field: name,
					Err: fmt.Errorf("%w: needed for the Team plan", mcpform.ErrMissing)})
			}
		}
		if problems != nil {
			return s.showForm(problems)
		}
	}
	// The same values from the same principal are the same signup, such
	// as a double click; any other signup for the email finds it taken.
	canon, err := json.Marshal(reply.Answers)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(principal + "\x00" + string(canon)))
	return s.finish(ctx, reply.Value.Account, reply.Value.Team, principal, "ui:"+hex.EncodeToString(sum[:]))
}

// showForm returns the signup form as an MCP Apps UI, naming problems of
// the last submission, if any.
func (s *signup) showForm(problems []*mcpform.FieldError) (*mcp.CallToolResult, error) {
	subtitle := "For the Team plan, also give your team's name and seats."
	if msg := mcpform.ProblemMessage(s.ui.Fields(), problems); msg != "" {
		subtitle = msg
	}
	return s.ui.Display(toolName, &mcpform.DisplayFormOptions{
		Title:          "Create your account",
		Subtitle:       subtitle,
		SubmitLabel:    "Sign up",
		SuccessMessage: "Sent",
	})
}

// flowPrincipal is principalOf for a flow. The handlers refuse a call
// principalOf can't name before the flow's Next runs.
func (s *signup) flowPrincipal(req *mcp.CallToolRequest) string {
	p, _ := s.principalOf(req)
	return p
}

// principalOf returns whom the request state is bound to: the
// authenticated user when the transport has auth, else s.principal.
func (s *signup) principalOf(req *mcp.CallToolRequest) (string, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return s.principal, nil
	}
	if id := req.Extra.TokenInfo.UserID; id != "" {
		return "user:" + id, nil
	}
	// An authenticated caller we can't name would share request state
	// with every other such caller: refuse rather than bind weakly.
	return "", errors.New("signup: the bearer token names no user; cannot bind request state")
}

// finish creates the account, or reports why it can't, as the tool's final
// result. idem names this signup: if it has finished before, its first
// result is returned again, and nothing is created.
func (s *signup) finish(ctx context.Context, a Account, t Team, principal, idem string) (*mcp.CallToolResult, error) {
	acct := account{Email: a.Email, FullName: a.FullName, Plan: string(a.Plan), Principal: principal}
	if a.Plan == "team" {
		acct.TeamName, acct.Seats = t.TeamName, t.Seats
	}
	o, err := s.store.finish(ctx, idem, func(tx *sql.Tx) (outcome, error) {
		ok, err := s.store.createAccount(ctx, tx, idem, &acct)
		if err != nil || ok {
			return outcome{Text: createdText(acct), Data: resultData{Status: "created", Account: &acct}}, err
		}
		o := notCompleted("exists", fmt.Sprintf("Signup not completed: %s is already registered. "+
			"Sign in instead, or sign up with another email. Nothing was created.", a.Email))
		o.IsError = true
		return o, nil
	})
	if err != nil {
		return nil, err
	}
	return o.result(), nil
}

// settle stores o, which changes nothing, as the outcome of the run idem,
// and returns the first outcome stored under idem.
func (s *signup) settle(ctx context.Context, idem string, o outcome) (*mcp.CallToolResult, error) {
	o, err := s.store.finish(ctx, idem, func(*sql.Tx) (outcome, error) { return o, nil })
	if err != nil {
		return nil, err
	}
	return o.result(), nil
}

func createdText(a account) string {
	who := a.Email
	if a.FullName != "" {
		who = a.FullName + " <" + a.Email + ">"
	}
	switch a.Plan {
	case "team":
		return fmt.Sprintf("Signup complete: created %s on the Team plan for %q, %d seats.", who, a.TeamName, a.Seats)
	case "pro":
		return fmt.Sprintf("Signup complete: created %s on the Pro plan.", who)
	}
	return fmt.Sprintf("Signup complete: created %s on the Free plan.", who)
}
