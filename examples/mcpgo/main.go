// The mcpgo example is examples/signup on a server built with
// github.com/mark3labs/mcp-go: the same two tools, signup and
// set_password, with the same flags, step keys, field names and statuses,
// so that any host that finishes one finishes the other. Its handlers are
// written once, on the questions, flows, store and outcomes of
// examples/internal/accounts, which examples/signup shares, and ask each
// client the way it can answer: a native form
// (input_required, or elicitation/create through mcp-go's own bridge
// before 2026-07-28), an MCP Apps view, a secret page's link, or, opted in
// with -ask-model, the model.
//
// Usage: mcpgo [-stdio | -http ADDR] [-db DSN] [-principal NAME] [-ask-model=false] [-page-url URL] [-demo set_password] [-v]
//
// With no flags it runs the demo in the terminal, as examples/signup's
// does: the server and an in-process mcp-go client on 2026-07-28 that
// asks the person each question, in the language of the locale (LC_ALL,
// LC_MESSAGES or LANG: English, Spanish, French, German or Japanese),
// which it asks the server and the page for too. A value the server
// refused is offered back, as "[value]", for Enter to keep or the person
// to replace; -demo set_password then sets a password on the server's
// page, which the demo opens as a browser would, and whose password is
// read without echo and never shown; -v prints the protocol trace.
//
//	printf 'ada@example.com\n\nteam\nAnalytical Engines\n1\n\n12\n' | LANG=fr_FR.UTF-8 go run ./examples/mcpgo
//
// -stdio serves the tools over stdin and stdout, for an MCP host, and the
// secret page on a loopback port of its own; -http ADDR serves streamable
// HTTP at http://ADDR/mcp and the page at /secret, and prints on stderr
//
//	mcpform mcpgo: listening on http://127.0.0.1:8080/mcp
//
// Both serve on mcp-go's own transports; a bad request state reaches the
// client as -32602 and a client that cannot answer as -32021, as the spec
// asks, because mcpgo's handlers' errors choose their codes.
//
// Request state is sealed with keys derived from the hex keys in
// MCPFORM_STATE_KEY (comma-separated; the first seals), or from a random
// one; MCPFORM_STATE_VERIFY_KEY holds keys that only open, for rotating
// keys as examples/signup's doc says. It is bound to -principal: the
// example has no auth, so everyone who reaches it is one person; behind
// auth, the transport's context function puts the token's user in the
// context instead. Accounts and
// each run's first outcome live in SQLite in memory, or in -db: a SQLite
// file or a postgres:// URL that replicas share, through at most
// -db-conns connections each (10 by default; see examples/signup's doc on
// sizing it).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/examples/internal/terminal"
)

var (
	stdioFlag     = flag.Bool("stdio", false, "serve the tools over stdin/stdout, for an MCP host")
	httpAddr      = flag.String("http", "", "serve streamable HTTP on `ADDR` (host:port; a bare port means 127.0.0.1)")
	principalFlag = flag.String("principal", localPrincipal, "principal request state is bound to when there is no auth")
	dbFlag        = flag.String("db", "", "store accounts in `DSN`: a SQLite file or a postgres:// URL (default: SQLite in memory)")
	dbConns       = flag.Int("db-conns", accounts.DefaultConns, "open at most `N` connections to a postgres:// -db; more statements wait for one (keep N × replicas below max_connections)")
	askModelFlag  = flag.Bool("ask-model", true, "ask a client with neither form elicitation nor MCP Apps through its model")
	pageURLFlag   = flag.String("page-url", "", "public `URL` of the secret page, behind a proxy (default: this server's "+secretPath+")")
	demoFlag      = flag.String("demo", toolName, "the demo runs `TOOL`: signup, or set_password after a signup")
	verboseFlag   = flag.Bool("v", false, "the demo prints the protocol trace: each call, and what the server answered")
)

func main() {
	flag.Parse()
	if flag.NArg() > 0 || (*stdioFlag && *httpAddr != "") || *principalFlag == "" || *dbConns <= 0 || (*demoFlag != toolName && *demoFlag != passwordTool) {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpform mcpgo: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if err := deploy.CreatePrivate(*dbFlag); err != nil {
		return err
	}
	st, err := openStore(context.Background(), *dbFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	serving := *stdioFlag || *httpAddr != ""
	warn := io.Discard // the demo's state never leaves the process
	if serving {
		warn = os.Stderr
	}
	codec, err := deploy.NewCodec(os.Getenv, warn, "mcpform mcpgo")
	if err != nil {
		return err
	}
	// The secret page is served next to /mcp, or on a loopback port of
	// its own over stdio and in the demo.
	ln, err := listenHTTP(cmp.Or(*httpAddr, "127.0.0.1:0"))
	if err != nil {
		return err
	}
	pageURL := cmp.Or(*pageURLFlag, pageURLOf(ln))
	if !onLoopback(ln, pageURL) {
		fmt.Fprintf(os.Stderr, "mcpform mcpgo: set_password is off: its page, %s, is reachable beyond this machine, "+
			"and the example has no login to check the person on it against\n", pageURL)
		pageURL = ""
	}
	s, err := newSignup(codec, st, *principalFlag, pageURL)
	if err != nil {
		ln.Close()
		return err
	}
	srv := newServer(s)
	if !serving {
		defer servePage(ln, s.secretPage())()
		// No signal handling: the demo may be blocked reading the
		// terminal, and Ctrl-C should simply end it.
		return runDemo(context.Background(), s, srv, os.Stdin, os.Stdout, terminal.ForFile(os.Stdin, *verboseFlag), *demoFlag)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *stdioFlag {
		return serveStdio(ctx, s, srv, ln)
	}
	return serveHTTP(ctx, s, srv, ln, os.Stderr)
}
