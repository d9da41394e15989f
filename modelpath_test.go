package mcpform

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowModelConfirmation: a step with a boolean field, a confirmation,
// is never asked through the model, even opted in, while the steps before
// it are.
func TestFlowModelConfirmation(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	confirm := Step{Key: "confirm", Message: "Delete the account?", Fields: []AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}}}
	flow, err := NewFlow(codec, []Step{accountStep, confirm}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "delete", nil))
	require.NoError(t, err)
	assert.Equal(t, "account", r.Step, "the account step goes through the model")
	_, err = flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "delete", map[string]any{
		StateArgument: carried(t, r), "email": "ada@example.com", "plan": "pro", "sure": true}))
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "the confirmation fails closed")
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
}

// TestModelReaskContract: a re-ask through the model gives, beside its
// words, the message for the person and the problems it names as fields
// of its contract, so that neither the model nor a test reads them from
// text in the person's language.
func TestModelReaskContract(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	first := r.Result.StructuredContent.(*askContract)
	assert.Empty(t, first.Problems)
	assert.Equal(t, "Create your account", first.Message)
	r, err = flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "signup", map[string]any{
		StateArgument: carried(t, r), "email": "ada@", "plan": "pro"}))
	require.NoError(t, err)
	require.Equal(t, FlowAsk, r.Status)
	c := r.Result.StructuredContent.(*askContract)
	require.Len(t, c.Problems, 1)
	assert.Equal(t, "email", c.Problems[0].Field)
	assert.Contains(t, c.Message, "Create your account")
	assert.Contains(t, c.Message, c.Problems[0].Problem, "the note is the message's words")
	assert.Contains(t, r.Result.Content[0].(*mcp.TextContent).Text, c.Message, "the text says the same")
}
