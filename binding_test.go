package mcpform

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArgumentsDigest(t *testing.T) {
	same := [][]string{
		{``, `null`, `{}`, ` { } `},
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, `{"a":1.0,"b":"x"}`, `{"a":1e0,"b":"x"}`, "{\n\t\"a\": 1, \"b\": \"x\"\n}"},
		{`{"s":"\u00e9<"}`, `{"s":"é\u003c"}`},
		{`{"n":{"y":[1,2],"x":true}}`, `{"n":{"x":true,"y":[1.0,2]}}`},
	}
	seen := map[string]int{}
	for i, group := range same {
		for _, raw := range group {
			d, err := argumentsDigest(json.RawMessage(raw))
			require.NoError(t, err, raw)
			if j, ok := seen[d]; ok {
				assert.Equal(t, j, i, "%s shares a digest with group %d", raw, j)
			}
			seen[d] = i
		}
	}
	assert.Len(t, seen, len(same), "one digest per group")

	for _, raw := range []string{`{"a":`, `nope`, `{"a":1}x`} {
		_, err := argumentsDigest(json.RawMessage(raw))
		assert.Error(t, err, raw)
	}
	d1, _ := argumentsDigest(json.RawMessage(`{"n":[1,2]}`))
	d2, _ := argumentsDigest(json.RawMessage(`{"n":[2,1]}`))
	assert.NotEqual(t, d1, d2, "order in a list matters")
}
