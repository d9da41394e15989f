package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DisplayFormOptions configures [DisplayForm]. A nil *DisplayFormOptions and
// zero fields mean the defaults.
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
	// empty too).
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
// host that renders MCP Apps. Submitting the form calls submitTool with the
// values as the call's arguments; read them with [AcceptedFormArguments].
// With opts.Elicit set, DisplayForm returns [FormInputRequest] of fields
// instead: the same fields asked natively, answered on the retry and read
// with [AcceptedFormInput].
//
// The UI result carries the $prefab wire object as StructuredContent, which
// an MCP Apps host hands to the viewer (see [AddViewer]), and the same JSON
// as Content[0], a text block, for hosts and models that read text. Its
// component tree is the one display_form of the TypeScript package
// @maxhealth.tech/prefab emits for the same fields and options, prop for
// prop, with three deliberate differences:
//
//   - The form's toolCall action carries arguments: one "{{ name }}"
//     template per field. TypeScript sends none, so its form calls the
//     tool with {} whatever the person typed. A template that is nothing
//     but one reference passes the raw value, so a multiple choice stays a
//     list.
//   - A checkbox or boolean field is a Checkbox node whose argument is
//     "{{ 'on' == name }}", which is true when the box is ticked and false
//     when it was never ticked or was ticked then cleared. TypeScript
//     renders an Input of type checkbox, which sends "on" even after the
//     box is cleared.
//   - An unlabeled field's label is its title in [FormSchema] ("First
//     Name"), so both paths ask in the same words. TypeScript humanizes the
//     UI label by a second rule ("First name").
//
// Like TypeScript's, the form does not show Description and does not
// enforce Min and Max. It carries Default in a value prop, which prefab's
// renderer does not read: an input starts empty and a select at its first
// option, and what the person sees is what is sent. A Checkbox's default
// does show ticked. The browser accepts only whole numbers in a number
// input, whose default step is 1, and a range input always sends a value,
// 50 when untouched. Labels, titles and placeholders are read by the
// renderer as templates, so "{{ … }}" in them is evaluated.
//
// The renderer reads values back through its template language and
// camel-cases "_x" to "X" in argument keys, so a submitted full_name
// arrives as fullName; [AcceptedFormArguments] maps it back. A name the
// template language cannot read back, or one whose renamed key collides
// with another field, is refused with a [*FieldError] wrapping [ErrName]:
// a name with leading or trailing space or a control character; one
// containing "{{", "}}", "|", "?", "<", ">", "&&", "==" or "!=", or an
// operator between spaces such as " - "; one starting with "$" or "!"; a
// literal such as true, null, 42 or a quoted string; a property every
// JavaScript object has, such as constructor or toString; and a dotted name
// such as "a.b" that overlaps another field's ("a", or "a.b.c"). The
// native path (opts.Elicit) carries every name.
//
// An empty fields is refused with [ErrNoFields] and a broken definition as
// [FormSchema] refuses it, on both paths. An empty submitTool is refused on
// the UI path, where the form would have nothing to call.
//
// The native request differs from the TypeScript display_form's in one
// deliberate way: its key defaults to submitTool, not "form", so a handler
// reads the answer with AcceptedFormInput(responses, submitTool, fields)
// without repeating a key.
func DisplayForm(fields []AutoFormField, submitTool string, opts *DisplayFormOptions) (*mcp.CallToolResult, error) {
	var o DisplayFormOptions
	if opts != nil {
		o = *opts
	}
	if o.Elicit != nil {
		e := *o.Elicit
		if e.Key == "" {
			e.Key = submitTool
		}
		if e.Message == "" {
			e.Message = o.Title
		}
		return FormInputRequest(fields, &e)
	}
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	if err := checkCarried(fields); err != nil {
		return nil, err
	}
	if submitTool == "" {
		return nil, errors.New("mcpform: DisplayForm needs the name of the submit tool")
	}
	view, err := formView(fields, submitTool, &o)
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
	Multiple    bool            `json:"multiple,omitempty"`
	Checked     *bool           `json:"checked,omitempty"`
	Variant     string          `json:"variant,omitempty"`
	Size        string          `json:"size,omitempty"`
	Disabled    *bool           `json:"disabled,omitempty"`
	ReadOnly    *bool           `json:"readOnly,omitempty"`
	Submit      bool            `json:"submit,omitempty"`
	OnSubmit    *action         `json:"onSubmit,omitempty"`
	Children    []*node         `json:"children,omitempty"`
}

// action is a prefab action: a toolCall or a showToast.
type action struct {
	Action    string            `json:"action"`
	Tool      string            `json:"tool,omitempty"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Message   string            `json:"message,omitempty"`
	Variant   string            `json:"variant,omitempty"`
	OnSuccess *action           `json:"onSuccess,omitempty"`
	OnError   *action           `json:"onError,omitempty"`
}

func boolPtr(b bool) *bool { return &b }

// formView builds the tree autoForm builds, with the three documented
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
		Arguments: make(map[string]string, len(fields)),
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
	inputType := string(f.Type)
	if inputType == "" {
		inputType = string(TypeText)
	}
	return &node{
		Type: "Input", Name: f.Name, Label: f.title(), Value: value,
		Required: boolPtr(f.Required), InputType: inputType, Placeholder: f.Placeholder,
		Disabled: boolPtr(false), ReadOnly: boolPtr(false),
	}, nil
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

// rendererKey is the key under which prefab's renderer delivers an argument
// named name: before it dispatches an action it camel-cases every key,
// turning "_" followed by a letter a to z into that letter upper-cased.
func rendererKey(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		if name[i] == '_' && i+1 < len(name) && 'a' <= name[i+1] && name[i+1] <= 'z' {
			b.WriteByte(name[i+1] - 'a' + 'A')
			i++
			continue
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

// jsObjectKeys are the properties every JavaScript object has, plus the
// ones prefab's state store refuses to walk. The renderer looks a value up
// with the in operator, so an absent value under one of these names would
// read the inherited property instead.
var jsObjectKeys = map[string]bool{
	"__proto__": true, "__defineGetter__": true, "__defineSetter__": true,
	"__lookupGetter__": true, "__lookupSetter__": true, "constructor": true,
	"hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"toLocaleString": true, "toString": true, "valueOf": true, "prototype": true,
}

// templateProblem says why prefab's template language (renderer/rx.js in
// 0.3.13) would not read name back as a plain reference, or returns "".
// The rules are conservative: a name they refuse might survive by luck,
// but every name they allow is read back as the value the person entered.
func templateProblem(name string) string {
	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)
	if isJSSpace(first) || isJSSpace(last) {
		return "leading or trailing space is trimmed"
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "a control character"
		}
	}
	for _, s := range [...]string{"{{", "}}", "|", "?", "<", ">", "&&", "==", "!=", " + ", " - ", " * ", " / ", " % "} {
		if strings.Contains(name, s) {
			return fmt.Sprintf("%q is an operator or a template brace", s)
		}
	}
	if name[0] == '$' || name[0] == '!' {
		return fmt.Sprintf("a leading %q is an operator or a scope variable", name[0])
	}
	switch name {
	case "true", "false", "null", "undefined":
		return "it reads as a literal"
	}
	if isNumberLiteral(name) || len(name) >= 1 && (name[0] == '\'' && name[len(name)-1] == '\'' || name[0] == '"' && name[len(name)-1] == '"') {
		return "it reads as a literal"
	}
	for _, seg := range strings.Split(name, ".") {
		if jsObjectKeys[seg] {
			return fmt.Sprintf("%q is a property of every JavaScript object", seg)
		}
	}
	return ""
}

// isJSSpace reports whether JavaScript's String.prototype.trim removes r,
// or could: Go's wider notion of space (U+0085) is kept on the safe side.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// isNumberLiteral matches the renderer's number literal, /^-?\d+(\.\d+)?$/.
func isNumberLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	return allDigits(intPart) && (!hasFrac || allDigits(frac))
}

func allDigits(s string) bool {
	_, ok := digits(s) // its value may overflow; only ok matters here
	return s != "" && ok
}

// checkCarried reports the first field whose value the UI cannot carry back
// to the submit tool under a key AcceptedFormArguments maps to it alone.
func checkCarried(fields []AutoFormField) error {
	for i := range fields {
		name := fields[i].Name
		if p := templateProblem(name); p != "" {
			return fieldErr(name, ErrName, "the prefab renderer cannot read it back: %s", p)
		}
		key := rendererKey(name)
		for j := range i {
			other := fields[j].Name
			if key == other || key == rendererKey(other) || name == rendererKey(other) {
				return fieldErr(name, ErrName, "the prefab renderer delivers it and %q under the same key %q", other, key)
			}
			// The renderer's state store reads "a.b" as a path, so "a"
			// and "a.b" would overwrite each other.
			if strings.HasPrefix(name, other+".") || strings.HasPrefix(other, name+".") {
				return fieldErr(name, ErrName, "the prefab renderer stores it and %q on one path", other)
			}
		}
	}
	return nil
}

// AcceptedFormArguments returns the accepted values of a submitted
// [DisplayForm], checked against fields, and whether the answer was
// accepted. Pass the submit tool's raw arguments, req.Params.Arguments.
//
// A browser does not send what a native client sends, so the values are
// first made typed, field by field:
//
//   - "" means absent, for every field;
//   - for a number, integer or range field, a string in the form of an
//     HTML number ("42", "-1.5", "2e3") becomes that number; anything else,
//     such as " 42", "0x10", "NaN" or "1e999", is left as it is, and so is
//     dropped as not a number;
//   - for a checkbox or boolean field, "on" becomes true, and an absent
//     value false;
//   - a key the renderer camel-cased (fullName for a field full_name) is
//     read as that field's, unless the field's own name was sent too.
//
// Nothing else is converted: a list for a single choice, or one string for
// a multiple choice, is dropped. Then the rules of [AcceptedFormInput]
// apply, unchanged, so a handler gets the same [Answers] whichever path the
// person took: values outside the field's schema, such as a number below
// Min (the browser does not enforce it), are dropped, and a missing
// required field fails the whole answer.
//
// AcceptedFormArguments returns nil, false when args is not a JSON object,
// when it is an object with no keys, which is what a first call carries
// (the submitted form always sends its fields), when a required value is
// missing or invalid, and when fields is broken. To learn why, call
// [CheckFormArguments].
func AcceptedFormArguments(args json.RawMessage, fields []AutoFormField) (Answers, bool) {
	a, _ := CheckFormArguments(args, fields)
	return a, a != nil
}

// CheckFormArguments is [AcceptedFormArguments] with the reasons, reported
// as [CheckFormInput] reports them and named by field, whatever key the
// renderer used. When args is not a JSON object or has no keys there is no
// answer to check, and CheckFormArguments returns nil, nil.
func CheckFormArguments(args json.RawMessage, fields []AutoFormField) (Answers, []*FieldError) {
	raw, ok := decodeArguments(args)
	if !ok {
		return nil, nil
	}
	return checkContent(normalizeArguments(raw, fields), fields)
}

// decodeArguments decodes a JSON object with its numbers kept as written,
// so that one out-of-range number fails its field, not the whole answer.
func decodeArguments(args json.RawMessage) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || len(m) == 0 {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data: not one JSON value
	}
	return m, true
}

// normalizeArguments turns what a browser sent into the typed content
// checkContent judges. It never reads beyond the field list: keys that name
// no field are passed on for checkContent to drop.
func normalizeArguments(raw map[string]any, fields []AutoFormField) map[string]any {
	content := make(map[string]any, len(raw))
	for k, v := range raw {
		if fieldIndex(fields, k) < 0 {
			if i := renamedField(fields, k); i >= 0 {
				if _, sent := raw[fields[i].Name]; !sent {
					k = fields[i].Name
				}
			}
		}
		content[k] = v
	}
	for i := range fields {
		f := &fields[i]
		v, present := content[f.Name]
		if s, ok := v.(string); present && ok && s == "" {
			delete(content, f.Name)
			present = false
		}
		switch f.kind() {
		case kindBoolean:
			if !present {
				content[f.Name] = false
			} else if v == "on" {
				content[f.Name] = true
			}
		case kindNumber, kindInteger:
			if present {
				content[f.Name] = browserNumber(v)
			}
		}
	}
	return content
}

// renamedField returns the index of the one field the renderer delivers
// under key, when key is not its name, or -1.
func renamedField(fields []AutoFormField, key string) int {
	found := -1
	for i := range fields {
		if fields[i].Name != key && rendererKey(fields[i].Name) == key {
			if found >= 0 {
				return -1 // ambiguous: DisplayForm refuses such lists
			}
			found = i
		}
	}
	return found
}

// browserNumber returns v as a float64 when it is a finite JSON number or a
// string in the form of an HTML valid floating-point number, and v as it is
// otherwise, for checkContent to refuse.
func browserNumber(v any) any {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case string:
		if !isHTMLNumber(n) {
			return v
		}
		s = n
	default:
		return v
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return v // out of range: not a number any JSON Schema accepts
	}
	return f
}

// isHTMLNumber reports whether s is an HTML valid floating-point number:
// an optional '-', digits with an optional fraction or a fraction alone,
// and an optional exponent. It is what an <input type=number> submits, and
// nothing a person would have to guess at: no sign '+', no space, no hex,
// no NaN or Infinity.
func isHTMLNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(s, "E")
	}
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	if intPart == "" && !hasFrac || intPart != "" && !allDigits(intPart) || hasFrac && !allDigits(frac) {
		return false
	}
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		return allDigits(exp)
	}
	return true
}

// The MCP Apps names the viewer helpers use.
const (
	// ViewerURI is the default URI of the viewer resource.
	ViewerURI = "ui://mcpform/viewer"
	// AppMIMEType is the MIME type of an MCP Apps HTML resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppsExtension is the identifier under which a client or server
	// declares MCP Apps support in its capabilities' extensions.
	AppsExtension = "io.modelcontextprotocol/ui"
	// DefaultRendererBaseURL is where the viewer loads prefab.css and
	// renderer.auto.min.js from by default: the jsDelivr path of the
	// @maxhealth.tech/prefab version mcpform's wire matches, the same
	// location prefab's own rendererHtml uses.
	DefaultRendererBaseURL = "https://cdn.jsdelivr.net/npm/@maxhealth.tech/prefab@0.3.13/dist"
)

// ViewerOptions configures the MCP Apps viewer resource. A nil
// *ViewerOptions and zero fields mean the defaults.
type ViewerOptions struct {
	// URI is the resource's ui:// URI. Empty means [ViewerURI].
	URI string
	// BaseURL is the absolute http or https URL of the folder that holds
	// prefab's prefab.css and renderer.auto.min.js. Empty means
	// [DefaultRendererBaseURL]. A server that serves them itself must
	// send Access-Control-Allow-Origin, because the viewer's sandboxed
	// frame has an opaque origin and loads them with crossorigin.
	BaseURL string
	// Title is the resource's title and the page's. Empty means "Form".
	Title string
}

type viewer struct {
	uri, base, origin, title string
}

func (o *ViewerOptions) resolve() (*viewer, error) {
	v := &viewer{uri: ViewerURI, base: DefaultRendererBaseURL, title: "Form"}
	if o != nil {
		if o.URI != "" {
			v.uri = o.URI
		}
		if o.BaseURL != "" {
			v.base = o.BaseURL
		}
		if o.Title != "" {
			v.title = o.Title
		}
	}
	if !strings.HasPrefix(v.uri, "ui://") || len(v.uri) == len("ui://") {
		return nil, fmt.Errorf("mcpform: viewer URI %q is not a ui:// URI", v.uri)
	}
	u, err := url.Parse(v.base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("mcpform: renderer base URL %q is not an absolute http or https URL of a folder", v.base)
	}
	v.base = strings.TrimSuffix(v.base, "/")
	v.origin = u.Scheme + "://" + u.Host
	return v, nil
}

// meta is the resource's _meta: the CSP a host must allow for the renderer.
func (v *viewer) meta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"csp": map[string]any{"resourceDomains": []string{v.origin}}}}
}

func (v *viewer) html() string {
	base := html.EscapeString(v.base)
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(v.title) + `</title>
<link rel="stylesheet" href="` + base + `/prefab.css" crossorigin>
</head>
<body>
<div id="root"></div>
<script src="` + base + `/renderer.auto.min.js" crossorigin></script>
</body>
</html>
`
}

// ViewerHTML returns the HTML of the MCP Apps viewer that renders a
// [DisplayForm] result: a page that loads prefab's stylesheet and
// self-mounting renderer from opts.BaseURL, with crossorigin. The renderer
// answers the host's ui/* messages and mounts the tool result. The page is
// mcpform's; prefab's code is loaded, never bundled.
//
// ViewerHTML returns an error when opts.URI is not a ui:// URI or
// opts.BaseURL is not an absolute http or https URL without query or
// fragment.
func ViewerHTML(opts *ViewerOptions) (string, error) {
	v, err := opts.resolve()
	if err != nil {
		return "", err
	}
	return v.html(), nil
}

// viewerCacheTTL is how long a client may cache the viewer: its HTML is a
// pure function of the options, so a day is safe, as prefab does.
const viewerCacheTTL = 24 * 60 * 60 * 1000

// AddViewer registers the viewer of [ViewerHTML] on server as an MCP Apps
// resource at opts.URI, with MIME type [AppMIMEType] and the renderer's
// origin in _meta.ui.csp.resourceDomains, on both the listing and the
// content, since hosts read either. The content may be cached for a day.
//
// AddViewer does not declare the MCP Apps extension, which go-sdk fixes
// when the server is created: set it with
// ServerOptions.Capabilities.AddExtension([AppsExtension], nil). It
// returns the errors of ViewerHTML.
func AddViewer(server *mcp.Server, opts *ViewerOptions) error {
	v, err := opts.resolve()
	if err != nil {
		return err
	}
	page, meta := v.html(), v.meta()
	name := strings.ReplaceAll(strings.TrimPrefix(v.uri, "ui://"), "/", "-")
	server.AddResource(&mcp.Resource{URI: v.uri, Name: name, Title: v.title, MIMEType: AppMIMEType, Meta: meta},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{
				Cacheable: mcp.Cacheable{TTLMs: viewerCacheTTL, CacheScope: "public"},
				Contents:  []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: AppMIMEType, Text: page, Meta: meta}},
			}, nil
		})
	return nil
}

// AttachViewer links tool to the viewer at opts.URI, so that a host that
// renders MCP Apps shows the tool's results in it: it sets
// _meta.ui.resourceUri, keeping other keys of tool.Meta and of its "ui"
// object, and the deprecated flat _meta["ui/resourceUri"], which
// @modelcontextprotocol/ext-apps also sets for older hosts. Attach it to
// the tool whose handler returns [DisplayForm]. It returns an error, and
// leaves tool unchanged, when opts.URI is not a ui:// URI.
func AttachViewer(tool *mcp.Tool, opts *ViewerOptions) error {
	v, err := (&ViewerOptions{URI: uriOf(opts)}).resolve()
	if err != nil {
		return err
	}
	if tool.Meta == nil {
		tool.Meta = mcp.Meta{}
	}
	ui, _ := tool.Meta["ui"].(map[string]any)
	merged := make(map[string]any, len(ui)+1)
	for k, x := range ui {
		merged[k] = x
	}
	merged["resourceUri"] = v.uri
	tool.Meta["ui"] = merged
	tool.Meta["ui/resourceUri"] = v.uri
	return nil
}

func uriOf(opts *ViewerOptions) string {
	if opts == nil {
		return ""
	}
	return opts.URI
}

// ClientSupportsApps reports whether a client declared that it renders MCP
// Apps: its capabilities carry the [AppsExtension] extension with
// [AppMIMEType] among its mimeTypes. Pass req.ClientCapabilities() of a tool
// request, which reads the per-request capabilities of protocol 2026-07-28
// and the session's before it. A nil caps declares nothing.
func ClientSupportsApps(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	ext, ok := caps.Extensions[AppsExtension]
	if !ok {
		return false
	}
	var settings struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	// The settings are a decoded map, or whatever a Go client put there;
	// a round trip reads both.
	b, err := json.Marshal(ext)
	if err != nil || json.Unmarshal(b, &settings) != nil {
		return false
	}
	for _, m := range settings.MIMETypes {
		if m == AppMIMEType {
			return true
		}
	}
	return false
}
