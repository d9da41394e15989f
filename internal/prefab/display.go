package prefab

import (
	"bytes"
	"encoding/json"
)

// Defaults of [Display], the same as the TypeScript autoForm's.
const (
	DefaultSubmitLabel    = "Submit"
	DefaultSuccessMessage = "Success!"
	DefaultErrorMessage   = "Something went wrong"
)

// A Form is what [Display] shows: fields under a title, submitted to Tool.
// Empty strings mean the defaults, and no title or subtitle.
type Form struct {
	Tool                         string
	Title, Subtitle              string
	SubmitLabel                  string
	SuccessMessage, ErrorMessage string
	Fields                       []Field
}

// displayWire is the $prefab wire object of a form: a version and a view.
type displayWire struct {
	Prefab wireVersion `json:"$prefab"`
	View   *Node       `json:"view"`
}

// Display returns the $prefab wire object of f as the tree prefab's
// display_form builds, as JSON that keeps "<" and "&" as they are, as
// JSON.stringify does: its text block is read by people and models.
func Display(f *Form) ([]byte, error) {
	view, err := formView(f)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	w := displayWire{Prefab: wireVersion{Version}, View: &Node{Type: "Div", CSSClass: "pf-app-root", Children: []*Node{view}}}
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// formView builds the tree autoForm builds, with the differences the
// package mcpform documents.
func formView(f *Form) (*Node, error) {
	orDefault := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	submit := &Action{
		Action:    "toolCall",
		Tool:      f.Tool,
		Arguments: make(map[string]any, len(f.Fields)),
		OnSuccess: &Action{Action: "showToast", Message: orDefault(f.SuccessMessage, DefaultSuccessMessage), Variant: "success"},
		OnError:   &Action{Action: "showToast", Message: orDefault(f.ErrorMessage, DefaultErrorMessage), Variant: "error"},
	}
	controls := make([]*Node, 0, len(f.Fields)+1)
	for i := range f.Fields {
		c, err := Control(&f.Fields[i])
		if err != nil {
			return nil, err
		}
		controls = append(controls, c)
		submit.Arguments[f.Fields[i].Name] = argumentTemplate(&f.Fields[i])
	}
	controls = append(controls, &Node{
		Type: "Button", CSSClass: "w-full", Label: orDefault(f.SubmitLabel, DefaultSubmitLabel),
		Variant: "default", Size: "default", Disabled: boolPtr(false), Submit: true,
	})
	form := &Node{Type: "Form", OnSubmit: submit, Children: []*Node{{Type: "Column", CSSClass: "gap-4", Children: controls}}}
	var children []*Node
	if f.Title != "" {
		children = append(children, &Node{Type: "Heading", Content: f.Title, Level: 1})
	}
	if f.Subtitle != "" {
		children = append(children, &Node{Type: "Muted", Content: f.Subtitle})
	}
	children = append(children, &Node{Type: "Card", Children: []*Node{
		{Type: "CardContent", CSSClass: "py-4", Children: []*Node{form}},
	}})
	return &Node{Type: "Column", CSSClass: "p-6 max-w-2xl gap-5", Children: children}, nil
}
