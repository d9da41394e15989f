package prefab

import (
	"strconv"
	"strings"

	"github.com/mcpform/mcpform/internal/catalog"
)

// A Step is one round of a flow step, as its view shows it: where it
// stands, its fields with the values to show, and what to fix, already
// said as text by the caller.
//
// A step's view, top to bottom: the error summary after a re-ask, where the
// step stands ("Step 1 of 2"), the step's message, for a secret step the
// page to open first, then the form: each field with what it says and its
// problem, the submit, and Decline beside it.
type Step struct {
	Tool        string // the tool the view submits to, through CompanionTool
	Message     string // the step's heading
	MessageLang string // Message's language when not the view's; "" when it is

	N, Total int    // "Step N of Total", shown when Total > 1
	UpTo     bool   // Total counts steps that may be skipped: "Step N of up to Total"
	Submit   string // the submit's label; "" for Continue, or Finish when Last
	Last     bool   // no step is sure to follow: the submit may finish the flow
	// SubmitLang is Submit's language when not the view's, as when the
	// author gave no translation of it; "" when it is.
	SubmitLang string

	// Review lists, on the round that checks a flow's answers before it
	// ends, each step's answers, with a button that changes them. Send
	// holds the arguments the submit sends besides the fields': that the
	// answers are right.
	Review []Review
	Send   map[string]any

	Fields []Field
	// Filled are the values to show, by field name, in place of the
	// defaults.
	Filled map[string]any
	// Reask is set when the answer had problems: the fields not filled
	// then show no default.
	Reask bool
	// Summary says how to fix each problem, in order; Problems, by field
	// name, the one shown under the field.
	Summary  []Said
	Problems map[string]string
	// ProblemParts holds, by field name, the parts of its problem in
	// another language than the view's, as Said's Parts; nil for none.
	ProblemParts map[string][]Part

	// Page is the secret page a secret step sends the person to first;
	// nil for none.
	Page *Page

	// Rest holds the members of the tool's own arguments as JSON
	// (without braces; empty for none), and State the request state,
	// named StateKey: the submit and Decline send them back besides
	// their own arguments, as PackArguments packs them, which are the
	// view's own "arguments" too.
	Rest            []byte
	StateKey, State string
}

// A Review is one step's answers, as the round that checks them shows
// them: under the step's message, one line each, and a button that asks
// the step again.
type Review struct {
	Title  string
	Lines  []string
	Change string         // the button's label
	Send   map[string]any // what the button sends, besides the view's arguments

	// TitleLang is Title's language when not the view's; "" when it is.
	// LineParts, when not nil, holds the parts of each of Lines in
	// another language than the view's, and ChangeParts those of Change,
	// such as the author's words left untranslated in them.
	TitleLang   string
	LineParts   [][]Part
	ChangeParts []Part
}

// node is r as a view shows it.
func (r *Review) node() *Node {
	n := &Node{Type: "Column", CSSClass: "gap-1 " + ReviewClass, Children: []*Node{{Type: "Heading", Content: r.Title, Level: 2,
		CSSClass: inLang(r.TitleLang)}}}
	for i, line := range r.Lines {
		var class string
		if i < len(r.LineParts) {
			class = partClasses(line, r.LineParts[i])
		}
		n.Children = append(n.Children, &Node{Type: "Text", Content: line, CSSClass: class})
	}
	send := make(map[string]any, len(r.Send)+2)
	for k, v := range r.Send {
		send[k] = v
	}
	n.Children = append(n.Children, &Node{Type: "Row", Children: []*Node{{Type: "Button", Label: r.Change, Variant: "outline",
		Size: "default", OnClick: &Action{Action: "toolCall", Arguments: send}, CSSClass: partClasses(r.Change, r.ChangeParts)}}})
	return n
}

// A Part is a part of a text in another language than the view's, as the
// author's words left untranslated amid the view's own: the bytes of the
// text from At, for Len, are in Lang.
type Part struct {
	At, Len int
	Lang    string
}

// partClasses returns the classes that mark parts of text (LangPartClass
// "span-"), in UTF-16 code units as JavaScript counts them, or mark the
// element wholly ("in-") when a part is all of text; "" for none.
func partClasses(text string, parts []Part) string {
	if len(parts) == 0 {
		return ""
	}
	if len(parts) == 1 && parts[0].At == 0 && parts[0].Len == len(text) {
		return inLang(parts[0].Lang)
	}
	var b strings.Builder
	at, pos := 0, 0 // at in UTF-16 code units, at byte pos of text
	for _, p := range parts {
		if p.Lang == "" || p.At < pos || p.At+p.Len > len(text) {
			continue // none, or out of order: never a wrong mark
		}
		at += utf16Len(text[pos:p.At])
		n := utf16Len(text[p.At : p.At+p.Len])
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(LangPartClass + "span-" + strconv.Itoa(at) + "-" + strconv.Itoa(n) + "-" + p.Lang)
		at, pos = at+n, p.At+p.Len
	}
	return b.String()
}

// A Page is the secret page a step links to.
type Page struct {
	URL     string
	Secrets []Field // the fields it asks: their titles, and InputType "password" for passwords
}

// content returns the content of s's view, with the fields' controls
// showing their defaults, or s.Filled.
func (s *Step) content(t *Text) (*Node, error) {
	var children []*Node
	if len(s.Summary) > 0 {
		children = append(children, summaryNode(s.Summary, s.Fields, t))
	}
	if s.Total > 1 {
		of := t.StepOf
		if s.UpTo {
			of = t.StepOfUpTo
		}
		children = append(children, &Node{Type: "Muted", Content: catalog.Fill(of,
			"step", strconv.Itoa(s.N), "total", strconv.Itoa(s.Total))})
	}
	children = append(children, &Node{Type: "Heading", Content: s.Message, Level: 1, CSSClass: inLang(s.MessageLang)})
	for i := range s.Review {
		children = append(children, s.Review[i].node())
	}
	label := s.Submit
	if s.Page != nil {
		children = append(children, pageSteps(s.Page, len(s.Fields) > 0, t)...)
		if label == "" {
			label = t.PageSent
		}
	}
	if label == "" {
		label = t.Continue
		if s.Last {
			label = t.Finish
		}
	}
	fields := s.shown()
	nodes := make([]*Node, len(fields), len(fields)+1)
	for i := range fields {
		n, err := fieldNode(&fields[i], s.Problems[fields[i].Name], t)
		if err != nil {
			return nil, err
		}
		if parts := s.ProblemParts[fields[i].Name]; parts != nil && s.Problems[fields[i].Name] != "" {
			problem := n.Children[len(n.Children)-1].Children[1] // errorNode's text
			problem.CSSClass = partClasses(problem.Content, parts)
		}
		nodes[i] = n
	}
	form := formNode(fields, nodes, label, t)
	if s.SubmitLang != "" && label == s.Submit {
		buttons := form.Children[0].Children
		buttons[len(buttons)-1].Children[0].CSSClass = inLang(s.SubmitLang)
	}
	for k, v := range s.Send {
		form.OnSubmit.Arguments[k] = v
	}
	children = append(children, &Node{Type: "Card", Children: []*Node{
		{Type: "CardContent", CSSClass: "py-4", Children: []*Node{form}},
	}})
	return &Node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: children}, nil
}

// shown returns s's fields with the values they show as their defaults.
func (s *Step) shown() []Field {
	if len(s.Filled) == 0 {
		return s.Fields
	}
	fields := make([]Field, len(s.Fields))
	copy(fields, s.Fields)
	for i := range fields {
		if v, ok := s.Filled[fields[i].Name]; ok {
			fields[i].Default = v
		}
	}
	return fields
}

// state is the renderer state that fills s's fields: each one filled, and
// on a first ask each one's default; a re-ask's refused values stay as the
// person typed them (a submit keeps them in the renderer's state). The
// outcome is cleared.
func (s *Step) state() map[string]any {
	state := make(map[string]any, len(s.Fields)+1)
	for i := range s.Fields {
		f := &s.Fields[i]
		if v, ok := s.Filled[f.Name]; ok {
			state[f.Name] = v
		} else if !s.Reask && f.Default != nil {
			state[f.Name] = f.Default
		}
	}
	state[OutcomeKey] = nil
	return state
}

// A Said is one problem of the error summary: what to fix, and the name
// of the field it is at, whose control the summary links to; "" for a
// problem of no field shown, which is said without a link. Parts are the
// parts of Text in another language than the view's, such as a field's
// title left untranslated; nil for none.
type Said struct {
	Field string
	Text  string
	Parts []Part
}

// summaryNode is the error summary, as GOV.UK's: prefab's Alert, whose
// role is alert, titled by an h2 (prefab's AlertTitle is an h5, which
// would come before the page's h1), with what to fix, one line each, each
// a link to its field's control.
func summaryNode(said []Said, fields []Field, t *Text) *Node {
	n := &Node{Type: "Alert", Variant: "destructive", CSSClass: SummaryClass,
		Children: []*Node{{Type: "Heading", Content: t.ProblemTitle, Level: 2, CSSClass: "pf-alert-title"}}}
	for _, s := range said {
		var line *Node
		if i := fieldAt(fields, s.Field); i >= 0 {
			line = &Node{Type: "Link", Content: s.Text, Href: fields[i].partsIn(t).href}
		} else {
			line = &Node{Type: "Text", Content: s.Text}
		}
		if s.Parts != nil {
			line.CSSClass = partClasses(s.Text, s.Parts)
		}
		n.Children = append(n.Children, &Node{Type: "Div", CSSClass: "pf-alert-description", Children: []*Node{line}})
	}
	return n
}

// fieldAt returns the index of the field named name in fields, or -1.
func fieldAt(fields []Field, name string) int {
	if name == "" {
		return -1
	}
	for i := range fields {
		if fields[i].Name == name {
			return i
		}
	}
	return -1
}

// ControlID returns the id of f's control in a view: the one prefab
// 0.3.13's renderer gives an input, the viewer's script (viewer.js) a
// select or a slider, which prefab gives none, and Control a checkbox's
// label, which holds its box.
func ControlID(f *Field) string {
	switch f.Kind {
	case KindChoice, KindChoices:
		return "pf-select-" + f.Name
	case KindCheckbox:
		return "pf-checkbox-" + f.Name
	}
	return "pf-input-" + f.Name
}

// errorNode is a field's problem, as GOV.UK's inline error: prefab's
// FieldError holds text alone, so the problem is a span of its class, that
// starts with t.ErrorPrefix, visually hidden (HiddenClass).
func errorNode(problem string, t *Text) *Node {
	return &Node{Type: "Span", CSSClass: "pf-field-error", Children: []*Node{viewIn(t).errorLead, {Type: "Text", Content: problem}}}
}

// Titles lists the titles of fields, joined by sep.
func Titles(fields []Field, sep string) string {
	titles := make([]string, len(fields))
	for i := range fields {
		titles[i] = fields[i].Title
	}
	return strings.Join(titles, sep)
}

// pageSteps are a secret step's numbered steps: open the page, through the
// host, or copy its link; then come back. The link is never shown as text:
// it carries the page's token.
func pageSteps(p *Page, withFields bool, t *Text) []*Node {
	open := t.PasswordPage
	for i := range p.Secrets {
		if p.Secrets[i].InputType != "password" {
			open = t.PageButton
		}
	}
	back := t.ReturnOnly
	if withFields {
		back = t.ReturnStep
	}
	return []*Node{
		{Type: "Text", Content: "1. " + catalog.Fill(t.PageStep, "fields", Titles(p.Secrets, t.ListSep)), CSSClass: titleSpans(p.Secrets, "1. ", t)},
		{Type: "Row", CSSClass: "flex flex-wrap gap-3", Children: []*Node{
			{Type: "Link", CSSClass: OpenLinkClass, Content: open, Href: p.URL, Target: "_blank"},
			{Type: "Button", CSSClass: CopyLinkClass, Label: t.CopyLink, Variant: "outline", Size: "default"},
		}},
		{Type: "Text", CSSClass: "hidden " + CopiedClass, Content: t.Copied},
		{Type: "Text", Content: "2. " + back},
	}
}

// titleSpans returns the classes that mark, in the text "1. " and
// t.PageStep, which names the fields by title in place of {fields}, each
// title in another language than the view's; "" for none.
func titleSpans(fields []Field, lead string, t *Text) string {
	before, _, ok := strings.Cut(t.PageStep, "{fields}")
	if !ok {
		return ""
	}
	var b strings.Builder
	at := utf16Len(lead + before)
	for i := range fields {
		if i > 0 {
			at += utf16Len(t.ListSep)
		}
		n := utf16Len(fields[i].Title)
		if l := fields[i].TitleLang; l != "" {
			b.WriteString(" " + LangPartClass + "span-" + strconv.Itoa(at) + "-" + strconv.Itoa(n) + "-" + l)
		}
		at += n
	}
	return strings.TrimSpace(b.String())
}

// formNode is the form of controls, for fields, whose submit is labelled
// label, with Decline beside it; submitTo makes both call the tool. A view
// says no more than the renderer reads: its Button's variant is "default"
// unless set, and it is disabled only by disabled true (prefab 0.3.13,
// renderer.auto.min.js).
func formNode(fields []Field, controls []*Node, label string, t *Text) *Node {
	submit := &Action{Action: "toolCall", Arguments: make(map[string]any, len(fields)+3)}
	for i := range fields {
		submit.Arguments[fields[i].Name] = fields[i].partsIn(t).argument
	}
	decline := &Action{Action: "toolCall", Arguments: map[string]any{ActionArgument: DeclineAction}}
	buttons := &Node{Type: "Row", CSSClass: "flex flex-wrap gap-3", Children: []*Node{
		{Type: "Button", Label: label, Size: "default", Submit: true},
		{Type: "Button", Label: t.Decline, Variant: "outline", Size: "default", OnClick: decline},
	}}
	return &Node{Type: "Form", OnSubmit: submit, Children: []*Node{
		{Type: "Column", CSSClass: "gap-4", Children: append(controls, buttons)}}}
}
