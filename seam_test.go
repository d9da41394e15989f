package mcpform

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCall is a call from another face: answers by key, declared modes,
// and its own errors.
type fakeCall struct {
	ctx        context.Context
	state      string
	args       json.RawMessage
	answers    map[string]seam.Answer
	form, url  bool
	apps, view bool
	legacy     bool
	accept     string
	ended      func(json.RawMessage) ([]byte, error) // what EndView gave
}

func (c *fakeCall) Tool() string                        { return "signup" }
func (c *fakeCall) Arguments() (json.RawMessage, error) { return c.args, nil }
func (c *fakeCall) State() string                       { return c.state }
func (c *fakeCall) Modes() (bool, bool)                 { return c.form, c.url }
func (c *fakeCall) Apps() bool                          { return c.apps }
func (c *fakeCall) ViaView() bool                       { return c.view }
func (c *fakeCall) EndView(v func(json.RawMessage) ([]byte, error)) {
	if c.view {
		c.ended = v
	}
}
func (c *fakeCall) Legacy() bool                     { return c.legacy }
func (c *fakeCall) AcceptLanguage() string           { return c.accept }
func (c *fakeCall) CapabilityError(bool, bool) error { return errFakeCapability }
func (c *fakeCall) StateError(error) error           { return errFakeState }
func (c *fakeCall) ArgumentsError(err error) error   { return err }
func (c *fakeCall) Answer(key string) (seam.Answer, bool) {
	a, ok := c.answers[key]
	return a, ok
}

var (
	errFakeCapability = assert.AnError
	errFakeState      = context.DeadlineExceeded
)

type ctxUser struct{}

func TestSeamPrincipal(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	steps := []Step{accountStep}
	fromCtx := func(ctx context.Context) string { s, _ := ctx.Value(ctxUser{}).(string); return s }
	both, err := NewFlow(codec, steps, &FlowOptions{Principal: tokenUser, ContextPrincipal: fromCtx})
	require.NoError(t, err)
	goOnly, err := NewFlow(codec, steps, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	ctxOnly, err := NewFlow(codec, steps, &FlowOptions{ContextPrincipal: fromCtx})
	require.NoError(t, err)
	other := &fakeCall{ctx: context.WithValue(context.Background(), ctxUser{}, "alice"), form: true}
	for _, tt := range []struct {
		name string
		flow *Flow
		call seam.Call
		want string
		err  bool
	}{
		{"go-sdk, Principal", both, (*sdkCall)(call("signup", "", nil)), "alice", false},
		{"other face, ContextPrincipal", both, other, "alice", false},
		{"go-sdk, ContextPrincipal from Next's context", ctxOnly, (*sdkCall)(call("signup", "", nil)), "alice", false},
		{"other face without ContextPrincipal", goOnly, other, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.flow.principalOf(other.ctx, tt.call)
			assert.Equal(t, tt.err, err != nil, "%v", err)
			assert.Equal(t, tt.want, got)
		})
	}
	// A state minted on one face verifies on the other: one principal.
	r, err := both.Next(context.Background(), call("signup", "", nil))
	require.NoError(t, err)
	other.state = r.Result.RequestState
	other.answers = map[string]seam.Answer{"account": {Action: "accept", Content: map[string]any{"email": "ada@example.com", "plan": "pro"}}}
	done, err := both.next(other.ctx, other)
	require.NoError(t, err)
	assert.Equal(t, FlowDone, done.Status)
	assert.Equal(t, r.ID, done.ID)
}

func TestSeamErrorsAreTheFaces(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	_, err = flow.next(context.Background(), &fakeCall{form: false})
	assert.Equal(t, errFakeCapability, err)
	_, err = flow.next(context.Background(), &fakeCall{form: true, state: "v1.x.y"})
	assert.Equal(t, errFakeState, err)
}

// TestSeamPresentation: each round reaches another face as one neutral
// description of the path the core chose, for the face to render: native
// requests with the bytes the form was compiled to (a legacy round for an
// older client, whose SDK's bridge carries it), a view, a secret
// page's link, a request through the model, or an outcome. A view's
// submit verifies only when the face marks it as one.
func TestSeamPresentation(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	password := Step{Key: "password", Message: "Choose a password", Fields: []AutoFormField{
		{Name: "email", Type: TypeEmail, Required: true},
		{Name: "password", Type: TypePassword, Required: true}}}
	secrets := &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{EveryCallerIsSamePerson: true, AskModel: true})
	require.NoError(t, err)
	secret, err := NewFlow(codec, []Step{password}, &FlowOptions{EveryCallerIsSamePerson: true, Secrets: secrets})
	require.NoError(t, err)
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		flow     *Flow
		call     *fakeCall
		kind     seam.Kind
		requests []string // the native requests' keys and modes
	}{
		{"form client", flow, &fakeCall{form: true}, seam.Native, []string{"account form"}},
		{"older form client", flow, &fakeCall{form: true, legacy: true}, seam.Legacy, []string{"account form"}},
		{"form and URL client, secret step", secret, &fakeCall{form: true, url: true}, seam.Native, []string{"password form", "password.secret url"}},
		{"Apps host", flow, &fakeCall{apps: true}, seam.View, nil},
		{"Apps host, secret step", secret, &fakeCall{apps: true}, seam.View, nil},
		{"bare host", flow, &fakeCall{}, seam.Model, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, p, err := tt.flow.Seam().Next(ctx, tt.call)
			require.NoError(t, err)
			assert.Equal(t, FlowAsk, r.Status)
			assert.Equal(t, tt.kind, p.Kind)
			var got []string
			for _, q := range p.Requests {
				got = append(got, q.Key+" "+q.Mode)
			}
			slices.Sort(got)
			assert.Equal(t, tt.requests, got)
			if p.Kind == seam.Native || p.Kind == seam.Legacy {
				assert.NotEmpty(t, p.State)
				assert.Equal(t, json.RawMessage(tt.flow.steps[0].c.schema), p.Requests[0].Schema, "the bytes compiled once")
				assert.Nil(t, r.Result, "the core builds no go-sdk result for another face's native round")
				return
			}
			b, err := json.Marshal(p.Structured)
			require.NoError(t, err)
			assert.Contains(t, string(b), `"mcpform":"`, "the structured content carries the state")
			assert.NotEmpty(t, p.Text)
		})
	}

	// The view's submit: through the companion (marked by the face), it
	// finishes; the same arguments unmarked are refused as a bad state.
	_, p, err := flow.Seam().Next(ctx, &fakeCall{apps: true})
	require.NoError(t, err)
	var view struct{ Arguments map[string]any }
	b, _ := json.Marshal(p.Structured)
	require.NoError(t, json.Unmarshal(b, &view))
	view.Arguments["email"], view.Arguments["plan"] = "ada@example.com", "pro"
	args, _ := json.Marshal(view.Arguments)
	_, _, err = flow.Seam().Next(ctx, &fakeCall{apps: true, args: args})
	assert.Equal(t, errFakeState, err, "a view's state, not through the companion")
	done, p, err := flow.Seam().Next(ctx, &fakeCall{apps: true, args: args, view: true})
	require.NoError(t, err)
	assert.Equal(t, FlowDone, done.Status)
	assert.Equal(t, PathView, done.Path)
	assert.Equal(t, seam.Outcome, p.Kind)

	// A form client is given the page's link once its form is answered.
	r, p, err := secret.Seam().Next(ctx, &fakeCall{form: true})
	require.NoError(t, err)
	require.Equal(t, []string{"password"}, keys(p.Requests))
	_, p, err = secret.Seam().Next(ctx, &fakeCall{form: true, state: p.State,
		answers: map[string]seam.Answer{"password": {Action: "accept", Content: map[string]any{"email": "ada@example.com"}}}})
	require.NoError(t, err)
	assert.Equal(t, seam.Link, p.Kind, "round after %v", r.Status)
	assert.Contains(t, p.Text, "https://example.com/secret?t=")
}

func keys(reqs []seam.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Key)
	}
	return out
}

// TestSeamSDKCall: a nil go-sdk request is a call with nothing in it.
func TestSeamSDKCall(t *testing.T) {
	var tc *sdkCall
	assert.Equal(t, "", tc.Tool())
	_, ok := tc.Answer("x")
	assert.False(t, ok)
	form, url := tc.Modes()
	assert.False(t, form || url || tc.Apps() || tc.ViaView() || tc.Legacy())
}

// TestJudgeNotObject: content that is not an object, which go-sdk's types
// cannot carry but other faces' can, is refused, not read as empty.
func TestJudgeNotObject(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "a"}}, nil)
	require.NoError(t, err)
	status, _, problems := form.c.judge(&fakeCall{answers: map[string]seam.Answer{DefaultInputKey: {Action: "accept", Content: []any{1.0}}}})
	assert.Equal(t, ReplyInvalid, status)
	require.Len(t, problems, 1)
	assert.ErrorIs(t, problems[0], ErrInvalidValue)
}

// TestSeamLanguage: another face's call carries the person's languages,
// and its round is worded in the one matched and says which, for the
// face to mark the result with; English says nothing.
func TestSeamLanguage(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	ctx := context.Background()
	for _, tt := range []struct {
		name, accept, want string
		kind               seam.Kind
		call               *fakeCall
	}{
		{"native, Spanish", "es-ES,es;q=0.9", "es", seam.Native, &fakeCall{form: true}},
		{"a view, French", "fr", "fr", seam.View, &fakeCall{apps: true}},
		{"English", "en-GB", "", seam.Native, &fakeCall{form: true}},
		{"none", "", "", seam.Native, &fakeCall{form: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.call.accept = tt.accept
			r, p, err := flow.Seam().Next(ctx, tt.call)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, p.Kind)
			assert.Equal(t, tt.want, p.Language)
			if tt.want != "" {
				assert.Equal(t, tt.want, r.Language.String())
			}
		})
	}
}

// TestNativeAnswerUnreadable (issue 32, item 7): go-sdk decodes a native
// answer with encoding/json before any hook a library can reach, so its
// invalid UTF-8 and lone surrogate escapes arrive as U+FFFD; a text
// answer holding U+FFFD is asked again, naming its field, as on the paths
// read as written, never kept with U+FFFD in place of the bytes.
func TestNativeAnswerUnreadable(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "name", Required: true}, {Name: "bio", Type: TypeTextarea, AllowBidi: true}}, &FormOptions{Key: "who"})
	require.NoError(t, err)
	for _, content := range []string{
		"{\"name\":\"Ada\xf0\x9f\x98Lovelace\"}", "{\"name\":\"\xff\"}", `{"name":"Ada\ud800"}`, `{"name":"\udc00"}`,
		`{"name":"Ada","bio":"\udbff"}`, `{"name":"Ada \ufffd"}`,
	} {
		t.Run(content, func(t *testing.T) {
			var responses mcp.InputResponseMap // as go-sdk's transport decodes them
			require.NoError(t, json.Unmarshal([]byte(`{"who":{"action":"accept","content":`+content+`}}`), &responses))
			r := form.Read(responses)
			require.Equal(t, ReplyInvalid, r.Status)
			require.Len(t, r.Problems, 1)
			assert.ErrorIs(t, r.Problems[0], ErrInvalidValue)
			assert.Contains(t, r.Problems[0].Error(), "characters that could not be read")
			for _, v := range r.Answers {
				assert.NotContains(t, v, "\ufffd")
			}
		})
	}
}
