package mcpform

import (
	"cmp"
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/mcpform/mcpform/internal/secretpage"
	"github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// Zero means 1000. When it is full, a new call does not wait for
	// calls that nobody answers to time out: it ends the one that has
	// waited longest, at least 10 seconds, for an answer no person has
	// consented to (a form not answered, a link not accepted), of another
	// session, with a JSON-RPC error, code -32603, that says so, and takes
	// its place. A flood from many clients, each within MaxCallsPerClient,
	// so locks no new client out. A call whose person accepted a link is
	// never ended. Behind a cap on sessions, keep MaxCalls below it, so
	// that some session is always free of waiting calls.
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
// It asks a round's requests one at a time, in the order of their keys,
// which for a [Flow] is the flow's order, a step's form before its link:
// go-sdk's first round too, whose requests go-sdk sends all at once, when
// a Flow built the round. A decline or cancel of one request answers the
// round: the requests after it are not asked and reach the handler
// unanswered, and the handler reads the answers as a 2026-07-28 client
// would send them. For a Flow, a cancel of a step's form cancels the flow,
// and so does a cancel of its link, which the person is shown only once
// the form is answered, as the last thing the step asks.
//
// A URL-mode request for a [Flow]'s secret page reaches a 2025-11-25
// client with an elicitationId, the same for every round of that page.
// Once the person consents, the middleware asks it no more and waits for
// the page, running the handler again as a 2026-07-28 client retries. When
// the page has the secret, the client gets
// notifications/elicitation/complete for that ID, and the call goes on:
// at once where the page is served by the same process, even while the
// client has not answered the request yet (the MCP Inspector answers it
// when it hears the notice), and elsewhere at its next try, within a
// second.
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
// both sides: internal/legacy's, with the root's defaults and links.
func legacyRounds(opts *LegacyOptions) mcp.Middleware {
	var o LegacyOptions
	if opts != nil {
		o = *opts
	}
	return legacy.Middleware(legacy.Options{
		Timeout:            cmp.Or(max(o.Timeout, 0), token.DefaultTTL),
		MaxRounds:          o.MaxRounds,
		MaxCallsPerSession: o.MaxCallsPerSession,
		MaxCallsPerClient:  o.MaxCallsPerClient,
		MaxCalls:           o.MaxCalls,
		Client:             o.Client,
		PageKey:            secretpage.PageKey,
		Poll:               legacyPoll,
	})
}

// legacyPoll is how long a legacy call waits between re-runs of the
// handler while a page it was consented to is still open.
var legacyPoll = time.Second

// pageSent tells the legacy calls of this process that wait for the
// secret page of token, at the flow's PageURL, that it has its secret:
// they go on at once, and the client hears that the URL elicitation is
// complete (notifications/elicitation/complete), rather than at their next
// poll. The link is built as [round.pageRequest] builds it, for the same
// elicitationId.
func (f *Flow) pageSent(token string) {
	if !legacy.Waiting() {
		return
	}
	sep := "?"
	if strings.Contains(f.secrets.PageURL, "?") {
		sep = "&"
	}
	legacy.PageSent(legacy.ElicitationID(secretpage.PageKey(f.secrets.PageURL + sep + "t=" + url.QueryEscape(token))))
}

// faceWaits bounds the legacy calls that a face other than go-sdk's
// (the mcpgo package) holds waiting for their person, with the defaults
// of [LegacyOptions], as go-sdk's face bounds those of AddLegacyRounds:
// one server's calls in all, as a process serves one.
var faceWaits = legacy.NewBounds(0, 0, 0)

func (s *flowSeam) Wait(session any, client string) (func(), error) {
	if err := faceWaits.Enter(session, client); err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { faceWaits.Leave(session, client) }), nil
}

// Without [AddLegacyRounds], go-sdk's bridge serves a client older than
// 2026-07-28 one round: it fulfils the handler's first input request and
// calls the handler once more, and a second input request on that call
// reaches the client as a result with no content, which it cannot read
// and which is no error either. [Flow.Next] knows when its round would be
// that second request, and returns an error that names the fix instead;
// so do [Form.Ask] and [Form.Reask] for a lone form.

// errNoLegacyRounds is the error of a round that a client older than
// 2026-07-28 could not read, for want of AddLegacyRounds; errFormNoLegacy
// is a lone Form's.
var (
	errNoLegacyRounds = legacy.Errorf(nil, "mcpform: this flow needs more than one round for a client older than %s: the server must call mcpform.AddLegacyRounds", legacy.StatelessRevision)
	errFormNoLegacy   = legacy.Errorf(nil, "mcpform: asking a form again needs a second round for a client older than %s: the server must call mcpform.AddLegacyRounds", legacy.StatelessRevision)
)

// unservedRound returns errNoLegacyRounds when r asks for input on a call
// that go-sdk's bridge cannot carry (see unserved); otherwise nil. On a
// call that AddLegacyRounds serves, it has the round's requests asked one
// at a time, in the flow's order, go-sdk's first round included.
func unservedRound(req *mcp.CallToolRequest, r *FlowRound) error {
	switch {
	case r == nil || r.Result == nil || len(r.Result.InputRequests) == 0:
		return nil
	case unserved(req):
		return errNoLegacyRounds
	}
	legacy.InOrder(req, r.Result.InputRequests)
	return nil
}

// unserved reports whether req is a call that go-sdk's bridge has called
// again already, for a client older than 2026-07-28, without the
// middleware serving it: an input request in its result would reach the
// client as that empty result.
func unserved(req *mcp.CallToolRequest) bool {
	if req == nil || req.Params == nil || (req.Params.RequestState == "" && len(req.Params.InputResponses) == 0) {
		return false // the call's first run: the bridge fulfils it
	}
	return legacy.IsLegacy(req.Session) && !legacy.Served(req.Session)
}

// unservedResult is the result of [Form.Reask] on such a call, which
// cannot return an error: a tool error that names the fix, rather than
// an empty result.
func unservedResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: errFormNoLegacy.Error()}}}
}
