package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// install adds the middleware of o to both sides of server, with a
// Timeout of ten minutes when o has none, as the root's AddLegacyRounds
// does.
func install(server *mcp.Server, o Options) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	mw := Middleware(o)
	server.AddReceivingMiddleware(mw)
	server.AddSendingMiddleware(mw)
}

// newServer returns a server with the one tool name, served by handler.
func newServer(name string, handler mcp.ToolHandler) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	return server
}

// formRequest returns a result that asks, under key, for the form of
// schema, built as the root builds its own, with Own.
func formRequest(key, message string, schema any) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
		key: Own(&mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema})}}
}

// connect connects client to server in memory at version.
func connect(t testing.TB, server *mcp.Server, client *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectOld connects a go-sdk client at version with its own
// input_required loop off below 2026-07-28, as a real old client has
// none. An unchecked client does not check its answers against the
// schema, as the TypeScript client does not: its receiving middleware
// answers elicitation/create itself, past go-sdk's client-side check.
func connectOld(t testing.TB, server *mcp.Server, version string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), unchecked bool) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "v0"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: version < StatelessRevision},
		ElicitationHandler: elicit,
	})
	if unchecked {
		client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if r, ok := req.(*mcp.ElicitRequest); ok && method == "elicitation/create" {
					return elicit(ctx, r)
				}
				return next(ctx, method, req)
			}
		})
	}
	cs := connect(t, server, client, version)
	require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
	return cs
}

// requireLegacyError checks that err is a JSON-RPC error with code -32603
// that contains want and says "mcpform:" once.
func requireLegacyError(t *testing.T, err error, want string) {
	t.Helper()
	var jerr *jsonrpc.Error
	require.True(t, errors.As(err, &jerr), "want a JSON-RPC error, got %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), jerr.Code, "code of %q", jerr.Message)
	assert.Contains(t, jerr.Message, want)
	assert.Equal(t, 1, strings.Count(jerr.Message, "mcpform:"), "one prefix in %q", jerr.Message)
}

// TestLegacyMaxRounds: a handler that never stops asking ends with an error
// after MaxRounds asks, rather than asking forever.
func TestLegacyMaxRounds(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"n"},
		"properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	for _, tt := range []struct {
		max, wantAsked int
	}{{0, DefaultMaxRounds}, {3, 3}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			server := newServer("loop", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return formRequest("form", "How many?", schema), nil
			})
			install(server, Options{MaxRounds: tt.max})
			asked := 0
			cs := connectOld(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 1}}, nil
			}, false)
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "loop"})
			requireLegacyError(t, err, fmt.Sprintf("asked for input more than %d times", tt.wantAsked))
			assert.Equal(t, tt.wantAsked, asked)
		})
	}
}

// TestErrorf: an error of the bridge is the JSON-RPC error go-sdk sends,
// and still wraps its cause.
func TestErrorf(t *testing.T) {
	err := Errorf(context.DeadlineExceeded, "mcpform: waited %d s", 3)
	assert.Equal(t, "mcpform: waited 3 s: context deadline exceeded", err.Error())
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var jerr *jsonrpc.Error
	require.ErrorAs(t, err, &jerr)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), jerr.Code)
	assert.Equal(t, err.Error(), jerr.Message)
	assert.Same(t, err, wrap(fmt.Errorf("go-sdk: %w", err), "mcpform: other"), "the bridge's own error, once")
	assert.Same(t, err, ours(fmt.Errorf("go-sdk: %w", err)))
	plain := errors.New("the handler's")
	assert.Same(t, plain, ours(plain), "a handler's error passes as it is")
}
