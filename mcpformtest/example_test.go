package mcpformtest_test

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Seats is what the tool asks.
type Seats struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	Seats int    `json:"seats" mcpform:"label=Seats,min=1,max=50"`
}

// newServer builds the author's server: one tool, signup, ready for every
// host: the viewer for MCP Apps, legacy rounds for 2025-11-25, and the
// model for a bare host.
func newServer(t mcpformtest.TB) *mcp.Server {
	key := make([]byte, mcpform.MinRequestStateKeySize)
	rand.Read(key)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{key}, Bind: true})
	must(t, err)
	form, err := mcpform.FormFor[Seats](&mcpform.FormOptions{Key: "signup", Message: "Sign up",
		Codec: codec, EveryCallerIsSamePerson: true, AskModel: true})
	must(t, err)
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	must(t, mcpform.AddViewer(server, nil))
	tool := &mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}}
	must(t, mcpform.AttachViewer(tool, nil))
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
	})
	mcpform.AddLegacyRounds(server, nil)
	return server
}

// Example runs one tool on every kind of host, as a table-driven test
// does with its *testing.T. The person first sends 51 seats, of at most
// 50, which go-sdk's own client would refuse to send: each host shows the
// server's re-ask, naming the problem, and the second answer finishes.
func Example() {
	t := &exampleT{} // in a test, the *testing.T
	defer t.cleanup()
	bad := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 51})
	good := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 5})
	for _, host := range mcpformtest.Hosts() {
		c := mcpformtest.NewClient(t, newServer(t), host)
		res := c.Call(context.Background(), "signup", nil, bad, good)
		fmt.Printf("%s:\n", host.Name)
		for _, r := range res.Rounds[:len(res.Rounds)-1] {
			fmt.Printf("  %s %v %q\n", r.Path, r.Names(), r.Problems)
		}
		fmt.Printf("  %s\n", res.Text)
	}
	// Output:
	// full:
	//   form [email seats] []
	//   form [email seats] ["Seats must be from 1 to 50"]
	//   Signed up ada@example.com for 5 seats
	// CLI with forms:
	//   form [email seats] []
	//   form [email seats] ["Seats must be from 1 to 50"]
	//   Signed up ada@example.com for 5 seats
	// older editor:
	//   legacy [email seats] []
	//   legacy [email seats] ["Seats must be from 1 to 50"]
	//   Signed up ada@example.com for 5 seats
	// Apps-only:
	//   view [email seats] []
	//   view [email seats] ["Seats must be from 1 to 50"]
	//   Signed up ada@example.com for 5 seats
	// bare:
	//   model [email seats] []
	//   model [email seats] ["Seats must be from 1 to 50"]
	//   Signed up ada@example.com for 5 seats
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

// exampleT stands in for a *testing.T outside a test.
type exampleT struct{ cleanups []func() }

func (*exampleT) Helper()                           {}
func (*exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }

func (t *exampleT) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
