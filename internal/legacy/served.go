package legacy

import (
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Without the middleware, go-sdk's bridge serves a client older than
// 2026-07-28 one round: it fulfils the handler's first input request and
// calls the handler once more, and a second input request on that call
// reaches the client as a result with no content, which it cannot read
// and which is no error either. [Served] tells the caller whether the
// middleware serves a session's calls, so that it can refuse that second
// request with an error that names the fix.

// served counts, per session, the tool calls the middleware is serving:
// every call of an older client on a server with the middleware passes
// through it before the handler runs, so a session with none has no
// middleware, whatever the handler does to its request or context.
var served = struct {
	sync.Mutex
	calls map[*mcp.ServerSession]int
}{calls: map[*mcp.ServerSession]int{}}

// servedCalls counts them in all, for Own to read without a lock.
var servedCalls atomic.Int64

// Serving counts a call of ss as served until done is called. The
// middleware calls it for each call it serves.
func Serving(ss *mcp.ServerSession) (done func()) {
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

// Served reports whether the middleware is serving a call of ss.
func Served(ss *mcp.ServerSession) bool {
	served.Lock()
	defer served.Unlock()
	return served.calls[ss] > 0
}
