package mcpgo_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lateBrowser consents to a URL-mode request at once and sends the secret
// on the page a moment later, as a person does.
type lateBrowser struct {
	t      *testing.T
	mu     sync.Mutex
	urls   int
	posted sync.WaitGroup
}

func (b *lateBrowser) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Mode != mcp.ElicitationModeURL {
		return accept(map[string]any{"email": "ada@example.com"}), nil
	}
	b.mu.Lock()
	b.urls++
	first := b.urls == 1
	b.mu.Unlock()
	if first {
		b.posted.Go(func() {
			time.Sleep(100 * time.Millisecond)
			page := &browser{t: b.t, secret: "correct horse battery"}
			_, _ = page.Elicit(ctx, req)
		})
	}
	return accept(nil), nil
}

// TestLegacyPageWait: on the legacy handshake, mcp-go's bridge calls the
// handler again as soon as the person consents to the link; Next waits
// for the page, as go-sdk's face does, so that the person is shown the
// link once and the flow finishes when they send it.
func TestLegacyPageWait(t *testing.T) {
	defer func(d time.Duration) { *mcpgo.LegacyPagePoll = d }(*mcpgo.LegacyPagePoll)
	*mcpgo.LegacyPagePoll = 20 * time.Millisecond
	flow := passwordFlow(t, &mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	srv := server.NewMCPServer("pw", "v0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("set_password"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := mcpgo.Next(ctx, flow, req)
		if err != nil {
			return nil, err
		}
		if r.Status == mcpform.FlowAsk {
			return r.Result, nil
		}
		return mcp.NewToolResultText(r.Status.String() + " " + r.Answers["email"].(string)), nil
	})
	b := &lateBrowser{t: t}
	c := connect(t, srv, b, client.WithClientCapabilities(mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}), client.WithLegacyProtocolOnly())
	res, err := callTool(t, c, "set_password")
	b.posted.Wait()
	require.NoError(t, err)
	assert.Equal(t, "done ada@example.com", text(t, res))
	assert.Equal(t, 1, b.urls, "the person is shown the link once")
}

// consenter consents to every URL-mode request and keeps it, opening no
// page until told to; it answers a form with an email.
type consenter struct {
	mu    sync.Mutex
	pages []mcp.ElicitationRequest
}

func (c *consenter) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Mode != mcp.ElicitationModeURL {
		return accept(map[string]any{"email": "ada@example.com"}), nil
	}
	c.mu.Lock()
	c.pages = append(c.pages, req)
	c.mu.Unlock()
	return accept(nil), nil
}

// TestLegacyWaitBounds checks item 6 of issue 32: one session on the
// legacy handshake starts 8 set_password calls, each consenting to its
// page and sending none. As on go-sdk's face (internal/legacy's
// TestLegacyAbandonedCalls), 4 wait and 4 are refused at once, with the
// same -32603 error, because both faces count waiting calls in the
// core's bounds. Once the person sends the pages, the 4 that waited
// finish.
func TestLegacyWaitBounds(t *testing.T) {
	defer func(d time.Duration) { *mcpgo.LegacyPagePoll = d }(*mcpgo.LegacyPagePoll)
	*mcpgo.LegacyPagePoll = 20 * time.Millisecond
	const (
		n       = 8
		refusal = "mcpform: this session has 4 calls waiting for input already, the most it may; answer or cancel one first"
	)
	flow := passwordFlow(t, &mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	srv := server.NewMCPServer("pw", "v0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("set_password"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := mcpgo.Next(ctx, flow, req)
		if err != nil {
			return nil, err
		}
		if r.Status == mcpform.FlowAsk {
			return r.Result, nil
		}
		return mcp.NewToolResultText(r.Status.String()), nil
	})
	person := &consenter{}
	c := connect(t, srv, person, client.WithClientCapabilities(mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}), client.WithLegacyProtocolOnly())

	type outcome struct {
		text string
		err  error
	}
	outcomes := make(chan outcome, n)
	start := time.Now()
	for range n {
		go func() {
			res, err := callTool(t, c, "set_password")
			if err != nil {
				outcomes <- outcome{err: err}
				return
			}
			outcomes <- outcome{text: text(t, res)}
		}()
	}
	var refused []error
	for range n / 2 {
		select {
		case o := <-outcomes:
			require.Error(t, o.err, "a call finished with no page sent: %q", o.text)
			refused = append(refused, o.err)
		case <-time.After(5 * time.Second):
			t.Fatalf("after %v, %d calls refused, want %d: mcp-go's face keeps calls waiting without bound", time.Since(start), len(refused), n/2)
		}
	}
	for _, err := range refused {
		assert.ErrorIs(t, err, mcp.ErrInternalError, "%v", err)
		assert.Contains(t, err.Error(), refusal)
	}
	select {
	case o := <-outcomes:
		t.Fatalf("a fifth call ended before any page was sent: %v %q", o.err, o.text)
	case <-time.After(100 * time.Millisecond):
	}

	// The person sends every page: the calls that waited finish.
	person.mu.Lock()
	pages := person.pages
	person.mu.Unlock()
	require.Len(t, pages, n, "every call showed its link once")
	page := &browser{t: t, secret: "correct horse battery"}
	for _, req := range pages {
		_, _ = page.Elicit(context.Background(), req)
	}
	for range n / 2 {
		select {
		case o := <-outcomes:
			require.NoError(t, o.err)
			assert.Equal(t, "done", o.text)
		case <-time.After(5 * time.Second):
			t.Fatal("a waiting call did not finish once its page was sent")
		}
	}
}
