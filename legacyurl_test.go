package mcpform

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLegacySecretFlow: a go-sdk client on 2025-11-25 consents to the page
// by elicitationId, the person sends it a moment later, and the call
// finishes, with the completion notification for that ID, through
// AddLegacyRounds.
func TestLegacySecretFlow(t *testing.T) {
	defer func(d time.Duration) { legacyPoll = d }(legacyPoll)
	legacyPoll = 20 * time.Millisecond
	fx := newSecretFixture(t, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "set_password", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}
			r, err := fx.flow.Next(context.Background(), req)
			switch {
			case err != nil:
				return nil, err
			case r.Status == FlowAsk:
				return r.Result, nil
			}
			b, _ := json.Marshal(r.Answers)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String() + " " + string(b)}}}, nil
		})
	AddLegacyRounds(server, &LegacyOptions{Timeout: 10 * time.Second})

	var (
		mu        sync.Mutex
		ids       []string // elicitationIds of the URL-mode requests
		completed []string
		posted    sync.WaitGroup
	)
	client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "v0"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com"}}, nil
			}
			mu.Lock()
			ids = append(ids, req.Params.ElicitationID)
			mu.Unlock()
			// The person opens the page and types, after the consent.
			posted.Add(1)
			go func() {
				defer posted.Done()
				time.Sleep(5 * legacyPoll)
				assert.Equal(t, http.StatusOK, send(t, req.Params.URL, "correct horse battery"))
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			mu.Lock()
			completed = append(completed, req.Params.ElicitationID)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	cs := connectClient(t, server, client, "2025-11-25")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "set_password"})
	require.NoError(t, err)
	posted.Wait()
	require.Len(t, res.Content, 1)
	assert.Equal(t, `done {"email":"ada@example.com","password":"correct horse battery"}`, res.Content[0].(*mcp.TextContent).Text)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(completed) == 1 }, 5*time.Second, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, ids, 1, "the page is asked once, then waited for")
	assert.NotEmpty(t, ids[0])
	assert.Equal(t, ids, completed)
}

func TestURLElicitationID(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	link := func(run, step string) string {
		tok, err := codec.Mint(&secretLink{Principal: "alice", Tool: "t", Run: run, Step: step}, BindTo(secretLinkBind))
		require.NoError(t, err)
		return "https://example.com/secret?t=" + url.QueryEscape(tok)
	}
	a := urlElicitationID(link("r1", "password"))
	assert.Equal(t, a, urlElicitationID(link("r1", "password")))
	assert.NotEqual(t, a, urlElicitationID(link("r2", "password")))
	assert.NotEqual(t, a, urlElicitationID(link("r1", "other")))
	assert.NotEqual(t, a, urlElicitationID(strings.Replace(link("r1", "password"), "example.com", "example.org", 1)))
	assert.Equal(t, urlElicitationID("https://x/y"), urlElicitationID("https://x/y"))
	assert.NotEqual(t, urlElicitationID("https://x/y"), urlElicitationID("https://x/z"))
}
