// The signup example is an MCP server with two tools that ask a person for
// input in the middle of the tool call, with mcpform: signup, which asks
// for their details, and set_password (password.go), which asks for a
// password without the client ever seeing it.
//
// Usage: signup [-stdio | -http ADDR] [-db DSN] [-principal NAME] [-demo set_password]
//
// With no flags it runs a self-contained demo (demo.go): the server and an
// in-process go-sdk client on protocol revision 2026-07-28, which asks the
// questions in the terminal and sends what is typed, unchecked, so that
// the server's checks speak: a bad email is asked again, naming the
// problem. Type an answer at each prompt, or "decline" or "cancel". When
// stdin is not a terminal, answers are read one per line, so the demo runs
// in scripts:
//
//	printf 'ada@example.com\nAda Lovelace\npro\n' | go run ./examples/signup
//
// An empty answer takes the default, when there is one; the end of the
// input means cancel.
//
// The handler (signup.go) is written once, on a mcpform.Flow whose two
// steps are derived from Go types. It asks natively (input_required, or
// elicitation/create for a client older than 2026-07-28), except on a host
// that declares MCP Apps support: that one gets the same fields as a UI,
// in the viewer resource the server registers. A client that declared
// neither gets the -32021 capability error.
//
// set_password asks the account's email in the client's form and, in the
// same round, links the person in URL mode to a page of the server's where
// they type the password: the spec forbids asking for one in a form. The
// page is served at /secret next to /mcp (-page-url gives its public URL
// behind a proxy), and over stdio and in the demo on a loopback port of its
// own. The example has no login to bind the page to the person, so it
// offers set_password only when the page is on loopback, and says so on
// stderr otherwise. What it receives waits in the database until the flow takes it, so
// replicas finish each other's runs; the password is stored only as a
// salted PBKDF2 hash. -demo set_password runs a signup, then set_password,
// and the demo plays the browser too: it shows the link and posts what is
// typed to the page itself.
//
// -stdio serves the tools over stdin and stdout, for an MCP host. -http ADDR
// serves streamable HTTP at http://ADDR/mcp for clients of every protocol
// revision; a bare port or ":port" listens on 127.0.0.1 only, and port 0
// picks a free one. The server prints the URL on stderr, on one line:
//
//	mcpform signup: listening on http://127.0.0.1:8080/mcp
//
// The tool's request state is signed with the keys in MCPFORM_STATE_KEY:
// hex, at least 32 bytes each, comma-separated; the first key signs and all
// of them verify. Replicas that share the keys finish each other's signups.
// Without it, the server makes a random key and says so on stderr.
//
// Accounts are stored through database/sql: by default in a SQLite
// database in memory, gone when the process ends; -db names a SQLite file,
// which replicas on one machine may share (created 0600: it holds password
// hashes), or a postgres:// URL. A signup
// creates at most one account, on whichever replica its rounds land: the
// database holds one account per email, and one outcome per run of the
// flow, so a replayed round gets the first result again.
//
// Over HTTP, the server bounds what a client can hold: request bodies of
// 64 KiB, timeouts on reading a request (-body-timeout for its body) and on
// idle connections, and at
// most -max-sessions sessions of older clients, each closed after
// -session-timeout without a request.
//
// Request state is bound to the tool and to a principal: the user of the
// bearer token when the transport has auth, and otherwise one fixed local
// principal, "local", which -principal renames (for tests).
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpform/mcpform"
)

var (
	stdioFlag     = flag.Bool("stdio", false, "serve the signup tool over stdin/stdout, for an MCP host")
	httpAddr      = flag.String("http", "", "serve streamable HTTP on `ADDR` (host:port; a bare port means 127.0.0.1)")
	principalFlag = flag.String("principal", localPrincipal, "principal request state is bound to when there is no auth")
	dbFlag        = flag.String("db", "", "store accounts in `DSN`: a SQLite file or a postgres:// URL (default: SQLite in memory)")
	idleFlag      = flag.Duration("session-timeout", 5*time.Minute, "close an older client's HTTP session after this long without a request")
	maxSessions   = flag.Int("max-sessions", 1000, "refuse new HTTP sessions of older clients beyond this many")
	bodyTimeout   = flag.Duration("body-timeout", defaultBodyTimeout, "close an HTTP connection whose request body takes longer than this to arrive")
	pageURLFlag   = flag.String("page-url", "", "public `URL` of the secret page, behind a proxy (default: this server's "+secretPath+")")
	demoFlag      = flag.String("demo", toolName, "the demo runs `TOOL`: signup, or set_password after a signup")
)

func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, "Usage: %s [-stdio | -http ADDR] [-db DSN] [-principal NAME] [-demo set_password]\n\n", os.Args[0])
	fmt.Fprintf(out, "With no flags, runs the signup demo in the terminal.\n")
	fmt.Fprintf(out, "Request state is signed with the hex keys in %s (comma-separated; the first signs).\n\n", keyEnv)
	flag.PrintDefaults()
}

func main() {
	flag.Usage = usage // flag.Parse prints it on stderr and exits 2 on a bad flag
	flag.Parse()
	if flag.NArg() > 0 || (*stdioFlag && *httpAddr != "") || *principalFlag == "" ||
		*idleFlag <= 0 || *maxSessions <= 0 || *bodyTimeout <= 0 || (*demoFlag != toolName && *demoFlag != passwordTool) {
		flag.Usage()
		os.Exit(2)
	}

	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpform signup: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if err := createPrivate(*dbFlag); err != nil {
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
		return runDemo(context.Background(), st, os.Stdin, os.Stdout, isTerminal(os.Stdin), *demoFlag)
	}
	// A server stops cleanly on an interrupt or SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	codec, err := newCodec(os.Getenv(keyEnv), os.Stderr)
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
	limits := httpLimits{SessionTimeout: *idleFlag, MaxSessions: *maxSessions, BodyTimeout: *bodyTimeout}
	return serveHTTP(ctx, ln, server, s.secretPage(), limits, os.Stderr)
}

// isTerminal reports whether f is a terminal rather than a pipe or file.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// keyEnv names the environment variable that holds the request-state keys.
const keyEnv = "MCPFORM_STATE_KEY"

// parseKeys reads a MCPFORM_STATE_KEY value: one or more hex keys of at
// least mcpform.MinRequestStateKeySize bytes, separated by commas. The first
// key mints; all of them verify. To rotate, put the new key first, deploy,
// and drop the old one once its tokens have expired (10 minutes).
func parseKeys(v string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%s: key %d is empty", keyEnv, i)
		}
		k, err := hex.DecodeString(part)
		if err != nil {
			// Don't quote the value: it is a secret.
			return nil, fmt.Errorf("%s: key %d is not hex", keyEnv, i)
		}
		if len(k) < mcpform.MinRequestStateKeySize {
			return nil, fmt.Errorf("%s: key %d has %d bytes; want at least %d (%d hex digits)",
				keyEnv, i, len(k), mcpform.MinRequestStateKeySize, 2*mcpform.MinRequestStateKeySize)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// newCodec returns the codec that signs the signup flow's request state,
// bound to tool and principal. With env "" it makes a random key and warns
// on warn, since no other replica can then read this one's state.
func newCodec(env string, warn io.Writer) (*mcpform.RequestStateCodec, error) {
	var keys [][]byte
	if env == "" {
		k := make([]byte, mcpform.MinRequestStateKeySize)
		rand.Read(k) // never fails; see crypto/rand.Read
		keys = [][]byte{k}
		fmt.Fprintf(warn, "mcpform signup: warning: %s is not set; using a random request-state key. "+
			"Replicas won't read each other's state, and a restart breaks signups in progress.\n", keyEnv)
	} else {
		var err error
		if keys, err = parseKeys(env); err != nil {
			return nil, err
		}
	}
	return mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: keys, Bind: true})
}
