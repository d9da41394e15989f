package mcpform

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// joined is a view's structuredContent with args spliced in, as go-sdk
// encodes it.
func joined(t *testing.T, v *builtView, args string) []byte {
	t.Helper()
	b, err := (&viewContent{v, []byte(args)}).MarshalJSON()
	require.NoError(t, err)
	return b
}

// TestViewTemplateIsTheView: a view filled from its step's template is,
// byte for byte and in what the model reads, the view built from nodes,
// for every kind of field, problem and kept value, in two languages.
func TestViewTemplateIsTheView(t *testing.T) {
	fields := []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true, Description: "We write <only> once & again"},
		{Name: "name", Min: Bound(2), Max: Bound(40), Default: "Ada"},
		{Name: "seats", Type: TypeInteger, Min: Bound(1), Required: true},
		{Name: "ratio", Type: TypeRange, Min: Bound(0), Max: Bound(1), Default: 0.5},
		{Name: "plan", Options: []Option{{Value: "pro"}, {Value: "team", Label: "Team"}}, Required: true},
		{Name: "tags", Options: []Option{{Value: "a"}, {Value: "b"}}, Multiple: true, Max: Bound(1)},
		{Name: "news", Type: TypeCheckbox, Default: true},
		{Name: "mcpformResult"},
	}
	form, err := NewForm[map[string]any](fields, &FormOptions{Key: "k", Message: "Tell us \"who\""})
	require.NoError(t, err)
	base := form.compiledForm()
	invalid := func(name, why string) *FieldError {
		return &FieldError{Field: name, Err: fmt.Errorf("%w: %s", ErrInvalidValue, why)}
	}
	cases := []struct {
		name     string
		filled   Answers
		problems []*FieldError
	}{
		{"plain", nil, nil},
		{"kept values", Answers{"plan": "team", "news": false, "ratio": 1.0, "tags": []any{"a"}, "nope": 1}, nil},
		{"problems", nil, []*FieldError{invalid("email", "not a valid email address"), {Field: "seats", Err: ErrMissing},
			{Field: "zzz", Err: ErrUnknownField}, {Field: "", Err: errors.New("the room is <taken>")}}},
		{"both", Answers{"name": "A\u2028B", "seats": 0.0}, []*FieldError{invalid("seats", "less than the minimum 1"),
			invalid("seats", "not an integer"), invalid("tags", "more than 1 choices")}},
		{"a kept value of null", Answers{"name": nil}, []*FieldError{{Field: "name", Err: ErrMissing}}},
	}
	for _, l := range []lang{langEN, langFR} {
		c := base.in(l)
		for _, pos := range []stepPos{{n: 1, total: 1, last: true}, {n: 2, total: 3, submit: "Go"}} {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/%d/%s", langCodes[l], pos.n, tc.name), func(t *testing.T) {
					tp, err := c.viewTemplate("tool", pos, viewTexts[l])
					require.NoError(t, err)
					got, err := tp.fill(c, "tool", pos, tc.filled, tc.problems, viewTexts[l])
					require.NoError(t, err)
					want, err := c.viewOf("tool", pos, tc.filled, tc.problems, nil, viewTexts[l])
					require.NoError(t, err)
					args := `{"mcpform":"s1.token"}`
					assert.Equal(t, string(joined(t, want, args)), string(joined(t, got, args)))
					assert.Equal(t, want.text, got.text)
					assert.Equal(t, string(want.withSlots()), string(got.withSlots()), "the arguments' places")
				})
			}
		}
	}
}

// TestViewTemplateKeptByPlace: the plain view and its template are kept
// for one tool and place; a view for another is built for it, not taken
// from the one kept.
func TestViewTemplateKeptByPlace(t *testing.T) {
	form, err := NewForm[map[string]any]([]AutoFormField{{Name: "a", Required: true}}, &FormOptions{Key: "k", Message: "M"})
	require.NoError(t, err)
	c := form.compiledForm()
	one, two := stepPos{n: 1, total: 2}, stepPos{n: 2, total: 2, last: true}
	problems := []*FieldError{{Field: "a", Err: ErrMissing}}
	for _, at := range []struct {
		tool string
		pos  stepPos
	}{{"t", one}, {"t", two}, {"u", two}, {"t", one}} {
		got, err := c.view(at.tool, at.pos, nil, problems, nil)
		require.NoError(t, err)
		want, err := c.viewOf(at.tool, at.pos, nil, problems, nil, viewEnglish)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(joined(t, want, `{}`), joined(t, got, `{}`)), "%s at %d", at.tool, at.pos.n)
		plain := c.plainView.Load()
		assert.Equal(t, at.tool, plain.tool)
		assert.Equal(t, at.pos, plain.pos)
	}
}
