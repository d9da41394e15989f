package mcpform

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestViewFix: each problem a view shows says how to fix it, in the words
// of viewText, for what the field asks; an author's own problem is said as
// written.
func TestViewFix(t *testing.T) {
	email := AutoFormField{Name: "email", Label: "Email", Type: TypeEmail, Required: true}
	seats := AutoFormField{Name: "seats", Label: "Seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50)}
	ratio := AutoFormField{Name: "ratio", Type: TypeNumber, Min: Bound(0.5)}
	team := AutoFormField{Name: "team_name", Label: "Team name", Min: Bound(2), Max: Bound(60)}
	plan := AutoFormField{Name: "plan", Label: "Plan", Options: []Option{{Value: "free"}}}
	tags := AutoFormField{Name: "tags", Label: "Tags", Multiple: true, Max: Bound(3), Options: []Option{{Value: "a"}}}
	site := AutoFormField{Name: "site", Label: "Site", Type: TypeURI}
	day := AutoFormField{Name: "day", Label: "Day", Type: TypeDate}
	notes := AutoFormField{Name: "notes", Label: "Notes"}
	password := []AutoFormField{{Name: "password", Label: "New password", Type: TypePassword}}
	invalid := func(rule string) error { return fmt.Errorf("%w: %s", ErrInvalidValue, rule) }
	for _, tt := range []struct {
		name string
		f    *AutoFormField
		err  error
		want string
	}{
		{"a bad email", &email, invalid("not a valid email address"), "Enter an email address like name@example.com"},
		{"an email of the wrong type", &email, invalid("not a string"), "Enter an email address like name@example.com"},
		{"a missing email", &email, ErrMissing, "Enter a value for Email"},
		{"a whole number out of bounds", &seats, invalid("less than the minimum 2"), "Enter a whole number. From 2 to 50"},
		{"a number below its bound", &ratio, invalid("less than the minimum 0.5"), "Enter a number. 0.5 or more"},
		{"a text too short", &team, invalid("shorter than 2 characters"), "Enter 2 to 60 characters"},
		{"a choice not offered", &plan, invalid("not one of the options"), "Choose one of the options for Plan"},
		{"a missing choice", &plan, ErrMissing, "Choose an option for Plan"},
		{"too many choices", &tags, invalid("more than 3 choices"), "Choose up to 3"},
		{"a bad URI", &site, invalid("not a valid absolute URI"), "Enter a web address like https://example.com"},
		{"a bad date", &day, invalid("not a valid date (YYYY-MM-DD)"), "Enter a date like 2026-08-03"},
		{"another rule", &notes, invalid("holds a control character"), "Check Notes: holds a control character"},
		{"a changed question", &notes, fmt.Errorf("%w", ErrChanged), "Check Notes again: the questions changed"},
		{"the page not sent", nil, ErrSecretWaiting, "The page has not been sent yet. Open it, enter your New password, send it, then continue here."},
		{"the page refused", nil, ErrSecretRefused, "The page's link was used in another browser, so it was refused. Open the page again from here."},
		{"the author's own", &notes, errors.New("that room is taken"), "that room is taken"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := ""
			if tt.f != nil {
				name = tt.f.Name
			}
			assert.Equal(t, tt.want, viewEnglish.fix(tt.f, &FieldError{Field: name, Err: tt.err}, password))
		})
	}
}

// TestViewFieldBounds: a field says its bounds under its label, and
// carries them to its control as the attributes a browser enforces.
func TestViewFieldBounds(t *testing.T) {
	for _, tt := range []struct {
		f           AutoFormField
		hint, attrs string
	}{
		{AutoFormField{Name: "seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50)}, "From 2 to 50", " mcpform-attr-min=2 mcpform-attr-max=50"},
		{AutoFormField{Name: "ratio", Type: TypeNumber, Max: Bound(0.25)}, "0.25 or less", " mcpform-attr-max=0.25"},
		{AutoFormField{Name: "name", Max: Bound(100)}, "Up to 100 characters", " mcpform-attr-maxlength=100"},
		{AutoFormField{Name: "code", Min: Bound(4)}, "At least 4 characters", " mcpform-attr-minlength=4"},
		{AutoFormField{Name: "tags", Multiple: true, Min: Bound(1), Max: Bound(2), Options: []Option{{Value: "a"}}}, "Choose 1 to 2", ""},
		// A slider carries its own bounds.
		{AutoFormField{Name: "level", Type: TypeRange, Min: Bound(0), Max: Bound(1)}, "From 0 to 1", ""},
		{AutoFormField{Name: "plain"}, "", ""},
	} {
		t.Run(tt.f.Name, func(t *testing.T) {
			assert.Equal(t, tt.hint, boundsHint(&tt.f, viewEnglish))
			assert.Equal(t, tt.attrs, attrClasses(&tt.f))
		})
	}
}

// TestViewField: a field not required says so in its label, a checkbox
// never does, and its description, bounds and problem follow the control.
func TestViewField(t *testing.T) {
	f := AutoFormField{Name: "seats", Label: "Seats", Type: TypeInteger, Description: "How many.", Min: Bound(2)}
	n, err := viewField(&f, "Enter a whole number", viewEnglish)
	assert.NoError(t, err)
	assert.Equal(t, "Field", n.Type)
	assert.Equal(t, "mcpform-attr-min=2", n.CSSClass)
	var got []string
	for _, c := range n.Children {
		got = append(got, c.Type+": "+c.Label+c.Content)
	}
	assert.Equal(t, []string{"Input: Seats (optional)", "FieldDescription: How many.", "FieldDescription: 2 or more", "FieldError: Enter a whole number"}, got)

	box, err := viewField(&AutoFormField{Name: "news", Label: "News", Type: TypeCheckbox}, "", viewEnglish)
	assert.NoError(t, err)
	assert.Equal(t, "News", box.Children[0].Label)
	assert.Len(t, box.Children, 1)
}
