package terminal

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDemoLanguage: the demo's language is the POSIX locale's, LC_ALL
// first, then LC_MESSAGES, then LANG, as a BCP 47 tag; C and POSIX name
// none.
func TestDemoLanguage(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"LANG": "fr_FR.UTF-8"}, "fr-FR"},
		{map[string]string{"LANG": "de_DE.UTF-8", "LC_ALL": "ja_JP.UTF-8"}, "ja-JP"},
		{map[string]string{"LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_ES@euro"}, "es-ES"},
		{map[string]string{"LANG": "C.UTF-8"}, ""},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "fr_FR.UTF-8"}, ""},
		{map[string]string{}, ""},
	} {
		assert.Equal(t, tt.want, Language(func(k string) string { return tt.env[k] }), "%v", tt.env)
	}
	assert.Same(t, english, wordsFor(""))
	assert.Same(t, english, wordsFor("pt-BR"))
	assert.Same(t, demoLanguages["fr"], wordsFor("fr-FR"))
}
