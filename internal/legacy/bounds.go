package legacy

import (
	"cmp"
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds counts the legacy calls that wait on their client, per
// session, per client and in all, and refuses one beyond any bound. The
// global bound alone let one client fill it, from as many sessions as it
// liked, and so starve every other older client. It is the one policy of
// every face: go-sdk's (the middleware) and mcp-go's (through the core's
// flow seam) count their waiting calls in a Bounds, with the same numbers
// and the same errors. The zero Bounds is not usable: make one with
// [NewBounds].
type Bounds struct {
	perSession, perClient, total int

	mu       sync.Mutex
	calls    int            // calls counted
	sessions map[any]int    // of them, per session that has any
	clients  map[string]int // and per named client that has any
}

// NewBounds returns the bounds of [Options] whose fields are perSession,
// perClient and total, zero or less meaning the defaults.
func NewBounds(perSession, perClient, total int) *Bounds {
	b := &Bounds{
		perSession: cmp.Or(max(perSession, 0), DefaultMaxCallsPerSession),
		total:      cmp.Or(max(total, 0), DefaultMaxCalls),
		sessions:   map[any]int{},
		clients:    map[string]int{},
	}
	b.perClient = cmp.Or(max(perClient, 0), max(min(DefaultMaxCallsPerClient, b.total/4), 1))
	return b
}

// Enter counts a call of session ss, a comparable value that names it,
// from client ("" for none named), or returns the error of the bound it
// would pass: an error of JSON-RPC code -32603 (see [Errorf]) that says
// which.
func (b *Bounds) Enter(ss any, client string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sessions[ss] >= b.perSession {
		return Errorf(nil, "mcpform: this session has %d calls waiting for input already, the most it may; answer or cancel one first", b.perSession)
	}
	if client != "" && b.clients[client] >= b.perClient {
		return Errorf(nil, "mcpform: this client has %d calls waiting for input already, the most it may; answer or cancel one first", b.perClient)
	}
	if b.calls >= b.total {
		return Errorf(nil, "mcpform: the server has %d calls waiting for input, the most it serves at once; try again later", b.total)
	}
	b.calls++
	b.sessions[ss]++
	if client != "" {
		b.clients[client]++
	}
	return nil
}

// Leave uncounts a call that Enter counted. Memory follows the sessions
// and clients with calls.
func (b *Bounds) Leave(ss any, client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls--
	if b.sessions[ss]--; b.sessions[ss] == 0 {
		delete(b.sessions, ss)
	}
	if client == "" {
		return
	}
	if b.clients[client]--; b.clients[client] == 0 {
		delete(b.clients, client)
	}
}

// defaultClient is Options.Client when it is nil: the authenticated user,
// if any. The name is prefixed so that no user ID can equal a name a
// server's own Client gives.
func defaultClient(_ context.Context, req *mcp.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil || req.Extra.TokenInfo.UserID == "" {
		return ""
	}
	return "user:" + req.Extra.TokenInfo.UserID
}
