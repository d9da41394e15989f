package legacy

import (
	"runtime"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Which elicitations the middleware bridges for its caller, and how their
// answers get past ServerSession.Elicit unjudged without editing anything
// a handler holds.
//
// go-sdk's own bridge sends the first round of a legacy call through
// ServerSession.Elicit, which judges an accepted answer against the
// requested schema of the very params it was given, blind to formats, and
// ends the call on a mismatch. The caller's requests are judged by the
// caller's checker instead, which names every problem and asks again. So
// the sending side recognises the caller's requests by identity ([Own]),
// sends them itself, and hands Elicit a stand-in: a result without
// content, which Elicit passes on unjudged, carrying the client's answer
// where no client can put one. [Answer] reads the answer out of it.
// Everything else, a handler's own Elicit and its own input requests,
// meets go-sdk's check as it would without the middleware.

// ownRequests holds, weakly, the *mcp.ElicitParams the caller built while
// the middleware served a call: an entry goes when its params are
// collected.
var ownRequests sync.Map // weak.Pointer[mcp.ElicitParams] → struct{}

// Own records p as built by the caller, for a client's answer to be
// judged by the caller's checker alone, and returns it. It records
// nothing while the middleware serves no call, in no process that lacks
// it and on no 2026-07-28 server at rest, so that a round pays nothing for
// it there: the requests of a call it serves are built during that call.
// (A result kept from an earlier call may meet go-sdk's check instead.)
func Own(p *mcp.ElicitParams) *mcp.ElicitParams {
	if servedCalls.Load() == 0 {
		return p
	}
	w := weak.Make(p)
	ownRequests.Store(w, struct{}{})
	runtime.AddCleanup(p, func(w weak.Pointer[mcp.ElicitParams]) { ownRequests.Delete(w) }, w)
	return p
}

// IsOwn reports whether [Own] recorded p.
func IsOwn(p *mcp.ElicitParams) bool {
	if p == nil {
		return false
	}
	_, ok := ownRequests.Load(weak.Make(p))
	return ok
}

// standInKey is where a stand-in's Meta carries the answer.
const standInKey = "io.github.mcpform/answer"

// An answered is the value under standInKey: a type of this package, which
// no client's JSON decodes into, so that only the middleware makes one.
type answered struct{ r *mcp.ElicitResult }

// StandIn returns what the sending side hands Elicit for the answer r to
// one of the caller's requests: r itself when Elicit would not judge it
// (not accepted, or without content), and otherwise a result without
// content that carries r.
func StandIn(r *mcp.ElicitResult) *mcp.ElicitResult {
	if r == nil || r.Action != "accept" || r.Content == nil {
		return r
	}
	return &mcp.ElicitResult{Action: r.Action, Meta: mcp.Meta{standInKey: answered{r}}}
}

// Answer returns the answer a stand-in carries, or r when it is none.
func Answer(r *mcp.ElicitResult) *mcp.ElicitResult {
	if r != nil && r.Content == nil {
		if a, ok := r.Meta[standInKey].(answered); ok {
			return a.r
		}
	}
	return r
}
