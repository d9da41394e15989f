package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolName is the signup tool's name. Request state is bound to it, so a
// state minted here is refused by any other tool sharing the key.
const toolName = "signup"

// localPrincipal is whom request state is bound to when the transport has
// no authentication (stdio, the demo, plain HTTP): everyone who can reach
// the server is one principal. Behind auth (go-sdk's auth.RequireBearerToken),
// the principal is the token's UserID instead. The -principal flag renames
// it, for tests that want to tell two servers' principals apart.
const localPrincipal = "local"

// The two steps of the signup flow. Field names are unique across both,
// because the flow merges the answers.
var (
	accountFields = []mcpform.AutoFormField{
		{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true,
			Description: "One account per address; we send receipts here."},
		{Name: "full_name", Label: "Full name", Max: mcpform.Bound(100),
			Description: "How we greet you."},
		{Name: "plan", Label: "Plan", Required: true, Default: "free",
			Description: "Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.",
			// The labels show on the UI path; the native schema carries
			// only the values, so the description names the prices.
			Options: []mcpform.Option{
				{Value: "free", Label: "Free"},
				{Value: "pro", Label: "Pro, $12 a month"},
				{Value: "team", Label: "Team, $10 a seat a month"},
			}},
	}
	teamFields = []mcpform.AutoFormField{
		{Name: "team_name", Label: "Team name", Required: true, Min: mcpform.Bound(2), Max: mcpform.Bound(60)},
		{Name: "seats", Label: "Seats", Type: mcpform.TypeInteger, Required: true,
			Min: mcpform.Bound(2), Max: mcpform.Bound(50), Default: 5,
			Description: "How many people will sign in."},
	}
	// uiFields is the whole signup as one form, for hosts that render MCP
	// Apps. A form in the browser can't branch on the plan between rounds,
	// so the team questions are on it too, optional in the schema, and
	// the handler requires them for the team plan. The renderer shows
	// placeholders, not descriptions.
	uiFields = append(slices.Clone(accountFields),
		mcpform.AutoFormField{Name: "team_name", Label: "Team name", Placeholder: "Team plan only",
			Min: mcpform.Bound(2), Max: mcpform.Bound(60)},
		mcpform.AutoFormField{Name: "seats", Label: "Seats", Type: mcpform.TypeInteger, Placeholder: "Team plan only: 2 to 50",
			Min: mcpform.Bound(2), Max: mcpform.Bound(50)},
	)
	signupSteps = []mcpform.Step{
		{Key: "account", Fields: accountFields, Message: "Create your account"},
		{Key: "team", Fields: teamFields, Message: "Tell us about your team",
			When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}
)

// signupInput is the decoded, accepted answers of a finished signup.
type signupInput struct {
	Email    string `json:"email"`
	FullName string `json:"full_name"`
	Plan     string `json:"plan"`
	TeamName string `json:"team_name"`
	Seats    int    `json:"seats"`
}

// signup holds what the tool handler needs: the flow, the codec that signs
// its request state, and the account store.
type signup struct {
	flow      *mcpform.Flow
	codec     *mcpform.RequestStateCodec
	store     *store
	principal string // used when the request carries no authenticated user
}

// newSignup returns the signup tool's state. principal "" means
// localPrincipal.
func newSignup(codec *mcpform.RequestStateCodec, st *store, principal string) (*signup, error) {
	if principal == "" {
		principal = localPrincipal
	}
	s := &signup{codec: codec, store: st, principal: principal}
	flow, err := mcpform.NewFlow(codec, signupSteps, &mcpform.FlowOptions{
		// handle refuses a call principalOf can't name before Next runs.
		Principal: func(req *mcp.CallToolRequest) string { p, _ := s.principalOf(req); return p },
	})
	if err != nil {
		return nil, err
	}
	s.flow = flow
	return s, nil
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
	server.AddTool(tool, s.handle)
	// Clients older than 2026-07-28 answer every round too: go-sdk alone
	// would ask them only the first.
	server.AddReceivingMiddleware(mcpform.LegacyRounds)
	return server
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
	// A client that declares MCP Apps support, in its session's
	// capabilities or, on 2026-07-28, in each request's _meta, gets the
	// form as a UI, unless it is already answering natively.
	if req.Params.RequestState == "" && len(req.Params.InputResponses) == 0 &&
		mcpform.ClientSupportsApps(req.ClientCapabilities()) {
		return s.handleUI(ctx, req, principal)
	}
	round, err := s.flow.Next(req)
	if err != nil {
		// A state that does not verify, has expired, or was minted for
		// another tool or principal: the -32602 *jsonrpc.Error from
		// mcpform.RequestStateError, returned unwrapped so that go-sdk
		// sends it as the JSON-RPC error.
		return nil, err
	}
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in signupInput
		if err := round.Answers.Decode(&in); err != nil {
			return nil, err
		}
		// round.ID names this run of the flow: random when it started,
		// then signed into every round's state, so every replay of any of
		// its rounds carries it. It is the idempotency key: the first
		// outcome stored under it is the run's outcome.
		return s.finish(ctx, in, principal, "flow:"+round.ID)
	case mcpform.FlowDeclined:
		return s.settle(ctx, "flow:"+round.ID, notCompleted("declined", fmt.Sprintf(
			"Signup not completed: you declined to give your %s details. Nothing was created.", stepNoun(round.Step))))
	case mcpform.FlowCancelled:
		return s.settle(ctx, "flow:"+round.ID, notCompleted("cancelled",
			"Signup not completed: the form was cancelled before it was sent. Nothing was created."))
	case mcpform.FlowInvalid:
		o := notCompleted("invalid", fmt.Sprintf(
			"Signup not completed: the %s details were still invalid after %d attempts. %s Nothing was created.",
			stepNoun(round.Step), round.Attempt, mcpform.ProblemMessage(stepFields(round.Step), round.Problems)))
		o.IsError = true
		return s.settle(ctx, "flow:"+round.ID, o)
	}
	return nil, fmt.Errorf("signup: unexpected flow status %v", round.Status)
}

// handleUI serves a client that renders MCP Apps: the first call shows
// the form, and the form's submit calls the tool again with the values as
// its arguments.
//
// Arguments count as answers only here, from a client that declared MCP
// Apps: any other client's arguments are ignored, and the person is asked
// natively. The host, not a signed state, vouches for a submitted form, as
// for any MCP Apps tool call; a real service would confirm the email.
func (s *signup) handleUI(ctx context.Context, req *mcp.CallToolRequest, principal string) (*mcp.CallToolResult, error) {
	answers, problems := mcpform.CheckFormArguments(req.Params.Arguments, uiFields)
	if answers == nil && problems == nil {
		return showForm(nil) // the first call: no arguments
	}
	if answers != nil && answers["plan"] == "team" {
		// The team questions, optional on the form, are required for
		// the team plan: report the reason a value was dropped, or that
		// there was none.
		for _, f := range teamFields {
			if _, ok := answers[f.Name]; ok || slices.ContainsFunc(problems, func(p *mcpform.FieldError) bool { return p.Field == f.Name }) {
				continue
			}
			problems = append(problems, &mcpform.FieldError{Field: f.Name,
				Err: fmt.Errorf("%w: needed for the Team plan", mcpform.ErrMissing)})
		}
		for _, f := range teamFields {
			if _, ok := answers[f.Name]; !ok {
				answers = nil
				break
			}
		}
	}
	if answers == nil {
		return showForm(problems)
	}
	var in signupInput
	if err := answers.Decode(&in); err != nil {
		return nil, err
	}
	// The same values from the same principal are the same signup, such
	// as a double click; any other signup for the email finds it taken.
	canon, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(principal + "\x00" + string(canon)))
	return s.finish(ctx, in, principal, "ui:"+hex.EncodeToString(sum[:]))
}

// showForm returns the signup form as an MCP Apps UI, naming problems of
// the last submission, if any.
func showForm(problems []*mcpform.FieldError) (*mcp.CallToolResult, error) {
	subtitle := "For the Team plan, also give your team's name and seats."
	if msg := mcpform.ProblemMessage(uiFields, problems); msg != "" {
		subtitle = msg
	}
	return mcpform.DisplayForm(uiFields, toolName, &mcpform.DisplayFormOptions{
		Title:          "Create your account",
		Subtitle:       subtitle,
		SubmitLabel:    "Sign up",
		SuccessMessage: "Sent",
	})
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
// result. idem names this signup for idempotency: if it has finished
// before, its first result is returned again, and nothing is created.
func (s *signup) finish(ctx context.Context, in signupInput, principal, idem string) (*mcp.CallToolResult, error) {
	acct := account{
		Email: in.Email, FullName: in.FullName, Plan: in.Plan,
		TeamName: in.TeamName, Seats: in.Seats, Principal: principal,
	}
	if in.Plan != "team" {
		acct.TeamName, acct.Seats = "", 0
	}
	created := outcome{Text: createdText(acct), Data: resultData{Status: "created", Account: &acct}}
	exists := func() outcome {
		o := notCompleted("exists", fmt.Sprintf(
			"Signup not completed: %s is already registered. Sign in instead, or sign up with another email. Nothing was created.", in.Email))
		o.IsError = true
		return o
	}
	o, err := s.store.finish(ctx, idem, &acct, created, exists)
	if err != nil {
		return nil, err
	}
	return o.result(), nil
}

// settle stores o, which creates nothing, as the outcome of the signup
// idem, and returns the first outcome stored under idem.
func (s *signup) settle(ctx context.Context, idem string, o outcome) (*mcp.CallToolResult, error) {
	o, err := s.store.finish(ctx, idem, nil, o, nil)
	if err != nil {
		return nil, err
	}
	return o.result(), nil
}

// resultData is the structured content of a final result, for programs
// (and tests) that read it rather than the text.
type resultData struct {
	// Status is created, exists, declined, cancelled or invalid.
	Status  string   `json:"status"`
	Account *account `json:"account,omitempty"`
}

func notCompleted(status, text string) outcome {
	return outcome{Text: text, Data: resultData{Status: status}}
}

// result is o as the tool's final result.
func (o outcome) result() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: o.Text}},
		StructuredContent: o.Data,
		IsError:           o.IsError,
	}
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

func stepNoun(key string) string {
	if key == "team" {
		return "team"
	}
	return "account"
}

func stepFields(key string) []mcpform.AutoFormField {
	if key == "team" {
		return teamFields
	}
	return accountFields
}

// An account is one signup, as stored.
type account struct {
	Email     string `json:"email"`
	FullName  string `json:"full_name,omitempty"`
	Plan      string `json:"plan"`
	TeamName  string `json:"team_name,omitempty"`
	Seats     int    `json:"seats,omitempty"`
	Principal string `json:"-"`
}
