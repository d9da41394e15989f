package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveStdio serves server over stdin and stdout until the client goes away
// or ctx is done, and the secret page on ln, a loopback port of its own,
// since stdio has no HTTP server to mount it on, giving each POST to it
// bodyTimeout (zero: the default) to send its body. Nothing else may write
// to stdout.
func serveStdio(ctx context.Context, server *mcp.Server, ln net.Listener, page http.Handler, bodyTimeout time.Duration) error {
	defer servePage(ln, page, bodyTimeout)()
	err := server.Run(ctx, mcpform.AnswersAsSentTransport(&mcp.StdioTransport{})) // answers as sent
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// The MCP-Protocol-Version and Mcp-Session-Id headers of streamable HTTP.
const (
	protocolVersionHeader = "Mcp-Protocol-Version"
	sessionIDHeader       = "Mcp-Session-Id"
	// statelessProtocol is the first revision served statelessly.
	statelessProtocol = "2026-07-28"
)

// httpLimits bound what clients can make the HTTP server hold.
type httpLimits struct {
	// SessionTimeout closes an older client's session after this long
	// without a request. An elicitation the client is answering keeps its
	// POST open, so a person filling in a form is never idle.
	SessionTimeout time.Duration
	// MaxSessions caps the open sessions, so abandoned initializes cost
	// bounded memory. At the cap, an initialize closes the session that
	// has been idle longest, with no tool call in flight, to make room:
	// sessions abandoned in a flood from many addresses would otherwise
	// refuse every new client until the timeout reclaimed them. Only when
	// every session has a call in flight does an initialize get 503.
	MaxSessions int
	// MaxSessionsPerClient caps them per client (see clientOf), refused
	// the same way, so that one client cannot fill MaxSessions; zero
	// means no cap.
	MaxSessionsPerClient int
	// BodyTimeout is how long a client may take to send a request's
	// body; zero means defaultBodyTimeout.
	BodyTimeout time.Duration
}

// maxBody fits any signup request many times over: the largest, a team
// round with its request state, is under 2 KiB.
const maxBody = 64 << 10

// defaultBodyTimeout is how long a client may take to send a request's
// body, unless -body-timeout says otherwise.
const defaultBodyTimeout = 10 * time.Second

// newHTTPHandler returns the streamable HTTP handler for server, for clients
// of every protocol revision.
//
// go-sdk v1.8.0 serves the two generations of clients with two handlers,
// and neither handler serves both:
//
//   - A 2026-07-28 client is stateless: no initialize, no session, and each
//     request names its revision in the MCP-Protocol-Version header (and its
//     capabilities in _meta). A stateful handler refuses such a request with
//     "protocol version not supported"; only a stateless handler serves it.
//     Input is asked for by returning input_required, which the client
//     answers by retrying the call, so statelessness costs nothing.
//   - An older client initializes a session, and the server asks it for
//     input by sending elicitation/create. go-sdk does that for us when the
//     handler returns input_required (its compatibility bridge), but only
//     on a session that can carry a server-to-client request: a stateless
//     handler rejects that request at once, so these clients need the
//     stateful handler.
//
// So one *mcp.Server sits behind both, and each request is routed: a request
// with a session ID belongs to that session; otherwise a request whose
// MCP-Protocol-Version is 2026-07-28 or later goes to the stateless handler;
// everything else (initialize, which carries no version header, and
// requests of older revisions) goes to the stateful one. Revisions are
// dates, so comparing them as strings orders them.
func newHTTPHandler(server *mcp.Server, limits httpLimits) http.Handler {
	getServer := func(*http.Request) *mcp.Server { return server }
	// Each handler reads native answers as the client sent them, their
	// numbers exact: AnswersAsSentHandler hands the core their bytes
	// beside the body, which readBody has bounded to maxBody.
	stateful := mcpform.AnswersAsSentHandler(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout: limits.SessionTimeout, MaxRequestBodyBytes: maxBody}))
	// A 2026-07-28 call gets its one result as a JSON body, not an event
	// stream: the server sends it nothing else, and JSON costs less.
	stateless := mcpform.AnswersAsSentHandler(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody}))
	timeout := cmp.Or(limits.BodyTimeout, defaultBodyTimeout)
	perClient := newClientSessions(server, limits.MaxSessionsPerClient)
	idle := newIdleSessions(server, limits.MaxSessions)
	server.AddReceivingMiddleware(idle.middleware)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !readBody(w, r, timeout) {
			return
		}
		id := r.Header.Get(sessionIDHeader)
		if id == "" && r.Header.Get(protocolVersionHeader) >= statelessProtocol {
			stateless.ServeHTTP(w, r)
			return
		}
		if id != "" || r.Method != http.MethodPost {
			stateful.ServeHTTP(w, r)
			if r.Method == http.MethodPost {
				idle.touch(id) // a request ended: the session is in use
			}
			return
		}
		// An initialize, which opens a session.
		if limits.MaxSessions > 0 && countSessions(server) >= limits.MaxSessions && !idle.closeOldest() {
			busy(w, "too many sessions; try again later")
			return
		}
		defer func() { idle.opened(w.Header().Get(sessionIDHeader)) }()
		client := clientOf(r)
		if limits.MaxSessionsPerClient > 0 {
			if !perClient.reserve(client) {
				busy(w, "too many sessions from your address; close one or try again later")
				return
			}
			defer func() { perClient.settle(client, w.Header().Get(sessionIDHeader)) }()
		}
		stateful.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, client)))
	})
}

// busy refuses a new session with 503 and msg.
func busy(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", "60")
	http.Error(w, msg, http.StatusServiceUnavailable)
}

// readBody reads r's body, up to maxBody bytes within timeout, and puts it
// back in r for go-sdk to decode. It answers the request itself, and
// returns false, for a body too large or too slow. The deadline covers the
// body alone: the server has no ReadTimeout, which would cancel the
// request's context while a long event stream is still open.
//
// A refused body leaves the read deadline in the past. After the handler,
// net/http reads what is left of the body, up to 256 KiB, before it closes
// the connection; with no deadline a client that trickles, or sends
// nothing more, would hold the connection forever.
func readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	rc := http.NewResponseController(w)
	// A body declared too large is refused before a byte of it is read.
	if r.ContentLength > maxBody {
		rc.SetReadDeadline(time.Now())
		tooLarge(w)
		return false
	}
	rc.SetReadDeadline(time.Now().Add(timeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		rc.SetReadDeadline(time.Now())
	} else {
		rc.SetReadDeadline(time.Time{}) // the event stream may last
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		tooLarge(w)
		return false
	case err != nil:
		w.Header().Set("Connection", "close")
		http.Error(w, "reading the request body: "+err.Error(), http.StatusRequestTimeout)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return true
}

func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("request body exceeds %d bytes", maxBody), http.StatusRequestEntityTooLarge)
}

// idleSessions keeps, per session, its tool calls in flight and when its
// last request ended, to find the session idle longest. A call waiting for
// its person keeps its session, whether or not the client still has the
// POST open: closing the session would wait for the call (go-sdk's Close
// waits for the requests in flight), and the legacy rounds' own bounds
// make room among such calls. With no cap on sessions it keeps nothing.
type idleSessions struct {
	server *mcp.Server
	max    int // the cap on sessions; 0, none

	mu       sync.Mutex
	sessions map[string]*activity // by session ID, at most 2×max
}

type activity struct {
	open int       // tool calls in flight
	last time.Time // when its last request ended, or it opened
}

func newIdleSessions(server *mcp.Server, max int) *idleSessions {
	return &idleSessions{server: server, max: max, sessions: map[string]*activity{}}
}

// opened starts the count of session id, which an initialize has just
// opened ("": none). Closed sessions are forgotten when they are as many
// as the open ones could be.
func (s *idleSessions) opened(id string) {
	if id == "" || s.max <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions) >= 2*s.max {
		s.prune()
	}
	s.sessions[id] = &activity{last: time.Now()}
}

// middleware counts each tool call of a counted session while in flight.
func (s *idleSessions) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		// A 2026-07-28 call has no initialize, and no session to count.
		if method != "tools/call" || !ok || s.max <= 0 || ss.InitializeParams() == nil {
			return next(ctx, method, req)
		}
		id := ss.ID()
		s.begin(id)
		defer s.end(id)
		return next(ctx, method, req)
	}
}

// begin counts a call of session id as in flight, if the session is counted.
func (s *idleSessions) begin(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.sessions[id]; a != nil {
		a.open++
	}
}

// touch records that session id was used now, if it is counted.
func (s *idleSessions) touch(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.sessions[id]; a != nil {
		a.last = time.Now()
	}
}

// end counts a call of session id as ended now.
func (s *idleSessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.sessions[id]; a != nil {
		a.open = max(a.open-1, 0)
		a.last = time.Now()
	}
}

// prune forgets the sessions that have closed.
func (s *idleSessions) prune() {
	alive := map[string]bool{}
	for ss := range s.server.Sessions() {
		alive[ss.ID()] = true
	}
	for id := range s.sessions {
		if !alive[id] {
			delete(s.sessions, id)
		}
	}
}

// closeOldest closes the session that has no call in flight and whose
// last ended longest ago, or reports false when every session has one. A
// session idle is cheap to lose: nothing of it waits for a person, and
// its client opens a new one when the old one is gone (404).
func (s *idleSessions) closeOldest() bool {
	s.mu.Lock()
	var oldest *mcp.ServerSession
	var oldestAt time.Time
	for ss := range s.server.Sessions() {
		a := s.sessions[ss.ID()]
		if a == nil {
			continue // its initialize is being served
		}
		if a.open == 0 && (oldest == nil || a.last.Before(oldestAt)) {
			oldest, oldestAt = ss, a.last
		}
	}
	if oldest != nil {
		delete(s.sessions, oldest.ID())
	}
	s.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close() // no call in flight: it returns at once
	return true
}

// countSessions returns the number of server's open sessions.
func countSessions(server *mcp.Server) int {
	n := 0
	for range server.Sessions() {
		n++
	}
	return n
}

// mcpPath is where the HTTP server serves MCP.
const mcpPath = "/mcp"

// newHTTPServer returns an HTTP server for h, as deploy.NewHTTPServer
// bounds it.
func newHTTPServer(h http.Handler) *http.Server { return deploy.NewHTTPServer(h, maxBody) }

// listenHTTP and onLoopback are deploy's, shared with examples/mcpgo.
var (
	listenHTTP = deploy.Listen
	onLoopback = deploy.OnLoopback
)

// bodyDeadline gives h's request timeout (zero: defaultBodyTimeout) to
// send its body, and leaves the deadline in place, so that what net/http
// drains of the body after h is bounded too; the secret page bounds the
// body's size itself.
func bodyDeadline(h http.Handler, timeout time.Duration) http.Handler {
	timeout = cmp.Or(timeout, defaultBodyTimeout)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
		h.ServeHTTP(w, r)
	})
}

// servePage serves the secret page alone on ln, at secretPath, with
// bodyDeadline's timeout, and returns the function that stops it.
func servePage(ln net.Listener, page http.Handler, timeout time.Duration) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle(secretPath, bodyDeadline(page, timeout))
	srv := newHTTPServer(mux)
	go srv.Serve(ln)
	return func() { srv.Close() }
}

// pageURLOf is the secret page's URL on ln.
func pageURLOf(ln net.Listener) string { return "http://" + ln.Addr().String() + secretPath }

// serveHTTP serves server's streamable HTTP handler on ln, within limits,
// and the secret page next to it, until ctx is done, after printing the
// URL to log on one line.
func serveHTTP(ctx context.Context, ln net.Listener, server *mcp.Server, page http.Handler, limits httpLimits, log io.Writer) error {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, newHTTPHandler(server, limits))
	mux.Handle(secretPath, bodyDeadline(page, limits.BodyTimeout))
	srv := newHTTPServer(mux)

	// On shutdown, end what would otherwise hold it up for its whole
	// grace period: the event streams of older clients' sessions, and
	// connections that were opened but have sent no request (net/http
	// counts those as busy for five seconds).
	var mu sync.Mutex
	fresh := map[net.Conn]bool{}
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		if state == http.StateNew {
			fresh[c] = true
		} else {
			delete(fresh, c)
		}
	}
	srv.RegisterOnShutdown(func() {
		for ss := range server.Sessions() {
			ss.Close()
		}
		mu.Lock()
		defer mu.Unlock()
		for c := range fresh {
			c.Close()
		}
	})

	fmt.Fprintf(log, "mcpform signup: listening on http://%s%s\n", ln.Addr(), mcpPath)
	return deploy.Serve(ctx, srv, ln, 5*time.Second)
}
