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
			server := signupServer(handler, tt.install)
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

// TestLegacyForgottenForm: a lone Form asked again, on a server without
// AddLegacyRounds, of a client on 2025-11-25 names the missing call, as a
// flow does: Ask with a JSON-RPC error, Reask, which cannot return one,
// with a tool error; never the empty result go-sdk's bridge would send.
// With the middleware, or for a 2026-07-28 client, the form is asked
// again and finishes.
func TestLegacyForgottenForm(t *testing.T) {
	form, err := NewForm[map[string]any](accountStep.Fields, &FormOptions{Key: "account", Message: accountStep.Message})
	require.NoError(t, err)
	handler := func(reask bool) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch reply := form.ReadCall(req); reply.Status {
			case ReplyAccepted:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "created " + reply.Answers["email"].(string)}}}, nil
			case ReplyInvalid:
				if reask {
					return form.Reask(reply, ""), nil
				}
			}
			return form.Ask(req, "")
		}
	}
	const fix = "mcpform: asking a form again needs a second round for a client older than 2026-07-28: the server must call mcpform.AddLegacyRounds"
	for _, tt := range []struct {
		name      string
		reask     bool
		install   bool
		version   string
		wantAsked int
		wantErr   string // a JSON-RPC error
		wantTool  string // a tool error
	}{
		{"Ask, 2025-11-25 without AddLegacyRounds", false, false, "2025-11-25", 1, fix, ""},
		{"Reask, 2025-11-25 without AddLegacyRounds", true, false, "2025-11-25", 1, "", fix},
		{"Reask, 2025-11-25 with AddLegacyRounds", true, true, "2025-11-25", 2, "", ""},
		{"Ask, 2025-11-25 with AddLegacyRounds", false, true, "2025-11-25", 2, "", ""},
		{"Reask, 2026-07-28 without AddLegacyRounds", true, false, "2026-07-28", 2, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := signupServer(handler(tt.reask), tt.install)
			asked := 0
			cs := uncheckedClient(t, server, tt.version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				// The schema's format is not asserted, so only the form
				// refuses this email, and asks again.
				email := "ada at example.com"
				if asked > 1 {
					email = "ada@example.com"
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": email, "plan": "pro"}}, nil
			})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "signup"})
			assert.Equal(t, tt.wantAsked, asked, "times asked")
			switch {
			case tt.wantErr != "":
				requireLegacyError(t, err, tt.wantErr)
			case tt.wantTool != "":
				require.NoError(t, err)
				assert.True(t, res.IsError)
				assert.Equal(t, tt.wantTool, text(t, res))
			default:
				require.NoError(t, err)
				assert.False(t, res.IsError)
				assert.Equal(t, "created ada@example.com", text(t, res))
			}
		})
	}
}

// signupServer serves handler as the tool "signup", with the middleware
// of AddLegacyRounds when install is set.
func signupServer(handler mcp.ToolHandler, install bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
	if install {
		AddLegacyRounds(server, nil)
	}
	return server
}
