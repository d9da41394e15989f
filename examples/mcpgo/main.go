// The mcpgo example is the signup flow of examples/signup on a server built
// with github.com/mark3labs/mcp-go: one tool, signup, which asks a person
// for their account and, for the team plan only, about their team, with
// mcpform's checks, re-asks and sealed, bound request state.
//
// Usage: mcpgo [-stdio | -http ADDR]
//
// With no flags it runs a short demo: the server and an in-process mcp-go
// client on protocol revision 2026-07-28, whose scripted person answers the
// team plan, gives one seat (refused, and asked again, naming the problem),
// then five. -stdio serves the tool over stdin and stdout, for an MCP host;
// -http ADDR serves streamable HTTP at http://ADDR/mcp. Both serve through
// mcpgo.ServeStdio and mcpgo.NewStreamableHTTPServer, so that a bad
// request state reaches the client as -32602 and a client that cannot
// answer as -32021, as the spec asks, not as mcp-go's -32603. Older
// clients are served by mcp-go's own bridge, which asks with
// elicitation/create.
//
// Request state is sealed with a key derived from the hex key in
// MCPFORM_STATE_KEY (32 bytes or more), or from a random one. It is bound to the principal the transport's
// context function puts in the context: one fixed local principal here;
// behind auth, the token's user. mcpform's SQLStore keeps the first
// outcome of each run (SQLite in memory here; a file or PostgreSQL shared by
// replicas in production), so a replayed final round creates nothing twice.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	_ "modernc.org/sqlite"
)

var (
	stdioFlag = flag.Bool("stdio", false, "serve the signup tool over stdin/stdout")
	httpAddr  = flag.String("http", "", "serve streamable HTTP at http://`ADDR`/mcp")
)

// An Account is what the first step asks.
type Account struct {
	Email    string `json:"email" mcpform:"label=Email,type=email"`
	FullName string `json:"full_name,omitempty" mcpform:"label=Full name,max=100"`
	Plan     string `json:"plan" mcpform:"label=Plan,default=free,options=free:Free|pro:Pro\\, $12 a month|team:Team\\, $10 a seat a month"`
}

// A Team is what the second step asks, of the team plan only.
type Team struct {
	TeamName string `json:"team_name" mcpform:"label=Team name,min=2,max=60"`
	Seats    int    `json:"seats" mcpform:"label=Seats,min=2,max=50,default=5"`
}

// principalKey holds whom a call is for; see FlowOptions.ContextPrincipal.
type principalKey struct{}

func withPrincipal(ctx context.Context) context.Context {
	return context.WithValue(ctx, principalKey{}, "local") // behind auth: the token's user
}

// signup is the tool: its flow, and the database of each run's outcome.
type signup struct {
	flow *mcpform.Flow
	db   *sql.DB
}

func newSignup(key []byte) (*signup, error) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true})
	if err != nil {
		return nil, err
	}
	db, _ := sql.Open("sqlite", ":memory:") // fails only on an unknown driver
	db.SetMaxOpenConns(1)                   // each connection to :memory: is a database of its own
	runs, _ := mcpform.NewSQLStore(db, nil) // fails only on bad table names
	account := must(mcpform.FormFor[Account](&mcpform.FormOptions{Key: "account", Message: "Create your account"}))
	team := must(mcpform.FormFor[Team](&mcpform.FormOptions{Key: "team", Message: "Tell us about your team"}))
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Form: account},
		{Form: team, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &mcpform.FlowOptions{Outcomes: runs, ContextPrincipal: func(ctx context.Context) string {
		p, _ := ctx.Value(principalKey{}).(string)
		return p
	}})
	return &signup{flow: flow, db: db}, err
}

// handle is the tool handler: one round of the flow per call.
func (s *signup) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	round, err := mcpgo.Next(ctx, s.flow, req)
	if err != nil {
		return nil, err // a bad state, or a client that cannot answer
	}
	if round.Status == mcpform.FlowAsk {
		return round.Result, nil
	}
	// The first outcome of a run wins: a replay gets it, and creates nothing.
	return round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
		var a struct {
			Account
			Team
		}
		if round.Status != mcpform.FlowDone {
			return mcp.NewToolResultText(fmt.Sprintf("No account created: step %s %s.", round.Step, round.Status)), nil
		} else if err := round.Answers.Decode(&a); err != nil {
			return nil, err
		}
		out := fmt.Sprintf("Welcome, %s: %s plan", a.Email, a.Plan) // create the account here
		if a.Plan == "team" {
			out += fmt.Sprintf(" for %s, %d seats", a.TeamName, a.Seats)
		}
		return mcp.NewToolResultText(out), nil
	})
}

// must panics on a definition error: the definitions are the program's own.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newServer(s *signup) *server.MCPServer {
	srv := server.NewMCPServer("mcpform-mcpgo", "v0.1.0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("signup", mcp.WithDescription("Create an account. The tool asks the person for their details itself.")), s.handle)
	return srv
}

func main() {
	flag.Parse()
	key := make([]byte, 32)
	if k := os.Getenv("MCPFORM_STATE_KEY"); k != "" {
		var err error
		if key, err = hex.DecodeString(k); err != nil {
			log.Fatalf("MCPFORM_STATE_KEY: %v", err)
		}
	} else {
		rand.Read(key)
	}
	s, err := newSignup(key)
	if err != nil {
		log.Fatal(err)
	}
	switch srv := newServer(s); {
	case *stdioFlag:
		// mcpgo's wrappers of mcp-go's transports send a bad state as
		// -32602 and a client that cannot answer as -32021, as the spec
		// asks; mcp-go's own send both as -32603.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err = mcpgo.ServeStdio(ctx, srv, os.Stdin, os.Stdout, server.WithStdioContextFunc(withPrincipal)); ctx.Err() != nil {
			err = nil // stopped by a signal
		}
	case *httpAddr != "":
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcpgo.NewStreamableHTTPServer(srv, server.WithHTTPContextFunc(
			func(ctx context.Context, _ *http.Request) context.Context { return withPrincipal(ctx) })))
		fmt.Fprintf(os.Stderr, "mcpform mcpgo: listening on http://%s/mcp\n", *httpAddr)
		err = (&http.Server{Addr: *httpAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}).ListenAndServe()
	default:
		err = demo(srv)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// person answers in the demo, printing what it is asked.
type person struct{ answers []map[string]any }

func (p *person) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	fmt.Printf("? %s\n", req.Params.Message)
	a := p.answers[0]
	p.answers = p.answers[1:]
	b, _ := json.Marshal(a)
	fmt.Printf("> %s\n", b)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: a}}, nil
}

func demo(srv *server.MCPServer) error {
	ctx := withPrincipal(context.Background()) // the in-process transport passes the caller's context
	p := &person{answers: []map[string]any{
		{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "team"},
		{"team_name": "Analytical", "seats": 1},
		{"team_name": "Analytical", "seats": 5},
	}}
	c, _ := client.NewInProcessClientWithOptions(srv, client.WithElicitationHandler(p)) // fails only on nil
	defer c.Close()
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-demo", Version: "v0"}
	var call mcp.CallToolRequest
	call.Params.Name = "signup"
	_, err := c.Initialize(ctx, init)
	if err == nil {
		var res *mcp.CallToolResult
		if res, err = c.CallTool(ctx, call); err == nil {
			fmt.Println(res.Content[0].(mcp.TextContent).Text)
		}
	}
	return err
}
