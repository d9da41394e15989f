package prefab

import "encoding/json"

// CompanionRefusal is the message of the JSON-RPC error, code -32602
// (invalid params), with which every face refuses a call of the viewer's
// companion tool that [Reach] refuses.
const CompanionRefusal = "the view's submit names no tool under " + ToolArgument + " attached to the viewer"

// Reach decides, for every face alike, which tool a call of the viewer's
// companion tool reaches: the tool named under ToolArgument in
// args, the call's decoded arguments, when it is a tool of the server
// other than the companion and it shows its results in the viewer at uri
// (its _meta.ui.resourceUri is uri, as AttachViewer sets it). lookup
// returns a tool's _meta by name, and false for a tool the server does
// not have. Reach returns false for any other call, which the face
// refuses with [CompanionRefusal]: the companion opens no way to a tool
// that no view of the viewer shows, so a view's submit can never reach
// what the server keeps from the model or the client by other rules.
func Reach(args any, uri string, lookup func(tool string) (meta map[string]any, ok bool)) (string, bool) {
	m, _ := args.(map[string]any)
	tool, _ := m[ToolArgument].(string)
	if tool == "" || tool == CompanionTool {
		return "", false
	}
	meta, ok := lookup(tool)
	if !ok || !Attached(meta, uri) {
		return "", false
	}
	return tool, true
}

// Attached reports whether a tool whose _meta is meta shows its results
// in the viewer at uri: its _meta.ui.resourceUri is uri, or, without a
// "ui" object, its deprecated flat _meta["ui/resourceUri"] is. A "ui"
// object of another Go type than a map is read as its JSON.
func Attached(meta map[string]any, uri string) bool {
	if meta == nil {
		return false
	}
	switch ui := meta["ui"].(type) {
	case map[string]any:
		return ui["resourceUri"] == uri
	case nil:
		return meta["ui/resourceUri"] == uri
	default:
		b, err := json.Marshal(ui)
		var v struct {
			ResourceURI string `json:"resourceUri"`
		}
		return err == nil && json.Unmarshal(b, &v) == nil && v.ResourceURI == uri
	}
}
