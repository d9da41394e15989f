package mcpform

import (
	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [InputRequestOptions].
const (
	DefaultInputKey     = "form"
	DefaultInputMessage = "Please provide the following information"
)

// InputRequestOptions configures [FormInputRequest]. A nil *InputRequestOptions
// and zero fields mean the defaults.
type InputRequestOptions struct {
	// Key names the request in the result's InputRequests; the client
	// answers under the same key. Empty means [DefaultInputKey].
	Key string
	// Message is shown to the person above the form. Empty means
	// [DefaultInputMessage].
	Message string
	// RequestState is echoed by the client on the retry. It comes back
	// attacker-controlled: seal it with a [RequestStateCodec]. Empty sends
	// no state.
	RequestState string
}

// FormInputRequest returns a tool result that asks the client to collect
// fields and retry the call: an input_required result carrying one form
// elicitation under opts.Key, whose schema is [FormSchema] of fields, and
// opts.RequestState.
//
// Return the result from a tool handler as it is. On the retry, read the
// answer with [AcceptedFormInput] under the same key. For a client older than
// protocol revision 2026-07-28, go-sdk fulfils the request itself by sending
// elicitation/create and calls the handler again, so the same handler serves
// both.
//
// FormInputRequest refuses an empty field list with [ErrNoFields], because
// the client would have nothing to ask, and a broken definition as
// [FormSchema] does.
func FormInputRequest(fields []AutoFormField, opts *InputRequestOptions) (*mcp.CallToolResult, error) {
	schema, err := FormSchema(fields)
	if err != nil {
		return nil, err
	}
	var o InputRequestOptions
	if opts != nil {
		o = *opts
	}
	if o.Key == "" {
		o.Key = DefaultInputKey
	}
	if o.Message == "" {
		o.Message = DefaultInputMessage
	}
	return inputRequired(mcp.InputRequestMap{
		o.Key: legacy.Own(&mcp.ElicitParams{Mode: "form", Message: o.Message, RequestedSchema: schema}),
	}, o.RequestState), nil
}

// inputRequired returns the input_required result of requests and state.
// Its content is an empty list, as mcp-go writes it: go-sdk writes a nil
// one as "content": null, which the 2026-07-28 schema's
// InputRequiredResult does not have, and a strict client may refuse.
func inputRequired(requests mcp.InputRequestMap, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: requests, RequestState: state}
}
