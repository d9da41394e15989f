package prefab

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/mcpform/mcpform/internal/catalog"
)

// A Kind is what a field asks for, which decides its control.
type Kind uint8

const (
	KindText     Kind = iota // a string: an Input of its InputType
	KindNumber               // a number: an Input
	KindInteger              // a whole number: an Input
	KindRange                // a number between bounds: a Slider
	KindCheckbox             // a boolean: a Checkbox
	KindChoice               // one of the options: a Select
	KindChoices              // some of the options: a multiple Select
)

// An Option is one of a choice's options.
type Option struct {
	Value string
	Label string // empty means Value
	Lang  string // the language of the label when not the view's; "" when it is
}

// A Field is one field of a form as a view shows it, compiled by the caller
// from its own definition, already checked.
type Field struct {
	Name        string
	Title       string // what a person sees as the field's name
	Description string
	Placeholder string
	Kind        Kind
	InputType   string // the HTML input type of an Input
	Required    bool
	Options     []Option
	Min, Max    *float64
	// Default is the value the control shows; nil for none. Any value is
	// carried, as prefab's TypeScript does; one that JSON cannot hold is
	// a [*DefaultError].
	Default any
	// TitleLang and DescriptionLang are the languages of Title and
	// Description when they are not the view's, as when the author gave
	// no translation: a flow view marks them so (see LangPartClass); ""
	// when they are the view's.
	TitleLang, DescriptionLang string

	parts *fieldParts // see Prepare
}

// fieldParts are the parts of a field's Field in a flow view that every
// view in one language shows alike.
type fieldParts struct {
	t        *Text             // the words they are in
	label    string            // the control's label
	class    string            // the Field's classes
	hint     string            // the bounds, in words
	argument string            // argumentTemplate
	href     string            // a link to the control: "#" and ControlID
	options  []json.RawMessage // each option's value
}

// Prepare builds, once, what each of fields shows alike in every flow view
// in t's words: its label, classes, hint, and options' values, which a
// view then reads rather than builds each round. The fields are not to
// change after; copies of them keep what Prepare built. A field not
// prepared, or prepared for another Text, is built each time.
func Prepare(fields []Field, t *Text) {
	for i := range fields {
		fields[i].parts = newParts(&fields[i], t)
	}
}

// partsIn returns f's parts in t's words.
func (f *Field) partsIn(t *Text) *fieldParts {
	if p := f.parts; p != nil && p.t == t {
		return p
	}
	return newParts(f, t)
}

// newParts builds f's parts in t's words.
func newParts(f *Field, t *Text) *fieldParts {
	p := &fieldParts{t: t, label: f.Title, class: strings.TrimSpace(attrClasses(f) + langClasses(f)), hint: Hint(f, t),
		argument: argumentTemplate(f), href: "#" + ControlID(f)}
	if !f.Required && f.Kind != KindCheckbox {
		p.label = catalog.Fill(t.Optional, "label", f.Title)
	}
	if len(f.Options) > 0 {
		p.options = make([]json.RawMessage, len(f.Options))
		for i := range f.Options {
			p.options[i], _ = json.Marshal(f.Options[i].Value) // a string cannot fail
		}
	}
	return p
}

// A DefaultError reports a Field whose Default JSON cannot hold.
type DefaultError struct {
	Field string
	Err   error
}

func (e *DefaultError) Error() string {
	return "field " + strconv.Quote(e.Field) + ": " + e.Err.Error()
}

func (e *DefaultError) Unwrap() error { return e.Err }

// Control returns f's form control as prefab's autoForm builds it.
func Control(f *Field) (*Node, error) {
	var value json.RawMessage
	if f.Default != nil {
		// Any default is carried, even one of the wrong type that the
		// schema leaves out; one that JSON cannot hold is an error rather
		// than a silently different form.
		b, err := json.Marshal(f.Default)
		if err != nil {
			return nil, &DefaultError{Field: f.Name, Err: err}
		}
		value = b
	}
	var required *bool
	if f.Required {
		required = boolPtr(true)
	}
	switch f.Kind {
	case KindChoice, KindChoices:
		n := &Node{Type: "Select", Name: f.Name, Label: f.Title, Placeholder: f.Placeholder, Multiple: f.Kind == KindChoices, Value: value, Required: required}
		n.Children = make([]*Node, len(f.Options))
		for i, opt := range f.Options {
			label := opt.Label
			if label == "" {
				label = opt.Value
			}
			var v json.RawMessage
			if f.parts != nil {
				v = f.parts.options[i]
			} else {
				v, _ = json.Marshal(opt.Value) // a string cannot fail
			}
			n.Children[i] = &Node{Type: "SelectOption", Value: v, Label: label}
		}
		return n, nil
	case KindRange:
		// A Slider is the one control whose bounds the renderer carries;
		// without them the browser's are 0 to 100, and a range of 0 to 1
		// could not be answered. Any step between them is fine: the
		// schema asks for a number, not a multiple.
		return &Node{Type: "Slider", Name: f.Name, Label: f.Title, Value: value, Min: f.Min, Max: f.Max, Step: "any", Required: required}, nil
	case KindCheckbox:
		n := &Node{Type: "Checkbox", Name: f.Name, Label: f.Title, Required: required}
		if b, ok := f.Default.(bool); ok {
			n.Checked = boolPtr(b)
		}
		return n, nil
	}
	return &Node{
		Type: "Input", Name: f.Name, Label: f.Title, Value: value,
		Required: boolPtr(f.Required), InputType: f.InputType, Placeholder: f.Placeholder,
		Disabled: boolPtr(false), ReadOnly: boolPtr(false),
	}, nil
}

// argumentTemplate is the template that reads f's value back when the form
// is submitted. The checkbox test puts the literal first so that a quote in
// the name cannot hide the operator from the renderer's parser.
func argumentTemplate(f *Field) string {
	if f.Kind == KindCheckbox {
		return "{{ 'on' == " + f.Name + " }}"
	}
	return "{{ " + f.Name + " }}"
}

// A field in a flow view is prefab's Field: the control with its label,
// then its description and its bounds as FieldDescription, then its
// problem as FieldError. prefab 0.3.13 renders these as bare elements,
// with no ids and nothing that ties them to the control, and its Input
// carries no min, max or length bounds; the viewer's script repairs both
// after each render (viewer.js). The bounds travel as the Field's classes
// (BoundClass), the one prop the renderer copies onto an element as it is.

// stepControl returns f's control in a flow view. The label says when f
// may be left empty; a checkbox, which may always be left unticked, does
// not.
func stepControl(f *Field, t *Text) (*Node, error) { return control(f, f.partsIn(t)) }

// control is stepControl, with f's parts.
func control(f *Field, p *fieldParts) (*Node, error) {
	c, err := Control(f)
	if err != nil {
		return nil, err
	}
	c.Label = p.label
	if f.Kind == KindCheckbox {
		// The renderer gives the box no id and wraps it in its label,
		// which takes the id an error summary links to.
		c.ID = ControlID(f)
	}
	// prefab 0.3.13's Input reads neither (see formNode).
	c.Disabled, c.ReadOnly = nil, nil
	return c, nil
}

// fieldNode returns f's Field in a flow view, with problem under it when
// not "".
func fieldNode(f *Field, problem string, t *Text) (*Node, error) {
	p := f.partsIn(t)
	c, err := control(f, p)
	if err != nil {
		return nil, err
	}
	n := &Node{Type: "Field", CSSClass: p.class, Children: make([]*Node, 1, 4)}
	n.Children[0] = c
	if f.Description != "" {
		n.Children = append(n.Children, &Node{Type: "FieldDescription", Content: f.Description, CSSClass: inLang(f.DescriptionLang)})
	}
	if p.hint != "" {
		n.Children = append(n.Children, &Node{Type: "FieldDescription", Content: p.hint})
	}
	if problem != "" {
		n.Children = append(n.Children, errorNode(problem, t))
	}
	return n, nil
}

// langClasses returns the classes that mark the parts of f's control in
// another language than the view's: its label's title, which an
// optional field's label follows with the view's "(optional)", and its
// options.
func langClasses(f *Field) string {
	var b strings.Builder
	if f.TitleLang != "" {
		b.WriteString(" " + LangPartClass + "label-0-" + strconv.Itoa(utf16Len(f.Title)) + "-" + f.TitleLang)
	}
	for i := range f.Options {
		if l := f.Options[i].Lang; l != "" {
			b.WriteString(" " + LangPartClass + "option-" + strconv.Itoa(i) + "-" + l)
		}
	}
	return b.String()
}

// inLang is the class that marks an element as wholly in lang; "" for
// "", the view's language.
func inLang(lang string) string {
	if lang == "" {
		return ""
	}
	return LangPartClass + "in-" + lang
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript counts
// a string's.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// num writes a bound as a person reads it: 2, 0.5, never 2e+00.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// attrClasses returns the classes that carry f's bounds to its control's
// min and max, or minlength and maxlength; a slider has them already.
func attrClasses(f *Field) string {
	var lo, hi string
	switch f.Kind {
	case KindNumber, KindInteger:
		lo, hi = "min=", "max="
	case KindText:
		lo, hi = "minlength=", "maxlength="
	default:
		return ""
	}
	var b strings.Builder
	if f.Min != nil {
		b.WriteString(" " + BoundClass + lo + num(*f.Min))
	}
	if f.Max != nil {
		b.WriteString(" " + BoundClass + hi + num(*f.Max))
	}
	return b.String()
}

// Hint says f's bounds in words, or "" when it has none that a person must
// keep to.
func Hint(f *Field, t *Text) string {
	switch f.Kind {
	case KindNumber, KindInteger, KindRange:
		return Bounds(f, t.Between, t.AtLeast, t.AtMost)
	case KindText:
		return Bounds(f, t.CharsBetween, t.CharsAtLeast, t.CharsAtMost)
	case KindChoices:
		return Bounds(f, t.PickBetween, t.PickAtLeast, t.PickAtMost)
	}
	return ""
}

// Problem fills a problem's template, which names f by its {label},
// with f's bounds: between when it has both, atLeast for the lower alone,
// atMost for the upper alone; "" for none.
func Problem(f *Field, between, atLeast, atMost string) string {
	switch {
	case f.Min != nil && f.Max != nil:
		return catalog.Fill(between, "label", f.Title, "min", num(*f.Min), "max", num(*f.Max))
	case f.Min != nil:
		return catalog.Fill(atLeast, "label", f.Title, "min", num(*f.Min))
	case f.Max != nil:
		return catalog.Fill(atMost, "label", f.Title, "max", num(*f.Max))
	}
	return ""
}

// Bounds fills the text of f's bounds: between when it has both, atLeast
// for the lower alone, atMost for the upper alone; "" for none.
func Bounds(f *Field, between, atLeast, atMost string) string {
	switch {
	case f.Min != nil && f.Max != nil:
		return catalog.Fill(between, "min", num(*f.Min), "max", num(*f.Max))
	case f.Min != nil:
		return catalog.Fill(atLeast, "min", num(*f.Min))
	case f.Max != nil:
		return catalog.Fill(atMost, "max", num(*f.Max))
	}
	return ""
}
