package e2e_test

// The mcp-go face end to end: examples/mcpgo, built once as a binary, run
// over stdio by the official TypeScript client through
// interop/signup-client.mjs, on 2026-07-28 and on the client's default
// (legacy) negotiation, which mcp-go's own server bridge serves with
// elicitation/create.

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	mcpgoOnce     sync.Once
	mcpgoPath     string
	mcpgoBuildErr error
)

// mcpgoBin builds examples/mcpgo, once for the whole run, next to the
// signup binary.
func mcpgoBin(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(signupBin(t))
	mcpgoOnce.Do(func() {
		mcpgoPath = filepath.Join(dir, "mcpgo")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", mcpgoPath, "./examples/mcpgo")
		cmd.Dir = testenv.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			mcpgoBuildErr = errors.New("go build ./examples/mcpgo: " + err.Error() + "\n" + string(out))
		}
	})
	if mcpgoBuildErr != nil {
		t.Fatal(mcpgoBuildErr)
	}
	return mcpgoPath
}

// TestMcpgoTypeScript: the team signup completes, with one refused answer
// asked again by name, and a decline completes, on both negotiations.
func TestMcpgoTypeScript(t *testing.T) {
	bin := mcpgoBin(t)
	key, _ := tsStateKey(t)
	team := map[string][]any{
		"*": {
			tsAccept(map[string]any{"email": "ada@example.com", "plan": "team"}),
			tsAccept(map[string]any{"team_name": "Analytical", "seats": 1}),
			tsAccept(map[string]any{"team_name": "Analytical", "seats": 5}),
		},
	}
	declined := map[string][]any{"*": {tsAccept(map[string]any{"email": "bo@example.com", "plan": "team"}), tsDecline}}
	for _, pin := range []string{tsModern, ""} {
		t.Run("pin="+pin, func(t *testing.T) {
			tr := runTS(t, tsPlan{Stdio: tsStdioServer(bin, key), Pin: pin,
				Calls: []tsCall{{Answers: team}, {Answers: declined}}})
			if pin != "" {
				assert.Equal(t, pin, tr.ProtocolVersion)
			} else {
				assert.Equal(t, tsLegacy, tr.ProtocolVersion)
			}
			done := tr.Calls[0]
			require.Nil(t, done.Error)
			require.NotNil(t, done.Result)
			require.Len(t, done.Result.Content, 2, "the person's heading and summary, then the model's sentence")
			assert.Equal(t, "Account created\nEmail: ada@example.com\nPlan: Team\nTeam name: Analytical\nSeats: 5", done.Result.Content[0].Text)
			assert.Equal(t, `Signup complete: created ada@example.com on the Team plan for "Analytical", 5 seats.`, done.Result.Content[1].Text)
			require.Len(t, done.Asked, 3)
			assert.Equal(t, signupAccountAsked(""), done.Asked[0].Message)
			assert.Contains(t, done.Asked[2].Message, "Seats must be from 2 to 50.")
			plan := done.Asked[0].RequestedSchema["properties"].(map[string]any)["plan"].(map[string]any)
			assert.Equal(t, "free", plan["default"], "SEP-1034 default")
			assert.Len(t, plan["oneOf"], 3, "SEP-1330 titled choices")

			dec := tr.Calls[1]
			require.Nil(t, dec.Error)
			require.NotNil(t, dec.Result)
			assert.Equal(t, "Signup not completed: you declined to give your team details. Nothing was created.", dec.Result.Content[1].Text)
		})
	}
}

// TestMcpgoTypeScriptErrors: over stdio, the official client gets the
// spec's codes from examples/mcpgo, which serves on mcp-go's own stdio:
// a tampered state is -32602 on 2026-07-28 and on the legacy handshake,
// and a client that declared no elicitation, on a server not opted in to
// asking through the model, gets -32021 naming form mode.
func TestMcpgoTypeScriptErrors(t *testing.T) {
	bin := mcpgoBin(t)
	key, _ := tsStateKey(t)
	account := map[string]any{"account": tsAccept(map[string]any{"email": "mallory@example.com", "plan": "free"})}
	t.Run("tampered state", func(t *testing.T) {
		tr := runTS(t, tsPlan{Stdio: tsStdioServer(bin, key), Pin: tsModern, Calls: []tsCall{
			{Manual: true},
			{Manual: true, StateFrom: tsAt(-1), Tamper: true, InputResponses: account},
		}})
		tr.Calls[0].reasked(t, "account")
		tr.Calls[1].invalidState(t)
	})
	t.Run("junk state, legacy", func(t *testing.T) {
		tr := runTS(t, tsPlan{Stdio: tsStdioServer(bin, key), Calls: []tsCall{
			{Manual: true, RequestState: "s1.AAAA", InputResponses: account},
		}})
		assert.Equal(t, tsLegacy, tr.ProtocolVersion)
		tr.Calls[0].invalidState(t)
	})
	t.Run("no elicitation", func(t *testing.T) {
		// Not opted in to asking through the model, as examples/signup's
		// -ask-model=false.
		tr := runTS(t, tsPlan{Stdio: tsStdioServer(bin, key, "-ask-model=false"), Pin: tsModern, Capabilities: json.RawMessage(`{}`),
			Calls: []tsCall{{Manual: true}}})
		s := tr.Calls[0]
		require.Nil(t, s.Result, "want an error, not a result")
		require.NotNil(t, s.Error)
		assert.Equal(t, -32021, s.Error.Code)
		assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, string(s.Error.Data))
	})
}
