package mcpform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A flow step on an MCP Apps host is a prefab view, one per step. What
// prefab 0.3.13's renderer does with the result of a view's toolCall
// (dist/renderer/actions.js, handleToolCall) decides its shape:
//
//   - A result whose structuredContent, or a text block's JSON, holds
//     $prefab and view replaces the view (remount), and the new view's
//     state is merged into the renderer's store. So each step's result is
//     the next step's view, and the person never leaves the frame.
//   - The toolCall's resultKey puts the whole result into the store before
//     that, and onSuccess runs after it for every result, isError
//     included, which is why a toast cannot tell success from failure.
//     So the view keeps the result under outcomeKey, shows its first text
//     block once it is set, and each step's view clears it in its state.
//     The tool's own last result, whatever it says, is what the person
//     reads: created, already registered, declined.

// outcomeKey is the renderer state key under which a flow view keeps the
// result of its submit.
const outcomeKey = "mcpformResult"

// viewWire is a flow view's structuredContent, but for its arguments: the
// $prefab wire object, and the contract fields the other paths carry too.
type viewWire struct {
	Prefab prefabVersion  `json:"$prefab"`
	View   *node          `json:"view"`
	State  map[string]any `json:"state"`
	URL    string         `json:"url,omitempty"`
}

type prefabVersion struct {
	Version string `json:"version"`
}

// argsSlot stands, in a view's JSON, for the arguments its submit and its
// Decline button send besides the fields and the action; it is the first
// key, as encoding/json sorts them.
const (
	argsSlotKey  = "\x00"
	argsSlotJSON = `"\u0000":null`
)

// A builtView is a view as JSON, cut where its submit's arguments go, so
// that a round costs a copy: on the Apps path, a view is most of the work.
type builtView struct {
	tool  string   // the tool it submits to
	parts [][]byte // the view's JSON, between its slots
	text  string
}

// result returns the view's result, its submit and the wire's arguments
// being args. The view is spliced when go-sdk encodes the result, not
// before: encoding copies it anyway.
func (v *builtView) result(args json.RawMessage) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v.text}}, StructuredContent: &viewContent{v, args}}
}

// viewContent is a view's structuredContent: the view, spliced with the
// arguments when it is encoded.
type viewContent struct {
	v    *builtView
	args json.RawMessage
}

// MarshalJSON writes the view's wire object with its arguments.
func (c *viewContent) MarshalJSON() ([]byte, error) {
	v, inner := c.v, c.args[1:len(c.args)-1]
	n := len(c.args) + 16
	for _, p := range v.parts {
		n += len(p) + len(inner)
	}
	b := make([]byte, 0, n)
	for i, p := range v.parts {
		if i > 0 {
			b = append(b, inner...)
		}
		b = append(b, p...)
	}
	return append(append(append(b, `,"arguments":`...), c.args...), '}'), nil
}

// The outcome a view shows reaches the model through the host: the
// model never sees the companion's result, so the viewer's own script
// (viewerScript) sends the text of the element of class outcomeClass to
// the host as ui/update-model-context, which MCP Apps hosts add to the
// model's context. prefab 0.3.13 has no action that does it: its
// updateContext action only merges the renderer's own state, and its
// sendMessage sends ui/message with content as one object, which
// ext-apps' AppBridge 2.0.4 refuses ("expected array").

// outcomeClass marks the element of a view that shows the tool's final
// result, for the viewer's script to tell the model.
const outcomeClass = "mcpform-outcome"

// buildView returns content as a flow view submitting to tool.
func buildView(content *node, tool, url, text string) (*builtView, error) {
	submitTo(content, tool)
	root := &node{Type: "Div", CSSClass: "pf-app-root", Children: []*node{
		{Type: "If", Condition: outcomeKey, Children: []*node{{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5 " + outcomeClass, Children: []*node{
			{Type: "Text", Content: "{{ " + outcomeKey + ".content.0.text }}"},
		}}}},
		{Type: "Else", Children: []*node{content}},
	}}
	b, err := json.Marshal(&viewWire{Prefab: prefabVersion{prefabProtocol}, View: root, State: map[string]any{outcomeKey: nil}, URL: url})
	if err != nil {
		return nil, fmt.Errorf("mcpform: encoding the view: %w", err)
	}
	parts := bytes.Split(b[:len(b)-1], []byte(argsSlotJSON))
	if len(parts) < 2 {
		return nil, errors.New("mcpform: the view has no submit") // built here: cannot happen
	}
	return &builtView{tool: tool, parts: parts, text: text}, nil
}

// stepView returns the view that asks s's form fields, never its secrets,
// naming problems and pre-filling filled. A secret step's view links to
// its page too. The plain view of each step is built once per tool.
func (r *round) stepView(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	if s.c.ui != nil {
		return nil, fmt.Errorf("mcpform: flow step %q cannot be shown in an MCP Apps view: %w", s.c.key, s.c.ui)
	}
	tool := r.call.Tool()
	plain := len(s.c.secrets) == 0
	var page *mcp.ElicitParams
	if !plain {
		var err error
		if page, err = r.pageRequest(s, problems); err != nil {
			return nil, err
		}
	}
	v, err := s.c.view(tool, filled, problems, page)
	if err != nil {
		return nil, err
	}
	return v.result(r.sendBack(token)), nil
}

// view returns c's view submitting to tool, naming problems, pre-filling
// filled and linking to page. The plain one, with none of these, is built
// once per tool and kept.
func (c *compiled) view(tool string, filled Answers, problems []*FieldError, page *mcp.ElicitParams) (*builtView, error) {
	plain := len(filled) == 0 && len(problems) == 0 && page == nil
	if v := c.plainView.Load(); plain && v != nil && v.tool == tool {
		return v, nil
	}
	fields := c.fields
	if len(filled) > 0 {
		fields = cloneFields(fields)
		for i := range fields {
			if v, ok := filled[fields[i].Name]; ok {
				fields[i].Default = v
			}
		}
	}
	o := DisplayFormOptions{Title: c.message, Subtitle: ProblemMessage(c.all, problems)}
	content, err := formView(fields, tool, &o)
	if err != nil {
		return nil, err
	}
	url := ""
	if page != nil {
		url = page.URL
		content.Children = append(content.Children, linkNode(page))
	}
	text := fmt.Sprintf("The person is shown the form %q in the app's view and answers there; the view calls the tool again itself.", c.message)
	v, err := buildView(content, tool, url, text)
	if err != nil {
		return nil, err
	}
	if plain {
		c.plainView.Store(v)
	}
	return v, nil
}

// linkView returns the view that links to s's secret page, with a button
// that calls the tool again once the page is sent, and one to decline.
func (r *round) linkView(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	p, err := r.pageRequest(s, problems)
	if err != nil {
		return nil, err
	}
	form := &node{Type: "Form", OnSubmit: &action{Action: "toolCall", Tool: r.call.Tool(), Arguments: map[string]any{}},
		Children: []*node{{Type: "Column", CSSClass: "gap-4", Children: []*node{
			{Type: "Button", Label: "I have sent the page", Variant: "default", Size: "default", Disabled: boolPtr(false), Submit: true}}}}}
	content := &node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: []*node{
		{Type: "Heading", Content: s.c.message, Level: 1}, linkNode(p), form,
	}}
	v, err := buildView(content, r.call.Tool(), p.URL,
		"The app's view gives the person this link, where they type what is asked straight to the server: "+p.URL)
	if err != nil {
		return nil, err
	}
	return v.result(r.sendBack(token)), nil
}

// linkNode shows a secret page's message and link.
func linkNode(p *mcp.ElicitParams) *node {
	return &node{Type: "Column", CSSClass: "gap-2", Children: []*node{
		{Type: "Muted", Content: p.Message},
		{Type: "Link", Content: p.URL, Href: p.URL, Target: "_blank"},
	}}
}

// submitTo makes the form in view call tool, through the app-only
// companion (see companion.go), with the arguments of argsSlot besides its
// fields, keep the result under outcomeKey, and show
// no toast on success, which the renderer would show for an error too. A
// Decline button beside the submit calls it with argsSlot and
// actionArgument alone, and keeps its result the same way.
func submitTo(view *node, tool string) {
	if view.Type == "Form" && view.OnSubmit != nil {
		view.OnSubmit.Tool, view.OnSubmit.Arguments[toolArgument] = companionTool, tool
		keepOutcome(view.OnSubmit)
		decline := &action{Action: "toolCall", Tool: companionTool, Arguments: map[string]any{actionArgument: declineAction, toolArgument: tool}}
		keepOutcome(decline)
		button := &node{Type: "Button", CSSClass: "w-full", Label: "Decline", Variant: "outline", Size: "default",
			Disabled: boolPtr(false), OnClick: decline}
		in := view // the form's column of controls, where the submit is
		if n := len(view.Children); n > 0 && view.Children[n-1].Type == "Column" {
			in = view.Children[n-1]
		}
		in.Children = append(in.Children, button)
		return
	}
	for _, c := range view.Children {
		submitTo(c, tool)
	}
}

// keepOutcome makes a's toolCall send argsSlot and keep its result under
// outcomeKey, with a toast on a protocol error only.
func keepOutcome(a *action) {
	a.Arguments[argsSlotKey] = nil
	a.ResultKey, a.OnSuccess = outcomeKey, nil
	if a.OnError == nil {
		a.OnError = &action{Action: "showToast", Message: defaultErrorMessage, Variant: "error"}
	}
}
