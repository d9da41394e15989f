package mcpformtest

import (
	"context"
	"encoding/json"
	"regexp"
)

// An MCP Apps view is a prefab tree in the result's structuredContent. The
// renderer, in the host's frame, shows its controls and, on submit, runs
// the form's toolCall action: a tools/call, through the host's AppBridge,
// of the tool the action names (mcpform's app-only companion) with the
// action's arguments, each "{{ name }}" template filled with the
// control's value. The fake host does the same with the answer's values,
// and reads and writes numbers as JavaScript does: each a double.

// viewNode is what the host reads of a prefab node.
type viewNode struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Label     string          `json:"label"`
	Content   string          `json:"content"`
	Value     json.RawMessage `json:"value"`
	OnSubmit  *viewAction     `json:"onSubmit"`
	OnClick   *viewAction     `json:"onClick"`
	Children  []*viewNode     `json:"children"`
	Condition string          `json:"condition"`
	Level     int             `json:"level"`
	CSSClass  string          `json:"cssClass"`
}

type viewAction struct {
	Action    string                     `json:"action"`
	Tool      string                     `json:"tool"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

// shownView is what the person sees of a view, and what it can send.
type shownView struct {
	round    *Round
	controls map[string]*viewNode
	submit   *viewAction // the form's
	decline  *viewAction // a button's, beside the submit
}

// walk reads n into v, skipping If branches, which a view shows only
// once their condition holds: the views of earlier releases kept their
// outcome under one.
func (v *shownView) walk(n *viewNode) {
	if n == nil || n.Type == "If" {
		return
	}
	switch {
	case n.Type == "Heading" && n.Level <= 1 && v.round.Message == "": // the error summary's is an h2
		v.round.Message = n.Content
	case n.Type == "Field":
		// A field the view marks as refused holds its control and a
		// FieldError beside it, or a span of its class (mcpform's, whose
		// "Error:" is hidden from the eye).
		name, refused := "", false
		for _, c := range n.Children {
			switch {
			case c.Type == "FieldError" || c.Type == "Span" && c.CSSClass == "pf-field-error":
				refused = true
			case c.Name != "" && name == "":
				name = c.Name
			}
		}
		if refused && name != "" {
			v.round.Fields = append(v.round.Fields, name)
		}
	case n.Name != "":
		v.controls[n.Name] = n
		v.round.Questions = append(v.round.Questions, Question{Name: n.Name, Label: n.Label, Default: v.initial(n.Name)})
	}
	if n.OnSubmit != nil && n.OnSubmit.Action == "toolCall" && v.submit == nil {
		v.submit = n.OnSubmit
	}
	if n.OnClick != nil && n.OnClick.Action == "toolCall" && v.decline == nil {
		v.decline = n.OnClick
	}
	for _, c := range n.Children {
		v.walk(c)
	}
}

// view fills and submits an MCP Apps view as the person in it would: it
// posts the page the view links to, then presses the form's submit or,
// for a decline, the button beside it. A cancel closes the view.
func (c *Client) view(ctx context.Context, r *toolResult, a Answer) (Round, map[string]any) {
	c.t.Helper()
	var w struct {
		View *viewNode `json:"view"`
		URL  string    `json:"url"`
	}
	if err := json.Unmarshal(r.StructuredContent, &w); err != nil {
		c.t.Fatalf("mcpformtest: reading the view: %v", err)
	}
	round := Round{Path: PathView, Link: w.URL}
	v := &shownView{round: &round, controls: map[string]*viewNode{}}
	v.walk(w.View)
	// The view shows each problem at its field, in words for the person;
	// the result's notes name them as every other path's do.
	for _, n := range r.Meta.Problems {
		round.Problems = append(round.Problems, n.Problem)
	}
	if w.URL != "" {
		c.page(ctx, &round, a)
	}
	act := v.submit
	switch a.action() {
	case "cancel":
		return round, nil
	case "decline":
		act = v.decline
	}
	if act == nil {
		c.t.Fatalf("mcpformtest: the view has no button to %s", a.action())
	}
	args := map[string]any{}
	for k, raw := range act.Arguments {
		if val, ok := v.fill(raw, a.Values); ok {
			args[k] = val
		}
	}
	args, err := asJavaScript(args)
	if err != nil {
		c.t.Fatalf("mcpformtest: the view's arguments: %v", err)
	}
	return round, map[string]any{"name": act.Tool, "arguments": args}
}

// asJavaScript returns args as a host's JavaScript sends them, the
// renderer's object through JSON.stringify and the host's JSON.parse: each
// number a double. encoding/json reads a JSON number into an any as a
// float64, rounding it as JSON.parse does, and writes a float64 as
// JSON.stringify does (the shortest digits that read back; a whole number
// below 1e21 without exponent), so a number no double holds, such as
// 9007199254740993, comes back rounded, as from every real host.
func asJavaScript(args map[string]any) (map[string]any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

// Templates of a toolCall's arguments, as mcpform writes them: a
// control's value, and a checkbox's.
var (
	valueTemplate   = regexp.MustCompile(`^\{\{ *(\w+) *\}\}$`)
	checkedTemplate = regexp.MustCompile(`^\{\{ *'on' *== *(\w+) *\}\}$`)
)

// fill returns the argument raw with its template filled from values, or
// from the control's own value; false leaves the argument out, as a
// template of nothing is.
func (v *shownView) fill(raw json.RawMessage, values map[string]any) (any, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if m := checkedTemplate.FindStringSubmatch(s); m != nil {
			val, ok := values[m[1]]
			if !ok {
				val = v.initial(m[1])
			}
			return val == true || val == "on", true
		}
		if m := valueTemplate.FindStringSubmatch(s); m != nil {
			if val, ok := values[m[1]]; ok {
				return val, true
			}
			val := v.initial(m[1])
			return val, val != nil
		}
	}
	var val any
	json.Unmarshal(raw, &val) // as the renderer's JSON.parse reads the view
	return val, true
}

// initial is the value the control name shows before the person types.
func (v *shownView) initial(name string) any {
	n := v.controls[name]
	if n == nil || n.Value == nil {
		return nil
	}
	var val any
	json.Unmarshal(n.Value, &val)
	return val
}
