package main

import (
	"bytes"
	"context"
	"errors"
	"log"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreErrorIsGeneric breaks the database under each tool: the
// client gets a generic error result with a reference, never the
// database's words, and the server's log gets those words with the same
// reference.
func TestStoreErrorIsGeneric(t *testing.T) {
	const good = "correct horse battery staple"
	for _, tt := range []struct {
		name, drop, input string
		tools             []string
		says, logs        string
	}{
		{"signup", "accounts", "ada@example.com\n\npro\n", []string{toolName},
			"Signup not completed: the server failed to finish it.", "signup: reference "},
		{"set_password", "passwords", "ada@example.com\n\npro\nada@example.com\n" + good + "\n", []string{toolName, passwordTool},
			"Password not set: the server failed to finish it.", "set_password: reference "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, st := newTestSignupOn(t, filepath.Join(t.TempDir(), "signup.db")) // a database to break
			var logged bytes.Buffer
			s.log = log.New(&logged, "", 0)
			_, err := st.db.Exec(`DROP TABLE ` + tt.drop)
			require.NoError(t, err)
			var out bytes.Buffer
			res, err := demo(context.Background(), newServer(s), strings.NewReader(tt.input), &out, demoOptions{}, tt.tools...)
			require.NoError(t, err, "transcript:\n%s", out.String())
			assert.True(t, res.IsError)
			assert.Equal(t, "error", status(t, res))
			text := res.Content[0].(*mcp.TextContent).Text
			assert.Contains(t, text, tt.says)
			assert.NotContains(t, text, "no such table", "the database's words stay in the log")
			assert.NotContains(t, text, tt.drop)

			line := logged.String()
			assert.Contains(t, line, tt.logs)
			assert.Contains(t, line, "no such table: "+tt.drop)
			ref := strings.Fields(strings.TrimPrefix(line, tt.logs))[0]
			assert.Contains(t, text, "reference "+strings.TrimSuffix(ref, ":")+".", "the result and the log share the reference")
		})
	}
}

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
