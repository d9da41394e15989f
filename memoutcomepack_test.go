package mcpform

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signupOutcome is the JSON of a signup's outcome for email, as a tool
// returns it.
func signupOutcome(name, email string) []byte {
	return fmt.Appendf(nil, `{"content":[{"type":"text","text":"Signup complete: created %s <%s> on the Pro plan."}],`+
		`"structuredContent":{"status":"created","account":{"email":%q,"full_name":%q,"plan":"pro"}}}`, name, email, email, name)
}

// TestMemPacker: every outcome unpacks to its bytes; outcomes like the
// dictionary keep in a fraction of their size, others as they are; the
// dictionary is replaced after keep, and what was packed against the old
// one still unpacks.
func TestMemPacker(t *testing.T) {
	noise := make([]byte, 300)
	rand.Read(noise)
	big := bytes.Repeat([]byte("x"), maxPackDict+1)
	var p memPacker
	keep := int64(time.Minute)
	first := signupOutcome("Ada Lovelace", "ada@example.com")
	tests := []struct {
		name   string
		blob   []byte
		at     int64
		newer  bool // packed against a new dictionary
		maxLen int  // bytes kept at most
	}{
		{"the first outcome, the dictionary", first, 0, true, 10},
		{"another person's", signupOutcome("Grace Hopper", "grace.hopper@navy.mil"), 1, false, 70},
		{"incompressible", noise, 2, false, len(noise)},
		{"past keep: a new dictionary", signupOutcome("Alan Turing", "alan@example.org"), keep, true, 10},
		{"too large for a dictionary", big, 2 * keep, false, 200},
	}
	type kept struct {
		blob []byte
		kept []byte
		dict *memDict
	}
	var all []kept
	var dict *memDict
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, d := p.pack(tt.blob, tt.at, keep)
			assert.LessOrEqual(t, len(k), tt.maxLen, "bytes kept")
			if tt.newer {
				assert.NotSame(t, dict, d, "a new dictionary")
				dict = d
			} else if d != nil {
				assert.Same(t, dict, d, "the same dictionary")
			}
			all = append(all, kept{tt.blob, k, d})
		})
	}
	for i, k := range all {
		got, err := unpack(k.kept, k.dict)
		require.NoError(t, err)
		assert.Equal(t, string(k.blob), string(got), "outcome %d unpacks to its bytes", i)
	}
	_, err := unpack([]byte{0xff, 0xff, 0xff}, all[1].dict)
	assert.Error(t, err, "a corrupt outcome is an error")
}
