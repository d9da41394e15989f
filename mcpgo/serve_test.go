package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateText is the text of the error for an invalid request state, which
// a tool's plain error must not pass for.
const stateText = `invalid params: Invalid or expired requestState {"reason":"invalid_request_state"}`

// specServer is the signup server of newSignupServer, plus "book", which
// asks a form with Ask; "noisy", which sends a notification before its
// round of signup, so that streamable HTTP answers with an event stream;
// and two tools whose own errors read like mcpform's: "other" returns one
// with the state error's very text, and "quoting" one that quotes it.
func specServer(t *testing.T) *server.MCPServer {
	srv := newSignupServer(t, signupFlow(t)).MCPServer
	form := bookingForm(t)
	srv.AddTool(mcp.NewTool("book"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcpgo.Ask(ctx, form, req, "")
	})
	srv.AddTool(mcp.NewTool("other"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(stateText)
	})
	signup := srv.GetTool("signup").Handler
	srv.AddTool(mcp.NewTool("noisy"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message",
			map[string]any{"level": "info", "data": "checking the state"})
		if err != nil {
			return nil, err
		}
		return signup(ctx, req)
	})
	srv.AddTool(mcp.NewTool("quoting"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("backend said: Invalid or expired requestState")
	})
	return srv
}

// wireServers are the servers the transport tests serve, by name: a
// child process builds its own from the name.
var wireServers = map[string]func(t *testing.T) *server.MCPServer{
	"spec":  specServer,
	"paths": func(t *testing.T) *server.MCPServer { return newPathsServer(t).MCPServer },
}

// A specTransport serves the wire server named server on one of mcp-go's
// own transports, unwrapped, and returns a client of it, not started;
// status is the HTTP status and Content-Type of the last POST (none for
// stdio).
type specTransport struct {
	name    string
	connect func(t *testing.T, server string, opts ...client.ClientOption) (c *client.Client, status func() (int, string))
}

var specTransports = []specTransport{
	// stdio is server.ServeStdio in a child process of this test binary
	// (TestStdioServerProcess), reached by mcp-go's stdio client: mcp-go's
	// stdio session is one per process, shared by every StdioServer in
	// it, so that each test's server has a process of its own.
	{"stdio", func(t *testing.T, name string, opts ...client.ClientOption) (*client.Client, func() (int, string)) {
		tr := transport.NewStdioWithOptions(os.Args[0], []string{stdioServerEnv + "=" + name},
			[]string{"-test.run=^TestStdioServerProcess$"}, transport.WithCommandStderrWriter(os.Stderr))
		c := client.NewClient(tr, opts...)
		t.Cleanup(func() { c.Close() })
		return c, func() (int, string) { return 0, "" }
	}},
	{"http", func(t *testing.T, name string, opts ...client.ClientOption) (*client.Client, func() (int, string)) {
		rec := &statusRecorder{}
		ts := httptest.NewServer(rec.wrap(server.NewStreamableHTTPServer(wireServers[name](t))))
		t.Cleanup(ts.Close)
		c, err := client.NewStreamableHttpClient(ts.URL+"/mcp", transport.WithHTTPTimeout(0))
		require.NoError(t, err)
		c = client.NewClient(c.GetTransport(), opts...)
		t.Cleanup(func() { c.Close() })
		return c, rec.last
	}},
}

// stdioServerEnv names, in a child process of this test binary, the wire
// server it serves on its stdin and stdout.
const stdioServerEnv = "MCPGO_TEST_STDIO_SERVER"

// TestStdioServerProcess is the child process of the stdio transport: it
// serves the wire server stdioServerEnv names with mcp-go's own
// server.ServeStdio until its stdin ends, and exits before the test
// framework writes to stdout. Run as a test of its own it does nothing.
func TestStdioServerProcess(t *testing.T) {
	name := os.Getenv(stdioServerEnv)
	if name == "" {
		t.Skip("the child process of the stdio transport tests")
	}
	if err := server.ServeStdio(wireServers[name](t)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// statusRecorder records the status and Content-Type of each POST it
// serves.
type statusRecorder struct {
	mu     sync.Mutex
	status int
	ct     string
}

func (s *statusRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w = &recordingWriter{ResponseWriter: w, s: s}
		}
		h.ServeHTTP(w, r)
	})
}

func (s *statusRecorder) last() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.ct
}

type recordingWriter struct {
	http.ResponseWriter
	s *statusRecorder
}

func (w *recordingWriter) WriteHeader(status int) {
	w.s.mu.Lock()
	w.s.status, w.s.ct = status, w.Header().Get("Content-Type")
	w.s.mu.Unlock()
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Flush()                      { w.ResponseWriter.(http.Flusher).Flush() }
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// startClient starts and initialises c on proto.
func startClient(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-test", Version: "v0"}
	_, err := c.Initialize(ctx, init)
	require.NoError(t, err)
}

// rawCall sends one tools/call on c's transport, as a client replaying or
// tampering would; on 2026-07-28 its _meta declares caps.
func rawCall(t *testing.T, c *client.Client, tool, state string, caps map[string]any) *transport.JSONRPCResponse {
	t.Helper()
	params := map[string]any{"name": tool}
	if state != "" {
		params["requestState"] = state
	}
	if mcp.IsModernProtocol(c.ProtocolVersion()) {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    c.ProtocolVersion(),
			mcp.MetaKeyClientInfo:         map[string]any{"name": "mcpgo-test", "version": "v0"},
			mcp.MetaKeyClientCapabilities: caps,
		}
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(rawCallID.Add(1)),
		Method: string(mcp.MethodToolsCall), Params: params, Header: http.Header{}}
	if mcp.IsModernProtocol(c.ProtocolVersion()) { // the headers streamable HTTP asks, as c sends them
		encoded, err := json.Marshal(params)
		require.NoError(t, err)
		for name, value := range mcp.StandardHeaders(c.ProtocolVersion(), mcp.MethodToolsCall, encoded) {
			req.Header.Set(name, value)
		}
	}
	// A call that gets no answer fails the test, rather than hang it, and
	// leaves every goroutine's stack in the log: it has happened once, in
	// CI, and never here.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, req)
	if errors.Is(err, context.DeadlineExceeded) {
		var stacks strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
		t.Logf("goroutines when %s got no answer:\n%s", tool, stacks.String())
	}
	require.NoError(t, err, "%s: no answer", tool)
	return resp
}

// rawCallID numbers raw calls: each has an id of its own, so that no
// answer is taken for another call's.
var rawCallID atomic.Int64

// TestServeSpecCodes: over mcp-go's own server.ServeStdio and
// server.NewStreamableHTTPServer, unwrapped, mcp-go's own client gets an
// invalid request state as -32602 and a missing capability as -32021,
// each with the spec's data, on both protocols: the handlers choose the
// codes (server.NewHandlerError). Another tool's error keeps mcp-go's
// -32603, even one with the same text.
func TestServeSpecCodes(t *testing.T) {
	forms := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	valid := []byte(mintState(t, "alice"))
	valid[len(valid)/2] ^= 1
	cases := []struct {
		name  string
		tool  string
		state string
		caps  map[string]any
		// want is the error; legacy, when set, is the one on the legacy
		// handshake, where the client's capabilities are the session's.
		want, legacy *mcp.JSONRPCErrorDetails
		status       int  // on 2026-07-28 over HTTP
		stream       bool // over HTTP, an event stream
	}{
		{name: "tampered state", tool: "signup", state: string(valid), caps: forms,
			want: stateErr, status: http.StatusBadRequest},
		{name: "malformed state", tool: "signup", state: "not a state", caps: forms,
			want: stateErr, status: http.StatusBadRequest},
		{name: "another principal's state", tool: "signup", state: mintState(t, "bob"), caps: forms,
			want: stateErr, status: http.StatusBadRequest},
		{name: "tampered state, streamed", tool: "noisy", state: string(valid), caps: forms,
			want: stateErr, status: http.StatusOK, stream: true},
		{name: "no form elicitation, Next", tool: "signup", caps: map[string]any{},
			want: capErr, legacy: capErr, status: http.StatusBadRequest},
		{name: "no form elicitation, Ask", tool: "book", caps: map[string]any{},
			want: capErr, legacy: capErr, status: http.StatusBadRequest},
		{name: "another tool, the same text", tool: "other", caps: forms,
			want: &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: stateText}, status: http.StatusOK},
		{name: "another tool, quoting", tool: "quoting", caps: forms,
			want: &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "backend said: Invalid or expired requestState"}, status: http.StatusOK},
	}
	for _, tr := range specTransports {
		for _, proto := range protocols {
			t.Run(tr.name+"/"+proto.name, func(t *testing.T) {
				// A client that declares no elicitation, so that the legacy
				// session has none either; raw calls declare their own.
				c, status := tr.connect(t, "spec", proto.opts...)
				startClient(t, c)
				for _, tc := range cases {
					t.Run(tc.name, func(t *testing.T) {
						want := tc.want
						if !mcp.IsModernProtocol(c.ProtocolVersion()) && len(tc.caps) == 0 {
							want = tc.legacy
						}
						resp := rawCall(t, c, tc.tool, tc.state, tc.caps)
						require.NotNil(t, resp.Error, "want an error, got %s", resp.Result)
						assert.Equal(t, want.Code, resp.Error.Code)
						assert.Equal(t, want.Message, resp.Error.Message)
						assert.Equal(t, dataJSON(t, want.Data), dataJSON(t, resp.Error.Data))
						// mcp-go's client maps the code to mcp-go's own error.
						switch want.Code {
						case mcp.INVALID_PARAMS:
							assert.ErrorIs(t, resp.Error.AsError(), mcp.ErrInvalidParams)
						case mcp.MISSING_REQUIRED_CLIENT_CAPABILITY:
							assert.True(t, mcp.IsMissingRequiredClientCapability(resp.Error.AsError()))
						}
						if tr.name == "http" {
							st, ct := status()
							// On the legacy handshake the session streams every
							// response once a notification has been sent.
							if tc.stream {
								assert.Equal(t, "text/event-stream", ct)
							}
							if mcp.IsModernProtocol(c.ProtocolVersion()) {
								assert.Equal(t, tc.status, st, "HTTP status")
								assert.Equal(t, tc.stream, ct == "text/event-stream", "Content-Type %s", ct)
							}
						}
					})
				}
			})
		}
	}
}

var (
	stateErr = &mcp.JSONRPCErrorDetails{Code: mcp.INVALID_PARAMS, Message: "Invalid or expired requestState",
		Data: map[string]any{"reason": "invalid_request_state"}}
	capErr = &mcp.JSONRPCErrorDetails{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, Message: "Missing required client capabilities",
		Data: map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}}
)

// mintState returns the state of signupFlow's first round for principal.
func mintState(t *testing.T, principal string) string {
	t.Helper()
	r, err := mcpgo.Next(context.WithValue(context.Background(), principalKey{}, principal), signupFlow(t), mcpgoCall("", nil))
	require.NoError(t, err)
	require.NotEmpty(t, r.Result.RequestState)
	return r.Result.RequestState
}

// dataJSON returns an error's data as JSON, "" for none.
func dataJSON(t *testing.T, data any) string {
	t.Helper()
	if data == nil {
		return ""
	}
	b, err := json.Marshal(data)
	require.NoError(t, err)
	return string(b)
}

// TestServeClientCallTool: mcp-go's own client, calling as it does,
// reads the -32021 of a client without elicitation as mcp-go's own
// MissingRequiredClientCapabilityError, on each transport.
func TestServeClientCallTool(t *testing.T) {
	for _, tr := range specTransports {
		t.Run(tr.name, func(t *testing.T) {
			c, _ := tr.connect(t, "spec")
			startClient(t, c)
			require.True(t, mcp.IsModernProtocol(c.ProtocolVersion()), c.ProtocolVersion())
			for _, tool := range []string{"signup", "book"} {
				_, err := callTool(t, c, tool)
				assert.True(t, mcp.IsMissingRequiredClientCapability(err), "%s: %v", tool, err)
			}
		})
	}
}
