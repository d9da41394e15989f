package mcpform

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCatalogsComplete holds every catalog to every text, with the
// placeholders of English, no more and no fewer, and to nothing else.
func TestCatalogsComplete(t *testing.T) {
	require.Len(t, catalogs, int(langCount))
	for l, c := range catalogs {
		t.Run(langCodes[l], func(t *testing.T) {
			for k := range msgCount {
				s, ok := c[k]
				if !assert.True(t, ok, "msg %d is missing", k) {
					continue
				}
				assert.NotEmpty(t, strings.TrimSpace(s), "msg %d is empty", k)
				want, got := placeholders(catalogEN[k]), placeholders(s)
				slices.Sort(want)
				slices.Sort(got)
				assert.Equal(t, want, got, "msg %d: %q", k, s)
			}
			for k := range c {
				assert.Less(t, k, msgCount, "msg %d is no text", k)
			}
			if l != int(langEN) {
				same := 0
				for k := range msgCount {
					if c[k] == catalogEN[k] && strings.ContainsFunc(words(c[k]), func(r rune) bool { return r >= 'a' && r <= 'z' }) {
						same++
					}
				}
				// A few, such as "Error: ", may read the same; most may not.
				assert.Less(t, same, 4, "%d texts are still English", same)
			}
		})
	}
}

// words returns s without its placeholders, whose names are no words a
// person reads.
func words(s string) string {
	for _, p := range placeholders(s) {
		s = strings.ReplaceAll(s, "{"+p+"}", "")
	}
	return s
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		name string
		l    lang
		k    msg
		args []string
		want string
	}{
		{"english", langEN, msgLessThanMin, []string{"min", "5"}, "less than the minimum 5"},
		{"spanish", langES, msgLessThanMin, []string{"min", "5"}, "es menor que el mínimo de 5"},
		{"japanese, placeholder first", langJA, msgShorter, []string{"min", "8"}, "8 文字未満です"},
		{"two placeholders", langEN, msgFieldProblem, []string{"reason", "r", "field", "F"}, "F: r"},
		{"values are not templates", langEN, msgFieldProblem, []string{"field", "{reason}", "reason", "x"}, "{reason}: x"},
		{"unnamed placeholder stays", langEN, msgFieldProblem, []string{"field", "F"}, "F: {reason}"},
		{"no placeholder", langFR, msgPageSend, nil, "Envoyer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.format(tt.k, tt.args...))
		})
	}
}

// TestLocalReason finds every reason checkValue gives, as it words it, in
// every catalog: a reason the lookup missed would reach a person in
// English.
func TestLocalReason(t *testing.T) {
	text := AutoFormField{Name: "t", Min: Bound(2), Max: Bound(3)}
	multi := AutoFormField{Name: "m", Options: []Option{{Value: "a"}, {Value: "b"}}, Multiple: true, Min: Bound(1), Max: Bound(1)}
	num := AutoFormField{Name: "n", Type: TypeInteger, Min: Bound(1), Max: Bound(9)}
	cases := []struct {
		k     msg
		f     AutoFormField
		v     any
		bound string
	}{
		{msgNotBoolean, AutoFormField{Name: "b", Type: TypeBoolean}, "yes", ""},
		{msgNotNumber, num, "1", ""},
		{msgNotInteger, num, 1.5, ""},
		{msgLessThanMin, num, 0.0, "1"},
		{msgGreaterThanMax, num, 10.0, "9"},
		{msgNotString, text, 1.0, ""},
		{msgNotOption, AutoFormField{Name: "e", Options: []Option{{Value: "a"}}}, "z", ""},
		{msgNotList, multi, "a", ""},
		{msgFewerChoices, multi, []any{}, "1"},
		{msgMoreChoices, multi, []any{"a", "b"}, "1"},
		{msgChoiceNotOption, multi, []any{"z"}, ""},
		{msgShorter, text, "a", "2"},
		{msgLonger, text, "abcd", "3"},
		{msgNotEmail, AutoFormField{Name: "e", Type: TypeEmail}, "ada", ""},
		{msgNotURI, AutoFormField{Name: "u", Type: TypeURL}, "nope", ""},
		{msgNotDate, AutoFormField{Name: "d", Type: TypeDate}, "2026-13-01", ""},
		{msgNotDateTime, AutoFormField{Name: "d", Type: TypeDatetime}, "2026-01-01", ""},
		{msgControl, text, "a\x01", ""},
		{msgLineBreak, text, "a\nb", ""},
		{msgBidi, text, "a\u202eb", ""},
		{msgInvisible, text, "a\u200bb", ""},
		{msgJoiner, text, "\u200dab", ""},
	}
	var covered []msg
	for _, c := range cases {
		reason := c.f.checkValue(c.v)
		require.NotEmpty(t, reason, "msg %d", c.k)
		covered = append(covered, c.k)
		for l := range langCount {
			want := l.text(c.k)
			if c.bound != "" {
				want = strings.Replace(want, "{"+placeholders(want)[0]+"}", c.bound, 1)
			}
			assert.Equal(t, want, localReason(l, reason), "%s: %q", langCodes[l], reason)
		}
	}
	assert.ElementsMatch(t, reasonMsgs[:], covered, "every reason has a case")
	assert.Equal(t, "the room is taken", localReason(langES, "the room is taken"), "an author's reason is kept")
}

// TestFormatIsFillText: a text filled from its parts, cut once, reads as
// fillText fills it, in every catalog, for names given, missing, given
// twice and valued like placeholders; and cutText reads odd braces as
// fillText does.
func TestFormatIsFillText(t *testing.T) {
	argSets := [][]string{nil, {"min", "5", "max", "9"}, {"field", "{reason}", "reason", "x", "problems", "a; b"},
		{"text", "T", "text", "U"}, {"fields", "A, B", "url", "https://x.example/?a=1&b={c}", "tool", "t", "decline", "{}"}}
	for l := range langCount {
		for k := range msgCount {
			for _, args := range argSets {
				assert.Equal(t, fillText(l.text(k), args...), l.format(k, args...), "%s msg %d %q", langCodes[l], k, args)
			}
		}
	}
	for _, s := range []string{"", "{", "}", "{}", "a{b", "a}b{c}d", "{a{b}c}", "{x}{y}", "{{x}}", "x{y}z{"} {
		var b strings.Builder
		writeParts(&b, cutText(s), []string{"x", "1", "y", "2", "a{b", "3", "", "4"})
		assert.Equal(t, fillText(s, "x", "1", "y", "2", "a{b", "3", "", "4"), b.String(), "%q", s)
	}
}

// TestProblemMessageInOneString: problemMessage, written in one string,
// says what the texts it is made of say, joined, in every language, and
// so does messageAndProblems after a message.
func TestProblemMessageInOneString(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Label: "Email", Type: TypeEmail}, {Name: "n", Type: TypeInteger, Min: Bound(2)}}
	problems := []*FieldError{
		{Field: "email", Err: fmt.Errorf("%w: not a valid email address", ErrInvalidValue)},
		{Field: "zzz", Err: ErrUnknownField},
		{Field: "n", Err: fmt.Errorf("%w: less than the minimum 2", ErrInvalidValue)},
		{Field: "n", Err: ErrMissing},
		{Field: "other", Err: errors.New("the room is taken")},
	}
	own := func(s string) string { return "«" + s + "»" }
	for l := range langCount {
		for _, ps := range [][]*FieldError{nil, problems[1:2], problems[:1], problems} {
			var parts []string
			var wantNotes []problemNote
			for _, p := range ps {
				if errors.Is(p.Err, ErrUnknownField) {
					continue
				}
				reason := problemReason(l, own, p.Err)
				if i := fieldIndex(fields, p.Field); i >= 0 {
					reason = fillText(l.text(msgFieldProblem), "field", fields[i].title(), "reason", reason)
					wantNotes = append(wantNotes, problemNote{Field: p.Field, Problem: reason})
				} else {
					wantNotes = append(wantNotes, problemNote{Problem: reason})
				}
				parts = append(parts, reason)
			}
			want := ""
			if len(parts) > 0 {
				want = fillText(l.text(msgPleaseCheck), "problems", strings.Join(parts, l.text(msgProblemSep)))
			}
			assert.Equal(t, want, problemMessage(l, own, fields, ps), "%s %d problems", langCodes[l], len(ps))
			if want != "" {
				want = "\n\n" + want
			}
			var notes []problemNote
			assert.Equal(t, "Asked"+want, messageAndProblems("Asked", l, own, fields, ps, &notes), "%s %d problems after a message", langCodes[l], len(ps))
			assert.Equal(t, wantNotes, notes, "%s %d problems: each note is its part of the message", langCodes[l], len(ps))
		}
	}
}
