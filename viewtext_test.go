package mcpform

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestViewText: every entry of each language's view text is set, from
// its catalog, and uses only the placeholders its view fills.
func TestViewText(t *testing.T) {
	known := map[string]bool{"{step}": true, "{total}": true, "{label}": true, "{reason}": true,
		"{min}": true, "{max}": true, "{fields}": true, "{what}": true, "{bounds}": true, "{form}": true, "{url}": true}
	for l, vt := range viewTexts {
		assert.Equal(t, lang(l), vt.l)
		v := reflect.ValueOf(*vt)
		for i := range v.NumField() {
			name, f := v.Type().Field(i).Name, v.Field(i)
			if f.Kind() != reflect.String {
				continue
			}
			assert.NotEmpty(t, f.String(), "%s: %s", langCodes[l], name)
			for _, p := range regexp.MustCompile(`\{[^}]*\}`).FindAllString(f.String(), -1) {
				assert.True(t, known[p], "%s: %s has the unknown placeholder %s", langCodes[l], name, p)
			}
		}
	}
	assert.Equal(t, "Étape {step} sur {total}", viewTexts[langFR].StepOf)
}

func TestFillText(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"Step {step} of {total}", "Step 1 of 2"},
		{"no placeholder", "no placeholder"},
		{"{unknown} stays", "{unknown} stays"},
		// A value is not read again for placeholders.
		{"{label}", "{step}"},
		// A brace that opens no placeholder stays.
		{"{step", "{step"},
		{"} {step}", "} 1"},
		{"{{step}}", "{{step}}"},
	} {
		got := fillText(tt.s, "step", "1", "total", "2", "label", "{step}")
		assert.Equal(t, tt.want, got, tt.s)
	}
}
