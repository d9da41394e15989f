package mcpform

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The model path, opted in with AskModel, asks a client that can be asked
// neither in a form nor in a view through the model: an ordinary result
// tells the model what to ask the person and how to call the tool again
// (see askContract), and the answers come back in the arguments, read only
// with a state minted for this path.

// modelResult returns the ordinary result that asks the model to collect
// s's answers from the person and call the tool again with them.
func (r *round) modelResult(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	msg, schema := s.c.message, s.c.schema
	if len(filled) == 0 && len(problems) == 0 && len(s.c.secrets) == 0 {
		return s.c.modelAsk(r.tool, r.sendBack(token)), nil
	}
	var notes []problemNote
	if len(filled) > 0 || len(problems) > 0 {
		p := s.c.reask(filled, problems, "").InputRequests[s.c.key].(*mcp.ElicitParams)
		b, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, err
		}
		msg, schema, notes = p.Message, b, notesOf(p.Meta)
	}
	c := &askContract{Message: msg, Problems: notes, RequestedSchema: schema, Arguments: r.sendBack(token)}
	var page *mcp.ElicitParams
	if len(s.c.secrets) > 0 {
		var err error
		if page, err = r.pageRequest(s, problems); err != nil {
			return nil, err
		}
		c.URL = page.URL
	}
	return askModel(s.c.lang, r.tool, msg, c, page), nil
}

// readModel judges the answer to s that the model sent in the arguments,
// exactly as a native answer is judged: the model, not a browser, typed it.
func (r *round) readModel(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	content := r.args.answersFor(s.c)
	if content == nil {
		return ReplyNone, nil, nil
	}
	return s.c.judgeContent(content, true) // read from this call's arguments
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
		full := askModel(c.lang, tool, c.message, &askContract{RequestedSchema: c.schema, Arguments: json.RawMessage(slot)}, nil)
		text := full.Content[0].(*mcp.TextContent).Text
		i := strings.Index(text, slot)
		t = &modelText{tool: tool, head: text[:i], tail: text[i+len(slot):]}
		c.plainText.Store(t)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t.head + string(args) + t.tail}},
		StructuredContent: &askContract{Message: c.message, RequestedSchema: c.schema, Arguments: args, Decline: declineArguments}}
}

// mustJSON is the JSON of a schema the package built, which marshals.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpform: a built schema does not marshal: " + err.Error())
	}
	return b
}
