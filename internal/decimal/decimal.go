// Package decimal reads a number written in decimal, as JSON and an HTML
// number input write it, and compares such numbers exactly, on their
// digits, never through a float64 that would round them. Its work is
// linear in the length of the text, whatever the exponent: 1e999999999
// costs what 1e9 costs.
package decimal

import "strconv"

// A Dec is a number as written. Its value is 0.D × 10^point, where D are
// its significant digits, the digits of the text from the first to the
// last that is not 0; zero has none, and no sign. The zero Dec is 0.
type Dec struct {
	text        string // the number as written
	neg         bool   // less than zero
	m           string // the mantissa: digits and at most one '.'
	dot         int    // the index of the point in m, or len(m)
	first, last int    // the indexes in m of the first and last significant digits
	point       int64  // the place of the point before the first significant digit
}

// maxExp bounds a written exponent, far beyond any number's length, so
// that arithmetic on it never overflows.
const maxExp = 1 << 40

// Parse reads s, a decimal number: an optional '-', digits with an
// optional fraction, or a fraction alone (".5"), then an optional
// exponent, 'e' or 'E' with an optional sign. That is every JSON number
// and every HTML valid floating-point number; anything else, such as
// "+1", "0x10", "NaN" or "1e", is no number, and Parse reports false.
func Parse(s string) (Dec, bool) {
	d := Dec{text: s}
	rest := s
	if rest != "" && rest[0] == '-' {
		d.neg, rest = true, rest[1:]
	}
	i, dots, digits := 0, 0, 0
	d.dot = -1
	for ; i < len(rest); i++ {
		c := rest[i]
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && dots == 0:
			dots++
			d.dot = i
		default:
			goto mantissaDone
		}
	}
mantissaDone:
	if digits == 0 {
		return Dec{}, false
	}
	d.m = rest[:i]
	if d.dot < 0 {
		d.dot = len(d.m)
	}
	var exp int64
	if i < len(rest) {
		if rest[i] != 'e' && rest[i] != 'E' {
			return Dec{}, false
		}
		e := rest[i+1:]
		eneg := false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			eneg, e = e[0] == '-', e[1:]
		}
		if e == "" {
			return Dec{}, false
		}
		for j := 0; j < len(e); j++ {
			if e[j] < '0' || e[j] > '9' {
				return Dec{}, false
			}
			if exp < maxExp {
				exp = exp*10 + int64(e[j]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	d.first, d.last = -1, -1
	for j := 0; j < len(d.m); j++ {
		if c := d.m[j]; c != '.' && c != '0' {
			if d.first < 0 {
				d.first = j
			}
			d.last = j
		}
	}
	if d.first < 0 { // zero: no digits, no sign
		d.neg = false
		return d, true
	}
	d.point = d.place(d.first) + 1 + exp
	return d, true
}

// place returns the power of ten of the digit at index j of the mantissa,
// before the exponent.
func (d Dec) place(j int) int64 {
	if j < d.dot {
		return int64(d.dot - 1 - j)
	}
	return int64(d.dot - j)
}

// FromFloat returns f, which must be finite, as the shortest decimal that
// reads back as f: the number a JSON encoder writes for it.
func FromFloat(f float64) Dec {
	d, _ := Parse(strconv.FormatFloat(f, 'e', -1, 64))
	return d
}

// String returns the number as it was written.
func (d Dec) String() string {
	if d.text == "" {
		return "0"
	}
	return d.text
}

// IsZero reports whether d is 0 (or -0, which is 0).
func (d Dec) IsZero() bool { return d.first < 0 || d.m == "" }

// Neg reports whether d is less than zero.
func (d Dec) Neg() bool { return d.neg }

// IsInt reports whether d is a whole number: 2.0 and 1e3 are.
func (d Dec) IsInt() bool {
	if d.IsZero() {
		return true
	}
	// The last significant digit's power of ten, after the exponent.
	exp := d.point - 1 - d.place(d.first)
	return d.place(d.last)+exp >= 0
}

// Cmp compares d and e exactly, and returns -1, 0 or +1 as d is less
// than, equal to or greater than e.
func (d Dec) Cmp(e Dec) int {
	switch dz, ez := d.IsZero(), e.IsZero(); {
	case dz && ez:
		return 0
	case dz:
		return sign(!e.neg)
	case ez:
		return sign(d.neg)
	case d.neg != e.neg:
		return sign(d.neg)
	}
	c := d.cmpAbs(e)
	if d.neg {
		return -c
	}
	return c
}

// sign returns -1 when neg, else +1.
func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// cmpAbs compares the magnitudes of d and e, neither of them zero.
func (d Dec) cmpAbs(e Dec) int {
	if d.point != e.point {
		return sign(d.point < e.point)
	}
	i, j := d.first, e.first
	for {
		i, j = d.skipDot(i), e.skipDot(j)
		dEnd, eEnd := i > d.last, j > e.last
		switch {
		case dEnd && eEnd:
			return 0
		case dEnd:
			return -1
		case eEnd:
			return 1
		}
		if a, b := d.m[i], e.m[j]; a != b {
			return sign(a < b)
		}
		i, j = i+1, j+1
	}
}

// skipDot returns i, or the index after it when the point is at i.
func (d Dec) skipDot(i int) int {
	if i < len(d.m) && d.m[i] == '.' {
		return i + 1
	}
	return i
}

// magnitude returns the magnitude of d, a whole number, and whether it
// fits a uint64.
func (d Dec) magnitude() (uint64, bool) {
	if d.IsZero() {
		return 0, true
	}
	if !d.IsInt() || d.point > 20 {
		return 0, false
	}
	var n uint64
	k := int64(0)
	for i := d.first; i <= d.last; i++ {
		c := d.m[i]
		if c == '.' {
			continue
		}
		if n > (1<<64-1)/10 {
			return 0, false
		}
		n *= 10
		if n+uint64(c-'0') < n {
			return 0, false
		}
		n += uint64(c - '0')
		k++
	}
	for ; k < d.point; k++ {
		if n > (1<<64-1)/10 {
			return 0, false
		}
		n *= 10
	}
	return n, true
}

// Int64 returns d and whether it is a whole number an int64 holds.
func (d Dec) Int64() (int64, bool) {
	n, ok := d.magnitude()
	switch {
	case !ok:
		return 0, false
	case d.neg && n <= 1<<63:
		return int64(-n), true // -(1<<63) wraps to itself: MinInt64
	case !d.neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// Uint64 returns d and whether it is a whole number a uint64 holds.
func (d Dec) Uint64() (uint64, bool) {
	n, ok := d.magnitude()
	if !ok || d.neg && n != 0 {
		return 0, false
	}
	return n, true
}

// Float64 returns the float64 nearest to d, and false when d is beyond
// the largest float64, where it would be infinite. A number too small
// for a float64 is 0 (or -0), and false is not reported for it.
func (d Dec) Float64() (float64, bool) {
	if d.IsZero() {
		return 0, true
	}
	// ParseFloat reads every text Parse does, in time linear in its
	// length; its only error here is ErrRange, beyond the largest float64.
	f, err := strconv.ParseFloat(d.text, 64)
	return f, err == nil
}
