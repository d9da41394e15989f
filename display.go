package mcpform

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DisplayFormOptions configures [DisplayForm] and [Form.Display]. A nil
// *DisplayFormOptions and zero fields mean the defaults.
type DisplayFormOptions struct {
	// Title is shown as a heading above the form; empty shows none. It is
	// also the default message of the native request (see Elicit).
	Title string
	// Subtitle is shown under the title; empty shows none.
	Subtitle string
	// SubmitLabel labels the submit button; empty means "Submit".
	SubmitLabel string
	// SuccessMessage is the toast shown once the submit tool answers;
	// empty means "Success!". The renderer shows it for any answer, even
	// one with IsError set.
	SuccessMessage string
	// ErrorMessage is the toast shown when the submit call fails at the
	// protocol level or times out; empty means "Something went wrong".
	ErrorMessage string
	// Elicit, when non-nil, makes DisplayForm return the native
	// input_required request instead of the UI, for hosts that render no
	// MCP Apps. An empty Elicit.Key means the submit tool's name (or
	// [DefaultInputKey] when that is empty too), and an empty
	// Elicit.Message means Title (or [DefaultInputMessage] when Title is
	// empty too). [Form.Display] asks under the form's own key, with the
	// form's message unless Elicit.Message is set.
	Elicit *InputRequestOptions
}

// DisplayForm returns a tool result that shows fields as a prefab form on a
// host that renders MCP Apps (see [AddViewer]). Submitting the form calls
// submitTool with the values as the call's arguments; read them with
// [AcceptedFormArguments]. With opts.Elicit set, DisplayForm returns
// [FormInputRequest] of fields instead, keyed by submitTool unless
// opts.Elicit.Key says otherwise, and read with [AcceptedFormInput].
//
// The UI result carries the $prefab wire object as StructuredContent and
// the same JSON as a text block. The form is the one display_form of
// @maxhealth.tech/prefab emits, but for the differences listed in the
// package documentation, under "Where mcpform differs from the TypeScript
// helpers"; what prefab's renderer does with it is under "The viewer".
// [Form.Display] renders a compiled form the same way.
//
// A nil or empty fields is refused with [ErrNoFields], and a broken
// definition as [FormSchema] refuses it, on both paths. The UI path also
// refuses an empty submitTool, and a field whose name prefab's renderer
// cannot carry back, with a [*FieldError] wrapping [ErrName]; the native
// path carries every name.
func DisplayForm(fields []AutoFormField, submitTool string, opts *DisplayFormOptions) (*mcp.CallToolResult, error) {
	if opts != nil && opts.Elicit != nil {
		e := *opts.Elicit
		if e.Key == "" {
			e.Key = submitTool
		}
		if e.Message == "" {
			e.Message = opts.Title
		}
		return FormInputRequest(fields, &e)
	}
	c, err := uncompiled(fields)
	if err != nil {
		return nil, err
	}
	return c.display(submitTool, opts)
}

// Display is [DisplayForm] for a compiled form: the form's fields as a
// prefab form whose submit calls submitTool, read back with
// [Form.ReadArguments]. A nil opts means the defaults.
//
// With opts.Elicit set, Display returns the form's own input request
// instead, as [Form.InputRequest] does, carrying opts.Elicit.RequestState
// and, when it is not empty, opts.Elicit.Message; the answer is read with
// [Form.Read], under the form's key, so an opts.Elicit.Key other than
// empty or [Form.Key] is an error.
//
// Like DisplayForm, Display refuses an empty submitTool, a field name the
// renderer cannot carry back, and a Default that JSON cannot hold, which
// the native path leaves out. Like [Form.Ask], it refuses a form with
// secret fields (see [AutoFormField.Secret]), whose values would pass
// through the host; a [Flow] step asks them in URL mode. Nothing else about
// the form can fail.
func (f *Form[T]) Display(submitTool string, opts *DisplayFormOptions) (*mcp.CallToolResult, error) {
	if len(f.c.secrets) > 0 {
		return nil, fmt.Errorf("mcpform: field %q is secret: ask the form as a Flow step, which asks it in URL mode", f.c.secrets[0].Name)
	}
	if opts != nil && opts.Elicit != nil {
		e := opts.Elicit
		if e.Key != "" && e.Key != f.c.key {
			return nil, fmt.Errorf("mcpform: Display: the form is answered under key %q, not %q", f.c.key, e.Key)
		}
		msg := f.c.message
		if e.Message != "" {
			msg = e.Message
		}
		return f.c.request(msg, f.c.wire, e.RequestState), nil
	}
	return f.c.display(submitTool, opts)
}

// uncompiled checks fields and returns what the UI path needs of them, for
// the functions that take a field list on every call: no schema is built.
func uncompiled(fields []AutoFormField) (*compiled, error) {
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	return &compiled{fields: fields, lookup: fieldLookup(fields), ui: checkCarried(fields)}, nil
}

// display renders c's fields as the prefab form that calls submitTool.
func (c *compiled) display(submitTool string, opts *DisplayFormOptions) (*mcp.CallToolResult, error) {
	var o DisplayFormOptions
	if opts != nil {
		o = *opts
	}
	if c.ui != nil {
		return nil, c.ui
	}
	if submitTool == "" {
		return nil, errors.New("mcpform: the UI path needs the name of the submit tool")
	}
	b, err := prefab.Display(&prefab.Form{Tool: submitTool, Title: o.Title, Subtitle: o.Subtitle, SubmitLabel: o.SubmitLabel,
		SuccessMessage: o.SuccessMessage, ErrorMessage: o.ErrorMessage, Fields: c.viewFields().fields})
	if err != nil {
		if _, ok := errors.AsType[*prefab.DefaultError](err); ok {
			return nil, viewErr(err)
		}
		return nil, fmt.Errorf("mcpform: encoding the form: %w", err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// inputType is the HTML input type that asks for what the field's schema
// accepts. Where the field type is no HTML input type, a browser would show
// a plain text box: an integer is asked with a number input, whose default
// step of 1 admits whole numbers only, a date-time with a datetime-local
// input (see [AcceptedFormArguments] for its zone), and a URI with a url
// input, as prefab's own mapping from JSON Schema does.
func (f *AutoFormField) inputType() string {
	switch f.Type {
	case "", "select", "radio": // without options, plain text, as the seed maps them
		return string(TypeText)
	case TypeInteger:
		return string(TypeNumber)
	case TypeDatetime:
		return string(TypeDatetimeLocal)
	case TypeURI:
		return string(TypeURL)
	}
	return string(f.Type)
}

// checkCarried reports the first field whose value the UI cannot carry back
// to the submit tool under a key AcceptedFormArguments maps to it alone
// (see [prefab.CarryProblem]).
func checkCarried(fields []AutoFormField) error {
	names := make([]string, len(fields))
	for i := range fields {
		names[i] = fields[i].Name
	}
	if i, why := prefab.CarryProblem(names); i >= 0 {
		return fieldErr(names[i], ErrName, "%s", why)
	}
	return nil
}
