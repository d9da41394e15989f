package mcpform

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signupFields are the README form's fields, as a field list.
var signupFields = []AutoFormField{
	{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
	{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
}

// keyedForm compiles fields with keys, so that the form can be asked in a
// view and, with model, through the model.
func keyedForm(t testing.TB, fields []AutoFormField, model bool) *Form[Answers] {
	t.Helper()
	_, codec, _ := newFlowFixture(t)
	form, err := NewForm[Answers](fields, &FormOptions{Key: "signup", Message: "Create your account", AskModel: model,
		Codec: codec, Principal: tokenUser})
	require.NoError(t, err)
	return form
}

// formHostServer serves one form with the README's handler: read the
// answer, ask when there is none, ask again when a value is refused. The
// form has keys unless keyless is set.
func formHostServer(t *testing.T, model bool, keyless ...bool) *hostServer {
	t.Helper()
	form := keyedForm(t, signupFields, model)
	if len(keyless) > 0 && keyless[0] {
		var err error
		form, err = NewForm[Answers](signupFields, &FormOptions{Key: "signup", Message: "Create your account"})
		require.NoError(t, err)
	}
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(AppsExtension, nil)
	h := &hostServer{server: mcp.NewServer(&mcp.Implementation{Name: "form", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})}
	require.NoError(t, AddViewer(h.server, nil))
	h.server.AddTool(&mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reply := form.ReadCall(req)
			switch reply.Status {
			case ReplyNone:
				return form.Ask(req, "")
			case ReplyInvalid:
				return form.Reask(reply, ""), nil
			case ReplyAccepted:
				msg := fmt.Sprintf("created %v on %v with %v seats", reply.Value["email"], reply.Value["plan"], reply.Value["seats"])
				h.done.Store(reply.Path, msg)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reply.Status.String()}}}, nil
		})
	return h
}

// TestFormHosts runs the README's one-form handler on each kind of host:
// the form is asked natively, in a view, or through the model, and a
// bare host that was not opted in gets -32021; the reply says the path.
// Without keys, the form is asked natively only.
func TestFormHosts(t *testing.T) {
	const done = "created ada@example.com on team with 12 seats"
	for _, tt := range []struct {
		host    host
		model   bool
		keyless bool
		trace   []string // nil for -32021
		path    Path
	}{
		{host{name: "full", version: "2026-07-28", form: true, url: true}, false, false, []string{"form:email,plan,seats"}, PathNative},
		{host{name: "full, no keys", version: "2026-07-28", form: true, url: true}, false, true, []string{"form:email,plan,seats"}, PathNative},
		{host{name: "older editor", version: "2025-11-25", form: true}, false, false, []string{"form:email,plan,seats"}, PathLegacy},
		{host{name: "Apps-only", version: "2025-11-25", apps: true}, false, false, []string{"view:email,plan,seats"}, PathView},
		{host{name: "Apps-only", version: "2026-07-28", apps: true}, false, false, []string{"view:email,plan,seats"}, PathView},
		{host{name: "Apps-only, no keys", version: "2026-07-28", apps: true}, false, true, nil, 0},
		{host{name: "bare", version: "2026-07-28"}, true, false, []string{"model:email,plan,seats"}, PathModel},
		{host{name: "bare, not opted in", version: "2026-07-28"}, false, false, nil, 0},
	} {
		t.Run(tt.host.name+" "+tt.host.version, func(t *testing.T) {
			d := &hostDriver{t: t, h: formHostServer(t, tt.model, tt.keyless)}
			res, err := d.run(d.connect(tt.host), "signup")
			if tt.trace == nil {
				var rpcErr *jsonrpc.Error
				require.ErrorAs(t, err, &rpcErr)
				assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, done, res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, tt.trace, d.trace)
			_, ok := d.h.done.Load(tt.path)
			assert.True(t, ok, "the reply's path is %v", tt.path)
		})
	}
}

// TestFormReaskPaths checks that a refused answer from a view or the
// model is asked again the same way, naming the problem and keeping the
// good values, and that a form with a checkbox is never asked through the
// model.
func TestFormReaskPaths(t *testing.T) {
	form := keyedForm(t, signupFields[:2], true)
	// A view says how to fix it; the model is told what is wrong.
	says := []string{"Enter an email address like name@example.com", "Email: not a valid email address"}
	for i, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
		first, err := form.Ask(argsCall(t, meta, "alice", "signup", map[string]any{"other": 1}), "")
		require.NoError(t, err)
		state := stateOf(t, first)
		reply := form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{StateArgument: state, "email": "ada", "plan": "pro", "other": 1}))
		require.Equal(t, ReplyInvalid, reply.Status)
		again := wireJSON(t, form.Reask(reply, "s2"))
		assert.Contains(t, again, says[i])
		assert.Contains(t, again, `"arguments":{"other":1,"mcpform":"`, "the tool's own arguments go back")
		assert.NotContains(t, again, `"s2"`, "the form's own state travels, not the handler's")
		assert.Equal(t, ReplyNone, form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{"email": "ada@example.com", "plan": "pro"})).Status,
			"arguments without the state are the tool's own, not an answer")
	}

	_, codec, _ := newFlowFixture(t)
	confirm, err := NewForm[Answers]([]AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}},
		&FormOptions{AskModel: true, Codec: codec, EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	_, err = confirm.Ask(argsCall(t, bareMeta(), "alice", "delete", nil), "")
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "a confirmation fails closed")
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
}

// stateOf returns the state a view or model result carries.
func stateOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var c struct {
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &c))
	s, _ := c.Arguments[StateArgument].(string)
	require.NotEmpty(t, s, "no state in the arguments")
	return s
}

// TestFormOptionsKeys refuses, when the form is compiled, the model path
// without keys and keys without a principal.
func TestFormOptionsKeys(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	for _, opts := range []*FormOptions{
		{AskModel: true},
		{Codec: codec},
		{Codec: codec, AskModel: true},
	} {
		_, err := NewForm[Answers](signupFields, opts)
		assert.Error(t, err, "%+v", opts)
	}
	_, err := NewForm[Answers](signupFields, &FormOptions{Codec: codec, EveryCallerIsSamePerson: true, AskModel: true})
	assert.NoError(t, err)
}

// TestFormDecline declines the README's one form in an Apps view, with its
// Decline button, and through the model, as the contract says: ReadCall
// gives ReplyDeclined. Any other value of the action argument is
// ReplyInvalid, naming the problem, and a re-ask on the same path.
func TestFormDecline(t *testing.T) {
	for _, tt := range []struct {
		host  host
		model bool
		trace string
	}{
		{host{name: "Apps-only", version: "2025-11-25", apps: true}, false, "view:decline"},
		{host{name: "Apps-only", version: "2026-07-28", apps: true}, false, "view:decline"},
		{host{name: "bare", version: "2026-07-28"}, true, "model:decline"},
	} {
		t.Run(tt.host.name+" "+tt.host.version, func(t *testing.T) {
			d := &hostDriver{t: t, h: formHostServer(t, tt.model), declineAt: 1}
			res, err := d.run(d.connect(tt.host), "signup")
			require.NoError(t, err)
			assert.Equal(t, "declined", res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, []string{tt.trace}, d.trace)
		})
	}

	form := keyedForm(t, []AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}, true)
	for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
		for _, bad := range []any{"accept", "cancel", "", 1.0, nil, map[string]any{}} {
			first, err := form.Ask(argsCall(t, meta, "alice", "signup", nil), "")
			require.NoError(t, err)
			reply := form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{StateArgument: stateOf(t, first), actionArgument: bad, "email": "ada@example.com"}))
			assert.Equal(t, ReplyInvalid, reply.Status, "%#v", bad)
			require.Len(t, reply.Problems, 1)
			assert.ErrorIs(t, reply.Problems[0], errArgumentAction)
			again := wireJSON(t, form.Reask(reply, "s2"))
			assert.Contains(t, again, `"arguments":{"mcpform":"`, "asked again on the same path")
		}
	}
}

// TestFormStateOfAnotherForm: a state minted to ask one form is no state
// for another form of the same key, tool and codec, though it verifies:
// the state names the questions it asked, so a note's state, sent with
// an answer to a confirmation that is never asked through the model,
// confirms nothing, and a flow's step asked under a state of other
// questions is asked again as it is.
func TestFormStateOfAnotherForm(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	note, err := NewForm[Answers]([]AutoFormField{{Name: "note"}}, &FormOptions{Codec: codec, Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	confirm, err := NewForm[Answers]([]AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}},
		&FormOptions{Codec: codec, Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	_, err = confirm.Ask(directCall(t, bareMeta(), "alice", "delete", nil), "")
	require.Error(t, err, "a confirmation is never asked through the model")

	res, err := note.Ask(directCall(t, bareMeta(), "alice", "delete", nil), "")
	require.NoError(t, err)
	var c struct {
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &c))
	state := c.Arguments[StateArgument].(string)

	reply := note.ReadCall(directCall(t, bareMeta(), "alice", "delete", map[string]any{StateArgument: state, "note": "hi"}))
	require.Equal(t, ReplyAccepted, reply.Status, "the note's own state answers it")
	reply = confirm.ReadCall(directCall(t, bareMeta(), "alice", "delete", map[string]any{StateArgument: state, "sure": true}))
	assert.NotEqual(t, ReplyAccepted, reply.Status, "%v %v", reply.Path, reply.Answers)
	assert.Nil(t, reply.Answers["sure"])
}
