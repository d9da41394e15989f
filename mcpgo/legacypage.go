package mcpgo

import (
	"context"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/seam"
)

// A client on the legacy handshake answers a URL-mode request with
// consent only, and mcp-go's bridge then calls the handler again at once,
// long before the person has sent the page: asked again, the client opens
// the link again, and after ten rounds the bridge gives up. go-sdk's face
// (mcpform.AddLegacyRounds) waits instead, and so does Next: while a round
// asks only for pages the call's person consented to, it runs the flow
// again every legacyPagePoll, as a 2026-07-28 client would retry, for at
// most legacyPageWait or until the call's context ends.
var legacyPagePoll = time.Second

// legacyPageWait bounds the wait, as the default request-state TTL does
// go-sdk's.
const legacyPageWait = 10 * time.Minute

// next is flow's Seam().Next, waiting on a legacy call for a page its
// person consented to. The calls that wait are bounded, per session and in
// all, by the core's policy (see seam.Flow's Wait), as go-sdk's face bounds
// the calls of mcpform.AddLegacyRounds: a call beyond a bound ends at once
// with a JSON-RPC error -32603 that says which. mcp-go names no client, so
// calls are not bounded per client.
func next(ctx context.Context, flow *mcpform.Flow, c *call) (*mcpform.FlowRound, seam.Presentation, error) {
	r, p, err := flow.Seam().Next(ctx, c)
	if err != nil || !c.Legacy() || !waitsForConsentedPage(r, c) {
		return r, p, err
	}
	done, err := flow.Seam().Wait(sessionKey(ctx), "")
	if err != nil {
		return nil, seam.Presentation{}, server.NewHandlerError(waitError{err})
	}
	defer done()
	deadline := time.Now().Add(legacyPageWait)
	t := time.NewTimer(legacyPagePoll)
	defer t.Stop()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, seam.Presentation{}, ctx.Err()
		case <-t.C:
		}
		if r, p, err = flow.Seam().Next(ctx, c); err != nil || !waitsForConsentedPage(r, c) {
			return r, p, err
		}
		t.Reset(legacyPagePoll)
	}
	return r, p, err // asked again: the bridge shows the link once more
}

// waitsForConsentedPage reports whether r asks only for its step's page,
// which is still waiting, and the call's person consented to its link.
func waitsForConsentedPage(r *mcpform.FlowRound, c seam.Call) bool {
	if r.Status != mcpform.FlowAsk || len(r.Problems) == 0 {
		return false
	}
	for _, p := range r.Problems {
		if !errors.Is(p, mcpform.ErrSecretWaiting) {
			return false
		}
	}
	a, ok := c.Answer(r.Step + ".secret") // the step's URL-mode request
	return ok && a.Action == "accept"
}

// sessionKey names the call's session in the core's bounds.
func sessionKey(ctx context.Context) any {
	type key struct{ id string }
	if ss := server.ClientSessionFromContext(ctx); ss != nil {
		return key{ss.SessionID()}
	}
	return key{}
}

// waitError is the error for a legacy call beyond the core's bounds on
// calls that wait: -32603 with the bound's words, as go-sdk's face sends
// it.
type waitError struct{ err error }

func (e waitError) Error() string { return e.err.Error() }

func (e waitError) Unwrap() []error { return []error{mcp.ErrInternalError, e.err} }

func (e waitError) JSONRPCError() mcp.JSONRPCError {
	return rpcError(mcp.INTERNAL_ERROR, e.err.Error(), nil)
}
