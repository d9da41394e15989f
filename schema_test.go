package mcpform

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func marshalIndent(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	return append(b, '\n')
}

func TestFormSchemaGolden(t *testing.T) {
	forms := loadForms(t)
	for name, fields := range forms {
		t.Run(name, func(t *testing.T) {
			s, err := FormSchema(fields)
			require.NoError(t, err)
			checkGolden(t, filepath.Join("testdata", "forms", name+".schema.golden"), marshalIndent(t, s))
		})
	}
}

func TestFormSchemaShape(t *testing.T) {
	fields := []AutoFormField{
		{Name: "b", Required: true},
		{Name: "a"},
		{Name: "c", Required: true, Type: TypeCheckbox},
	}
	s, err := FormSchema(fields)
	require.NoError(t, err)
	// Field order is kept on the wire: clients render in that order.
	assert.Equal(t, []string{"b", "a", "c"}, s.PropertyOrder)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.True(t, strings.Index(string(b), `"b"`) < strings.Index(string(b), `"a"`), "properties out of field order: %s", b)
	assert.Equal(t, []string{"b", "c"}, s.Required)

	// No required fields: the key is left out, not sent as [].
	s, err = FormSchema([]AutoFormField{{Name: "x"}})
	require.NoError(t, err)
	b, err = json.Marshal(s)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "required")

	// The schema does not alias the caller's bounds.
	f := []AutoFormField{{Name: "n", Type: TypeNumber, Min: Bound(1)}}
	s, err = FormSchema(f)
	require.NoError(t, err)
	*s.Properties["n"].Minimum = 99
	assert.Equal(t, 1.0, *f[0].Min)
}

// TestFormSchemaMatchesTypeScript derives every golden field list's schema
// with the pinned TypeScript formSchema and compares it with ours, key for
// key. The one documented difference is the humanized title of an
// unlabeled non-ASCII name, where TypeScript capitalizes after every
// non-ASCII letter ("PréNom"); the test checks that the titles differ only
// there.
func TestFormSchemaMatchesTypeScript(t *testing.T) {
	forms := loadForms(t)
	names := slices.Sorted(maps.Keys(forms))
	var calls []map[string]any
	for _, name := range names {
		calls = append(calls, map[string]any{"fn": "formSchema", "args": []any{forms[name]}})
	}
	ts := callPrefab(t, calls)
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			require.Empty(t, ts[i].Error)
			got, err := FormSchema(forms[name])
			require.NoError(t, err)
			var gotMap, wantMap map[string]any
			require.NoError(t, json.Unmarshal(marshalIndent(t, got), &gotMap))
			require.NoError(t, json.Unmarshal(ts[i].Result, &wantMap))
			for _, f := range forms[name] {
				if f.Label != "" || isASCII(f.Name) {
					continue
				}
				want := wantMap["properties"].(map[string]any)[f.Name].(map[string]any)
				gotP := gotMap["properties"].(map[string]any)[f.Name].(map[string]any)
				t.Logf("%s: TypeScript title %q, ours %q", f.Name, want["title"], gotP["title"])
				want["title"] = gotP["title"]
			}
			assert.Equal(t, wantMap, gotMap)
		})
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// prefabResult is one answer of interop/prefab.mjs.
type prefabResult struct {
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// callPrefab runs calls through the pinned TypeScript prefab helpers.
func callPrefab(t *testing.T, calls []map[string]any) []prefabResult {
	t.Helper()
	in, err := json.Marshal(calls)
	require.NoError(t, err)
	out := runNode(t, "prefab.mjs", in)
	var res []prefabResult
	require.NoError(t, json.Unmarshal(out, &res), "prefab.mjs said: %s", out)
	require.Len(t, res, len(calls))
	return res
}
