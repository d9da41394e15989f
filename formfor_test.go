package mcpform

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
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

// The structs below are the sources of the derived goldens in
// testdata/forms/derived: together they hold every Go type and every tag
// key FormFor reads, and the json naming rules it follows.

type seats int

type goldenTypes struct {
	Text    string     `json:"text"`
	Enum    plan       `json:"enum"`
	Check   bool       `json:"check"`
	Int     int        `json:"int"`
	Int8    int8       `json:"int8"`
	Int16   int16      `json:"int16"`
	Int32   int32      `json:"int32"`
	Int64   int64      `json:"int64"`
	Uint    uint       `json:"uint"`
	Uint8   uint8      `json:"uint8"`
	Uint16  uint16     `json:"uint16"`
	Uint32  uint32     `json:"uint32"`
	Uint64  uint64     `json:"uint64"`
	Uintptr uintptr    `json:"uintptr"`
	Named   seats      `json:"named"`
	Float32 float32    `json:"float32"`
	Float64 float64    `json:"float64"`
	Multi   []plan     `json:"multi"`
	Strings []string   `json:"strings" mcpform:"options=a|b"`
	When    time.Time  `json:"when"`
	Day     time.Time  `json:"day" mcpform:"type=date"`
	OptText *string    `json:"opt_text"`
	OptInt  *int       `json:"opt_int"`
	OptBool *bool      `json:"opt_bool"`
	OptWhen *time.Time `json:"opt_when"`
	OptEnum *plan      `json:"opt_enum"`
}

type goldenTags struct {
	Email     string   `json:"email" mcpform:"type=email,label=Work email,placeholder=you@example.com" jsonschema:"Where receipts go."`
	Site      string   `json:"site,omitempty" mcpform:"type=url"`
	Secret    string   `json:"secret" mcpform:"type=password,min=12"`
	Bio       string   `json:"bio,omitzero" mcpform:"type=textarea,max=500"`
	Phone     string   `json:"phone,omitempty" mcpform:"type=tel"`
	Local     string   `json:"local,omitempty" mcpform:"type=datetime-local"`
	Size      string   `json:"size" mcpform:"options=s:Small\\, 2 seats|m|l:Large \\| roomy|x\\:y:With a \\: colon,default=m"`
	Plan      plan     `json:"plan" mcpform:"default=pro,label=Your plan"`
	Override  plan     `json:"override" mcpform:"options=team:Team"`
	Seats     int      `json:"seats" mcpform:"min=1,max=50,default=5"`
	Ratio     float64  `json:"ratio" mcpform:"min=0,max=1,default=0.5"`
	News      bool     `json:"news" mcpform:"default=true,label=Send me news"`
	Tags      []plan   `json:"tags" mcpform:"min=1,max=2,default=free|pro"`
	Backslash string   `json:"backslash,omitempty" mcpform:"label=a \\\\ b"`
	Empty     string   `json:"empty,omitempty" mcpform:""`
	Trailing  *string  `json:"trailing" mcpform:"label=Trailing comma,"`
	Skipped   string   `json:"-"`
	Dash      string   `json:"-,"`
	Described *float64 `json:"described" jsonschema:"A number, described."`
}

type goldenSignup struct {
	Email      string    `json:"email" mcpform:"type=email,label=Email,placeholder=ada@example.com" jsonschema:"We send the receipt here."`
	FullName   string    `json:"full_name" mcpform:"max=80"`
	Plan       string    `json:"plan" mcpform:"label=Plan,options=free:Free|pro:Pro|team:Team,default=pro"`
	Seats      *int      `json:"seats" mcpform:"label=Seats,min=1,max=50,default=1"`
	Website    string    `json:"website,omitempty" mcpform:"type=url"`
	Start      time.Time `json:"start,omitzero" mcpform:"label=Start date,type=date"`
	Interests  []string  `json:"interests,omitempty" mcpform:"max=3,options=ai:AI|web:Web|infra:Infrastructure"`
	Newsletter bool      `json:"newsletter,omitempty" mcpform:"label=Send me the newsletter"`
}

type GoldenAddress struct {
	City    string  `json:"city"`
	Country string  `json:"country,omitempty"` // hidden by goldenEmbedded.Country
	Fax     *string // ties with goldenContact's: both hidden
}

type goldenContact struct {
	Fax    *string
	Mobile string `json:"mobile,omitempty" mcpform:"type=tel"`
}

// goldenEmbedded follows encoding/json's naming: embedded structs lend
// their fields; the shallowest name wins; a tie at one depth hides both; a
// struct-typed field would be one field (refused: here it is skipped with
// "-"). A field promoted through an embedded pointer is refused by NewForm.
type goldenEmbedded struct {
	GoldenAddress
	goldenContact
	Name     string        `json:"name"`
	Country  string        `json:"country" mcpform:"label=Country of residence"`
	Nested   GoldenAddress `json:"-"`
	Untagged string
}

// derivedGoldens names the structs of testdata/forms/derived.
var derivedGoldens = map[string]func() ([]AutoFormField, []byte, error){
	"types":    goldenOf[goldenTypes],
	"tags":     goldenOf[goldenTags],
	"signup":   goldenOf[goldenSignup],
	"embedded": goldenOf[goldenEmbedded],
}

// goldenOf derives T's form and returns its fields and the schema as the
// client receives it, in field order.
func goldenOf[T any]() ([]AutoFormField, []byte, error) {
	form, err := FormFor[T](nil)
	if err != nil {
		return nil, nil, err
	}
	var schema bytes.Buffer
	err = json.Indent(&schema, form.c.schema, "", "  ")
	schema.WriteByte('\n')
	return form.Fields(), schema.Bytes(), err
}

// TestFormForGolden compares the fields and schema FormFor derives from
// each struct of derivedGoldens with testdata/forms/derived/NAME.*.golden;
// go test -update rewrites them. A golden without its struct fails, so the
// folder and the table cannot drift apart.
func TestFormForGolden(t *testing.T) {
	dir := filepath.Join("testdata", "forms", "derived")
	for name, derive := range derivedGoldens {
		t.Run(name, func(t *testing.T) {
			fields, schema, err := derive()
			require.NoError(t, err)
			checkGolden(t, filepath.Join(dir, name+".fields.golden"), marshalIndent(t, fields))
			checkGolden(t, filepath.Join(dir, name+".schema.golden"), schema)
		})
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no derived goldens in %s", dir)
	for _, p := range paths {
		name, _, _ := strings.Cut(filepath.Base(p), ".")
		assert.Contains(t, derivedGoldens, name, "%s has no struct in derivedGoldens", p)
	}
}

// TestFormForSignupMatchesList: the struct written to mirror
// testdata/forms/signup.json asks the client exactly what the list does.
func TestFormForSignupMatchesList(t *testing.T) {
	derived, err := FormFor[goldenSignup](nil)
	require.NoError(t, err)
	listed, err := NewForm[Answers](loadForms(t)["signup"], nil)
	require.NoError(t, err)
	assert.Equal(t, string(listed.c.schema), string(derived.c.schema), "byte for byte, in field order")
}
