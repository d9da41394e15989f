package mcpform

import (
	"encoding/json"
	"strconv"
)

// A view is built for each round that names problems or pre-fills values,
// and encoding it by reflection was the larger part of building it. These
// functions write a view exactly as encoding/json would (same field order,
// omitempty, escaping; TestViewJSON holds them to it on every view the
// tests build), so that a view costs what its words cost. The parts that
// are maps or numbers, rare and small, still go through encoding/json.

// appendViewWire appends w as json.Marshal(w) would.
func appendViewWire(b []byte, w *viewWire) ([]byte, error) {
	b = append(b, `{"$prefab":{"version":`...)
	b = appendJSONString(b, w.Prefab.Version)
	b = append(b, `},"view":`...)
	b, err := appendNode(b, w.View)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"state":`...)
	if b, err = appendMarshal(b, w.State); err != nil {
		return nil, err
	}
	if w.URL != "" {
		b = appendJSONString(append(b, `,"url":`...), w.URL)
	}
	return append(b, '}'), nil
}

// appendNode appends n as encoding/json would marshal it.
func appendNode(b []byte, n *node) ([]byte, error) {
	if n == nil {
		return append(b, "null"...), nil
	}
	b = appendJSONString(append(b, `{"type":`...), n.Type)
	b = appendStringField(b, "cssClass", n.CSSClass)
	b = appendStringField(b, "content", n.Content)
	if n.Level != 0 {
		b = strconv.AppendInt(append(b, `,"level":`...), int64(n.Level), 10)
	}
	b = appendStringField(b, "name", n.Name)
	var err error
	if len(n.Value) > 0 {
		if b, err = appendMarshal(append(b, `,"value":`...), n.Value); err != nil {
			return nil, err
		}
	}
	b = appendStringField(b, "label", n.Label)
	b = appendBoolPtrField(b, "required", n.Required)
	b = appendStringField(b, "inputType", n.InputType)
	b = appendStringField(b, "placeholder", n.Placeholder)
	for _, f := range [2]struct {
		key string
		v   *float64
	}{{"min", n.Min}, {"max", n.Max}} {
		if f.v != nil {
			if b, err = appendMarshal(append(append(append(b, `,"`...), f.key...), `":`...), *f.v); err != nil {
				return nil, err
			}
		}
	}
	b = appendStringField(b, "step", n.Step)
	if n.Multiple {
		b = append(b, `,"multiple":true`...)
	}
	b = appendBoolPtrField(b, "checked", n.Checked)
	b = appendStringField(b, "variant", n.Variant)
	b = appendStringField(b, "size", n.Size)
	b = appendBoolPtrField(b, "disabled", n.Disabled)
	b = appendBoolPtrField(b, "readOnly", n.ReadOnly)
	if n.Submit {
		b = append(b, `,"submit":true`...)
	}
	b = appendStringField(b, "condition", n.Condition)
	b = appendStringField(b, "href", n.Href)
	b = appendStringField(b, "target", n.Target)
	for _, a := range [2]struct {
		key string
		v   *action
	}{{"onSubmit", n.OnSubmit}, {"onClick", n.OnClick}} {
		if a.v != nil {
			if b, err = appendAction(append(append(append(b, `,"`...), a.key...), `":`...), a.v); err != nil {
				return nil, err
			}
		}
	}
	if len(n.Children) > 0 {
		b = append(b, `,"children":[`...)
		for i, c := range n.Children {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendNode(b, c); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendAction appends a as encoding/json would marshal it.
func appendAction(b []byte, a *action) ([]byte, error) {
	b = appendJSONString(append(b, `{"action":`...), a.Action)
	b = appendStringField(b, "tool", a.Tool)
	var err error
	if len(a.Arguments) > 0 {
		if b, err = appendMarshal(append(b, `,"arguments":`...), a.Arguments); err != nil {
			return nil, err
		}
	}
	b = appendStringField(b, "resultKey", a.ResultKey)
	b = appendStringField(b, "message", a.Message)
	b = appendStringField(b, "variant", a.Variant)
	for _, f := range [2]struct {
		key string
		v   *action
	}{{"onSuccess", a.OnSuccess}, {"onError", a.OnError}} {
		if f.v != nil {
			if b, err = appendAction(append(append(append(b, `,"`...), f.key...), `":`...), f.v); err != nil {
				return nil, err
			}
		}
	}
	return append(b, '}'), nil
}

// appendStringField appends ,"key":"s" unless s is empty, as omitempty.
func appendStringField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(append(append(b, `,"`...), key...), `":`...), s)
}

// appendBoolPtrField appends ,"key":v unless v is nil, as omitempty.
func appendBoolPtrField(b []byte, key string, v *bool) []byte {
	if v == nil {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return strconv.AppendBool(b, *v)
}

// appendMarshal appends json.Marshal(v).
func appendMarshal(b []byte, v any) ([]byte, error) {
	m, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, m...), nil
}

// viewJSONCheck, when set (by tests), is given every view built and its
// bytes, to hold appendViewWire to encoding/json.
var viewJSONCheck func(w *viewWire, got []byte, err error)
