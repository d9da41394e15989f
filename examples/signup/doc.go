// The signup example is an MCP server with two tools that ask a person for
// input in the middle of the tool call, with mcpform: signup, which asks
// for their details, and set_password (password.go), which asks for a
// password without the client ever seeing it.
//
// Usage: signup [-stdio | -http ADDR] [-db DSN] [-principal NAME] [-demo set_password] [-v]
//
// With no flags it runs a self-contained demo (demo.go): the server and an
// in-process go-sdk client on protocol revision 2026-07-28, which asks the
// questions in the terminal and sends what is typed, unchecked, so that
// the server's checks speak: a bad email is asked again, naming the
// problem. Type an answer at each prompt, or "decline" or "cancel"; a
// choice takes its value or its title. At a terminal, a password is read
// without echo. -v adds the protocol trace: each tools/call, what the
// server answered, and the sealed state's size. When stdin is not a
// terminal, answers are read one per line, so the demo runs in scripts:
//
//	printf 'ada@example.com\nAda Lovelace\npro\n' | go run ./examples/signup
//
// An empty answer takes the default, when there is one, or, when the
// server refused a value, that value again, shown as "[value]"; the end
// of the input means cancel. The demo speaks the locale's language
// (LC_ALL, LC_MESSAGES or LANG: English, Spanish, French, German or
// Japanese), and asks the server and the page for it too.
//
// The handler (signup.go) is written once, on a mcpform.Flow whose two
// steps are derived from Go types, and is one switch over the flow's
// outcome: the flow picks how to ask each client. The types, the flows,
// the store and the outcomes are examples/internal/accounts', shared with
// examples/mcpgo; this example is their go-sdk face. Each outcome is
// built with mcpform's FlowRound.Outcome: a heading and a short summary
// for the person ("Account created", with the email, plan and seats), in
// the person's language, apart from the sentence for the model; a run
// that created nothing keeps mcpform's "Not completed". A client with form
// elicitation is asked natively (input_required, or elicitation/create
// before 2026-07-28); a host that renders MCP Apps but answers no form is
// shown each step as a view; a client that can do neither is asked
// through its model, which the example opts into (-ask-model=false opts
// out: such a client gets the -32021 capability error), and must call the
// tool again with the answers as arguments.
//
// set_password asks the account's email the same way and links the person
// to a page of the server's where they type the password: in URL mode
// where the client has it, and otherwise as a link in an ordinary result.
// The spec forbids asking for a password in a form, and the model is never
// asked for it. The page is served at /secret next to /mcp (-page-url
// gives its public URL behind a proxy), and over stdio and in the demo on
// a loopback port of its own. The example has no login to bind the page
// to the person, so it offers set_password only when the page is on
// loopback, and says so on stderr otherwise. What the page receives waits
// in the database, sealed, until the flow takes it, so replicas finish
// each other's runs; the password is stored only as a salted PBKDF2 hash.
// -demo set_password runs a signup, then set_password, and the demo plays
// the browser too: it shows the link and posts what is typed to the page.
//
// -stdio serves the tools over stdin and stdout, for an MCP host. -http ADDR
// serves streamable HTTP at http://ADDR/mcp for clients of every protocol
// revision; a bare port or ":port" listens on 127.0.0.1 only, and port 0
// picks a free one. The server prints the URL on stderr, on one line:
//
//	mcpform signup: listening on http://127.0.0.1:8080/mcp
//
// The tools' request state is sealed with keys derived from those in
// MCPFORM_STATE_KEY: hex, at least 32 bytes each, comma-separated; the
// first key seals and all of them open. MCPFORM_STATE_VERIFY_KEY, in the
// same form, holds keys that only open. Replicas that share the keys
// finish each other's signups. Without MCPFORM_STATE_KEY, the server
// makes a random key and says so on stderr.
//
// Rotate a key in three rolling restarts, each done on every replica
// before the next begins, so that every replica opens what any other
// seals (states, outcomes, the page's links and what it was sent) and no
// signup in flight is lost:
//
//  1. MCPFORM_STATE_KEY=old MCPFORM_STATE_VERIFY_KEY=new: the new key
//     opens everywhere; nothing is sealed with it yet.
//  2. MCPFORM_STATE_KEY=new MCPFORM_STATE_VERIFY_KEY=old: replicas seal
//     with the new key, and the old one still opens.
//  3. MCPFORM_STATE_KEY=new alone, 20 minutes (twice the state's 10) after
//     the last replica took step 2, when everything sealed with the old key
//     has expired.
//
// Putting the new key first in one restart (MCPFORM_STATE_KEY=new,old)
// loses the signups that cross a replica still holding only the old key.
//
// A rolling deploy may span two consecutive releases of mcpform: replicas
// of the one before and of the next, sharing MCPFORM_STATE_KEY and -db,
// finish each other's signups and set_password runs on every path (forms,
// the model's arguments, a view's submit, the secret page's link), for as
// long as a state lives (10 minutes). Let one deploy finish before the
// next begins: a replica may refuse a run of a release two ahead of it
// (-32602, or the page not found), never misreading it. e2e's
// TestRollingDeploy checks this, with this example built at the release
// before and at HEAD.
//
// By default everything is kept in the process's memory, gone when it
// ends: the accounts, the outcomes and the secret page's values
// (mcpform.MemoryOutcomes and MemorySecretStore), the fastest store for a
// single process. -db stores them through database/sql instead: in a
// SQLite file, which replicas on one machine may share (created 0600: it
// holds password hashes), or at a postgres:// URL. A signup creates at
// most one account, on whichever replica its rounds land: the database
// holds one account per email, and mcpform's SQLStore one outcome per run
// of the flow, so a replayed round gets the first result again.
//
// Each replica opens at most -db-conns connections to PostgreSQL (10 by
// default). A statement beyond them waits for one to come free, as
// database/sql queues it: under a spike, signups slow down rather than
// fail, and a signup whose account was created is never told it failed
// for want of a connection. Unbounded, 200 clients on one replica opened
// more connections than PostgreSQL's max_connections (100 by default),
// and finishes failed with "too many clients already". Size it across the
// replicas: -db-conns times the replicas, plus what other clients and
// administrators use, below max_connections, less its 3 connections
// reserved for superusers. Nine replicas at 10 fit the default of 100;
// beyond that, lower -db-conns, raise max_connections, or put a pooler
// (PgBouncer) in front. A SQLite file needs no bound: its writers
// wait for each other in SQLite's busy timeout.
//
// Over HTTP, the server bounds what a client can hold: request bodies of
// 64 KiB, timeouts on reading a request (-body-timeout for its body) and on
// idle connections, and at most -max-sessions sessions of older clients,
// each closed after -session-timeout without a request. At the cap, a new
// session closes the one idle longest, with no call in flight: sessions a
// flood from many addresses abandons cannot lock new clients out until
// they time out. Per remote address (per /64 for IPv6), at most
// -max-sessions-per-client of those sessions,
// and -max-calls-per-client of their calls waiting for a person, so that
// one client cannot fill the server's bounds and starve the others. In
// all, at most -max-calls calls wait (half -max-sessions by default, so
// that some session is always free to replace); when they are full, a new
// call ends the one that has waited longest, at least 10 seconds, for an
// answer nobody gave, so that a flood from many addresses locks no new
// client out until its calls time out.
//
// Under load, an operator sets:
//
//   - GOMAXPROCS=1 on a box of one or two cores shared with other work (a
//     proxy, a database, a load generator): a second thread gains the
//     server little there, and costs it CPU per signup and memory (in
//     e2e/loadgen on two shared cores, about a tenth of the CPU and a
//     third of the peak). Leave the default on a box of its own with more
//     cores.
//   - GOMEMLIMIT and GOGC=400, knowing what the server keeps: each finished
//     signup's outcome, for replays, for as long as its state is valid (10
//     minutes), and, without -db, its account; about 850 bytes together
//     (mcpform.MemoryOutcomes keeps an outcome as its result's JSON, about
//     680 bytes with its key and expiry, as the result says the outcome
//     twice, a heading and summary for the person and a sentence for the
//     model; the account is packed in about 170; neither keeps an object
//     per signup for the collector to mark).
//     Most of what a call allocates is go-sdk's decoding, some hundreds of
//     kilobytes of buffers that die at once, so the collector runs often,
//     and by default the heap peaks near twice what is live. Give the
//     server a budget instead: GOMEMLIMIT at least twice what it keeps
//     (signups a second × 600 × 850 bytes, plus a few MB for the calls in
//     flight), and GOGC=400, so that the collector runs rarely while the
//     heap is far below the budget, and near it no more often than by
//     default. Below twice what is kept, it runs all the time, and a signup
//     costs more CPU than on the TypeScript SDK. e2e/loadgen's servers take
//     load for under a minute, some 100,000 signups at most, and keep under
//     85 MB: GOMEMLIMIT=170MiB.
//   - The store, with -db: none for one process (memory, gone when it
//     exits); a SQLite file for replicas on one machine; PostgreSQL for
//     replicas on several, with -db-conns sized as above. With
//     PostgreSQL, the process keeps nothing a signup, so its memory
//     stays flat at any rate, at a price in CPU: in e2e/loadgen on two
//     cores shared with PostgreSQL, with GOMAXPROCS=1, GOGC=off and
//     GOMEMLIMIT=48MiB, the peak stayed under 60 MB at 1, 64 and 200
//     clients, and a signup cost 1.7 to 2.8 times the CPU it costs in
//     memory with the settings above.
//   - Nothing for the HTTP handler: 2026-07-28 clients get go-sdk's
//     stateless handler with JSONResponse, one JSON body per call rather
//     than an event stream, since a call's result is all it sends, and
//     bodies of at most 64 KiB. Behind a proxy, let it keep its
//     connections to the server alive.
//
// go run ./e2e/loadgen measures whole signups against the same flow on the
// TypeScript SDK; its package comment says how.
//
// Request state is bound to the tool and to a principal: the user of the
// bearer token when the transport has auth, and otherwise one fixed local
// principal, "local", which -principal renames (for tests).
package main
