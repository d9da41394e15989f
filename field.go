package mcpform

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/decimal"
	"github.com/mcpform/mcpform/internal/format"
)

// A FieldType names the kind of input a field asks for. It is a string so
// that field lists written as JSON for the TypeScript helpers unmarshal
// unchanged. The empty type is text. Besides the types listed below, the
// HTML input types search, color, time, month and week, which prefab's
// renderer passes to the browser, are asked for as plain text. Any other
// value is refused when the form is compiled, with a [*FieldError]
// wrapping [ErrType] that suggests the nearest type, so that a typo such
// as "dat" does not silently ask for plain text.
type FieldType string

// The field types. [TypeText], [TypePassword], [TypeTel] and
// [TypeTextarea] are asked for as a plain string; a password is asked on
// the secret page, and a textarea takes line breaks.
const (
	TypeText          FieldType = "text"
	TypePassword      FieldType = "password"
	TypeTel           FieldType = "tel"
	TypeTextarea      FieldType = "textarea"
	TypeEmail         FieldType = "email"
	TypeURL           FieldType = "url"
	TypeURI           FieldType = "uri"
	TypeDate          FieldType = "date"
	TypeDatetime      FieldType = "datetime"
	TypeDatetimeLocal FieldType = "datetime-local"
	TypeNumber        FieldType = "number"
	TypeRange         FieldType = "range"
	TypeInteger       FieldType = "integer"
	TypeCheckbox      FieldType = "checkbox"
	TypeBoolean       FieldType = "boolean"
)

// An Option is one choice offered by a field with options. Value is what the
// answer carries; Label is what a person sees, and an empty Label shows the
// Value.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
}

// An AutoFormField describes one input of a form. A list of them is the
// single source for the elicitation schema ([FormSchema]), the check of the
// answer ([AcceptedFormInput]) and the rendered form ([DisplayForm]), so the
// three cannot disagree.
//
// The JSON form is the AutoFormField of the TypeScript package
// @maxhealth.tech/prefab, so one field list can serve both.
//
// The zero value of every field but Name means "not set": an empty Type is
// text, an empty Label is the humanized Name, and nil Min, Max and Default
// impose nothing.
type AutoFormField struct {
	// Name is the key the answer is stored under. It must be non-empty and
	// unique within the list.
	Name string `json:"name"`
	// Label is the title a person sees.
	Label string `json:"label,omitempty"`
	// Type chooses the kind of input; see FieldType.
	Type FieldType `json:"type,omitempty"`
	// Description is longer help text, shown under the title.
	Description string `json:"description,omitempty"`
	// Placeholder is hint text for an empty input. Only the UI path shows it:
	// the elicitation schema has no place for it.
	Placeholder string `json:"placeholder,omitempty"`
	// Required makes an answer without this field fail as a whole.
	Required bool `json:"required,omitempty"`
	// Options, when non-empty, restrict the answer to their values,
	// whatever the Type.
	Options []Option `json:"options,omitempty"`
	// Multiple allows several options to be chosen. It has no effect
	// without Options.
	Multiple bool `json:"multiple,omitempty"`
	// Min and Max are inclusive bounds: on the value of a number, integer or
	// range field, on the number of choices of a multiple-choice field, and
	// on the length in characters (Unicode code points) of a text field.
	// They are ignored for checkbox, boolean and single-choice fields.
	//
	// A bound is the number its shortest decimal spelling names, the one
	// the schema writes (strconv.FormatFloat with precision -1): Bound(0.1)
	// is 0.1. An answer is compared with it exactly, as written, never
	// through a float64 that rounds the answer. Beyond 2^53 a float64 does
	// not hold every integer, so Bound(9007199254740993) is the bound
	// 9007199254740992. A bound [FormFor] reads from an mcpform tag, and
	// the limit of a 64-bit Go integer a [Form] decodes into, are kept as
	// written besides: Min or Max then holds the float64 nearest to it,
	// which the schema shows, while the check and its messages use the
	// exact bound, as long as Min or Max still holds that float64. JSON
	// keeps only the float64.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Default pre-fills the input. It is carried into the schema only when
	// its JSON type fits the field (any Go number for a numeric field, a
	// []string or []any for a multiple-choice field); a default of the
	// wrong type is left out, as the TypeScript helpers do. A default of
	// the right type that no valid answer could have, such as one outside
	// the bounds or not among the options, is an error.
	Default any `json:"default,omitempty"`
	// AllowBidi lets a text answer hold the bidirectional embeddings,
	// overrides and isolates U+202A to U+202E and U+2066 to U+2069, the
	// zero-width and direction marks (U+200B, U+200E, U+200F, U+061C,
	// U+180E, U+2060 to U+2064, U+FEFF), and zero-width joiners anywhere,
	// for a field whose answers mix scripts written in both directions. By
	// default they are refused: they make text display in an order other
	// than the one it is stored in, so what a person reads back is not
	// what was kept. The TypeScript package has no such key and ignores it.
	AllowBidi bool `json:"allowBidi,omitempty"`

	// exact holds Min and Max as written, when no float64 holds them
	// (see Min); nil for none, the usual case. It is shared by copies of
	// the field and never changed: setBound replaces it.
	exact *exactBounds
}

// exactBounds are a field's bounds as written.
type exactBounds struct{ min, max exactBound }

// minExact returns the exact Min, or nil.
func (f *AutoFormField) minExact() *exactBound {
	if f.exact == nil {
		return nil
	}
	return &f.exact.min
}

// maxExact returns the exact Max, or nil.
func (f *AutoFormField) maxExact() *exactBound {
	if f.exact == nil {
		return nil
	}
	return &f.exact.max
}

// An exactBound is a bound as written, which no float64 holds, beside
// near, the float64 nearest to it, which Min or Max held when it was set.
// It counts only while Min or Max still holds near: a caller who sets
// another bound sets a float64 bound.
type exactBound struct {
	text string // "" for none
	near float64
}

// exact returns e's text, when b, the Min or Max it was set beside, still
// holds its float64; else "".
func (e *exactBound) exact(b *float64) string {
	if e == nil || e.text == "" || b == nil || *b != e.near {
		return ""
	}
	return e.text
}

// setBound sets Min (or Max, when max) to the number text, which must
// parse as a float64, keeping text as written when no float64 holds it.
// It is how [FormFor] reads a tag's bound.
func (f *AutoFormField) setBound(max bool, text string) error {
	n, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", text)
	}
	var exact exactBound
	if d, ok := decimal.Parse(text); ok && d.Cmp(decimal.FromFloat(n)) != 0 {
		exact = exactBound{text: canonjson.Number(text), near: n}
	}
	var e exactBounds
	if f.exact != nil {
		e = *f.exact
	}
	if max {
		f.Max, e.max = Bound(n), exact
	} else {
		f.Min, e.min = Bound(n), exact
	}
	f.exact = nil
	if e != (exactBounds{}) {
		f.exact = &e
	}
	return nil
}

// boundDec returns the bound b, f.Min or f.Max with its exactBound e, as
// a decimal, and the words a message writes it in: as written.
func boundDec(b *float64, e *exactBound) (decimal.Dec, string) {
	if t := e.exact(b); t != "" {
		d, _ := decimal.Parse(t)
		return d, t
	}
	return decimal.FromFloat(*b), formatBound(*b)
}

// Secret reports whether the field holds a secret, such as a password,
// which the MCP specification forbids asking for in form mode: a field of
// type [TypePassword]. A compiled form leaves secret fields out of its
// form-mode request and its schema, and a [Flow] asks them through URL
// mode, on the page of [Flow.SecretPage].
func (f *AutoFormField) Secret() bool { return f.Type == TypePassword }

func (f *AutoFormField) secret() bool { return f.Secret() }

// Bound returns a pointer to v, for [AutoFormField.Min] and
// [AutoFormField.Max].
func Bound(v float64) *float64 { return &v }

// Errors that say which rule a field definition breaks. They reach callers
// wrapped in a [*FieldError] that names the field.
var (
	// ErrNoFields reports an empty field list where at least one field is
	// needed.
	ErrNoFields = errors.New("mcpform: no fields")
	// ErrName reports an empty or duplicate field name.
	ErrName = errors.New("invalid name")
	// ErrBounds reports a Min greater than Max, a bound that is not a
	// finite number, or a length or item bound that is negative or not a
	// whole number.
	ErrBounds = errors.New("invalid bounds")
	// ErrOptions reports an option with an empty value, or two options
	// with the same value.
	ErrOptions = errors.New("invalid options")
	// ErrDefault reports a default that no valid answer could have.
	ErrDefault = errors.New("invalid default")
)

// A FieldError records a problem with one field: a broken definition, or a
// value in an answer that was dropped. Err is one of the package's Err…
// values, possibly wrapped with detail, so errors.Is works on a FieldError.
//
// A field derived from a Go struct field ([FormFor], or the struct a
// [Form] or [Answers.Decode] fills) is named both ways: Field is its JSON
// name and GoField the struct field's Go name. A struct tag that does not
// parse leaves Field empty: the JSON name is in the tag.
type FieldError struct {
	Field   string // the field's Name, its JSON name; "" when unknown
	GoField string // the Go struct field's name, when there is one; else ""
	Err     error
}

// Error returns "mcpform: field NAME: CAUSE", NAME quoted, with
// " (Go field GONAME)" after NAME when GoField is set; "mcpform: Go
// field GONAME: CAUSE" when Field is empty.
func (e *FieldError) Error() string {
	switch {
	case e.GoField == "":
		return fmt.Sprintf("mcpform: field %q: %v", e.Field, e.Err)
	case e.Field == "":
		return fmt.Sprintf("mcpform: Go field %s: %v", e.GoField, e.Err)
	}
	return fmt.Sprintf("mcpform: field %q (Go field %s): %v", e.Field, e.GoField, e.Err)
}

// inGoField records in a *FieldError err, if it names no Go field yet,
// the Go struct field goName, and returns err.
func inGoField(err error, goName string) error {
	var fe *FieldError
	if errors.As(err, &fe) && fe.GoField == "" {
		fe.GoField = goName
	}
	return err
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *FieldError) Unwrap() error { return e.Err }

// fieldErr builds a *FieldError whose cause wraps sentinel with detail.
func fieldErr(name string, sentinel error, format string, args ...any) *FieldError {
	if format == "" {
		return &FieldError{Field: name, Err: sentinel}
	}
	return &FieldError{Field: name, Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}

// kind is the JSON Schema shape a field maps to. It is derived once, so the
// schema and the answer check read the same decision.
type kind uint8

const (
	kindString kind = iota
	kindNumber
	kindInteger
	kindBoolean
	kindEnum  // a string restricted to the options
	kindMulti // an array of option values
)

func (f *AutoFormField) kind() kind {
	if len(f.Options) > 0 {
		if f.Multiple {
			return kindMulti
		}
		return kindEnum
	}
	switch f.Type {
	case TypeNumber, TypeRange:
		return kindNumber
	case TypeInteger:
		return kindInteger
	case TypeCheckbox, TypeBoolean:
		return kindBoolean
	}
	return kindString
}

// format is the JSON Schema string format a field's type maps to, if any.
func (f *AutoFormField) format() string {
	switch f.Type {
	case TypeEmail:
		return "email"
	case TypeURL, TypeURI:
		return "uri"
	case TypeDate:
		return "date"
	case TypeDatetime, TypeDatetimeLocal:
		return "date-time"
	}
	return ""
}

// title is what a person sees as the field's name: the Label, or the Name
// humanized. The schema and the UI both use it, so the two paths ask the same
// question in the same words.
func (f *AutoFormField) title() string {
	if f.Label != "" {
		return f.Label
	}
	return humanize(f.Name)
}

// humanize turns a field name into a title: runs of '_' and '-' become one
// space, a lower-case letter or digit followed by an upper-case letter is
// split, and every letter that starts a word is upper-cased. So first_name
// and firstName both read "First Name".
//
// On ASCII names this is the TypeScript formSchema rule. Unlike that rule,
// which only knows ASCII word characters, letters are letters in every
// script: "prénom" is "Prénom", not "PréNom".
func humanize(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	prev := rune(-1) // the previous rune written, or -1 at a word start
	sep := false     // a run of '_' or '-' is pending
	for _, r := range name {
		if r == '_' || r == '-' {
			sep = true
			continue
		}
		if sep {
			b.WriteByte(' ')
			prev, sep = ' ', false
		}
		if unicode.IsUpper(r) && prev >= 0 && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			b.WriteByte(' ')
			prev = ' '
		}
		if !isWordRune(prev) {
			r = unicode.ToUpper(r)
		}
		b.WriteRune(r)
		prev = r
	}
	if sep {
		b.WriteByte(' ')
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r >= 0 && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
}

// checkFields reports the first broken definition in fields, or nil.
// Checking happens on every call rather than once at construction because
// fields are plain data a caller may build or unmarshal anywhere.
func checkFields(fields []AutoFormField) error {
	if len(fields) == 0 {
		return ErrNoFields
	}
	// Small lists are the norm, where a linear scan for duplicates beats a
	// map; past indexFrom fields a set keeps the check linear.
	var seen map[string]bool
	if len(fields) >= indexFrom {
		seen = make(map[string]bool, len(fields))
	}
	for i := range fields {
		f := &fields[i]
		if f.Name == "" {
			return fieldErr("", ErrName, "field %d has an empty name", i)
		}
		dup := seen[f.Name]
		if seen != nil {
			seen[f.Name] = true
		} else {
			dup = fieldIndex(fields[:i], f.Name) >= 0
		}
		if dup {
			return fieldErr(f.Name, ErrName, "duplicate name")
		}
		if err := f.check(); err != nil {
			return err
		}
	}
	return nil
}

// maxLengthBound keeps length and item bounds within an int on every
// platform.
const maxLengthBound = math.MaxInt32

func (f *AutoFormField) check() error {
	if !utf8.ValidString(f.Name) {
		return fieldErr(f.Name, ErrName, "not valid UTF-8")
	}
	if err := f.checkType(); err != nil {
		return err
	}
	for _, b := range [...]*float64{f.Min, f.Max} {
		if b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
			return fieldErr(f.Name, ErrBounds, "bound is not a finite number")
		}
	}
	if f.Min != nil && f.Max != nil && *f.Min >= *f.Max {
		lo, loText := boundDec(f.Min, f.minExact())
		hi, hiText := boundDec(f.Max, f.maxExact())
		if lo.Cmp(hi) > 0 {
			return fieldErr(f.Name, ErrBounds, "min %s is greater than max %s", loText, hiText)
		}
	}
	k := f.kind()
	if k == kindString || k == kindMulti {
		what := "length"
		if k == kindMulti {
			what = "item count"
		}
		for _, b := range [...]*float64{f.Min, f.Max} {
			if b != nil && (*b < 0 || *b != math.Trunc(*b) || *b > maxLengthBound) {
				return fieldErr(f.Name, ErrBounds, "%s bound %s is not a whole number from 0 to %d", what, formatBound(*b), maxLengthBound)
			}
		}
	}
	for i, o := range f.Options {
		if o.Value == "" {
			return fieldErr(f.Name, ErrOptions, "option %d has an empty value", i)
		}
		for _, p := range f.Options[:i] {
			if p.Value == o.Value {
				return fieldErr(f.Name, ErrOptions, "duplicate option value %q", o.Value)
			}
		}
	}
	if v, ok := f.defaultValue(); ok {
		if reason := f.checkValue(v); reason != "" {
			return fieldErr(f.Name, ErrDefault, "%s", reason)
		}
	}
	return nil
}

// defaultValue returns the Default in a JSON shape of the field's kind (any
// Go number for numbers, []any for choices), and false
// when there is no default or its type does not fit, in which case it is left
// out of the schema.
func (f *AutoFormField) defaultValue() (any, bool) {
	if f.Default == nil {
		return nil, false
	}
	switch f.kind() {
	case kindNumber, kindInteger:
		_, ok := toFloat(f.Default) // NaN too: the check refuses it by name
		return f.Default, ok
	case kindBoolean:
		b, ok := f.Default.(bool)
		return b, ok
	case kindMulti:
		switch d := f.Default.(type) {
		case []string:
			out := make([]any, len(d))
			for i, s := range d {
				out[i] = s
			}
			return out, true
		case []any:
			// Non-string items still count as an array default: the
			// check then refuses it, instead of silently dropping a
			// default the author clearly meant.
			return d, true
		}
		return nil, false
	default:
		s, ok := f.Default.(string)
		return s, ok
	}
}

// cloneFields returns a copy of fields that shares nothing a caller could
// change: options and bounds are copied too. A Default is shared, as it is
// read only.
func cloneFields(fields []AutoFormField) []AutoFormField {
	out := make([]AutoFormField, len(fields))
	for i, f := range fields {
		f.Options = append([]Option(nil), f.Options...)
		f.Min, f.Max = cloneBound(f.Min), cloneBound(f.Max)
		out[i] = f
	}
	return out
}

// fieldTypes are the known field types, in the order an error lists them:
// the FieldType constants, then the HTML input types that hold plain text
// and that prefab's renderer passes to the browser, which a field list
// shared with the TypeScript helpers may carry, then the controls people
// write beside an options list. As the seed maps them, the first are
// asked for as plain text, and "select" and "radio" as a choice of their
// options (any type with options is), or as plain text without options.
var fieldTypes = [...]FieldType{TypeText, TypeTextarea, TypePassword, TypeTel, TypeEmail, TypeURL, TypeURI,
	TypeDate, TypeDatetime, TypeDatetimeLocal, TypeNumber, TypeRange, TypeInteger, TypeCheckbox, TypeBoolean,
	"search", "color", "time", "month", "week", "select", "radio"}

// checkType refuses a Type that is not one of fieldTypes, suggesting the
// nearest one.
func (f *AutoFormField) checkType() error {
	if f.Type == "" {
		return nil
	}
	for _, t := range fieldTypes {
		if t == f.Type {
			return nil
		}
	}
	best, dist := FieldType(""), 3
	for _, t := range fieldTypes {
		if d := editDistance(strings.ToLower(string(f.Type)), string(t), 2); d < dist {
			best, dist = t, d
		}
	}
	names := make([]string, len(fieldTypes))
	for i, t := range fieldTypes {
		names[i] = string(t)
	}
	hint := "."
	if best != "" {
		hint = fmt.Sprintf(": did you mean %q?", best)
	}
	return fieldErr(f.Name, ErrType, "unknown field type %q%s The types are %s", f.Type, hint, strings.Join(names, ", "))
}

// checkValue returns why v does not satisfy the field's property schema,
// in English, or "" when it does (see checkReason).
func (f *AutoFormField) checkValue(v any) string {
	if r := f.checkReason(v); r != nil {
		return r.Error()
	}
	return ""
}

// checkValueIn returns why v does not satisfy the field's property
// schema, in l, or "" when it does.
func (f *AutoFormField) checkValueIn(l catalog.Lang, v any) string {
	if r := f.checkReason(v); r != nil {
		return r.In(l)
	}
	return ""
}

// checkReason returns why v does not satisfy the field's property schema,
// or nil when it does. It is the single judge of values: answers and
// defaults both go through it. A reason is a message of the catalogs,
// said in any language by lookup, and never quotes the value, which is
// untrusted.
func (f *AutoFormField) checkReason(v any) *catalog.Reason {
	if u, ok := v.(unclearValue); ok { // sent in JSON that says two things
		return u.reason()
	}
	switch f.kind() {
	case kindBoolean:
		if _, ok := v.(bool); !ok {
			return refused(catalog.NotBoolean)
		}
	case kindNumber, kindInteger:
		if n, ok := v.(float64); ok {
			return f.checkFloat(n) // what encoding/json decodes: the hot path
		}
		return f.checkNumber(v)
	case kindEnum:
		s, ok := v.(string)
		if !ok {
			return refused(catalog.NotString)
		}
		if !f.hasOption(s) {
			return refused(catalog.NotOption)
		}
	case kindMulti:
		// A list decoded from JSON is []any; one built in Go may be a
		// []string. Both mean the same answer.
		var n int
		switch items := v.(type) {
		case []any:
			n = len(items)
		case []string:
			n = len(items)
		default:
			return refused(catalog.NotList)
		}
		if f.Min != nil && float64(n) < *f.Min {
			return refusedBound(catalog.FewerChoices, "min", *f.Min)
		}
		if f.Max != nil && float64(n) > *f.Max {
			return refusedBound(catalog.MoreChoices, "max", *f.Max)
		}
		if !f.allOptions(v) {
			return refused(catalog.ChoiceNotOption)
		}
	default:
		s, ok := v.(string)
		if !ok {
			return refused(catalog.NotString)
		}
		if reason := f.checkText(s); reason != nil {
			return reason
		}
		// JSON Schema counts characters as code points; the
		// TypeScript helper counts UTF-16 units, so an emoji counts
		// twice there.
		if f.Min != nil || f.Max != nil {
			n := float64(utf8.RuneCountInString(s))
			if f.Min != nil && n < *f.Min {
				return refusedBound(catalog.Shorter, "min", *f.Min)
			}
			if f.Max != nil && n > *f.Max {
				return refusedBound(catalog.Longer, "max", *f.Max)
			}
		}
		switch f.format() {
		case "email":
			if !format.Email(s) {
				return refused(catalog.NotEmail)
			}
		case "uri":
			if !format.URI(s) {
				return refused(catalog.NotURI)
			}
		case "date":
			if !format.Date(s) {
				return refused(catalog.NotDate)
			}
		case "date-time":
			if !format.DateTime(s) {
				return refused(catalog.NotDateTime)
			}
		}
	}
	return nil
}

// checkFloat is checkReason for the number n of a number or integer
// field. A number out of bounds is refused as such before a fraction is:
// 50.0000000000000001 is above a maximum of 50 before it is not whole,
// and that is what its author needs to hear (checkNumber keeps the same
// order).
//
// Comparing float64s is comparing their shortest decimals, the numbers
// the schema and a JSON encoder write: rounding to a float64 keeps
// order. So n is judged against Min and Max by float64 comparison,
// except where it equals a bound kept as written (see Min), where the
// exact comparison decides: a float64 below the one nearest to an exact
// bound is below the bound too.
//
// A float64 answer is judged as it is: on the native path, go-sdk has
// already decoded the client's number into the float64 nearest to it, and
// this path cannot know what was written, so 50.0000000000000001 arrives
// as 50, and 9007199254740993 as 9007199254740992. Only an answer that
// arrives as a json.Number is judged as written (checkNumber).
func (f *AutoFormField) checkFloat(n float64) *catalog.Reason {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return refused(catalog.NotNumber)
	}
	if f.Min != nil && n <= *f.Min {
		if r := f.outside(n, false); r != nil {
			return r
		}
	}
	if f.Max != nil && n >= *f.Max {
		if r := f.outside(n, true); r != nil {
			return r
		}
	}
	if f.kind() == kindInteger && n != math.Trunc(n) {
		return refused(catalog.NotInteger)
	}
	return nil
}

// outside returns the reason n, at or beyond the bound Max (when max) or
// Min, is refused; nil when it equals the bound as written.
func (f *AutoFormField) outside(n float64, max bool) *catalog.Reason {
	b, e, msg, name := f.Min, f.minExact(), catalog.LessThanMin, "min"
	if max {
		b, e, msg, name = f.Max, f.maxExact(), catalog.GreaterThanMax, "max"
	}
	t := e.exact(b)
	switch {
	case n != *b:
	case t == "":
		return nil // equal
	default:
		d, _ := decimal.Parse(t)
		if c := decimal.FromFloat(n).Cmp(d); c == 0 || (c < 0) == max {
			return nil
		}
	}
	if t == "" {
		t = formatBound(*b)
	}
	return &catalog.Reason{Msg: msg, Args: []string{name, t}}
}

// checkNumber is checkReason for v, any value but a float64, in a
// number or integer field: a json.Number is judged as written, on its
// digits, and so is every Go integer. A number field refuses a number
// beyond the largest float64, which its answer could not hold; an integer
// field takes any whole number.
func (f *AutoFormField) checkNumber(v any) *catalog.Reason {
	d, ok := decimalOf(v)
	if !ok {
		return refused(catalog.NotNumber)
	}
	if f.Min != nil {
		if b, t := boundDec(f.Min, f.minExact()); d.Cmp(b) < 0 {
			return &catalog.Reason{Msg: catalog.LessThanMin, Args: []string{"min", t}}
		}
	}
	if f.Max != nil {
		if b, t := boundDec(f.Max, f.maxExact()); d.Cmp(b) > 0 {
			return &catalog.Reason{Msg: catalog.GreaterThanMax, Args: []string{"max", t}}
		}
	}
	if f.kind() == kindInteger && !d.IsInt() {
		return refused(catalog.NotInteger)
	}
	if f.kind() == kindNumber {
		if _, ok := d.Float64(); !ok {
			return refused(catalog.OutOfRange)
		}
	}
	return nil
}

// decimalOf returns the number v as written, when v is a number: a
// json.Number in decimal, a finite float, or a Go integer, named types
// included.
func decimalOf(v any) (decimal.Dec, bool) {
	switch n := v.(type) {
	case json.Number:
		return decimal.Parse(string(n))
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return decimal.Dec{}, false
		}
		return decimal.FromFloat(n), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return decimalOf(rv.Float())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decimal.Parse(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decimal.Parse(strconv.FormatUint(rv.Uint(), 10))
	}
	return decimal.Dec{}, false
}

// acceptedNumber returns the accepted json.Number n of a number or
// integer field as an answer holds it: for a number field, the float64
// nearest to it, as go-sdk decodes a native answer (checkNumber refused
// one beyond the largest float64); for an integer field, the float64
// that is exactly n when there is one, else n itself, as JavaScript
// would write it (9007199254740993, 1e+400), so that no integer is
// rounded.
func (f *AutoFormField) acceptedNumber(n json.Number) any {
	if f.kind() == kindInteger {
		if x, ok := answerNumber(n).(float64); ok {
			return x
		}
		return json.Number(canonjson.Number(string(n)))
	}
	d, _ := decimal.Parse(string(n))
	x, _ := d.Float64()
	return x
}

// checkText returns why s is refused as a text answer of any format, or
// nil. JSON Schema's formats allow all of what it refuses, which no person
// means to type into one line: doc.go lists the difference.
//
//   - Controls: C0 but tab, DEL and C1 (U+0080 to U+009F). They do not
//     show on screen, NUL is refused by PostgreSQL's text type, and ESC
//     or CSI sequences drive terminals that show logs.
//   - Line breaks outside a textarea: CR, LF, NEL (U+0085) and the line
//     and paragraph separators U+2028 and U+2029, which turn a value into
//     more lines of a mail header or a log.
//   - Unless the field allows them (AllowBidi): bidirectional
//     embeddings, overrides and isolates, and the invisible marks that
//     change how text reads or compares without showing: zero-width
//     space, word joiner and invisible operators (U+200B, U+2060 to
//     U+2064), the direction marks LRM, RLM and ALM (U+200E, U+200F,
//     U+061C), U+180E and the BOM U+FEFF.
//   - Bytes that are not UTF-8 (in a string built in Go) and U+FFFD, the
//     replacement character, which stands where a decoder met text it
//     could not read: go-sdk's encoding/json puts it in place of invalid
//     UTF-8 and lone surrogate escapes in a native answer, whose bytes no
//     hook can reach. Read as written, those are found before (see
//     readArguments), and named alike.
//   - A zero-width joiner or non-joiner (U+200D, U+200C) that joins
//     nothing, unless AllowBidi: each must stand between two characters
//     that are neither white space, nor a control, nor a format
//     character. Persian and Indic scripts put them between letters and
//     after a virama, and emoji sequences between emoji (after a
//     variation selector or skin tone too); a joiner at either end, next
//     to a space or beside another joiner hides in text instead.
func (f *AutoFormField) checkText(s string) *catalog.Reason {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\r':
				if f.Type != TypeTextarea {
					return refused(catalog.LineBreak)
				}
			case c < 0x20 && c != '\t' || c == 0x7f:
				return refused(catalog.Control)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if reason := f.checkRune(s, i, r, size); reason != nil {
			return reason
		}
		i += size
	}
	return nil
}

// checkRune is checkText's rule for the non-ASCII rune r at s[i:i+size].
func (f *AutoFormField) checkRune(s string, i int, r rune, size int) *catalog.Reason {
	switch {
	case r == 0x85 || r == 0x2028 || r == 0x2029:
		if f.Type != TypeTextarea {
			return refused(catalog.LineBreak)
		}
	case r < 0xa0:
		return refused(catalog.Control) // C1
	case r == utf8.RuneError: // bytes that are not UTF-8, or U+FFFD
		return refused(catalog.NotUnicode)
	case f.AllowBidi:
	case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069:
		return refused(catalog.Bidi)
	case isInvisibleMark(r):
		return refused(catalog.Invisible)
	case r == 0x200c || r == 0x200d:
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+size:])
		if i == 0 || i+size == len(s) || !joinable(before) || !joinable(after) {
			return refused(catalog.Joiner)
		}
	}
	return nil
}

// isInvisibleMark reports whether r is one of the zero-width and direction
// marks checkText refuses without AllowBidi.
func isInvisibleMark(r rune) bool {
	switch r {
	case 0x200b, 0x200e, 0x200f, 0x061c, 0x180e, 0xfeff:
		return true
	}
	return 0x2060 <= r && r <= 0x2064
}

// joinable reports whether a zero-width joiner may stand beside r: r is
// neither white space, nor a control, nor a format character (a joiner,
// a mark or a bidi control), nor invalid UTF-8.
func joinable(r rune) bool {
	return r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.Is(unicode.Cc, r) && !unicode.Is(unicode.Cf, r)
}

// allOptions reports whether every item of the list v, a []any or a
// []string, is one of the field's option values.
func (f *AutoFormField) allOptions(v any) bool {
	switch items := v.(type) {
	case []string:
		for _, s := range items {
			if !f.hasOption(s) {
				return false
			}
		}
	case []any:
		for _, it := range items {
			if s, ok := it.(string); !ok || !f.hasOption(s) {
				return false
			}
		}
	}
	return true
}

func (f *AutoFormField) hasOption(s string) bool {
	for _, o := range f.Options {
		if o.Value == s {
			return true
		}
	}
	return false
}

// formatBound writes the bound b for a person's message, as JSON does: a
// whole number below 1e21 in digits.
func formatBound(b float64) string {
	if b == math.Trunc(b) && math.Abs(b) < 1e21 {
		// A whole number is written whole, as a person writes it (and as
		// JavaScript does below 1e21): 100000000000, not 1e+11.
		return strconv.FormatFloat(b, 'f', -1, 64)
	}
	return strconv.FormatFloat(b, 'g', -1, 64)
}

// refused returns the reason k, which has no placeholder.
func refused(k catalog.Msg) *catalog.Reason { return &catalog.Reason{Msg: k} }

// refusedBound returns the reason k, whose placeholder name is filled
// with the bound b.
func refusedBound(k catalog.Msg, name string, b float64) *catalog.Reason {
	return &catalog.Reason{Msg: k, Args: []string{name, formatBound(b)}}
}

// reasonIn returns err's reason in l when err carries one, a
// *catalog.Reason that checkReason gave; otherwise s, the words err was
// given in.
func reasonIn(l catalog.Lang, err error, s string) string {
	var r *catalog.Reason
	if errors.As(err, &r) {
		return r.In(l)
	}
	return s
}

// toFloat converts a number, as decoded by encoding/json or built in Go
// (a named type such as "type seats int" included, and a json.Number), to
// the float64 nearest to it, and reports whether v was a number at all.
// It rounds, so it serves only a number already judged, or a question of
// type: the checker judges numbers with checkFloat and checkNumber. The
// result may be NaN or infinite, which no JSON number is: callers refuse
// those.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64: // what encoding/json decodes: the hot path
		return n, true
	case json.Number:
		// The float64 nearest to it, infinite beyond the largest: only
		// a conversion after the number was judged as written.
		d, ok := decimal.Parse(string(n))
		f, _ := d.Float64()
		return f, ok
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	}
	return 0, false
}
