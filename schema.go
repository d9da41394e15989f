package mcpform

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// FormSchema returns the restricted elicitation schema for fields: a flat
// object with one property per field, in field order, and a required list
// naming the required fields (left out when there are none).
//
// Each field maps to a property by its Type and Options:
//
//	email                    string, format email
//	url, uri                 string, format uri
//	date                     string, format date
//	datetime, datetime-local string, format date-time
//	number, range            number; Min/Max are minimum/maximum
//	integer                  integer; Min/Max are minimum/maximum
//	checkbox, boolean        boolean
//	any type with Options    string with an enum of the option values
//	... and Multiple         array of enum strings; Min/Max are minItems/maxItems
//	anything else            string; Min/Max are minLength/maxLength
//
// The title is the Label, or the humanized Name. A password is a plain
// string here, as in TypeScript, and that is why a form-mode request built
// from this schema breaks the spec when it holds one: "Servers MUST NOT use
// form mode elicitation to request sensitive information such as
// passwords". The typed answer passes through the client, its logs and
// possibly the model's context. A compiled form ([NewForm], [FormFor])
// leaves secret fields out of its schema, and a [Flow] asks them in URL
// mode instead (see [Flow.SecretPage]).
//
// FormSchema is the TypeScript mirror and equals its output; a compiled
// form's [Form.Schema] is what a Go server should send, with option labels
// as titled choices and without secret fields.
//
// A nil or empty fields is refused with [ErrNoFields]; a broken definition
// is refused with a [*FieldError] naming the field and wrapping [ErrName],
// [ErrBounds], [ErrOptions] or [ErrDefault]. Unlike the TypeScript
// formSchema, which emits a schema for any input, every schema FormSchema
// returns is one a conforming client accepts.
func FormSchema(fields []AutoFormField) (*jsonschema.Schema, error) {
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	return buildSchema(fields, false, nil)
}

// buildSchema returns the schema of fields already checked. With titled,
// options whose labels differ from their values become titled choices
// (SEP-1330); FormSchema leaves them plain, as TypeScript does. A value in
// defaults, accepted for its field, replaces the field's Default.
func buildSchema(fields []AutoFormField, titled bool, defaults Answers) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{
		Type:          "object",
		Properties:    make(map[string]*jsonschema.Schema, len(fields)),
		PropertyOrder: make([]string, 0, len(fields)),
	}
	for i := range fields {
		f := &fields[i]
		if v, ok := defaults[f.Name]; ok {
			g := *f
			g.Default = v
			f = &g
		}
		p, err := f.schema(titled)
		if err != nil {
			return nil, err
		}
		s.Properties[f.Name] = p
		s.PropertyOrder = append(s.PropertyOrder, f.Name)
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s, nil
}

// schema returns the property schema of a field already checked by
// checkFields.
func (f *AutoFormField) schema(titled bool) (*jsonschema.Schema, error) {
	p := &jsonschema.Schema{Title: f.title(), Description: f.Description}
	titled = titled && f.labelled()
	switch f.kind() {
	case kindMulti:
		p.Type = "array"
		if titled {
			p.Items = &jsonschema.Schema{AnyOf: f.titledOptions()}
		} else {
			p.Items = &jsonschema.Schema{Type: "string", Enum: f.optionValues()}
		}
		p.MinItems, p.MaxItems = intBound(f.Min), intBound(f.Max)
	case kindEnum:
		p.Type = "string"
		if titled {
			p.OneOf = f.titledOptions()
		} else {
			p.Enum = f.optionValues()
		}
	case kindNumber, kindInteger:
		p.Type = "number"
		if f.kind() == kindInteger {
			p.Type = "integer"
		}
		p.Minimum, p.Maximum = cloneBound(f.Min), cloneBound(f.Max)
	case kindBoolean:
		p.Type = "boolean"
	default:
		p.Type = "string"
		p.Format = f.format()
		p.MinLength, p.MaxLength = intBound(f.Min), intBound(f.Max)
	}
	if v, ok := f.defaultValue(); ok {
		raw, err := json.Marshal(v)
		if err != nil {
			// Unreachable for a checked default, which is a number,
			// bool, string or list of strings; kept as an error rather
			// than a panic.
			return nil, fieldErr(f.Name, ErrDefault, "%v", err)
		}
		p.Default = raw
	}
	return p, nil
}

// labelled reports whether any option has a label that differs from its
// value, which only titled choices can show.
func (f *AutoFormField) labelled() bool {
	for _, o := range f.Options {
		if o.Label != "" && o.Label != o.Value {
			return true
		}
	}
	return false
}

// titledOptions returns the options as {const, title} schemas; an option
// without a label is titled by its value.
func (f *AutoFormField) titledOptions() []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, len(f.Options))
	for i, o := range f.Options {
		var c any = o.Value
		title := o.Label
		if title == "" {
			title = o.Value
		}
		out[i] = &jsonschema.Schema{Const: &c, Title: title}
	}
	return out
}

func (f *AutoFormField) optionValues() []any {
	vs := make([]any, len(f.Options))
	for i, o := range f.Options {
		vs[i] = o.Value
	}
	return vs
}

// intBound converts a length or item bound that checkFields has proved to
// be a whole number in int range.
func intBound(b *float64) *int {
	if b == nil {
		return nil
	}
	n := int(*b)
	return &n
}

// cloneBound copies a bound so that a schema never aliases the caller's
// field definition.
func cloneBound(b *float64) *float64 {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

// wireSchema returns a compiled form's schema, marshalled once, as it goes
// on the wire: the bytes themselves, as a json.RawMessage, which
// encoding/json writes as they are. Every legal property name, "-" and
// names with quotes or commas included, reaches the client exactly as the
// schema was marshalled, and nothing is made per form but the bytes,
// which go when the form goes. (Go types made at run time with
// reflect.StructOf, which this replaces, were never freed, and a struct
// tag cannot carry every name: json:"-" drops the field.)
func wireSchema(raw []byte) any { return json.RawMessage(raw) }
