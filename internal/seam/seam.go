// Package seam is the SDK-neutral edge of mcpform's core, for the faces that
// serve an SDK other than go-sdk (the mcpgo package). The root package fills
// in its functions when it is initialised; a face converts its SDK's call
// into a [Call], calls them, and converts what they return into its SDK's
// result. It lives under internal/ so that it is no part of any public API.
// The core it reaches is the root package, which is also go-sdk's face: it
// imports go-sdk, and a face for another SDK imports both.
package seam

import (
	"context"
	"encoding/json"
	"sync/atomic"
)

// An Answer is a client's answer to one input request: its action
// ("accept", "decline", "cancel" or anything a hostile client sent) and its
// content as decoded JSON, which the core judges; nil content is an empty
// object.
type Answer struct {
	Action  string
	Content any
}

// Answers are a client's answers to input requests, by key.
type Answers interface {
	// Answer returns the answer under key, and false when there is none.
	Answer(key string) (Answer, bool)
}

// A Call is what the core needs of one tool call, read from a face's SDK.
type Call interface {
	Answers
	// Tool is the called tool's name.
	Tool() string
	// Arguments are the call's arguments as JSON; nil for none.
	Arguments() (json.RawMessage, error)
	// State is the echoed requestState; "" on a first call.
	State() string
	// Context is the tool handler's context, or nil when the SDK's face
	// has none.
	Context() context.Context
	// Modes reports which elicitation modes the client declared.
	Modes() (form, url bool)
	// CapabilityError is the face's error for a client that cannot answer
	// what is asked: form mode, URL mode, or both.
	CapabilityError(form, url bool) error
	// StateError is the face's error for a state that does not verify;
	// err is one of mcpform's request-state errors.
	StateError(err error) error
}

// A Request is one input request, for a face to put into its SDK's
// input_required result.
type Request struct {
	Key     string
	Mode    string // "form" or "url"
	Message string
	Schema  any    // form mode: the requested schema, a json.RawMessage
	URL     string // URL mode: the link
	// Face is, for a form's request as compiled (its own message and
	// schema, nothing to name or pre-fill), a slot of that compiled form
	// where a face keeps what it builds from the request, to reuse in
	// every later ask of the form; nil for any other request. What a
	// face stores there must never be modified.
	Face *atomic.Value
}

// A Round is the outcome of one round of a flow; its fields are those of
// mcpform.FlowRound, with the result as Requests and State.
type Round struct {
	Status   int // an mcpform.FlowStatus
	Requests []Request
	State    string
	Answers  map[string]any
	Step     string
	Problems any // []*mcpform.FieldError
	Attempt  int
	ID       string
	// Core is the root package's *mcpform.FlowRound, for [Once].
	Core any
}

// The core's entry points, set by the root package's init. form is a
// *mcpform.Form[T], reply a *mcpform.Reply[T] of the same T, flow a
// *mcpform.Flow.
var (
	// Read judges the answer under form's key and stores it in reply.
	Read func(form any, answers Answers, reply any)
	// Ask returns form's request for call's client, or the error of
	// Call.CapabilityError, or the refusal of a form with secret fields.
	Ask func(form any, call Call) (Request, error)
	// Reask returns form's request asked again after a reply with
	// accepted answers and problems ([]*mcpform.FieldError).
	Reask func(form any, accepted map[string]any, problems any) Request
	// Next runs one round of flow for call.
	Next func(flow any, call Call) (Round, error)
	// Once is mcpform.FlowRound.Once on the outcome's JSON, for round, a
	// Round's Core: the face marshals its own result for do, and decodes
	// what Once returns, so that one store serves every SDK.
	Once func(ctx context.Context, round any, do func(context.Context) ([]byte, error)) ([]byte, error)
)
