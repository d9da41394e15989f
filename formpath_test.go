package mcpform

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// formHostServer serves one form with the README's handler: read the
// answer, ask when there is none, ask again when a value is refused.
func formHostServer(t *testing.T, model bool) *hostServer {
	t.Helper()
	form, err := NewForm[Answers]([]AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
		{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
	}, &FormOptions{Key: "signup", Message: "Create your account", AskModel: model})
	require.NoError(t, err)
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(AppsExtension, nil)
	h := &hostServer{server: mcp.NewServer(&mcp.Implementation{Name: "form", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})}
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
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reply.Status.String()}}}, nil
		})
	return h
}

// TestFormHosts runs the README's one-form handler on each kind of host:
// the form is asked natively, in a view, or through the model, and a
// bare host that was not opted in gets -32021.
func TestFormHosts(t *testing.T) {
	const done = "created ada@example.com on team with 12 seats"
	for _, tt := range []struct {
		host  host
		model bool
		trace []string // nil for -32021
	}{
		{host{name: "full", version: "2026-07-28", form: true, url: true}, false, []string{"form:email,plan,seats"}},
		{host{name: "older editor", version: "2025-11-25", form: true}, false, []string{"form:email,plan,seats"}},
		{host{name: "Apps-only", version: "2025-11-25", apps: true}, false, []string{"view:email,plan,seats"}},
		{host{name: "Apps-only", version: "2026-07-28", apps: true}, false, []string{"view:email,plan,seats"}},
		{host{name: "bare", version: "2026-07-28"}, true, []string{"model:email,plan,seats"}},
		{host{name: "bare, not opted in", version: "2026-07-28"}, false, nil},
	} {
		t.Run(tt.host.name+" "+tt.host.version, func(t *testing.T) {
			d := &hostDriver{t: t, h: formHostServer(t, tt.model)}
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
		})
	}
}

// TestFormReaskPaths checks that a refused answer from a view or the
// model is asked again the same way, naming the problem and keeping the
// good values, and that a form with a checkbox is never asked through the
// model.
func TestFormReaskPaths(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	}, &FormOptions{Key: "signup", Message: "Create your account", AskModel: true})
	require.NoError(t, err)
	for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
		first, err := form.Ask(argsCall(t, meta, "alice", "signup", nil), "")
		require.NoError(t, err)
		assert.Contains(t, wireJSON(t, first.StructuredContent), `"arguments":{"mcpform":""}`)
		reply := form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{StateArgument: "", "email": "ada", "plan": "pro", "other": 1}))
		require.Equal(t, ReplyInvalid, reply.Status)
		again := wireJSON(t, form.Reask(reply, "s2"))
		assert.Contains(t, again, "Email: not a valid email address")
		assert.Contains(t, again, `"arguments":{"other":1,"mcpform":"s2"}`, "the tool's own arguments go back")
		assert.Equal(t, ReplyNone, form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{"email": "ada@example.com", "plan": "pro"})).Status,
			"arguments without the state are the tool's own, not an answer")
	}

	confirm, err := NewForm[Answers]([]AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}}, &FormOptions{AskModel: true})
	require.NoError(t, err)
	_, err = confirm.Ask(argsCall(t, bareMeta(), "alice", "delete", nil), "")
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "a confirmation fails closed")
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
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

	form, err := NewForm[Answers]([]AutoFormField{{Name: "email", Type: TypeEmail, Required: true}},
		&FormOptions{Key: "signup", AskModel: true})
	require.NoError(t, err)
	for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
		for _, bad := range []any{"accept", "cancel", "", 1.0, nil, map[string]any{}} {
			reply := form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{StateArgument: "", actionArgument: bad, "email": "ada@example.com"}))
			assert.Equal(t, ReplyInvalid, reply.Status, "%#v", bad)
			require.Len(t, reply.Problems, 1)
			assert.ErrorIs(t, reply.Problems[0], errArgumentAction)
			again := wireJSON(t, form.Reask(reply, "s2"))
			assert.Contains(t, again, `"arguments":{"mcpform":"s2"}`, "asked again on the same path")
		}
	}
}
