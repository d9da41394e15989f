package main

import (
	"bytes"
	"context"
	"errors"
	"log"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGuardPassesProtocolErrors: the JSON-RPC errors of a flow, such as
// -32602 for a request state that does not verify, reach the client as
// they are; only other errors become the generic result.
func TestGuardPassesProtocolErrors(t *testing.T) {
	s, _ := newTestSignup(t)
	var logged bytes.Buffer
	s.log = log.New(&logged, "", 0)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolName}}
	rpcErr := &jsonrpc.Error{Code: -32602, Message: "Invalid or expired requestState"}
	for _, tt := range []struct {
		name string
		err  error
		rpc  bool
	}{
		{"a JSON-RPC error", rpcErr, true},
		{"a wrapped JSON-RPC error", errors.Join(errors.New("context"), rpcErr), true},
		{"a database error", errors.New(`ERROR: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)`), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logged.Reset()
			res, err := s.guard("Signup not completed", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, tt.err
			})(context.Background(), req)
			if tt.rpc {
				assert.Same(t, tt.err, err)
				assert.Nil(t, res)
				assert.Empty(t, logged.String())
				return
			}
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.NotContains(t, res.Content[0].(*mcp.TextContent).Text, "SQLSTATE")
			assert.Contains(t, logged.String(), "SQLSTATE 22021")
		})
	}
}
