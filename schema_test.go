package mcpform

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// TestWireSchemaKeepsBytes: the schema a compiled form sends is the
// compiled schema byte for byte, on every golden form, inside go-sdk's
// encoding of the result.
func TestWireSchemaKeepsBytes(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			form, err := NewForm[Answers](fields, nil)
			require.NoError(t, err)
			res := form.InputRequest("")
			got, err := json.Marshal(res)
			require.NoError(t, err)
			var m struct {
				InputRequests map[string]struct {
					Params struct {
						RequestedSchema json.RawMessage `json:"requestedSchema"`
					} `json:"params"`
				} `json:"inputRequests"`
			}
			require.NoError(t, json.Unmarshal(got, &m))
			assert.Equal(t, string(form.c.schema), string(m.InputRequests[form.c.key].Params.RequestedSchema))
		})
	}
}

// TestEveryNameReachesTheWire (issue 22, finding 6): a field named "-",
// or with characters a struct tag cannot hold, is a property of the
// schema the client gets, on the request and on a re-ask, not
// "properties":{} beside "required":["-"].
func TestEveryNameReachesTheWire(t *testing.T) {
	for _, name := range []string{"-", "a,b", "omitempty", `say "hi"`, "-,"} {
		t.Run(name, func(t *testing.T) {
			form, err := NewForm[Answers]([]AutoFormField{{Name: name, Required: true}, {Name: "other", Type: TypeInteger}}, nil)
			require.NoError(t, err)
			bad := form.Read(answer(form.Key(), "accept", map[string]any{name: "x", "other": "nope"}))
			for res, label := range map[*mcp.CallToolResult]string{form.InputRequest(""): "request", form.Reask(bad, ""): "re-ask"} {
				var got struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				}
				require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.InputRequests[form.Key()].(*mcp.ElicitParams).RequestedSchema)), &got), label)
				assert.Contains(t, got.Properties, name, label)
				assert.Contains(t, got.Properties, "other", label)
				assert.Equal(t, []string{name}, got.Required, label)
			}
		})
	}
}

// TestFormsAreFreed (issue 22, finding 6): what compiling a form allocates
// goes with the form. Thousands of forms with distinct field names,
// compiled and dropped, leave the heap where it was; Go types made at run
// time, which are never freed, would keep them.
func TestFormsAreFreed(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	compile := func(from, n int) {
		for i := from; i < from+n; i++ {
			_, err := NewForm[Answers]([]AutoFormField{
				{Name: fmt.Sprintf("field_%d", i), Required: true},
				{Name: fmt.Sprintf("count_%d", i), Type: TypeInteger, Min: Bound(1)},
			}, nil)
			require.NoError(t, err)
		}
	}
	compile(0, 500) // warm up what is allocated once
	before := heap()
	const n = 5000
	compile(1000, n)
	after := heap()
	grown := int64(after) - int64(before)
	t.Logf("heap grew %d bytes over %d forms", grown, n)
	assert.Less(t, grown, int64(n*64), "compiled forms outlive themselves: %d bytes per form", grown/n)
}

// TestOptionControlsMapAsTheSeed holds the types people write beside an
// options list, select and radio, to the seed's mapping and to the
// TypeScript helpers: with options, a choice of them; without, plain
// text (issue 32, finding 14: they were refused as unknown types).
func TestOptionControlsMapAsTheSeed(t *testing.T) {
	opts := []Option{{Value: "free"}, {Value: "pro", Label: "Pro"}}
	forms := map[string][]AutoFormField{
		"select with options": {{Name: "plan", Type: "select", Options: opts, Required: true}},
		"radio with options":  {{Name: "plan", Type: "radio", Options: opts, Default: "pro"}},
		"select alone":        {{Name: "plan", Type: "select"}},
		"radio alone":         {{Name: "plan", Type: "radio", Max: Bound(8)}},
	}
	names := slices.Sorted(maps.Keys(forms))
	var calls []map[string]any
	for _, name := range names {
		calls = append(calls, map[string]any{"fn": "formSchema", "args": []any{forms[name]}})
	}
	ts := callPrefab(t, calls)
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			fields := forms[name]
			got, err := FormSchema(fields)
			require.NoError(t, err)
			// The same field without a type is what the seed maps it to.
			untyped := cloneFields(fields)
			untyped[0].Type = ""
			want, err := FormSchema(untyped)
			require.NoError(t, err)
			assert.Equal(t, marshalIndent(t, want), marshalIndent(t, got))
			require.Empty(t, ts[i].Error)
			var gotMap, tsMap map[string]any
			require.NoError(t, json.Unmarshal(marshalIndent(t, got), &gotMap))
			require.NoError(t, json.Unmarshal(ts[i].Result, &tsMap))
			assert.Equal(t, tsMap, gotMap, "TypeScript's formSchema")
			_, err = NewForm[Answers](fields, nil)
			require.NoError(t, err, "a form compiles")
			_, err = DisplayForm(fields, "submit", nil)
			require.NoError(t, err, "a view is built")
		})
	}
}
