package mcpform

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// A Step is one round of a [Flow]: a form asked under its own input key.
type Step struct {
	// Form is the step's compiled form, a *Form[T] of any T, whose key,
	// message and fields the step asks with. When Form is set, Key, Fields
	// and Message must be empty.
	Form CompiledForm
	// Key names the step's input request; the client answers under it.
	// It must be non-empty and unique within the flow.
	Key string
	// Fields are the step's questions. Field names must be unique across
	// the whole flow, because the answers are merged.
	Fields []AutoFormField
	// Message is shown above the form. Empty means [DefaultInputMessage].
	// A message that names the call's arguments is built with the flow,
	// per call: see "A flow per call" in the Flow documentation.
	Message string
	// When decides, from the answers proven by earlier steps, whether the
	// step is asked at all. Nil means always. Like Message and Check, it
	// sees the call's arguments only as a flow built per call does.
	When func(proven Answers) bool
	// Check judges an answer that passed the step's schema by rules of the
	// caller's own, such as "the room is free". Each problem it returns,
	// named by field, asks the step again like a refused value; returning
	// none accepts the answer. It runs again on every later round, so a
	// proven answer that no longer passes is asked again. Nil accepts
	// every answer the schema accepts.
	//
	// On a step of secret fields alone (see [AutoFormField.Secret]), the
	// secret page runs Check on each post, with the secrets the person
	// typed, which never reach a round: a problem it names is shown on
	// the page, which asks again, up to [FlowOptions].MaxReasks times;
	// one more failing post refuses the link, and the flow ends with
	// [FlowInvalid] and [ErrSecretRefused]. NewFlow refuses a Check on a
	// step that has secret fields beside others, which no one place
	// sees together: give the secrets a step of their own.
	Check func(answers Answers) []*FieldError
	// Submit labels the button that sends the step in an MCP Apps view,
	// such as "Create account" on a flow's last step. Empty means
	// "Continue" when a step is sure to follow, [FlowOptions].Commit on
	// a step sure to be the last, and otherwise "Submit", which is true
	// whether or not the flow ends there. Native forms and the model are
	// not shown it: their client draws its own buttons. In another
	// language than the author's it is translated as the step's other
	// words are; left untranslated, the view marks it in the author's
	// language.
	Submit string
}

// FlowOptions configures [NewFlow]. A nil *FlowOptions and zero fields mean
// the defaults.
type FlowOptions struct {
	// MaxReasks is how many times a step is asked again after an answer
	// that fails the check; one more failing answer ends the flow with
	// [FlowInvalid]. Zero means 3. The count travels in the state, so a
	// client that sends an earlier state back counts from there again:
	// MaxReasks spares a person a long loop, and bounds no guessing. A
	// Check that guards something guessable, such as a code sent by
	// mail, limits its own attempts, per run ([FlowRound].ID). The Check
	// of a step of secrets alone, which its secret page runs, is the
	// exception: the page counts its failures in the SecretStore, so
	// MaxReasks bounds guessing on each link.
	MaxReasks int
	// Principal returns who the server authenticated for the call, such
	// as the UserID of req.Extra.TokenInfo, never a value the client
	// chose. A flow needs it, or ContextPrincipal, unless
	// EveryCallerIsSamePerson says otherwise: NewFlow refuses a flow with
	// none of the three. A call for which it returns "", as one that
	// reached the tool unauthenticated, is refused with an error, on its
	// first round, unless EveryCallerIsSamePerson is set: "" would bind
	// every such caller's state to one principal.
	Principal func(req *mcp.CallToolRequest) string
	// ContextPrincipal returns who the server authenticated for the call,
	// read from the tool handler's context, for SDKs whose handlers get
	// the principal only there: on mark3labs/mcp-go, what its auth
	// middleware or HTTPContextFunc put in the context (see the mcpgo
	// package), or from the context [Flow.Next] is given. Where both are
	// set, go-sdk's face uses Principal and the mcpgo face
	// ContextPrincipal. An mcpgo call of a flow with Principal alone is
	// refused, so that a flow with a principal is never bound to "" by
	// mistake.
	ContextPrincipal func(ctx context.Context) string
	// EveryCallerIsSamePerson binds every call's state to one principal,
	// "": right only for a server without authentication, such as a
	// local stdio server for one person. False, with neither Principal
	// nor ContextPrincipal, makes NewFlow refuse the flow.
	EveryCallerIsSamePerson bool
	// UnboundArguments leaves the call's arguments out of what the state
	// is bound to, for a tool whose arguments legitimately change between
	// rounds. False binds them: a state replayed with other arguments is
	// refused.
	UnboundArguments bool
	// Secrets says how secret fields (see [AutoFormField.Secret]) are asked:
	// in URL mode, on a page of the server's. Nil means the flow has none;
	// NewFlow refuses a step with a secret field then.
	Secrets *SecretOptions
	// ReadableState signs the flow's state without sealing it, so that
	// clients, proxies and logs can read the answers it carries: for
	// debugging only. States minted with it and without it do not verify
	// across, so changing it ends the runs in flight. False seals the
	// state (see Flow), whatever [RequestStateOptions.Seal] says.
	ReadableState bool
	// Outcomes keeps the first outcome of each run, for
	// [FlowRound.Once]. With it, a finishing round leaves its secrets in
	// the store until Once has stored the outcome, so a duplicate of the
	// round waits for that outcome rather than asking for the page
	// again: call Once for every status but FlowAsk. A run lasts no
	// longer than Outcomes keep its outcome (24 hours for an Outcomes
	// other than [MemoryOutcomes] and [SQLStore], which say). Nil means
	// Once keeps outcomes in this process's memory, for 24 hours, in one
	// store every such flow shares: once within the process, but not
	// across replicas or a restart, for which set a shared store such as
	// a [SQLStore]; and the secrets are deleted as the round finishes.
	Outcomes Outcomes
	// AskModel lets a client that can be asked neither in a form nor in an
	// MCP Apps view be asked through the model: see "Asking through the
	// model" in the package documentation. False answers such a client
	// with -32021.
	AskModel bool
	// Translate gives the author's own words in a language the person
	// asked for, as [FormOptions].Translate does, for every step; a step
	// whose Form has a Translate of its own uses this one when it is set.
	// Nil keeps each step's Form's.
	Translate func(lang language.Tag, text string) string
	// Language is the language the author writes the flow's own words
	// in, as [FormOptions].Language is, for every step and Commit. The
	// zero Tag keeps each step's Form's, which is English unless the Form
	// says otherwise.
	Language language.Tag
	// Commit names what the flow does once it ends, as the button that
	// ends it says it, such as "Create account": on the check round of
	// CheckAnswers, or else on a step sure to be the last. It is shown as
	// it is, in every language: translate it with Translate; left
	// untranslated, a view marks it in the author's language. Empty means
	// "Submit" in the person's language. Natively, where the client draws
	// its own buttons, the message of a step whose accepting may finish
	// the flow says so, naming Commit; empty says nothing.
	Commit string
	// CheckAnswers ends the flow with a round, keyed [CheckStep], that
	// shows the answers of every step that was asked, never a secret, on
	// every path, and asks whether they are right: yes finishes the flow,
	// so that [FlowRound.Once] runs only after it; or the person picks a
	// step to change, which is asked again, filled with its answers, the
	// other steps staying proven, and then the check round again. A step
	// of secrets alone is not offered to change. False finishes the flow
	// as its last step is answered.
	CheckAnswers bool
}

// A Flow asks for input in several rounds, carrying what earlier rounds
// proved in sealed request state, so that a tool handler can gate a side
// effect on the result. Use one when a form must branch on earlier answers.
//
// Each round, the tool handler calls [Flow.Next] and acts on the
// [FlowRound] it returns. A flow trusts nothing the client sends:
//
//   - The state is bound to the principal, the tool and a digest of the
//     call's arguments (see [FlowOptions]), so it cannot be replayed for
//     another person, tool or set of arguments.
//   - A step's answer is judged as [Form.Read] judges it, then by the
//     step's Check; a refused value asks the step again, naming the
//     problem and pre-filling the values that were accepted.
//   - The answers of earlier steps come only from the verified state, never
//     again from the client. Every round checks them again against the
//     steps as they are now: a step whose questions changed since its
//     answer was proven (a deploy between rounds), or whose proven answer
//     no longer passes, is asked again. A [FlowDone] never carries a value
//     the current steps refuse.
//   - Each step is asked in the way the client can answer: natively, in
//     an MCP Apps view, or, opted in, through the model (see the package
//     documentation, "UI path" and "The link and model paths"); a client
//     that can be asked no way is not asked: Next returns the -32021
//     error of [NeedCapabilities].
//
// Proven answers travel in the state, sealed (see Sealed state below).
// Secret fields never do: a step with one (see [AutoFormField.Secret])
// asks its other fields in form mode and, in the same round, links the
// person to the flow's [Flow.SecretPage] in URL mode, which only a client
// that declared URL-mode elicitation is sent; any other is given the link
// in an ordinary result (see "Secrets" in the package documentation).
// The page puts what the person types into the [SecretStore] of
// [FlowOptions].Secrets, and the round that finishes the flow takes it
// from there, once, into FlowDone's Answers. A retry before the page was
// sent asks again, saying the page is still waiting. A flow that ends any
// other way (declined, cancelled, invalid, refused) deletes what was sent
// on its pages, and they take nothing more. With
// [SecretPageOptions].AnyoneWithTheLink, whoever opens the link and posts
// first sets the value; only Authorize closes this. With
// [FlowOptions].Outcomes, the secrets stay in the store until
// [FlowRound.Once] has stored the run's outcome, and a duplicate or replay
// of the finishing round gets that outcome; without, a replay after the
// flow finished finds the secret spent, and ends with [FlowInvalid] and
// [ErrSecretUsed].
//
// # Sealed state
//
// A flow's state is sealed with AES-256-GCM, as [RequestStateOptions.Seal]
// seals, whether or not its codec seals other tokens. Clients, proxies,
// logs and traces, and a model whose host puts the state in its context,
// see an opaque token: not the proven answers, the step, the attempt or
// the run ID, only the token's length. Its binding and expiry hold as for
// a signed state, and a state that does not open is refused as one whose
// MAC fails. Sealing does not stop a replay of the state, unchanged,
// until it expires: the run ID and a store do (see Idempotency below).
//
// The codec's first key seals, and every key, [RequestStateOptions].VerifyKeys
// too, opens. Rotate across replicas as VerifyKeys says: the new key
// verify-only everywhere, then first, then alone once the old one's
// states and links have expired. Replicas that share the keys open each
// other's states. For debugging,
// [FlowOptions].ReadableState signs the state without sealing it, so that
// it can be read.
//
// # Idempotency
//
// A state can be replayed, unchanged, until it expires, and each replay of
// the last round finishes the flow again, possibly with other answers to
// that round. Gate whatever the run triggers with [FlowRound.Once], on the
// [Outcomes] of [FlowOptions], such as a [SQLStore]: the first outcome
// stored under the run's [FlowRound.ID] wins, a later round of the run on
// any replica returns it and triggers nothing, whatever its answers, and a
// duplicate that arrives while the first is still running waits for its
// outcome. The Example of FlowRound.Once shows the pattern.
//
// # A flow per call
//
// A step's Message, When and Check see the answers, not the call. A step
// that must speak of the call's own arguments, such as a confirmation
// "Transfer 9007199254740993 cents from CHK-1 to SAV-2?", or judge an
// answer against them, is built in the handler, for the call: read the
// arguments, build the steps from them, and call NewFlow and Next on
// each call. This is supported: the state a round mints is bound to the
// call's arguments, so the next round, whose call carries the same
// arguments, builds the same steps and verifies it, and a call with other
// arguments is refused. Build what outlives a call once, and share it
// between the flows: the codec, the [Outcomes] and [SecretStore], the
// secret page (from any one of the flows, whose steps of secrets it
// shows, and whose Check of a step of secrets alone it runs), and the
// Forms of steps that do not change, which NewFlow then only reuses.
// Steps built per call must keep their keys and fields from call to call
// with the same arguments; a step whose fields changed is asked again
// ([ErrChanged]).
//
// A Flow is immutable and safe for concurrent use.
type Flow struct {
	codec     *RequestStateCodec
	readable  bool // the state is signed, not sealed
	steps     []flowStep
	maxReasks int
	principal func(*mcp.CallToolRequest) string
	// contextPrincipal reads the principal from a handler's context; see
	// principalOf.
	contextPrincipal func(context.Context) string
	unbound          bool
	samePerson       bool // FlowOptions.EveryCallerIsSamePerson
	secrets          *SecretOptions
	links            *linkKeys // the secret page's; nil without secrets
	outcomes         Outcomes
	runLife          time.Duration   // how long a run may last; see runLive
	outcomeSeal      *token.Sealer   // seals outcomes for a store that keeps them at rest
	model            bool            // FlowOptions.AskModel
	commit           string          // FlowOptions.Commit, in the flow's language
	commitLang       string          // commit's lang, when the author's words amid another language; see language.go
	review           bool            // FlowOptions.CheckAnswers
	own              map[string]bool // the argument keys the flow writes; see ownArguments

	lang      catalog.Lang                            // the language f speaks; see language.go
	translate func(language.Tag, string) string       // FlowOptions.Translate
	author    language.Tag                            // FlowOptions.Language; the zero Tag leaves each step's
	local     *[catalog.NumLangs]atomic.Pointer[Flow] // f in each language, shared by them all
	origin    *Flow                                   // what f translates; nil for an original
}

// flowStep is a step compiled: its form, rules and pin.
type flowStep struct {
	c     *compiled
	when  func(Answers) bool
	check func(Answers) []*FieldError
	pin   string // a digest of what the step asks, recorded with its answers
	// onPage says check judges the step's secrets, on its secret page,
	// never in a round, which sees none of them.
	onPage bool
	// submit is Step.Submit: the label of the view's submit button, in
	// the flow's language; submitLang its lang when it is the author's
	// words amid another language.
	submit, submitLang string
	// review is, on the round that checks the answers (see checkStep),
	// each step's answers as its view shows them; nil on a step.
	review []prefab.Review
}

// NewFlow returns a flow of steps, asked in order, whose state codec
// seals and binds. It refuses a nil or non-binding codec, an empty list, an empty
// or repeated step key, a field name used twice across steps, a secret
// field named as one of the secret page's own inputs ("t", "c" or "a"),
// and any broken field definition, with an error naming the step.
func NewFlow(codec *RequestStateCodec, steps []Step, opts *FlowOptions) (*Flow, error) {
	if codec == nil {
		return nil, errors.New("mcpform: NewFlow needs a request-state codec")
	}
	if !codec.bind {
		return nil, errors.New("mcpform: a flow's codec must bind (RequestStateOptions.Bind)")
	}
	if len(steps) == 0 {
		return nil, errors.New("mcpform: flow has no steps")
	}
	f := &Flow{codec: codec, maxReasks: 3}
	if opts != nil {
		if opts.MaxReasks < 0 {
			return nil, fmt.Errorf("mcpform: flow MaxReasks %d is negative", opts.MaxReasks)
		}
		if opts.MaxReasks != 0 {
			f.maxReasks = opts.MaxReasks
		}
		f.principal, f.unbound, f.secrets, f.model = opts.Principal, opts.UnboundArguments, opts.Secrets, opts.AskModel
		f.readable, f.samePerson = opts.ReadableState, opts.EveryCallerIsSamePerson
		f.outcomes = opts.Outcomes
		f.contextPrincipal = opts.ContextPrincipal
		f.translate = opts.Translate
		f.author = opts.Language
		f.commit, f.review = opts.Commit, opts.CheckAnswers
	}
	f.local = new([catalog.NumLangs]atomic.Pointer[Flow])
	seal, err := checkStores(codec, opts)
	if err != nil {
		return nil, err
	}
	f.outcomeSeal = seal
	f.runLife = runLifeOf(f.outcomes)
	if s := f.secrets; s != nil && (s.PageURL == "" || s.Store == nil) {
		return nil, errors.New("mcpform: FlowOptions.Secrets needs a PageURL and a Store")
	}
	if f.secrets != nil {
		f.links = newLinkKeys(codec)
	}
	owner := map[string]string{} // field name → step key
	for i, s := range steps {
		c, err := compileStep(i, s)
		if err != nil {
			return nil, err
		}
		if f.index(c.key) >= 0 {
			return nil, fmt.Errorf("mcpform: flow step key %q is used twice", c.key)
		}
		if len(c.secrets) > 0 && f.secrets == nil {
			return nil, fmt.Errorf("mcpform: flow step %q: %w", c.key, &FieldError{Field: c.secrets[0].Name,
				Err: errors.New("secret, and asked only in URL mode: set FlowOptions.Secrets")})
		}
		for _, fd := range c.secrets {
			if slices.Contains(pageInputs[:], fd.Name) {
				return nil, fmt.Errorf("mcpform: flow step %q: %w", c.key, fieldErr(fd.Name, ErrName,
					"is the name of one of the secret page's own inputs (%s): rename the secret field", strings.Join(pageInputs[:], ", ")))
			}
		}
		if s.Check != nil && len(c.secrets) > 0 && len(c.fields) > 0 {
			return nil, fmt.Errorf("mcpform: flow step %q: %w", c.key, fieldErr(c.secrets[0].Name, ErrName,
				"is secret, and a step's Check never sees a secret beside the step's other answers: "+
					"move the secret fields to a step of their own, whose Check the secret page runs"))
		}
		for _, fd := range c.all {
			if o, ok := owner[fd.Name]; ok {
				return nil, fmt.Errorf("mcpform: flow step %q: %w", c.key,
					fieldErr(fd.Name, ErrName, "also asked by step %q; answers are merged", o))
			}
			owner[fd.Name] = c.key
		}
		sum := sha256.Sum256(append([]byte(c.key+"\x00"), c.schema...))
		f.steps = append(f.steps, flowStep{c: c, when: s.When, check: s.Check, submit: s.Submit, onPage: len(c.secrets) > 0,
			pin: base64.RawURLEncoding.EncodeToString(sum[:12])})
	}
	if f.principal == nil && f.contextPrincipal == nil && (opts == nil || !opts.EveryCallerIsSamePerson) {
		return nil, errNoPrincipal
	}
	f.own = ownArguments(f.steps)
	if f.review {
		if f.index(CheckStep) >= 0 || owner[checkField] != "" || owner[prefab.RendererKey(checkField)] != "" {
			return nil, fmt.Errorf("mcpform: a flow that checks its answers has a step %q or a field %q of its own: rename yours", CheckStep, checkField)
		}
		f.own[checkField], f.own[prefab.RendererKey(checkField)] = true, true
	}
	return f, nil
}

// runLifeOf returns how long a run of a flow whose outcomes are kept in
// o may last: less than o keeps an outcome, by the leeway between
// replicas' clocks, so that every replay of a finished run finds its
// outcome. An Outcomes of another kind is taken to keep them for 24
// hours, SQLStore's and MemoryOutcomes' default. Without Outcomes, a run
// lasts as long as its states are sent back.
func runLifeOf(o Outcomes) time.Duration {
	if o == nil {
		return 0
	}
	keep := 24 * time.Hour
	if k, ok := o.(interface{ outcomeKeep() time.Duration }); ok {
		keep = k.outcomeKeep()
	}
	return max(keep-RequestStateLeeway, time.Nanosecond)
}

// errNoPrincipal refuses a flow that would bind every caller's state to
// the same principal without saying so.
var errNoPrincipal = errors.New("mcpform: a flow needs FlowOptions.Principal (go-sdk) or ContextPrincipal, to bind each state to who called; set EveryCallerIsSamePerson only for a server without authentication")

// compileStep returns step i's compiled form.
func compileStep(i int, s Step) (*compiled, error) {
	if s.Form != nil {
		if s.Key != "" || s.Fields != nil || s.Message != "" {
			return nil, fmt.Errorf("mcpform: flow step %d has a Form and its own Key, Fields or Message", i)
		}
		if c := s.Form.compiledForm(); c != nil {
			return c, nil
		}
		return nil, fmt.Errorf("mcpform: flow step %d has a nil Form: was the error of FormFor or NewForm ignored?", i)
	}
	if s.Key == "" {
		return nil, fmt.Errorf("mcpform: flow step %d has an empty key", i)
	}
	fields := cloneFields(s.Fields)
	if err := checkFields(fields); err != nil {
		return nil, fmt.Errorf("mcpform: flow step %q: %w", s.Key, err)
	}
	return compile(fields, &FormOptions{Key: s.Key, Message: s.Message})
}

// Fields returns a copy of the fields of the step keyed step, secret ones
// included, or nil when the flow has no such step, so that a caller can
// name problems without keeping a second list.
func (f *Flow) Fields(step string) []AutoFormField {
	if i := f.index(step); i >= 0 {
		return cloneFields(f.steps[i].c.all)
	}
	return nil
}

func (f *Flow) index(key string) int {
	for i := range f.steps {
		if f.steps[i].c.key == key {
			return i
		}
	}
	return -1
}

// A FlowStatus says how a round of a [Flow] ended.
type FlowStatus int

const (
	// FlowAsk: return [FlowRound.Result], which asks for the next step.
	FlowAsk FlowStatus = iota
	// FlowDone: every step that applies is answered; [FlowRound.Answers]
	// holds them all, merged.
	FlowDone
	// FlowDeclined: the person declined [FlowRound.Step].
	FlowDeclined
	// FlowCancelled: the person dismissed [FlowRound.Step].
	FlowCancelled
	// FlowInvalid: [FlowRound.Step] was asked again
	// [FlowOptions.MaxReasks] times, and its answer still failed the check;
	// or its secret page refused its link ([ErrSecretRefused]).
	FlowInvalid
)

// String returns the status's lower-case name, such as "done".
func (s FlowStatus) String() string {
	switch s {
	case FlowAsk:
		return "ask"
	case FlowDone:
		return "done"
	case FlowDeclined:
		return "declined"
	case FlowCancelled:
		return "cancelled"
	case FlowInvalid:
		return "invalid"
	}
	return fmt.Sprintf("FlowStatus(%d)", int(s))
}

// A FlowRound is the outcome of one call of [Flow.Next].
type FlowRound struct {
	Status FlowStatus
	// Result is, for FlowAsk, the input_required result to return from the
	// handler as it is; nil otherwise.
	Result *mcp.CallToolResult
	// Answers are the answers proven so far: all of them for FlowDone, and
	// those of the steps before Step otherwise. Never nil. Decode them
	// with [Answers.Decode].
	Answers Answers
	// Step is the key of the step asked, declined, cancelled or failed,
	// [CheckStep] for the round that checks the answers; "" for FlowDone.
	Step string
	// Problems say why Step is asked again or has failed: its last answer's
	// refused values, or a proven answer that the step as it is now
	// refuses. The re-ask's message names them.
	Problems []*FieldError
	// Attempt counts the failed answers Step has had, from 0.
	Attempt int
	// ID identifies this run of the flow: random when the flow starts,
	// then carried in its sealed state, so every round of one run, and any
	// replay of one, has the same ID. It is the idempotency key of what
	// FlowDone triggers; see the Flow documentation.
	ID string
	// Path is the weakest of the ways by which the answers the handler
	// is about to act on came, in the order PathModel < PathLink <
	// PathView < PathLegacy < PathNative: those of Answers, each step's
	// recorded in the sealed state with the path it came by, and this
	// call's, which is the path the state it carried was minted for (the
	// only path its answers are read from), or PathLink for a call that
	// answered no field but a secret page's. [PathNone] when the call
	// carried no state, as on a flow's first call. A state minted before the state recorded paths counts its
	// proven answers as the model's. So a flow whose payee the model
	// typed reports PathModel to the end, even when the person answered
	// its last step natively or on a secret page: a handler that must
	// not act on answers only the model vouches for refuses [PathModel].
	Path Path
	// Language is the language the flow speaks to the person: matched,
	// in its first round, from the call's acceptLanguage _meta or HTTP
	// Accept-Language (see "Languages" in the package documentation),
	// then pinned in its state, so that every round speaks it. English
	// when the person asked for none that mcpform speaks. Result carries
	// it as contentLanguage; a handler that writes its own result in it
	// marks it with [ContentLanguage].
	Language language.Tag

	flow   *Flow
	taken  []*secretLink // links whose secrets were taken, spent by Once
	replay bool          // the secrets are gone: Once only waits
	filled Answers       // FlowAsk: the values the re-ask pre-fills
	first  []byte        // the run's outcome, already stored, as JSON
	face   *faceRequests // FlowAsk on another SDK's face: what to ask
	legacy bool          // the client is older than 2026-07-28
}

// Next runs one round of the flow for the tool call req. ctx is the tool
// handler's: it bounds the round's store calls, and [FlowOptions].ContextPrincipal
// reads the principal from it. A nil ctx is context.Background().
//
// A call without request state, in req.Params.RequestState or under
// [StateArgument] in its arguments, starts the flow. A state that does not
// verify, has expired, or was minted for another principal, tool or set of
// arguments returns the JSON-RPC error of [RejectState]; a client
// that can be asked no way, the error of [NeedCapabilities]. The handler
// returns either as it is. Other errors report misuse, such as a nil flow
// or request.
//
// A client older than 2026-07-28 is served by go-sdk's bridge, which
// fulfils one round only; install the middleware of [AddLegacyRounds] so
// that such a client can answer every round of the flow. Without it, a
// round that would ask such a client a second time returns a JSON-RPC
// error, code -32603, that says so.
func (f *Flow) Next(ctx context.Context, req *mcp.CallToolRequest) (*FlowRound, error) {
	if f != nil && len(f.steps) > 0 && (req == nil || req.Params == nil) {
		return nil, errors.New("mcpform: Next without a tool call")
	}
	r, err := f.next(ctx, (*sdkCall)(req))
	if err == nil {
		err = unservedRound(req, r) // a round go-sdk's bridge cannot carry
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// next runs one round for a call read from any SDK (see internal/seam):
// it reads the call (readCall), then walks the steps, judging the
// answer, minting the next state and presenting it (round.go).
// ctx bounds the round's store calls and reaches ContextPrincipal.
func (f *Flow) next(ctx context.Context, call seam.Call) (*FlowRound, error) {
	if f == nil || len(f.steps) == 0 {
		return nil, errors.New("mcpform: Next on a flow without steps")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var r round
	if err := f.readCall(ctx, call, &r); err != nil {
		return nil, err
	}
	res, err := r.run()
	if res != nil {
		res.flow = r.flow // for Once
		res.face, res.legacy = r.face, r.legacy
		if r.stated && res.Path == PathNone {
			res.Path = r.weakest()
		}
		res.Language = r.lang.Tag()
		if r.lang != catalog.English && res.Result != nil {
			stampLang(res.Result, r.lang.Code())
		}
		if r.channel == PathView && res.Result == nil && res.face == nil {
			call.EndView(r.endedView())
		}
	}
	return res, err
}

// InputSchema returns the input schema of a tool that runs the flow, as
// JSON: base (nil means {"type": "object"}), copied, with what the model
// may send added when the flow asks through the model (AskModel): each
// field a form asks, with its type, title and bounds, as its form's
// schema has them, none required, because each step asks its own;
// [StateArgument], the state a previous result gave; and
// "mcpformAction", whose value "decline" says the person declined. Without
// AskModel nothing is added: what a view sends comes through its app-only
// tool, and a host lists no argument a person has no use for. A base whose
// additionalProperties is false gets every key the flow reads, views'
// included, each described as what it is, since a client that checks
// arguments against the schema would refuse any other. Secret fields are
// never sent, and are never added.
//
// The schema is marshalled here, once, so that a server that looks at a
// tool's schema on every call (go-sdk's streamable HTTP handler does, for
// its x-mcp-header check) parses these bytes and never marshals a
// *jsonschema.Schema again. It panics if base does not marshal, as
// go-sdk's AddTool does for a schema it cannot read, and if base has a
// property named as a field of the flow or as the key prefab's renderer
// sends a field under (teamName for team_name): the flow would read that
// argument as an answer, and leave it out of what its state is bound to.
func (f *Flow) InputSchema(base *jsonschema.Schema) json.RawMessage {
	s := &jsonschema.Schema{Type: "object"}
	if base != nil {
		s = base.CloneSchemas()
		f.checkBase(s)
	}
	closed := s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil
	if f != nil && (f.model || closed) {
		f.addArguments(s, closed)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcpform: Flow.InputSchema: base does not marshal to JSON: %v", err))
	}
	return b
}

// addArguments adds to s the properties InputSchema describes; all of
// them, views' included, when closed.
func (f *Flow) addArguments(s *jsonschema.Schema, closed bool) {
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	add := func(name string, p *jsonschema.Schema) {
		if _, ok := s.Properties[name]; !ok {
			s.Properties[name] = p
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
	}
	for i := range f.steps {
		for _, fd := range f.steps[i].c.fields {
			p, err := fd.schema(false)
			if err != nil {
				panic(fmt.Sprintf("mcpform: Flow.InputSchema: field %q: %v", fd.Name, err)) // checked by NewFlow
			}
			p.Default = nil // a default is the form's to show, not the model's to assume
			add(fd.Name, p)
		}
	}
	if f.review {
		add(checkField, &jsonschema.Schema{Type: "string",
			Description: "The answer to the round that checks the answers: \"keep\" when they are right, or \"change:\" and the key of the step to change."})
	}
	add(StateArgument, &jsonschema.Schema{Type: "string",
		Description: "The state of the form, sent back unchanged as a previous result of this tool gave it."})
	if !closed {
		add(prefab.ActionArgument, &jsonschema.Schema{Type: "string", Enum: []any{prefab.DeclineAction},
			Description: "Sent, with the state and no answers, when the person declines to answer."})
		return
	}
	add(prefab.ActionArgument, &jsonschema.Schema{Type: "string", Enum: []any{prefab.DeclineAction, prefab.RenderAction, prefab.RestartAction},
		Description: "Sent, with the state and no answers, when the person declines to answer, by a view to show its step in its host's language, or by a view to start again."})
	add(prefab.ToolArgument, &jsonschema.Schema{Type: "string",
		Description: "Sent by a form view, through the app-only tool it submits to: this tool's name."})
	for i := range f.steps {
		for _, fd := range f.steps[i].c.fields {
			if key := prefab.RendererKey(fd.Name); key != fd.Name {
				add(key, &jsonschema.Schema{Type: "string",
					Description: fmt.Sprintf("%s, as a view sends it: the same as %s.", fd.title(), fd.Name)})
			}
		}
	}
}

// checkBase panics on a property of base that the flow's fields write.
func (f *Flow) checkBase(base *jsonschema.Schema) {
	if f == nil {
		return
	}
	for i := range f.steps {
		for _, fd := range f.steps[i].c.fields {
			for _, name := range [...]string{fd.Name, prefab.RendererKey(fd.Name)} {
				if _, ok := base.Properties[name]; ok {
					panic(fmt.Sprintf("mcpform: Flow.InputSchema: base's property %q is where the flow reads field %q's answer, "+
						"and is left out of what its state is bound to: rename the tool's argument", name, fd.Name))
				}
			}
		}
	}
}
