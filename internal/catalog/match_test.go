package catalog

import (
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
