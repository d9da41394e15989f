package canonjson

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
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
		{`{"repo":9007199254740993}`, `{"repo":9007199254740993.000}`, `{"repo":90071992547409930e-1}`},
		{`{"repo":9007199254740992}`},
		{`{"n":0}`, `{"n":-0}`, `{"n":0.0e5}`, `{"n":-0E-3}`},
		{`{"n":1e400}`, `{"n":10e399}`, `{"n":1E+400}`},
		{`{"n":1e-400}`},
		{`{"n":0.1}`, `{"n":1e-1}`, `{"n":0.10}`},
		{`{"n":0.10000000000000000555}`},
	}
	seen := map[string]int{}
	for i, group := range same {
		for _, raw := range group {
			d, err := ArgumentsDigest([]byte(raw))
			require.NoError(t, err, raw)
			if j, ok := seen[d]; ok {
				assert.Equal(t, j, i, "%s shares a digest with group %d", raw, j)
			}
			seen[d] = i
		}
	}
	assert.Len(t, seen, len(same), "one digest per group")

	for _, raw := range []string{`{"a":`, `nope`, `{"a":1}x`, `{"a":1} {}`} {
		_, err := ArgumentsDigest([]byte(raw))
		assert.Error(t, err, raw)
	}
	d1, _ := ArgumentsDigest([]byte(`{"n":[1,2]}`))
	d2, _ := ArgumentsDigest([]byte(`{"n":[2,1]}`))
	assert.NotEqual(t, d1, d2, "order in a list matters")
}

// TestCanonicalNumber pins the canonical spelling: JSON.stringify's, for
// the numbers a float64 holds, and exact for the rest.
func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "0.000": "0", "1": "1", "1.0": "1", "-1.50": "-1.5",
		"100": "100", "1e2": "100", "1e21": "1e+21", "123e19": "1.23e+21", "1e20": "100000000000000000000",
		"0.000001": "0.000001", "1e-7": "1e-7", "0.0000012": "0.0000012", "12e-8": "1.2e-7",
		"9007199254740993": "9007199254740993", "9007199254740993.0e0": "9007199254740993",
		"1e400": "1e+400", "-2.5E-400": "-2.5e-400", "1e99999999999": "1e99999999999",
	} {
		assert.Equal(t, want, Number(in), in)
	}
}

// FuzzArgumentsDigest: the binding digest is exact. Two JSON numbers bind
// alike exactly when their decimal values are equal (big.Rat, never
// float64), and the canonical spelling reads back as the same float64 as
// the original when one holds it. Any arguments bind alike when only
// white space and key order differ.
func FuzzArgumentsDigest(f *testing.F) {
	for _, s := range [][2]string{{"9007199254740993", "9007199254740992"}, {"1.0", "1"}, {"1e400", "10e399"},
		{"-0", "0"}, {"0.1", "1e-1"}, {"123456789012345678901234567890", "1.23456789012345678901234567890e29"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !isJSONNumber(a) || !isJSONNumber(b) || len(a) > 64 || len(b) > 64 {
			return
		}
		da, err := ArgumentsDigest([]byte(`{"x":` + a + `,"y":[` + b + `]}`))
		require.NoError(t, err)
		db, err := ArgumentsDigest([]byte("{ \"y\" :[" + b + "] ,\n\"x\":" + a + "}"))
		require.NoError(t, err)
		require.Equal(t, da, db, "white space and key order")
		x, _ := ArgumentsDigest([]byte(`{"x":` + a + `}`))
		y, _ := ArgumentsDigest([]byte(`{"x":` + b + `}`))
		ra, oka := new(big.Rat).SetString(a)
		rb, okb := new(big.Rat).SetString(b)
		if oka && okb && smallExponent(a) && smallExponent(b) {
			if equal := ra.Cmp(rb) == 0; equal != (x == y) {
				t.Fatalf("%s and %s: equal values %v, equal digests %v", a, b, equal, x == y)
			}
		}
		c := Number(a)
		require.Equal(t, c, Number(c), "canonical twice")
		if fa, err := strconv.ParseFloat(a, 64); err == nil {
			fc, err := strconv.ParseFloat(c, 64)
			require.NoError(t, err, c)
			require.True(t, fa == fc, "%s became %s", a, c) // -0 is 0
		}
	})
}

// isJSONNumber reports whether s is one JSON number, by encoding/json.
func isJSONNumber(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && strings.TrimSpace(s) == s && s != "" && s[0] != '"'
}

// smallExponent reports whether the number s has an exponent of at most
// four digits, which big.Rat holds without a huge allocation, and
// Number canonicalises.
func smallExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	return i < 0 || len(strings.TrimLeft(s[i+1:], "+-")) <= 4
}
