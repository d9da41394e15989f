// Package seam is the typed edge between mcpform's core and a face that
// serves it through an SDK other than go-sdk (the mcpgo package), in the
// manner of database/sql/driver: the face implements [Call], reading its
// SDK's tool call; the core, reached through [Form] and [Flow], judges the
// call and returns one neutral [Presentation] per round; the face renders
// that in its SDK's types. The compiler checks both sides: no hook is
// filled in at init, and nothing crosses as an untyped value.
//
// The root package is also go-sdk's face, so the core's forms and flows
// are its types; each hands out its side of the seam with a Seam method,
// whose result only this module can name. It lives under internal/ so
// that it is no part of any public API.
package seam

import (
	"context"
	"encoding/json"
)

// An Answer is a client's answer to one input request: its action
// ("accept", "decline", "cancel" or anything a hostile client sent) and its
// content as decoded JSON, which the core judges; nil content is an empty
// object.
type Answer struct {
	Action string
	// Content is the answer's content as the SDK decoded it, or, when
	// the face has the bytes the client wrote, those bytes as a
	// json.RawMessage, which the core reads itself: numbers as written,
	// and a value that says two things (a key given twice, invalid
	// UTF-8, a lone surrogate escape) asked again, never read as U+FFFD.
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
	// Modes reports which elicitation modes the client declared.
	Modes() (form, url bool)
	// Apps reports whether the client declared that it renders MCP Apps
	// views (the io.modelcontextprotocol/ui extension).
	Apps() bool
	// Legacy reports whether the client is older than 2026-07-28, so that
	// the SDK's bridge asks native requests with elicitation/create.
	Legacy() bool
	// ViaView reports whether the call came through the viewer's
	// app-only companion tool, as a view's submit: a mark only the face
	// itself can set, never anything the client sent.
	ViaView() bool
	// EndView gives a call that came through the companion (ViaView),
	// and that ended the flow, the view of the tool's last result, which
	// a view's renderer shows only as a view: view returns, for the JSON
	// of the result the handler returns, the structuredContent of the
	// view that shows it, or nil for a result that holds a view already.
	// The face's companion puts that in place of the result's own, before
	// the result reaches the view; the model never sees it. A call that
	// did not come through the companion ignores it.
	EndView(view func(result json.RawMessage) ([]byte, error))
	// AcceptLanguage is the person's languages as the call carries them:
	// its acceptLanguage _meta (SEP-2792), else the HTTP Accept-Language
	// header of its request; "" for none.
	AcceptLanguage() string
	// CapabilityError is the face's error for a client that cannot answer
	// what is asked: form mode, URL mode, or both.
	CapabilityError(form, url bool) error
	// StateError is the face's error for a state that does not verify;
	// err is one of mcpform's request-state errors.
	StateError(err error) error
	// ArgumentsError is the face's invalid-params (-32602) error for
	// arguments that cannot be bound, such as arguments that say two
	// things; err says why.
	ArgumentsError(err error) error
}

// A Request is one input request, for a face to put into its SDK's
// input_required result.
type Request struct {
	Key     string
	Mode    string // "form" or "url"
	Message string
	// Schema is, in form mode, the requested schema, a json.RawMessage
	// (typed as a json.Marshaler so that the form's, boxed once when it
	// was compiled, reaches the SDK's any with no allocation); its bytes
	// may be shared with every other ask of the form: never modify them.
	Schema json.Marshaler
	URL    string // URL mode: the link
	// Meta is the request's _meta, a map encoding/json marshals: a
	// re-ask's notes of its problems, for machines; nil for none.
	Meta map[string]any
}

// A Kind is the way a round asks, or that it asks nothing.
type Kind int

const (
	// Outcome: the round asks nothing; the flow ended, and the handler
	// returns its own result.
	Outcome Kind = iota
	// Native: input requests in an input_required result.
	Native
	// Legacy: the same, for a client older than 2026-07-28, which the
	// SDK's own bridge (mcp-go's, or go-sdk's with AddLegacyRounds) asks
	// with elicitation/create and answers by calling the handler again.
	// A face renders it as Native.
	Legacy
	// View: an MCP Apps view, which submits through the companion tool.
	View
	// Link: an ordinary result that gives the person a secret page's
	// link and the arguments of the next call.
	Link
	// Model: an ordinary result that asks the model to collect the
	// answers and call the tool again with them.
	Model
)

// A Presentation is what one round sends, the core's neutral description
// of it; a face renders it in its SDK's result type.
type Presentation struct {
	Kind Kind
	// Requests and State are a Native or Legacy round's input requests
	// and its requestState.
	Requests []Request
	State    string
	// Text and Structured are the result of a View, Link or Model round:
	// its one text content block, for the model, and its
	// structuredContent, a value encoding/json marshals. Never modify
	// Structured: it may be shared.
	Text       string
	Structured any
	// Meta is a View, Link or Model result's _meta besides Language: a
	// re-ask's notes of its problems, for machines; nil for none.
	Meta map[string]any
	// Language is the language of the round's words, a BCP 47 tag, for
	// the result's contentLanguage _meta (SEP-2792); "" for English.
	Language string
}

// A Form is a compiled form as a face reaches it; R is its reply type,
// mcpform.Reply[T]. The core chooses the form's path and reads its
// answer, so that every face asks a host the same way.
type Form[R any] interface {
	// Read judges the answer under the form's key, in input responses.
	Read(a Answers) R
	// ReadCall reads the form's answer in call on whichever path it came:
	// the input responses, or a view's or the model's arguments with a
	// state the form minted. ctx is the tool handler's.
	ReadCall(ctx context.Context, call Call) R
	// Ask returns what asks the form of call's client, natively carrying
	// state, or in a view or through the model; or the error of
	// Call.CapabilityError or Call.StateError, or the refusal of a form
	// with secret fields. ctx is the tool handler's.
	Ask(ctx context.Context, call Call, state string) (Presentation, error)
	// Reask returns what asks the form again after reply, naming its
	// problems and pre-filling what it accepted, on the path reply came
	// by; a native re-ask carries state.
	Reask(reply R, state string) Presentation
}

// A Flow is a compiled flow as a face reaches it; R is the core's round,
// *mcpform.FlowRound.
type Flow[R any] interface {
	// Next runs one round of the flow for call; ctx is the tool
	// handler's. It returns the round and what it sends.
	Next(ctx context.Context, call Call) (R, Presentation, error)
	// Once is mcpform.FlowRound.Once on the outcome's JSON: do returns,
	// for its own result, the function that marshals it, or nil for no
	// result; the store calls it as part of recording the outcome, so
	// that a result that cannot be marshalled is an outcome unknown, not
	// a failed do. The face decodes what Once returns, so that one store
	// serves every SDK.
	Once(ctx context.Context, round R, do func(context.Context) (encode func() ([]byte, error), err error)) ([]byte, error)
	// Wait counts a legacy call, on the session that session names (a
	// comparable value) and from client ("" for none named), that is to
	// wait for its person, in the bounds the core sets on such calls, per
	// session, per client and in all, with the numbers and errors of
	// go-sdk's face (mcpform.AddLegacyRounds with its defaults). It
	// returns the func that uncounts the call when its wait ends, or,
	// beyond a bound, the error that says which, for the face to send as
	// a JSON-RPC error of code -32603 with the error's text as message.
	Wait(session any, client string) (done func(), err error)
}
