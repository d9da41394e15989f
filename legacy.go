package mcpform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
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

// maxLegacyRounds is the default bound on the times one call asks, as
// go-sdk's client bounds its own retry loop.
const maxLegacyRounds = 10

// LegacyOptions configures [NewLegacyRounds]. A nil *LegacyOptions and zero
// fields mean the defaults.
type LegacyOptions struct {
	// Timeout bounds each elicitation/create sent to the client, re-asks
	// included: a client that has not answered by then ends the call with
	// an error wrapping context.DeadlineExceeded, and everything the call
	// held is freed. Zero or negative means 10 minutes, the default TTL of
	// a [RequestStateCodec]. Keep it no longer than your codec's TTL: a
	// state minted when the question went out has expired by then anyway.
	Timeout time.Duration
	// MaxRounds bounds the times one tool call asks the client, re-asks of
	// an answer that does not match its schema included; the call then ends
	// with an error. Zero or negative means 10, the bound of go-sdk's own
	// client loop.
	MaxRounds int
}

// AddLegacyRounds installs [NewLegacyRounds](opts) on both sides of
// server, as it must be: the receiving side asks every round, the sending
// side bounds, relabels and re-asks each elicitation/create. Call it once,
// after creating the server. A nil opts means the defaults.
func AddLegacyRounds(server *mcp.Server, opts *LegacyOptions) {
	mw := NewLegacyRounds(opts)
	server.AddReceivingMiddleware(mw)
	server.AddSendingMiddleware(mw)
}

// LegacyRounds is [NewLegacyRounds](nil): middleware that lets a client
// older than protocol revision 2026-07-28 answer a tool call that asks for
// input, in as many rounds as it takes. Install it on both sides of the
// server, or let [AddLegacyRounds] do so:
//
//	server.AddReceivingMiddleware(mcpform.LegacyRounds)
//	server.AddSendingMiddleware(mcpform.LegacyRounds)
func LegacyRounds(next mcp.MethodHandler) mcp.MethodHandler {
	return defaultLegacyRounds(next)
}

var defaultLegacyRounds = NewLegacyRounds(nil)

// NewLegacyRounds returns go-sdk middleware that lets a client older than
// protocol revision 2026-07-28 answer a tool call that asks for input in
// several rounds, such as a [Flow] with two steps or a form asked again. A
// nil opts means the defaults of [LegacyOptions]. Install the one value on
// both sides of the server, after creating it:
//
//	legacy := mcpform.NewLegacyRounds(nil)
//	server.AddReceivingMiddleware(legacy)
//	server.AddSendingMiddleware(legacy)
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
// On the sending side, it governs every elicitation/create sent for such a
// call, go-sdk's first round included:
//   - each waits at most [LegacyOptions].Timeout for the client;
//   - a client older than 2025-11-25 gets titled choices as enum plus
//     enumNames, the labels its revision can show (a multiple choice, which
//     its revision lacks, stays an array, without labels);
//   - an accepted answer that does not match the schema, which go-sdk would
//     refuse and end the call with, is asked again at once, with a message
//     that names each refused field and with the good values as defaults.
//
// Installed on the receiving side only, it still asks every round, but
// none of the three above applies. It needs a session that can send
// requests to the client: over streamable HTTP, a stateful handler.
func NewLegacyRounds(opts *LegacyOptions) mcp.Middleware {
	l := &legacy{timeout: defaultRequestStateTTL, max: maxLegacyRounds}
	if opts != nil {
		if opts.Timeout > 0 {
			l.timeout = opts.Timeout
		}
		if opts.MaxRounds > 0 {
			l.max = opts.MaxRounds
		}
	}
	return l.middleware
}

type legacy struct {
	timeout time.Duration
	max     int
}

// legacyCallKey keys the *legacyCall of a tool call in its context.
type legacyCallKey struct{}

// A legacyCall is what the two sides of the middleware share about one
// tool call from a legacy client.
type legacyCall struct {
	asked atomic.Int32 // elicitation/create requests sent
	pages pages        // its URL-mode requests
}

func (l *legacy) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && isLegacy(call.Session) {
				return l.rounds(ctx, next, call)
			}
		case "elicitation/create":
			if c, ok := ctx.Value(legacyCallKey{}).(*legacyCall); ok {
				return l.elicit(ctx, next, req, c)
			}
		}
		return next(ctx, method, req)
	}
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
// first input request before this middleware sees the result, and
// ServerSession.Elicit checks the client's answer against the schema and
// fails the call on a mismatch. No receiving middleware can reach that
// round. Every elicitation, the bridge's and ours, goes through the
// server's sending middleware, though, with a context derived from the
// call's: so rounds marks the context, and [legacy.elicit], on the sending
// side, bounds, downgrades and re-asks each marked elicitation before
// Elicit judges the answer.
func (l *legacy) rounds(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) (mcp.Result, error) {
	c := &legacyCall{}
	ctx = context.WithValue(ctx, legacyCallKey{}, c)
	for {
		res, err := next(ctx, "tools/call", call)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || r == nil || len(r.InputRequests) == 0 {
			if err == nil {
				err = c.pages.complete(ctx, call.Session, nil)
			}
			return res, err
		}
		// Rounds that only wait for a page ask nothing; waitPage bounds
		// them in time.
		if int(c.asked.Load()) >= l.max {
			return nil, fmt.Errorf("mcpform: the tool call asked for input more than %d times", l.max)
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
			if !ok {
				return res, nil // sampling or roots: not ours to bridge
			}
			if isURLMode(p) {
				p = withID(p)
				open[p.ElicitationID] = true
			}
			a, err := call.Session.Elicit(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("mcpform: asking for input %q: %w", key, err)
			}
			answers[key] = a
		}
		if err := c.pages.complete(ctx, call.Session, open); err != nil {
			return nil, err
		}
		retry := *call.Params
		retry.InputResponses, retry.RequestState = answers, r.RequestState
		call = &mcp.CallToolRequest{Session: call.Session, Params: &retry, Extra: call.Extra}
	}
}

// elicit sends one elicitation/create of a legacy call, and sends it again
// while the client accepts with content that does not match the schema.
// It judges the answer as ServerSession.Elicit will, with jsonschema-go
// against the schema as sent by the handler, so an answer it lets through
// is never refused there.
func (l *legacy) elicit(ctx context.Context, next mcp.MethodHandler, req mcp.Request, c *legacyCall) (mcp.Result, error) {
	p, ok := req.GetParams().(*mcp.ElicitParams)
	ss, ok2 := req.GetSession().(*mcp.ServerSession)
	if ok && ok2 && p != nil && isURLMode(p) {
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
	if !ok || !ok2 || p == nil || (p.Mode != "" && p.Mode != "form") {
		return l.send(ctx, next, req, c)
	}
	schema, resolved := elicitSchema(p.RequestedSchema)
	if schema == nil {
		return l.send(ctx, next, req, c)
	}
	version := ""
	if ip := ss.InitializeParams(); ip != nil {
		version = ip.ProtocolVersion
	}
	out := req
	if version < firstTitledRevision {
		if u := untitled(schema); u != schema {
			out = withSchema(ss, p, p.Message, u)
		}
	}
	for {
		res, err := l.send(ctx, next, out, c)
		if err != nil {
			return res, err
		}
		a, ok := res.(*mcp.ElicitResult)
		if !ok || a.Action != "accept" || a.Content == nil || resolved.Validate(a.Content) == nil {
			return res, err
		}
		problem, good := legacyProblems(schema, a.Content)
		if int(c.asked.Load()) >= l.max {
			return nil, fmt.Errorf("mcpform: asked %d times without an answer that matches the schema: %s", l.max, problem)
		}
		again := withDefaults(schema, good)
		if version < firstTitledRevision {
			again = untitled(again)
		}
		out = withSchema(ss, p, p.Message+"\n\n"+problem, again)
	}
}

// send sends one elicitation/create under the call's deadline for it.
func (l *legacy) send(ctx context.Context, next mcp.MethodHandler, req mcp.Request, c *legacyCall) (mcp.Result, error) {
	if int(c.asked.Add(1)) > l.max {
		return nil, fmt.Errorf("mcpform: the tool call asked for input more than %d times", l.max)
	}
	sctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	res, err := next(sctx, "elicitation/create", req)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("mcpform: the client did not answer within %v: %w", l.timeout, context.DeadlineExceeded)
	}
	return res, err
}

// withSchema returns a request to send p with another message and schema,
// leaving p, which the handler owns, as it is.
func withSchema(ss *mcp.ServerSession, p *mcp.ElicitParams, message string, schema *jsonschema.Schema) mcp.Request {
	q := *p
	q.Message, q.RequestedSchema = message, schema
	return &mcp.ServerRequest[mcp.Params]{Session: ss, Params: &q}
}
