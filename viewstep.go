package mcpform

import (
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A flow step's view, top to bottom: the error summary after a re-ask,
// where the step stands ("Step 1 of 2"), the step's message, for a secret
// step the page to open first, then the form: each field with what it
// says and its problem, the submit, and Decline beside it.

// stepContent returns the content of c's view at pos, and the renderer
// state that fills its fields: their defaults and filled on a first ask,
// filled alone on a re-ask, whose refused values stay as the person typed
// them (a submit keeps them in the renderer's state).
func (c *compiled) stepContent(pos stepPos, filled Answers, problems []*FieldError, page *mcp.ElicitParams, t *viewText) (*node, map[string]any, error) {
	fields := c.fields
	if len(filled) > 0 {
		fields = cloneFields(fields)
		for i := range fields {
			if v, ok := filled[fields[i].Name]; ok {
				fields[i].Default = v
			}
		}
	}
	said, atField := c.problemTexts(problems, t)
	controls := make([]*node, len(fields))
	errs := make([]*node, len(fields))
	for i := range fields {
		f := &fields[i]
		n, err := fieldControl(f, t)
		if err != nil {
			return nil, nil, err
		}
		controls[i] = n
		if p := atField[f.Name]; p != "" {
			errs[i] = &node{Type: "FieldError", Content: p}
		}
	}
	var summary *node
	if len(said) > 0 {
		summary = summaryNode(said, t)
	}
	return c.stepTree(pos, fields, controls, errs, summary, page, t), viewState(fields, filled, len(problems) > 0), nil
}

// viewState is the renderer state that fills fields: each one filled,
// and when there are no problems each one's default.
func viewState(fields []AutoFormField, filled Answers, problems bool) map[string]any {
	state := make(map[string]any, len(fields)+1)
	for i := range fields {
		f := &fields[i]
		if _, ok := filled[f.Name]; ok || (!problems && f.Default != nil) {
			state[f.Name] = f.Default
		}
	}
	return state
}

// stepTree returns the content of c's view at pos: summary first, when
// not nil, then each of fields with its control and, when not nil, its
// problem, from controls and errs.
func (c *compiled) stepTree(pos stepPos, fields []AutoFormField, controls, errs []*node, summary *node, page *mcp.ElicitParams, t *viewText) *node {
	var children []*node
	if summary != nil {
		children = append(children, summary)
	}
	if pos.total > 1 {
		children = append(children, &node{Type: "Muted", Content: fillText(t.StepOf,
			"step", strconv.Itoa(pos.n), "total", strconv.Itoa(pos.total))})
	}
	children = append(children, &node{Type: "Heading", Content: c.message, Level: 1})
	label := pos.submit
	if page != nil {
		children = append(children, pageSteps(page, c.secrets, len(fields) > 0, t)...)
		if label == "" {
			label = t.PageSent
		}
	}
	if label == "" {
		label = t.Continue
		if pos.last {
			label = t.Finish
		}
	}
	nodes := make([]*node, len(fields), len(fields)+1)
	for i := range fields {
		nodes[i] = fieldNode(&fields[i], controls[i], errs[i], t)
	}
	children = append(children, &node{Type: "Card", Children: []*node{
		{Type: "CardContent", CSSClass: "py-4", Children: []*node{formNode(fields, nodes, label, t)}},
	}})
	return &node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: children}
}

// problemTexts says how to fix each of problems, in order, for the
// summary, and the first of each field's, for the field.
func (c *compiled) problemTexts(problems []*FieldError, t *viewText) (said []string, atField map[string]string) {
	atField = make(map[string]string, len(problems))
	own := c.ownWords()
	for _, p := range problems {
		if errors.Is(p.Err, ErrUnknownField) {
			continue
		}
		var f *AutoFormField
		if i := fieldIndex(c.all, p.Field); i >= 0 {
			f = &c.all[i]
		}
		msg := t.fixOwn(f, p, c.secrets, own)
		said = append(said, msg)
		if _, ok := atField[p.Field]; !ok {
			atField[p.Field] = msg
		}
	}
	return said, atField
}

// summaryNode is the error summary: prefab's Alert, whose role is alert,
// titled, with what to fix, one line each.
func summaryNode(said []string, t *viewText) *node {
	n := &node{Type: "Alert", Variant: "destructive", CSSClass: summaryClass,
		Children: []*node{{Type: "AlertTitle", Content: t.ProblemTitle}}}
	for _, s := range said {
		n.Children = append(n.Children, &node{Type: "AlertDescription", Content: s})
	}
	return n
}

// pageSteps are a secret step's numbered steps: open the page, through
// the host, or copy its link; then come back. The link is never shown as
// text: it carries the page's token.
func pageSteps(p *mcp.ElicitParams, secrets []AutoFormField, withFields bool, t *viewText) []*node {
	open := t.PasswordPage
	for i := range secrets {
		if secrets[i].Type != TypePassword {
			open = t.PageButton
		}
	}
	back := t.ReturnOnly
	if withFields {
		back = t.ReturnStep
	}
	return []*node{
		{Type: "Text", Content: "1. " + fillText(t.PageStep, "fields", secretTitles(secrets, t.ListSep))},
		{Type: "Row", CSSClass: "flex flex-wrap gap-3", Children: []*node{
			{Type: "Link", CSSClass: openLinkClass, Content: open, Href: p.URL, Target: "_blank"},
			{Type: "Button", CSSClass: copyLinkClass, Label: t.CopyLink, Variant: "outline", Size: "default"},
		}},
		{Type: "Text", CSSClass: "hidden " + copiedClass, Content: t.Copied},
		{Type: "Text", Content: "2. " + back},
	}
}

// formNode is the form of controls, for fields, whose submit is labelled
// label, with Decline beside it; submitTo makes both call the tool. A
// view says no more than the renderer reads: its Button's variant is
// "default" unless set, and it is disabled only by disabled true (prefab
// 0.3.13, renderer.auto.min.js); every byte of a view is compacted twice
// as go-sdk encodes its result.
func formNode(fields []AutoFormField, controls []*node, label string, t *viewText) *node {
	submit := &action{Action: "toolCall", Arguments: make(map[string]any, len(fields)+3)}
	for i := range fields {
		submit.Arguments[fields[i].Name] = fields[i].argumentTemplate()
	}
	decline := &action{Action: "toolCall", Arguments: map[string]any{actionArgument: declineAction}}
	buttons := &node{Type: "Row", CSSClass: "flex flex-wrap gap-3", Children: []*node{
		{Type: "Button", Label: label, Size: "default", Submit: true},
		{Type: "Button", Label: t.Decline, Variant: "outline", Size: "default", OnClick: decline},
	}}
	return &node{Type: "Form", OnSubmit: submit, Children: []*node{
		{Type: "Column", CSSClass: "gap-4", Children: append(controls, buttons)}}}
}

// submitTo makes the form in view, and its Decline button, call tool
// through the app-only companion (see companion.go), with the arguments of
// argsSlot besides their own, keep the result under outcomeKey, and show
// no toast on success, which the renderer would show for an error too.
func submitTo(view *node, tool string) {
	for _, a := range [...]*action{view.OnSubmit, view.OnClick} {
		if a != nil && a.Action == "toolCall" {
			a.Tool, a.Arguments[toolArgument] = companionTool, tool
			keepOutcome(a)
		}
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
