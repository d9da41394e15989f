package mcpform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLegacyForgotten: a server that forgets AddLegacyRounds gives a client
// on 2025-11-25 a JSON-RPC error naming it once the flow would ask a second
// time, not an empty result it cannot read; the same flow finishes with the
// middleware, and for a 2026-07-28 client without it. The handler passes
// Next a context of its own, which the middleware does not need.
func TestLegacyForgotten(t *testing.T) {
	codec, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := flow.Next(context.Background(), req)
		if err != nil {
			return nil, err
		}
		if r.Status == FlowAsk {
			return r.Result, nil
		}
		b, err := json.Marshal(r.Answers)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String() + " " + string(b)}}}, err
	}
	answers := map[string]map[string]any{
		"account": {"email": "ada@example.com", "plan": "team"},
		"team":    {"team_name": "Analytical", "seats": 5},
	}
	const done = `done {"email":"ada@example.com","plan":"team","seats":5,"team_name":"Analytical"}`
	for _, tt := range []struct {
		name      string
		install   bool
		version   string
		wantAsked int
		wantErr   string
	}{
		{"2025-11-25 without AddLegacyRounds", false, "2025-11-25", 1,
			"mcpform: this flow needs more than one round for a client older than 2026-07-28: the server must call mcpform.AddLegacyRounds"},
		{"2025-06-18 without AddLegacyRounds", false, "2025-06-18", 1, "the server must call mcpform.AddLegacyRounds"},
		{"2025-11-25 with AddLegacyRounds", true, "2025-11-25", 2, ""},
		{"2026-07-28 without AddLegacyRounds", false, "2026-07-28", 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			if tt.install {
				AddLegacyRounds(server, nil)
			}
			asked := 0
			cs := oldClient(t, server, tt.version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				key := "account"
				if req.Params.Message == teamStep.Message {
					key = "team"
				}
				return &mcp.ElicitResult{Action: "accept", Content: answers[key]}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			assert.Equal(t, tt.wantAsked, asked, "times asked")
			if tt.wantErr != "" {
				requireLegacyError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, done, text(t, res))
		})
	}
}
