package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawClient is a client on 2025-11-25 that speaks JSON-RPC over a
// connection by hand and never answers the server's requests: a client
// that walked away, or a transport that drops them. It keeps the replies
// it gets, or, for many calls, only counts them by code and message.
type rawClient struct {
	conn    mcp.Connection
	keep    bool
	mu      sync.Mutex
	replies map[string]*jsonrpc.Response
	errs    map[string]int // "code message" → replies
	n       int            // replies
	asked   int
}

func newRawClient(t *testing.T, server *mcp.Server, keep bool) *rawClient {
	t.Helper()
	return newRawClientIn(t, context.Background(), server, keep)
}

// newRawClientIn is newRawClient whose session the server serves in
// sctx, as go-sdk serves an HTTP session in its initialize request's.
func newRawClientIn(t *testing.T, sctx context.Context, server *mcp.Server, keep bool) *rawClient {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(sctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{conn: conn, keep: keep, replies: map[string]*jsonrpc.Response{}, errs: map[string]int{}}
	go func() {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			c.mu.Lock()
			switch m := msg.(type) {
			case *jsonrpc.Response:
				c.n++
				if id := fmt.Sprint(m.ID.Raw()); c.keep || id == "init" {
					c.replies[id] = m
				}
				var jerr *jsonrpc.Error
				if errors.As(m.Error, &jerr) {
					c.errs[fmt.Sprint(jerr.Code, " ", jerr.Message)]++
				}
			case *jsonrpc.Request:
				if m.Method == "elicitation/create" {
					c.asked++ // and never answered
				}
			}
			c.mu.Unlock()
		}
	}()
	c.send(t, "init", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"v0"}}`)
	require.Eventually(t, func() bool { return c.reply("init") != nil }, 5*time.Second, time.Millisecond)
	require.NoError(t, conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}))
	return c
}

func (c *rawClient) send(t testing.TB, id, method, params string) {
	t.Helper()
	rid, err := jsonrpc.MakeID(id)
	require.NoError(t, err)
	require.NoError(t, c.conn.Write(context.Background(), &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}))
}

// call sends n tools/call requests of the tool "ask", with IDs prefix0 on.
func (c *rawClient) call(t testing.TB, prefix string, n int) {
	for i := range n {
		c.send(t, fmt.Sprint(prefix, i), "tools/call", `{"name":"ask","arguments":{}}`)
	}
}

func (c *rawClient) reply(id string) *jsonrpc.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replies[id]
}

// counts returns the elicitations the client was sent and the replies it
// got, initialize's included.
func (c *rawClient) counts() (asked, replies int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked, c.n
}

// errors returns the error replies by "code message".
func (c *rawClient) errors() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.errs)
}

// askServer returns a server whose tool "ask" asks a form on every call,
// with the middleware of o.
func askServer(t testing.TB, o Options) *mcp.Server {
	schema := map[string]any{"type": "object", "required": []any{"name"},
		"properties": map[string]any{"name": map[string]any{"type": "string"}}}
	server := newServer("ask", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return formRequest("form", "Your name", schema), nil
	})
	install(server, o)
	return server
}

// settledGoroutines returns the goroutine count once it has stopped
// falling to at most want, or after 5 s. It polls by hand: assert.Eventually
// counts goroutines of its own.
func settledGoroutines(want int) int {
	now := runtime.NumGoroutine()
	for end := time.Now().Add(5 * time.Second); now > want && time.Now().Before(end); now = runtime.NumGoroutine() {
		time.Sleep(5 * time.Millisecond)
	}
	return now
}

func stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// TestLegacyAbandoned: calls whose client never answers the elicitation
// end at the deadline with a JSON-RPC error, and leave the goroutine count
// where it was.
func TestLegacyAbandoned(t *testing.T) {
	const n = 4
	c := newRawClient(t, askServer(t, Options{Timeout: 100 * time.Millisecond, MaxCallsPerSession: n}), true)
	time.Sleep(10 * time.Millisecond) // let the session's goroutines settle
	before := runtime.NumGoroutine()

	c.call(t, "", n)
	require.Eventually(t, func() bool { asked, _ := c.counts(); return asked == n }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { _, replies := c.counts(); return replies == n+1 }, 5*time.Second, time.Millisecond)
	for i := range n {
		requireLegacyError(t, c.reply(fmt.Sprint(i)).Error, "did not answer within 100ms")
	}
	if now := settledGoroutines(before); now > before {
		t.Errorf("goroutines: %d before the calls, %d after:\n%s", before, now, stacks())
	}
}

// TestLegacyAbandonedCalls sends 2,000 calls on one session of a client
// on 2025-11-25 that never answers: the calls beyond the session's bound
// are refused at once, so goroutines and memory stay bounded whatever the
// client sends, and closing the session ends the waits of those it holds,
// long before their Timeout. Without a bound each call held two goroutines
// and about 50 KB until Timeout, 10 minutes by default. (e2e's
// TestAbandonedCalls sends 20,000 to the example's binary.)
func TestLegacyAbandonedCalls(t *testing.T) {
	const (
		n     = 2000
		batch = 250
	)
	c := newRawClient(t, askServer(t, Options{Timeout: time.Hour}), false)
	time.Sleep(10 * time.Millisecond) // let the session's goroutines settle
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	heapBefore, before := mem.HeapAlloc, runtime.NumGoroutine()
	// Each waiting call holds a few goroutines; the refused, none.
	bound := before + 4*DefaultMaxCallsPerSession + 16
	peak := before
	for sent := 0; sent < n; sent += batch {
		c.call(t, fmt.Sprint("b", sent, "-"), batch)
		// Each call is either asked or answered: wait for all of them.
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
			if asked, replies := c.counts(); asked+replies-1 >= sent+batch {
				break
			}
			time.Sleep(time.Millisecond)
		}
		peak = max(peak, runtime.NumGoroutine())
		if peak > bound {
			asked, replies := c.counts()
			t.Fatalf("after %d calls: %d goroutines, over %d (%d before); %d asked, %d answered",
				sent+batch, peak, bound, before, asked, replies-1)
		}
	}
	asked, replies := c.counts()
	assert.Equal(t, DefaultMaxCallsPerSession, asked, "calls asked")
	assert.Equal(t, map[string]int{
		"-32603 mcpform: this session has 4 calls waiting for input already, the most it may; answer or cancel one first": n - DefaultMaxCallsPerSession,
	}, c.errors(), "the refused calls")
	assert.Equal(t, n-DefaultMaxCallsPerSession, replies-1, "calls answered")
	runtime.GC()
	runtime.ReadMemStats(&mem)
	grown := int64(mem.HeapAlloc) - int64(heapBefore)
	assert.Less(t, grown, int64(16<<20), "heap grew by %d bytes", grown)
	t.Logf("%d calls: at most %d goroutines (%d before), heap grew by %d KB", n, peak, before, grown>>10)

	// The client goes away: the waits end with the session, not at
	// their Timeout an hour from now.
	start := time.Now()
	require.NoError(t, c.conn.Close())
	if now := settledGoroutines(before); now > before {
		t.Errorf("goroutines: %d before the calls, %d after the session closed:\n%s", before, now, stacks())
	}
	t.Logf("the waits ended %v after the session closed", time.Since(start))
}

// TestLegacyCallBounds: a session may hold MaxCallsPerSession calls, and
// all sessions together MaxCalls; beyond, a call is refused at once, and a
// call that ends makes room.
func TestLegacyCallBounds(t *testing.T) {
	server := askServer(t, Options{Timeout: time.Hour, MaxCallsPerSession: 2, MaxCalls: 3})
	a, b := newRawClient(t, server, true), newRawClient(t, server, true)
	waitCounts := func(c *rawClient, asked, replies int) {
		t.Helper()
		require.Eventually(t, func() bool {
			gotAsked, gotReplies := c.counts()
			return gotAsked == asked && gotReplies == replies+1
		}, 5*time.Second, time.Millisecond)
	}
	a.call(t, "a", 3)
	waitCounts(a, 2, 1)
	assert.Equal(t, map[string]int{
		"-32603 mcpform: this session has 2 calls waiting for input already, the most it may; answer or cancel one first": 1,
	}, a.errors())
	b.call(t, "b", 2)
	waitCounts(b, 1, 1)
	assert.Equal(t, map[string]int{
		"-32603 mcpform: the server has 3 calls waiting for input, the most it serves at once; try again later": 1,
	}, b.errors())

	require.NoError(t, a.conn.Close()) // a's two calls end with it
	require.Eventually(t, func() bool {
		b.call(t, fmt.Sprint("retry", time.Now().UnixNano()), 1)
		time.Sleep(10 * time.Millisecond)
		asked, _ := b.counts()
		return asked == 2
	}, 5*time.Second, 20*time.Millisecond, "a call is served once others end")
}

// clientKey is where the tests put the name of a session's client, as an
// HTTP server puts the remote address in the initialize request's context.
type clientKey struct{}

func clientFromContext(ctx context.Context, _ *mcp.CallToolRequest) string {
	s, _ := ctx.Value(clientKey{}).(string)
	return s
}

// TestLegacyClientBounds: one client, however many sessions it opens,
// cannot fill the server's bound on waiting calls and starve another
// client. Client A abandons calls on three sessions and is refused beyond
// MaxCallsPerClient; client B is still asked. A client Client cannot name
// is bounded per session and in all only. Before, A's sessions filled
// MaxCalls and B was refused.
func TestLegacyClientBounds(t *testing.T) {
	server := askServer(t, Options{Timeout: time.Hour, MaxCallsPerSession: 2, MaxCallsPerClient: 3, MaxCalls: 6,
		Client: clientFromContext})
	in := func(name string) context.Context { return context.WithValue(context.Background(), clientKey{}, name) }
	wait := func(c *rawClient, asked, replies int) {
		t.Helper()
		require.Eventually(t, func() bool {
			gotAsked, gotReplies := c.counts()
			return gotAsked == asked && gotReplies == replies+1
		}, 5*time.Second, time.Millisecond)
	}
	const clientFull = "-32603 mcpform: this client has 3 calls waiting for input already, the most it may; answer or cancel one first"
	// Each session's calls settle before the next session opens, so
	// that which of them are asked is known.
	var a []*rawClient
	for i, want := range []int{2, 1, 0} {
		c := newRawClientIn(t, in("A"), server, true)
		a = append(a, c)
		c.call(t, fmt.Sprint("a", i, "-"), 2)
		wait(c, want, 2-want)
		if want < 2 {
			assert.Equal(t, map[string]int{clientFull: 2 - want}, c.errors(), "session %d of A", i)
		}
	}

	b := newRawClientIn(t, in("B"), server, true)
	b.call(t, "b", 2)
	wait(b, 2, 0)

	// Unnamed clients share the rest, one session's bound each.
	u1, u2 := newRawClient(t, server, true), newRawClient(t, server, true)
	u1.call(t, "u", 1)
	wait(u1, 1, 0)
	u2.call(t, "u", 1)
	wait(u2, 0, 1)
	assert.Equal(t, map[string]int{
		"-32603 mcpform: the server has 6 calls waiting for input, the most it serves at once; try again later": 1,
	}, u2.errors())

	// A call that ends makes room for its client.
	require.NoError(t, a[0].conn.Close())
	require.Eventually(t, func() bool {
		a[1].call(t, fmt.Sprint("retry", time.Now().UnixNano()), 1)
		time.Sleep(10 * time.Millisecond)
		n, _ := a[1].counts()
		return n == 2
	}, 5*time.Second, 20*time.Millisecond, "A is asked again once one of its calls ends")
}

// TestLegacyFloodMakesRoom: calls from many clients that fill MaxCalls,
// each within its own client's bound, and that nobody answers, no longer
// refuse a new client until they time out. Once they have waited
// makeRoomAfter, a new client's call ends the oldest, which is told why,
// and is asked. Before, the new client was refused for the whole Timeout.
func TestLegacyFloodMakesRoom(t *testing.T) {
	const total = 3
	server := askServer(t, Options{Timeout: time.Hour, MaxCallsPerSession: 1, MaxCalls: total,
		// makeRoomAfter is long beside the flood's setup, so that the young
		// call comes before it under -race on a busy machine too.
		Client: clientFromContext, makeRoomAfter: 2 * time.Second})
	in := func(name string) context.Context { return context.WithValue(context.Background(), clientKey{}, name) }
	var flood []*rawClient
	for i := range total {
		c := newRawClientIn(t, in(fmt.Sprint("192.0.2.", i)), server, true)
		c.call(t, "f", 1)
		require.Eventually(t, func() bool { asked, _ := c.counts(); return asked == 1 }, 5*time.Second, time.Millisecond)
		flood = append(flood, c)
		time.Sleep(5 * time.Millisecond) // an order of age
	}

	const full = "-32603 mcpform: the server has 3 calls waiting for input, the most it serves at once; try again later"
	young := newRawClientIn(t, in("198.51.100.1"), server, true)
	young.call(t, "y", 1)
	require.Eventually(t, func() bool { _, replies := young.counts(); return replies == 2 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, map[string]int{full: 1}, young.errors(), "a burst younger than makeRoomAfter is refused")

	time.Sleep(2*time.Second + 100*time.Millisecond)
	start := time.Now()
	fresh := newRawClientIn(t, in("198.51.100.2"), server, true)
	fresh.call(t, "n", 1)
	require.Eventually(t, func() bool { asked, _ := fresh.counts(); return asked == 1 }, 5*time.Second, time.Millisecond,
		"the new client is asked")
	t.Logf("the new client was asked %v after it called", time.Since(start))
	assert.Empty(t, fresh.errors())

	require.Eventually(t, func() bool { return flood[0].reply("f0") != nil }, 5*time.Second, time.Millisecond)
	requireLegacyError(t, flood[0].reply("f0").Error, "ended to make room")
	for _, c := range flood[1:] {
		assert.Nil(t, c.reply("f0"), "younger calls keep waiting")
	}
}

func TestLegacyClientDefaults(t *testing.T) {
	for _, tt := range []struct {
		name string
		req  *mcp.CallToolRequest
		want string
	}{
		{"authenticated", &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}}, "user:alice"},
		{"no user ID", &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{}}}, ""},
		{"no auth", &mcp.CallToolRequest{Extra: &mcp.RequestExtra{}}, ""},
		{"no extra", &mcp.CallToolRequest{}, ""},
		{"nil", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, defaultClient(context.Background(), tt.req)) })
	}
	for _, tt := range []struct {
		perClient, total, want int
	}{{0, 0, 32}, {0, 40, 10}, {0, 2, 1}, {5, 0, 5}, {-1, 1000, 32}} {
		t.Run(fmt.Sprint(tt.perClient, "/", tt.total), func(t *testing.T) {
			assert.Equal(t, tt.want, NewBounds(0, tt.perClient, tt.total).perClient)
		})
	}
}

// TestBoundsMakeRoom: with the global bound full, a call ends the oldest
// call of another session that no person consented to, once it has
// waited minAge; a consented call, a call counted by Enter and a call of
// the same session are kept, and a call ended is uncounted once.
func TestBoundsMakeRoom(t *testing.T) {
	b := NewBounds(2, 0, 3)
	b.minAge = time.Millisecond
	enter := func(ss string) (*Wait, context.Context, error) {
		ctx, end := context.WithCancelCause(context.Background())
		t.Cleanup(func() { end(nil) })
		w, err := b.EnterWait(ss, "", end)
		return w, ctx, err
	}
	w1, ctx1, err := enter("s1")
	require.NoError(t, err)
	w2, ctx2, err := enter("s2")
	require.NoError(t, err)
	require.NoError(t, b.Enter("s0", "")) // never ended
	b.Consented(w2)
	time.Sleep(5 * time.Millisecond)

	w3, ctx3, err := enter("s3")
	require.NoError(t, err, "s1's call makes room")
	assert.ErrorIs(t, context.Cause(ctx1), ErrMadeRoom, "s1's call is ended")
	b.LeaveWait(w1) // as its call ends: counted once
	assert.Equal(t, 3, b.calls)

	_, _, err = enter("s3")
	require.Error(t, err, "s3's own call is not ended for it, s2 consented, and s0's is Enter's")
	assert.Contains(t, err.Error(), "the server has 3 calls waiting")

	time.Sleep(5 * time.Millisecond)
	_, _, err = enter("s4")
	require.NoError(t, err, "s3's call, the oldest unconsented of another session, makes room")
	assert.ErrorIs(t, context.Cause(ctx3), ErrMadeRoom, "s3's call is ended")
	assert.NoError(t, ctx2.Err(), "the consented call is kept")
	b.LeaveWait(w3)
	b.LeaveWait(w2)
	assert.Equal(t, 2, b.calls, "s0's and s4's")
}
