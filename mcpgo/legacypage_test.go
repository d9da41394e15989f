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
