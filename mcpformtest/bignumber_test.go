package mcpformtest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBigArgumentOnEveryHost checks item 5 of issue 32: a tool called
// with an account number above 2^53 asks in a view on an MCP Apps host,
// whose JavaScript reads and writes every number as a double, as the kit's
// Apps host now does too. The view sends the tool's own arguments back as
// text, so the state's binding holds and the tool finishes, reading the
// account as it was called with, on every host.
func TestBigArgumentOnEveryHost(t *testing.T) {
	const account = "9007199254740993" // 2^53 + 1: no double holds it
	for _, host := range mcpformtest.Hosts() {
		t.Run(host.Name, func(t *testing.T) {
			c := mcpformtest.NewClient(t, transferServer(t), host)
			res := c.Call(context.Background(), "transfer", map[string]any{"account": json.Number(account), "memo": "rent"},
				mcpformtest.Accept(map[string]any{"reference": "June"}))
			require.NotEmpty(t, res.Rounds)
			assert.Equal(t, "transferred to "+account+" (rent)", res.Text, "rounds: %+v", res.Rounds)
			if host.Apps {
				assert.Equal(t, mcpformtest.PathView, res.Rounds[0].Path)
			}
		})
	}
}

// transferServer serves transfer, a flow with one question, that
// reports the account it was called with, as written.
func transferServer(t *testing.T) *mcp.Server {
	key := make([]byte, mcpform.MinRequestStateKeySize)
	rand.Read(key)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "confirm", Message: "Transfer?",
		Fields: []mcpform.AutoFormField{{Name: "reference", Label: "Reference", Required: true}}}},
		&mcpform.FlowOptions{EveryCallerIsSamePerson: true, AskModel: true})
	require.NoError(t, err)
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	require.NoError(t, mcpform.AddViewer(server, nil))
	mcpform.AddLegacyRounds(server, nil)
	tool := &mcp.Tool{Name: "transfer", InputSchema: map[string]any{"type": "object"}}
	require.NoError(t, mcpform.AttachViewer(tool, nil))
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		round, err := flow.Next(ctx, req)
		if err != nil {
			return nil, err
		}
		if round.Status == mcpform.FlowAsk {
			return round.Result, nil
		}
		var in struct {
			Account json.Number `json:"account"`
			Memo    string      `json:"memo"`
		}
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return nil, err
		}
		if round.Status != mcpform.FlowDone {
			return text(round.Status.String()), nil
		}
		return text("transferred to " + in.Account.String() + " (" + in.Memo + ")"), nil
	})
	return server
}
