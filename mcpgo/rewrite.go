package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The rewrite: mcp-go's OnError hook sees each tools/call error with the
// request's JSON-RPC id before the transport writes the response. When
// the error is one mcpform made (a specError anywhere in its chain), the
// hook records it under that id in the pending set the transport wrapper
// put in the context; the wrapper then writes that one response, which
// mcp-go made -32603 with the error's text, with the spec's code instead.
// Nothing else is touched: a response is rewritten only if its id was
// recorded, its code is -32603 and its message is the recorded error's
// text.

// pendingKey is the context key of a transport's pending set.
type pendingKey struct{}

// pending are the responses to rewrite, by the JSON of their id: for
// stdio one set for the session, for HTTP one per POST.
type pending struct {
	mu sync.Mutex
	m  map[string]pendingError
}

type pendingError struct {
	texts  [2]string // what mcp-go may send as the message: the error's text, or its handler error's
	wire   wireError
	modern bool // 2026-07-28, where HTTP maps the code to a status
}

func withPending(ctx context.Context) (context.Context, *pending) {
	p := &pending{m: map[string]pendingError{}}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// record is the OnError hook: it files an error mcpform made for the
// transport of ctx, if it has a pending set.
func record(ctx context.Context, id any, method mcp.MCPMethod, _ any, err error) {
	p, ok := ctx.Value(pendingKey{}).(*pending)
	if !ok || method != mcp.MethodToolsCall || id == nil {
		return
	}
	var se specError
	if !errors.As(err, &se) {
		return
	}
	// mcp-go's request error unwraps to the handler's error, whose text
	// is the message it sends; an mcp-go that hands the hook the handler's
	// error itself would send err's own text.
	texts := [2]string{err.Error()}
	if inner := errors.Unwrap(err); inner != nil {
		texts[1] = inner.Error()
	}
	key, kerr := json.Marshal(id)
	if kerr != nil {
		return
	}
	modern := mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
	p.mu.Lock()
	p.m[string(key)] = pendingError{texts: texts, wire: se.wire(), modern: modern}
	p.mu.Unlock()
}

// rewrite returns msg, one JSON-RPC message, with the spec's error in
// place of mcp-go's if it answers a recorded request; ok reports that.
func (p *pending) rewrite(msg []byte) (out []byte, e pendingError, ok bool) {
	p.mu.Lock()
	empty := len(p.m) == 0
	p.mu.Unlock()
	if empty || !bytes.Contains(msg, []byte(`"error"`)) {
		return msg, e, false
	}
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &r) != nil || r.Error == nil || r.Error.Code != mcp.INTERNAL_ERROR {
		return msg, e, false
	}
	var id any
	if json.Unmarshal(r.ID, &id) != nil {
		return msg, e, false
	}
	key, _ := json.Marshal(id) // the hook's key for the same id
	p.mu.Lock()
	e, ok = p.m[string(key)]
	if ok && r.Error.Message != "" && (e.texts[0] == r.Error.Message || e.texts[1] == r.Error.Message) {
		delete(p.m, string(key))
	} else {
		ok = false
	}
	p.mu.Unlock()
	if !ok {
		return msg, e, false
	}
	out, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{mcp.JSONRPC_VERSION, r.ID, e.wire})
	if err != nil {
		return msg, e, false
	}
	return out, e, true
}

// lines rewrites a stdio stream: one JSON-RPC message a line, each
// written whole by mcp-go's stdio server.
type lines struct {
	mu  sync.Mutex
	w   io.Writer
	p   *pending
	buf []byte // a line not yet ended
}

func (l *lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := l.buf[:i]
		out, _, ok := l.p.rewrite(line)
		if ok {
			out = append(out, '\n')
		} else {
			out = l.buf[:i+1]
		}
		if _, err := l.w.Write(out); err != nil {
			l.buf = l.buf[:0]
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
}

// An httpWriter rewrites the response to one POST: a JSON body is held
// until the handler returns, so that its status can follow its code as
// mcp-go's does on 2026-07-28; an event stream is passed on event by
// event, its data rewritten.
type httpWriter struct {
	http.ResponseWriter
	p      *pending
	status int  // the status held for a JSON body
	mode   byte // 0 before the header, 'j' JSON held, 's' events, 'r' raw
	body   bytes.Buffer
	event  []byte // an event not yet ended
}

func (w *httpWriter) WriteHeader(status int) {
	if w.mode != 0 {
		return
	}
	switch ct := w.Header().Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		w.mode, w.status = 'j', status
		return
	case strings.HasPrefix(ct, "text/event-stream"):
		w.mode = 's'
	default:
		w.mode = 'r'
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *httpWriter) Write(b []byte) (int, error) {
	if w.mode == 0 {
		w.WriteHeader(http.StatusOK)
	}
	switch w.mode {
	case 'j':
		return w.body.Write(b)
	case 's':
		return w.events(b)
	}
	return w.ResponseWriter.Write(b)
}

// events passes on each complete event, with its data line rewritten.
func (w *httpWriter) events(b []byte) (int, error) {
	w.event = append(w.event, b...)
	for {
		i := bytes.Index(w.event, []byte("\n\n"))
		if i < 0 {
			return len(b), nil
		}
		ev := w.event[:i+2]
		var out []byte
		for _, line := range bytes.SplitAfter(ev[:i+1], []byte("\n")) {
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				if msg, _, ok := w.p.rewrite(bytes.TrimSuffix(data, []byte("\n"))); ok {
					line = append(append([]byte("data: "), msg...), '\n')
				}
			}
			out = append(out, line...)
		}
		out = append(out, '\n')
		if _, err := w.ResponseWriter.Write(out); err != nil {
			w.event = w.event[:0]
			return 0, err
		}
		w.event = append(w.event[:0], w.event[i+2:]...)
	}
}

// Flush flushes what has been passed on; a held JSON body waits for finish.
func (w *httpWriter) Flush() {
	if w.mode != 'j' {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *httpWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes a held JSON body, rewritten, and what is left of a stream.
func (w *httpWriter) finish() {
	switch w.mode {
	case 'j':
		body, e, ok := w.p.rewrite(bytes.TrimSuffix(w.body.Bytes(), []byte("\n")))
		if ok {
			if e.modern && w.status == http.StatusOK {
				w.status = http.StatusBadRequest // as mcp-go answers its own -32602 and -32021
			}
			body = append(body, '\n')
		} else {
			body = w.body.Bytes()
		}
		w.ResponseWriter.WriteHeader(w.status)
		_, _ = w.ResponseWriter.Write(body)
	case 's':
		if len(w.event) > 0 {
			_, _ = w.ResponseWriter.Write(w.event)
		}
	}
}
