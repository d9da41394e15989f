package mcpform

import (
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Without [AddLegacyRounds], go-sdk's bridge serves a client older than
// 2026-07-28 one round: it fulfils the handler's first input request and
// calls the handler once more, and a second input request on that call
// reaches the client as a result with no content, which it cannot read
// and which is no error either. [Flow.Next] knows when its round would be
// that second request, and returns an error that names the fix instead;
// so do [Form.Ask] and [Form.Reask] for a lone form.

// served counts, per session, the tool calls the middleware is serving:
// every call of an older client on a server with the middleware passes
// through it before the handler runs, so a session with none has no
// middleware, whatever the handler does to its request or context.
var served = struct {
	sync.Mutex
	calls map[*mcp.ServerSession]int
}{calls: map[*mcp.ServerSession]int{}}

// servedCalls counts them in all, for own to read without a lock.
var servedCalls atomic.Int64

// markServed counts a call of ss as served until unmark is called.
func markServed(ss *mcp.ServerSession) (unmark func()) {
	served.Lock()
	served.calls[ss]++
	servedCalls.Add(1)
	served.Unlock()
	return func() {
		served.Lock()
		defer served.Unlock()
		servedCalls.Add(-1)
		if served.calls[ss]--; served.calls[ss] == 0 {
			delete(served.calls, ss)
		}
	}
}

func isServed(ss *mcp.ServerSession) bool {
	served.Lock()
	defer served.Unlock()
	return served.calls[ss] > 0
}

// errNoLegacyRounds is the error of a round that a client older than
// 2026-07-28 could not read, for want of AddLegacyRounds; errFormNoLegacy
// is a lone Form's.
var (
	errNoLegacyRounds = legacyErr(nil, "mcpform: this flow needs more than one round for a client older than %s: the server must call mcpform.AddLegacyRounds", firstStatelessRevision)
	errFormNoLegacy   = legacyErr(nil, "mcpform: asking a form again needs a second round for a client older than %s: the server must call mcpform.AddLegacyRounds", firstStatelessRevision)
)

// unservedRound returns errNoLegacyRounds when r asks for input on a call
// that go-sdk's bridge cannot carry (see unserved); otherwise nil.
func unservedRound(req *mcp.CallToolRequest, r *FlowRound) error {
	if r == nil || r.Result == nil || len(r.Result.InputRequests) == 0 || !unserved(req) {
		return nil
	}
	return errNoLegacyRounds
}

// unserved reports whether req is a call that go-sdk's bridge has called
// again already, for a client older than 2026-07-28, without the
// middleware serving it: an input request in its result would reach the
// client as that empty result.
func unserved(req *mcp.CallToolRequest) bool {
	if req == nil || req.Params == nil || (req.Params.RequestState == "" && len(req.Params.InputResponses) == 0) {
		return false // the call's first run: the bridge fulfils it
	}
	return isLegacy(req.Session) && !isServed(req.Session)
}

// unservedResult is the result of [Form.Reask] on such a call, which
// cannot return an error: a tool error that names the fix, rather than
// an empty result.
func unservedResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: errFormNoLegacy.Error()}}}
}
