package main

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// localPrincipal is whom request state is bound to when the transport has
// no authentication (stdio, the demo, plain HTTP): everyone who can reach
// the server is one principal. Behind auth (go-sdk's auth.RequireBearerToken),
// the principal is the token's UserID instead.
const localPrincipal = "local"

// flowPrincipal is principalOf for a flow. The handlers refuse a call
// principalOf can't name before the flow's Next runs.
func (s *signup) flowPrincipal(req *mcp.CallToolRequest) string {
	p, _ := s.principalOf(req)
	return p
}

// principalOf returns whom the request state is bound to: the
// authenticated user when the transport has auth, else s.principal.
func (s *signup) principalOf(req *mcp.CallToolRequest) (string, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return s.principal, nil
	}
	if id := req.Extra.TokenInfo.UserID; id != "" {
		return "user:" + id, nil
	}
	// An authenticated caller we can't name would share request state
	// with every other such caller: refuse rather than bind weakly.
	return "", errors.New("signup: the bearer token names no user; cannot bind request state")
}
