package legacy

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUntitled(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"titled single choice",
			`{"type":"object","properties":{"p":{"type":"string","title":"P","oneOf":[{"const":"a","title":"Ay"},{"const":"b","title":"Bee"}],"default":"b"}}}`,
			`{"type":"object","properties":{"p":{"type":"string","title":"P","enum":["a","b"],"enumNames":["Ay","Bee"],"default":"b"}}}`},
		{"titled multiple choice",
			`{"type":"object","properties":{"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"Ay"}]},"maxItems":1}}}`,
			`{"type":"object","properties":{"m":{"type":"array","items":{"type":"string","enum":["a"]},"maxItems":1}}}`},
		{"plain enum unchanged",
			`{"type":"object","properties":{"p":{"type":"string","enum":["a"]}}}`,
			`{"type":"object","properties":{"p":{"type":"string","enum":["a"]}}}`},
		{"a oneOf that is not choices unchanged",
			`{"type":"object","properties":{"p":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			`{"type":"object","properties":{"p":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := elicitSchema(json.RawMessage(tt.in))
			require.NotNil(t, s)
			before, err := json.Marshal(s)
			require.NoError(t, err)
			got, err := json.Marshal(untitled(s))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
			after, err := json.Marshal(s)
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "untitled must not change its argument")
		})
	}
}

func TestPropertyOrder(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{`{"properties":{"z":{},"a":{"properties":{"inner":{}}},"m":{}}}`, []string{"z", "a", "m"}},
		{`{"type":"object"}`, nil},
		{`{"properties":[]}`, nil},
		{`not json`, nil},
	} {
		assert.Equal(t, tt.want, PropertyOrder([]byte(tt.in)), tt.in)
	}
}
