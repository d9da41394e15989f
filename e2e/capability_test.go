package e2e_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInteropTSWithoutElicitation: the official TypeScript client, pinned
// to 2026-07-28 and declaring no elicitation, is answered by a server
// that does not ask through the model (-ask-model=false) with -32021 and
// the capability it lacks, over stdio and HTTP, instead of an input
// request it cannot fulfil (which it fails with CAPABILITY_NOT_SUPPORTED,
// and MCP Inspector's CLI waits on for good).
func TestInteropTSWithoutElicitation(t *testing.T) {
	bin := signupBin(t)
	testenv.Node(t)
	for _, tp := range tsTransports {
		t.Run(tp.name, func(t *testing.T) {
			key, _ := tsStateKey(t)
			plan := tp.serve(t, bin, key, "-ask-model=false")
			plan.Pin, plan.Capabilities, plan.TimeoutMs = tsModern, json.RawMessage(`{}`), 10000
			plan.Calls = []tsCall{{Answers: map[string][]any{"account": {tsAccept(map[string]any{"email": "ada@example.com", "plan": "pro"})}}}}
			tr := runTS(t, plan)
			s := tr.Calls[0]
			assert.Empty(t, s.Asked, "nothing was asked")
			require.NotNil(t, s.Error, "want the -32021 error, got %+v", s.Result)
			assert.Equal(t, -32021, s.Error.Code, s.Error.Message)
			assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, string(s.Error.Data))
		})
	}
}
