// Package legacy is the go-sdk middleware that lets a client older than
// protocol revision 2026-07-28, which knows nothing of input_required,
// answer a tool call that asks for input in several rounds: it asks each
// input request as elicitation/create and calls the handler again with the
// answers, as a 2026-07-28 client retries. It bounds the calls that wait
// on their client, downgrades titled choices for clients older than
// 2025-11-25, bridges URL-mode pages, and lets the answers to the
// requests its caller built reach the handler unjudged by go-sdk.
//
// The root package's AddLegacyRounds installs it; everything it needs of
// the root comes in [Options] as plain values and functions.
package legacy

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
	// StatelessRevision introduced input_required results.
	StatelessRevision = "2026-07-28"
	// titledRevision introduced titled choices (SEP-1330) and multiple
	// choices.
	titledRevision = "2025-11-25"
)

// Defaults of [Options].
const (
	// DefaultMaxRounds bounds the times one call asks, as go-sdk's client
	// bounds its own retry loop.
	DefaultMaxRounds = 10
	// DefaultMaxCallsPerSession bounds the calls of one session that may
	// wait on the client at once: a person answers one form at a time.
	DefaultMaxCallsPerSession = 4
	// DefaultMaxCallsPerClient bounds them per client, across its
	// sessions: a person's few hosts and windows, well short of MaxCalls.
	DefaultMaxCallsPerClient = 32
	// DefaultMaxCalls bounds them across sessions. Measured on the
	// example, a waiting call holds about 50 KB and two goroutines.
	DefaultMaxCalls = 1000
	// defaultPoll is Options.Poll's default.
	defaultPoll = time.Second
)

// Options configures [Middleware]. Zero or negative fields mean the
// defaults, except Timeout.
type Options struct {
	// Timeout bounds each wait of a call: for an answer to an
	// elicitation/create, and for a page the person consented to open. It
	// must be positive.
	Timeout time.Duration
	// MaxRounds bounds the times one tool call asks the client. Zero means
	// DefaultMaxRounds.
	MaxRounds int
	// MaxCallsPerSession, MaxCallsPerClient and MaxCalls bound the tool
	// calls that wait on their client at once: per session, per client as
	// Client names it, and in all. Zero means DefaultMaxCallsPerSession,
	// DefaultMaxCallsPerClient or a quarter of MaxCalls if that is less,
	// and DefaultMaxCalls.
	MaxCallsPerSession, MaxCallsPerClient, MaxCalls int
	// Client names the client a tool call comes from, for
	// MaxCallsPerClient; "" names none. Nil means the authenticated user.
	Client func(ctx context.Context, req *mcp.CallToolRequest) string
	// PageKey returns what names the page a URL-mode request links to,
	// the same from round to round while the link itself may change; the
	// request's elicitationId is a digest of it. Nil means the URL itself.
	PageKey func(link string) string
	// Poll is how long a call waits between runs of the handler while a
	// page the person consented to is still open. Zero means a second.
	Poll time.Duration

	makeRoomAfter time.Duration // MakeRoomAfter unless positive; for tests
}

// Middleware returns the middleware of the bridge, one value for both
// the receiving and the sending side of a server.
func Middleware(o Options) mcp.Middleware {
	b := &bridge{timeout: o.Timeout, max: cmp.Or(max(o.MaxRounds, 0), DefaultMaxRounds), client: o.Client,
		pageKey: o.PageKey, poll: cmp.Or(max(o.Poll, 0), defaultPoll)}
	if b.client == nil {
		b.client = defaultClient
	}
	b.bounds = NewBounds(o.MaxCallsPerSession, o.MaxCallsPerClient, o.MaxCalls)
	if o.makeRoomAfter > 0 {
		b.bounds.minAge = o.makeRoomAfter
	}
	return b.middleware
}

type bridge struct {
	timeout time.Duration
	max     int
	client  func(context.Context, *mcp.CallToolRequest) string
	pageKey func(string) string
	poll    time.Duration
	bounds  *Bounds
}

// callKey keys the *call of a tool call in its context.
type callKey struct{}

// bridgingKey marks the context of an elicitation the middleware's own
// rounds send.
type bridgingKey struct{}

// A call is what the two sides of the middleware share about one tool
// call from a legacy client.
type call struct {
	client string       // as Options.Client named it
	asked  atomic.Int32 // elicitation/create requests sent
	pages  pages        // its URL-mode requests

	end context.CancelCauseFunc // ends the call, to make room (see Bounds)

	mu       sync.Mutex
	admitted bool   // counted in the bounds
	wait     *Wait  // as counted
	refused  error  // or refused by them
	order    *order // the first round's, to ask in order (see order.go)
}

func (b *bridge) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil && IsLegacy(c.Session) {
				return b.rounds(ctx, next, c)
			}
		case "elicitation/create":
			c, ok := ctx.Value(callKey{}).(*call)
			p, ok2 := req.GetParams().(*mcp.ElicitParams)
			bridging := ctx.Value(bridgingKey{}) != nil
			if ok && ok2 && !bridging {
				if o, i := c.ordered(p); o != nil {
					return b.inOrder(ctx, next, req, o, i, c)
				}
			}
			if ok && ok2 && (IsOwn(p) || bridging) {
				return b.elicit(ctx, next, req, p, c)
			}
		}
		return next(ctx, method, req)
	}
}

// admit counts call c of session ss in the bounds when it first asks the
// client, or refuses it beyond them. Each call held may wait on its client
// for Timeout: unbounded, a client that never answers would hold memory
// and goroutines without limit. Calls that never ask are not counted.
func (b *bridge) admit(ss *mcp.ServerSession, c *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.admitted && c.refused == nil {
		c.wait, c.refused = b.bounds.EnterWait(ss, c.client, c.end)
		c.admitted = c.refused == nil
	}
	return c.refused
}

// release uncounts call c of session ss, if it was counted.
func (b *bridge) release(ss *mcp.ServerSession, c *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.admitted {
		b.bounds.LeaveWait(c.wait)
		c.admitted, c.wait = false, nil
	}
}

// An rpcError is an error of a legacy call: go-sdk sends the JSON-RPC
// error it wraps, code and all, with its message, and errors.Is still
// finds its cause.
type rpcError struct {
	rpc   *jsonrpc.Error
	cause error
}

// Errorf returns an error of JSON-RPC code -32603 whose message is format
// applied to args, and cause, if not nil, appended after a colon. go-sdk
// sends it as it is, and errors.Is finds cause in it.
func Errorf(cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &rpcError{rpc: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}, cause: cause}
}

func (e *rpcError) Error() string { return e.rpc.Message }

func (e *rpcError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.rpc}
	}
	return []error{e.rpc, e.cause}
}

// IsLegacy reports whether go-sdk's bridge serves the session's calls: it
// decides by the version the client asked for at initialize, and takes a
// session without one (stateless HTTP) to be on the latest.
func IsLegacy(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < StatelessRevision
}

// rounds serves a tool call from a legacy client.
//
// go-sdk's own bridge is the innermost receiving middleware (NewServer
// installs it before any other can be added), so it fulfils the handler's
// first input request before this middleware sees the result, through
// ServerSession.Elicit. No receiving middleware can reach that round. Every
// elicitation, the bridge's and ours, goes through the server's sending
// middleware, though, with a context derived from the call's: so rounds
// marks the context, and [bridge.elicit], on the sending side, bounds and
// downgrades the elicitations it bridges (see own.go), and asks go-sdk's
// round itself, one request at a time, when the caller recorded it with
// [InOrder] (see order.go). It counts the call as served (see served.go).
func (b *bridge) rounds(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	ctx, end := context.WithCancelCause(ctx)
	defer end(nil)
	c := &call{client: b.client(ctx, req), end: end}
	defer b.release(req.Session, c)
	ctx = context.WithValue(ctx, callKey{}, c)
	defer Serving(req.Session)()
	calls.Store(req.Params, c)
	defer calls.Delete(req.Params)
	defer c.pages.release()
	bridging := context.WithValue(ctx, bridgingKey{}, true)
	for {
		res, err := next(ctx, "tools/call", req)
		if err != nil {
			return nil, ours(err)
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || len(r.InputRequests) == 0 {
			return res, c.pages.complete(ctx, req.Session, nil)
		}
		// Rounds that only wait for a page ask nothing; waitPage bounds
		// them in time.
		if int(c.asked.Load()) >= b.max {
			return nil, b.tooMany()
		}
		keys := make([]string, 0, len(r.InputRequests))
		for k := range r.InputRequests {
			keys = append(keys, k)
		}
		slices.Sort(keys) // ask in the flow's order (see order.go)
		answers := make(mcp.InputResponseMap, len(keys))
		open := map[string]bool{}
		for _, key := range keys {
			p, ok := r.InputRequests[key].(*mcp.ElicitParams)
			if !ok || p == nil {
				return res, nil // sampling or roots: not ours to bridge
			}
			if isURLMode(p) {
				p = b.withID(p) // a copy, when it lacks an ID
				open[p.ElicitationID] = true
			}
			a, err := req.Session.Elicit(bridging, p)
			if err != nil {
				return nil, wrap(err, "mcpform: asking for input %q", key)
			}
			answers[key] = Answer(a)
			if a.Action != "accept" {
				break // the rest go unasked (see order.go)
			}
		}
		if err := c.pages.complete(ctx, req.Session, open); err != nil {
			return nil, Errorf(err, "mcpform: telling the client a page is done")
		}
		retry := *req.Params
		retry.InputResponses, retry.RequestState = answers, r.RequestState
		req = &mcp.CallToolRequest{Session: req.Session, Params: &retry, Extra: req.Extra}
	}
}

// ours returns the rpcError in err's chain, if there is one, rather than
// err: go-sdk's bridge wraps what elicit returns in words of its own, and
// the client is better told the bound it hit, once. Other errors, the
// handler's own, pass as they are.
func ours(err error) error {
	var e *rpcError
	if errors.As(err, &e) {
		return e
	}
	return err
}

// wrap returns err if it is an rpcError already, and otherwise an
// rpcError of format and args caused by err.
func wrap(err error, format string, args ...any) error {
	var e *rpcError
	if errors.As(err, &e) {
		return e
	}
	return Errorf(err, format, args...)
}

func (b *bridge) tooMany() error {
	return Errorf(nil, "mcpform: the tool call asked for input more than %d times", b.max)
}

// elicit sends one elicitation/create p that the middleware bridges for a
// legacy call, under the call's bounds and in the words of the client's
// revision, and never edits p. The answer to a request its caller built
// goes back to ServerSession.Elicit in a stand-in that it passes
// unjudged, so that the caller's checker, the one a 2026-07-28 answer
// meets, is the only judge.
func (b *bridge) elicit(ctx context.Context, next mcp.MethodHandler, req mcp.Request, p *mcp.ElicitParams, c *call) (mcp.Result, error) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return b.send(ctx, next, req, c)
	}
	if isURLMode(p) {
		q := b.withID(p)
		if since, waiting := c.pages.since(q.ElicitationID); waiting {
			// Consented already: the person is on the page, and the
			// handler's next run looks for what it sent.
			return b.waitPage(ctx, since, c.pages.sent)
		}
		answered := c.pages.ask(ss, q.ElicitationID)
		res, err := b.send(ctx, next, &mcp.ServerRequest[mcp.Params]{Session: ss, Params: q}, c)
		answered()
		if a, ok := res.(*mcp.ElicitResult); ok && err == nil && a.Action == "accept" {
			c.pages.consent(q.ElicitationID)
			c.mu.Lock()
			b.bounds.Consented(c.wait)
			c.mu.Unlock()
		}
		return res, err
	}
	out := req
	if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion < titledRevision {
		if schema := elicitSchema(p.RequestedSchema); schema != nil {
			if u := untitled(schema); u != schema {
				q := *p
				q.RequestedSchema = u
				out = &mcp.ServerRequest[mcp.Params]{Session: ss, Params: &q}
			}
		}
	}
	res, err := b.send(ctx, next, out, c)
	if a, ok := res.(*mcp.ElicitResult); ok && err == nil && IsOwn(p) {
		return StandIn(a), nil
	}
	return res, err
}

// inOrder answers go-sdk's goroutine for request i of o, a round of call
// c: the first of the round's goroutines to arrive asks every request in
// turn, through elicit, while the others wait, and each takes back the
// answer to its own.
func (b *bridge) inOrder(ctx context.Context, next mcp.MethodHandler, req mcp.Request, o *order, i int, c *call) (mcp.Result, error) {
	o.once.Do(func() {
		o.results, o.errs = make([]mcp.Result, len(o.params)), make([]error, len(o.params))
		ss, _ := req.GetSession().(*mcp.ServerSession)
		stop := false
		for j, p := range o.params {
			switch {
			case stop:
				o.results[j] = unasked()
			case j == i:
				o.results[j], o.errs[j] = b.elicit(ctx, next, req, p, c)
			default:
				o.results[j], o.errs[j] = b.elicit(ctx, next, &mcp.ServerRequest[mcp.Params]{Session: ss, Params: p}, p, c)
			}
			stop = stop || o.errs[j] != nil || !accepted(o.results[j])
		}
	})
	return o.results[i], o.errs[i]
}

// send sends one elicitation/create under the call's deadline for it.
func (b *bridge) send(ctx context.Context, next mcp.MethodHandler, req mcp.Request, c *call) (mcp.Result, error) {
	if int(c.asked.Add(1)) > b.max {
		return nil, b.tooMany()
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if err := b.admit(ss, c); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	res, err := next(sctx, "elicitation/create", req)
	if err != nil && errors.Is(context.Cause(ctx), ErrMadeRoom) {
		return nil, ErrMadeRoom
	}
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return nil, Errorf(context.DeadlineExceeded, "mcpform: the client did not answer within %v", b.timeout)
	}
	if err != nil {
		return nil, wrap(err, "mcpform: asking the client for input")
	}
	return res, nil
}
