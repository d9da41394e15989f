package mcpform

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

// TestProblemNotes: a re-ask notes each problem its message names, by
// field, in the message's words; an unknown key, which the message does
// not name, and a re-ask without problems note nothing.
func TestProblemNotes(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "seats", Label: "Seats", Type: TypeInteger, Max: Bound(50)}}, nil)
	assert.NoError(t, err)
	for _, tt := range []struct {
		name     string
		problems []*FieldError
		want     any
	}{
		{"none", nil, nil},
		{"a field", []*FieldError{{Field: "seats", Err: ErrInvalidValue}, {Field: "x", Err: ErrUnknownField}},
			map[string]any{problemsMeta: []problemNote{{Field: "seats", Problem: "Seats: " + ErrInvalidValue.Error()}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := form.c.reask(nil, tt.problems, "")
			meta := res.InputRequests[form.c.key].(*mcp.ElicitParams).Meta
			if tt.want == nil {
				assert.Nil(t, meta)
				return
			}
			assert.Equal(t, tt.want, map[string]any(meta))
		})
	}
}
