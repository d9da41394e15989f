package mcpform

import (
	"testing"
	"time"
)

// TestDaysIn checks the calendar of isDate against time.Date's, over four
// centuries, whose leap-year rules repeat, and around the years' ends.
func TestDaysIn(t *testing.T) {
	for _, y := range []int{0, 1, 4, 100, 1600, 1700, 1900, 2000, 2024, 2026, 2100, 2400, 9999} {
		for m := 1; m <= 12; m++ {
			want := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := daysIn(y, m); got != want {
				t.Errorf("daysIn(%d, %d) = %d, want %d", y, m, got, want)
			}
		}
	}
	for y := 1600; y < 2000; y++ {
		want := time.Date(y, time.March, 0, 0, 0, 0, 0, time.UTC).Day()
		if got := daysIn(y, 2); got != want {
			t.Errorf("daysIn(%d, 2) = %d, want %d", y, got, want)
		}
	}
}

// TestDateTimeDigitsOnly is the regression test for signed fields: RFC
// 3339's fields are DIGITs, but the check once read them with strconv.Atoi,
// so "+1" passed as an hour while the decoding read it as 0. Each is
// refused now, by the one reader both use.
func TestDateTimeDigitsOnly(t *testing.T) {
	for _, s := range []string{
		"2026-08-03T+1:00:00Z",
		"2026-08-03T-0:00:00Z",
		"2026-08-03T01:+0:00Z",
		"2026-08-03T01:00:+0Z",
		"2026-08-03T01:00:00++1:00",
		"2026-08-03T01:00:00+-0:00",
		"2026-08-03T01:00:00+01:+0",
		"2026-08-03T 1:00:00Z",
		"+026-08-03T01:00:00Z",
	} {
		t.Run(s, func(t *testing.T) {
			if isDateTime(s) {
				t.Errorf("isDateTime(%q) = true", s)
			}
			f := AutoFormField{Name: "at", Type: TypeDatetime}
			if got := f.checkValue(s); got == "" {
				t.Errorf("checkValue(%q) kept it", s)
			}
		})
	}
}

// TestDateTimeDecodesAsTimeParse checks that every date-time the check
// accepts decodes to the instant and offset time.Parse gives it. Where
// RFC 3339 allows what time.Parse refuses, the case says how it is read:
// 't' and 'z' as 'T' and 'Z', and a leap second as the next minute's first
// instant.
func TestDateTimeDecodesAsTimeParse(t *testing.T) {
	for _, tt := range []struct{ in, parse string }{
		{"2026-08-03T01:00:00Z", ""},
		{"2026-08-03T01:00:00+01:00", ""},
		{"2026-08-03T01:00:00-23:59", ""},
		{"2026-08-03T01:00:00+00:00", ""},
		{"2026-08-03T01:00:00.5Z", ""},
		{"2026-08-03T01:00:00.123456789+05:30", ""},
		{"2026-08-03T01:00:00.1234567891234-02:00", ""},
		{"0000-02-29T00:00:00-01:00", ""},
		{"9999-12-31T23:59:59+00:01", ""},
		{"2026-08-03t01:00:00z", "2026-08-03T01:00:00Z"},
		{"2026-12-31T23:59:60Z", "2027-01-01T00:00:00Z"},
		{"2026-12-31T22:59:60-01:00", "2026-12-31T23:00:00-01:00"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if !isDateTime(tt.in) {
				t.Fatalf("isDateTime(%q) = false", tt.in)
			}
			ref := tt.parse
			if ref == "" {
				ref = tt.in
			}
			want, err := time.Parse(time.RFC3339, ref)
			if err != nil {
				t.Fatal(err)
			}
			got := parseDateTime(tt.in)
			_, gotOff := got.Zone()
			_, wantOff := want.Zone()
			if !got.Equal(want) || gotOff != wantOff {
				t.Errorf("parseDateTime(%q) = %v, time.Parse(%q) = %v", tt.in, got, ref, want)
			}
		})
	}
}
