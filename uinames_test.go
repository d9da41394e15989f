package mcpform

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDisplayFormNames checks which names the UI path carries. The refused
// ones were seen to fail in Chromium with prefab 0.3.13 (for example "a - b"
// arrives as null, "true" as true, " sp" and "m|n" not at all, "p.q" is lost
// beside "p", and an absent "constructor" makes the view's postMessage fail),
// and every name in the carried list was seen to arrive intact.
func TestDisplayFormNames(t *testing.T) {
	carried := []string{
		"a", "first_name", "__private", "trailing_", "user-id", "snake__and--kebab", "already Spaced words",
		"o'neil.name", "a'b'c", `q"r`, "a=b", "a:b", "(paren)", "a+b", "x-y", "1e5", `a\b`, "a&b",
		"line\u2028sep", "名前", "émileZola", "a.b.c", "isFoo", "__proto",
	}
	for _, name := range carried {
		t.Run("carried/"+name, func(t *testing.T) {
			for _, typ := range []FieldType{TypeText, TypeCheckbox} {
				_, err := DisplayForm([]AutoFormField{{Name: name, Type: typ}}, "t", nil)
				assert.NoError(t, err)
			}
		})
	}
	refused := [][]string{
		{" sp"}, {"sp "}, {"\u00a0x"}, {"x\ufeff"}, {"tab\there"}, {"new\nline"},
		{"{{x}}"}, {"a}}"}, {"m|n"}, {"x?y"}, {"a<b"}, {"a>b"}, {"a&&b"}, {"a==b"}, {"a!=b"},
		{"a + b"}, {"a - b"}, {"a * b"}, {"a / b"}, {"a % b"},
		{"$"}, {"$x"}, {"!x"}, {"true"}, {"false"}, {"null"}, {"undefined"}, {"42"}, {"-1.5"}, {"'q'"}, {`"q"`},
		{"constructor"}, {"toString"}, {"__proto__"}, {"a.constructor"}, {"prototype.x"},
		{"p", "p.q"}, {"p.q", "p"}, {"a.b", "a.b.c"},
		{"full_name", "fullName"}, {"fullName", "full_name"}, {"a_b", "a__b", "aB"}, {"a_bC", "aB_c"},
	}
	for _, names := range refused {
		t.Run("refused/"+strings.Join(names, ","), func(t *testing.T) {
			var fields []AutoFormField
			for _, n := range names {
				fields = append(fields, AutoFormField{Name: n})
			}
			_, err := DisplayForm(fields, "t", nil)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.ErrorIs(t, err, ErrName)
			assert.Contains(t, names, fe.Field)
			// The native path carries every name.
			_, err = DisplayForm(fields, "t", &DisplayFormOptions{Elicit: &InputRequestOptions{}})
			assert.NoError(t, err)
		})
	}
}

func TestDisplayFormRendererKey(t *testing.T) {
	// Expected keys as the renderer's normalizeAction computes them, with
	// key.replace(/_([a-z])/g, ...).
	tests := map[string]string{
		"a": "a", "full_name": "fullName", "first_name_x": "firstNameX", "__private": "_Private",
		"trailing_": "trailing_", "a_B": "a_B", "a_1": "a_1", "snake__and--kebab": "snake_And--kebab",
		"2fa_code": "2faCode", "straße_name": "straßeName", "_é": "_é", "a_b_c": "aBC",
	}
	for in, want := range tests {
		assert.Equal(t, want, rendererKey(in), in)
	}
}

// carriedByPairs is the rule of checkCarried stated pair by pair, as it
// was first written: each field against every earlier one.
func carriedByPairs(fields []AutoFormField) error {
	for i := range fields {
		name := fields[i].Name
		if p := templateProblem(name); p != "" {
			return fieldErr(name, ErrName, "the prefab renderer cannot read it back: %s", p)
		}
		key := rendererKey(name)
		for j := range i {
			other := fields[j].Name
			if key == other || key == rendererKey(other) || name == rendererKey(other) {
				return fieldErr(name, ErrName, "the prefab renderer delivers it and %q under the same key %q", other, key)
			}
			if strings.HasPrefix(name, other+".") || strings.HasPrefix(other, name+".") {
				return fieldErr(name, ErrName, "the prefab renderer stores it and %q on one path", other)
			}
		}
	}
	return nil
}

// TestCheckCarriedMatchesPairs checks the indexed checkCarried against the
// pairwise rule on every ordered pair and triple of names that clash in
// each way, so the index neither misses a clash nor names another field.
func TestCheckCarriedMatchesPairs(t *testing.T) {
	names := []string{"a", "a.b", "a.b.c", "a_b", "aB", "a__b", "a_b.c", "aB.c", "b", "a.c", "x_y", "xY", "x.y_z"}
	var lists [][]string
	for _, p := range names {
		for _, q := range names {
			if q == p {
				continue
			}
			lists = append(lists, []string{p, q})
			for _, r := range names {
				if r != p && r != q {
					lists = append(lists, []string{p, q, r})
				}
			}
		}
	}
	clashes := 0
	for _, l := range lists {
		var fields []AutoFormField
		for _, n := range l {
			fields = append(fields, AutoFormField{Name: n})
		}
		want := carriedByPairs(fields)
		if want != nil {
			clashes++
		}
		require.Equal(t, want, checkCarried(fields), "names %q", l)
	}
	assert.Greater(t, clashes, len(lists)/4, "the lists should clash often")
}
