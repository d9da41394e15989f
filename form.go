package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// A Form is a field list compiled once: validated, with its schema and
// checkers built. It is immutable and safe for concurrent use. T receives
// accepted answers: a struct whose fields the form's fields decode into, or
// [Answers] for a map.
//
// A nil *Form is not usable; build one with [NewForm] or [FormFor].
type Form[T any] struct {
	c      *compiled
	decode *decoder // nil when T is Answers
	flow   *Flow    // the form as a one-step flow, with FormOptions.Codec; nil without
}

// compiled is what asking and checking need of a form, whatever its answers
// decode into; a [Flow] step holds one.
type compiled struct {
	all     []AutoFormField // every field, as compiled
	fields  []AutoFormField // those asked in form mode: all but the secrets
	secrets []AutoFormField // those never asked in form mode; see Secrets
	lookup  func(string) int
	schema  json.RawMessage // the titled schema of fields, marshalled once
	boxed   json.Marshaler  // schema as a json.RawMessage in an interface, for other faces
	asked   []seam.Request  // the form's one plain request, for other faces; never modified
	wire    any             // schema as sent: see wireSchema
	key     string
	message string
	ui      error // why the UI path cannot carry fields back, if it cannot

	model     bool                                       // FormOptions.AskModel
	own       map[string]bool                            // the argument keys the form's paths write
	views     atomic.Pointer[viewFields]                 // the fields as the Apps views show them
	plainText atomic.Pointer[modelText]                  // the model's text with nothing to name or pre-fill
	lang      catalog.Lang                               // the language c speaks; see language.go
	translate func(language.Tag, string) string          // FormOptions.Translate
	local     [catalog.NumLangs]atomic.Pointer[compiled] // c in each language, made on first use
	origin    *compiled                                  // what c translates; nil for an original
	kept      map[string]bool                            // the author's words Translate left as they are, in lang
	author    authorLanguage                             // FormOptions.Language
}

// A CompiledForm is a form compiled by [NewForm] or [FormFor], whatever its
// answers decode into: every *Form[T] is one. A [Step] takes one, so that a
// flow's steps are compiled once, at start-up.
type CompiledForm interface {
	compiledForm() *compiled
}

func (f *Form[T]) compiledForm() *compiled {
	if f == nil {
		return nil // a nil *Form, from an ignored FormFor or NewForm error
	}
	return f.c
}

// FormOptions configures [NewForm] and [FormFor]. A nil *FormOptions and
// zero fields mean the defaults.
type FormOptions struct {
	// Key is the input request's key; the client answers under it. Empty
	// means [DefaultInputKey].
	Key string
	// Message is shown to the person above the form. Empty means
	// [DefaultInputMessage].
	Message string
	// AskModel lets [Form.Ask] ask a client that can be asked neither in a
	// form nor in an MCP Apps view through the model: see "Asking through
	// the model" in the package documentation. It needs Codec. False
	// answers such a client with -32021. A [Flow] takes
	// [FlowOptions].AskModel instead.
	AskModel bool
	// Codec mints and verifies the state that the view and model paths
	// carry in the tool's arguments, bound to the principal, the tool and
	// the arguments, as a [Flow]'s is: with it, [Form.Ask] asks in an MCP
	// Apps view where the client answers no form, and through the model
	// with AskModel, and [Form.ReadCall] reads the answers from the
	// arguments only together with a state minted for that ask. Nil asks
	// natively only, and never reads the arguments as answers. It must
	// bind (see [RequestStateOptions].Bind). A form that is a [Step] uses
	// its flow's codec instead.
	Codec *RequestStateCodec
	// Principal returns who the server authenticated for the call, as
	// [FlowOptions].Principal does; with Codec, the form needs it unless
	// EveryCallerIsSamePerson is set.
	Principal func(req *mcp.CallToolRequest) string
	// ContextPrincipal returns who the server authenticated, from the tool
	// handler's context, as [FlowOptions].ContextPrincipal does: the mcpgo
	// package's face reads it. Nil leaves Principal alone to say.
	ContextPrincipal func(ctx context.Context) string
	// EveryCallerIsSamePerson binds every state of the form to one
	// principal, "", as [FlowOptions].EveryCallerIsSamePerson does.
	EveryCallerIsSamePerson bool
	// Translate gives the author's own words (field labels, or the
	// titles made of names, descriptions, placeholders, option labels,
	// the message, and the reasons a Step's Check gives) in lang, a
	// language other than Language that the person asked for (see
	// "Languages" in the package documentation); it returns "" to keep
	// text as it is. It is called once per text and language, when the
	// form is first asked in that language, so it must always give the
	// same answer. Nil keeps the author's words in every language, while
	// mcpform's own are translated.
	Translate func(lang language.Tag, text string) string
	// Language is the language the author writes the form's own words in.
	// Asked in another, the words Translate leaves as they are carry it as
	// their lang in views and on the secret page, so that a screen reader
	// reads them by its rules; asked in Language itself, the form shows
	// its words as written, without calling Translate, and marks none.
	// The zero Tag means English.
	Language language.Tag
}

// NewForm compiles fields into a Form whose accepted answers decode into
// T. It refuses every broken definition that [FormSchema] refuses, with the
// same [*FieldError]. When T is a struct, every field must name a struct
// field (by its json name, as encoding/json would) of a Go type that can
// hold every value the field accepts, so that decoding an accepted answer
// cannot fail; a field that does not is refused with a *FieldError
// wrapping [ErrName] or [ErrType].
//
// The compiled fields are fields, copied, with one addition: a number or
// integer field without Min or Max decoded into a Go type of limited range
// (int8, uint, float32 and so on) gets the type's limits as bounds, and
// one whose bounds exceed them is refused. A 64-bit integer's limits are
// its own, kept exactly (see [AutoFormField].Min): an answer is judged
// and decoded on its digits, so 9007199254740993 fits an int64.
func NewForm[T any](fields []AutoFormField, opts *FormOptions) (*Form[T], error) {
	fields = cloneFields(fields)
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	dec, err := newDecoder[T](fields)
	if err != nil {
		return nil, err
	}
	if err := checkFields(fields); err != nil { // again: bounds may have been added
		return nil, err
	}
	c, err := compile(fields, opts)
	if err != nil {
		return nil, err
	}
	f := &Form[T]{c: c, decode: dec}
	if f.flow, err = formFlow(f, opts); err != nil {
		return nil, err
	}
	return f, nil
}

// formFlow returns the one-step flow that asks form on the view and model
// paths, or nil for a form without a codec, which is asked natively only.
func formFlow(form CompiledForm, opts *FormOptions) (*Flow, error) {
	if opts == nil || opts.Codec == nil {
		if opts != nil && opts.AskModel {
			return nil, errors.New("mcpform: FormOptions.AskModel needs a Codec: an answer through the model is read only with a state the form minted")
		}
		return nil, nil
	}
	if opts.Principal == nil && opts.ContextPrincipal == nil && !opts.EveryCallerIsSamePerson {
		return nil, errors.New("mcpform: a form with a Codec needs FormOptions.Principal or ContextPrincipal, to bind each state to who called; set EveryCallerIsSamePerson only for a server without authentication")
	}
	return NewFlow(opts.Codec, []Step{{Form: form}}, &FlowOptions{Principal: opts.Principal, ContextPrincipal: opts.ContextPrincipal,
		EveryCallerIsSamePerson: opts.EveryCallerIsSamePerson, AskModel: opts.AskModel, MaxReasks: math.MaxInt32,
		Translate: opts.Translate, Language: opts.Language})
}

// compile builds the schema and checker of fields already checked.
func compile(all []AutoFormField, opts *FormOptions) (*compiled, error) {
	var fields, secrets []AutoFormField
	for _, f := range all {
		if f.secret() {
			secrets = append(secrets, f)
		} else {
			fields = append(fields, f)
		}
	}
	s, err := buildSchema(fields, true, nil)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("mcpform: marshalling the schema: %w", err)
	}
	c := &compiled{all: all, fields: fields, secrets: secrets, lookup: fieldLookup(fields), schema: raw, boxed: json.RawMessage(raw), wire: wireSchema(raw), ui: checkCarried(fields),
		key: DefaultInputKey, message: DefaultInputMessage}
	if opts != nil {
		if opts.Key != "" {
			c.key = opts.Key
		}
		if opts.Message != "" {
			c.message = opts.Message
		}
		c.model = opts.AskModel
		c.translate = opts.Translate
		c.author = newAuthorLanguage(opts.Language)
	}
	c.own = formArguments(fields)
	c.asked = []seam.Request{{Key: c.key, Mode: "form", Message: c.message, Schema: c.boxed}}
	return c, nil
}

// Fields returns a copy of the compiled fields.
func (f *Form[T]) Fields() []AutoFormField { return cloneFields(f.c.all) }

// Key returns the key the form's input request is asked and answered under.
func (f *Form[T]) Key() string { return f.c.key }

// Schema returns the schema the client is shown, a fresh copy each call.
//
// It differs from [FormSchema] of the same fields in two ways, both so
// that the person sees what they are asked and nothing they must not be:
// option labels travel as titled choices (SEP-1330), where FormSchema's
// plain enum shows the raw values; and secret fields are left out, since
// the spec forbids asking for them in form mode. FormSchema keeps neither
// change because its output must equal the TypeScript formSchema's. A
// single choice whose labels differ from its values is a string with oneOf
// [{const, title}], and such a multiple choice an array whose items have
// anyOf [{const, title}].
func (f *Form[T]) Schema() *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal(f.c.schema, &s); err != nil {
		panic("mcpform: the compiled schema does not unmarshal: " + err.Error()) // built by us
	}
	// Unmarshalling forgets the order; marshalling s again keeps it.
	for i := range f.c.fields {
		s.PropertyOrder = append(s.PropertyOrder, f.c.fields[i].Name)
	}
	return &s
}

// InputRequest returns the input_required result that asks for the form
// under its key, carrying requestState (empty sends none). The schema was
// marshalled when the form was compiled, so the call and go-sdk's encoding
// of its result cost little.
//
// InputRequest does not look at what the client can answer; [Form.Ask]
// does. Secret fields (see [AutoFormField.Secret]) are never in the
// request: the spec forbids asking for them in form mode.
func (f *Form[T]) InputRequest(requestState string) *mcp.CallToolResult {
	return f.c.request(f.c.message, f.c.wire, requestState)
}

// Reask returns the input_required result that asks for the form again
// after reply: its message names reply's problems (see [ProblemMessage]),
// and the values reply accepted are the schema's defaults, which clients
// pre-fill, so the person does not type them again. For a reply without
// problems or accepted values it is InputRequest.
//
// A reply that [Form.ReadCall] read from an MCP Apps view's or the model's
// arguments is asked again the same way, carrying a state the form mints,
// not requestState. A reply it read from a client older than 2026-07-28
// on a server without [AddLegacyRounds], which go-sdk's bridge serves one
// round only, gets a tool error (IsError) that names AddLegacyRounds: the
// request would reach that client as an empty result.
func (f *Form[T]) Reask(reply Reply[T], requestState string) *mcp.CallToolResult {
	if reply.again != nil {
		return reply.again.Result
	}
	if reply.unserved {
		return unservedResult()
	}
	return f.c.in(reply.lang).reask(reply.Answers, reply.Problems, requestState)
}

// Read checks the client's answer under the form's key and decodes it.
// The answer is untrusted and judged as [CheckFormInput] judges it; see
// [Reply] for what each status means. Read never fails on a definition:
// the form was checked when it was compiled.
func (f *Form[T]) Read(responses mcp.InputResponseMap) Reply[T] {
	return f.read(sdkAnswers(responses))
}

func (f *Form[T]) read(a seam.Answers) Reply[T] {
	status, answers, problems := f.c.judge(a)
	reply := Reply[T]{Status: status, Answers: answers, Problems: problems}
	if status != ReplyNone {
		reply.Path = PathNative
	}
	if status == ReplyAccepted {
		v, err := f.decodeAnswers(answers)
		if err != nil {
			return undecodable(reply, err)
		}
		reply.Value = v
	}
	return reply
}

// undecodable turns an accepted reply whose answers did not decode into
// an invalid one that names the field. It cannot happen: compiling matched
// every field to its Go field, and FuzzFormRead holds the decoding to an
// independent parse of every accepted value. Should it happen all the
// same, the person is asked again rather than the handler handed a zero
// value as if it were the answer.
func undecodable[T any](reply Reply[T], err error) Reply[T] {
	p := &FieldError{Err: fmt.Errorf("%w: it does not fit the Go field it decodes into", ErrInvalidValue)}
	var fe *FieldError
	if errors.As(err, &fe) {
		p.Field = fe.Field
		reply.Answers = maps.Clone(reply.Answers)
		delete(reply.Answers, fe.Field) // not pre-filled on the re-ask
	}
	reply.Status, reply.Problems = ReplyInvalid, append(reply.Problems, p)
	return reply
}

func (c *compiled) request(message string, schema any, requestState string) *mcp.CallToolResult {
	return inputRequired(mcp.InputRequestMap{
		c.key: legacy.Own(&mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}),
	}, requestState)
}

// reask asks again, naming problems and pre-filling the accepted answers;
// its _meta notes the problems for machines (see accept.go).
func (c *compiled) reask(accepted Answers, problems []*FieldError, requestState string) *mcp.CallToolResult {
	msg, raw, notes := c.reasked(accepted, problems)
	var schema any = c.wire
	if raw != nil {
		schema = raw
	}
	res := c.request(msg, schema, requestState)
	if notes != nil {
		res.InputRequests[c.key].(*mcp.ElicitParams).Meta = notes
	}
	return res
}

// reasked returns the message that names problems, the _meta that notes
// them (nil for none), and the schema whose defaults are the accepted
// answers; nil when there are none, for c's own.
func (c *compiled) reasked(accepted Answers, problems []*FieldError) (string, json.RawMessage, map[string]any) {
	msg, notes := c.withProblemsNoted(c.message, problems)
	if len(accepted) > 0 {
		s, err := buildSchema(c.fields, true, accepted)
		if err == nil {
			if raw, err := json.Marshal(s); err == nil {
				return msg, raw, notes
			}
		}
		// On an error, which accepted values cannot cause, the form
		// is asked without the defaults rather than not at all.
	}
	return msg, nil, notes
}

// judge reads and checks the answer under c.key. An answer with a refused
// value, optional or not, is invalid: the person typed something, and
// dropping it without a word would be worse than asking again. Unknown
// keys alone are dropped.
func (c *compiled) judge(a seam.Answers) (ReplyStatus, Answers, []*FieldError) {
	r, ok := a.Answer(c.key)
	if !ok {
		return ReplyNone, nil, nil
	}
	switch r.Action {
	case "accept":
	case "decline":
		return ReplyDeclined, nil, nil
	case "cancel":
		return ReplyCancelled, nil, nil
	default:
		return ReplyInvalid, nil, []*FieldError{{Err: errUnknownAction}}
	}
	if raw, ok := r.Content.(json.RawMessage); ok { // as written: see seam.Answer
		r.Content = readContent(raw)
	}
	content, ok := r.Content.(map[string]any)
	if !ok && r.Content != nil {
		return ReplyInvalid, nil, []*FieldError{{Err: errNotObject}}
	}
	if content == nil {
		content = map[string]any{}
	}
	return c.judgeContent(content, false)
}

// judgeContent judges an accepted answer's content; owned is as for
// checkCompiled.
func (c *compiled) judgeContent(content map[string]any, owned bool) (ReplyStatus, Answers, []*FieldError) {
	answers, problems, missing := checkCompiled(content, c.fields, c.lookup, owned)
	if missing || hasInvalid(problems) {
		return ReplyInvalid, answers, problems
	}
	return ReplyAccepted, answers, problems
}

var (
	errUnknownAction = fmt.Errorf("%w: the answer's action is none of accept, decline and cancel", ErrInvalidValue)
	errNotObject     = fmt.Errorf("%w: the answer's content is not an object", ErrInvalidValue)
)

func hasInvalid(problems []*FieldError) bool {
	for _, p := range problems {
		if errors.Is(p.Err, ErrInvalidValue) {
			return true
		}
	}
	return false
}

func (f *Form[T]) decodeAnswers(a Answers) (T, error) {
	var v T
	if f.decode == nil {
		switch m := any(&v).(type) {
		case *Answers:
			*m = a
		case *map[string]any:
			*m = a
		}
		return v, nil
	}
	err := f.decode.into(&v, a)
	return v, err
}

// A ReplyStatus says what a client answered to a [Form].
type ReplyStatus int

const (
	// ReplyNone: there is no answer under the form's key, as on a first
	// call. Ask with [Form.Ask].
	ReplyNone ReplyStatus = iota
	// ReplyAccepted: the person answered, and every value is accepted;
	// [Reply.Value] holds the decoded answer.
	ReplyAccepted
	// ReplyDeclined: the person declined to answer.
	ReplyDeclined
	// ReplyCancelled: the person dismissed the form.
	ReplyCancelled
	// ReplyInvalid: the answer had a refused value or missed a required
	// one, or its action was none of the protocol's; [Reply.Problems] names
	// each. Ask again with [Form.Reask].
	ReplyInvalid
)

// String returns the status's lower-case name, such as "accepted".
func (s ReplyStatus) String() string {
	switch s {
	case ReplyNone:
		return "none"
	case ReplyAccepted:
		return "accepted"
	case ReplyDeclined:
		return "declined"
	case ReplyCancelled:
		return "cancelled"
	case ReplyInvalid:
		return "invalid"
	}
	return fmt.Sprintf("ReplyStatus(%d)", int(s))
}

// A Reply is what [Form.ReadCall] (or [Form.Read]) makes of a client's
// answer.
type Reply[T any] struct {
	Status ReplyStatus
	// Value is the decoded answer when Status is ReplyAccepted, and T's
	// zero value otherwise. An optional field left unanswered stays nil or
	// zero.
	Value T
	// Answers are the accepted values, also when some were refused; empty
	// for an answer that was not accepted.
	Answers Answers
	// Problems name each refused value, missing required field and
	// unknown key, in field order and then key order; unknown keys alone
	// do not make a reply invalid.
	Problems []*FieldError
	// Path is the way the answer came: [PathNative] or [PathLegacy] for
	// an input response, [PathView] or [PathModel] for arguments carrying
	// a state the form minted for that path, and [PathNone] for none.
	// A handler that must not act on what only the model vouches for
	// refuses PathModel.
	Path Path

	again    *FlowRound   // the re-ask on the view or model path
	lang     catalog.Lang // the language of the call read, for Reask
	unserved bool         // read from a call go-sdk's bridge cannot re-ask
}

// requireInput returns the capability error for a call whose client cannot
// answer what is asked (a form, a URL, or both), and nil for one that can.
func requireInput(call seam.Call, form, url bool) error {
	hasForm, hasURL := call.Modes()
	if (!form || hasForm) && (!url || hasURL) {
		return nil
	}
	return call.CapabilityError(form, url)
}

// capabilityNeed is go-sdk's NeedCapabilities for a call that needs form
// mode, URL mode, or both.
func capabilityNeed(form, url bool) error {
	need := &mcp.ElicitationCapabilities{}
	if form {
		need.Form = &mcp.FormElicitationCapabilities{}
	}
	if url {
		need.URL = &mcp.URLElicitationCapabilities{}
	}
	return NeedCapabilities(&mcp.ClientCapabilities{Elicitation: need})
}

// elicitationModes reports which elicitation modes the client of req
// declared, as [PathFor] judges
// req.ClientCapabilities(). It reads the per-request capabilities of
// 2026-07-28 in place when they arrived as JSON, because go-sdk's
// ClientCapabilities re-encodes them through a decoder that allocates tens
// of kilobytes, more than the rest of a flow's round.
func elicitationModes(req *mcp.CallToolRequest) (form, url bool) {
	if req == nil {
		return false, false
	}
	if req.Params != nil {
		if m, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			e, ok := m["elicitation"].(map[string]any)
			if !ok {
				return false, false
			}
			url = e["url"] != nil
			return e["form"] != nil || !url, url
		}
	}
	caps := req.ClientCapabilities()
	return clientSupportsForm(caps), clientSupportsURL(caps)
}

// A lone Form picks its path and reads its answer here, once for every
// face: [Form.Ask] and [Form.ReadCall] are go-sdk's wrappers of ask and
// readCall, and the mcpgo package reaches the same two through
// [Form.Seam], so that a form asks the same host the same way on either
// SDK.

// Ask returns the result that asks for the form in the way the client of
// req can answer, chosen as a [Flow] chooses for each step: [Form.InputRequest]
// for a client that declared form elicitation, carrying requestState;
// with [FormOptions].Codec, a prefab view on an MCP Apps host that cannot
// answer a form, and, with AskModel too, the model, unless the form has a
// boolean field (a confirmation fails closed); and to any other client
// the JSON-RPC error of [NeedCapabilities], -32021, which the handler
// returns as it is. A form without a Codec is asked natively only.
// [Form.ReadCall] reads the answer on every path. On the view and model
// paths, the form carries a state of its own in the arguments, under
// [StateArgument], and requestState is not sent; the tool's input schema
// must let the state and the fields' names through. A state in req's
// arguments that does not verify is answered with the -32602 error of
// [RejectState]. Asking again a client older than 2026-07-28, which
// go-sdk's bridge serves one round only, needs [AddLegacyRounds]; without
// it, Ask returns a JSON-RPC error, -32603, that names it.
//
// A form with secret fields is asked only as a [Step] of a [Flow], which
// asks the secrets in URL mode; Ask refuses it, because the form-mode
// request would leave them out.
func (f *Form[T]) Ask(req *mcp.CallToolRequest, requestState string) (*mcp.CallToolResult, error) {
	a, err := f.ask(context.Background(), (*sdkCall)(req))
	if err != nil {
		return nil, err
	}
	if a.round != nil {
		return a.round.Result, nil
	}
	if unserved(req) {
		return nil, errFormNoLegacy
	}
	return a.native.reask(nil, nil, requestState), nil
}

// formAsk is what a form asks of one call's client: natively, the form in
// the call's language, or the round of the form's one-step flow that
// shows a view or asks the model.
type formAsk struct {
	native *compiled
	round  *FlowRound
}

// ask chooses how f asks the client of call; ctx is the handler's, which
// a face's ContextPrincipal reads.
func (f *Form[T]) ask(ctx context.Context, call seam.Call) (formAsk, error) {
	if len(f.c.secrets) > 0 {
		return formAsk{}, fmt.Errorf("mcpform: field %q is secret: ask the form as a Flow step, which asks it in URL mode", f.c.secrets[0].Name)
	}
	can, model := reachOf(call), false
	if f.flow == nil {
		can.native = true // no keys: no state to read answers with off the native path
	} else {
		model = f.flow.model
	}
	path, err := choosePath(call, can, f.c, model)
	if err != nil {
		return formAsk{}, err
	}
	if path == PathNative {
		return formAsk{native: f.c.in(callLang(call))}, nil
	}
	// The view and the model: the form is a flow of one step, whose
	// round mints the state its answer is read with.
	r, err := f.flow.next(ctx, call)
	if err != nil {
		return formAsk{}, err
	}
	if r.Status != FlowAsk {
		// The call answered already; ReadCall reads it. Ask it afresh.
		if r, err = f.flow.next(ctx, withoutState(call)); err != nil {
			return formAsk{}, err
		}
	}
	return formAsk{round: r}, nil
}

// withoutState is call with no state and no arguments, a first call.
func withoutState(call seam.Call) seam.Call {
	c, ok := call.(*sdkCall)
	if !ok {
		return freshCall{call}
	}
	// go-sdk's own call type, which its Principal reads.
	p := *c.params()
	p.Arguments, p.RequestState = nil, ""
	fresh := *c
	fresh.Params = &p
	return &fresh
}

// freshCall is another face's call with no state and no arguments.
type freshCall struct{ seam.Call }

func (freshCall) State() string                       { return "" }
func (freshCall) Arguments() (json.RawMessage, error) { return nil, nil }

// ReadCall is [Form.Read] for any path [Form.Ask] takes: it reads the
// answer from the call's input responses, or, for a form with
// [FormOptions].Codec, from the arguments, as an MCP Apps view's submit
// and an answer through the model send it, but only together with a state
// under [StateArgument] that the form minted for that path, in a round of
// this tool, for this principal and these arguments. Without a Codec, or
// without such a state, the arguments are never an answer, whatever they
// hold: the Reply's Status is ReplyNone, and [Form.Ask] asks (or answers a
// state that does not verify with -32602). Values a view sends are made
// typed as [Form.ReadArguments] makes them; the model's are judged exactly
// as a native answer. The argument "mcpformAction" set to "decline", which
// a view's Decline button sends and the model is told to send, gives
// ReplyDeclined; any other value of it is ReplyInvalid. [Reply.Path] says
// which path the answer came by. A nil req or one without params has no
// answer.
func (f *Form[T]) ReadCall(req *mcp.CallToolRequest) Reply[T] {
	if req == nil || req.Params == nil {
		return Reply[T]{Status: ReplyNone}
	}
	reply := f.readCall(context.Background(), (*sdkCall)(req))
	reply.unserved = unserved(req)
	return reply
}

// readCall reads f's answer in call, on whichever path it came.
func (f *Form[T]) readCall(ctx context.Context, call seam.Call) Reply[T] {
	// Only a state the form minted makes the arguments an answer: without
	// one, there is nothing to run the form's flow for.
	if !f.inArguments(call) {
		reply := f.read(call)
		reply.lang = callLang(call)
		if reply.Path == PathNative {
			reply.Path = nativePath(call)
		}
		return reply
	}
	r, err := f.flow.next(ctx, call)
	if err != nil || r.Path == PathNone {
		return Reply[T]{Status: ReplyNone}
	}
	reply := Reply[T]{Status: ReplyNone, Path: r.Path, Problems: r.Problems}
	switch r.Status {
	case FlowDone:
		reply.Status, reply.Answers = ReplyAccepted, r.Answers
		v, err := f.decodeAnswers(r.Answers)
		if err != nil {
			return undecodable(reply, err)
		}
		reply.Value = v
	case FlowDeclined:
		reply.Status = ReplyDeclined
	case FlowCancelled:
		reply.Status = ReplyCancelled
	case FlowAsk:
		if len(r.Problems) == 0 {
			return Reply[T]{Status: ReplyNone} // no answer to the form asked
		}
		reply.Status, reply.Answers, reply.again = ReplyInvalid, r.filled, r
	default:
		reply.Status = ReplyInvalid
	}
	return reply
}

// inArguments reports whether f's answer may be in call's arguments: f
// has a Codec, and the call carries a state there, not an input response
// or a requestState.
func (f *Form[T]) inArguments(call seam.Call) bool {
	if f.flow == nil || call.State() != "" {
		return false
	}
	if _, ok := call.Answer(f.c.key); ok {
		return false
	}
	args, err := call.Arguments()
	return err == nil && bytes.Contains(args, []byte(`"`+StateArgument+`"`))
}

// askPresentation is a, for a face other than go-sdk's: the native
// request carrying state, or the round's view or model request.
func (f *Form[T]) askPresentation(a formAsk, call seam.Call, state string) seam.Presentation {
	if a.round != nil {
		return f.flow.presentation(a.round)
	}
	return a.native.nativePresentation(nil, nil, state, call.Legacy())
}

// nativePresentation asks c natively, naming problems and pre-filling
// accepted, carrying state.
func (c *compiled) nativePresentation(accepted Answers, problems []*FieldError, state string, legacy bool) seam.Presentation {
	// No contentLanguage: go-sdk's face marks no native ask of a lone
	// form either.
	p := seam.Presentation{Kind: seam.Native, Requests: c.asked, State: state}
	if len(accepted) > 0 || len(problems) > 0 {
		p.Requests = []seam.Request{c.seamRequest(accepted, problems)}
	}
	if legacy {
		p.Kind = seam.Legacy
	}
	return p
}
