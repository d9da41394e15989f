package mcpgo

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// mcp-go v1.2.1 sends every error a tool handler returns as JSON-RPC
// -32603 with the error's text, except mcp.URLElicitationRequiredError on
// the legacy handshake; neither its hooks, its tool middleware nor its
// transports let a server choose another code for tools/call. So each of
// these errors carries the JSON-RPC error the spec gives it (wire), which
// ServeStdio and NewStreamableHTTPServer send in place of mcp-go's -32603;
// on another transport its text is the spec's message and, for a
// capability, its data. Each also wraps mcp-go's own error for the spec's
// code, so that errors.Is and errors.As find it, and a future mcp-go that
// maps it sends the right code unchanged.

// wireError is a JSON-RPC error object as the spec gives it.
type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// specError is an error mcpform made whose JSON-RPC code the spec gives.
// Its method is unexported, so no other package's error is one.
type specError interface {
	error
	wire() wireError
}

// stateError is the error for a request state that does not verify: the
// spec's -32602 "Invalid or expired requestState". Its text never carries
// the token or why it failed; Unwrap gives both mcp.ErrInvalidParams and
// the mcpform error (such as mcpform.ErrMAC) for the server's own logs.
type stateError struct{ err error }

func (e stateError) Error() string {
	return `invalid params: Invalid or expired requestState {"reason":"invalid_request_state"}`
}

func (e stateError) Unwrap() []error { return []error{mcp.ErrInvalidParams, e.err} }

func (e stateError) wire() wireError {
	return wireError{mcp.INVALID_PARAMS, "Invalid or expired requestState", json.RawMessage(`{"reason":"invalid_request_state"}`)}
}

// capabilityError is the error for a client that declared no way to
// answer: the spec's -32021, whose data names the required capabilities.
type capabilityError struct{ data string }

func (e capabilityError) Error() string {
	return `missing required client capabilities: ` + e.data
}

func (e capabilityError) Unwrap() error {
	return mcp.MissingRequiredClientCapabilityError{Capability: "elicitation"}
}

func (e capabilityError) wire() wireError {
	return wireError{mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capabilities", json.RawMessage(e.data)}
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
