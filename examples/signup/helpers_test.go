package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// Protocol revisions the tests negotiate.
const (
	modern = "2026-07-28"
	legacy = "2025-11-25"
)

// Test keys: 32 bytes each, written out so that a test can hand them to a
// server process in MCPFORM_STATE_KEY.
var (
	keyA = strings.Repeat("a1", 32)
	keyB = strings.Repeat("b2", 32)
)

// newTestSignup returns a signup tool signing with keyA, bound to
// principal "local", and its store.
func newTestSignup(t testing.TB) (*signup, *store) {
	t.Helper()
	codec, err := newCodec(keyA, io.Discard)
	require.NoError(t, err)
	st := newStore()
	s, err := newSignup(codec, st, "")
	require.NoError(t, err)
	return s, st
}

// mintState mints a flow state as the signup tool would, for the given
// principal and tool, under key (hex) and clock.
func mintState(t *testing.T, key, principal, tool string, now time.Time, payload any) string {
	t.Helper()
	k, err := hex.DecodeString(key)
	require.NoError(t, err)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{k}, Bind: true, Now: func() time.Time { return now },
	})
	require.NoError(t, err)
	tok, err := codec.Mint(payload, mcpform.BindTo(principal, tool))
	require.NoError(t, err)
	return tok
}

// A person answers the forms a client is shown, from a script, and records
// what it was asked.
type person struct {
	mu     sync.Mutex
	script map[string][]*mcp.ElicitResult // answers by form, in turn
	asked  []shown
}

// shown is one form as the person saw it.
type shown struct {
	form    string // "account" or "team"
	message string
}

func newPerson(script map[string][]*mcp.ElicitResult) *person {
	return &person{script: maps.Clone(script)} // the person uses up its copy
}

func accepted(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

func (p *person) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	form := formOf(req.Params.RequestedSchema)
	p.asked = append(p.asked, shown{form, req.Params.Message})
	q := p.script[form]
	if len(q) == 0 {
		return nil, errors.New("the script has no answer left for form " + form)
	}
	p.script[form] = q[1:]
	return q[0], nil
}

// forms returns the forms the person was shown, in order.
func (p *person) forms() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var f []string
	for _, a := range p.asked {
		f = append(f, a.form)
	}
	return f
}

// formOf names a requested schema by the step whose fields it asks for.
func formOf(schema any) string {
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	switch {
	case props["email"] != nil:
		return "account"
	case props["team_name"] != nil:
		return "team"
	}
	return "unknown"
}

// connect returns a client session with server over an in-memory transport.
// version "" negotiates the latest revision. With mrtr false, the client's
// automatic multi-round-trip loop is off, and input_required results reach
// the caller.
func connect(t testing.TB, server *mcp.Server, version string, mrtr bool, p *person) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	return connectTransport(t, ct, version, mrtr, p)
}

// connectHTTP is connect over streamable HTTP at url.
func connectHTTP(t testing.TB, url, version string, mrtr bool, p *person) *mcp.ClientSession {
	t.Helper()
	return connectTransport(t, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, version, mrtr, p)
}

func connectTransport(t testing.TB, tr mcp.Transport, version string, mrtr bool, p *person) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: !mrtr}}
	if p != nil {
		opts.ElicitationHandler = p.elicit
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "signup-test", Version: "v0"}, opts)
	cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	if version != "" {
		require.Equal(t, version, cs.InitializeResult().ProtocolVersion, "negotiated revision")
	}
	return cs
}

// serveHTTPTest serves server's routed handler on a loopback test server
// and returns its MCP URL.
func serveHTTPTest(t testing.TB, server *mcp.Server) string {
	t.Helper()
	ts := httptest.NewServer(newHTTPHandler(server))
	t.Cleanup(ts.Close)
	return ts.URL
}

// call calls the signup tool once, with the given answers and state.
func call(t testing.TB, cs *mcp.ClientSession, state string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolName, InputResponses: answers, RequestState: state})
}

// asks returns the one form an input_required result asks for.
func asks(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.InputRequests, 1, "want one input request, got result %+v", res)
	for k := range res.InputRequests {
		return k
	}
	return ""
}

// message returns the message of the form res asks for.
func message(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	form := asks(t, res)
	ep, ok := res.InputRequests[form].(*mcp.ElicitParams)
	require.True(t, ok, "input request %q is %T", form, res.InputRequests[form])
	return ep.Message
}

// status returns the status a final result reports in its structured
// content, or "" for a result that has none.
func status(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotNil(t, res)
	m, _ := res.StructuredContent.(map[string]any)
	s, _ := m["status"].(string)
	return s
}

// text returns a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// requireBadState asserts that err is the JSON-RPC error for a request
// state that does not verify.
func requireBadState(t testing.TB, err error) {
	t.Helper()
	require.Error(t, err)
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "want a JSON-RPC error, got %T: %v", err, err)
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	require.Equal(t, "Invalid or expired requestState", werr.Message)
	require.JSONEq(t, `{"reason":"invalid_request_state"}`, string(werr.Data))
}

// jsonBody decodes a token part, unpadded base64url.
func jsonBody(part string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(part)
	return string(b), err
}

// rawURL encodes s as a token part.
func rawURL(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
