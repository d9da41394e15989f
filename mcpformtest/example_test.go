package mcpformtest_test

import (
	"context"
	"fmt"

	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Example runs one tool on every kind of host, as a table-driven test
// does with its *testing.T: the person first sends 51 seats, which the
// server refuses and asks again, naming the problem.
func Example() {
	t := &exampleT{} // in a test, the *testing.T
	defer t.cleanup()
	newServer := func() *mcp.Server {
		server, _ := newTestServer(t) // a go-sdk server with mcpform's signup
		return server
	}
	bad := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 51})
	good := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 5})
	for _, host := range mcpformtest.Hosts() {
		c := mcpformtest.NewClient(t, newServer(), host)
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
	//   form [email seats] ["Seats: greater than the maximum 50"]
	//   Signed up ada@example.com for 5 seats
	// CLI with forms:
	//   form [email seats] []
	//   form [email seats] ["Seats: greater than the maximum 50"]
	//   Signed up ada@example.com for 5 seats
	// older editor:
	//   legacy [email seats] []
	//   legacy [email seats] ["Seats: greater than the maximum 50"]
	//   Signed up ada@example.com for 5 seats
	// Apps-only:
	//   view [email seats] []
	//   view [email seats] ["Seats: greater than the maximum 50"]
	//   Signed up ada@example.com for 5 seats
	// bare:
	//   model [email seats] []
	//   model [email seats] ["Seats: greater than the maximum 50"]
	//   Signed up ada@example.com for 5 seats
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
