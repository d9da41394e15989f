package mcpform

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
		name    string
		derive  func() error
		field   string // the JSON name the error gives
		goField string // the Go name
		target  error
		msg     string // in the error's text
	}{
		{"a struct", func() error {
			_, err := FormFor[struct{ S struct{ A int } }](nil)
			return err
		}, "S", "S", ErrType, `field "S" (Go field S): invalid type`},
		{"a map", func() error {
			_, err := FormFor[struct{ M map[string]string }](nil)
			return err
		}, "M", "M", ErrType, ""},
		{"a slice of ints", func() error {
			_, err := FormFor[struct{ L []int }](nil)
			return err
		}, "L", "L", ErrType, ""},
		{"an interface", func() error {
			_, err := FormFor[struct{ I any }](nil)
			return err
		}, "I", "I", ErrType, ""},
		{"no key=value", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"label"`
			}](nil)
			return err
		}, "A", "A", ErrTag, `item "label" is not key=value`},
		{"unknown key", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"colour=red"`
			}](nil)
			return err
		}, "A", "A", ErrTag, `"colour": unknown key`},
		{"a key with a space, quoted", func() error {
			_, err := FormFor[struct {
				A int `json:"a" mcpform:"max=5, min=1"`
			}](nil)
			return err
		}, "a", "A", ErrTag, `field "a" (Go field A): invalid struct tag: " min": unknown key`},
		{"min not a number", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"min=two"`
			}](nil)
			return err
		}, "A", "A", ErrTag, `"min": "two" is not a number`},
		{"default not an integer", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"default=1.5"`
			}](nil)
			return err
		}, "A", "A", ErrTag, `"default": "1.5" is not an integer`},
		{"type on an int", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"type=email"`
			}](nil)
			return err
		}, "A", "A", ErrTag, ""},
		{"a time as email", func() error {
			_, err := FormFor[struct {
				A time.Time `mcpform:"type=email"`
			}](nil)
			return err
		}, "A", "A", ErrTag, ""},
		{"a multiple choice without options", func() error {
			_, err := FormFor[struct{ A []string }](nil)
			return err
		}, "A", "A", ErrTag, ""},
		{"a trailing backslash", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"label=x\\"`
			}](nil)
			return err
		}, "A", "A", ErrTag, ""},
		{"an option with two colons", func() error {
			_, err := FormFor[struct {
				Slot string `json:"slot" mcpform:"options=09:00:Morning|14\\:00:Afternoon"`
			}](nil)
			return err
		}, "slot", "Slot", ErrTag, `option "09:00:Morning" has two unescaped colons`},
		{"a time with am", func() error {
			_, err := FormFor[struct {
				Slot string `json:"slot" mcpform:"options=9:30am|2:15pm"`
			}](nil)
			return err
		}, "slot", "Slot", ErrTag, `option "9:30am" reads as value "9" with label "30am": if it is a time, write its colon as \:`},
		{"a time with a space and PM", func() error {
			_, err := FormFor[struct {
				Slot string `json:"slot" mcpform:"options=noon|2:15 PM"`
			}](nil)
			return err
		}, "slot", "Slot", ErrTag, `option "2:15 PM" reads as value "2" with label "15 PM": if it is a time`},
		{"a URL", func() error {
			_, err := FormFor[struct {
				Site string `json:"site" mcpform:"options=https://a.example"`
			}](nil)
			return err
		}, "site", "Site", ErrTag, `option "https://a.example" reads as value "https" with label "//a.example": if it is a URL, write its colon as \:`},
		{"bidi on an int", func() error {
			_, err := FormFor[struct {
				A int `mcpform:"bidi=true"`
			}](nil)
			return err
		}, "A", "A", ErrTag, `"bidi": only a string takes bidi`},
		{"bidi not a boolean", func() error {
			_, err := FormFor[struct {
				A string `mcpform:"bidi=yes please"`
			}](nil)
			return err
		}, "A", "A", ErrTag, `"yes please" is not true or false`},
		{"a default outside the bounds", func() error {
			_, err := FormFor[struct {
				A int `json:"a" mcpform:"max=3,default=5"`
			}](nil)
			return err
		}, "a", "A", ErrDefault, `field "a" (Go field A): invalid default`},
		{"a duplicate option", func() error {
			_, err := FormFor[struct {
				Size string `json:"size" mcpform:"options=s|s"`
			}](nil)
			return err
		}, "size", "Size", ErrOptions, `field "size" (Go field Size)`},
		{"a default the format refuses", func() error {
			_, err := FormFor[struct {
				Mail string `json:"mail" mcpform:"type=email,default=x"`
			}](nil)
			return err
		}, "mail", "Mail", ErrDefault, `field "mail" (Go field Mail): invalid default: not a valid email address`},
		{"a bound the Go type cannot hold", func() error {
			_, err := FormFor[struct {
				Level int8 `json:"level" mcpform:"max=1000"`
			}](nil)
			return err
		}, "level", "Level", ErrBounds, `field "level" (Go field Level): invalid bounds: bound 1000 does not fit int8`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.derive()
			require.ErrorIs(t, err, tt.target)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.goField, fe.GoField)
			assert.ErrorContains(t, err, tt.msg)
		})
	}
}

// TestFormForRefusesBadStructTags covers tags that reflect.StructTag
// cannot parse, which go vet refuses in source: the types are built with
// reflect.StructOf, and go through deriveFields, FormFor's first step. The
// JSON name is unknown, so the error names the Go field only.
func TestFormForRefusesBadStructTags(t *testing.T) {
	for _, tt := range []struct {
		name, tag, msg string
	}{
		{"an mcpform value with a bad escape", `json:"size" mcpform:"options=s:Small\, 2 seats|l:Large"`,
			`Go field Size: invalid struct tag: key "mcpform": the value "options=s:Small\, 2 seats|l:Large" is not a Go string literal`},
		{"a json value with no closing quote", `json:"size`, `key "json": the value has no closing quote`},
		{"pairs not separated by spaces", `json:"size",mcpform:"label=Size"`, `pairs not separated by spaces at ",mcpform:\"label=Size\""`},
		{"a key with no value", `json:"size" mcpform`, `bad syntax for a key:"value" pair at "mcpform"`},
		{"a key with an unquoted value", `json:size`, `bad syntax`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			typ := reflect.StructOf([]reflect.StructField{
				{Name: "Name", Type: reflect.TypeFor[string](), Tag: `json:"name"`},
				{Name: "Size", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tt.tag)},
			})
			_, err := deriveFields(typ)
			require.ErrorIs(t, err, ErrTag)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "Size", fe.GoField)
			assert.Empty(t, fe.Field)
			assert.ErrorContains(t, err, tt.msg)
		})
	}
	// Inside an embedded struct too, whose fields FormFor asks.
	inner := reflect.StructOf([]reflect.StructField{{Name: "Size", Type: reflect.TypeFor[string](), Tag: `json:"size`}})
	outer := reflect.StructOf([]reflect.StructField{{Name: "Inner", Type: inner, Anonymous: true}})
	_, err := deriveFields(outer)
	assert.ErrorIs(t, err, ErrTag, "embedded")
}

// TestFormForRefusesUnexportedTaggedField: an mcpform tag on an
// unexported field, which encoding/json skips, is refused rather than
// silently never asked (issue 32, finding 13). An unexported field
// without the tag is still skipped, as encoding/json skips it.
func TestFormForRefusesUnexportedTaggedField(t *testing.T) {
	type tagged struct {
		Email string `json:"email"`
		plan  string `mcpform:"label=Plan"`
	}
	_, err := FormFor[tagged](nil)
	require.ErrorIs(t, err, ErrTag)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "plan", fe.GoField)
	assert.ErrorContains(t, err, "export it, or remove its mcpform tag")

	type untagged struct {
		Email string `json:"email"`
		note  string
	}
	form, err := FormFor[untagged](nil)
	require.NoError(t, err)
	fields := form.Fields()
	require.Len(t, fields, 1)
	assert.Equal(t, "email", fields[0].Name)
	_, _ = tagged{}.plan, untagged{}.note
}

// docTags is the two tags FormFor's doc shows for its escape rule, written
// here in source so that go vet checks them, and read back from the doc by
// TestFormForDocTags.
type docTags struct {
	Size string `mcpform:"options=s:Small\\, 2 seats|l:Large"`
	Slot string `mcpform:"options=09\\:00:Morning|14\\:00:Afternoon"`
}

// TestFormForDocTags checks that FormFor's doc shows tags that parse, the
// ones of docTags, and that they mean what the doc says.
func TestFormForDocTags(t *testing.T) {
	doc, err := os.ReadFile("formfor.go")
	require.NoError(t, err)
	src, err := os.ReadFile("formfor_test.go")
	require.NoError(t, err)
	for _, line := range []string{
		"Size string `mcpform:\"options=s:Small\\\\, 2 seats|l:Large\"`",
		"Slot string `mcpform:\"options=09\\\\:00:Morning|14\\\\:00:Afternoon\"`",
	} {
		assert.Contains(t, string(doc), "//\t"+line, "FormFor's doc")
		assert.Contains(t, string(src), "\t"+line, "docTags")
	}
	form, err := FormFor[docTags](nil)
	require.NoError(t, err)
	assert.Equal(t, []Option{{Value: "s", Label: "Small, 2 seats"}, {Value: "l", Label: "Large"}}, form.Fields()[0].Options)
	assert.Equal(t, []Option{{Value: "09:00", Label: "Morning"}, {Value: "14:00", Label: "Afternoon"}}, form.Fields()[1].Options)
}

// TestFormForBidi checks the bidi key: it sets AllowBidi, and the
// answers it lets through.
func TestFormForBidi(t *testing.T) {
	form, err := FormFor[struct {
		Name  string `json:"name" mcpform:"bidi=true"`
		Email string `json:"email"`
	}](nil)
	require.NoError(t, err)
	assert.True(t, form.Fields()[0].AllowBidi)
	assert.False(t, form.Fields()[1].AllowBidi)
	r := form.Read(answer(DefaultInputKey, "accept", map[string]any{"name": "\u2067שלום\u2069", "email": "\u202e"}))
	assert.Equal(t, ReplyInvalid, r.Status)
	if assert.Len(t, r.Problems, 1) {
		assert.Equal(t, "email", r.Problems[0].Field)
	}
	assert.Equal(t, "\u2067שלום\u2069", r.Answers["name"])
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

// TestAuthorMistakes (issue 22, finding 10): the mistakes a careless
// author makes fail when the form or flow is compiled, naming the field
// and the fix, instead of asking something else.
func TestAuthorMistakes(t *testing.T) {
	type typo struct {
		When string `json:"when" mcpform:"type=dat"`
	}
	type misspelt struct {
		Plan string `json:"plan" mcpfrom:"options=free|pro"`
	}
	type misspelt2 struct {
		Plan string `json:"plan" mcpfom:"label=Plan"`
	}
	type misspelt3 struct {
		Plan string `json:"plan" mcpform2:"label=Plan"`
	}
	type times struct {
		Slot string `json:"slot" mcpform:"options=09:00|13:00"`
	}
	for _, tt := range []struct {
		name     string
		formFor  func() error
		sentinel error
		goField  string
		fix      string
	}{
		{"type=dat", func() error { _, err := FormFor[typo](nil); return err }, ErrType, "When", `did you mean "date"?`},
		{"mcpfrom:", func() error { _, err := FormFor[misspelt](nil); return err }, ErrTag, "Plan", `write mcpform:`},
		{"mcpfom:", func() error { _, err := FormFor[misspelt2](nil); return err }, ErrTag, "Plan", `write mcpform:`},
		{"mcpform2:", func() error { _, err := FormFor[misspelt3](nil); return err }, ErrTag, "Plan", `write mcpform:`},
		{"options=09:00|13:00", func() error { _, err := FormFor[times](nil); return err }, ErrTag, "Slot", `write its colon as \:`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.formFor()
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.sentinel)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.goField, fe.GoField)
			assert.Contains(t, err.Error(), tt.fix)
		})
	}
	t.Run("AutoFormField type", func(t *testing.T) {
		_, err := NewForm[Answers]([]AutoFormField{{Name: "when", Type: "dat"}}, nil)
		assert.ErrorIs(t, err, ErrType)
		assert.ErrorContains(t, err, `field "when"`)
		assert.ErrorContains(t, err, `did you mean "date"?`)
		err = checkFields([]AutoFormField{{Name: "x", Type: "selct"}})
		assert.ErrorIs(t, err, ErrType)
		assert.ErrorContains(t, err, `did you mean "select"?`)
	})
	t.Run("escaped colons and far keys pass", func(t *testing.T) {
		type fine struct {
			Slot string `json:"slot" mcpform:"options=09\\:00|13\\:00:Afternoon|1:One" form:"x" mcp:"y"`
			Hue  string `json:"hue" mcpform:"type=color"`
		}
		form, err := FormFor[fine](nil)
		require.NoError(t, err)
		assert.Equal(t, []Option{{Value: "09:00"}, {Value: "13:00", Label: "Afternoon"}, {Value: "1", Label: "One"}}, form.Fields()[0].Options)
	})
	t.Run("ignored FormFor error", func(t *testing.T) {
		form, _ := FormFor[typo](nil) // a nil *Form[typo]
		codec, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
		require.NoError(t, err)
		var flow *Flow
		require.NotPanics(t, func() {
			flow, err = NewFlow(codec, []Step{{Form: form}}, &FlowOptions{Principal: tokenUser})
		})
		assert.Nil(t, flow)
		assert.ErrorContains(t, err, "flow step 0 has a nil Form")
	})
}

// TestStructFieldsLikeJSON: names are resolved as encoding/json resolves
// them, shallow over deep and tagged over untagged, ties hiding both.
func TestStructFieldsLikeJSON(t *testing.T) {
	type deep struct {
		A string
		B string `json:"b"`
		C string
	}
	type other struct {
		C string
	}
	type outer struct {
		deep
		*other
		A string
		B string
		T deep `json:"t"`
	}
	got := structFields(reflect.TypeFor[outer]())
	want := map[string][]int{"A": {2}, "b": {0, 1}, "B": {3}, "t": {4}}
	gotIdx := map[string][]int{}
	for n, sf := range got.exact {
		gotIdx[n] = sf.Index
	}
	assert.Equal(t, want, gotIdx)
	// The same answer, decoded by encoding/json, fills the same fields.
	a := Answers{"A": "a", "b": "b", "B": "B2", "C": "c", "t": map[string]any{"A": "ta"}}
	var mine, theirs outer
	require.NoError(t, a.Decode(&mine))
	require.NoError(t, decodeJSON(map[string]any(a), &theirs))
	assert.Equal(t, theirs, mine)
}

// TestFormForOptionColons: an escaped colon keeps a time or a URL whole,
// and a value and label whose colon is neither's still split.
func TestFormForOptionColons(t *testing.T) {
	form, err := FormFor[struct {
		Slot string `json:"slot" mcpform:"options=9\\:30am|2\\:15 pm|https\\://a.example|10:10 seats|s:Small"`
	}](nil)
	require.NoError(t, err)
	assert.Equal(t, []Option{{Value: "9:30am"}, {Value: "2:15 pm"}, {Value: "https://a.example"},
		{Value: "10", Label: "10 seats"}, {Value: "s", Label: "Small"}}, form.Fields()[0].Options)
}
