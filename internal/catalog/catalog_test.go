package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCatalogsComplete holds every catalog to every text, with the
// placeholders of English, no more and no fewer.
func TestCatalogsComplete(t *testing.T) {
	for l := range NumLangs {
		c := texts[l]
		t.Run(l.Code(), func(t *testing.T) {
			for k := range NumMsgs {
				s := c[k]
				// ProblemSep may be a space, or nothing where a
				// sentence's own stop is space enough (Japanese).
				if k != ProblemSep && !assert.NotEmpty(t, strings.TrimSpace(s), "msg %d is missing or empty", k) {
					continue
				}
				want, got := placeholders(catalogEN[k]), placeholders(s)
				slices.Sort(want)
				slices.Sort(got)
				assert.Equal(t, want, got, "msg %d: %q", k, s)
			}
			if l != English {
				same := 0
				for k := range NumMsgs {
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

// placeholders returns the names of the placeholders in s, in order, as
// Fill reads them.
func placeholders(s string) []string {
	var names []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(s[i+1:], '}')
		if j < 0 {
			return names
		}
		names = append(names, s[i+1:i+1+j])
		s = s[i+2+j:]
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
		l    Lang
		k    Msg
		args []string
		want string
	}{
		{"english", English, LessThanMin, []string{"min", "5"}, "less than the minimum 5"},
		{"spanish", Spanish, LessThanMin, []string{"min", "5"}, "es menor que el mínimo de 5"},
		{"japanese, placeholder first", Japanese, Shorter, []string{"min", "8"}, "8 文字未満です"},
		{"two placeholders", English, ViewCheck, []string{"reason", "r", "label", "F"}, "Check F: r"},
		{"values are not templates", English, ViewCheck, []string{"label", "{reason}", "reason", "x"}, "Check {reason}: x"},
		{"unnamed placeholder stays", English, ViewCheck, []string{"label", "F"}, "Check F: {reason}"},
		{"no placeholder", French, PageSend, nil, "Envoyer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.Format(tt.k, tt.args...))
		})
	}
}

// TestFill reads odd braces: a '{' without a '}' after it is text, a name
// runs to the first '}', and a placeholder args does not name stays.
func TestFill(t *testing.T) {
	args := []string{"x", "1", "y", "2", "a{b", "3", "", "4"}
	for _, tt := range []struct{ s, want string }{
		{"", ""},
		{"{", "{"},
		{"}", "}"},
		{"{}", "4"},
		{"a{b", "a{b"},
		{"a}b{c}d", "a}b{c}d"},
		{"{a{b}c}", "3c}"},
		{"{x}{y}", "12"},
		{"{{x}}", "{{x}}"},
		{"x{y}z{", "x2z{"},
		{"{x} and {x}", "1 and 1"},
	} {
		assert.Equal(t, tt.want, Fill(tt.s, args...), "%q", tt.s)
	}
	assert.Equal(t, "", Fill("{x}", "x", ""))
	assert.Equal(t, "{x}", Fill("{x}", "x"), "a name without a value is no argument")
}

// TestReason: a Reason's error text is its English, it says itself in
// any language by lookup, and it survives wrapping.
func TestReason(t *testing.T) {
	r := &Reason{Msg: LessThanMin, Args: []string{"min", "5"}}
	assert.Equal(t, "less than the minimum 5", r.Error())
	assert.Equal(t, "es menor que el mínimo de 5", r.In(Spanish))
	sentinel := errors.New("invalid value")
	err := fmt.Errorf("%w: %w", sentinel, r)
	assert.Equal(t, "invalid value: less than the minimum 5", err.Error())
	var got *Reason
	assert.True(t, errors.As(err, &got))
	assert.Same(t, r, got)
	assert.ErrorIs(t, err, sentinel)
	for l := range NumLangs {
		assert.Equal(t, l.Text(NotEmail), (&Reason{Msg: NotEmail}).In(l))
	}
}

func TestLang(t *testing.T) {
	assert.Equal(t, English, Lang(0), "the zero Lang is English")
	for l := range NumLangs {
		assert.Equal(t, l.Code(), l.Tag().String())
		assert.Equal(t, l, Match(l.Code()))
	}
}

// TestFillText: the views' cases, with prefab's: a value is not read
// again for placeholders, and a brace that opens none stays.
func TestFillText(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"Step {step} of {total}", "Step 1 of 2"},
		{"no placeholder", "no placeholder"},
		{"{unknown} stays", "{unknown} stays"},
		// A value is not read again for placeholders.
		{"{label}", "{step}"},
		// A brace that opens no placeholder stays.
		{"{step", "{step"},
		{"} {step}", "} 1"},
		{"{{step}}", "{{step}}"},
	} {
		got := Fill(tt.s, "step", "1", "total", "2", "label", "{step}")
		assert.Equal(t, tt.want, got, tt.s)
	}
}
