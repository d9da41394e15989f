package main

import "github.com/modelcontextprotocol/go-sdk/mcp"

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
	// Status is created, exists, declined, cancelled or invalid; for
	// set_password, updated, unknown, declined, cancelled or invalid.
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
