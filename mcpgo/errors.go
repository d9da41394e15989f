package mcpgo

import (
	"github.com/mark3labs/mcp-go/mcp"
)

// mcp-go v1.2.1 sends every error a tool handler returns as JSON-RPC
// -32603 with the error's text, except mcp.URLElicitationRequiredError on
// the legacy handshake; neither its hooks, its tool middleware nor its
// transports let a server choose another code for tools/call. These errors
// are therefore the closest the spec allows: a JSON-RPC error, never a
// result the client would take as the call's outcome, whose text is the
// spec's message and, for a capability, its data; and each wraps mcp-go's
// own error for the code the spec gives it, so that errors.Is and
// errors.As find it, and a future mcp-go that maps it sends the right code.

// stateError is the error for a request state that does not verify: the
// spec's -32602 "Invalid or expired requestState". Its text never carries
// the token or why it failed; Unwrap gives both mcp.ErrInvalidParams and
// the mcpform error (such as mcpform.ErrMAC) for the server's own logs.
type stateError struct{ err error }

func (e stateError) Error() string {
	return `invalid params: Invalid or expired requestState {"reason":"invalid_request_state"}`
}

func (e stateError) Unwrap() []error { return []error{mcp.ErrInvalidParams, e.err} }

// capabilityError is the error for a client that declared no way to
// answer: the spec's -32021, whose data names the required capabilities.
type capabilityError struct{ data string }

func (e capabilityError) Error() string {
	return `missing required client capabilities: ` + e.data
}

func (e capabilityError) Unwrap() error {
	return mcp.MissingRequiredClientCapabilityError{Capability: "elicitation"}
}

// newCapabilityError returns the error for a client that must declare
// form mode, URL mode, or both.
func newCapabilityError(form, url bool) error {
	need := ""
	switch {
	case form && url:
		need = `"form":{},"url":{}`
	case form:
		need = `"form":{}`
	case url:
		need = `"url":{}`
	}
	return capabilityError{`{"requiredCapabilities":{"elicitation":{` + need + `}}}`}
}
