// Package mcpform asks a person for input in the middle of an MCP tool call,
// from one field list, for servers built on
// github.com/modelcontextprotocol/go-sdk.
//
// MCP revision 2026-07-28 made the protocol core stateless: a server no
// longer pushes elicitation/create to the client. A tool handler that needs
// input returns an input_required result instead, and the client retries the
// call with the answers. mcpform derives everything that exchange needs from
// a []AutoFormField, so what the client is shown and what the server accepts
// cannot drift apart.
//
// # Fields
//
// An [AutoFormField] describes one input: a name, a [FieldType], and optional
// label, options, bounds and default. Its JSON form is that of the
// TypeScript package @maxhealth.tech/prefab, so one field list can serve a
// TypeScript front end and a Go server. A broken definition, such as a
// duplicate name or a default outside the bounds, is refused by every
// function that takes fields, with a [*FieldError] naming the field and
// wrapping one of [ErrName], [ErrBounds], [ErrOptions] or [ErrDefault].
//
// # Asking for input
//
// [FormSchema] derives the restricted elicitation schema, and
// [FormInputRequest] wraps it in the input_required result a handler
// returns. A handler is written once: read the answer first, ask only when
// there is none, and finish when there is one. For clients older than
// 2026-07-28, go-sdk fulfils the request itself with elicitation/create and
// calls the handler again, so the same handler serves them too; add
// [LegacyRounds] to the server when a call may take more than one round.
//
// # Reading answers
//
// The answer arrives in the retried call's inputResponses and is untrusted:
// go-sdk checks nothing in it. [AcceptedFormInput] keeps a value only when it
// satisfies its field's property schema exactly as a JSON Schema 2020-12
// validator asserting formats would judge it; [CheckFormInput] also says why
// each value was dropped, for asking again. [InputResponse] returns the raw
// answer, to tell a decline or cancel from a first pass. [Answers.Decode]
// fills a struct.
//
// # Request state
//
// A result may carry requestState, which the client echoes on the retry.
// It comes back attacker-controlled. A [RequestStateCodec] seals it with an
// HMAC, binds it to a principal and tool, and expires it, in the token
// format of the TypeScript SDK's createRequestStateCodec, so Go and
// TypeScript servers can share a key. A token that fails to verify is
// answered with the JSON-RPC error clients expect, from
// [RequestStateError].
//
// # Several rounds
//
// The restricted schema is flat. A form that branches on earlier answers,
// or needs a richer shape, runs as a [Flow]: an ordered list of [Step]s,
// each asked under its own key. [Flow.Next] takes one round's request and
// returns the next input request, the merged answers, or the JSON-RPC error
// for a bad state. Earlier answers come back only from the flow's signed
// state, never again from the client, and the state is bound to the tool
// and a principal.
//
// # UI path
//
// On a host that renders MCP Apps, [DisplayForm] returns a prefab form for
// the same fields; submitting it calls the submit tool with the values as
// arguments, which [AcceptedFormArguments] checks by the same rules as
// AcceptedFormInput. With [DisplayFormOptions].Elicit set, DisplayForm
// returns the native input request instead, and [ClientSupportsApps] tells
// which path a client can take. [AddViewer] registers the MCP Apps viewer
// resource that renders the form, and [AttachViewer] links a tool to it.
//
// # Where mcpform differs from the TypeScript helpers
//
// mcpform mirrors formSchema, formInputRequest, acceptedFormInput,
// inputResponse and display_form of @maxhealth.tech/prefab, and
// createRequestStateCodec of @modelcontextprotocol/server; its tests run
// against them. This is the one list of where it departs from them, each
// time because they are wrong:
//
//   - Answers are checked fully. acceptedFormInput checks neither formats
//     (email, uri, date, date-time) nor item counts; mcpform keeps a value
//     only when a JSON Schema 2020-12 validator asserting formats would.
//   - String lengths count Unicode code points, as JSON Schema does, not
//     UTF-16 units: an emoji is one character, not two.
//   - Broken definitions, such as a default outside the bounds or duplicate
//     options, are refused rather than turned into schemas clients reject.
//   - One humanizer names unlabeled fields on every path, and it knows
//     letters outside ASCII: "prénom" reads "Prénom", not "PréNom", and
//     first_name is "First Name" in the schema and the form alike, where
//     TypeScript's form says "First name".
//   - The form delivers its values. display_form's toolCall carries no
//     arguments, so its form calls the tool with {} whatever was typed;
//     [DisplayForm]'s carries one "{{ name }}" template per field, and a
//     template that is one reference passes the raw value, so a multiple
//     choice stays a list.
//   - A checkbox is a Checkbox node whose argument is "{{ 'on' == name }}",
//     true when ticked and false otherwise. TypeScript renders an Input of
//     type checkbox, which sends "on" even after the box is cleared.
//   - DisplayForm's native request is keyed by the submit tool's name, not
//     "form", so a handler finds the answer under a name it already uses.
//   - Request state verifies under several keys (rotation), takes a clock,
//     accepts only the canonical base64url spelling of a token, and refuses
//     a MAC-valid body of odd shape (null, an array, a string exp) with an
//     error instead of a TypeError.
//   - Request state has a maximum lifetime. [RequestStateCodec.Verify]
//     refuses a token whose exp lies more than the codec's TTL plus
//     [RequestStateLeeway] ahead, where TypeScript honours any future exp,
//     and allows that leeway past exp for clocks apart, where TypeScript
//     allows none. It reads exp only as whole seconds up to 2^53-1, as
//     TypeScript mints it with a whole-second TTL; a fraction, a sign, an
//     exponent, a huge or infinite value, a string, or no exp at all is
//     malformed, not expired. A Go codec verifies a TypeScript peer's tokens
//     when its TTL is at least the peer's.
package mcpform
