// Command floor is the signup of examples/signup written on go-sdk alone,
// the floor that e2e/loadgen measures mcpform against: what any library on
// go-sdk pays for the same conversation.
//
// It answers the loadgen's scripted client with the bytes examples/signup
// answers (the same forms, the same final result; TestFloorConversation
// holds it to that), but checks, signs and seals nothing: the request
// state is the step and the account answers in clear, an answer is read
// without being checked against its form, and no outcome is kept for a
// replay. It keeps what the application keeps, one entry per account, so
// that peak memory compares the libraries rather than the applications.
// It serves only what the loadgen sends: 2026-07-28 calls whose forms are
// accepted.
//
// Usage: floor [-http ADDR]
//
// It serves go-sdk's stateless streamable HTTP handler with JSON responses,
// as examples/signup serves 2026-07-28 clients, and prints its URL on
// stderr, on one line:
//
//	floor signup: listening on http://127.0.0.1:PORT/mcp
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The forms of examples/signup, as its requestedSchema sends them.
var (
	accountSchema = json.RawMessage(`{"type":"object","properties":{"email":{"type":"string","title":"Email","description":"One account per address; we send receipts here.","format":"email"},"full_name":{"type":"string","title":"Full name","description":"How we greet you.","maxLength":100},"plan":{"type":"string","title":"Plan","description":"Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.","default":"free","oneOf":[{"title":"Free","const":"free"},{"title":"Pro, $12 a month","const":"pro"},{"title":"Team, $10 a seat a month","const":"team"}]}},"required":["email","plan"]}`)
	teamSchema    = json.RawMessage(`{"type":"object","properties":{"team_name":{"type":"string","title":"Team name","minLength":2,"maxLength":60},"seats":{"type":"integer","title":"Seats","description":"How many people will sign in.","default":5,"minimum":2,"maximum":50}},"required":["team_name","seats"]}`)
)

// signupInput is the input schema of examples/signup's signup tool, which
// offers the model its questions too. go-sdk reads a tool's input schema
// on every call, for the parameters it binds to HTTP headers, so the
// floor declares the same one: what any library on go-sdk pays to offer
// the same tool. It declares it as JSON, as Flow.InputSchema returns it
// to the example: go-sdk re-reads the two at the same cost.
const signupInput = `{"type":"object","properties":{"email":{"type":"string","title":"Email","description":"One account per address; we send receipts here.","format":"email"},"full_name":{"type":"string","title":"Full name","description":"How we greet you.","maxLength":100},"plan":{"type":"string","title":"Plan","description":"Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.","enum":["free","pro","team"]},"team_name":{"type":"string","title":"Team name","minLength":2,"maxLength":60},"seats":{"type":"integer","title":"Seats","description":"How many people will sign in.","minimum":2,"maximum":50},"mcpform":{"type":"string","description":"The state of the form, sent back unchanged as a previous result of this tool gave it."},"mcpformAction":{"type":"string","description":"Sent, with the state and no answers, when the person declines to answer.","enum":["decline"]}}}`

// The forms' messages, as examples/signup's native rounds say them: where
// the step stands, its message, and what accepting it does.
const (
	accountMessage = "Step 1 of up to 2\n\nCreate your account\n\n" +
		"Depending on your answers, this may be the last step. Accepting it then does this: Create account."
	teamMessage = "Step 2 of 2\n\nTell us about your team\n\nThis is the last step. Accepting it does this: Create account."
)

// A record is a created account, as examples/signup reports it.
type record struct {
	Email    string `json:"email"`
	FullName string `json:"full_name,omitempty"`
	Plan     string `json:"plan"`
	TeamName string `json:"team_name,omitempty"`
	Seats    int    `json:"seats,omitempty"`
}

// data is a final result's structured content, as examples/signup's: its
// own members, then those mcpform adds for a view's outcome.
type data struct {
	Status  string   `json:"status"`
	Account *record  `json:"account,omitempty"`
	Heading string   `json:"mcpformHeading"`
	Summary []string `json:"mcpformSummary"`
	End     string   `json:"mcpformEnd"`
}

// state is the request state, in clear: the step asked, and on the team
// step the account answered before it.
type state struct {
	Step    string  `json:"step"`
	Account *record `json:"account,omitempty"`
}

// accounts keeps one entry per created account, by email.
var accounts = struct {
	sync.Mutex
	m map[string]struct{}
}{m: map[string]struct{}{}}

// signup is the tool handler: one call per round.
func signup(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := req.Params
	if p.RequestState == "" {
		return ask("account", accountMessage, accountSchema, state{Step: "account"})
	}
	var st state
	if err := json.Unmarshal([]byte(p.RequestState), &st); err != nil {
		return nil, err
	}
	answer, ok := p.InputResponses[st.Step].(*mcp.ElicitResult)
	if !ok || answer.Action != "accept" {
		return nil, fmt.Errorf("floor: the %s form was not accepted", st.Step)
	}
	c := answer.Content
	if st.Step == "account" {
		a := &record{Email: text(c["email"]), FullName: text(c["full_name"]), Plan: text(c["plan"])}
		if a.Plan == "team" {
			return ask("team", teamMessage, teamSchema, state{Step: "team", Account: a})
		}
		return created(a), nil
	}
	a := st.Account
	a.TeamName = text(c["team_name"])
	if n, ok := c["seats"].(float64); ok {
		a.Seats = int(n)
	}
	return created(a), nil
}

func text(v any) string { s, _ := v.(string); return s }

// ask asks for the form schema under key, with st as the request state.
func ask(key, message string, schema json.RawMessage, st state) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:       []mcp.Content{}, // as mcpform writes it: "content": [], not null
		InputRequests: mcp.InputRequestMap{key: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}},
		RequestState:  string(b),
	}, nil
}

// created keeps a and returns the final result examples/signup returns.
func created(a *record) *mcp.CallToolResult {
	accounts.Lock()
	accounts.m[strings.ToLower(strings.TrimSpace(a.Email))] = struct{}{}
	accounts.Unlock()
	summary := []string{"Email: " + a.Email}
	if a.FullName != "" {
		summary = append(summary, "Full name: "+a.FullName)
	}
	switch a.Plan {
	case "team":
		summary = append(summary, "Plan: Team", "Team name: "+a.TeamName, "Seats: "+strconv.Itoa(a.Seats))
	case "pro":
		summary = append(summary, "Plan: Pro")
	default:
		summary = append(summary, "Plan: Free")
	}
	const heading = "Account created"
	return &mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.TextContent{Text: heading + "\n" + strings.Join(summary, "\n")},
			&mcp.TextContent{Text: createdText(a)},
		},
		StructuredContent: data{Account: a, End: "completed", Heading: heading, Summary: summary, Status: "created"},
	}
}

// createdText is what examples/signup says of a created account.
func createdText(a *record) string {
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

func main() {
	addr := flag.String("http", "127.0.0.1:0", "serve streamable HTTP on `ADDR`")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "floor signup:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	// The name examples/signup gives itself: it is in every result's _meta.
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpform-signup", Version: "v0.1.0"}, nil)
	server.AddTool(&mcp.Tool{
		Name:        "signup",
		Title:       "Sign up",
		Description: "Create an account. The tool asks the person for their details itself; call it with no arguments.",
		InputSchema: json.RawMessage(signupInput),
	}, signup)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: 64 << 10})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Fprintf(os.Stderr, "floor signup: listening on http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
