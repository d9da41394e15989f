package mcpform

import (
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

// viewWire is a flow view's structuredContent: the $prefab wire object,
// and the contract fields of [Flow] that the other paths carry too.
type viewWire struct {
	Prefab    prefabVersion  `json:"$prefab"`
	View      *node          `json:"view"`
	State     map[string]any `json:"state"`
	URL       string         `json:"url,omitempty"`
	Arguments map[string]any `json:"arguments"`
}

type prefabVersion struct {
	Version string `json:"version"`
}

// stepView returns the view that asks s's form fields, never its secrets,
// naming problems and pre-filling filled. A secret step's view links to
// its page too.
func (r *round) stepView(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	if s.c.ui != nil {
		return nil, fmt.Errorf("mcpform: flow step %q cannot be shown in an MCP Apps view: %w", s.c.key, s.c.ui)
	}
	fields := s.c.fields
	if len(filled) > 0 {
		fields = cloneFields(fields)
		for i := range fields {
			if v, ok := filled[fields[i].Name]; ok {
				fields[i].Default = v
			}
		}
	}
	o := DisplayFormOptions{Title: s.c.message, Subtitle: ProblemMessage(s.c.all, problems)}
	content, err := formView(fields, r.req.Params.Name, &o)
	if err != nil {
		return nil, err
	}
	args := r.sendBack(token)
	submitTo(content, args)
	url := ""
	if len(s.c.secrets) > 0 {
		p, err := r.pageRequest(s, problems)
		if err != nil {
			return nil, err
		}
		url = p.URL
		content.Children = append(content.Children, linkNode(p))
	}
	text := fmt.Sprintf("The person is shown the form %q in the app's view and answers there; the view calls %s again itself.", s.c.message, r.req.Params.Name)
	return viewResult(content, url, args, text), nil
}

// linkView returns the view that links to s's secret page, with a button
// that calls the tool again once the page is sent.
func (r *round) linkView(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	p, err := r.pageRequest(s, problems)
	if err != nil {
		return nil, err
	}
	args := r.sendBack(token)
	form := &node{Type: "Form", OnSubmit: &action{Action: "toolCall", Tool: r.req.Params.Name, Arguments: args},
		Children: []*node{{Type: "Button", Label: "I have sent the page", Variant: "default", Size: "default", Disabled: boolPtr(false), Submit: true}}}
	content := &node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: []*node{
		{Type: "Heading", Content: s.c.message, Level: 1}, linkNode(p), form,
	}}
	submitTo(content, args)
	text := "The app's view gives the person this link, where they type what is asked straight to the server: " + p.URL
	return viewResult(content, p.URL, args, text), nil
}

// linkNode shows a secret page's message and link.
func linkNode(p *mcp.ElicitParams) *node {
	return &node{Type: "Column", CSSClass: "gap-2", Children: []*node{
		{Type: "Muted", Content: p.Message},
		{Type: "Link", Content: p.URL, Href: p.URL, Target: "_blank"},
	}}
}

// submitTo makes the form in view call the tool with args besides its
// fields, keep the result under outcomeKey, and show no toast on success,
// which the renderer would show for an error too.
func submitTo(view *node, args map[string]any) {
	var walk func(n *node)
	walk = func(n *node) {
		if n.Type == "Form" && n.OnSubmit != nil {
			a := n.OnSubmit
			for k, v := range args {
				a.Arguments[k] = v
			}
			a.ResultKey, a.OnSuccess = outcomeKey, nil
			if a.OnError == nil {
				a.OnError = &action{Action: "showToast", Message: defaultErrorMessage, Variant: "error"}
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(view)
}

// viewResult wraps content in the view that shows the outcome once the
// tool has answered for the last time, and content until then.
func viewResult(content *node, url string, args map[string]any, text string) *mcp.CallToolResult {
	root := &node{Type: "Div", CSSClass: "pf-app-root", Children: []*node{
		{Type: "If", Condition: outcomeKey, Children: []*node{{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: []*node{
			{Type: "Text", Content: "{{ " + outcomeKey + ".content.0.text }}"},
		}}}},
		{Type: "Else", Children: []*node{content}},
	}}
	w := &viewWire{Prefab: prefabVersion{prefabProtocol}, View: root, State: map[string]any{outcomeKey: nil}, URL: url, Arguments: args}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: w}
}
