package mcpform

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"

	"github.com/mcpform/mcpform/internal/rawanswers"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk decodes a retried tools/call's inputResponses with encoding/json
// before any middleware runs, so a native answer reaches a handler with
// its numbers rounded to float64, the last of a key given twice, and
// U+FFFD for invalid UTF-8. The two wrappers below let the core read the
// answers as the client wrote them: they copy the bytes where go-sdk
// hands them to the handler untouched, and the core reads them there.

// AnswersAsSentHandler returns a handler that serves h, go-sdk's
// mcp.StreamableHTTPHandler, with every native answer read as the client
// sent it: each number judged on its digits, as on every other path, so
// that 1.9999999999999999 is not a whole number and 9007199254740993 is
// kept exactly, and an answer holding a key twice, invalid UTF-8 or a
// lone surrogate escape asked again, naming its field. Without it, the
// core judges the answer go-sdk decoded, already rounded.
//
// The handler copies the bytes of a tools/call's inputResponses into a
// header of the request h serves, Mcpform-Input-Responses, which go-sdk
// hands the tool handler in its request's Extra, and removes any such
// header a client sent. The body reaches h byte for byte as sent, so h's
// MaxRequestBodyBytes counts what the client sent. It reads a POST's
// body of at most 1 MiB into memory first; a larger one reaches h unread,
// and its answers are read as go-sdk decoded them, as are a batch's. The
// copy begins with a mark the process draws at random when it starts, and
// the core reads only a copy that carries it, so one a client writes
// itself, where no wrapper removes it, is never read.
//
// A nil h panics, as http.Handle does.
func AnswersAsSentHandler(h http.Handler) http.Handler {
	if h == nil {
		panic("mcpform: AnswersAsSentHandler of a nil handler")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody || r.ContentLength > rawanswers.MaxMessage {
			h.ServeHTTP(w, withCopy(r, nil, "", false))
			return
		}
		var buf bytes.Buffer
		if r.ContentLength > 0 {
			buf.Grow(int(r.ContentLength) + bytes.MinRead) // one read, no regrowth
		}
		_, err := buf.ReadFrom(io.LimitReader(r.Body, rawanswers.MaxMessage+1))
		body := buf.Bytes()
		var kept string
		var ok bool
		sent := io.Reader(bytes.NewReader(body))
		if err != nil || len(body) > rawanswers.MaxMessage {
			// h reads what was read, then the rest, or the error again.
			sent = io.MultiReader(sent, r.Body)
		} else {
			kept, ok = rawanswers.Copy(body)
		}
		h.ServeHTTP(w, withCopy(r, readCloser{sent, r.Body}, kept, ok))
	})
}

// withCopy returns r reading body instead, when body is not nil, with
// kept, when ok, under the header of answers as sent, and never one a
// client sent: r itself when that changes nothing, else a shallow copy.
func withCopy(r *http.Request, body io.ReadCloser, kept string, ok bool) *http.Request {
	_, forged := r.Header[rawanswers.Header]
	if body == nil && !ok && !forged {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	if body != nil {
		r2.Body, r2.GetBody = body, nil
	}
	if ok || forged {
		r2.Header = make(http.Header, len(r.Header)+1)
		maps.Copy(r2.Header, r.Header) // the values are shared, never written
		delete(r2.Header, rawanswers.Header)
		if ok {
			r2.Header[rawanswers.Header] = []string{kept}
		}
	}
	return r2
}

// readCloser reads from one reader and closes the request's body.
type readCloser struct {
	io.Reader
	io.Closer
}

// AnswersAsSentTransport returns t with every native answer it carries
// read as the client sent it, as [AnswersAsSentHandler] does for go-sdk's
// streamable HTTP handler: for a transport whose connection hands go-sdk
// each message's params as bytes, such as mcp.StdioTransport,
// mcp.IOTransport and mcp.InMemoryTransport. Over streamable HTTP, wrap
// the handler instead.
//
// A connection has no header, so each tools/call read from it gets the
// copy in its params._meta, under "io.mcpform/inputResponses",
// base64-encoded, with any value a client sent there removed, for params
// of at most 1 MiB: the copy adds about 4/3 of the answers' size to what
// go-sdk decodes. go-sdk's own connection is then
// reached through another type, so it no longer learns the session's
// protocol version, which its stdio connection uses only to refuse a
// JSON-RPC batch from a client of 2025-06-18 or later: such a batch is
// served.
//
// A nil t panics.
func AnswersAsSentTransport(t mcp.Transport) mcp.Transport {
	if t == nil {
		panic("mcpform: AnswersAsSentTransport of a nil transport")
	}
	return asSentTransport{t}
}

type asSentTransport struct{ t mcp.Transport }

func (t asSentTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return asSentConn{c}, nil
}

// SupportsProtocolVersion is t's own, so that go-sdk offers the versions
// it would offer on t.
func (t asSentTransport) SupportsProtocolVersion(version string) bool {
	s, ok := t.t.(mcp.ProtocolVersionSupporter)
	return !ok || s.SupportsProtocolVersion(version)
}

// asSentConn copies each tools/call's input responses as sent.
type asSentConn struct{ mcp.Connection }

func (c asSentConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		req.Params = rawanswers.Params(req.Params)
	}
	return msg, err
}
