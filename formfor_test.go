package mcpform

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type plan string

func (plan) Options() []Option {
	return []Option{{Value: "free", Label: "Free"}, {Value: "pro", Label: "Pro, $12 a month"}}
}

// derived has one field of every Go type and tag key FormFor reads.
type derived struct {
	Email    string     `json:"email" mcpform:"type=email,label=Work email,placeholder=you@example.com" jsonschema:"Where receipts go."`
	Name     string     `json:"full_name,omitempty" mcpform:"max=100"`
	Plan     plan       `json:"plan" mcpform:"default=free"`
	Size     string     `json:"size" mcpform:"options=s:Small\\, 2 seats|m|l:Large \\| roomy"`
	Seats    int        `json:"seats" mcpform:"min=2,max=50,default=5"`
	Ratio    float64    `json:"ratio,omitzero"`
	News     bool       `json:"news"`
	Day      time.Time  `json:"day" mcpform:"type=date"`
	At       *time.Time `json:"at"`
	Tags     []plan     `json:"tags,omitempty"`
	Nick     *string    `json:"nick"`
	Skipped  string     `json:"-"`
	internal string     //nolint:unused // unexported: skipped
	NoTag    uint8
}

func TestFormForDerives(t *testing.T) {
	form, err := FormFor[derived](nil)
	require.NoError(t, err)
	want := []AutoFormField{
		{Name: "email", Type: TypeEmail, Label: "Work email", Placeholder: "you@example.com", Description: "Where receipts go.", Required: true},
		{Name: "full_name", Max: Bound(100)},
		{Name: "plan", Required: true, Default: "free", Options: plan("").Options()},
		{Name: "size", Required: true, Options: []Option{{Value: "s", Label: "Small, 2 seats"}, {Value: "m"}, {Value: "l", Label: "Large | roomy"}}},
		{Name: "seats", Type: TypeInteger, Required: true, Min: Bound(2), Max: Bound(50), Default: int64(5)},
		{Name: "ratio", Type: TypeNumber, Min: Bound(-1.7976931348623157e308), Max: Bound(1.7976931348623157e308)},
		{Name: "news", Type: TypeCheckbox, Required: true},
		{Name: "day", Type: TypeDate, Required: true},
		{Name: "at", Type: TypeDatetime},
		{Name: "tags", Multiple: true, Options: plan("").Options()},
		{Name: "nick"},
		{Name: "NoTag", Type: TypeInteger, Required: true, Min: Bound(0), Max: Bound(255)},
	}
	assert.Equal(t, want, form.Fields())
}

func TestFormForRefuses(t *testing.T) {
	for _, tt := range []struct {
		name   string
		derive func() error
		field  string
		target error
	}{
		{"a struct", func() error {
			_, err := FormFor[struct{ S struct{ A int } }](nil)
			return err
		}, "S", ErrType},
		{"a map", func() error {
			_, err := FormFor[struct{ M map[string]string }](nil)
			return err
		}, "M", ErrType},
		{"a slice of ints", func() error {
			_, err := FormFor[struct{ L []int }](nil)
			return err
		}, "L", ErrType},
		{"an interface", func() error {
			_, err := FormFor[struct{ I any }](nil)
			return err
		}, "I", ErrType},
		{"no key=value", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"label"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"unknown key", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"colour=red"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"min not a number", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"min=two"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"default not an integer", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"default=1.5"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"type on an int", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"type=email"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"a time as email", func() error {
			_, err := FormFor[struct {
				A time.Time `mcpform:"type=email"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"a multiple choice without options", func() error {
			_, err := FormFor[struct{ A []string }](nil)
			return err
		}, "A", ErrTag},
		{"a trailing backslash", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"label=x\\"`
			}](nil)
			return err
		}, "A", ErrTag},
		{"a default outside the bounds", func() error {
			_, err := FormFor[struct {
				A int `json:"a" mcpform:"max=3,default=5"`
			}](nil)
			return err
		}, "a", ErrDefault},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.derive()
			require.ErrorIs(t, err, tt.target)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.field, fe.Field)
		})
	}
}
