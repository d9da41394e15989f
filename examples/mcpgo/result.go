package main

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/mcpgo"
)

// The tools' questions and outcomes are examples/internal/accounts', the
// same on every SDK; this file renders an outcome in this SDK's types.
type (
	Account     = accounts.Account
	Team        = accounts.Team
	NewPassword = accounts.NewPassword
	outcome     = accounts.Outcome
	account     = accounts.Record
)

var notCompleted = accounts.NotCompleted

// result is o as the tool's final result, in round's language: through
// FlowRound.Outcome, its heading and summary for the person, then its
// sentence for the model. A nil round is a call that ended before it had
// one: in English.
func result(round *mcpgo.FlowRound, o outcome) (*mcp.CallToolResult, error) {
	res, err := round.Outcome(o.Final())
	if res != nil {
		res.IsError = o.IsError
	}
	return res, err
}

// once returns o as the first outcome of round's run, or the one a
// replay finds stored; what means the tool's outcome, for a failure.
func (s *signup) once(ctx context.Context, round *mcpgo.FlowRound, what string, o outcome) *mcp.CallToolResult {
	res, err := round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) { return result(round, o) })
	if err != nil {
		return s.failed(what, err)
	}
	return res
}

// failed is the result of a call the server failed to finish, beginning
// with what. The error goes to the server's log alone: it comes from the
// database, whose words can quote what a client sent or name the schema.
func (s *signup) failed(what string, err error) *mcp.CallToolResult {
	// A reference pairs what the person reports with the log line.
	ref := make([]byte, 4)
	rand.Read(ref) // never fails; see crypto/rand.Read
	s.log.Printf("reference %x: %v", ref, err)
	o := notCompleted("error", fmt.Sprintf("%s: the server failed to finish it. Try again in a while; "+
		"if it keeps failing, tell the operator the reference %x.", what, ref))
	o.Summary = []string{fmt.Sprintf("The server failed to finish it. If it keeps failing, tell the operator the reference %x.", ref)}
	o.IsError = true
	res, err := result(nil, o)
	if err != nil {
		panic(err) // o's data always marshals to an object
	}
	return res
}
