package mcpformtest_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The kit's tests run against the example's server (example_test.go),
// with a second tool, set_pin, a flow whose PIN is typed on a secret
// page.

type pinForm struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	PIN   string `json:"pin" mcpform:"label=PIN,type=password,min=4,max=8"`
}

// pageURL is where the tests' secret page is, served in process.
const pageURL = "https://pages.test/secret"

// newTestServer returns the server and set_pin's secret page.
func newTestServer(t mcpformtest.TB) (*mcp.Server, http.Handler) {
	t.Helper()
	key := make([]byte, mcpform.MinRequestStateKeySize)
	rand.Read(key)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true})
	must(t, err)
	pin, err := mcpform.FormFor[pinForm](&mcpform.FormOptions{Key: "pin", Message: "Set your PIN"})
	must(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Form: pin}}, &mcpform.FlowOptions{
		EveryCallerIsSamePerson: true, AskModel: true,
		Secrets: &mcpform.SecretOptions{PageURL: pageURL, Store: mcpform.NewMemorySecretStore()}})
	must(t, err)
	page, err := flow.SecretPage(&mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	must(t, err)
	server := newServer(t)
	tool := &mcp.Tool{Name: "set_pin", InputSchema: map[string]any{"type": "object"}}
	must(t, mcpform.AttachViewer(tool, nil))
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		round, err := flow.Next(ctx, req)
		if err != nil {
			return nil, err
		}
		switch round.Status {
		case mcpform.FlowAsk:
			return round.Result, nil
		case mcpform.FlowDone:
			var in pinForm
			if err := round.Answers.Decode(&in); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("PIN set for %s", in.Email)), nil
		}
		return text("PIN not set."), nil
	})
	return server, page
}
