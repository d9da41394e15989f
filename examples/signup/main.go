package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/mcpform/mcpform/examples/internal/terminal"
)

var (
	stdioFlag     = flag.Bool("stdio", false, "serve the signup tool over stdin/stdout, for an MCP host")
	httpAddr      = flag.String("http", "", "serve streamable HTTP on `ADDR` (host:port; a bare port means 127.0.0.1)")
	principalFlag = flag.String("principal", localPrincipal, "principal request state is bound to when there is no auth")
	dbFlag        = flag.String("db", "", "store accounts in `DSN`: a SQLite file or a postgres:// URL (default: the process's memory)")
	dbConns       = flag.Int("db-conns", accounts.DefaultConns, "open at most `N` connections to a postgres:// -db; more statements wait for one (keep N × replicas below max_connections)")
	idleFlag      = flag.Duration("session-timeout", 5*time.Minute, "close an older client's HTTP session after this long without a request")
	maxSessions   = flag.Int("max-sessions", 1000, "keep at most this many HTTP sessions of older clients: a new one closes the one idle longest, or is refused when none is idle")
	clientSess    = flag.Int("max-sessions-per-client", 16, "refuse new HTTP sessions of older clients beyond this many per remote address")
	clientCalls   = flag.Int("max-calls-per-client", 32, "refuse an older client's calls beyond this many waiting for input per remote address")
	maxCalls      = flag.Int("max-calls", 0, "hold at most this many of older clients' calls waiting for input; a new one ends the oldest nobody answered for 10s (default: half -max-sessions)")
	bodyTimeout   = flag.Duration("body-timeout", defaultBodyTimeout, "close an HTTP connection whose request body takes longer than this to arrive")
	askModelFlag  = flag.Bool("ask-model", true, "ask a client with neither form elicitation nor MCP Apps through its model")
	checkFlag     = flag.Bool("check-answers", false, "end signup with a round that shows the answers and asks whether they are right, before the account is created")
	pageURLFlag   = flag.String("page-url", "", "public `URL` of the secret page, behind a proxy (default: this server's "+secretPath+")")
	demoFlag      = flag.String("demo", toolName, "the demo runs `TOOL`: signup, or set_password after a signup")
	verboseFlag   = flag.Bool("v", false, "the demo prints the protocol trace: each call, and what the server answered")
)

func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, "Usage: %s [-stdio | -http ADDR] [-db DSN] [-principal NAME] [-demo set_password] [-v]\n\n", os.Args[0])
	fmt.Fprintf(out, "With no flags, runs the signup demo in the terminal.\n")
	fmt.Fprintf(out, "Request state is sealed with keys from the hex keys in %s (comma-separated; the first seals),\n", deploy.KeyEnv)
	fmt.Fprintf(out, "and %s holds keys that only open, for rotating keys (see the package doc).\n\n", deploy.VerifyKeyEnv)
	flag.PrintDefaults()
}

func main() {
	flag.Usage = usage // flag.Parse prints it on stderr and exits 2 on a bad flag
	flag.Parse()
	if flag.NArg() > 0 || (*stdioFlag && *httpAddr != "") || *principalFlag == "" ||
		*idleFlag <= 0 || *dbConns <= 0 || *maxSessions <= 0 || *clientSess <= 0 || *clientCalls <= 0 || *maxCalls < 0 || *bodyTimeout <= 0 || (*demoFlag != toolName && *demoFlag != passwordTool) {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpform signup: %v\n", err)
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
	if !*stdioFlag && *httpAddr == "" {
		// No signal handling: the demo may be blocked reading the
		// terminal, and Ctrl-C should simply end it.
		return runDemo(context.Background(), st, os.Stdin, os.Stdout, terminal.ForFile(os.Stdin, *verboseFlag), *demoFlag)
	}
	// A server stops cleanly on an interrupt or SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	codec, err := deploy.NewCodec(os.Getenv, os.Stderr, "mcpform signup")
	if err != nil {
		return err
	}
	// The secret page is served next to /mcp, or over stdio on a
	// loopback port of its own.
	ln, err := listenHTTP(cmp.Or(*httpAddr, "127.0.0.1:0"))
	if err != nil {
		return err
	}
	pageURL := cmp.Or(*pageURLFlag, pageURLOf(ln))
	if !onLoopback(ln, pageURL) {
		fmt.Fprintf(os.Stderr, "mcpform signup: set_password is off: its page, %s, is reachable beyond this machine, "+
			"and the example has no login to check the person on it against\n", pageURL)
		pageURL = ""
	}
	s, err := newSignup(codec, st, *principalFlag, pageURL)
	if err != nil {
		ln.Close()
		return err
	}
	server := newServer(s)
	if *stdioFlag {
		return serveStdio(ctx, server, ln, s.secretPage(), *bodyTimeout)
	}
	limits := httpLimits{SessionTimeout: *idleFlag, MaxSessions: *maxSessions, MaxSessionsPerClient: *clientSess, BodyTimeout: *bodyTimeout}
	return serveHTTP(ctx, ln, server, s.secretPage(), limits, os.Stderr)
}
