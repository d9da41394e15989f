package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An outcome is the final result of a signup or of set_password.
type outcome struct {
	Text    string
	IsError bool
	Data    resultData
}

// An account is one signup, as stored and as reported.
type account struct {
	Email     string `json:"email"`
	FullName  string `json:"full_name,omitempty"`
	Plan      string `json:"plan"`
	TeamName  string `json:"team_name,omitempty"`
	Seats     int    `json:"seats,omitempty"`
	Principal string `json:"-"`
}

// resultData is the structured content of a final result, for programs
// (and tests) that read it rather than the text.
type resultData struct {
	// Status is created, exists, declined, cancelled, invalid or error; for
	// set_password, updated, unknown, declined, cancelled, invalid,
	// refused or error.
	Status  string   `json:"status"`
	Account *account `json:"account,omitempty"`
}

func notCompleted(status, text string) outcome {
	return outcome{Text: text, Data: resultData{Status: status}}
}

// result is o as the tool's final result.
func (o outcome) result() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: o.Text}},
		StructuredContent: o.Data,
		IsError:           o.IsError,
	}
}

// do is o as what a run does when it changes nothing, for FlowRound.Once.
func (o outcome) do(context.Context) (*mcp.CallToolResult, error) { return o.result(), nil }

func createdText(a account) string {
	who := a.Email
	if a.FullName != "" {
		who = a.FullName + " <" + a.Email + ">"
	}
	switch a.Plan {
	case "team":
		return fmt.Sprintf("Signup complete: created %s on the Team plan for %q, %d seats.", who, a.TeamName, a.Seats)
	case "pro":
		return fmt.Sprintf("Signup complete: created %s on the Pro plan.", who)
	}
	return fmt.Sprintf("Signup complete: created %s on the Free plan.", who)
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
		o.IsError = true
		return o.result(), nil
	}
}
