package mcpform

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestViewText: every entry of the views' English text is set, and uses
// only the placeholders its view fills.
func TestViewText(t *testing.T) {
	known := map[string]bool{"{step}": true, "{total}": true, "{label}": true, "{reason}": true,
		"{min}": true, "{max}": true, "{fields}": true}
	v := reflect.ValueOf(*viewEnglish)
	for i := range v.NumField() {
		name, s := v.Type().Field(i).Name, v.Field(i).String()
		assert.NotEmpty(t, s, name)
		for _, p := range regexp.MustCompile(`\{[^}]*\}`).FindAllString(s, -1) {
			assert.True(t, known[p], "%s has the unknown placeholder %s", name, p)
		}
	}
}

func TestFillText(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"Step {step} of {total}", "Step 1 of 2"},
		{"no placeholder", "no placeholder"},
		{"{unknown} stays", "{unknown} stays"},
		// A value is not read again for placeholders.
		{"{label}", "{step}"},
	} {
		got := fillText(tt.s, "step", "1", "total", "2", "label", "{step}")
		assert.Equal(t, tt.want, got, tt.s)
	}
}
