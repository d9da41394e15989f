package mcpform

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol revisions that changed what a legacy round can carry.
const (
	// firstStatelessRevision introduced input_required results.
	firstStatelessRevision = "2026-07-28"
	// firstTitledRevision introduced titled choices (SEP-1330) and
	// multiple choices.
	firstTitledRevision = "2025-11-25"
)

// Defaults of [LegacyOptions].
const (
	// maxLegacyRounds bounds the times one call asks, as go-sdk's client
	// bounds its own retry loop.
	maxLegacyRounds = 10
	// maxLegacyCallsPerSession bounds the calls of one session that may
	// wait on the client at once: a person answers one form at a time.
	maxLegacyCallsPerSession = 4
	// maxLegacyCallsPerClient bounds them per client, across its
	// sessions: a person's few hosts and windows, well short of MaxCalls.
	maxLegacyCallsPerClient = 32
	// maxLegacyCalls bounds them across sessions. Measured on the
	// example, a waiting call holds about 50 KB and two goroutines.
	maxLegacyCalls = 1000
)

// LegacyOptions configures [AddLegacyRounds]. A nil *LegacyOptions and
// zero or negative fields mean the defaults.
type LegacyOptions struct {
	// Timeout bounds each wait of a call: for an answer to an
	// elicitation/create, re-asks included, and for a page the person
	// consented to open. A client that has not answered by then ends the
	// call with an error, and everything the call held is freed. Zero
	// means 10 minutes, the default TTL of a [RequestStateCodec].
	//
	// Behind streamable HTTP with a SessionTimeout, set Timeout to that
	// session timeout: go-sdk closes an idle session only once its calls
	// in flight have returned, and tells them nothing, so a call waiting
	// on a client that walked away holds its session, and any cap on
	// sessions, until its wait ends. With Timeout no longer than the
	// session timeout, closing a session never waits past it. Over a
	// stream (stdio, in memory), a client that goes away ends the waits
	// at once.
	Timeout time.Duration
	// MaxRounds bounds the times one tool call asks the client; the call
	// then ends with an error. It guards against a handler that never
	// stops asking: a [Flow] ends first, after [FlowOptions].MaxReasks.
	// Zero means 10, the bound of go-sdk's own client loop.
	MaxRounds int
	// MaxCallsPerSession bounds the tool calls of one session that wait
	// on the client at once, from their first elicitation/create the
	// middleware sends to their end; a call beyond it ends instead of
	// asking, with a JSON-RPC error, code -32603. Zero means 4.
	MaxCallsPerSession int
	// MaxCallsPerClient bounds them per client, across its sessions, as
	// Client names it, refused the same way: one client, however many
	// sessions it opens, cannot fill MaxCalls and starve the others.
	// Zero means 32, or a quarter of MaxCalls if that is less.
	MaxCallsPerClient int
	// MaxCalls bounds them across all sessions, refused the same way.
	// Zero means 1000.
	MaxCalls int
	// Client names the client a tool call comes from, for
	// MaxCallsPerClient; it is called once, as the call starts. Calls it
	// names alike share the bound, and "" names no client: such a call is
	// bounded per session and in all only. Nil means the authenticated
	// user, req.Extra.TokenInfo.UserID. go-sdk tells a handler nothing of
	// the remote address: over HTTP without auth, set Client to read the
	// address from ctx, where an http.Handler in front of the MCP handler
	// can put it, since go-sdk runs a session's calls in the context of the
	// HTTP request that opened it (examples/signup does so).
	Client func(ctx context.Context, req *mcp.CallToolRequest) string
}

// AddLegacyRounds installs middleware on both sides of server that lets a
// client older than protocol revision 2026-07-28 answer a tool call that
// asks for input in several rounds, such as a [Flow] with two steps or a
// form asked again. Call it once, after creating the server. A nil opts
// means the defaults of [LegacyOptions]. Without it, [Flow.Next] refuses,
// with a JSON-RPC error that names AddLegacyRounds, a round that such a
// client could not read.
//
// Such a client knows nothing of input_required. go-sdk bridges for it: it
// sends each input request as elicitation/create and calls the handler
// again with the answers, but only once; a second round would reach the
// client as a result it cannot read. On the receiving side, the middleware
// keeps bridging while the handler's result asks for input, passing the
// answers and the request state back exactly as a 2026-07-28 client
// retries, so the handler cannot tell the difference and is written once.
// Calls from newer clients, and requests other than tools/call, pass
// through.
//
// On the sending side, it governs the elicitation/create requests it
// bridges: every round of an input request that this package built during
// the call ([Form], [Flow], [FormInputRequest]), go-sdk's first round
// included, and every round after the first of any other:
//   - each waits at most [LegacyOptions].Timeout for the client, and the
//     calls that wait are bounded per session, per client and in all;
//   - a client older than 2025-11-25 gets titled choices as enum plus
//     enumNames, the labels its revision can show (a multiple choice, which
//     its revision lacks, stays an array, without labels);
//   - the answer to a request this package built reaches the handler as
//     the client sent it, as on 2026-07-28, so that the package's checker
//     judges it: a refused answer is asked again by the handler's re-ask,
//     naming every problem, and a [Flow] ends with [FlowInvalid] after the
//     same [FlowOptions].MaxReasks on every revision. (ServerSession.Elicit
//     would judge it with the schema alone, blind to formats, and end the
//     call on a mismatch with an error of JSON-RPC code 0.) Read it with
//     this package's functions, such as [InputResponse]: in go-sdk's first
//     round it arrives in a stand-in that they unwrap.
//
// It edits no params a handler holds. A handler's own
// req.Session.Elicit, and go-sdk's first round of an input request the
// handler built itself, pass as they would without the middleware, with
// go-sdk's check of the answer against the schema.
//
// Its own errors are JSON-RPC errors, code -32603, that say which bound
// was reached or what failed; the handler's errors pass as they are. It
// needs a session that can send requests to the client: over streamable
// HTTP, a stateful handler.
func AddLegacyRounds(server *mcp.Server, opts *LegacyOptions) {
	mw := legacyRounds(opts)
	server.AddReceivingMiddleware(mw)
	server.AddSendingMiddleware(mw)
}

// legacyRounds returns the middleware of [AddLegacyRounds], one value for
// both sides.
func legacyRounds(opts *LegacyOptions) mcp.Middleware {
	l := &legacy{timeout: defaultRequestStateTTL, max: maxLegacyRounds, client: defaultClient}
	var o LegacyOptions
	if opts != nil {
		o = *opts
		l.timeout = cmp.Or(max(o.Timeout, 0), l.timeout)
		l.max = cmp.Or(max(o.MaxRounds, 0), l.max)
		if o.Client != nil {
			l.client = o.Client
		}
	}
	l.bounds = newCallBounds(o.MaxCallsPerSession, o.MaxCallsPerClient, o.MaxCalls)
	return l.middleware
}

type legacy struct {
	timeout time.Duration
	max     int
	client  func(context.Context, *mcp.CallToolRequest) string
	bounds  *callBounds
}

// legacyCallKey keys the *legacyCall of a tool call in its context.
type legacyCallKey struct{}

// bridgingKey marks the context of an elicitation the middleware's own
// rounds send.
type bridgingKey struct{}

// A legacyCall is what the two sides of the middleware share about one
// tool call from a legacy client.
type legacyCall struct {
	client string       // as LegacyOptions.Client named it
	asked  atomic.Int32 // elicitation/create requests sent
	pages  pages        // its URL-mode requests

	mu       sync.Mutex
	admitted bool  // counted in the bounds of LegacyOptions
	refused  error // or refused by them
}

func (l *legacy) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && isLegacy(call.Session) {
				return l.rounds(ctx, next, call)
			}
		case "elicitation/create":
			c, ok := ctx.Value(legacyCallKey{}).(*legacyCall)
			p, ok2 := req.GetParams().(*mcp.ElicitParams)
			if ok && ok2 && (isOwn(p) || ctx.Value(bridgingKey{}) != nil) {
				return l.elicit(ctx, next, req, p, c)
			}
		}
		return next(ctx, method, req)
	}
}

// admit counts call c of session ss in the bounds when it first asks the
// client, or refuses it beyond them. Each call held may wait on its client
// for Timeout: unbounded, a client that never answers would hold memory
// and goroutines without limit. Calls that never ask are not counted.
func (l *legacy) admit(ss *mcp.ServerSession, c *legacyCall) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.admitted && c.refused == nil {
		c.refused = l.bounds.enter(ss, c.client)
		c.admitted = c.refused == nil
	}
	return c.refused
}

// release uncounts call c of session ss, if it was counted.
func (l *legacy) release(ss *mcp.ServerSession, c *legacyCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.admitted {
		l.bounds.leave(ss, c.client)
		c.admitted = false
	}
}

// A legacyError is an error of a legacy call: go-sdk sends the JSON-RPC
// error it wraps, code and all, with its message, and errors.Is still
// finds its cause.
type legacyError struct {
	rpc   *jsonrpc.Error
	cause error
}

// legacyErr returns a legacyError of code -32603 whose message is format
// applied to args, and cause, if not nil, appended after a colon.
func legacyErr(cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &legacyError{rpc: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}, cause: cause}
}

func (e *legacyError) Error() string { return e.rpc.Message }

func (e *legacyError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.rpc}
	}
	return []error{e.rpc, e.cause}
}

// isLegacy reports whether go-sdk's bridge serves the session's calls: it
// decides by the version the client asked for at initialize, and takes a
// session without one (stateless HTTP) to be on the latest.
func isLegacy(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < firstStatelessRevision
}

// rounds serves a tool call from a legacy client.
//
// go-sdk's own bridge is the innermost receiving middleware (NewServer
// installs it before any other can be added), so it fulfils the handler's
// first input request before this middleware sees the result, through
// ServerSession.Elicit. No receiving middleware can reach that round. Every
// elicitation, the bridge's and ours, goes through the server's sending
// middleware, though, with a context derived from the call's: so rounds
// marks the context, and [legacy.elicit], on the sending side, bounds and
// downgrades the elicitations it bridges (see legacyown.go). It counts the
// call as served, for [Flow.Next] to know (see legacyneeded.go).
func (l *legacy) rounds(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) (mcp.Result, error) {
	c := &legacyCall{client: l.client(ctx, call)}
	defer l.release(call.Session, c)
	ctx = context.WithValue(ctx, legacyCallKey{}, c)
	defer markServed(call.Session)()
	bridging := context.WithValue(ctx, bridgingKey{}, true)
	for {
		res, err := next(ctx, "tools/call", call)
		if err != nil {
			return nil, ours(err)
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || len(r.InputRequests) == 0 {
			return res, c.pages.complete(ctx, call.Session, nil)
		}
		// Rounds that only wait for a page ask nothing; waitPage bounds
		// them in time.
		if int(c.asked.Load()) >= l.max {
			return nil, l.tooMany()
		}
		keys := make([]string, 0, len(r.InputRequests))
		for k := range r.InputRequests {
			keys = append(keys, k)
		}
		slices.Sort(keys) // ask in a stable order
		answers := make(mcp.InputResponseMap, len(keys))
		open := map[string]bool{}
		for _, key := range keys {
			p, ok := r.InputRequests[key].(*mcp.ElicitParams)
			if !ok || p == nil {
				return res, nil // sampling or roots: not ours to bridge
			}
			if isURLMode(p) {
				p = withID(p) // a copy, when it lacks an ID
				open[p.ElicitationID] = true
			}
			a, err := call.Session.Elicit(bridging, p)
			if err != nil {
				return nil, wrapLegacy(err, "mcpform: asking for input %q", key)
			}
			answers[key] = unstand(a)
		}
		if err := c.pages.complete(ctx, call.Session, open); err != nil {
			return nil, legacyErr(err, "mcpform: telling the client a page is done")
		}
		retry := *call.Params
		retry.InputResponses, retry.RequestState = answers, r.RequestState
		call = &mcp.CallToolRequest{Session: call.Session, Params: &retry, Extra: call.Extra}
	}
}

// ours returns the legacyError in err's chain, if there is one, rather than
// err: go-sdk's bridge wraps what elicit returns in words of its own, and
// the client is better told the bound it hit, once. Other errors, the
// handler's own, pass as they are.
func ours(err error) error {
	var le *legacyError
	if errors.As(err, &le) {
		return le
	}
	return err
}

// wrapLegacy returns err if it is a legacyError already, and otherwise a
// legacyError of format and args caused by err.
func wrapLegacy(err error, format string, args ...any) error {
	var le *legacyError
	if errors.As(err, &le) {
		return le
	}
	return legacyErr(err, format, args...)
}

func (l *legacy) tooMany() error {
	return legacyErr(nil, "mcpform: the tool call asked for input more than %d times", l.max)
}

// elicit sends one elicitation/create p that the middleware bridges for a
// legacy call, under the call's bounds and in the words of the client's
// revision, and never edits p. The answer to a request this package built
// goes back to ServerSession.Elicit, its caller, in a stand-in that it
// passes unjudged, so that the package's checker, the one a 2026-07-28
// answer meets, is the only judge.
func (l *legacy) elicit(ctx context.Context, next mcp.MethodHandler, req mcp.Request, p *mcp.ElicitParams, c *legacyCall) (mcp.Result, error) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return l.send(ctx, next, req, c)
	}
	if isURLMode(p) {
		q := withID(p)
		if since, waiting := c.pages.since(q.ElicitationID); waiting {
			// Consented already: the person is on the page, and the
			// handler's next run looks for what it sent.
			return waitPage(ctx, since, l.timeout)
		}
		res, err := l.send(ctx, next, &mcp.ServerRequest[mcp.Params]{Session: ss, Params: q}, c)
		if a, ok := res.(*mcp.ElicitResult); ok && err == nil && a.Action == "accept" {
			c.pages.consent(q.ElicitationID)
		}
		return res, err
	}
	out := req
	if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion < firstTitledRevision {
		if schema := elicitSchema(p.RequestedSchema); schema != nil {
			if u := untitled(schema); u != schema {
				q := *p
				q.RequestedSchema = u
				out = &mcp.ServerRequest[mcp.Params]{Session: ss, Params: &q}
			}
		}
	}
	res, err := l.send(ctx, next, out, c)
	if a, ok := res.(*mcp.ElicitResult); ok && err == nil && isOwn(p) {
		return standIn(a), nil
	}
	return res, err
}

// send sends one elicitation/create under the call's deadline for it.
func (l *legacy) send(ctx context.Context, next mcp.MethodHandler, req mcp.Request, c *legacyCall) (mcp.Result, error) {
	if int(c.asked.Add(1)) > l.max {
		return nil, l.tooMany()
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if err := l.admit(ss, c); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	res, err := next(sctx, "elicitation/create", req)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return nil, legacyErr(context.DeadlineExceeded, "mcpform: the client did not answer within %v", l.timeout)
	}
	if err != nil {
		return nil, wrapLegacy(err, "mcpform: asking the client for input")
	}
	return res, nil
}
