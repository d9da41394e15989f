package mcpform

import (
	"context"
	"encoding/json"
	"fmt"

	"golang.org/x/text/language"

	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/mcpform/mcpform/internal/rawanswers"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The core reads a tool call through [seam.Call], so that one checker and
// one flow serve every SDK: go-sdk's face converts its request here, with
// no copy, and other faces (the mcpgo package) reach forms and flows
// through their Seam methods, typed by internal/seam.

// sdkAnswers is go-sdk's InputResponseMap read as answers.
type sdkAnswers mcp.InputResponseMap

func (m sdkAnswers) Answer(key string) (seam.Answer, bool) {
	r := InputResponse(mcp.InputResponseMap(m), key)
	if r == nil {
		return seam.Answer{}, false
	}
	return seam.Answer{Action: r.Action, Content: r.Content}, true
}

var _ seam.Call = (*sdkCall)(nil)

// sdkCall is go-sdk's tool request read as a [seam.Call]. A nil one, or one
// without params, is a call with nothing in it.
type sdkCall mcp.CallToolRequest

func (c *sdkCall) params() *mcp.CallToolParamsRaw {
	if c == nil || c.Params == nil {
		return &mcp.CallToolParamsRaw{}
	}
	return c.Params
}

func (c *sdkCall) Tool() string                        { return c.params().Name }
func (c *sdkCall) Arguments() (json.RawMessage, error) { return c.params().Arguments, nil }
func (c *sdkCall) State() string                       { return c.params().RequestState }
func (c *sdkCall) ViaView() bool                       { return viaCompanion((*mcp.CallToolRequest)(c)) }
func (c *sdkCall) EndView(view func(json.RawMessage) ([]byte, error)) {
	if m := companionMark((*mcp.CallToolRequest)(c)); m != nil {
		m.ended.Store(&view)
	}
}
func (c *sdkCall) StateError(err error) error { return RejectState(err) }

// ArgumentsError is -32602 with err's text, unwrapped, as go-sdk's
// mcp.AddTool passes only a *jsonrpc.Error through as a JSON-RPC error.
func (c *sdkCall) ArgumentsError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}
func (c *sdkCall) CapabilityError(form, url bool) error {
	return capabilityNeed(form, url)
}

// Answer is the answer under key as go-sdk decoded it, or as the client
// sent it when [AnswersAsSentHandler] or [AnswersAsSentTransport] kept
// its bytes. go-sdk decoded those same bytes, so the two say the same
// thing but for what decoding loses: a number's digits, a key given
// twice, invalid UTF-8. A copy a client wrote itself carries no mark of
// this process's wrappers, and is not read.
func (c *sdkCall) Answer(key string) (seam.Answer, bool) {
	p := c.params()
	if kept, ok := c.keptAnswers(); ok && InputResponse(p.InputResponses, key) != nil {
		if r, ok := rawanswers.Lookup(kept, key); ok {
			a := seam.Answer{Action: r.Action}
			if r.Content != nil {
				a.Content = r.Content // not a nil RawMessage: none is no content
			}
			return a, true
		}
	}
	return sdkAnswers(p.InputResponses).Answer(key)
}

// keptAnswers returns the copy of the call's input responses that a
// wrapper made: in the request's header over HTTP, where a header, even
// one a client sent, leaves the _meta unread; in its _meta otherwise.
func (c *sdkCall) keptAnswers() (string, bool) {
	if c != nil && c.Extra != nil {
		if v := c.Extra.Header[rawanswers.Header]; len(v) > 0 {
			return v[0], true
		}
	}
	kept, ok := c.params().Meta[rawanswers.MetaKey].(string)
	return kept, ok
}

func (c *sdkCall) Modes() (form, url bool) {
	return elicitationModes((*mcp.CallToolRequest)(c))
}

func (c *sdkCall) Apps() bool { return appsDeclared((*mcp.CallToolRequest)(c)) }

func (c *sdkCall) Legacy() bool { return c != nil && legacy.IsLegacy(c.Session) }

func (c *sdkCall) AcceptLanguage() string { return acceptLanguage((*mcp.CallToolRequest)(c)) }

// askable returns why c cannot be asked of call's client in form mode:
// a secret field, or a client that declared no form elicitation.
func (c *compiled) askable(call seam.Call) error {
	if len(c.secrets) > 0 {
		return fmt.Errorf("mcpform: field %q is secret: ask the form as a Flow step, which asks it in URL mode", c.secrets[0].Name)
	}
	return requireInput(call, true, false)
}

// Seam is the form as mcpform's faces for other SDKs (package mcpgo)
// reach it: its result's type is internal to this module, so that no
// other code can use it, and a face that reads it wrongly does not
// compile. Like a nil *Form, a nil one's Seam is not usable.
func (f *Form[T]) Seam() seam.Form[Reply[T]] { return (*formSeam[T])(f) }

// formSeam is a *Form[T] as the seam's [seam.Form].
type formSeam[T any] Form[T]

func (s *formSeam[T]) Read(a seam.Answers) Reply[T] { return (*Form[T])(s).read(a) }

func (s *formSeam[T]) ReadCall(ctx context.Context, call seam.Call) Reply[T] {
	return (*Form[T])(s).readCall(ctx, call)
}

func (s *formSeam[T]) Ask(ctx context.Context, call seam.Call, state string) (seam.Presentation, error) {
	f := (*Form[T])(s)
	a, err := f.ask(ctx, call)
	if err != nil {
		return seam.Presentation{}, err
	}
	return f.askPresentation(a, call, state), nil
}

func (s *formSeam[T]) Reask(reply Reply[T], state string) seam.Presentation {
	f := (*Form[T])(s)
	if reply.again != nil {
		return f.flow.presentation(reply.again)
	}
	return f.c.in(reply.lang).nativePresentation(reply.Answers, reply.Problems, state, false)
}

// Seam is the flow as mcpform's faces for other SDKs (package mcpgo)
// reach it, as [Form.Seam] is the form. A nil *Flow's Seam returns the
// error of [Flow.Next] for a flow without steps.
func (f *Flow) Seam() seam.Flow[*FlowRound] { return (*flowSeam)(f) }

// flowSeam is a *Flow as the seam's [seam.Flow].
type flowSeam Flow

func (s *flowSeam) Next(ctx context.Context, call seam.Call) (*FlowRound, seam.Presentation, error) {
	f := (*Flow)(s)
	r, err := f.next(ctx, call)
	if err != nil {
		return nil, seam.Presentation{}, err
	}
	p := f.presentation(r)
	if p.Kind == seam.Native && r.legacy { // as the round read the call
		p.Kind = seam.Legacy
	}
	return r, p, nil
}

func (s *flowSeam) Once(ctx context.Context, r *FlowRound, do func(context.Context) (func() ([]byte, error), error)) ([]byte, error) {
	var run func(context.Context) (*rawOutcome, error)
	if do != nil {
		run = func(ctx context.Context) (*rawOutcome, error) {
			encode, err := do(ctx)
			if err != nil || encode == nil {
				return nil, err
			}
			return &rawOutcome{encode: encode}, nil
		}
	}
	return r.once(ctx, run)
}

// seamRequest is c's form-mode request for a face other than go-sdk's,
// naming problems and pre-filling accepted, with the schema as marshalled
// once at compile time when there is nothing to pre-fill.
func (c *compiled) seamRequest(accepted Answers, problems []*FieldError) seam.Request {
	if len(accepted) == 0 && len(problems) == 0 {
		return seam.Request{Key: c.key, Mode: "form", Message: c.message, Schema: c.boxed}
	}
	msg, raw, notes := c.reasked(accepted, problems)
	schema := c.boxed
	if raw != nil {
		schema = raw
	}
	return seam.Request{Key: c.key, Mode: "form", Message: msg, Schema: schema, Meta: notes}
}

// faceRequests are the requests of a round's native path on a face other
// than go-sdk's, which builds its own result from them: the core builds
// no go-sdk result only for the face to convert it.
type faceRequests struct {
	reqs  [2]seam.Request
	n     int
	state string
}

// forFace reports whether r's call came through another SDK's face.
func (r *round) forFace() bool {
	_, sdk := r.call.(*sdkCall)
	return !sdk
}

// faceAsk hands the face the native requests that ask s, carrying token:
// s's form, and the link to s's secret page when page is set.
func (r *round) faceAsk(s *flowStep, filled Answers, problems []*FieldError, token string, form, page bool) error {
	fr := &faceRequests{state: token}
	r.face = fr
	if form {
		fr.reqs[0], fr.n = s.c.seamRequest(filled, problems), 1
	}
	if page {
		p, err := r.pageRequest(s, problems)
		if err != nil {
			return err
		}
		fr.reqs[fr.n] = seam.Request{Key: s.urlKey(), Mode: p.Mode, Message: p.Message, URL: p.URL, Meta: p.Meta}
		fr.n++
	}
	return nil
}

// presentation describes what r sends, for a face other than go-sdk's.
// The native path's requests are those faceAsk kept; any other path's
// result is go-sdk's, read back into its text and structuredContent, both
// SDK-neutral (the view's JSON, the model's contract), with no copy.
func (f *Flow) presentation(r *FlowRound) seam.Presentation {
	p := f.presented(r)
	if r.Language != language.English && r.Language != (language.Tag{}) {
		p.Language = r.Language.String()
	}
	return p
}

func (f *Flow) presented(r *FlowRound) seam.Presentation {
	switch {
	case r.face != nil:
		return seam.Presentation{Kind: seam.Native, Requests: r.face.reqs[:r.face.n], State: r.face.state}
	case r.Result == nil:
		return seam.Presentation{Kind: seam.Outcome}
	case len(r.Result.InputRequests) > 0:
		return f.nativePresentation(r)
	}
	p := seam.Presentation{Structured: r.Result.StructuredContent}
	if notes, ok := r.Result.Meta[problemsMeta]; ok {
		p.Meta = map[string]any{problemsMeta: notes}
	}
	if len(r.Result.Content) > 0 {
		if t, ok := r.Result.Content[0].(*mcp.TextContent); ok {
			p.Text = t.Text
		}
	}
	switch c := r.Result.StructuredContent.(type) {
	case *viewContent:
		p.Kind = seam.View
	case *askContract:
		p.Kind = seam.Link
		if c.RequestedSchema != nil {
			p.Kind = seam.Model
		}
	}
	return p
}

// nativePresentation converts the input requests of r's go-sdk result,
// with the schema of the step asked as marshalled once at compile time.
func (f *Flow) nativePresentation(r *FlowRound) seam.Presentation {
	p := seam.Presentation{Kind: seam.Native, State: r.Result.RequestState}
	var asked *compiled
	if i := f.index(r.Step); i >= 0 {
		asked = f.steps[i].c
	}
	for key, in := range r.Result.InputRequests {
		e, ok := in.(*mcp.ElicitParams)
		if !ok {
			continue // the core asks only elicitations
		}
		req := seam.Request{Key: key, Mode: e.Mode, Message: e.Message, URL: e.URL, Meta: e.Meta}
		switch s := e.RequestedSchema.(type) {
		case json.RawMessage:
			req.Schema = s
		case nil:
		default:
			if asked != nil && key == asked.key {
				req.Schema = asked.boxed // the frozen copy of these bytes
			} else if b, err := json.Marshal(s); err == nil {
				req.Schema = json.RawMessage(b)
			}
		}
		p.Requests = append(p.Requests, req)
	}
	return p
}
