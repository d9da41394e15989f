package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The core reads a tool call through [seam.Call], so that one checker and
// one flow serve every SDK: go-sdk's face converts its request here, with
// no copy, and other faces (the mcpgo package) through the functions this
// file gives internal/seam.

// An answerer returns a client's answer under a key.
type answerer = seam.Answers

// sdkAnswers is go-sdk's InputResponseMap read as answers.
type sdkAnswers mcp.InputResponseMap

func (m sdkAnswers) Answer(key string) (seam.Answer, bool) {
	r := InputResponse(mcp.InputResponseMap(m), key)
	if r == nil {
		return seam.Answer{}, false
	}
	return seam.Answer{Action: r.Action, Content: r.Content}, true
}

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
func (c *sdkCall) Context() context.Context            { return nil }
func (c *sdkCall) StateError(err error) error          { return RequestStateError(err) }
func (c *sdkCall) CapabilityError(form, url bool) error {
	return capabilityNeed(form, url)
}

func (c *sdkCall) Answer(key string) (seam.Answer, bool) {
	return sdkAnswers(c.params().InputResponses).Answer(key)
}

func (c *sdkCall) Modes() (form, url bool) {
	return elicitationModes((*mcp.CallToolRequest)(c))
}

// errPrincipalFace reports a flow whose principal is read from go-sdk's
// request, served through another SDK, which would bind every call to "".
var errPrincipalFace = errors.New("mcpform: the flow reads its principal from go-sdk's request: set FlowOptions.ContextPrincipal for mcp-go")

// principalOf returns who the server authenticated for call, by the
// option of call's face: Principal for go-sdk's request, ContextPrincipal
// for a face that passes the handler's context.
func (f *Flow) principalOf(ctx context.Context, call seam.Call) (string, error) {
	if c, ok := call.(*sdkCall); ok && f.principal != nil {
		return f.principal((*mcp.CallToolRequest)(c)), nil
	}
	if f.contextPrincipal != nil {
		return f.contextPrincipal(ctx), nil
	}
	if f.principal != nil {
		return "", errPrincipalFace
	}
	return "", nil // FlowOptions.EveryCallerIsSamePerson
}

// askable returns why c cannot be asked of call's client in form mode:
// a secret field, or a client that declared no form elicitation.
func (c *compiled) askable(call seam.Call) error {
	if len(c.secrets) > 0 {
		return fmt.Errorf("mcpform: field %q is secret: ask the form as a Flow step, which asks it in URL mode", c.secrets[0].Name)
	}
	return requireInput(call, true, false)
}

// A seamForm is a *Form[T] of any T, for the seam's functions.
type seamForm interface {
	compiledForm() *compiled
	readInto(a answerer, reply any)
}

func (f *Form[T]) readInto(a answerer, reply any) { *reply.(*Reply[T]) = f.read(a) }

func init() {
	seam.Read = func(form any, a seam.Answers, reply any) { form.(seamForm).readInto(a, reply) }
	seam.Ask = func(form any, call seam.Call) (seam.Request, error) {
		c := form.(seamForm).compiledForm()
		if err := c.askable(call); err != nil {
			return seam.Request{}, err
		}
		return c.seamRequest(nil, nil), nil
	}
	seam.Reask = func(form any, accepted map[string]any, problems any) seam.Request {
		p, _ := problems.([]*FieldError)
		return form.(seamForm).compiledForm().seamRequest(accepted, p)
	}
	seam.Next = func(flow any, call seam.Call) (seam.Round, error) {
		f := flow.(*Flow)
		ctx := call.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		r, err := f.next(ctx, call)
		if err != nil {
			return seam.Round{}, err
		}
		return f.seamRound(r), nil
	}
	seam.Once = func(ctx context.Context, round any, do func(context.Context) ([]byte, error)) ([]byte, error) {
		r, _ := round.(*FlowRound)
		return r.once(ctx, do)
	}
}

// seamRequest is c's form-mode request for a face other than go-sdk's,
// naming problems and pre-filling accepted, with the schema as marshalled
// once at compile time when there is nothing to pre-fill.
func (c *compiled) seamRequest(accepted Answers, problems []*FieldError) seam.Request {
	if len(accepted) == 0 && len(problems) == 0 {
		return seam.Request{Key: c.key, Mode: "form", Message: c.message, Schema: c.boxed, Face: &c.face}
	}
	msg, raw := c.reasked(accepted, problems)
	var schema any = c.boxed
	if raw != nil {
		schema = raw
	}
	return seam.Request{Key: c.key, Mode: "form", Message: msg, Schema: schema}
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
		fr.reqs[fr.n] = seam.Request{Key: s.urlKey(), Mode: p.Mode, Message: p.Message, URL: p.URL}
		fr.n++
	}
	return nil
}

// seamRound converts r for the seam. The native path's requests are those
// faceAsk kept; another path's result is go-sdk's, converted, with the
// schemas as marshalled once at compile time.
func (f *Flow) seamRound(r *FlowRound) seam.Round {
	out := seam.Round{Status: int(r.Status), Answers: r.Answers, Step: r.Step,
		Problems: r.Problems, Attempt: r.Attempt, ID: r.ID, Core: r}
	if r.face != nil {
		out.Requests, out.State = r.face.reqs[:r.face.n], r.face.state
		return out
	}
	if r.Result == nil {
		return out
	}
	out.State = r.Result.RequestState
	var asked *compiled
	if i := f.index(r.Step); i >= 0 {
		asked = f.steps[i].c
	}
	for key, in := range r.Result.InputRequests {
		p, ok := in.(*mcp.ElicitParams)
		if !ok {
			continue // the core asks only elicitations
		}
		req := seam.Request{Key: key, Mode: p.Mode, Message: p.Message, URL: p.URL}
		switch s := p.RequestedSchema.(type) {
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
		out.Requests = append(out.Requests, req)
	}
	return out
}
