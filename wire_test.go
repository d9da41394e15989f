package mcpform

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWireSchemaKeepsBytes: the schema a compiled form sends is the
// compiled schema byte for byte, on every golden form, inside go-sdk's
// encoding of the result.
func TestWireSchemaKeepsBytes(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			form, err := NewForm[Answers](fields, nil)
			require.NoError(t, err)
			res := form.InputRequest("")
			got, err := json.Marshal(res)
			require.NoError(t, err)
			var m struct {
				InputRequests map[string]struct {
					Params struct {
						RequestedSchema json.RawMessage `json:"requestedSchema"`
					} `json:"params"`
				} `json:"inputRequests"`
			}
			require.NoError(t, json.Unmarshal(got, &m))
			assert.Equal(t, string(form.c.schema), string(m.InputRequests[form.c.key].Params.RequestedSchema))
		})
	}
}

// TestEveryNameReachesTheWire (issue 22, finding 6): a field named "-",
// or with characters a struct tag cannot hold, is a property of the
// schema the client gets, on the request and on a re-ask, not
// "properties":{} beside "required":["-"].
func TestEveryNameReachesTheWire(t *testing.T) {
	for _, name := range []string{"-", "a,b", "omitempty", `say "hi"`, "-,"} {
		t.Run(name, func(t *testing.T) {
			form, err := NewForm[Answers]([]AutoFormField{{Name: name, Required: true}, {Name: "other", Type: TypeInteger}}, nil)
			require.NoError(t, err)
			bad := form.Read(answer(form.Key(), "accept", map[string]any{name: "x", "other": "nope"}))
			for res, label := range map[*mcp.CallToolResult]string{form.InputRequest(""): "request", form.Reask(bad, ""): "re-ask"} {
				var got struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				}
				require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.InputRequests[form.Key()].(*mcp.ElicitParams).RequestedSchema)), &got), label)
				assert.Contains(t, got.Properties, name, label)
				assert.Contains(t, got.Properties, "other", label)
				assert.Equal(t, []string{name}, got.Required, label)
			}
		})
	}
}

// TestFormsAreFreed (issue 22, finding 6): what compiling a form allocates
// goes with the form. Thousands of forms with distinct field names,
// compiled and dropped, leave the heap where it was; Go types made at run
// time, which are never freed, would keep them.
func TestFormsAreFreed(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	compile := func(from, n int) {
		for i := from; i < from+n; i++ {
			_, err := NewForm[Answers]([]AutoFormField{
				{Name: fmt.Sprintf("field_%d", i), Required: true},
				{Name: fmt.Sprintf("count_%d", i), Type: TypeInteger, Min: Bound(1)},
			}, nil)
			require.NoError(t, err)
		}
	}
	compile(0, 500) // warm up what is allocated once
	before := heap()
	const n = 5000
	compile(1000, n)
	after := heap()
	grown := int64(after) - int64(before)
	t.Logf("heap grew %d bytes over %d forms", grown, n)
	assert.Less(t, grown, int64(n*64), "compiled forms outlive themselves: %d bytes per form", grown/n)
}
