package prefab

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRendererKey: the renderer camel-cases "_" and a letter a to z alone.
func TestRendererKey(t *testing.T) {
	for in, want := range map[string]string{
		"a": "a", "full_name": "fullName", "first_name_x": "firstNameX", "__private": "_Private",
		"trailing_": "trailing_", "a_B": "a_B", "a_1": "a_1", "snake__and--kebab": "snake_And--kebab",
		"2fa_code": "2faCode", "straße_name": "straßeName", "_é": "_é", "a_b_c": "aBC",
	} {
		assert.Equal(t, want, RendererKey(in), in)
	}
}

// TestCarryProblem: the first name that clashes is named, with the
// earliest it clashes with.
func TestCarryProblem(t *testing.T) {
	for _, tt := range []struct {
		names []string
		at    int
		why   string
	}{
		{[]string{"a", "b.c", "d_e"}, -1, ""},
		{[]string{"ok", "true"}, 1, "the prefab renderer cannot read it back: it reads as a literal"},
		{[]string{"full_name", "fullName"}, 1, `the prefab renderer delivers it and "full_name" under the same key "fullName"`},
		{[]string{"p", "x", "p.q"}, 2, `the prefab renderer stores it and "p" on one path`},
		{[]string{"p.q", "p"}, 1, `the prefab renderer stores it and "p.q" on one path`},
	} {
		at, why := CarryProblem(tt.names)
		assert.Equal(t, tt.at, at, "%q", tt.names)
		assert.Equal(t, tt.why, why, "%q", tt.names)
	}
}
