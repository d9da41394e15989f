package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		accept string
		want   Lang
	}{
		{"", English},
		{"es", Spanish},
		{"es-MX", Spanish},
		{"es-419,es;q=0.9", Spanish},
		{"fr-CA, en;q=0.5", French},
		{"de-AT", German},
		{"ja-JP", Japanese},
		{"en-GB", English},
		{"pt-BR", English},                    // none of ours: English
		{"pt-BR, de;q=0.8, fr;q=0.7", German}, // the first of ours, by weight
		{"en;q=0.1, es;q=0.9", Spanish},       // weights, not order
		{"*", English},
		{"zz-ZZ", English},
		{"not a language tag at all!", English},
		{"es;q=abc", English}, // malformed
		{strings.Repeat("es,", 300), English},
	} {
		t.Run(tt.accept, func(t *testing.T) {
			assert.Equal(t, tt.want.Code(), Match(tt.accept).Code())
			assert.Equal(t, tt.want.Code(), Match(tt.accept).Code(), "again")
		})
	}
}

// FuzzMatchLang: any Accept-Language value, hostile or not, gives one of
// our languages, the same one twice, and never panics.
func FuzzMatchLang(f *testing.F) {
	for _, s := range []string{"es", "fr-CA;q=0.8, *;q=0.1", "ja-Latn-JP-x-private", "de;q=1.0001", ";;;,,,", "en-\xff", "zh-Hant-TW"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		l := Match(accept)
		if l >= NumLangs {
			t.Fatalf("Match(%q) = %d", accept, l)
		}
		if again := Match(accept); again != l {
			t.Fatalf("Match(%q) = %d, then %d", accept, l, again)
		}
	})
}

// TestMatchAgainFree: a value matched before is not parsed again, so a
// page or view in the person's language costs no more to serve than one
// in English; past the cache's bound, values are still matched right.
func TestMatchAgainFree(t *testing.T) {
	Match("es-ES,es;q=0.9")
	assert.Zero(t, testing.AllocsPerRun(100, func() { Match("es-ES,es;q=0.9") }), "the second time")
	for i := range maxMatched + 10 {
		accept := fmt.Sprintf("fr;q=0.9, de;q=0.%03d", i+1)
		assert.Equal(t, French, Match(accept), accept)
	}
	assert.Equal(t, German, Match("pt-BR, de;q=0.5"), "past the bound")
	assert.LessOrEqual(t, cached(), maxMatched)
}

// cached counts the values in Match's cache.
func cached() int {
	n := 0
	matched.Range(func(any, any) bool { n++; return true })
	return n
}
