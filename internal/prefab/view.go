package prefab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpform/mcpform/internal/canonjson"
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
//   - A result that holds no view changes the store alone, and nothing
//     the person sees. So the tool's last result, whatever it says
//     (created, already registered, declined), comes back from the
//     companion as a view too, Ended's: the outcome's panel, with the
//     result under OutcomeKey in its state, and each step's view clears
//     that key in its own. A step view carries no panel it shows only at
//     the end.
//
// The outcome a view shows reaches the model through the host: the model
// never sees the companion's result, so the viewer's own script (viewer.js)
// sends the text of the element of class OutcomeClass to the host as
// ui/update-model-context, which MCP Apps hosts add to the model's context.
// prefab 0.3.13 has no action that does it: its updateContext action only
// merges the renderer's own state, and its sendMessage sends ui/message with
// content as one object, which ext-apps' AppBridge 2.0.4 refuses ("expected
// array").

// wireVersion is the $prefab member of a wire object.
type wireVersion struct {
	Version string `json:"version"`
}

// stepWire is a flow view's structuredContent: the $prefab wire object,
// and the contract fields the other paths carry too.
type stepWire struct {
	Prefab    wireVersion     `json:"$prefab"`
	View      *Node           `json:"view"`
	State     map[string]any  `json:"state"`
	URL       string          `json:"url,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
}

// View returns the JSON of s's view in t's words: a flow view's
// structuredContent. Its submit and its Decline button call s.Tool through
// CompanionTool with s's arguments (see [Step.Rest]) besides their own,
// keep the result under OutcomeKey, and show no toast on success, which
// the renderer would show for an error too. A result that is no view, the
// tool's last, comes back as the view [Ended] makes of it.
func View(s *Step, t *Text) ([]byte, error) {
	content, err := s.content(t)
	if err != nil {
		return nil, err
	}
	back := map[string]any{s.StateKey: s.State}
	var rest string
	if len(s.Rest) > 0 {
		rest = "{" + string(s.Rest) + "}"
		back[ArgumentsArgument] = rest
	}
	submitTo(content, s.Tool, back)
	root := &Node{Type: "Div", CSSClass: viewIn(t).rootClass, Children: []*Node{content}}
	w := stepWire{Prefab: wireVersion{Version}, View: root, State: s.state(), Arguments: packArguments(rest, s.StateKey, s.State)}
	if s.Page != nil {
		w.URL = s.Page.URL
	}
	return json.Marshal(&w)
}

// HoldsView reports whether result, the JSON of a tool result, holds a
// view the renderer mounts: as prefab 0.3.13's renderer finds one
// (dist/renderer/actions.js, extractPrefabPayload), an object with $prefab
// and view as its structuredContent or as the JSON of a text block.
func HoldsView(result []byte) bool {
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil {
		return false
	}
	if isView([]byte(r.StructuredContent)) {
		return true
	}
	for _, c := range r.Content {
		if c.Type == "text" && isView([]byte(c.Text)) {
			return true
		}
	}
	return false
}

// isView reports whether b is a JSON object with $prefab and view.
func isView(b []byte) bool {
	var w map[string]json.RawMessage
	if json.Unmarshal(b, &w) != nil {
		return false
	}
	_, prefab := w["$prefab"]
	_, view := w["view"]
	return prefab && view
}

// endedWire is the view of a tool's last result, which is no view.
type endedWire struct {
	Prefab wireVersion                `json:"$prefab"`
	View   *Node                      `json:"view"`
	State  map[string]json.RawMessage `json:"state"`
}

// Ended returns the JSON of the view, in t's words, that shows result,
// the JSON of a tool's last result, which is no view: the structuredContent
// the companion gives such a result of a view's submit, so that the
// renderer, which remounts on a result that holds a view, shows the
// outcome's panel in place of the form. The result is the view's state
// under OutcomeKey, which the panel reads. Under a result that did not
// complete, a button starts again: it calls tool through the companion
// with back, a step view's own arguments, and RestartAction; empty tool
// offers none. A nil result leaves the state empty.
func Ended(t *Text, result json.RawMessage, tool string, back map[string]any) ([]byte, error) {
	lv := viewIn(t)
	children := []*Node{lv.panel}
	if tool != "" {
		children = append(children, againNode(t, tool, back))
	}
	state := map[string]json.RawMessage{}
	if result != nil {
		state[OutcomeKey] = result
	}
	return json.Marshal(&endedWire{Prefab: wireVersion{Version},
		View: &Node{Type: "Div", CSSClass: lv.rootClass, Children: children}, State: state})
}

// A langView is what every flow view in one language shows alike, built
// once per language and only read after.
type langView struct {
	rootClass string // the root's class
	panel     *Node  // the outcome's panel
	errorLead *Node  // what starts each problem under a field (errorNode)
}

// langViews are the langViews built, by their Text.
var langViews sync.Map // *Text → *langView

// viewIn returns t's langView.
func viewIn(t *Text) *langView {
	if lv, ok := langViews.Load(t); ok {
		return lv.(*langView)
	}
	lv := &langView{rootClass: rootClass(t), panel: newPanel(t),
		errorLead: &Node{Type: "Span", CSSClass: HiddenClass, Children: []*Node{{Type: "Text", Content: t.ErrorPrefix}}}}
	langViews.Store(t, lv) // a race builds two equal ones; one is kept
	return lv
}

// againNode is the way to start again that the view of an outcome that
// did not complete (notDone) offers: a declined run, or one the author
// says did not do what it was for, may be started afresh without leaving
// the frame. Its button calls tool through the companion, as submitTo
// makes Decline do, with back and RestartAction, which begins a new run
// in the language of the state in back.
func againNode(t *Text, tool string, back map[string]any) *Node {
	args := make(map[string]any, len(back)+2)
	for k, v := range back {
		args[k] = v
	}
	args[ActionArgument], args[ToolArgument] = RestartAction, tool
	restart := &Action{Action: "toolCall", Tool: CompanionTool, Arguments: args, ResultKey: OutcomeKey,
		OnError: &Action{Action: "showToast", Message: DefaultErrorMessage, Variant: "error"}}
	return &Node{Type: "If", Condition: notDone, Children: []*Node{
		{Type: "Row", CSSClass: "px-6 pb-6 max-w-2xl", Children: []*Node{
			{Type: "Button", Label: t.StartAgain, Variant: "outline", Size: "default", OnClick: restart}}}}}
}

// rootClass is the class of a view's root in t's language.
func rootClass(t *Text) string {
	if t.Lang == "" {
		return "pf-app-root"
	}
	return "pf-app-root " + LangClass + t.Lang
}

// notDone is the condition of a result that did not complete: one its
// structuredContent's status says was declined or cancelled, and else
// one that is an error.
const notDone = "{{ " + OutcomeKey + ".isError || " + OutcomeKey + ".structuredContent.status == 'declined' || " +
	OutcomeKey + ".structuredContent.status == 'cancelled' || " +
	OutcomeKey + ".structuredContent." + OutcomeEndMember + " == '" + EndNotCompleted + "' }}"

// The members an outcome built for a person (see OutcomeData) adds to
// its structuredContent, which the outcome's panel reads.
const (
	OutcomeHeadingMember = "mcpformHeading" // the heading, in the person's words
	OutcomeSummaryMember = "mcpformSummary" // a short list, one string each
	OutcomeEndMember     = "mcpformEnd"     // EndCompleted or EndNotCompleted
	EndCompleted         = "completed"
	EndNotCompleted      = "not-completed"
)

// newPanel builds the outcome's panel: a heading, the author's, or else
// "not completed" for a result that did not complete (notDone); the
// author's summary, one line each; the text of the result's first block
// for the person, shown when there is no author's heading, which that
// text repeats; and its second block, if any, hidden, for the model alone.
func newPanel(t *Text) *Node {
	sc := OutcomeKey + ".structuredContent."
	children := []*Node{
		{Type: "If", Condition: "{{ " + sc + OutcomeHeadingMember + " }}", Children: []*Node{
			{Type: "Heading", Content: "{{ " + sc + OutcomeHeadingMember + " }}", Level: 1},
			{Type: "ForEach", Expression: "{{ " + sc + OutcomeSummaryMember + " }}", Children: []*Node{
				{Type: "Text", Content: "{{ $item }}"}}},
			{Type: "Text", CSSClass: "hidden " + OutcomeClass, Content: "{{ " + OutcomeKey + ".content.0.text }}"},
		}},
		{Type: "Else", Children: []*Node{
			{Type: "If", Condition: notDone, Children: []*Node{{Type: "Heading", Content: t.NotDone, Level: 1}}},
			{Type: "Else", Children: []*Node{{Type: "Heading", Content: t.Done, Level: 1}}},
			{Type: "Text", CSSClass: OutcomeClass, Content: "{{ " + OutcomeKey + ".content.0.text }}"},
		}},
		{Type: "If", Condition: OutcomeKey + ".content.1.text", Children: []*Node{
			{Type: "Text", CSSClass: "hidden " + OutcomeModelClass, Content: "{{ " + OutcomeKey + ".content.1.text }}"}}},
	}
	return &Node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-3 " + OutcomePanelClass, Children: children}
}

// OutcomeData returns data, the JSON of a tool result's structuredContent
// (an object, or empty or null for none), with the members the outcome's
// panel reads after its own: heading, summary, and whether the run
// completed. Data's members keep their order; one of the same name as
// the panel's is replaced. It returns an error when data is not a JSON
// object, and when it says two things, with a key given twice, invalid
// UTF-8 or a lone surrogate escape, which readers would read apart.
func OutcomeData(data json.RawMessage, heading string, summary []string, completed bool) (json.RawMessage, error) {
	out := make([]byte, 0, len(data)+len(heading)+128)
	out = append(out, '{')
	if t := bytes.TrimSpace(data); len(t) > 0 && string(t) != "null" {
		if !json.Valid(t) || !canonjson.EachMember(t, func(k, v []byte) {
			if !isOutcomeMember(k) {
				out = append(append(append(out, k...), ':'), v...)
				out = append(out, ',')
			}
		}) {
			return nil, errors.New("an outcome's data is not a JSON object")
		}
		if err := canonjson.Check(t); err != nil {
			return nil, fmt.Errorf("an outcome's data says two things: %w", err)
		}
	}
	end := EndNotCompleted
	if completed {
		end = EndCompleted
	}
	if summary == nil {
		summary = []string{}
	}
	out = appendMember(out, OutcomeHeadingMember, heading)
	out = append(appendMember(append(out, ','), OutcomeSummaryMember, summary), ',')
	return append(appendMember(out, OutcomeEndMember, end), '}'), nil
}

// appendMember appends the member name: v, v being strings or a string.
func appendMember(out []byte, name string, v any) []byte {
	b, _ := json.Marshal(v) // strings always marshal
	return append(append(out, `"`+name+`":`...), b...)
}

// isOutcomeMember reports whether the key k, as written with its quotes,
// names a member OutcomeData writes, once unescaped.
func isOutcomeMember(k []byte) bool {
	name := string(k[1 : len(k)-1])
	if bytes.IndexByte(k, '\\') >= 0 {
		if json.Unmarshal(k, &name) != nil {
			return false
		}
	}
	return name == OutcomeHeadingMember || name == OutcomeSummaryMember || name == OutcomeEndMember
}

// Outcome returns the JSON of the view, in t's words, that shows a tool's
// final result when the result is no view: a host that answered the
// tool's questions itself, in its own dialog, gives the viewer only that
// result. It is Ended's view without a result and without Start again: the
// viewer's script puts the result under OutcomeKey before it renders it.
func Outcome(t *Text) ([]byte, error) { return Ended(t, nil, "", nil) }

// submitTo makes the form in n, and its Decline button, call tool through
// the app-only companion with back besides their own arguments, which win.
func submitTo(n *Node, tool string, back map[string]any) {
	for _, a := range [...]*Action{n.OnSubmit, n.OnClick} {
		if a == nil || a.Action != "toolCall" {
			continue
		}
		a.Tool, a.Arguments[ToolArgument] = CompanionTool, tool
		for k, v := range back {
			if _, own := a.Arguments[k]; !own {
				a.Arguments[k] = v
			}
		}
		a.ResultKey, a.OnSuccess = OutcomeKey, nil
		if a.OnError == nil {
			a.OnError = &Action{Action: "showToast", Message: DefaultErrorMessage, Variant: "error"}
		}
	}
	for _, c := range n.Children {
		submitTo(c, tool, back)
	}
}
