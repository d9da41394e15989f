package main

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds per client, so that one client cannot fill the server's: without
// auth, a client is its remote address, the whole /64 for IPv6, which one
// machine usually holds. Behind a reverse proxy every client has the
// proxy's address: raise the bounds there, or name clients by what the
// proxy forwards.

// clientKey is where newHTTPHandler puts the client of an initialize
// request in its context. go-sdk serves the session it opens in that
// context, so the session's tool calls find it there too.
type clientKey struct{}

// clientOf returns the client an HTTP request comes from.
func clientOf(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		return host
	}
	a := ap.Addr().Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// legacyClient is LegacyOptions.Client: the client whose initialize opened
// the call's session, or "" over stdio, which has one client.
func legacyClient(ctx context.Context, _ *mcp.CallToolRequest) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// clientSessions caps the open sessions of each client.
type clientSessions struct {
	server *mcp.Server
	max    int

	mu      sync.Mutex
	open    map[string]map[string]bool // client → IDs of its sessions
	pending map[string]int             // client → initializes being served
}

func newClientSessions(server *mcp.Server, max int) *clientSessions {
	return &clientSessions{server: server, max: max, open: map[string]map[string]bool{}, pending: map[string]int{}}
}

// reserve takes a place for a session of client, or reports that it has
// the most it may already.
func (c *clientSessions) reserve(client string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune()
	if len(c.open[client])+c.pending[client] >= c.max {
		return false
	}
	c.pending[client]++
	return true
}

// settle turns client's place into its session id, or frees it when the
// initialize opened none ("").
func (c *clientSessions) settle(client, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[client]--; c.pending[client] == 0 {
		delete(c.pending, client)
	}
	if id == "" {
		return
	}
	if c.open[client] == nil {
		c.open[client] = map[string]bool{}
	}
	c.open[client][id] = true
}

// prune forgets the sessions that have closed. go-sdk says nothing when
// one does, so each reserve looks, at the cost of one pass over the open
// sessions, as the global cap's count makes already.
func (c *clientSessions) prune() {
	alive := map[string]bool{}
	for ss := range c.server.Sessions() {
		alive[ss.ID()] = true
	}
	for client, ids := range c.open {
		for id := range ids {
			if !alive[id] {
				delete(ids, id)
			}
		}
		if len(ids) == 0 {
			delete(c.open, client)
		}
	}
}
