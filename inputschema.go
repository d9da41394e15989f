package mcpform

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// InputSchema returns the input schema of a tool that runs the flow, as
// JSON: base (nil means {"type": "object"}), copied, with the properties
// that the paths answering through the arguments send added:
// [StateArgument], a string, "mcpformAction", whose value "decline"
// says the person declined and "render" asks a view's step again in its
// host's language, "mcpformTool", which a view sends through the
// app-only tool it submits to, and each field's name, and the key prefab's
// renderer sends it under, of any type, because a browser sends numbers as
// text and the flow judges every value itself. Secret fields are never
// sent, and are not added. A base whose additionalProperties is false
// keeps it: the flow's keys are properties.
//
// The schema is marshalled here, once, so that a server that looks at a
// tool's schema on every call (go-sdk's streamable HTTP handler does, for
// its x-mcp-header check) parses these bytes and never marshals a
// *jsonschema.Schema again. It panics if base does not marshal, as
// go-sdk's AddTool does for a schema it cannot read, and if base has a
// property named as a field of the flow or as the key prefab's renderer
// sends a field under (teamName for team_name): the flow would read that
// argument as an answer, and leave it out of what its state is bound to.
func (f *Flow) InputSchema(base *jsonschema.Schema) json.RawMessage {
	s := &jsonschema.Schema{Type: "object"}
	if base != nil {
		s = base.CloneSchemas()
		f.checkBase(s)
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	add := func(name string, p *jsonschema.Schema) {
		if _, ok := s.Properties[name]; !ok {
			s.Properties[name] = p
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
	}
	add(StateArgument, &jsonschema.Schema{Type: "string",
		Description: "The state of the form, sent back unchanged as a previous result of this tool gave it."})
	add(actionArgument, &jsonschema.Schema{Type: "string", Enum: []any{declineAction, renderAction},
		Description: "Sent, with the state and no answers, when the person declines to answer, or by a view to show its step in its host's language."})
	add(toolArgument, &jsonschema.Schema{Type: "string",
		Description: "Sent by a form view, through the app-only tool it submits to: this tool's name."})
	if f != nil {
		for i := range f.steps {
			for _, fd := range f.steps[i].c.fields {
				add(fd.Name, &jsonschema.Schema{Description: fd.title()})
				add(rendererKey(fd.Name), &jsonschema.Schema{Description: fd.title()})
			}
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcpform: Flow.InputSchema: base does not marshal to JSON: %v", err))
	}
	return b
}

// checkBase panics on a property of base that the flow's fields write.
func (f *Flow) checkBase(base *jsonschema.Schema) {
	if f == nil {
		return
	}
	for i := range f.steps {
		for _, fd := range f.steps[i].c.fields {
			for _, name := range [...]string{fd.Name, rendererKey(fd.Name)} {
				if _, ok := base.Properties[name]; ok {
					panic(fmt.Sprintf("mcpform: Flow.InputSchema: base's property %q is where the flow reads field %q's answer, "+
						"and is left out of what its state is bound to: rename the tool's argument", name, fd.Name))
				}
			}
		}
	}
}
