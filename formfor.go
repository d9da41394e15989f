package mcpform

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpform/mcpform/internal/format"
)

// An Enum is a named string type that lists its own options, so that they
// live next to the type's constants. [FormFor] asks a field of such a type,
// or of a slice of it, as a choice among Options. The method is called on
// the type's zero value.
type Enum interface {
	Options() []Option
}

var enumType = reflect.TypeFor[Enum]()

// FormFor compiles a Form whose fields are derived from T's struct fields,
// in order, then checked as [NewForm] checks them.
//
// A struct field becomes a form field named by its json tag, or by its Go
// name as encoding/json would; unexported fields and those tagged json:"-"
// are skipped. It is required unless its json tag has omitempty or omitzero
// or its type is a pointer, the rule of jsonschema.For, so a struct that is
// also a go-sdk tool input means the same in both places. Its description
// is the jsonschema tag, as go-sdk reads it.
//
// The Go type chooses the field type: string is text, bool a checkbox,
// every integer kind an integer, both float kinds a number, a slice of a
// string kind a multiple choice (which needs options), time.Time a
// date-time, and *X an optional X.
//
// An mcpform tag sets the rest, as comma-separated key=value items:
//
//	label=Text         the title a person sees
//	type=email         the FieldType, for a string (email, url, date,
//	                   datetime, password, textarea, tel, ...) or a
//	                   time.Time (date or datetime)
//	min=1,max=50       the bounds
//	default=free       the default, read as the field's Go type would be;
//	                   for a multiple choice, values separated by '|'
//	placeholder=Text   hint text for the UI path
//	options=a|b:Label  the options, '|'-separated, each value or value:Label
//	bidi=true          the answer may hold bidirectional overrides
//	                   ([AutoFormField].AllowBidi)
//
// A backslash makes the next character literal, so a value or label may
// hold a comma, a '|' or a ':' as "\,", "\|" or "\:" (and a backslash as
// "\\"); an option with two unescaped colons is an error. The tag is a Go
// string literal, so in source each backslash is written twice:
//
//	Size string `mcpform:"options=s:Small\\, 2 seats|l:Large"`
//	Slot string `mcpform:"options=09\\:00:Morning|14\\:00:Afternoon"`
//
// A string type that implements [Enum] supplies its options itself; a
// tag's options replace them.
//
// FormFor refuses a field of any other Go type (a struct, a map, another
// slice, an interface) with a [*FieldError] wrapping [ErrType], and a
// struct tag that reflect.StructTag cannot parse, a tag key within two
// edits of mcpform (mcpfrom, mcpform2), which would be ignored, an
// mcpform tag on an unexported field, which encoding/json skips, an
// mcpform tag FormFor cannot read, or an option whose one colon is most
// likely a time's or a URL's (options=09:00|9:30am|2:15 pm would be values
// 09, 9 and 2; options=https://a.example, value https), with one wrapping
// [ErrTag], which says to write that colon as "\:"; an unknown type=, with one
// wrapping [ErrType]. Its errors name each field by its Go name and its
// JSON name, as [FieldError] says, and say what to write instead.
func FormFor[T any](opts *FormOptions) (*Form[T], error) {
	t := reflect.TypeFor[T]()
	fields, err := deriveFields(t)
	if err != nil {
		return nil, err
	}
	form, err := NewForm[T](fields, opts)
	var fe *FieldError
	if errors.As(err, &fe) && fe.Field != "" && fe.GoField == "" {
		if sf, ok := structFields(t).exact[fe.Field]; ok {
			fe.GoField = sf.Name
		}
	}
	return form, err
}

// deriveFields is the field list FormFor derives from the struct type t.
func deriveFields(t reflect.Type) ([]AutoFormField, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("mcpform: FormFor needs a struct type, not %s", t)
	}
	if err := checkStructTags(t, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	var fields []AutoFormField
	set := structFields(t)
	for _, name := range set.names {
		f, err := deriveField(set.exact[name], name)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// ErrTag reports a struct tag that does not parse, or an mcpform tag item
// [FormFor] cannot read.
var ErrTag = errors.New("invalid struct tag")

// tagKey is the struct tag key FormFor reads.
const tagKey = "mcpform"

// checkStructTags refuses a field of the struct type t, or of a struct
// embedded in it, whose tag reflect.StructTag cannot parse: Lookup then
// misses every key from the fault on, so a json or mcpform key would be
// silently ignored. For the same reason it refuses a key within two edits
// of "mcpform" (mcpfrom, mcpfom, mcpform2): a misspelling, never another
// package's key.
func checkStructTags(t reflect.Type, seen map[reflect.Type]bool) error {
	seen[t] = true
	for i := range t.NumField() {
		sf := t.Field(i)
		keys, err := parseStructTag(string(sf.Tag))
		if err != nil {
			return &FieldError{GoField: sf.Name, Err: fmt.Errorf("%w: %v", ErrTag, err)}
		}
		for _, k := range keys {
			if k != tagKey && editDistance(k, tagKey, 2) <= 2 {
				return &FieldError{GoField: sf.Name, Err: fmt.Errorf("%w: the key %q is not %q: a misspelt key is ignored, so write %s:\"…\"", ErrTag, k, tagKey, tagKey)}
			}
			if k == tagKey && !sf.IsExported() && !sf.Anonymous {
				// encoding/json skips an unexported field, so its answer
				// could never be decoded into it.
				return &FieldError{GoField: sf.Name, Err: fmt.Errorf("%w: the field is unexported, so it is never asked or filled: export it, or remove its %s tag", ErrTag, tagKey)}
			}
		}
		et := sf.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if sf.Anonymous && et.Kind() == reflect.Struct && !seen[et] {
			if err := checkStructTags(et, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseStructTag returns the keys of tag, or why it is not the
// conventional space-separated list of key:"value" pairs that
// reflect.StructTag.Lookup reads, with the rules of go vet's structtag
// check.
func parseStructTag(tag string) (keys []string, err error) {
	for n := 0; ; n++ {
		rest := strings.TrimLeft(tag, " ")
		if rest == "" {
			return keys, nil
		}
		if n > 0 && rest == tag {
			return nil, fmt.Errorf("pairs not separated by spaces at %q", tag)
		}
		i := 0
		for i < len(rest) && rest[i] > ' ' && rest[i] != ':' && rest[i] != '"' && rest[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(rest) || rest[i] != ':' || rest[i+1] != '"' {
			return nil, fmt.Errorf("bad syntax for a key:\"value\" pair at %q", rest)
		}
		key, quoted := rest[:i], rest[i+1:]
		j := 1
		for j < len(quoted) && quoted[j] != '"' {
			if quoted[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(quoted) {
			return nil, fmt.Errorf("key %q: the value has no closing quote", key)
		}
		if _, err := strconv.Unquote(quoted[:j+1]); err != nil {
			return nil, fmt.Errorf("key %q: the value %s is not a Go string literal", key, quoted[:j+1])
		}
		keys = append(keys, key)
		tag = quoted[j+1:]
	}
}

// deriveField is the form field of struct field sf, named name.
func deriveField(sf reflect.StructField, name string) (AutoFormField, error) {
	f := AutoFormField{Name: name, Description: sf.Tag.Get("jsonschema")}
	_, jsonOpts, _ := strings.Cut(sf.Tag.Get("json"), ",")
	optional := strings.Contains(","+jsonOpts+",", ",omitempty,") || strings.Contains(","+jsonOpts+",", ",omitzero,")
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		t, optional = t.Elem(), true
	}
	f.Required = !optional
	bad := func(sentinel error, format string, args ...any) (AutoFormField, error) {
		return AutoFormField{}, inGoField(fieldErr(name, sentinel, format, args...), sf.Name)
	}
	elem := t
	switch {
	case t == timeType:
		f.Type = TypeDatetime
	case t.Kind() == reflect.String:
	case t.Kind() == reflect.Bool:
		f.Type = TypeCheckbox
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr:
		f.Type = TypeInteger
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		f.Type = TypeNumber
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		f.Multiple, elem = true, t.Elem()
	default:
		return bad(ErrType, "FormFor cannot ask for a %s", sf.Type)
	}
	if elem.Implements(enumType) {
		f.Options = reflect.Zero(elem).Interface().(Enum).Options()
	}
	items, err := splitUnescaped(sf.Tag.Get(tagKey), ',')
	if err != nil {
		return bad(ErrTag, "%v", err)
	}
	for _, item := range items {
		if item == "" {
			continue
		}
		key, value, ok := strings.Cut(item, "=")
		if !ok {
			return bad(ErrTag, "item %q is not key=value", unescape(item))
		}
		if err := f.setTag(key, value, t); err != nil {
			return bad(ErrTag, "%q: %v", key, err)
		}
	}
	if f.Multiple && len(f.Options) == 0 {
		return bad(ErrTag, "a %s needs options", sf.Type)
	}
	if t == timeType && f.Type != TypeDate && f.Type != TypeDatetime {
		return bad(ErrTag, "type: a time.Time is a date or a datetime, not %q", f.Type)
	}
	return f, nil
}

// setTag applies one key=value item of an mcpform tag to a field of Go
// type t (less any pointer).
func (f *AutoFormField) setTag(key, value string, t reflect.Type) error {
	switch key {
	case "label":
		f.Label = unescape(value)
	case "placeholder":
		f.Placeholder = unescape(value)
	case "type":
		if t.Kind() != reflect.String && t != timeType {
			return fmt.Errorf("only a string or time.Time takes a type")
		}
		f.Type = FieldType(unescape(value))
	case "min", "max":
		return f.setBound(key == "max", value) // kept as written, beyond 2^53 too
	case "options":
		parts, _ := splitUnescaped(value, '|')
		f.Options = f.Options[:0:0]
		for _, p := range parts {
			v, label, labelled := cutUnescaped(p, ':')
			if _, _, again := cutUnescaped(label, ':'); again {
				return fmt.Errorf("option %q has two unescaped colons: write a ':' of its value or label as \\:", p)
			}
			if what := colonOf(v, label, labelled); what != "" {
				// 09:00, 9:30am or https://a.example read as a value and
				// a label: a colon that was not escaped, never a choice
				// anyone means.
				return fmt.Errorf("option %q reads as value %q with label %q: if it is %s, write its colon as \\: (in Go source \\\\:)", p, v, label, what)
			}
			f.Options = append(f.Options, Option{Value: unescape(v), Label: unescape(label)})
		}
	case "bidi":
		if t.Kind() != reflect.String {
			return fmt.Errorf("only a string takes bidi")
		}
		allow, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%q is not true or false", value)
		}
		f.AllowBidi = allow
	case "default":
		d, err := parseDefault(unescape(value), t)
		if err != nil {
			return err
		}
		f.Default = d
	default:
		return fmt.Errorf("unknown key")
	}
	return nil
}

// colonOf says what an option's single unescaped colon, cut into value v
// and label, most likely belongs to instead: "a time" for 09:00, 9:30am
// or 2:15 pm, "a URL" for https://a.example; "" for a value and label.
func colonOf(v, label string, labelled bool) string {
	switch {
	case !labelled:
		return ""
	case strings.HasPrefix(label, "//"):
		return "a URL"
	case format.AllDigits(v) && format.AllDigits(label):
		return "a time" // 09:00, or any colon between digits
	case len(v) > 2 || !format.AllDigits(v) || len(label) < 2 || !format.AllDigits(label[:2]):
		return ""
	}
	switch strings.ToLower(strings.TrimPrefix(label[2:], " ")) {
	case "am", "pm", "a.m.", "p.m.", "h":
		return "a time" // 9:30am, 2:15 pm
	}
	return ""
}

// parseDefault reads a tag's default as a value of Go type t would be.
func parseDefault(s string, t reflect.Type) (any, error) {
	switch {
	case t.Kind() == reflect.Bool:
		return strconv.ParseBool(s)
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return n, nil
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return n, nil
	case t.Kind() == reflect.Slice:
		return strings.Split(s, "|"), nil
	}
	return s, nil
}

// splitUnescaped splits s at each sep not preceded by a backslash, keeping
// the escapes for unescape. A trailing lone backslash is an error.
func splitUnescaped(s string, sep byte) ([]string, error) {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 == len(s) {
				return nil, errors.New("a trailing backslash escapes nothing")
			}
			i++
		case sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:]), nil
}

// cutUnescaped is strings.Cut at the first sep not preceded by a backslash.
func cutUnescaped(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// unescape drops each escaping backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// editDistance returns the Levenshtein distance between a and b, in
// bytes, or max+1 when it is greater than max.
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], max+1)
}

// The struct fields that answers decode into are found by json name, with
// encoding/json's rules, so that a struct means the same to a Form, to
// Answers.Decode and to encoding/json.

// throughPointer reports whether the field at index is promoted through an
// embedded pointer, which decoding would have to allocate.
func throughPointer(t reflect.Type, index []int) bool {
	for j := 1; j < len(index); j++ {
		if t.FieldByIndex(index[:j]).Type.Kind() == reflect.Pointer {
			return true
		}
	}
	return false
}

// jsonName is the name encoding/json gives a struct field, whether the
// name came from its tag, and false for a field it skips.
func jsonName(sf reflect.StructField) (name string, tagged, ok bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, _, _ = strings.Cut(tag, ",")
	if !sf.IsExported() {
		return "", false, false
	}
	if name == "" {
		return sf.Name, false, true
	}
	return name, true, true
}

// A fieldSet is a struct type's fields by json name, as encoding/json
// resolves them.
type fieldSet struct {
	exact map[string]reflect.StructField
	names []string // in the struct's field order
}

// find returns the field a JSON key fills: the one of that name, or else
// the first whose name matches it without regard to case, as
// encoding/json prefers.
func (s *fieldSet) find(key string) (reflect.StructField, bool) {
	if sf, ok := s.exact[key]; ok {
		return sf, true
	}
	for _, n := range s.names {
		if strings.EqualFold(n, key) {
			return s.exact[n], true
		}
	}
	return reflect.StructField{}, false
}

var fieldSets sync.Map // reflect.Type to *fieldSet

// structFields returns the fields of the struct type t by json name, with
// encoding/json's rules: an untagged embedded struct (or pointer to one)
// lends its fields; of fields with one name the shallowest wins, then the
// tagged one, and a tie hides them all.
func structFields(t reflect.Type) *fieldSet {
	if s, ok := fieldSets.Load(t); ok {
		return s.(*fieldSet)
	}
	type cand struct {
		sf     reflect.StructField
		tagged bool
		n      int // how many share the best rank
	}
	best := map[string]*cand{}
	var order []string
	var walk func(t reflect.Type, prefix []int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, prefix []int, seen map[reflect.Type]bool) {
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			sf.Index = append(slices.Clip(prefix), i)
			if sf.Anonymous {
				et := sf.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct && !seen[et] {
					if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name == "" && sf.Tag.Get("json") != "-" {
						walk(et, sf.Index, seen)
						continue
					}
				}
			}
			name, tagged, ok := jsonName(sf)
			if !ok {
				continue
			}
			c := best[name]
			switch {
			case c == nil:
				best[name] = &cand{sf, tagged, 1}
				order = append(order, name)
			case len(sf.Index) < len(c.sf.Index) || len(sf.Index) == len(c.sf.Index) && tagged && !c.tagged:
				*c = cand{sf, tagged, 1}
			case len(sf.Index) == len(c.sf.Index) && tagged == c.tagged:
				c.n++
			}
		}
	}
	walk(t, nil, map[reflect.Type]bool{})
	s := &fieldSet{exact: make(map[string]reflect.StructField, len(best))}
	for _, name := range order {
		if c := best[name]; c.n == 1 {
			s.exact[name] = c.sf
			s.names = append(s.names, name)
		}
	}
	// In the order of the struct's layout, as encoding/json writes them.
	slices.SortFunc(s.names, func(a, b string) int {
		return slices.Compare(s.exact[a].Index, s.exact[b].Index)
	})
	got, _ := fieldSets.LoadOrStore(t, s)
	return got.(*fieldSet)
}

// fieldAlloc returns rv's field at index, allocating the embedded pointers
// it is promoted through, as encoding/json does.
func fieldAlloc(rv reflect.Value, index []int) (reflect.Value, error) {
	for j, i := range index {
		if j > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				if !rv.CanSet() {
					return reflect.Value{}, errors.New("its field is promoted through an unexported embedded pointer")
				}
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			rv = rv.Elem()
		}
		rv = rv.Field(i)
	}
	return rv, nil
}
