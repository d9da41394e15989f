// Package mcpform asks a person for input in the middle of an MCP tool call,
// from one field list, for servers built on
// github.com/modelcontextprotocol/go-sdk. The field list, usually derived
// from the struct the answers decode into, makes both the question the
// client is shown and the check of the answer it sends back, so the two
// cannot drift apart.
//
// A handler reads the answer first, asks only when there is none, asks
// again naming the problems when a value is refused, and finishes once the
// answer is in:
//
//	type Signup struct {
//		Email string `json:"email" mcpform:"label=Email,type=email"`
//		Plan  string `json:"plan" mcpform:"label=Plan,options=free:Free|pro:Pro ($12 a month)"`
//		Seats int    `json:"seats,omitempty" mcpform:"label=Seats,min=1,max=50,default=1"`
//	}
//
//	var signupForm = func() *mcpform.Form[Signup] {
//		f, err := mcpform.FormFor[Signup](&mcpform.FormOptions{Key: "signup", Message: "Create your account"})
//		if err != nil {
//			panic(err)
//		}
//		return f
//	}()
//
//	func signup(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//		reply := signupForm.ReadCall(req)
//		switch reply.Status {
//		case mcpform.ReplyNone: // the first call: ask, in the way the client can answer
//			return signupForm.Ask(req, "")
//		case mcpform.ReplyInvalid: // ask again, naming the problems, keeping the good answers
//			return signupForm.Reask(reply, ""), nil
//		case mcpform.ReplyAccepted:
//			in := reply.Value
//			msg := fmt.Sprintf("Created %s on %s with %d seat(s)", in.Email, in.Plan, max(in.Seats, 1))
//			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
//		}
//		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Signup not completed."}}}, nil
//	}
//
// and is registered as any tool:
//
//	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, signup)
//
// Every round runs the same code. On MCP 2026-07-28, Ask returns an
// input_required result and the client calls the tool again with the
// answers; for an older client, go-sdk asks with elicitation/create itself
// and calls the handler again. This form has no keys, so it is asked
// natively only, and its arguments are never read as answers; a form given
// [FormOptions].Codec and Principal is also shown in a view on a host that
// renders MCP Apps but answers no form (see "UI path"), and, opted in,
// asked through the model. A client that can be asked no way gets the
// -32021 error of [NeedCapabilities].
//
// # Start here
//
// These are the names a tool needs, in the order a reader meets them:
//
//   - [FormFor] compiles a [Form] from the struct its answers decode into.
//   - [FormOptions] names the form's key and message, and opts in to asking through the model.
//   - [Form.Ask] asks, in the way the client of the call can answer.
//   - [Form.ReadCall] reads the answer, from any path, into a [Reply].
//   - [ReplyStatus] says what came back: nothing yet, an answer, a refusal, or a decline.
//   - [Form.Reask] asks again, naming the problems and keeping the good values.
//   - [Flow], made by [NewFlow] from a list of [Step], asks in several rounds and gates a side effect.
//   - [FlowOptions] name the principal, the stores and the opt-ins of a flow.
//   - [Flow.Next] runs one round and returns a [FlowRound].
//   - [FlowRound.Once] runs what a finished flow triggers once, on every replica.
//   - [SQLStore], from [NewSQLStore], keeps those outcomes and the secrets on database/sql, for replicas.
//   - [MemoryOutcomes], from [NewMemoryOutcomes], keeps the outcomes in one process's memory.
//   - [RequestStateCodec], from [NewRequestStateCodec], signs and seals the state between rounds.
//   - [Flow.InputSchema] lets the answers and state through a tool's input schema.
//   - [AddLegacyRounds] lets clients older than 2026-07-28 answer more than one round.
//
// # Fields and forms
//
// An [AutoFormField] describes one input: a name, a [FieldType], and
// optional label, options ([Option]), bounds ([Bound]) and default. Its
// JSON form is that of the TypeScript package @maxhealth.tech/prefab, so
// one field list can serve a TypeScript front end and a Go server.
// [FormFor] derives the fields from a struct's fields and their mcpform
// tags; a string type that implements [Enum] lists its own options.
//
// A [Form] is a field list compiled once, like a regexp.Regexp: [FormFor],
// or [NewForm] for a hand-written []AutoFormField. A broken definition is
// refused then, with a [*FieldError] naming the field and wrapping one of
// [ErrName], [ErrBounds], [ErrOptions], [ErrDefault], [ErrType] or
// [ErrTag]; nothing about the definition can fail afterwards.
// [Form.Schema] is the schema the client is shown: option labels travel as
// titled choices, and secret fields are left out.
//
// # Reading answers
//
// The answer comes back untrusted: go-sdk checks nothing in it. A value is
// kept only when it satisfies its field's property schema exactly as a JSON
// Schema 2020-12 validator asserting formats would judge it, refusing the
// few texts listed at the end besides. One checker judges every path's
// answers, and the defaults when a form is compiled. A [Reply] holds the
// decoded value, the accepted [Answers] and a [*FieldError] for each
// refused value, missing field and unknown key; [ProblemMessage] words
// them for a person, and [Form.Reask] pre-fills the accepted values.
// [Answers.Decode] fills a struct from answers.
//
// There is one way to read an answer in each situation:
//
//	situation                                          read with
//	a go-sdk tool handler with a Form, any path        Form.ReadCall
//	a handler of several rounds or a side effect       Flow.Next (it reads, then asks)
//	an mcp-go tool handler                             mcpgo.ReadCall, mcpgo.Next
//	a handler that picks the path itself (PathFor):
//	  a native answer                                  Form.Read
//	  a submit of Form.Display                         Form.ReadArguments
//	a field list without a Form (TypeScript mirrors):
//	  a native answer                                  AcceptedFormInput, or CheckFormInput for the problems
//	  a submit of DisplayForm                          AcceptedFormArguments, or CheckFormArguments for the problems
//	accepted Answers into a struct                     Answers.Decode
//
// go-sdk decodes a native answer before any middleware, with
// encoding/json: a number becomes the nearest float64, so that
// 1.9999999999999999 passes an integer field with a minimum of 2 and
// 9007199254740993 arrives as 9007199254740992, a key given twice keeps
// its last value, and invalid UTF-8 becomes U+FFFD. Serve go-sdk's
// streamable HTTP handler through [AnswersAsSentHandler], and a stdio or
// in-memory transport through [AnswersAsSentTransport], and the core reads
// the answer as the client wrote it, as on every other path and on
// mcp-go's face: numbers judged on their digits, and a value with a key
// given twice, invalid UTF-8 or a lone surrogate escape asked again,
// naming its field. Without them go-sdk's decoding stands; a text holding
// U+FFFD is still asked again, whether a decoder or a person wrote it.
//
// go-sdk's own client validates its answer against the schema before
// sending it, and fails the call with -32602 rather than send a value out
// of range, so a go-sdk client never sees a re-ask for one; the re-ask
// serves every other client, and the formats go-sdk's validator ignores,
// such as a bad email.
//
// # Several rounds
//
// The restricted schema is flat. A form that branches on earlier answers,
// or that gates a side effect, runs as a [Flow]: an ordered list of
// steps ([Step]), each a form asked under its own key, with an optional
// When and Check. [Flow.Next] takes one round's request and returns a
// [FlowRound], holding the next request or the merged answers, or the
// JSON-RPC error for a bad state. Earlier answers come back only from the
// flow's state, never again from the client. The state is sealed, so that
// the client, proxies and logs cannot read them
// ([FlowOptions].ReadableState leaves it readable, for debugging); it is
// bound to the principal, the tool and the call's arguments, exactly as
// sent; and every round checks the proven answers again against the steps
// as they are now, so a deploy between rounds cannot let a refused value
// through. Arguments that readers read differently, with a key given twice
// in an object, invalid UTF-8 or a lone surrogate escape, are never bound:
// the call fails with -32602 (an answer sent in the arguments so is asked
// again instead, naming its field).
//
// A state can be replayed until it expires, so gate what a run triggers
// with [FlowRound.Once], on the [Outcomes] of [FlowOptions]: the first
// outcome stored under the run's ID wins, on every replica, and a
// duplicate that arrives while the first is still running waits for it.
//
// # Paths
//
// [Form.Ask] and [Flow.Next] pick the way to ask with one picker, from the
// capabilities the client declared and its protocol revision, in this
// order:
//
//   - a native form: an input_required result on 2026-07-28, or
//     elicitation/create for an older client (see "Legacy rounds");
//   - an MCP Apps view, on a host that renders MCP Apps but cannot answer
//     a form (see "UI path"), for fields a view can carry back;
//   - through the model, when the form or flow opted in (see "Asking
//     through the model");
//   - otherwise the -32021 error of [NeedCapabilities].
//
// A form without [FormOptions].Codec takes the first only. A secret step
// is asked in URL mode, or, where the client has none, by an ordinary
// result carrying the page's link (see "Secrets").
//
// An answer is read from a tool's arguments only together with a state
// the server minted for that ask: bound to the principal, the tool, the
// call's arguments and the path it was minted for. A state minted for a
// native round verifies only in requestState, one minted for a view only
// on a call that came through the viewer's app-only companion tool, and
// one minted for the model only in the arguments of a direct call; on any
// other channel it is refused with -32602, and arguments without one are
// never an answer. [Reply.Path] and [FlowRound.Path] say which [Path] the
// answers came by, so a handler can refuse [PathModel] for an action that
// needs the person's own word.
//
// [PathFor] answers "what can this client do?" with the same [Path], for
// a handler that picks the path itself: it asks natively with
// [Form.InputRequest] and reads with [Form.Read], or shows a view with
// [Form.Display] and reads its submit with [Form.ReadArguments], which
// reads any arguments it is given: such a handler decides itself whom to
// trust. [FormCapability] is what a form needs, for NeedCapabilities.
//
// # Legacy rounds
//
// For a client older than 2026-07-28, go-sdk fulfils an input request
// itself, with elicitation/create, and calls the handler again, but only
// once. [AddLegacyRounds] installs the middleware that lets such a client
// finish forms of several rounds and re-asks: it passes every answer to
// the handler, which judges it and asks again as it does on 2026-07-28,
// and it bounds each question with a deadline and the calls that wait per
// session, per client and in all ([LegacyOptions]). It serves URL mode
// too, with elicitationId and notifications/elicitation/complete. It
// touches only what it bridges for this package's requests: a handler's
// own Elicit keeps go-sdk's check of the answer, and no params a handler
// holds are edited. Without it, [Flow.Next] answers a round such a client
// could not read with a JSON-RPC error that names AddLegacyRounds.
//
// # UI path
//
// On a host that renders MCP Apps but cannot answer a form, [Form.Ask] (of
// a form with keys) and [Flow.Next] return a prefab view, one step per
// view. Submitting it calls the app-only companion tool that [AddViewer]
// registers (_meta.ui.visibility ["app"], which MCP Apps hosts hide from
// the model), with the values, the state and the tool's name; AddViewer's
// receiving middleware passes the call on to that tool, marked as a view's
// submit with a value no client can send. The step gets everything a
// native step gets (the same checker, Check, pins,
// binding, and re-asks that name the problems and keep the good values),
// and the view then shows the next step, or, once the tool answers with an
// ordinary result, that result's text: created, already registered,
// declined. The companion gives the view that last result as a view of
// its own, when the flow ended on the call (prefab's renderer shows a
// result only as a view): the outcome's panel, in the run's language,
// with the tool's result under "mcpformResult" in the view's state; a
// step's view carries no outcome. That result reaches the view, not the
// model, so the viewer tells the model: once the view shows the result,
// the viewer's own script sends its text to the host as
// ui/update-model-context, which the host adds to the model's context
// (prefab 0.3.13 has no action that does this through an MCP Apps host).
// The view shows the result's first
// text block, for the person, in a panel with a heading and
// role=status; a second text block is for the model alone: the view
// keeps it hidden and tells the model both.
//
// A view asks as a careful form does: "Step 1 of 2" when the flow has
// more than one step; each field with its label (tied to the control),
// "(optional)", its description, its default filled in and its bounds as
// a hint and as the control's own min, max or maxlength; after a re-ask,
// an error summary ("There is a problem", role=alert) that takes the
// focus, and each problem at its field (aria-invalid, aria-describedby),
// saying how to fix it, while the model reads the problems in the
// result's text as the native path words them. The submit says
// [Step].Submit, or "Continue", and "Submit" on the last step. A secret
// step's view numbers what to do: open the page, with a button the host
// opens (ui/open-link) or a link to copy, never the link's token on
// screen; then "I've set it – continue". Beside the submit,
// a secondary Decline button calls the companion with the state and
// "mcpformAction": "decline" alone: the flow ends with
// [FlowDeclined] for that step, as a native decline does, and
// [Form.ReadCall] gives [ReplyDeclined]. Under a result that did not
// complete (declined, cancelled, an error, or an [Outcome] with
// NotCompleted), the outcome's view offers Start again, which calls the
// companion with the state and "mcpformAction": "restart" alone: the flow
// begins a new run from its first step, in the language of the run it
// follows. prefab's renderer replaces the view with one a
// result carries in structuredContent, and runs onSuccess for an isError
// result too, so a view keeps the result with resultKey rather than show
// a toast. Secret
// fields are never put on a view: it opens the secret page. A tool's
// own argument names must survive the renderer, which camel-cases "_x" in
// them, and a string argument holding "{{" and "}}" is evaluated; either
// is refused as a changed argument would be. The server needs the viewer
// (see "The viewer").
//
// The state stays out of the result's text, which the model reads, but
// sits in its structuredContent, inside the view's submit: prefab 0.3.13's
// renderer mounts a view from structuredContent (or a text block) only,
// and reads nothing from _meta, so the view could not send it back from
// there. A host that puts structuredContent in the model's context, and
// ignores visibility, lets the model call the companion with that state
// and answers of its own, which are then read as a view's: the companion
// holds only where the host hides app-only tools from the model. A direct
// call of the tool with a view's state is refused on every host.
//
// # The link and model paths
//
// On these two paths, the result is an ordinary one, and the next call of
// the same tool carries the answers and the state in its arguments. Its
// structuredContent is the contract clients, models and tests rely on:
//
//   - requestedSchema: the restricted schema a native request would carry;
//     absent for a link alone;
//   - url: the secret page's link, for a secret step;
//   - arguments: an object to send back unchanged, merged with the
//     answers, each under its field's name, in the next call;
//   - decline: {"mcpformAction": "decline"}, merged into arguments in
//     place of the answers when the person declines.
//
// Its text says the same in words, for the model, state included: the model
// must send it back. The state travels under [StateArgument], minted for
// the model's channel (see "Paths"), and is bound to the call's arguments
// without the flow's own keys (the state and the fields' names), so sending
// it back does not break the binding; another argument added or changed is
// refused as a state replayed with other arguments is. The tool's input
// schema must let those keys through, of any type: [Flow.InputSchema]
// returns one that does, from a base schema of the tool's own arguments. A
// tool's own argument must not share a name with a field of its flow, or
// with the key prefab's renderer sends one under (teamName for
// team_name), or be "mcpformAction": it would be read as an answer, and
// left out of what the state is bound to. InputSchema panics on a base
// that declares a field's name or key.
//
// # Asking through the model
//
// A host with neither form elicitation nor MCP Apps cannot put a question
// to the person. [FlowOptions].AskModel (or [FormOptions].AskModel, with a
// Codec) asks the model instead: the result asks it to collect the answers from the
// person and call the tool again with them, and they are checked exactly
// as native answers are, and reported as [PathModel]. Say plainly what
// this proves: the model, not the person, typed those answers; it may have paraphrased, guessed or been
// steered by other text in its context. It is off by default, and such a
// host gets -32021 then. When the person declines, the model is told to
// call the tool with the arguments and "mcpformAction": "decline", which
// ends the flow as a native decline does; no value says "accept", and any
// other is asked again as a native answer with an unknown action is. A
// step with a boolean field, such as a confirmation or a consent, is never
// asked this way: it fails closed with -32021. Secrets never go this way;
// the person is given the page's link.
//
// # Secrets
//
// The spec forbids asking for passwords, API keys or payment details in
// form mode. A compiled form leaves a secret field ([AutoFormField.Secret])
// out of its schema, and a flow with [FlowOptions].Secrets asks it in URL
// mode instead: the client opens a link to [Flow.SecretPage], a page of the
// server's own, and what the person types there goes into a [SecretStore],
// never through the client. The flow takes it, once, in the round that
// finishes, judged again by the step's own rules, so the secret is in
// FlowDone's answers and in no request state, link, log or result;
// [SealSecrets] keeps it out of the store's database in the clear too. The
// link's token is sealed: it reveals no principal, tool or run. Opening the
// page changes nothing, so a link preview spoils nothing; the token's
// length is one for every link whose principal, tool and step take 95
// bytes or fewer together, and shows longer ones only in 128-byte
// buckets. The first browser
// that posts on a link claims it (a second post from it, as a double submit
// sends, is its own), and a post from any other refuses the link, and the
// flow ends with [ErrSecretRefused], taking nothing. Once the flow has
// taken the secret, the link says the request is finished to any browser
// that opens it, and takes nothing more, a stop included. However a flow
// ends, the secrets sent for it are deleted. The page must say who may use
// a link ([SecretPageOptions].Authorize, or AnyoneWithTheLink): with
// AnyoneWithTheLink, whoever opens the link and posts first sets the value,
// and only Authorize closes this.
//
// A client that cannot open a URL-mode request is given the page's link
// in an ordinary result instead (see "The link and model paths"), after
// the step's other fields; once the page is posted, the call that follows
// finishes the step. The page, the store, the single use and the binding
// are URL mode's. A secret is never put in a form, a view, or the model's
// hands.
//
// # Stores
//
// A flow stores two things, behind two interfaces: the first outcome of
// each run ([Outcomes], set as [FlowOptions].Outcomes), and what its
// secret page receives ([SecretStore]). [SQLStore] is both, on
// database/sql, tested on SQLite and PostgreSQL; its documentation names
// where the two differ. The program imports the driver and opens the
// database; the tables are created on first use, or by [SQLStore.Create].
// Through a flow, outcomes are sealed with the flow's codec before SQLStore
// keeps them; seal the secrets with [SealSecrets]. [NewMemoryOutcomes] and
// [NewMemorySecretStore] keep both in one process, faster.
//
// Once is once, with two exceptions that [SQLStore.Once] states exactly: a
// side effect cut short by a crash runs again, after at most a lease (10
// seconds by default), so pass [IdempotencyKey] to the provider; and an
// outcome that cannot be stored ends the run with [ErrOutcomeUnknown],
// never running the side effect again. A run lasts only as long as its
// outcome is kept (the store's keep, 24 hours by default): a state sent
// back unanswered is minted again, but never past that, so no replay
// outlives the outcome it should get.
//
// # Languages
//
// mcpform speaks English, Spanish, French, German and Japanese: its own
// words (the problems it names and the re-asks that name them, the
// default message, the URL-mode message, the model's instructions, the
// MCP Apps views and the secret page) come from one catalog per language. A call's language is
// matched, by RFC 4647 with golang.org/x/text/language, from the
// acceptLanguage _meta of SEP-2792 ("io.modelcontextprotocol/acceptLanguage",
// in Accept-Language syntax), else from the call's HTTP Accept-Language
// header; the secret page reads the browser's. Anything else is English.
// SEP-2792 is still an open proposal, so its names are experimental.
//
// A flow's first round pins its language in the state, so every round of
// one run speaks it ([FlowRound].Language). An MCP Apps view is the one
// exception: when the host's hostContext.locale names another language
// and nothing has been typed, the viewer asks, once, for its step again
// in that language, through the companion, with the action "render";
// the flow re-pins the language and asks the same step, reading no
// answers, with the state bound as before. Until the view's language is
// known, the viewer keeps it hidden, keeping its size (CSS visibility, so
// the host fits the frame to it), for 500 ms at most after the host gave
// it the tool's result, so that no one reads or types into a view about
// to change language. A render slower than that comes after the view is
// shown, and replaces it only if nothing has been typed into it yet. A host that
// sends the person's language as acceptLanguage on the tool's first call
// saves that wait and the second call. A result mcpform builds in a
// language other than English carries the SEP's contentLanguage _meta;
// mark a result of your own with [ContentLanguage]. Your own words,
// labels, descriptions, option labels, messages and a Check's reasons,
// are translated by [FlowOptions].Translate (or [FormOptions].Translate),
// once per language. [ProblemMessage] speaks English. A flow or a lone
// form on the mcpgo face reads the language in the same way.
//
// Your words are English unless [FlowOptions].Language (or
// [FormOptions].Language) names the language you write them in, such as
// language.German. Words Translate leaves as they are (it returns "")
// are shown as you wrote them, and marked with your language's lang in
// views and on the secret page, in English rounds too when you write in
// another language, so that a screen reader never reads them by another
// language's rules (WCAG 3.1.2). A round in your language shows your
// words as written, marks nothing, and never calls Translate. A page's
// title cannot mark a part, so it is said wholly in one language: a
// secret page whose heading is untranslated is titled in your language,
// "Fehler: " and all where mcpform speaks it, and the view's frame takes
// the lang of its heading.
//
// # mcp-go
//
// Servers built on github.com/mark3labs/mcp-go use the same compiled forms
// and flows through the [github.com/mcpform/mcpform/mcpgo] package, whose
// functions take and return mcp-go's own types; a flow reads its principal
// there with [FlowOptions].ContextPrincipal. Only that package imports
// mcp-go, so a go-sdk server never compiles it. On that face a flow takes
// every path it takes on go-sdk: a native form, an MCP Apps view (the
// viewer and its companion come from mcpgo.AddViewer), a secret page's
// link and, opted in, the model; a lone [Form] with a Codec takes the
// same paths, chosen by the same picker (mcpgo.Ask and mcpgo.ReadCall).
//
// # Request state
//
// A result may carry requestState, which the client echoes on the retry.
// It comes back attacker-controlled. A [RequestStateCodec] signs it with
// HMAC-SHA256, binds it to a principal and a tool ([BindTo]), and expires
// it, after 10 minutes by default. A token that fails to verify is
// answered with the JSON-RPC error clients expect, from
// [RejectState]: code -32602, "Invalid or expired requestState".
//
//   - Keys are at least [MinRequestStateKeySize] random bytes.
//   - Rotation: the first of [RequestStateOptions].Keys mints and seals
//     (states, stored outcomes, secrets, page links), and every key, with
//     those of VerifyKeys, verifies and opens. Replicas share their
//     store, so a key may seal only once every replica opens under it:
//     rotate in three rolling deploys, each finished before the next
//     begins. First add the new key to VerifyKeys everywhere; then make it
//     Keys[0] and the old one verify-only; then, twice the TTL after the
//     last replica took that step, drop the old key. Putting the new key
//     first in one deploy loses the runs that cross a replica that has
//     only the old one.
//   - Replicas that share the keys finish each other's flows; without
//     shared keys, the next round gets -32602.
//   - Signed tokens are in the format of the TypeScript SDK's
//     createRequestStateCodec, so Go and TypeScript servers can share a
//     key. Sealed tokens, which encrypt the payload with AES-256-GCM under
//     keys derived from the codec's (HKDF), are mcpform's own: a [Flow]
//     seals its state by default, and [RequestStateOptions].Seal seals
//     every token of a codec. Sealing does not stop a replay within the
//     TTL: the run ID and a store do.
//
// # Rolling deploys
//
// A run crosses replicas in a few formats: its state, with the state's
// binding and the run ID it carries, the secret page's link, and a view's
// submit to the companion tool. Each carries a version, and every release
// keeps one rule: it reads the version before its own and its own, and
// writes what the release before it reads, until the next release; a
// change of a format ships in two releases, the first reading the new
// version, the next writing it. So a deploy may span two consecutive
// releases: their replicas, sharing the keys and the store, finish each
// other's runs, whichever way a run crosses, for as long as its state
// lives (the codec's TTL) and its link (at most twice that). Finish one
// deploy before the next begins rather than run three releases at once:
// the oldest may not read what the newest writes, and refuses it (-32602,
// or a link's page not found), never misreading it. The first release to keep the rule also
// reads the runs of the mains before it since 7850258 (December 2026).
// Rotating keys while replicas differ has its own order; see Request
// state.
//
// # The viewer
//
// A host renders a view in the MCP Apps viewer, which runs prefab's
// renderer. A tool that asks on the UI path needs the server to declare
// the extension when it is created
// (ServerOptions.Capabilities.AddExtension([AppsExtension], nil)),
// [AddViewer] to register the viewer resource, and [AttachViewer] to link
// the tool to it; [ViewerHTML] is the page itself. The viewer is
// self-contained: the renderer and stylesheet of @maxhealth.tech/prefab
// 0.3.13 (MIT, in internal/prefab/third_party with their checksums) are
// embedded unmodified and inlined, so a view loads nothing and its resource
// declares no origin in _meta.ui.csp. A server that would rather load them
// from a CDN, such as [RendererCDNBaseURL], or serve them itself, sets
// [ViewerOptions].BaseURL: the viewer then loads them with Subresource
// Integrity of the embedded files, declares that origin, and the server
// that serves them must send Access-Control-Allow-Origin, because the
// sandboxed frame's origin is null. The host sandboxes the frame with
// allow-scripts allow-forms: without allow-forms, Chromium blocks the
// submit without a word.
//
// The viewer's own small stylesheet and script set prefab's colours to
// meet WCAG contrast in light and dark, follow the host's scheme with no
// frame and no theme toggle, and tie each label to its field, which
// prefab 0.3.13's renderer does not.
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
// # Errors
//
// A handler returns the errors of [Form.Ask] and [Flow.Next] as they are:
// [NeedCapabilities] (-32021) and [RejectState] (-32602) make
// JSON-RPC errors, which go-sdk passes on only unwrapped. A broken
// definition or a refused value is a [*FieldError] naming the field and
// wrapping one of the package's Err… values, so errors.Is and errors.As
// both work; a token that fails to verify wraps [ErrMalformed], [ErrMAC],
// [ErrExpired] or [ErrBind].
//
// # TypeScript mirrors
//
// Like regexp.MatchString beside regexp.Compile, these functions take a
// field list and check it on every call, where a [Form] is checked once.
// They keep the names, signatures and output of their TypeScript twins, so
// a TypeScript front end and a Go server can share a field list; the tests
// run each against its twin:
//
//   - [FormSchema] is formSchema. As in TypeScript, it lists options as a
//     plain enum and keeps a password as a plain string, which a form-mode
//     request must not carry; a compiled form's [Form.Schema] is what a Go
//     server should send.
//   - [FormInputRequest], with [InputRequestOptions], is formInputRequest.
//   - [AcceptedFormInput] is acceptedFormInput; [CheckFormInput] also
//     says why each value was dropped.
//   - [InputResponse] is inputResponse: the raw answer, to tell a decline
//     or cancel from a first pass.
//   - [DisplayForm], with [DisplayFormOptions], is display_form: the field
//     list as a prefab form whose submit calls a tool with the values,
//     which [AcceptedFormArguments] (or [CheckFormArguments]) makes typed
//     and checks with the same checker as the native path.
//
// The submit tool of DisplayForm, or of a compiled form's [Form.Display],
// is registered with server.AddTool and an object input schema: a browser
// sends "42" for a number, which a typed mcp.AddTool would refuse before
// AcceptedFormArguments could convert it.
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
//   - Text is checked beyond JSON Schema, whose formats allow what no
//     person means to type. A text answer holds no C0 control character
//     but tab, nor DEL and the C1 controls, and CR, LF, NEL, U+2028 and
//     U+2029 only in a textarea: they do not show on screen, PostgreSQL's
//     text refuses NUL, and a line break adds lines to a mail header or a
//     log. It holds no bidirectional embedding, override or isolate,
//     U+202A to U+202E and U+2066 to U+2069, which make text read in
//     another order than it is kept, and no invisible mark (zero-width
//     space, word joiner, the direction marks LRM, RLM and ALM, U+FEFF),
//     unless the field sets [AutoFormField].AllowBidi. It holds no U+FFFD,
//     which a decoder writes in place of bytes it could not read. Without it, a
//     zero-width joiner or non-joiner must stand between two characters
//     that are neither space, control nor format character: where Persian,
//     Indic scripts and emoji sequences put them. A quoted local part of an email holds
//     RFC 5321's qtextSMTP only, printable ASCII but '"' and '\'; the
//     format allows any other byte there and refuses RFC 5321's quoted
//     pairs. A date-time is refused for a sign in a field, as in
//     "2026-08-03T+1:00:00Z": RFC 3339's fields are digits, and the
//     format's reference validator reads them as signed numbers. The
//     agreement tests hold each of these to this list.
//   - String lengths count Unicode code points, as JSON Schema does, not
//     UTF-16 units: an emoji is one character, not two.
//   - Numbers are judged as written, on their digits, where JavaScript
//     reads a double: 50.0000000000000001 is above a maximum of 50 and
//     1.9999999999999999 is not whole, and an integer field takes
//     9007199254740993 as itself (an int64 of a [Form] holds it). Only an
//     accepted number is converted; a number field refuses a number
//     beyond the largest float64, such as 1e400, which its answer could
//     not hold. On go-sdk, a native answer is read as sent behind
//     [AnswersAsSentHandler] or [AnswersAsSentTransport]; without them it
//     reaches mcpform as go-sdk decoded it, a float64 already rounded.
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
//   - [FormInputRequest]'s result is go-sdk's mcp.CallToolResult, which
//     always writes its content: an input_required result carries an empty
//     list, as mcp-go's does, where formInputRequest's has none. go-sdk
//     writes a nil list as null, which a strict client may refuse.
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
