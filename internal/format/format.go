// Package format checks the string formats of JSON Schema 2020-12 that
// mcpform's fields use: email, uri, date and date-time.
package format

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The checks implement the semantics of the format assertions of
// github.com/santhosh-tekuri/jsonschema/v6, which the tests use as the
// reference judge, without its per-call cost of a full schema evaluation;
// where they are stricter, mcpform's doc.go lists the differences.

// Email reports whether s is an "email": an unquoted local part of at
// most 64 bytes of atext and single dots (or a quoted one of RFC 5321's
// qtextSMTP), an '@', and a hostname or a bracketed IP literal; at most
// 254 bytes in all.
//
// RFC 5321 also allows quoted pairs in a quoted local part, but the
// reference judge refuses every backslash there, and a value is never kept
// that the advertised schema's validator would refuse; the reference
// allows any other byte, controls included, and mcpform does not: doc.go
// lists the difference.
func Email(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		for i := 1; i < len(local)-1; i++ {
			if !qtext[local[i]] {
				return false
			}
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return false
		}
		for i := 0; i < len(local); i++ {
			if !atext[local[i]] {
				return false
			}
		}
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(ip)
	}
	return isHostname(domain)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isHostname reports whether s (less one trailing dot) is at most 253 bytes
// of dot-separated labels of 1 to 63 letters, digits and inner hyphens.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for {
		label, rest, more := strings.Cut(s, ".")
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isIPv4 reports whether s is four dot-separated decimals from 0 to 255
// without leading zeros.
func isIPv4(s string) bool {
	for i := range 4 {
		group, rest, more := strings.Cut(s, ".")
		if more != (i < 3) {
			return false
		}
		if len(group) > 1 && group[0] == '0' {
			return false
		}
		n, err := strconv.Atoi(group)
		if err != nil || n < 0 || n > 255 {
			return false
		}
		s = rest
	}
	return true
}

func isIPv6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Zone() == ""
}

// URI reports whether s is a "uri": it parses as an absolute URL, with
// any IPv6 host bracketed and valid.
func URI(s string) bool {
	if isPlainURL(s) {
		return true
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") || !isIPv6(host) {
			return false
		}
	}
	return u.IsAbs()
}

// isPlainURL reports whether s is an absolute URL of the common, plain
// shape that url.Parse always accepts: scheme "://" host [":" port] and
// then only characters that need no escaping and are never rejected. It
// spares the common case url.Parse's allocation; anything else, including
// every string with '%', an IPv6 host or a non-ASCII byte, goes the long
// way.
func isPlainURL(s string) bool {
	// A scheme is a letter, then letters, digits, '+', '-' and '.'.
	i := 0
	for i < len(s) && (isAlnum(s[i]) && (i > 0 || s[i] > '9') || i > 0 && strings.IndexByte("+-.", s[i]) >= 0) {
		i++
	}
	if i == 0 || !strings.HasPrefix(s[i:], "://") {
		return false
	}
	s = s[i+3:]
	i = 0
	for i < len(s) && (isAlnum(s[i]) || s[i] == '-' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && s[i] == ':' {
		i++
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && s[i] != '/' && s[i] != '?' && s[i] != '#' {
		return false
	}
	for ; i < len(s); i++ {
		if !plainURLByte[s[i]] {
			return false
		}
	}
	return true
}

// atext and plainURLByte are byte sets, looked up once per byte of an
// answer: an email's unquoted local part (letters, digits and the atext
// specials, with dots), and the characters isPlainURL lets through.
var atext, plainURLByte = byteSet(".!#$%&'*+-/=?^_`{|}~"), byteSet("-._~!$&'()*+,;=:@/?#")

// qtext is RFC 5321's qtextSMTP: printable ASCII and space, less the
// double quote and the backslash. No control character, CR and LF
// included, and no byte outside ASCII.
var qtext = func() (set [256]bool) {
	for c := ' '; c <= '~'; c++ {
		set[c] = c != '"' && c != '\\'
	}
	return set
}()

// byteSet is the set of ASCII letters and digits and the bytes of extra.
func byteSet(extra string) (set [256]bool) {
	for c := range set {
		set[c] = isAlnum(byte(c)) || strings.IndexByte(extra, byte(c)) >= 0
	}
	return set
}

// Date reports whether s is a "date": an RFC 3339 full-date, YYYY-MM-DD,
// that exists in the proleptic Gregorian calendar.
func Date(s string) bool {
	_, _, _, ok := readDate(s)
	return ok
}

// readDate reads an RFC 3339 full-date: what time.Parse with
// time.DateOnly accepts, without its cost.
func readDate(s string) (y, m, d int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

// daysIn is the number of days of month m of year y in the proleptic
// Gregorian calendar, as time.Date counts them, without its cost.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// digits parses a run of ASCII digits, and nothing else: no sign, no
// space. RFC 3339's fields are DIGITs.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// AllDigits reports whether s is one or more ASCII digits: no sign, no
// space, of any length.
func AllDigits(s string) bool {
	_, ok := digits(s) // its value may overflow; only ok matters here
	return s != "" && ok
}

// DateTime reports whether s is a "date-time": an RFC 3339 date-time.
func DateTime(s string) bool {
	_, ok := readDateTime(s)
	return ok
}

// A dateTime is an RFC 3339 date-time as written, with its offset in
// seconds east of UTC.
type dateTime struct {
	year, month, day, hour, min, sec, nsec, offset int
	zulu                                           bool // 'Z' or 'z', not a numeric offset
}

// readDateTime reads an RFC 3339 date-time: a full date, 't' or 'T', and a
// full time with any number of fraction digits and a 'z'/'Z' or ±hh:mm
// offset; every field is digits. A leap second is allowed only at 23:59
// UTC. It is the one reader of date-times: the check and the decoding
// both use it, so what is accepted is what is decoded.
func readDateTime(s string) (dt dateTime, ok bool) {
	if len(s) < 20 || (s[10] != 't' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return dt, false
	}
	if dt.year, dt.month, dt.day, ok = readDate(s[:10]); !ok {
		return dt, false
	}
	h, ok1 := digits(s[11:13])
	m, ok2 := digits(s[14:16])
	sec, ok3 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return dt, false
	}
	dt.hour, dt.min, dt.sec = h, m, sec
	rest := s[19:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		n := 0
		for n < len(frac) && '0' <= frac[n] && frac[n] <= '9' {
			n++
		}
		if n == 0 {
			return dt, false
		}
		ns, _ := digits(frac[:min(n, 9)]) // beyond 9 digits, truncated
		for range 9 - min(n, 9) {
			ns *= 10
		}
		dt.nsec, rest = ns, frac[n:]
	}
	if dt.zulu = rest == "z" || rest == "Z"; !dt.zulu {
		if len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
			return dt, false
		}
		zh, ok1 := digits(rest[1:3])
		zm, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return dt, false
		}
		dt.offset = (zh*60 + zm) * 60
		if rest[0] == '-' {
			dt.offset = -dt.offset
		}
	}
	// A leap second is 23:59:60 UTC, whatever the offset says.
	if utc := ((h*60+m-dt.offset/60)%1440 + 1440) % 1440; sec == 60 && utc != 23*60+59 {
		return dt, false
	}
	return dt, true
}

// ParseDate returns the date s, which Date accepts, at midnight in loc;
// ok is false when Date refuses s.
func ParseDate(s string, loc *time.Location) (t time.Time, ok bool) {
	y, m, d, ok := readDate(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc), true
}

// ParseDateTime returns the date-time s, which DateTime accepts, with its
// offset, as time.Parse with time.RFC3339 does; ok is false when DateTime
// refuses s. It also takes what time.Parse refuses but RFC 3339 allows: a
// lower-case 't' or 'z', and a leap second, read as the first instant of
// the next minute, which is all a time.Time can hold. Check and decoding
// share readDateTime, so what is accepted is what is decoded.
func ParseDateTime(s string) (t time.Time, ok bool) {
	dt, ok := readDateTime(s)
	if !ok {
		return time.Time{}, false
	}
	loc := time.UTC
	if !dt.zulu {
		loc = time.FixedZone("", dt.offset)
	}
	return time.Date(dt.year, time.Month(dt.month), dt.day, dt.hour, dt.min, dt.sec, dt.nsec, loc), true
}
