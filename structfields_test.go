package mcpform

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStructFieldsLikeJSON: names are resolved as encoding/json resolves
// them, shallow over deep and tagged over untagged, ties hiding both.
func TestStructFieldsLikeJSON(t *testing.T) {
	type deep struct {
		A string
		B string `json:"b"`
		C string
	}
	type other struct {
		C string
	}
	type outer struct {
		deep
		*other
		A string
		B string
		T deep `json:"t"`
	}
	got := structFields(reflect.TypeFor[outer]())
	want := map[string][]int{"A": {2}, "b": {0, 1}, "B": {3}, "t": {4}}
	gotIdx := map[string][]int{}
	for n, sf := range got.exact {
		gotIdx[n] = sf.Index
	}
	assert.Equal(t, want, gotIdx)
	// The same answer, decoded by encoding/json, fills the same fields.
	a := Answers{"A": "a", "b": "b", "B": "B2", "C": "c", "t": map[string]any{"A": "ta"}}
	var mine, theirs outer
	require.NoError(t, a.Decode(&mine))
	require.NoError(t, decodeJSON(map[string]any(a), &theirs))
	assert.Equal(t, theirs, mine)
}
