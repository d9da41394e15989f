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
// person consented to, since when, and which were announced complete.
type pages struct {
	mu        sync.Mutex
	consented map[string]time.Time // elicitationId → first consent
	completed map[string]bool
	sent      chan struct{} // a page of the call has its secret: see PageSent
}

func (p *pages) consent(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.consented == nil {
		p.consented = map[string]time.Time{}
		p.sent = make(chan struct{}, 1)
	}
	if _, ok := p.consented[id]; !ok {
		p.consented[id] = time.Now()
		waiters.add(id, p.sent)
	}
}

// release forgets the call's pages, once it ends.
func (p *pages) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.consented {
		waiters.remove(id, p.sent)
	}
}

// The page that takes a secret is served in the same process as the calls
// that wait for it, most often: [PageSent] wakes them, so that the
// handler's next run finds the secret, and the client hears that the
// elicitation is complete, at once rather than after Options.Poll. Served
// elsewhere (another replica), the page wakes nothing, and the calls find
// its secret at their next poll.

// waiters holds the calls waiting for a page, by its elicitationId.
var waiters = waitList{m: map[string]map[chan struct{}]bool{}}

type waitList struct {
	n  atomic.Int64 // entries, for PageSent to read without a lock
	mu sync.Mutex
	m  map[string]map[chan struct{}]bool
}

func (w *waitList) add(id string, c chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[id] == nil {
		w.m[id] = map[chan struct{}]bool{}
	}
	if !w.m[id][c] {
		w.m[id][c] = true
		w.n.Add(1)
	}
}

func (w *waitList) remove(id string, c chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[id][c] {
		delete(w.m[id], c)
		w.n.Add(-1)
		if len(w.m[id]) == 0 {
			delete(w.m, id)
		}
	}
}

// Waiting reports whether any call of this process waits for a page, for
// a caller to skip working out a page's elicitationId when none does.
func Waiting() bool { return waiters.n.Load() > 0 }

// PageSent wakes the calls of this process that wait for the page whose
// URL-mode requests have elicitationId id: its secret has been sent.
func PageSent(id string) {
	if !Waiting() {
		return
	}
	waiters.mu.Lock()
	defer waiters.mu.Unlock()
	for c := range waiters.m[id] {
		select {
		case c <- struct{}{}:
		default: // woken already
		}
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
