package mcpgo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
)

// requestError stands for mcp-go's request error, which unwraps to the
// handler's error and whose text is its own.
type requestError struct{ err error }

func (e requestError) Error() string { return "request error: " + e.err.Error() }
func (e requestError) Unwrap() error { return e.err }

const (
	stateText = `invalid params: Invalid or expired requestState {"reason":"invalid_request_state"}`
	ours      = `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"` + `invalid params: Invalid or expired requestState {\"reason\":\"invalid_request_state\"}"}}`
	spec      = `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}}`
)

// recorded returns a context whose pending set holds the state error of
// the tools/call with id 7, as the hook files it.
func recorded(err error) (context.Context, *pending) {
	ctx, p := withPending(context.Background())
	record(ctx, float64(7), mcp.MethodToolsCall, nil, requestError{err})
	return ctx, p
}

// TestRewrite: only the recorded response is rewritten, once, and only if
// mcp-go sent it as -32603 with the recorded error's text.
func TestRewrite(t *testing.T) {
	state := stateError{errors.New("mac")}
	cases := []struct {
		name string
		err  error  // what the handler of id 7 returned
		msg  string // a message the transport writes
		want string
	}{
		{"ours", state, ours, spec},
		{"ours, wrapped by the handler", fmt.Errorf("signup: %w", state),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"signup: ` + `invalid params: Invalid or expired requestState {\"reason\":\"invalid_request_state\"}"}}`, spec},
		{"another handler's error, same text", errors.New(stateText), ours, ours},
		{"another id", state, `{"jsonrpc":"2.0","id":"7","error":{"code":-32603,"message":"x"}}`, `{"jsonrpc":"2.0","id":"7","error":{"code":-32603,"message":"x"}}`},
		{"another code", state, `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"` + `invalid params: Invalid or expired requestState {\"reason\":\"invalid_request_state\"}"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"` + `invalid params: Invalid or expired requestState {\"reason\":\"invalid_request_state\"}"}}`},
		{"another text", state, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"internal panic"}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"internal panic"}}`},
		{"a result", state, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`},
		{"not JSON", state, `{"error"`, `{"error"`},
		{"a capability", newCapabilityError(true, true),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"missing required client capabilities: {\"requiredCapabilities\":{\"elicitation\":{\"form\":{},\"url\":{}}}}"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32021,"message":"Missing required client capabilities","data":{"requiredCapabilities":{"elicitation":{"form":{},"url":{}}}}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, p := recorded(tc.err)
			out, _, _ := p.rewrite([]byte(tc.msg))
			assert.Equal(t, tc.want, string(out))
			if tc.want != tc.msg {
				again, _, ok := p.rewrite([]byte(tc.msg))
				assert.False(t, ok, "rewritten twice")
				assert.Equal(t, tc.msg, string(again))
			}
		})
	}
	t.Run("the hook given the handler's error itself", func(t *testing.T) {
		ctx, p := withPending(context.Background())
		record(ctx, float64(7), mcp.MethodToolsCall, nil, state)
		out, _, _ := p.rewrite([]byte(ours))
		assert.Equal(t, spec, string(out))
	})
	t.Run("no pending set", func(t *testing.T) {
		record(context.Background(), float64(7), mcp.MethodToolsCall, nil, requestError{state}) // must not panic
	})
	t.Run("not a tools/call", func(t *testing.T) {
		ctx, p := withPending(context.Background())
		record(ctx, float64(7), mcp.MethodPromptsGet, nil, requestError{state})
		out, _, _ := p.rewrite([]byte(ours))
		assert.Equal(t, ours, string(out))
	})
}

// TestRewriteLines: a stdio stream is rewritten line by line, however
// mcp-go's writes split it.
func TestRewriteLines(t *testing.T) {
	other := `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`
	stream := other + "\n" + ours + "\n" + other + "\n"
	for _, size := range []int{1, 7, len(stream)} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			_, p := recorded(stateError{errors.New("mac")})
			var out bytes.Buffer
			l := &lines{w: &out, p: p}
			for b := []byte(stream); len(b) > 0; {
				n := min(size, len(b))
				m, err := l.Write(b[:n])
				assert.NoError(t, err)
				assert.Equal(t, n, m)
				b = b[n:]
			}
			assert.Equal(t, other+"\n"+spec+"\n"+other+"\n", out.String())
		})
	}
}

// TestRewriteHTTP: a JSON body is rewritten, with status 400 on
// 2026-07-28; an event stream is rewritten event by event, however it is
// split; other responses pass as they are.
func TestRewriteHTTP(t *testing.T) {
	event := func(msg string) string { return "event: message\ndata: " + msg + "\n\n" }
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`
	cases := []struct {
		name       string
		modern     bool
		ct         string
		status     int
		body       string
		wantStatus int
		want       string
	}{
		{"json", false, "application/json", 200, ours + "\n", 200, spec + "\n"},
		{"json, 2026-07-28", true, "application/json", 200, ours + "\n", 400, spec + "\n"},
		{"events", true, "text/event-stream", 200, event(note) + event(ours), 200, event(note) + event(spec)},
		{"accepted", false, "", 202, "", 202, ""},
		{"text", false, "text/plain", 404, "not found\n", 404, "not found\n"},
	}
	for _, tc := range cases {
		for _, size := range []int{3, len(tc.body) + 1} {
			t.Run(fmt.Sprint(tc.name, "/", size), func(t *testing.T) {
				_, p := withPending(context.Background())
				p.m["7"] = pendingError{texts: [2]string{stateText}, wire: stateError{}.wire(), modern: tc.modern}
				rec := httptest.NewRecorder()
				w := &httpWriter{ResponseWriter: rec, p: p}
				if tc.ct != "" {
					w.Header().Set("Content-Type", tc.ct)
				}
				w.WriteHeader(tc.status)
				for b := []byte(tc.body); len(b) > 0; {
					n := min(size, len(b))
					_, _ = w.Write(b[:n])
					w.Flush()
					b = b[n:]
				}
				w.finish()
				assert.Equal(t, tc.wantStatus, rec.Code)
				assert.Equal(t, tc.want, rec.Body.String())
			})
		}
	}
	var _ http.Flusher = (*httpWriter)(nil)
}
