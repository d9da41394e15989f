package legacy

import (
	"cmp"
	"container/list"
	"context"
	"sync"
	"time"

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
//
// Per-client bounds alone do not stop a flood from many addresses filling
// the global one, which would then refuse every new client until the
// flood's calls timed out. So a call counted by [Bounds.EnterWait] may be
// ended to make room: when the global bound is full, a new call ends the
// call of another session that has waited longest, at least
// [MakeRoomAfter], for an answer no person has consented to (a form not
// answered, a link not accepted), and takes its place.
type Bounds struct {
	perSession, perClient, total int
	minAge                       time.Duration // MakeRoomAfter, shorter in tests

	mu       sync.Mutex
	calls    int            // calls counted
	sessions map[any]int    // of them, per session that has any
	clients  map[string]int // and per named client that has any
	waits    list.List      // of *Wait: the calls that may be ended, oldest first
}

// MakeRoomAfter is how long a call must have waited before a new call may
// end it to make room: a burst of calls is refused, as the bounds say,
// and only a flood that outlasts it gives way to new clients.
const MakeRoomAfter = 10 * time.Second

// ErrMadeRoom is the cause of the context of a call [Bounds] ended to
// make room for another, and the error the call ends with: an error of
// JSON-RPC code -32603 (see [Errorf]).
var ErrMadeRoom = Errorf(nil, "mcpform: the server is full of calls waiting for input, and this one had waited longest for an answer nobody gave; it was ended to make room for another client; call again")

// A Wait is a call counted by [Bounds.EnterWait], which Bounds may end.
type Wait struct {
	ss        any
	client    string
	end       context.CancelCauseFunc
	since     time.Time
	consented bool
	el        *list.Element // nil once it has left or was ended
}

// NewBounds returns the bounds of [Options] whose fields are perSession,
// perClient and total, zero or less meaning the defaults.
func NewBounds(perSession, perClient, total int) *Bounds {
	b := &Bounds{
		perSession: cmp.Or(max(perSession, 0), DefaultMaxCallsPerSession),
		total:      cmp.Or(max(total, 0), DefaultMaxCalls),
		minAge:     MakeRoomAfter,
		sessions:   map[any]int{},
		clients:    map[string]int{},
	}
	b.perClient = cmp.Or(max(perClient, 0), max(min(DefaultMaxCallsPerClient, b.total/4), 1))
	return b
}

// Enter counts a call of session ss, a comparable value that names it,
// from client ("" for none named), or returns the error of the bound it
// would pass: an error of JSON-RPC code -32603 (see [Errorf]) that says
// which. A call it counts is never ended to make room; with the global
// bound full, it may end one that [Bounds.EnterWait] counted.
func (b *Bounds) Enter(ss any, client string) error {
	_, err := b.enter(ss, client, nil)
	return err
}

// EnterWait is Enter for a call that end ends: with the global bound
// full, a later call may end it to make room (see [Bounds]), calling end
// with [ErrMadeRoom] and uncounting it. [Bounds.LeaveWait] uncounts it
// when it ends otherwise.
func (b *Bounds) EnterWait(ss any, client string, end context.CancelCauseFunc) (*Wait, error) {
	return b.enter(ss, client, end)
}

func (b *Bounds) enter(ss any, client string, end context.CancelCauseFunc) (*Wait, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sessions[ss] >= b.perSession {
		return nil, Errorf(nil, "mcpform: this session has %d calls waiting for input already, the most it may; answer or cancel one first", b.perSession)
	}
	if client != "" && b.clients[client] >= b.perClient {
		return nil, Errorf(nil, "mcpform: this client has %d calls waiting for input already, the most it may; answer or cancel one first", b.perClient)
	}
	if b.calls >= b.total && !b.makeRoom(ss) {
		return nil, Errorf(nil, "mcpform: the server has %d calls waiting for input, the most it serves at once; try again later", b.total)
	}
	b.calls++
	b.sessions[ss]++
	if client != "" {
		b.clients[client]++
	}
	if end == nil {
		return nil, nil
	}
	w := &Wait{ss: ss, client: client, end: end, since: time.Now()}
	w.el = b.waits.PushBack(w)
	return w, nil
}

// makeRoom ends the oldest call of a session other than ss that has
// waited MakeRoomAfter for an answer no one consented to, and reports
// whether there was one.
func (b *Bounds) makeRoom(ss any) bool {
	cutoff := time.Now().Add(-b.minAge)
	for el := b.waits.Front(); el != nil; el = el.Next() {
		w := el.Value.(*Wait)
		if !w.since.Before(cutoff) {
			return false // the rest are younger
		}
		if w.consented || w.ss == ss {
			continue
		}
		b.leave(w.ss, w.client)
		b.waits.Remove(el)
		w.el = nil
		w.end(ErrMadeRoom)
		return true
	}
	return false
}

// Consented marks w's call as one a person has consented to: a page
// link accepted. It is never ended to make room. A nil w is ignored.
func (b *Bounds) Consented(w *Wait) {
	if w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w.consented = true
}

// LeaveWait uncounts a call that EnterWait counted, unless it was ended
// to make room, which uncounted it. A nil w is ignored.
func (b *Bounds) LeaveWait(w *Wait) {
	if w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if w.el == nil {
		return
	}
	b.waits.Remove(w.el)
	w.el = nil
	b.leave(w.ss, w.client)
}

// Leave uncounts a call that Enter counted. Memory follows the sessions
// and clients with calls.
func (b *Bounds) Leave(ss any, client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.leave(ss, client)
}

func (b *Bounds) leave(ss any, client string) {
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
