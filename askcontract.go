package mcpform

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The paths that answer through the arguments without a view, the model
// and the link, put a contract before the model in an ordinary result:
// what the next call of the same tool must carry, in structuredContent
// and in words.

// askContract is the structuredContent of a result that asks through the
// model or gives the person a secret page's link: what the next call of
// the same tool must carry. The text content says the same in words.
type askContract struct {
	// Message is what to tell the person, in their language: the
	// questions' message, or the page's for a link alone.
	Message string `json:"message,omitempty"`
	// Problems are the problems Message names, as a native re-ask notes
	// them (see problemNote), so that no one reads them from the words.
	Problems []problemNote `json:"problems,omitempty"`
	// RequestedSchema is the restricted schema a native request would
	// carry; absent for a link alone.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the secret page's link, for a secret step.
	URL string `json:"url,omitempty"`
	// Arguments go back unchanged, merged with the answers.
	Arguments json.RawMessage `json:"arguments"`
	// Decline is merged into Arguments, in place of the answers, when the
	// person declines: declineArguments, always. There is no "accept".
	Decline json.RawMessage `json:"decline"`
}

// declineArguments is what a model adds to the arguments to report that
// the person declined.
var declineArguments = json.RawMessage(`{"` + actionArgument + `":"` + declineAction + `"}`)

// askModel returns the result of contract c, in words for the model too:
// what to ask the person, where to send them, and what to call next, in
// l, the person's language, which the model then speaks to them.
func askModel(l lang, tool, message string, c *askContract, page *mcp.ElicitParams) *mcp.CallToolResult {
	var b strings.Builder
	b.Grow(len(message) + len(c.RequestedSchema) + len(c.Arguments) + 512)
	if c.RequestedSchema != nil {
		b.WriteString(message)
		b.WriteString(l.text(msgModelAsk))
		b.Write(c.RequestedSchema)
		b.WriteString("\n\n")
	}
	if page != nil {
		b.WriteString(l.text(msgModelLink))
		b.WriteString(page.Message)
		b.WriteString("\n")
		b.WriteString(page.URL)
		b.WriteString("\n\n")
	}
	b.WriteString(l.format(msgModelCall, "tool", tool))
	if c.RequestedSchema != nil {
		b.WriteString(l.text(msgModelPlusAnswers))
	}
	b.WriteString(":\n")
	b.Write(c.Arguments)
	b.WriteString(l.format(msgModelDecline, "decline", string(declineArguments[1:len(declineArguments)-1])))
	c.Decline = declineArguments
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: c}
}
