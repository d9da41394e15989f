package mcpgo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireNames are the member names the spec and mcp-go define for what
// mcpform and mcpformtest send: every json name of mcp-go's types for
// the messages of a call (envelopes, tools/call params and results,
// input requests and responses, elicitation, capabilities), the _meta
// keys, and mcpform's own arguments and _meta key.
var wireNames = func() map[string]bool {
	names := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names[name] = true
			}
			walk(f.Type)
		}
	}
	for _, v := range []any{
		mcp.JSONRPCRequest{}, mcp.JSONRPCResponse{}, mcp.JSONRPCError{}, mcp.JSONRPCNotification{},
		mcp.InitializeParams{}, mcp.InitializeResult{},
		mcp.CallToolParams{}, mcp.CallToolResult{}, mcp.TextContent{},
		mcp.InputRequest{}, mcp.InputResponse{},
		mcp.ElicitationParams{}, mcp.ElicitationResult{},
		mcp.ClientCapabilities{}, mcp.ServerCapabilities{},
	} {
		walk(reflect.TypeOf(v))
	}
	for _, name := range []string{
		// 2026-07-28 members mcp-go keeps in maps or marshals by hand.
		"resultType", "inputRequests", "inputResponses", "requestState", "requestedSchema",
		"elicitationId", "structuredContent", "isError", "_meta", "action", "content", "mode", "url",
		mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities,
		"io.modelcontextprotocol/acceptLanguage", "io.modelcontextprotocol/contentLanguage",
		"io.modelcontextprotocol/ui", "resourceUri",
		// mcpform's own.
		mcpform.StateArgument, "mcpformAction", "mcpformTool", "mcpformArguments", "io.github.mcpform/problems",
	} {
		names[name] = true
	}
	return names
}()

// wireProblems returns each member name of msg, at any depth, that is a
// defined name in another case (mcp-go v1.6.0 refuses those in an
// envelope and its params; encoding/json would take them for the name),
// and each object with two members that differ only in case. It adds
// every member name to seen.
func wireProblems(msg []byte, seen map[string]bool) []string {
	var v any
	if json.Unmarshal(msg, &v) != nil {
		return []string{"not one JSON message"}
	}
	var problems []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for key, sub := range v {
				seen[key] = true
				if !wireNames[key] {
					for name := range wireNames {
						if strings.EqualFold(key, name) {
							problems = append(problems, path+key+" is "+name+" in another case")
						}
					}
				}
				for other := range v {
					if other < key && strings.EqualFold(other, key) {
						problems = append(problems, path+other+" and "+path+key)
					}
				}
				walk(sub, path+key+".")
			}
		case []any:
			for _, sub := range v {
				walk(sub, path)
			}
		}
	}
	walk(v, "")
	return problems
}

// TestWireProblems: the check finds a defined name in another case at
// any depth, and two members that differ only in case.
func TestWireProblems(t *testing.T) {
	for _, tt := range []struct {
		name, msg string
		want      []string
	}{
		{"exact", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","requestState":"s","arguments":{"mcpformTool":"b","Email":1}}}`, nil},
		{"params", `{"params":{"RequestState":"s"}}`, []string{"params.RequestState is requestState in another case"}},
		{"result", `{"result":{"resultType":"input_required","inputrequests":{}}}`, []string{"result.inputrequests is inputRequests in another case"}},
		{"_meta key", `{"_meta":{"io.modelcontextprotocol/ContentLanguage":"es"}}`,
			[]string{"_meta.io.modelcontextprotocol/ContentLanguage is io.modelcontextprotocol/contentLanguage in another case"}},
		{"companion", `{"arguments":{"mcpformtool":"b"}}`, []string{"arguments.mcpformtool is mcpformTool in another case"}},
		{"twins", `{"arguments":{"email":1,"Email":2}}`, []string{"arguments.Email and arguments.email"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, wireProblems([]byte(tt.msg), map[string]bool{}))
		})
	}
}

// recorder keeps each line written through it.
type recorder struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines [][]byte
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf.Write(b)
	for {
		line, err := r.buf.ReadBytes('\n')
		if err != nil {
			r.buf.Write(line) // not yet ended
			return len(b), nil
		}
		r.lines = append(r.lines, bytes.TrimSpace(line))
	}
}

func (r *recorder) all() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.lines...)
}

// TestWireNamesExact: every message of a lone form and of a flow on an
// mcp-go server, on each kind of host and path, both the client's
// (mcpformtest's, the view companion's arguments included) and the
// server's (results, input requests, states, _meta), spells each member
// name exactly as the spec and mcp-go define it. mcp-go v1.6.0 refuses
// an envelope or params member that differs from its name only in case;
// mcp-go's client and encoding/json would silently take one for it.
func TestWireNamesExact(t *testing.T) {
	servers := []struct {
		name    string
		tool    string
		srv     func(t *testing.T) *server.MCPServer
		answers []mcpformtest.Answer
	}{
		{"lone form", "signup", func(t *testing.T) *server.MCPServer { return mcpgoFormServer(t, loneForm(t)) },
			[]mcpformtest.Answer{
				mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 51}),
				mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 5})}},
		{"flow", "signup", func(t *testing.T) *server.MCPServer { return newPathsServer(t).MCPServer },
			[]mcpformtest.Answer{
				mcpformtest.Accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
				mcpformtest.Accept(map[string]any{"seats": 1}),
				mcpformtest.Accept(map[string]any{"seats": 5})}},
		{"declined", "signup", func(t *testing.T) *server.MCPServer { return newPathsServer(t).MCPServer },
			[]mcpformtest.Answer{mcpformtest.Decline()}},
	}
	seen := map[string]bool{}
	for _, s := range servers {
		for _, host := range mcpformtest.Hosts() {
			t.Run(s.name+"/"+host.Name, func(t *testing.T) {
				srv := s.srv(t)
				sent, got := &recorder{}, &recorder{}
				tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
					return server.NewStdioServer(srv).Listen(ctx, bufio.NewReader(io.TeeReader(in, sent)), io.MultiWriter(out, got))
				})
				res := mcpformtest.Dial(t, tr, host).Call(context.Background(), s.tool, nil, s.answers...)
				require.Nil(t, res.Err, "%+v", res.Err)
				require.NotEmpty(t, res.Rounds)
				assert.Equal(t, mcpformtest.PathOutcome, res.Rounds[len(res.Rounds)-1].Path)
				calls := 0
				for _, msg := range sent.all() {
					assert.Empty(t, wireProblems(msg, seen), "%s", msg)
					if bytes.Contains(msg, []byte(`"tools/call"`)) {
						calls++
					}
				}
				assert.Positive(t, calls)
				for _, msg := range got.all() {
					assert.Empty(t, wireProblems(msg, seen), "%s", msg)
				}
			})
		}
	}
	// The conversations reached every kind of name: results, input
	// requests and responses, states, the view companion's arguments,
	// the legacy handshake's elicitation, and the _meta mcpform adds.
	for _, name := range []string{"resultType", "inputRequests", "inputResponses", "requestState", "requestedSchema",
		"structuredContent", mcpform.StateArgument, "mcpformTool", "io.github.mcpform/problems", "action",
		mcp.MetaKeyClientCapabilities} {
		assert.True(t, seen[name], "no message carried %s", name)
	}
}
