package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// TestDaysIn checks the calendar of Date against time.Date's, over four
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
			if DateTime(s) {
				t.Errorf("DateTime(%q) = true", s)
			}
			if _, ok := ParseDateTime(s); ok {
				t.Errorf("ParseDateTime(%q) read it", s)
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
			if !DateTime(tt.in) {
				t.Fatalf("DateTime(%q) = false", tt.in)
			}
			ref := tt.parse
			if ref == "" {
				ref = tt.in
			}
			want, err := time.Parse(time.RFC3339, ref)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := ParseDateTime(tt.in)
			if !ok {
				t.Fatalf("ParseDateTime(%q) refused it", tt.in)
			}
			_, gotOff := got.Zone()
			_, wantOff := want.Zone()
			if !got.Equal(want) || gotOff != wantOff {
				t.Errorf("ParseDateTime(%q) = %v, time.Parse(%q) = %v", tt.in, got, ref, want)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	loc := time.FixedZone("", 3600)
	got, ok := ParseDate("2024-02-29", loc)
	if want := time.Date(2024, time.February, 29, 0, 0, 0, 0, loc); !ok || !got.Equal(want) {
		t.Errorf("ParseDate = %v, %v; want %v", got, ok, want)
	}
	for _, s := range []string{"2026-02-29", "2026-7-28", "+026-07-28", ""} {
		if _, ok := ParseDate(s, time.UTC); ok || Date(s) {
			t.Errorf("%q read as a date", s)
		}
	}
}

// formats are the checks, by the name JSON Schema gives their format.
var formats = map[string]func(string) bool{"email": Email, "uri": URI, "date": Date, "date-time": DateTime}

// referenceFormats compiles, for each format, a schema that asserts it
// with the reference judge.
func referenceFormats(t testing.TB) map[string]*santhosh.Schema {
	t.Helper()
	refs := map[string]*santhosh.Schema{}
	for name := range formats {
		doc, err := santhosh.UnmarshalJSON(strings.NewReader(`{"type":"string","format":"` + name + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		c := santhosh.NewCompiler()
		c.DefaultDraft(santhosh.Draft2020)
		c.AssertFormat()
		if err := c.AddResource("mem:///"+name+".json", doc); err != nil {
			t.Fatal(err)
		}
		if refs[name], err = c.Compile("mem:///" + name + ".json"); err != nil {
			t.Fatal(err)
		}
	}
	return refs
}

// formatSeeds sit on both sides of each format's edges.
var formatSeeds = []string{
	"", "x", "ada@example.com", "ada.lovelace+x@sub.example.co", "a@b", "@example.com", "ada@", "ada@@example.com",
	".ada@example.com", "ada.@example.com", "a..b@example.com", `"quoted here"@example.com`, `"a\"b"@example.com`,
	"ada@[127.0.0.1]", "ada@[IPv6:::1]", "ada@[256.0.0.1]", "ada@[IPv6:zz]", "ada@-example.com", "ada@example-.com",
	"ada@exa_mple.com", "ada@éxample.com", "adé@example.com", strings.Repeat("a", 64) + "@example.com",
	strings.Repeat("a", 65) + "@example.com", "ada@example.com.", "a@[", "a@[]", "ada example@example.com",
	"\"a\r\nBcc: x@evil.test\"@example.com", "\"a\x00b\"@example.com", "\"a b!#~\"@example.com", `""@example.com`,
	"https://example.com", "http://example.com/a?b=c#d", "mailto:ada@example.com", "urn:isbn:0451450523", "example.com",
	"/relative/path", "//example.com", "https://[::1]:8080/", "https://::1/", "https://[zz]/", "http://%zz", "https://exa mple.com",
	"HTTPS://EXAMPLE.COM", "https://example.com/\\path", "a:", "1http://x", "http://a:99999999999999", "http://a:", "http://-a-/",
	"http://a/~!$&'()*+,;=:@/?#x#y", "a+b-c.d://x", "+a://x", "http://a:1:2", "http://a/%41", "http://a/%zz", "http://é.com/",
	"2026-07-28", "2026-02-29", "2024-02-29", "2026-13-01", "2026-7-28", "26-07-28", "2026-07-28 ",
	"2026-07-28T09:30:00Z", "2026-07-28t09:30:00z", "2026-07-28T09:30:00.123+02:00", "2026-07-28T09:30:00", "2026-07-28 09:30:00Z",
	"2026-07-28T24:00:00Z", "2026-07-28T23:59:60Z", "2026-07-28T22:59:60-01:00", "2026-07-28T12:59:60Z", "2026-07-28T09:30:00.Z",
	"2026-07-28T09:30:00+2:00", "2026-07-28T09:30:00+24:00", "2026-07-28T+9:30:00Z", "2026-07-28T09:30:00+01:60",
}

// checkAgainstReference fails when a format accepts s and the reference
// judge refuses it: a value is never kept that the advertised schema's
// validator would refuse. The other way round, mcpform may be stricter,
// as doc.go lists.
func checkAgainstReference(t *testing.T, refs map[string]*santhosh.Schema, s string) {
	if !utf8.ValidString(s) {
		return // JSON would carry another string
	}
	for name, ok := range formats {
		if !ok(s) {
			continue
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := santhosh.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := refs[name].Validate(doc); err != nil {
			t.Errorf("%s accepts %q, the reference refuses it: %v", name, s, err)
		}
	}
}

// TestAgreesWithReference holds every seed to the reference judge.
func TestAgreesWithReference(t *testing.T) {
	refs := referenceFormats(t)
	accepted := 0
	for _, s := range formatSeeds {
		checkAgainstReference(t, refs, s)
		for _, ok := range formats {
			if ok(s) {
				accepted++
			}
		}
	}
	if accepted < 10 {
		t.Errorf("only %d seeds accepted: the test checks little", accepted)
	}
}

// FuzzFormat: no format accepts what the reference judge refuses.
func FuzzFormat(f *testing.F) {
	for _, s := range formatSeeds {
		f.Add(s)
	}
	refs := referenceFormats(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkAgainstReference(t, refs, s)
	})
}

// TestAllDigits: one or more ASCII digits, of any length, and nothing
// else.
func TestAllDigits(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "09": true, "123456789012345678901234567890": true,
		"": false, "-1": false, "+1": false, " 1": false, "1.5": false, "١": false, "1e3": false} {
		if got := AllDigits(s); got != want {
			t.Errorf("AllDigits(%q) = %v, want %v", s, got, want)
		}
	}
}
