package mcpform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

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
	tool string        // the tool it submits to
	pos  stepPos       // the step's place, which its words depend on
	tmpl *viewTemplate // a plain view's template, for the rounds that fill it
	// segs are the view's JSON in order, a nil one standing where the
	// arguments go; a filled template's share its pieces (viewtemplate.go).
	segs  [][]byte
	text  string
	notes map[string]any // the _meta noting a re-ask's problems; nil for none
}

// result returns the view's result, its submit and the wire's arguments
// being args. The view is spliced when go-sdk encodes the result, not
// before: encoding copies it anyway.
func (v *builtView) result(args json.RawMessage) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v.text}}, StructuredContent: &viewContent{v, args},
		Meta: v.notes} // as a native re-ask notes them
}

// viewContent is a view's structuredContent: the view, spliced with the
// arguments when it is encoded.
type viewContent struct {
	v    *builtView
	args json.RawMessage
}

// MarshalJSON writes the view's wire object with its arguments.
func (c *viewContent) MarshalJSON() ([]byte, error) {
	inner := c.args[1 : len(c.args)-1]
	n := len(c.args) + 16
	for _, s := range c.v.segs {
		if s == nil {
			n += len(inner)
		}
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, s := range c.v.segs {
		if s == nil {
			s = inner
		}
		b = append(b, s...)
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

// The classes the viewer's script (viewerScript) finds its elements by.
const (
	// outcomeClass marks the element of a view that shows the text of the
	// tool's final result, for the viewer's script to tell the model.
	outcomeClass = "mcpform-outcome"
	// outcomeModelClass marks the hidden element that holds the result's
	// second text block, which is for the model alone.
	outcomeModelClass = "mcpform-outcome-model"
	// outcomePanelClass marks the outcome's panel: a status, focused.
	outcomePanelClass = "mcpform-outcome-panel"
	// summaryClass marks the error summary, focused after a re-ask.
	summaryClass = "mcpform-problems"
	// openLinkClass marks the link that the host opens (ui/open-link).
	openLinkClass = "mcpform-open-link"
	// copyLinkClass marks the button that copies that link.
	copyLinkClass = "mcpform-copy-link"
	// copiedClass marks the status said once the link is copied.
	copiedClass = "mcpform-copied"
	// langClass, followed by a language code, marks a view's root in
	// that language; the viewer's script sets the page's lang from it,
	// since prefab 0.3.13 passes no lang attribute through. English, the
	// viewer page's own lang, goes unmarked.
	langClass = "mcpform-lang-"
)

// langClasses are the classes added to a view's root in each language.
var langClasses = func() (c [langCount]string) {
	for l := langEN + 1; l < langCount; l++ {
		c[l] = " " + langClass + langCodes[l]
	}
	return c
}()

// buildView returns content as a flow view submitting to tool, with state
// as the renderer's state: the fields' values to show, besides the
// outcome, cleared.
func buildView(content *node, tool, url, text string, state map[string]any, t *viewText) (*builtView, error) {
	w := viewWireOf(content, tool, url, state, t)
	b, err := appendViewWire(make([]byte, 0, 4096), w)
	if viewJSONCheck != nil {
		viewJSONCheck(w, b, err)
	}
	if err != nil {
		return nil, fmt.Errorf("mcpform: encoding the view: %w", err)
	}
	parts := bytes.Split(b[:len(b)-1], []byte(argsSlotJSON))
	if len(parts) < 2 {
		return nil, errors.New("mcpform: the view has no submit") // built here: cannot happen
	}
	segs := make([][]byte, 0, 2*len(parts)-1)
	for i, p := range parts {
		if i > 0 {
			segs = append(segs, nil)
		}
		segs = append(segs, p)
	}
	return &builtView{tool: tool, segs: segs, text: text}, nil
}

// viewWireOf returns the wire object of the view of content: a result
// with no view of its own replaces content with the outcome's panel: a
// heading, the text of its first block for the person, and its second
// block, if any, hidden, for the model alone.
func viewWireOf(content *node, tool, url string, state map[string]any, t *viewText) *viewWire {
	submitTo(content, tool)
	if state == nil {
		state = map[string]any{}
	}
	state[outcomeKey] = nil
	return &viewWire{Prefab: prefabVersion{prefabProtocol}, View: viewRoot(content, t), State: state, URL: url}
}

// viewRoot is the root of every flow view: the outcome's panel once there
// is an outcome, content until then.
func viewRoot(content *node, t *viewText) *node {
	panel := &node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-3 " + outcomePanelClass, Children: []*node{
		{Type: "If", Condition: outcomeKey + ".isError", Children: []*node{{Type: "Heading", Content: t.NotDone, Level: 1}}},
		{Type: "Else", Children: []*node{{Type: "Heading", Content: t.Done, Level: 1}}},
		{Type: "Text", CSSClass: outcomeClass, Content: "{{ " + outcomeKey + ".content.0.text }}"},
		{Type: "If", Condition: outcomeKey + ".content.1.text", Children: []*node{
			{Type: "Text", CSSClass: "hidden " + outcomeModelClass, Content: "{{ " + outcomeKey + ".content.1.text }}"}}},
	}}
	return &node{Type: "Div", CSSClass: "pf-app-root" + langClasses[t.l], Children: []*node{
		{Type: "If", Condition: outcomeKey, Children: []*node{panel}},
		{Type: "Else", Children: []*node{content}},
	}}
}

// stepView returns the view that asks s's form fields, never its secrets,
// naming problems and pre-filling filled. A secret step's view links to
// its page too. The plain view of each step is built once per tool.
func (r *round) stepView(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	if s.c.ui != nil {
		return nil, fmt.Errorf("mcpform: flow step %q cannot be shown in an MCP Apps view: %w", s.c.key, s.c.ui)
	}
	var page *mcp.ElicitParams
	if len(s.c.secrets) > 0 {
		var err error
		if page, err = r.pageRequest(s, problems); err != nil {
			return nil, err
		}
	}
	v, err := s.c.view(r.tool, r.position(s), filled, problems, page)
	if err != nil {
		return nil, err
	}
	return v.result(r.sendBack(token)), nil
}

// linkView returns the view that sends the person to s's secret page, a
// step with no form fields: the page first, then a button that calls the
// tool again once the page is sent, and one to decline.
func (r *round) linkView(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	p, err := r.pageRequest(s, problems)
	if err != nil {
		return nil, err
	}
	v, err := s.c.view(r.tool, r.position(s), nil, problems, p)
	if err != nil {
		return nil, err
	}
	res := v.result(r.sendBack(token))
	res.Meta = p.Meta // the page's problem notes
	return res, nil
}

// readView judges the answer to s that a view's submit sent through the
// companion tool: s's fields among the arguments, made typed as a browser
// sends them (see [AcceptedFormArguments]).
func (r *round) readView(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	content := r.args.answersFor(s.c)
	if content == nil {
		return ReplyNone, nil, nil
	}
	return s.c.judgeContent(s.c.normalizeArguments(content), true) // read from this call's arguments
}

// A stepPos is where a step stands in its flow, as its view says it.
type stepPos struct {
	n, total int    // "Step n of total", shown when total > 1
	submit   string // the submit's label; "" for the default
	last     bool   // no step follows
}

// position returns where s stands: after the earlier steps that were
// asked, before every later one, which may yet be asked.
func (r *round) position(s *flowStep) stepPos {
	steps := r.flow.steps
	i := 0
	for i < len(steps)-1 && steps[i].c != s.c {
		i++
	}
	pos := stepPos{n: 1, submit: s.submit, last: i == len(steps)-1}
	for j := range i {
		if steps[j].when == nil || steps[j].when(r.st.Proven) {
			pos.n++
		}
	}
	pos.total = pos.n + len(steps) - 1 - i
	return pos
}

// view returns c's view at pos submitting to tool, naming problems,
// pre-filling filled and linking to page. The plain one, with none of
// these, is built once and kept, with its template (viewtemplate.go),
// from which a view with no page is filled.
func (c *compiled) view(tool string, pos stepPos, filled Answers, problems []*FieldError, page *mcp.ElicitParams) (*builtView, error) {
	t := viewTexts[c.lang]
	if page == nil && len(c.fields) > 0 {
		// A form may be a step of two flows, in two places: the place is
		// part of what is kept.
		v := c.plainView.Load()
		if v == nil || v.tool != tool || v.pos != pos {
			if v = c.plain(tool, pos, t); v == nil {
				return c.viewOf(tool, pos, filled, problems, page, t)
			}
		}
		if len(filled) == 0 && len(problems) == 0 {
			return v, nil
		}
		return v.tmpl.fill(c, tool, pos, filled, problems, t)
	}
	return c.viewOf(tool, pos, filled, problems, page, t)
}

// plain builds, keeps and returns c's plain view at pos submitting to
// tool, with its template; nil when the template cannot be built, which
// a default JSON cannot hold causes: the nodes then say why.
func (c *compiled) plain(tool string, pos stepPos, t *viewText) *builtView {
	tp, err := c.viewTemplate(tool, pos, t)
	if err != nil {
		return nil
	}
	v, err := tp.fill(c, tool, pos, nil, nil, t)
	if err != nil {
		return nil
	}
	v.tmpl = tp
	c.plainView.Store(v) // a race builds two equal views; one is kept
	return v
}

// viewOf builds c's view from its nodes.
func (c *compiled) viewOf(tool string, pos stepPos, filled Answers, problems []*FieldError, page *mcp.ElicitParams, t *viewText) (*builtView, error) {
	content, state, err := c.stepContent(pos, filled, problems, page, t)
	if err != nil {
		return nil, err
	}
	url, text := "", fillText(t.ModelForm, "form", strconv.Quote(c.message))
	if page != nil {
		url = page.URL
	}
	if len(c.fields) == 0 {
		text = fillText(t.ModelLink, "url", page.URL)
	}
	text, notes := c.withProblemsNoted(text, problems) // the model reads what the person is asked to fix
	v, err := buildView(content, tool, url, text, state, t)
	if err != nil {
		return nil, err
	}
	v.pos, v.notes = pos, notes
	return v, nil
}
