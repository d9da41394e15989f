package mcpform

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFreezeKeepsBytes: the frozen value marshals to the compiled
// schema byte for byte, on every golden form, and go-sdk's marshalling of
// a result carrying it is the same as of one carrying the raw schema.
func TestFreezeKeepsBytes(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			form, err := NewForm[Answers](fields, nil)
			require.NoError(t, err)
			v, err := freeze(form.c.schema)
			if err != nil {
				// A name that cannot be a tag: such a form keeps
				// the raw schema.
				assert.ErrorContains(t, err, "cannot be a struct tag")
				return
			}
			got, err := json.Marshal(v)
			require.NoError(t, err)
			assert.Equal(t, string(form.c.schema), string(got))
			res := form.InputRequest("")
			want, err := json.Marshal(res)
			require.NoError(t, err)
			res.InputRequests[form.c.key].(*mcp.ElicitParams).RequestedSchema = v
			gotRes, err := json.Marshal(res)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(gotRes))
		})
	}
}
