package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' questions and outcomes are examples/internal/accounts', the
// same on every SDK; this file renders an outcome in this SDK's types.
type (
	Account     = accounts.Account
	Team        = accounts.Team
	Plan        = accounts.Plan
	NewPassword = accounts.NewPassword
	outcome     = accounts.Outcome
	account     = accounts.Record
)

var (
	notCompleted = accounts.NotCompleted
	normalize    = accounts.Normalize
)

// result is o as the tool's final result, in round's language: through
// FlowRound.Outcome, its heading and summary for the person, then its
// sentence for the model. A nil round is a call that ended before it had
// one: in English.
func result(round *mcpform.FlowRound, o outcome) (*mcp.CallToolResult, error) {
	res, err := round.Outcome(o.Final())
	if res != nil {
		res.IsError = o.IsError
	}
	return res, err
}

// do is o as what a run of round does when it changes nothing, for
// FlowRound.Once.
func do(round *mcpform.FlowRound, o outcome) func(context.Context) (*mcp.CallToolResult, error) {
	return func(context.Context) (*mcp.CallToolResult, error) { return result(round, o) }
}

// guard returns h, whose errors other than JSON-RPC ones become a generic
// error result, beginning with what, and go to the server's log in full.
// Those errors come from the database: its own words can quote what a
// client sent (PostgreSQL: invalid byte sequence for encoding "UTF8":
// 0x00) or name the schema, and reach the client as JSON-RPC code 0. The
// JSON-RPC errors of mcpform.Flow.Next (-32602, -32021) are the protocol's,
// and pass as they are.
func (s *signup) guard(what string, h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req)
		var rpcErr *jsonrpc.Error
		if err == nil || errors.As(err, &rpcErr) {
			return res, err
		}
		// A reference pairs what the person reports with the log line.
		ref := make([]byte, 4)
		rand.Read(ref) // never fails; see crypto/rand.Read
		s.log.Printf("%s: reference %x: %v", req.Params.Name, ref, err)
		o := notCompleted("error", fmt.Sprintf("%s: the server failed to finish it. Try again in a while; "+
			"if it keeps failing, tell the operator the reference %x.", what, ref))
		o.Summary = []string{fmt.Sprintf("The server failed to finish it. If it keeps failing, tell the operator the reference %x.", ref)}
		o.IsError = true
		return result(nil, o)
	}
}
