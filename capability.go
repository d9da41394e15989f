package mcpform

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An InputPath is a way a client can be asked for input in the middle of a
// tool call.
type InputPath int

const (
	// PathNone: the client declared no way to answer; return
	// [CapabilityError].
	PathNone InputPath = iota
	// PathForm: form-mode elicitation, asked with an input_required form.
	PathForm
	// PathApps: an MCP Apps host, asked with [DisplayForm].
	PathApps
)

// PathFor returns the way to ask a client with capabilities caps: the UI
// on a host that renders MCP Apps, a form to one that declared form
// elicitation, and PathNone otherwise. Nil caps declare nothing.
func PathFor(caps *mcp.ClientCapabilities) InputPath {
	switch {
	case ClientSupportsApps(caps):
		return PathApps
	case ClientSupportsForm(caps):
		return PathForm
	}
	return PathNone
}

// ClientSupportsForm reports whether caps declare form-mode elicitation.
// An elicitation capability naming no mode declares form mode, as the spec
// keeps it for older clients. Nil caps declare nothing.
func ClientSupportsForm(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// ClientSupportsURL reports whether caps declare URL-mode elicitation. Nil
// caps declare nothing.
func ClientSupportsURL(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// CapabilityError returns the JSON-RPC error -32021 that tells a client it
// lacks the capabilities required, for a handler to return as it is.
func CapabilityError(required *mcp.ClientCapabilities) error {
	caps := map[string]any{}
	if required != nil {
		// go-sdk's ClientCapabilities always marshals "roots": {}, which
		// would claim roots are required too.
		b, _ := json.Marshal(required)
		_ = json.Unmarshal(b, &caps)
		if required.RootsV2 == nil && !required.Roots.ListChanged {
			delete(caps, "roots")
		}
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": caps})
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability",
		Data:    data,
	}
}
