package mcpform

import (
	"errors"
	"strconv"
	"strings"
)

// A field in a flow view is prefab's Field: the control with its label,
// then its description and its bounds as FieldDescription, then its
// problem as FieldError. prefab 0.3.13 renders these as bare elements,
// with no ids and nothing that ties them to the control, and its Input
// carries no min, max or length bounds; the viewer's script repairs both
// after each render (viewerScript). The bounds travel as the Field's
// classes (boundClass), the one prop the renderer copies onto an element
// as it is.

// boundClass is the class prefix under which a Field carries an attribute
// for its control, as boundClass+"max=50".
const boundClass = "mcpform-attr-"

// viewField returns f's Field, with problem under it when not "".
func viewField(f *AutoFormField, problem string, t *viewText) (*node, error) {
	c, err := fieldControl(f, t)
	if err != nil {
		return nil, err
	}
	var p *node
	if problem != "" {
		p = &node{Type: "FieldError", Content: problem}
	}
	return fieldNode(f, c, p, t), nil
}

// fieldControl returns f's control. The label says when f may be left
// empty; a checkbox, which may always be left unticked, does not.
func fieldControl(f *AutoFormField, t *viewText) (*node, error) {
	c, err := f.control()
	if err != nil {
		return nil, err
	}
	if !f.Required && f.kind() != kindBoolean {
		c.Label = f.title() + " " + t.Optional
	}
	// prefab 0.3.13's Input reads neither (see formNode).
	c.Disabled, c.ReadOnly = nil, nil
	return c, nil
}

// fieldNode returns f's Field around its control c, with problem, when
// not nil, last. A view's template passes stand-ins for both (see
// viewtemplate.go).
func fieldNode(f *AutoFormField, c, problem *node, t *viewText) *node {
	n := &node{Type: "Field", CSSClass: strings.TrimSpace(attrClasses(f)), Children: []*node{c}}
	if f.Description != "" {
		n.Children = append(n.Children, &node{Type: "FieldDescription", Content: f.Description})
	}
	if h := boundsHint(f, t); h != "" {
		n.Children = append(n.Children, &node{Type: "FieldDescription", Content: h})
	}
	if problem != nil {
		n.Children = append(n.Children, problem)
	}
	return n
}

// num writes a bound as a person reads it: 2, 0.5, never 2e+00.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// attrClasses returns the classes that carry f's bounds to its control's
// min and max, or minlength and maxlength; a slider has them already.
func attrClasses(f *AutoFormField) string {
	var lo, hi string
	switch f.kind() {
	case kindNumber, kindInteger:
		if f.Type == TypeRange {
			return ""
		}
		lo, hi = "min=", "max="
	case kindString:
		lo, hi = "minlength=", "maxlength="
	default:
		return ""
	}
	var b strings.Builder
	if f.Min != nil {
		b.WriteString(" " + boundClass + lo + num(*f.Min))
	}
	if f.Max != nil {
		b.WriteString(" " + boundClass + hi + num(*f.Max))
	}
	return b.String()
}

// boundsHint says f's bounds in words, or "" when it has none that a
// person must keep to.
func boundsHint(f *AutoFormField, t *viewText) string {
	var between, atLeast, atMost string
	switch f.kind() {
	case kindNumber, kindInteger:
		between, atLeast, atMost = t.Between, t.AtLeast, t.AtMost
	case kindString:
		between, atLeast, atMost = t.CharsBetween, t.CharsAtLeast, t.CharsAtMost
	case kindMulti:
		between, atLeast, atMost = t.PickBetween, t.PickAtLeast, t.PickAtMost
	default:
		return ""
	}
	return bounded(f, between, atLeast, atMost)
}

// bounded fills the text of f's bounds: both, the lower, or the upper.
func bounded(f *AutoFormField, between, atLeast, atMost string) string {
	switch {
	case f.Min != nil && f.Max != nil:
		return fillText(between, "min", num(*f.Min), "max", num(*f.Max))
	case f.Min != nil:
		return fillText(atLeast, "min", num(*f.Min))
	case f.Max != nil:
		return fillText(atMost, "max", num(*f.Max))
	}
	return ""
}

// fix says how to put p right, in t's words, for f, the field it names
// (nil when it names none). A problem of the author's own, from a step's
// Check, is said as the author wrote it.
func (t *viewText) fix(f *AutoFormField, p *FieldError, secrets []AutoFormField) string {
	return t.fixOwn(f, p, secrets, nil)
}

// fixOwn is fix, with own translating the author's own words, such as a
// Check's reasons, into t's language; nil keeps them.
func (t *viewText) fixOwn(f *AutoFormField, p *FieldError, secrets []AutoFormField, own func(string) string) string {
	switch {
	case errors.Is(p.Err, ErrSecretWaiting):
		return fillText(t.PageWaiting, "fields", secretTitles(secrets, t.ListSep))
	case errors.Is(p.Err, ErrSecretRefused):
		return t.PageElsewhere
	case f == nil:
		return t.said(p.Err, own)
	case errors.Is(p.Err, ErrChanged):
		return fillText(t.Changed, "label", f.title())
	case errors.Is(p.Err, ErrMissing):
		if f.kind() == kindEnum || f.kind() == kindMulti {
			return fillText(t.MissingChoice, "label", f.title())
		}
		return fillText(t.Missing, "label", f.title())
	case !errors.Is(p.Err, ErrInvalidValue) && !errors.Is(p.Err, ErrType):
		return t.said(p.Err, own)
	}
	switch f.kind() {
	case kindEnum:
		return fillText(t.Choice, "label", f.title())
	case kindMulti:
		if s := bounded(f, t.PickBetween, t.PickAtLeast, t.PickAtMost); s != "" {
			return s
		}
		return fillText(t.Choice, "label", f.title())
	case kindInteger:
		return t.orBounds(t.Whole, boundsHint(f, t))
	case kindNumber:
		return t.orBounds(t.Number, boundsHint(f, t))
	case kindBoolean:
		return fillText(t.Check, "label", f.title(), "reason", t.reason(p, own))
	}
	// A length is checked before a format (checkValue), and its rule ends
	// so: say the bounds, not the format.
	if strings.HasSuffix(p.Err.Error(), " characters") {
		if s := bounded(f, t.LengthBetween, t.LengthAtLeast, t.LengthAtMost); s != "" {
			return s
		}
	}
	switch f.Type {
	case TypeEmail:
		return t.Email
	case TypeURL, TypeURI:
		return t.URL
	case TypeDate:
		return t.Date
	case TypeDatetime, TypeDatetimeLocal:
		return t.DateTime
	}
	return fillText(t.Check, "label", f.title(), "reason", t.reason(p, own))
}

// orBounds is what to enter, and the bounds when there are any.
func (t *viewText) orBounds(what, bounds string) string {
	if bounds == "" {
		return what
	}
	return fillText(t.AndBounds, "what", what, "bounds", bounds)
}

// said is err as a person reads it in t's language: in English as it is,
// in another the reason problemReason finds for it.
func (t *viewText) said(err error, own func(string) string) string {
	if t.l == langEN {
		return err.Error()
	}
	return problemReason(t.l, own, err)
}

// reason is the rule p breaks, without the sentinel's own words, in t's
// language.
func (t *viewText) reason(p *FieldError, own func(string) string) string {
	s := p.Err.Error()
	for _, e := range [...]error{ErrInvalidValue, ErrType} {
		s = strings.TrimPrefix(strings.TrimPrefix(s, e.Error()), ": ")
	}
	if t.l == langEN {
		return s
	}
	if r := reasonIn(t.l, p.Err, s); r != s || own == nil {
		return r
	}
	return own(s)
}

// secretTitles lists the titles of secret fields, as the page asks them,
// joined by sep.
func secretTitles(secrets []AutoFormField, sep string) string {
	titles := make([]string, len(secrets))
	for i := range secrets {
		titles[i] = secrets[i].title()
	}
	return strings.Join(titles, sep)
}
