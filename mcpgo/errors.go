package mcpgo

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Each error of this face that the spec gives a JSON-RPC code is a
// server.JSONRPCErrorProvider, returned wrapped in server.NewHandlerError:
// mcp-go then sends its code, message and data, in place of -32603, on
// every transport (and on 2026-07-28 streamable HTTP with the status the
// code maps to). Each also unwraps to mcp-go's own error for that code,
// so that errors.Is and errors.As find it in a handler or a hook.

// The compiler checks that each error is one mcp-go sends with its code.
var (
	_ server.JSONRPCErrorProvider = stateError{}
	_ server.JSONRPCErrorProvider = capabilityError{}
	_ server.JSONRPCErrorProvider = companionError{}
	_ server.JSONRPCErrorProvider = waitError{}
	_ server.JSONRPCErrorProvider = argumentsError{}
)

// rpcError returns the JSON-RPC error with code, message and data (none
// when data is nil), as a JSONRPCError method returns it; mcp-go fills
// in the response's id.
func rpcError(code int, message string, data json.RawMessage) mcp.JSONRPCError {
	e := mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION}
	e.Error.Code, e.Error.Message = code, message
	if data != nil {
		e.Error.Data = data
	}
	return e
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

func (e stateError) JSONRPCError() mcp.JSONRPCError {
	return rpcError(mcp.INVALID_PARAMS, "Invalid or expired requestState", json.RawMessage(`{"reason":"invalid_request_state"}`))
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

func (e capabilityError) JSONRPCError() mcp.JSONRPCError {
	return rpcError(mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capabilities", json.RawMessage(e.data))
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
	return server.NewHandlerError(capabilityError{`{"requiredCapabilities":{"elicitation":{` + need + `}}}`})
}

// argumentsError is the error for arguments that cannot be bound, such as
// arguments that say two things (a key given twice, invalid UTF-8, a lone
// surrogate escape): -32602, as go-sdk's face sends it. Unwrap gives both
// mcp.ErrInvalidParams and the mcpform error.
type argumentsError struct{ err error }

func (e argumentsError) Error() string { return "invalid params: " + e.err.Error() }

func (e argumentsError) Unwrap() []error { return []error{mcp.ErrInvalidParams, e.err} }

func (e argumentsError) JSONRPCError() mcp.JSONRPCError {
	return rpcError(mcp.INVALID_PARAMS, e.err.Error(), nil)
}
