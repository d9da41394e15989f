package legacy

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// The schema work of the sending side: reading the schema a handler asked
// with and adapting it to the client's revision. Judging the answer is the
// handler's: see [bridge.elicit].

// elicitSchema decodes a requested schema, which may be a
// *jsonschema.Schema, raw JSON or a map, as go-sdk's Elicit does, into a
// copy of our own. It returns nil for no schema, and for one that does not
// decode.
func elicitSchema(wire any) *jsonschema.Schema {
	if wire == nil {
		return nil
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil
	}
	var s *jsonschema.Schema
	if json.Unmarshal(b, &s) != nil || s == nil {
		return nil
	}
	s.PropertyOrder = PropertyOrder(b)
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(s.PropertyOrder, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	s.PropertyOrder = append(s.PropertyOrder, rest...)
	return s
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

// PropertyOrder returns the keys of the "properties" object of the schema
// JSON b in the order they are written, which decoding into a
// jsonschema.Schema loses and a re-sent schema must keep: it is the order
// the person is asked in.
func PropertyOrder(b []byte) []string {
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
