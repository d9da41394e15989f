package mcpformtest_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"github.com/mcpform/mcpform/mcpformtest"
	"net/http"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The kit's tests run against a server of two tools: signup, a form, and
// set_pin, a flow whose PIN is typed on a secret page.

type signupForm struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	Seats int    `json:"seats" mcpform:"label=Seats,min=1,max=50"`
}

type pinForm struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	PIN   string `json:"pin" mcpform:"label=PIN,type=password,min=4,max=8"`
}

// pageURL is where the tests' secret page is, served in process.
const pageURL = "https://pages.test/secret"

// newTestServer returns the server and its secret page.
func newTestServer(t mcpformtest.TB) (*mcp.Server, http.Handler) {
	t.Helper()
	key := make([]byte, mcpform.MinRequestStateKeySize)
	rand.Read(key)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true})
	must(t, err)
	form, err := mcpform.FormFor[signupForm](&mcpform.FormOptions{Key: "signup", Message: "Sign up",
		Codec: codec, EveryCallerIsSamePerson: true, AskModel: true})
	must(t, err)
	pin, err := mcpform.FormFor[pinForm](&mcpform.FormOptions{Key: "pin", Message: "Set your PIN"})
	must(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Form: pin}}, &mcpform.FlowOptions{
		EveryCallerIsSamePerson: true, AskModel: true,
		Secrets: &mcpform.SecretOptions{PageURL: pageURL, Store: mcpform.NewMemorySecretStore()}})
	must(t, err)
	page, err := flow.SecretPage(&mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	must(t, err)

	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "kit", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	must(t, mcpform.AddViewer(server, nil))
	for name, h := range map[string]mcp.ToolHandler{"signup": signupHandler(form), "set_pin": pinHandler(flow)} {
		tool := &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}
		must(t, mcpform.AttachViewer(tool, nil))
		server.AddTool(tool, h)
	}
	mcpform.AddLegacyRounds(server, nil)
	return server, page
}

func must(t mcpformtest.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%v", err)
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func signupHandler(form *mcpform.Form[signupForm]) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reply := form.ReadCall(req)
		switch reply.Status {
		case mcpform.ReplyNone:
			return form.Ask(req, "")
		case mcpform.ReplyInvalid:
			return form.Reask(reply, ""), nil
		case mcpform.ReplyAccepted:
			return text(fmt.Sprintf("Signed up %s for %d seats", reply.Value.Email, reply.Value.Seats)), nil
		}
		return text("Not signed up."), nil
	}
}

func pinHandler(flow *mcpform.Flow) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
	}
}
