package mcpform

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PathFor returns the path to ask the client whose capabilities are caps
// by, in the order [Flow.Next] and [Form.Ask] take: [PathNative] when it declared
// form elicitation (an elicitation capability with form set, or with
// neither form nor url set, which the spec keeps meaning form for clients
// that predate modes), else [PathView] when it renders MCP Apps (its
// capabilities carry the [AppsExtension] extension with [AppMIMEType]
// among its mimeTypes), else [PathNone]: return [NeedCapabilities] rather
// than a request it cannot read, or ask through the model (see
// [FlowOptions].AskModel). A nil caps declares nothing and gets PathNone.
// A handler that asks by hand picks its way with PathFor; [Form.Ask] and
// [Flow.Next] pick it themselves.
//
// Pass req.ClientCapabilities() of a tool request: on 2026-07-28 it reads
// the capabilities the client sent with that request, in
// _meta["io.modelcontextprotocol/clientCapabilities"], and on older
// revisions those it declared at initialize. The spec requires a server
// to send only the input requests a client declared.
func PathFor(caps *mcp.ClientCapabilities) Path {
	switch {
	case clientSupportsForm(caps):
		return PathNative
	case clientSupportsApps(caps):
		return PathView
	}
	return PathNone
}

// clientSupportsForm reports whether caps declare form-mode elicitation.
func clientSupportsForm(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// clientSupportsURL reports whether caps declare URL-mode elicitation, the
// only mode in which a server may ask for secrets such as passwords or API
// keys.
func clientSupportsURL(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// clientSupportsApps reports whether caps declare that the client renders
// MCP Apps.
func clientSupportsApps(caps *mcp.ClientCapabilities) bool {
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

// FormCapability returns the capabilities a form needs, form-mode
// elicitation ({"elicitation": {"form": {}}}), for [NeedCapabilities]. Each
// call returns a new value.
func FormCapability() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
}

// NeedCapabilities returns the JSON-RPC error the spec defines for a client
// that lacks a capability the call needs (MissingRequiredClientCapabilities):
// a *jsonrpc.Error with code -32021 ([mcp.CodeMissingRequiredClientCapabilities])
// whose data is [mcp.MissingRequiredClientCapabilityData] naming required.
// A nil required means [FormCapability]().
//
// Return it from the tool handler as it is, not wrapped, for the reason
// given at [RejectState]. Over streamable HTTP on 2026-07-28, go-sdk
// sends it with status 400, as the spec asks.
func NeedCapabilities(required *mcp.ClientCapabilities) error {
	if required == nil {
		required = FormCapability()
	}
	data, err := capabilityData(required)
	if err != nil {
		// Only a caller's unmarshallable Experimental or Extensions
		// value gets here; the code still tells the client what is wrong.
		data = nil
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capabilities",
		Data:    data,
	}
}

// capabilityData marshals {"requiredCapabilities": required}. Marshalling
// mcp.ClientCapabilities as it is would always add "roots": {}, its
// deprecated non-pointer field, and so claim that roots are required; the
// roots go out only when RootsV2 or the old field sets them, as go-sdk's own
// wire form of capabilities does.
func capabilityData(required *mcp.ClientCapabilities) (json.RawMessage, error) {
	b, err := json.Marshal(required)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "roots")
	if r := required.RootsV2; r != nil {
		if m["roots"], err = json.Marshal(r); err != nil {
			return nil, err
		}
	} else if required.Roots.ListChanged {
		m["roots"] = json.RawMessage(`{"listChanged":true}`)
	}
	return json.Marshal(map[string]any{"requiredCapabilities": m})
}
