package mcpform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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

// Defaults of [DisplayFormOptions], the same as the TypeScript autoForm's.
const (
	defaultSubmitLabel    = "Submit"
	defaultSuccessMessage = "Success!"
	defaultErrorMessage   = "Something went wrong"
)

// prefabProtocol is the $prefab wire version the renderer of
// @maxhealth.tech/prefab 0.3.x reads.
const prefabProtocol = "0.3"

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
	view, err := formView(c.fields, submitTool, &o)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The text block is read by people and models: keep "<" and "&" as
	// they are, as JSON.stringify does.
	enc.SetEscapeHTML(false)
	w := prefabWire{View: &node{Type: "Div", CSSClass: "pf-app-root", Children: []*node{view}}}
	w.Prefab.Version = prefabProtocol
	if err := enc.Encode(w); err != nil {
		return nil, fmt.Errorf("mcpform: encoding the form: %w", err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// prefabWire is the $prefab wire object: a version and a view.
type prefabWire struct {
	Prefab struct {
		Version string `json:"version"`
	} `json:"$prefab"`
	View *node `json:"view"`
}

// node is one component of the tree, with the props of every component the
// form uses. Pointers to bool mark props that TypeScript emits even when
// false, on some components only.
type node struct {
	Type        string          `json:"type"`
	CSSClass    string          `json:"cssClass,omitempty"`
	Content     string          `json:"content,omitempty"`
	Level       int             `json:"level,omitempty"`
	Name        string          `json:"name,omitempty"`
	Value       json.RawMessage `json:"value,omitempty"`
	Label       string          `json:"label,omitempty"`
	Required    *bool           `json:"required,omitempty"`
	InputType   string          `json:"inputType,omitempty"`
	Placeholder string          `json:"placeholder,omitempty"`
	Min         *float64        `json:"min,omitempty"`
	Max         *float64        `json:"max,omitempty"`
	Step        string          `json:"step,omitempty"`
	Multiple    bool            `json:"multiple,omitempty"`
	Checked     *bool           `json:"checked,omitempty"`
	Variant     string          `json:"variant,omitempty"`
	Size        string          `json:"size,omitempty"`
	Disabled    *bool           `json:"disabled,omitempty"`
	ReadOnly    *bool           `json:"readOnly,omitempty"`
	Submit      bool            `json:"submit,omitempty"`
	Condition   string          `json:"condition,omitempty"` // of an If
	Href        string          `json:"href,omitempty"`      // of a Link
	Target      string          `json:"target,omitempty"`    // of a Link
	OnSubmit    *action         `json:"onSubmit,omitempty"`
	OnClick     *action         `json:"onClick,omitempty"` // of a Button that does not submit
	Children    []*node         `json:"children,omitempty"`
}

// action is a prefab action: a toolCall or a showToast.
type action struct {
	Action    string         `json:"action"`
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	ResultKey string         `json:"resultKey,omitempty"` // where the renderer keeps the call's result
	Message   string         `json:"message,omitempty"`
	Variant   string         `json:"variant,omitempty"`
	OnSuccess *action        `json:"onSuccess,omitempty"`
	OnError   *action        `json:"onError,omitempty"`
}

func boolPtr(b bool) *bool { return &b }

// formView builds the tree autoForm builds, with the documented
// differences, for fields already checked.
func formView(fields []AutoFormField, submitTool string, o *DisplayFormOptions) (*node, error) {
	orDefault := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	submit := &action{
		Action:    "toolCall",
		Tool:      submitTool,
		Arguments: make(map[string]any, len(fields)),
		OnSuccess: &action{Action: "showToast", Message: orDefault(o.SuccessMessage, defaultSuccessMessage), Variant: "success"},
		OnError:   &action{Action: "showToast", Message: orDefault(o.ErrorMessage, defaultErrorMessage), Variant: "error"},
	}
	controls := make([]*node, 0, len(fields)+1)
	for i := range fields {
		f := &fields[i]
		c, err := f.control()
		if err != nil {
			return nil, err
		}
		controls = append(controls, c)
		submit.Arguments[f.Name] = f.argumentTemplate()
	}
	controls = append(controls, &node{
		Type: "Button", CSSClass: "w-full", Label: orDefault(o.SubmitLabel, defaultSubmitLabel),
		Variant: "default", Size: "default", Disabled: boolPtr(false), Submit: true,
	})
	form := &node{Type: "Form", OnSubmit: submit, Children: []*node{{Type: "Column", CSSClass: "gap-4", Children: controls}}}
	var children []*node
	if o.Title != "" {
		children = append(children, &node{Type: "Heading", Content: o.Title, Level: 1})
	}
	if o.Subtitle != "" {
		children = append(children, &node{Type: "Muted", Content: o.Subtitle})
	}
	children = append(children, &node{Type: "Card", Children: []*node{
		{Type: "CardContent", CSSClass: "py-4", Children: []*node{form}},
	}})
	return &node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: children}, nil
}

// control returns the form control for a field already checked.
func (f *AutoFormField) control() (*node, error) {
	var value json.RawMessage
	if f.Default != nil {
		// Any default is carried, as TypeScript does, even one of the
		// wrong type that the schema leaves out; one that JSON cannot
		// hold is an error rather than a silently different form.
		b, err := json.Marshal(f.Default)
		if err != nil {
			return nil, fieldErr(f.Name, ErrDefault, "%v", err)
		}
		value = b
	}
	switch f.kind() {
	case kindEnum, kindMulti:
		n := &node{Type: "Select", Name: f.Name, Label: f.title(), Placeholder: f.Placeholder, Multiple: f.Multiple, Value: value}
		if f.Required {
			n.Required = boolPtr(true)
		}
		for _, opt := range f.Options {
			label := opt.Label
			if label == "" {
				label = opt.Value
			}
			n.Children = append(n.Children, &node{Type: "SelectOption", Value: mustString(opt.Value), Label: label})
		}
		return n, nil
	case kindNumber:
		if f.Type != TypeRange {
			break
		}
		// A Slider is the one control whose bounds the renderer
		// carries; without them the browser's are 0 to 100, and a
		// range of 0 to 1 could not be answered. Any step between
		// them is fine: the schema asks for a number, not a multiple.
		n := &node{Type: "Slider", Name: f.Name, Label: f.title(), Value: value, Min: f.Min, Max: f.Max, Step: "any"}
		if f.Required {
			n.Required = boolPtr(true)
		}
		return n, nil
	case kindBoolean:
		n := &node{Type: "Checkbox", Name: f.Name, Label: f.title()}
		if f.Required {
			n.Required = boolPtr(true)
		}
		if b, ok := f.Default.(bool); ok {
			n.Checked = boolPtr(b)
		}
		return n, nil
	}
	return &node{
		Type: "Input", Name: f.Name, Label: f.title(), Value: value,
		Required: boolPtr(f.Required), InputType: f.inputType(), Placeholder: f.Placeholder,
		Disabled: boolPtr(false), ReadOnly: boolPtr(false),
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
	case "":
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

// mustString is the JSON of a string, which cannot fail to marshal.
func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// argumentTemplate is the template that reads the field's value back when
// the form is submitted. The checkbox test puts the literal first so that a
// quote in the name cannot hide the operator from the renderer's parser.
func (f *AutoFormField) argumentTemplate() string {
	if f.kind() == kindBoolean {
		return "{{ 'on' == " + f.Name + " }}"
	}
	return "{{ " + f.Name + " }}"
}
