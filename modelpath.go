package mcpform

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askContract is the structuredContent of a result that asks through the
// model or gives the person a secret page's link: what the next call of
// the same tool must carry. The text content says the same in words.
type askContract struct {
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

// modelResult returns the ordinary result that asks the model to collect
// s's answers from the person and call the tool again with them.
func (r *round) modelResult(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	msg, schema := s.c.message, s.c.schema
	if len(filled) == 0 && len(problems) == 0 && len(s.c.secrets) == 0 {
		return s.c.modelAsk(r.call.Tool(), r.sendBack(token)), nil
	}
	if len(filled) > 0 || len(problems) > 0 {
		p := s.c.reask(filled, problems, "").InputRequests[s.c.key].(*mcp.ElicitParams)
		b, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, err
		}
		msg, schema = p.Message, b
	}
	c := &askContract{RequestedSchema: schema, Arguments: r.sendBack(token)}
	var page *mcp.ElicitParams
	if len(s.c.secrets) > 0 {
		var err error
		if page, err = r.pageRequest(s, problems); err != nil {
			return nil, err
		}
		c.URL = page.URL
	}
	return askModel(r.call.Tool(), msg, c, page), nil
}

// linkResult returns the ordinary result that gives the person the link
// to s's secret page, for a client that cannot open it in URL mode.
func (r *round) linkResult(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	page, err := r.pageRequest(s, problems)
	if err != nil {
		return nil, err
	}
	return askModel(r.call.Tool(), "", &askContract{URL: page.URL, Arguments: r.sendBack(token)}, page), nil
}

// A modelText is the text of c's plain model request to one tool, cut
// where the arguments go, built once.
type modelText struct{ tool, head, tail string }

// modelAsk returns c's plain request through the model to tool, with
// nothing to name or pre-fill: its text is built once per tool.
func (c *compiled) modelAsk(tool string, args json.RawMessage) *mcp.CallToolResult {
	t := c.plainText.Load()
	if t == nil || t.tool != tool {
		const slot = "\x00"
		full := askModel(tool, c.message, &askContract{RequestedSchema: c.schema, Arguments: json.RawMessage(slot)}, nil)
		text := full.Content[0].(*mcp.TextContent).Text
		i := strings.Index(text, slot)
		t = &modelText{tool: tool, head: text[:i], tail: text[i+len(slot):]}
		c.plainText.Store(t)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t.head + string(args) + t.tail}},
		StructuredContent: &askContract{RequestedSchema: c.schema, Arguments: args, Decline: declineArguments}}
}

// askModel returns the result of contract c, in words for the model too:
// what to ask the person, where to send them, and what to call next.
func askModel(tool, message string, c *askContract, page *mcp.ElicitParams) *mcp.CallToolResult {
	var b strings.Builder
	b.Grow(len(message) + len(c.RequestedSchema) + len(c.Arguments) + 512)
	if c.RequestedSchema != nil {
		b.WriteString(message)
		b.WriteString("\n\nAsk the person for these answers, in their own words; do not make them up or choose for them. They must match this JSON schema:\n")
		b.Write(c.RequestedSchema)
		b.WriteString("\n\n")
	}
	if page != nil {
		b.WriteString("Give the person this link. ")
		b.WriteString(page.Message)
		b.WriteString("\n")
		b.WriteString(page.URL)
		b.WriteString("\n\n")
	}
	b.WriteString("Then call the tool ")
	b.WriteString(tool)
	b.WriteString(" again with these arguments, unchanged")
	if c.RequestedSchema != nil {
		b.WriteString(", plus each answer as an argument named by its field")
	}
	b.WriteString(":\n")
	b.Write(c.Arguments)
	b.WriteString("\n\nIf the person declines, call it again with these arguments plus ")
	b.Write(declineArguments[1 : len(declineArguments)-1])
	b.WriteString(" and no answers. Only the person can decline or answer; do not do either for them.")
	c.Decline = declineArguments
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: c}
}

// mustJSON is the JSON of a schema the package built, which marshals.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpform: a built schema does not marshal: " + err.Error())
	}
	return b
}
