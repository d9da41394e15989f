package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInteropTSStateSealed signs up on the team plan with the official
// TypeScript client, pinned to 2026-07-28, which records every JSON-RPC
// message it sends and receives (interop/signup-client.mjs): no answer
// appears in any request state on the wire, as sent or with each of its
// parts base64url-decoded.
func TestInteropTSStateSealed(t *testing.T) {
	bin := signupBin(t)
	testenv.Node(t)
	key, _ := tsStateKey(t)
	account := map[string]any{"email": "ada.lovelace@example.com", "full_name": "Ada Lovelace", "plan": "team"}
	team := map[string]any{"team_name": "Analytical Engines", "seats": 12}
	// The strings answered. The team step's answers finish the flow, so
	// they never enter a state, but are checked all the same; the seats,
	// two digits, are not: random bytes would hold them by chance.
	answers := []string{"ada.lovelace@example.com", "Ada Lovelace", "team", "Analytical Engines"}

	out, _ := runDriver(t, "signup-client.mjs", tsPlan{Stdio: tsStdioServer(bin, key), Pin: tsModern, TimeoutMs: 20000,
		Calls: []tsCall{{Answers: map[string][]any{"account": {tsAccept(account)}, "team": {tsAccept(team)}}}}})
	var tr struct {
		tsTranscript
		Wire []struct {
			Dir     string          `json:"dir"`
			Message json.RawMessage `json:"message"`
		} `json:"wire"`
	}
	require.NoError(t, json.Unmarshal(out, &tr), "reading the transcript")
	require.Nil(t, tr.Error)
	require.Len(t, tr.Calls, 1)
	require.Len(t, tr.Calls[0].Asked, 2, "both steps asked")
	tsCreated(t, tr.Calls[0], "ada.lovelace@example.com")

	var states []string
	dirs := map[string]int{}
	for _, m := range tr.Wire {
		var v any
		require.NoError(t, json.Unmarshal(m.Message, &v))
		found := requestStates(v)
		dirs[m.Dir] += len(found)
		states = append(states, found...)
	}
	// Rounds 2 and 3 each send a state, and rounds 1 and 2 receive one.
	require.GreaterOrEqual(t, dirs["in"], 2, "states received")
	require.GreaterOrEqual(t, dirs["out"], 2, "states sent")
	for i, st := range states {
		var decoded []string
		for _, part := range strings.Split(st, ".") {
			if b, err := base64.RawURLEncoding.DecodeString(part); err == nil {
				decoded = append(decoded, string(b))
			}
		}
		for _, a := range answers {
			assert.NotContains(t, st, a, "state %d holds an answer: %s", i, st)
			for _, d := range decoded {
				assert.NotContains(t, d, a, "state %d, decoded, holds an answer: %q", i, d)
			}
		}
	}
}

// requestStates returns the values of every "requestState" member in v,
// a JSON value, at any depth.
func requestStates(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "requestState" {
				out = append(out, s)
			}
			out = append(out, requestStates(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, requestStates(e)...)
		}
	}
	return out
}
