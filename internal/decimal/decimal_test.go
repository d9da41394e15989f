package decimal

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// rat is the reference: the exact value of a number math/big reads.
func rat(t testing.TB, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", s)
	}
	return r
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		s  string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"42", true}, {"-1.5", true}, {"2e3", true}, {"2E+3", true}, {"2e-3", true},
		{".5", true}, {"5.", true}, {"007", true}, {"1e999999999999999999999", true},
		{"", false}, {"-", false}, {".", false}, {"+1", false}, {"0x10", false}, {"NaN", false}, {"Infinity", false},
		{"1e", false}, {"1e+", false}, {"1.2.3", false}, {" 1", false}, {"1 ", false}, {"1_000", false}, {"e5", false},
	} {
		t.Run(tt.s, func(t *testing.T) {
			if _, ok := Parse(tt.s); ok != tt.ok {
				t.Errorf("Parse(%q) ok = %v, want %v", tt.s, ok, tt.ok)
			}
		})
	}
}

// TestCmpAgainstBigRat holds Cmp and IsInt to math/big on numbers around
// the places where float64 rounds: 2^53, 50, whole numbers written with a
// fraction or an exponent.
func TestCmpAgainstBigRat(t *testing.T) {
	nums := []string{
		"0", "-0", "0.0", "1", "-1", "50", "50.0", "50.0000000000000001", "49.9999999999999999", "5e1", "500e-1", ".5e2",
		"9007199254740991", "9007199254740992", "9007199254740993", "9.007199254740993e15", "9007199254740993.0",
		"1.9999999999999999", "2", "0.1", "0.10", "1e-7", "-1e-7", "123456789012345678901234567890",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "1e400", "-1e400", "1e-400", "007.500", "-.25",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := strconv.FormatInt(rng.Int64N(2000)-1000, 10)
		if rng.IntN(2) == 0 {
			s += "." + strconv.Itoa(rng.IntN(1000))
		}
		if rng.IntN(2) == 0 {
			s += "e" + strconv.Itoa(rng.IntN(10)-5)
		}
		nums = append(nums, s)
	}
	for _, a := range nums {
		da, ok := Parse(a)
		if !ok {
			t.Fatalf("Parse(%q) failed", a)
		}
		if got, want := da.IsInt(), rat(t, a).IsInt(); got != want {
			t.Errorf("%q.IsInt() = %v, want %v", a, got, want)
		}
		for _, b := range nums {
			db, _ := Parse(b)
			if got, want := da.Cmp(db), rat(t, a).Cmp(rat(t, b)); got != want {
				t.Errorf("Cmp(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestIntegers(t *testing.T) {
	for _, tt := range []struct {
		s   string
		i   int64
		iok bool
		u   uint64
		uok bool
	}{
		{"0", 0, true, 0, true},
		{"-0", 0, true, 0, true},
		{"9007199254740993", 9007199254740993, true, 9007199254740993, true},
		{"9.007199254740993e15", 9007199254740993, true, 9007199254740993, true},
		{"9007199254740993.000", 9007199254740993, true, 9007199254740993, true},
		{"9223372036854775807", math.MaxInt64, true, math.MaxInt64, true},
		{"9223372036854775808", 0, false, 1 << 63, true},
		{"-9223372036854775808", math.MinInt64, true, 0, false},
		{"-9223372036854775809", 0, false, 0, false},
		{"18446744073709551615", 0, false, math.MaxUint64, true},
		{"18446744073709551616", 0, false, 0, false},
		{"1e19", 0, false, 1e19, true},
		{"1e20", 0, false, 0, false},
		{"1.5", 0, false, 0, false},
		{"-1", -1, true, 0, false},
		{"1e999999999999", 0, false, 0, false},
	} {
		t.Run(tt.s, func(t *testing.T) {
			d, _ := Parse(tt.s)
			if i, ok := d.Int64(); i != tt.i || ok != tt.iok {
				t.Errorf("Int64() = %d, %v; want %d, %v", i, ok, tt.i, tt.iok)
			}
			if u, ok := d.Uint64(); u != tt.u || ok != tt.uok {
				t.Errorf("Uint64() = %d, %v; want %d, %v", u, ok, tt.u, tt.uok)
			}
		})
	}
}

func TestFromFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 50, 1e11, 9007199254740992, math.MaxFloat64, -math.SmallestNonzeroFloat64} {
		d := FromFloat(f)
		g, ok := d.Float64()
		if !ok || g != f {
			t.Errorf("FromFloat(%v).Float64() = %v, %v", f, g, ok)
		}
	}
	if _, ok := (Dec{}).Float64(); !ok {
		t.Error("the zero Dec is no float64")
	}
	d, _ := Parse("1e400")
	if _, ok := d.Float64(); ok {
		t.Error("1e400 read as a float64")
	}
}

// BenchmarkCmp compares two numbers beyond float64's reach.
func BenchmarkCmp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		x, _ := Parse("9007199254740993")
		y, _ := Parse("9.007199254740992e15")
		if x.Cmp(y) != 1 {
			b.Fatal("wrong order")
		}
	}
}

// FuzzCmp holds Parse, Cmp and IsInt to math/big on any two texts big.Rat
// also reads as decimals, with exponents small enough for it to expand.
func FuzzCmp(f *testing.F) {
	for _, s := range [][2]string{{"50", "50.0000000000000001"}, {"9007199254740993", "9.007199254740992e15"},
		{"-0", "0.0"}, {".5", "5e-1"}, {"1e3", "1000.000"}, {"-1.25", "-125e-2"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		da, okA := Parse(a)
		db, okB := Parse(b)
		if !okA || !okB || len(a) > 64 || len(b) > 64 || strings.ContainsAny(a+b, "eE") && (bigExp(a) || bigExp(b)) {
			return
		}
		ra, okRA := new(big.Rat).SetString(a)
		rb, okRB := new(big.Rat).SetString(b)
		if !okRA || !okRB {
			t.Fatalf("Parse read %q and %q, big.Rat did not", a, b)
		}
		if got, want := da.Cmp(db), ra.Cmp(rb); got != want {
			t.Errorf("Cmp(%q, %q) = %d, want %d", a, b, got, want)
		}
		if got, want := da.IsInt(), ra.IsInt(); got != want {
			t.Errorf("%q.IsInt() = %v, want %v", a, got, want)
		}
	})
}

// bigExp reports whether s has an exponent of more than three digits.
func bigExp(s string) bool {
	i := strings.IndexAny(s, "eE")
	e := strings.TrimLeft(s[i+1:], "+-")
	return len(strings.TrimLeft(e, "0")) > 3
}
