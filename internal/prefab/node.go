// Package prefab builds the MCP Apps views of mcpform in the wire format of
// @maxhealth.tech/prefab 0.3 ($prefab 0.3), and the viewer page that renders
// them with prefab 0.3.13's renderer, embedded unmodified.
//
// It takes neutral inputs: fields as [Field], a step's round as [Step], and
// the view's words as [Text]. It knows nothing of forms, flows or checks.
package prefab

import "encoding/json"

// Version is the $prefab wire version the renderer of
// @maxhealth.tech/prefab 0.3.x reads.
const Version = "0.3"

// A Node is one component of a view's tree, with the props of every
// component mcpform uses. Pointers to bool mark props that prefab's
// TypeScript emits even when false, on some components only.
type Node struct {
	Type        string          `json:"type"`
	ID          string          `json:"id,omitempty"` // the element's id, which the renderer sets on any
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
	Condition   string          `json:"condition,omitempty"`  // of an If
	Expression  string          `json:"expression,omitempty"` // of a ForEach: the list
	Href        string          `json:"href,omitempty"`       // of a Link
	Target      string          `json:"target,omitempty"`     // of a Link
	OnSubmit    *Action         `json:"onSubmit,omitempty"`
	OnClick     *Action         `json:"onClick,omitempty"` // of a Button that does not submit
	Children    []*Node         `json:"children,omitempty"`
}

// An Action is a prefab action: a toolCall or a showToast.
type Action struct {
	Action    string         `json:"action"`
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	ResultKey string         `json:"resultKey,omitempty"` // where the renderer keeps the call's result
	Message   string         `json:"message,omitempty"`
	Variant   string         `json:"variant,omitempty"`
	OnSuccess *Action        `json:"onSuccess,omitempty"`
	OnError   *Action        `json:"onError,omitempty"`
}

func boolPtr(b bool) *bool { return &b }
