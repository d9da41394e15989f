package mcpgo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrors: the errors a handler returns as they are, which mcp-go
// sends with the spec's codes (TestServeSpecCodes), carry the spec's
// message and data in their text, and wrap mcp-go's own errors for the
// spec's codes.
func TestErrors(t *testing.T) {
	flow := signupFlow(t)
	ctx := context.WithValue(context.Background(), principalKey{}, "alice")
	first, err := mcpgo.Next(ctx, flow, mcpgoCall("", nil))
	require.NoError(t, err)

	t.Run("state", func(t *testing.T) {
		_, err := mcpgo.Next(ctx, flow, mcpgoCall(first.Result.RequestState+"x", nil))
		require.Error(t, err)
		assert.Equal(t, `invalid params: Invalid or expired requestState {"reason":"invalid_request_state"}`, err.Error())
		assert.ErrorIs(t, err, mcp.ErrInvalidParams)
		var caps mcp.MissingRequiredClientCapabilityError
		assert.False(t, errors.As(err, &caps))
	})
	t.Run("another principal", func(t *testing.T) {
		bob := context.WithValue(context.Background(), principalKey{}, "bob")
		_, err := mcpgo.Next(bob, flow, mcpgoCall(first.Result.RequestState, nil))
		// A flow's state is sealed with its binding as additional data, so
		// another principal's state does not open at all.
		assert.ErrorIs(t, err, mcpform.ErrMAC)
	})
	t.Run("capability", func(t *testing.T) {
		req := mcpgoCall("", nil)
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{}}}
		_, err := mcpgo.Next(ctx, flow, req)
		require.Error(t, err)
		var caps mcp.MissingRequiredClientCapabilityError
		require.True(t, errors.As(err, &caps))
		assert.Equal(t, "elicitation", caps.Capability)
		assert.Equal(t, `missing required client capabilities: {"requiredCapabilities":{"elicitation":{"form":{}}}}`, err.Error())
	})
}
