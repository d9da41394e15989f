package main

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform/mcpgo"
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
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(o.Text)}, StructuredContent: o.Data, IsError: o.IsError}
}

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

// once returns o as the first outcome of round's run, or the one a
// replay finds stored; what means the tool's outcome, for a failure.
func (s *signup) once(ctx context.Context, round *mcpgo.FlowRound, what string, o outcome) *mcp.CallToolResult {
	res, err := round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) { return o.result(), nil })
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
	o.IsError = true
	return o.result()
}
