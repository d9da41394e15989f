package mcpform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// The schema work of [NewLegacyRounds]'s sending side: reading the schema a
// handler asked with, adapting it to the client's revision, and saying
// what is wrong with an answer go-sdk would refuse.

// elicitSchema decodes a requested schema, which may be a
// *jsonschema.Schema, raw JSON or a map, as go-sdk's Elicit does, into a
// copy of our own, and resolves it. It returns nils for no schema, and for
// one go-sdk would refuse anyway.
func elicitSchema(wire any) (*jsonschema.Schema, *jsonschema.Resolved) {
	if wire == nil {
		return nil, nil
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, nil
	}
	var s *jsonschema.Schema
	if json.Unmarshal(b, &s) != nil || s == nil {
		return nil, nil
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, nil
	}
	s.PropertyOrder = propertyOrder(b)
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(s.PropertyOrder, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	s.PropertyOrder = append(s.PropertyOrder, rest...)
	return s, r
}

// cloneSchema returns a deep copy of a schema decoded from JSON, property
// order included.
func cloneSchema(s *jsonschema.Schema) *jsonschema.Schema {
	b, err := json.Marshal(s)
	if err != nil {
		panic("mcpform: a decoded schema does not marshal: " + err.Error())
	}
	var c jsonschema.Schema
	if err := json.Unmarshal(b, &c); err != nil {
		panic("mcpform: a marshalled schema does not unmarshal: " + err.Error())
	}
	c.PropertyOrder = slices.Clone(s.PropertyOrder)
	return &c
}

// untitled returns a copy of s in which titled choices, which revisions
// before 2025-11-25 lack, are plain: a single choice becomes an enum with
// the titles as enumNames, the labels those revisions show, and a multiple
// choice an array of enum items. It returns s itself when nothing changes.
func untitled(s *jsonschema.Schema) *jsonschema.Schema {
	changed := false
	for _, p := range s.Properties {
		if p == nil {
			continue
		}
		if _, _, ok := titledChoices(p.OneOf); ok {
			changed = true
		} else if p.Items != nil {
			_, _, ok := titledChoices(p.Items.AnyOf)
			changed = changed || ok
		}
	}
	if !changed {
		return s
	}
	c := cloneSchema(s)
	for _, p := range c.Properties {
		if p == nil {
			continue
		}
		if values, titles, ok := titledChoices(p.OneOf); ok {
			p.OneOf, p.Type, p.Enum = nil, "string", values
			if p.Extra == nil {
				p.Extra = map[string]any{}
			}
			p.Extra["enumNames"] = titles
		} else if p.Items != nil {
			if values, _, ok := titledChoices(p.Items.AnyOf); ok {
				p.Items = &jsonschema.Schema{Type: "string", Enum: values}
			}
		}
	}
	return c
}

// titledChoices returns the values and titles of a list of titled choices,
// [{const, title}] with string consts, and whether it is one.
func titledChoices(choices []*jsonschema.Schema) (values, titles []any, ok bool) {
	if len(choices) == 0 {
		return nil, nil, false
	}
	for _, c := range choices {
		if c == nil || c.Const == nil {
			return nil, nil, false
		}
		v, isString := (*c.Const).(string)
		if !isString {
			return nil, nil, false
		}
		title := c.Title
		if title == "" {
			title = v
		}
		values, titles = append(values, v), append(titles, title)
	}
	return values, titles, true
}

// withDefaults returns a copy of s whose properties named in good default
// to their values there, so that a client that pre-fills defaults shows
// the good part of an answer again.
func withDefaults(s *jsonschema.Schema, good map[string]any) *jsonschema.Schema {
	c := cloneSchema(s)
	for name, v := range good {
		p := c.Properties[name]
		if p == nil {
			continue
		}
		if raw, err := json.Marshal(v); err == nil {
			p.Default = raw
		}
	}
	return c
}

// legacyProblems says, for a person, why content does not match s, naming
// each refused or missing property by its title as [ProblemMessage] does,
// and returns the values that do match. Each property is judged on its
// own with jsonschema-go, the judge ServerSession.Elicit uses; the reason
// is the one mcpform's own check gives for a field of the same shape.
func legacyProblems(s *jsonschema.Schema, content map[string]any) (string, map[string]any) {
	var (
		fields   []AutoFormField
		problems []*FieldError
		good     = map[string]any{}
	)
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		f := fieldFromProperty(name, p)
		v, ok := content[name]
		if !ok {
			if slices.Contains(s.Required, name) {
				fields = append(fields, f)
				problems = append(problems, &FieldError{Field: name, Err: ErrMissing})
			}
			continue
		}
		if r, err := p.Resolve(nil); err == nil && r.Validate(v) == nil {
			good[name] = v
			continue
		}
		reason := f.checkValue(v)
		if reason == "" {
			reason = "not a valid answer"
		}
		fields = append(fields, f)
		problems = append(problems, &FieldError{Field: name, Err: fmt.Errorf("%w: %s", ErrInvalidValue, reason)})
	}
	if msg := ProblemMessage(fields, problems); msg != "" {
		return msg, good
	}
	return "Please check: the answer does not match the form.", good
}

// fieldFromProperty returns the field whose property schema p is, as far
// as the restricted elicitation schema goes, so that a refused value is
// explained in mcpform's words.
func fieldFromProperty(name string, p *jsonschema.Schema) AutoFormField {
	f := AutoFormField{Name: name, Label: p.Title}
	switch p.Type {
	case "boolean":
		f.Type = TypeBoolean
	case "number", "integer":
		f.Type = FieldType(p.Type)
		f.Min, f.Max = cloneBound(p.Minimum), cloneBound(p.Maximum)
	case "array":
		f.Multiple = true
		if p.Items != nil {
			f.Options = options(p.Items.Enum, p.Items.AnyOf)
		}
		f.Min, f.Max = floatBound(p.MinItems), floatBound(p.MaxItems)
	default:
		f.Options = options(p.Enum, p.OneOf)
		switch p.Format {
		case "email":
			f.Type = TypeEmail
		case "uri":
			f.Type = TypeURI
		case "date":
			f.Type = TypeDate
		case "date-time":
			f.Type = TypeDatetime
		}
		f.Min, f.Max = floatBound(p.MinLength), floatBound(p.MaxLength)
	}
	return f
}

// options returns the choices of an enum or of titled choices.
func options(enum []any, titled []*jsonschema.Schema) []Option {
	if values, _, ok := titledChoices(titled); ok {
		enum = values
	}
	var out []Option
	for _, v := range enum {
		if s, ok := v.(string); ok {
			out = append(out, Option{Value: s})
		}
	}
	return out
}

func floatBound(n *int) *float64 {
	if n == nil {
		return nil
	}
	return Bound(float64(*n))
}

// propertyOrder returns the keys of the "properties" object of the schema
// JSON b in the order they are written, which decoding into a
// jsonschema.Schema loses and a re-sent schema must keep: it is the order
// the person is asked in.
func propertyOrder(b []byte) []string {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(b, &top) != nil || len(top.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return keys
}
