package legacy

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client on 2025-11-25 answers a URL-mode request with consent only, and
// learns that the page is done from notifications/elicitation/complete,
// which names the request by its elicitationId. 2026-07-28 dropped both:
// the client retries, and the server looks in its own state. The
// middleware bridges the two. It gives each URL-mode request an ID, stable
// across the rounds of one page (see Options.PageKey); once the person has
// consented, it stops asking again and re-runs the handler, as a
// 2026-07-28 client would retry, until the handler no longer asks for that
// page; then it tells the client the elicitation is complete.

// ElicitationID returns the elicitationId of a URL-mode request for the
// page that key names: a digest of key.
func ElicitationID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

func isURLMode(p *mcp.ElicitParams) bool { return p.Mode == "url" || (p.Mode == "" && p.URL != "") }

// pages is what one legacy call knows of its URL-mode requests: those the
// person consented to, since when, which were announced complete, and
// which are being asked.
type pages struct {
	mu        sync.Mutex
	consented map[string]time.Time // elicitationId → first consent
	completed map[string]bool
	asking    map[string]int  // elicitation/create requests in flight
	watched   map[string]bool // in waiters, for PageSent
	ss        *mcp.ServerSession
	sent      chan struct{} // a page of the call has its secret
}

// ask records a request for page id sent to ss, until the returned func
// is called, and has PageSent find the call by id until it ends.
func (p *pages) ask(ss *mcp.ServerSession, id string) (answered func()) {
	p.mu.Lock()
	if p.watched == nil {
		p.watched, p.asking, p.sent = map[string]bool{}, map[string]int{}, make(chan struct{}, 1)
	}
	p.ss = ss
	p.asking[id]++
	watch := !p.watched[id]
	p.watched[id] = true
	p.mu.Unlock()
	if watch {
		waiters.add(id, p)
	}
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.asking[id]--; p.asking[id] <= 0 {
			delete(p.asking, id)
		}
	}
}

func (p *pages) consent(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.consented == nil {
		p.consented = map[string]time.Time{}
	}
	if _, ok := p.consented[id]; !ok {
		p.consented[id] = time.Now()
	}
}

// release forgets the call's pages, once it ends.
func (p *pages) release() {
	p.mu.Lock()
	ids := make([]string, 0, len(p.watched))
	for id := range p.watched {
		ids = append(ids, id)
	}
	p.mu.Unlock()
	for _, id := range ids {
		waiters.remove(id, p)
	}
}

// pageSent wakes the call, waiting for page id, and tells the client the
// elicitation is complete if its request is still in flight: a client
// such as the MCP Inspector answers a URL-mode request only once the
// person says they are done, or once it hears so, and the person need
// not say it. A request answered already is announced complete by the
// call's next round, as the handler finds the page sent (see complete).
func (p *pages) pageSent(id string) {
	select {
	case p.sent <- struct{}{}:
	default: // woken already
	}
	p.mu.Lock()
	notify := p.asking[id] > 0 && !p.completed[id]
	if notify {
		if p.completed == nil {
			p.completed = map[string]bool{}
		}
		p.completed[id] = true
	}
	ss := p.ss
	p.mu.Unlock()
	if notify {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			defer cancel()
			ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
		}()
	}
}

// notifyTimeout bounds a completion notice that PageSent has sent.
const notifyTimeout = 10 * time.Second

// The page that takes a secret is served in the same process as the calls
// that wait for it, most often: [PageSent] wakes them, so that the
// handler's next run finds the secret, and the client hears that the
// elicitation is complete, at once rather than after Options.Poll. Served
// elsewhere (another replica), the page wakes nothing, and the calls find
// its secret at their next poll.

// waiters holds the calls asking for or waiting on a page, by its
// elicitationId.
var waiters = waitList{m: map[string]map[*pages]bool{}}

type waitList struct {
	n  atomic.Int64 // entries, for PageSent to read without a lock
	mu sync.Mutex
	m  map[string]map[*pages]bool
}

func (w *waitList) add(id string, p *pages) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[id] == nil {
		w.m[id] = map[*pages]bool{}
	}
	if !w.m[id][p] {
		w.m[id][p] = true
		w.n.Add(1)
	}
}

func (w *waitList) remove(id string, p *pages) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[id][p] {
		delete(w.m[id], p)
		w.n.Add(-1)
		if len(w.m[id]) == 0 {
			delete(w.m, id)
		}
	}
}

// Waiting reports whether any call of this process asks for or waits on a
// page, for a caller to skip working out a page's elicitationId when none
// does.
func Waiting() bool { return waiters.n.Load() > 0 }

// PageSent tells the calls of this process that ask for or wait on the
// page whose URL-mode requests have elicitationId id that its secret has
// been sent: a call waiting goes on, and a client still asked for it hears
// that the elicitation is complete.
func PageSent(id string) {
	if !Waiting() {
		return
	}
	waiters.mu.Lock()
	ps := make([]*pages, 0, len(waiters.m[id]))
	for p := range waiters.m[id] {
		ps = append(ps, p)
	}
	waiters.mu.Unlock()
	for _, p := range ps {
		p.pageSent(id)
	}
}

// since returns when the person consented to id, if they have.
func (p *pages) since(id string) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.consented[id]
	return t, ok && !p.completed[id]
}

// complete tells the client that every consented page not in open is done,
// once each.
func (p *pages) complete(ctx context.Context, ss *mcp.ServerSession, open map[string]bool) error {
	p.mu.Lock()
	var done []string
	for id := range p.consented {
		if !open[id] && !p.completed[id] {
			if p.completed == nil {
				p.completed = map[string]bool{}
			}
			p.completed[id] = true
			done = append(done, id)
		}
	}
	p.mu.Unlock()
	for _, id := range done {
		if err := ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id}); err != nil {
			return err
		}
	}
	return nil
}

// withID returns p as sent to a 2025-11-25 client: with an elicitationId.
func (b *bridge) withID(p *mcp.ElicitParams) *mcp.ElicitParams {
	if p.ElicitationID != "" {
		return p
	}
	key := p.URL
	if b.pageKey != nil {
		key = b.pageKey(p.URL)
	}
	q := *p
	q.Mode, q.ElicitationID = "url", ElicitationID(key)
	return &q
}

// waitPage answers a URL-mode request whose page the person already
// consented to without asking again: it waits Options.Poll, or until
// PageSent wakes it, so that the handler's next run can find the page
// sent, and gives up after Timeout.
func (b *bridge) waitPage(ctx context.Context, since time.Time, sent <-chan struct{}) (*mcp.ElicitResult, error) {
	if time.Since(since) > b.timeout {
		return nil, Errorf(context.DeadlineExceeded, "mcpform: the page was not sent within %v", b.timeout)
	}
	t := time.NewTimer(b.poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	case <-sent:
	}
	return &mcp.ElicitResult{Action: "accept"}, nil
}
