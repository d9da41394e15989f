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
// # Compiled forms
//
// A [Form] is a field list compiled once, like a regexp.Regexp: [FormFor]
// derives it from the struct its answers decode into, and [NewForm]
// compiles a hand-written []AutoFormField. A broken definition is refused
// then, with a [*FieldError] naming the field and wrapping one of [ErrName],
// [ErrBounds], [ErrOptions], [ErrDefault], [ErrType] or [ErrTag]; nothing
// about the definition can fail afterwards. [Form.Ask] returns the
// input_required result, [Form.Read] judges and decodes the answer into a
// [Reply], and [Form.Reask] asks again naming the problems, with the
// accepted values pre-filled. The schema carries option labels as titled
// choices.
//
// # Fields
//
// An [AutoFormField] describes one input: a name, a [FieldType], and optional
// label, options, bounds and default. Its JSON form is that of the
// TypeScript package @maxhealth.tech/prefab, so one field list can serve a
// TypeScript front end and a Go server. The functions that mirror
// TypeScript take fields directly and check them on every call.
//
// # Asking for input
//
// [FormSchema] derives the restricted elicitation schema, and
// [FormInputRequest] wraps it in the input_required result a handler
// returns. A handler is written once: read the answer first, ask only when
// there is none, and finish when there is one. For clients older than
// 2026-07-28, go-sdk fulfils the request itself with elicitation/create and
// calls the handler again, so the same handler serves them too; add
// the middleware of [LegacyRounds] with [AddLegacyRounds] when a call may
// take more than one round.
//
// Ask only a client that can answer: [PathFor] picks the UI or the form
// from what the client declared, and [CapabilityError] is the -32021 error
// for one that declared neither. [Form.Ask] and [Flow.Next] check this
// themselves.
//
// # Reading answers
//
// The answer arrives in the retried call's inputResponses and is untrusted:
// go-sdk checks nothing in it. [AcceptedFormInput] keeps a value only when it
// satisfies its field's property schema exactly as a JSON Schema 2020-12
// validator asserting formats would judge it; [CheckFormInput] also says why
// each value was dropped, for asking again. [InputResponse] returns the raw
// answer, to tell a decline or cancel from a first pass. [Answers.Decode]
// fills a struct. Form.Read applies the same check.
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
// or that gates a side effect, runs as a [Flow]: an ordered list of
// [Step]s, each asked under its own key. [Flow.Next] takes one round's
// request and returns the next input request, the merged answers, or the
// JSON-RPC error for a bad state. Earlier answers come back only from the
// flow's signed state, never again from the client; the state is bound to
// the principal, the tool and the call's arguments; and every round checks
// the proven answers again against the steps as they are now, so a deploy
// between rounds cannot let a refused value through. Key what
// [FlowDone] triggers on [FlowRound.ID]: the first outcome stored under it
// wins.
//
// # Secrets
//
// The spec forbids asking for passwords, API keys or payment details in
// form mode. A compiled form leaves a secret field ([AutoFormField.Secret])
// out of its schema, and a flow with [FlowOptions].Secrets asks it in URL
// mode instead: the client opens a link to [Flow.SecretPage], a page of the
// server's own, and what the person types there goes into a [SecretStore],
// never through the client. The flow takes it, once, in the round that
// finishes, so the secret is in FlowDone's answers and in no request state,
// link, log or result; [SealSecrets] keeps it out of the store's database
// in the clear too. The page must say who may use a link
// ([SecretPageOptions].Authorize, or AnyoneWithTheLink), and only the first
// browser that opens a link can send on it: any other use refuses the
// link, and the flow ends with [ErrSecretRefused], taking nothing. A
// client that did not declare URL-mode elicitation
// gets the -32021 error, never a form; one on 2025-11-25 is served through
// [LegacyRounds], with elicitationId and notifications/elicitation/complete.
//
// # mcp-go
//
// Servers built on github.com/mark3labs/mcp-go use the same compiled forms
// and flows through the [github.com/mcpform/mcpform/mcpgo] package, whose
// functions take and return mcp-go's own types; a flow reads its principal
// there with [FlowOptions].ContextPrincipal. Only that package imports
// mcp-go, so a go-sdk server never compiles it.
//
// # UI path
//
// On a host that renders MCP Apps, [Form.Display] (or [DisplayForm], for a
// field list) returns a prefab form for the same fields; submitting it
// calls the submit tool with the values as arguments, which
// [Form.ReadArguments] (or [AcceptedFormArguments]) makes typed and checks
// with the same checker as the native path, so a handler gets the same
// answers whichever path the person took. Like [Form.Ask], Form.Display
// refuses a form with secret fields, whose values would pass through the
// host. [PathFor] tells which path a client can take. [AddViewer] registers
// the MCP Apps viewer resource that renders the form, and [AttachViewer]
// links a tool to it.
//
// The renderer of @maxhealth.tech/prefab 0.3 sets limits that no server can
// lift, and mcpform checks what it cannot prevent:
//
//   - The form shows no Description, and its inputs enforce no Min or Max:
//     a value out of bounds is refused when it arrives. A number input
//     admits whole numbers only, at the browser's default step of 1. A
//     range field is a slider between its bounds, the one control that
//     carries them, and it always sends a value, even untouched.
//   - Default is carried, but the renderer does not pre-fill inputs: an
//     input starts empty and a select at its first option, and what the
//     person sees is what is sent. A Checkbox's default does show ticked.
//   - Labels, titles and placeholders are templates: "{{ … }}" in them is
//     evaluated.
//   - Values are read back through the template language, and the renderer
//     camel-cases "_x" to "X" in argument keys, so full_name arrives as
//     fullName and is mapped back. A name the template language cannot
//     read back, or one whose renamed key or dotted path collides with
//     another field's, is refused with a [*FieldError] wrapping [ErrName]:
//     a name with leading or trailing space or a control character; one
//     containing "{{", "}}", "|", "?", "<", ">", "&&", "==" or "!=", or an
//     operator between spaces such as " - "; one starting with "$" or "!";
//     a literal such as true, null, 42 or a quoted string; a property every
//     JavaScript object has, such as constructor or toString; and "a.b"
//     beside "a". The native path carries every name.
//   - A datetime-local input sends a local date and time with no zone and,
//     by default, no seconds, such as "2026-08-03T10:00". It is read as
//     UTC, "2026-08-03T10:00:00Z", and then checked as a date-time like any
//     other answer. A handler that knows the person's zone keeps the wall
//     clock: time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(),
//     t.Second(), t.Nanosecond(), zone).
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
//   - An integer field is a number input, a datetime field a datetime-local
//     input, and a uri field a url input, as prefab's own mapping from JSON
//     Schema makes them. TypeScript's form gives the input the field's type,
//     "integer", "datetime" or "uri", which no browser knows: it shows a
//     text box, with no numeric keyboard or date picker.
//   - A range field is a Slider with the field's Min and Max and any step.
//     TypeScript's is an Input of type range, which carries no bounds, so
//     the browser's 0 to 100 apply: a range of 0 to 1 cannot be answered.
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
