package mcpgo_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser answers a URL-mode request as a person would: it sends the
// secret on the linked page, then accepts; form requests get the email.
type browser struct {
	t      *testing.T
	secret string
	mu     sync.Mutex
	modes  []string
}

func (b *browser) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	b.mu.Lock()
	b.modes = append(b.modes, req.Params.Mode)
	b.mu.Unlock()
	if req.Params.Mode != mcp.ElicitationModeURL {
		return accept(map[string]any{"email": "ada@example.com"}), nil
	}
	u, err := url.Parse(req.Params.URL)
	if err != nil {
		return nil, err
	}
	// Open the link in one browser, then send from there, with the
	// form's token the page gave it.
	jar, _ := cookiejar.New(nil)
	web := &http.Client{Jar: jar}
	page, err := web.Get(req.Params.URL)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	check := ""
	if m := regexp.MustCompile(`name="c" value="([^"]*)"`).FindSubmatch(body); m != nil {
		check = string(m[1])
	}
	form := url.Values{"t": {u.Query().Get("t")}, "c": {check}, "password": {b.secret}}
	post, err := http.NewRequest(http.MethodPost, req.Params.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	post.Header.Set("Origin", u.Scheme+"://"+u.Host)
	res, err := web.Do(post)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	assert.Equal(b.t, http.StatusOK, res.StatusCode, "the page took the secret")
	return accept(nil), nil
}

// passwordFlow returns alice's flow of one step, an email and a password
// of at least 8 characters on the flow's secret page, served with page
// by a test server of t's.
func passwordFlow(t *testing.T, page *mcpform.SecretPageOptions) *mcpform.Flow {
	t.Helper()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	var handler http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "password", Message: "Set your password", Fields: []mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "password", Label: "New password", Type: mcpform.TypePassword, Required: true, Min: ptr(8.0)},
	}}}, &mcpform.FlowOptions{
		ContextPrincipal: func(context.Context) string { return "alice" },
		Secrets:          &mcpform.SecretOptions{PageURL: ts.URL + "/secret", Store: mcpform.NewMemorySecretStore()},
	})
	require.NoError(t, err)
	handler, err = flow.SecretPage(page)
	require.NoError(t, err)
	return flow
}

// TestSecretFlow: a step with a secret field, through mcp-go's client and
// server: the email in form mode, the password on the flow's SecretPage in
// URL mode, never in the request state or the form; the flow finishes with
// both, and a replay gets no secret back.
func TestSecretFlow(t *testing.T) {
	const secret = "correct horse battery"
	// The page is bound to the principal ContextPrincipal named.
	flow := passwordFlow(t, &mcpform.SecretPageOptions{Authorize: func(_ *http.Request, principal string) error {
		if principal != "alice" {
			return errors.New("not alice's link")
		}
		return nil
	}})

	srv := server.NewMCPServer("pw", "v0", server.WithToolCapabilities(false))
	var states []string
	srv.AddTool(mcp.NewTool("set_password"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		states = append(states, req.Params.RequestState)
		r, err := mcpgo.Next(ctx, flow, req)
		if err != nil {
			return nil, err
		}
		if r.Status == mcpform.FlowAsk {
			return r.Result, nil
		}
		return mcp.NewToolResultText(r.Status.String() + " " + r.Answers["email"].(string) + " " + r.Answers["password"].(string)), nil
	})
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			states = nil
			b := &browser{t: t, secret: secret}
			opts := append([]client.ClientOption{client.WithClientCapabilities(mcp.ClientCapabilities{
				Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}})}, proto.opts...)
			c := connect(t, srv, b, opts...)
			res, err := callTool(t, c, "set_password")
			require.NoError(t, err)
			assert.Equal(t, "done ada@example.com "+secret, text(t, res))
			assert.ElementsMatch(t, []string{"form", "url"}, b.modes)
			for _, s := range states {
				assert.NotContains(t, s, "correct")
			}
		})
	}
}
