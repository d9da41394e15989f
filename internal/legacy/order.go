package legacy

import (
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A round's requests are asked one at a time, in the order of their keys,
// which is the flow's order: a form under its step's key before its link
// under the key followed by ".secret". A person answers one request at a
// time, and a host that shows them as they come shows the link first if
// the link comes first, so the person who dismisses it to give the email
// first ends the call.
//
// The middleware's own rounds ask in that order. go-sdk's bridge, which
// fulfils a call's first round before the middleware sees its result,
// sends every request of the round at once, each from a goroutine of its
// own. So the caller tells the middleware, with [InOrder], the requests of
// a result it built; the sending side then holds go-sdk's goroutines and
// asks the round itself, from whichever arrives first, one request after
// the other, each goroutine taking back the answer to its own.
//
// A decline or cancel of one request answers the round: the requests after
// it are not asked, and reach the handler unanswered (go-sdk's goroutines
// take back a stand-in that [Answer] reads as none). The handler decides
// what the answers mean, as for a 2026-07-28 client, which sends them all:
// a cancel of a step's form cancels the flow, and so does a cancel of its
// link, the last thing the step asks.

// calls maps the params of a legacy call's first run, as the middleware
// passes them on, to the call: the caller finds the call by the request
// its handler holds, whatever context it passes along.
var calls sync.Map // *mcp.CallToolParamsRaw → *call

// An order is the requests of one round, to ask one at a time.
type order struct {
	keys   []string
	params []*mcp.ElicitParams

	once    sync.Once
	results []mcp.Result
	errs    []error
}

// InOrder records that the elicitations in requests, a result the caller
// built for the tool call req, are asked in the order of their keys, and
// one at a time, go-sdk's first round included: requests must be the
// input requests of the result the handler returns, each asked once there.
// It does nothing on a call the middleware does not serve, or for fewer
// than two elicitations.
func InOrder(req *mcp.CallToolRequest, requests mcp.InputRequestMap) {
	if req == nil || req.Params == nil || len(requests) < 2 {
		return
	}
	v, ok := calls.Load(req.Params)
	if !ok {
		return
	}
	o := &order{}
	for _, key := range slices.Sorted(maps.Keys(requests)) {
		if p, ok := requests[key].(*mcp.ElicitParams); ok && p != nil {
			o.keys, o.params = append(o.keys, key), append(o.params, p)
		}
	}
	if len(o.params) < 2 {
		return
	}
	c := v.(*call)
	c.mu.Lock()
	c.order = o
	c.mu.Unlock()
}

// ordered returns the order p belongs to, on call c, or nil.
func (c *call) ordered(p *mcp.ElicitParams) (*order, int) {
	c.mu.Lock()
	o := c.order
	c.mu.Unlock()
	if o == nil {
		return nil, -1
	}
	i := slices.Index(o.params, p)
	if i < 0 {
		return nil, -1
	}
	return o, i
}

// unasked is what go-sdk's goroutine for a request left unasked takes
// back: a cancel, for a reader that does not unwrap it, that [Answer]
// reads as no answer at all.
func unasked() *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "cancel", Meta: mcp.Meta{standInKey: answered{nil}}}
}

// accepted reports whether r, an answer elicit took back, lets the round
// go on: an accept.
func accepted(r mcp.Result) bool {
	a, _ := r.(*mcp.ElicitResult)
	a = Answer(a)
	return a != nil && a.Action == "accept"
}
