package mcpformtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A TB is what the kit needs of a test: *testing.T, *testing.B and
// *testing.F are TBs. The kit fails it on a broken connection or a reply
// no host could read, and ends the session in its Cleanup.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// A Client is a fake host connected to one server session, made by
// [NewClient] or [Dial]; the zero Client is connected to nothing. It is
// not safe for concurrent use: a host runs one call at a time here.
type Client struct {
	// Pages, if set, serves the secret pages' links in process, whatever
	// their host, as the person's browser would see them. Nil follows
	// the links over the network, to an httptest.Server for instance.
	Pages http.Handler

	t       TB
	host    Host
	conn    mcp.Connection
	id      int64
	browser *http.Client
	wire    []string
}

// NewClient connects host to server in memory, as a new session, and
// returns the client. The session ends when the test does. A handshake
// the server refuses fails the test.
func NewClient(t TB, server *mcp.Server, host Host) *Client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatalf("mcpformtest: connecting the server: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return Dial(t, ct, host)
}

// Dial connects host through transport, the client's end of a
// connection to any server: [Pipe] to a server that serves a stream, such
// as mcp-go's stdio server, or go-sdk's StreamableClientTransport to an
// http.Handler. The connection closes when the test ends.
func Dial(t TB, transport mcp.Transport, host Host) *Client {
	t.Helper()
	conn, err := transport.Connect(context.Background())
	if err != nil {
		t.Fatalf("mcpformtest: connecting: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &Client{t: t, host: host, conn: conn}
	c.handshake()
	return c
}

// Pipe runs serve, a server of one stream such as mcp-go's
// (*server.StdioServer).Listen, on a pair of pipes, and returns the
// transport of the client's end, for [Dial]. serve's context is cancelled
// and its input closed when the test ends, and Pipe waits for it then.
func Pipe(t TB, serve func(ctx context.Context, in io.Reader, out io.Writer) error) mcp.Transport {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := serve(ctx, serverIn, serverOut)
		serverOut.CloseWithError(cmpErr(err, io.EOF))
	}()
	t.Cleanup(func() {
		cancel()
		clientOut.Close()
		serverIn.Close()
		<-done
	})
	return &mcp.IOTransport{Reader: clientIn, Writer: clientOut}
}

func cmpErr(err, def error) error {
	if err == nil {
		return def
	}
	return err
}

// Wire returns every JSON-RPC message of the session so far, in order,
// each prefixed "→ " if the host sent it and "← " if the server did: a
// test can check, say, that a password crossed none of them.
func (c *Client) Wire() []string { return append([]string(nil), c.wire...) }

// clientInfo is how every fake host names itself.
var clientInfo = map[string]any{"name": "mcpformtest", "version": "v0"}

// handshake opens the session as c's host does: initialize on 2025-11-25,
// server/discover on 2026-07-28.
func (c *Client) handshake() {
	c.t.Helper()
	ctx := context.Background()
	if c.host.Protocol == Latest {
		if _, err := c.request(ctx, "server/discover", map[string]any{}, nil); err != nil {
			c.t.Fatalf("mcpformtest: server/discover: %v", err)
		}
		return
	}
	res, err := c.request(ctx, "initialize", map[string]any{"protocolVersion": c.host.Protocol,
		"capabilities": c.host.capabilities(), "clientInfo": clientInfo}, nil)
	if err != nil {
		c.t.Fatalf("mcpformtest: initialize: %v", err)
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(res, &init); init.ProtocolVersion != c.host.Protocol {
		c.t.Fatalf("mcpformtest: the server speaks %q, not %q", init.ProtocolVersion, c.host.Protocol)
	}
	c.write(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
}

// withMeta returns params with the _meta a 2026-07-28 request carries,
// replacing any that was there, and the host's language on every
// revision; other revisions' params are otherwise unchanged.
func (c *Client) withMeta(params map[string]any) map[string]any {
	if c.host.Protocol != Latest && c.host.Language == "" {
		return params
	}
	p := maps.Clone(params)
	meta, _ := p["_meta"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	if c.host.Protocol == Latest {
		meta["io.modelcontextprotocol/protocolVersion"] = c.host.Protocol
		meta["io.modelcontextprotocol/clientCapabilities"] = c.host.capabilities()
		meta["io.modelcontextprotocol/clientInfo"] = clientInfo
	}
	if c.host.Language != "" {
		meta["io.modelcontextprotocol/acceptLanguage"] = c.host.Language
	}
	p["_meta"] = meta
	return p
}

// request sends method with params and returns its result, answering the
// server's requests meanwhile with serve; a nil serve refuses them. A
// JSON-RPC error is returned as a *jsonrpc.Error; a broken connection
// fails the test.
func (c *Client) request(ctx context.Context, method string, params map[string]any, serve func(*jsonrpc.Request) (any, error)) (json.RawMessage, error) {
	c.t.Helper()
	c.id++
	id, _ := jsonrpc.MakeID(float64(c.id))
	raw, err := json.Marshal(c.withMeta(params))
	if err != nil {
		c.t.Fatalf("mcpformtest: encoding %s: %v", method, err)
	}
	c.write(&jsonrpc.Request{ID: id, Method: method, Params: raw})
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("mcpformtest: reading the answer to %s: %v", method, err)
		}
		c.record("← ", msg)
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID != id {
				continue
			}
			if m.Error != nil {
				var we *jsonrpc.Error
				if errors.As(m.Error, &we) {
					return nil, we
				}
				return nil, m.Error
			}
			return m.Result, nil
		case *jsonrpc.Request:
			if m.IsCall() {
				c.answer(m, serve)
			}
		}
	}
}

// answer answers the server's request m with serve.
func (c *Client) answer(m *jsonrpc.Request, serve func(*jsonrpc.Request) (any, error)) {
	var res any
	var err error
	switch {
	case m.Method == "ping":
		res = map[string]any{}
	case serve != nil:
		res, err = serve(m)
	default:
		err = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "mcpformtest: the host does not serve " + m.Method}
	}
	resp := &jsonrpc.Response{ID: m.ID, Error: err}
	if err == nil {
		if resp.Result, err = json.Marshal(res); err != nil {
			c.t.Fatalf("mcpformtest: encoding the answer to %s: %v", m.Method, err)
		}
	}
	c.write(resp)
}

// write sends msg, failing the test if it cannot.
func (c *Client) write(msg jsonrpc.Message) {
	c.t.Helper()
	c.record("→ ", msg)
	if err := c.conn.Write(context.Background(), msg); err != nil {
		c.t.Fatalf("mcpformtest: sending: %v", err)
	}
}

func (c *Client) record(dir string, msg jsonrpc.Message) {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		b = fmt.Appendf(nil, "%v", err)
	}
	c.wire = append(c.wire, dir+string(b))
}
