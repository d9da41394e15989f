package mcpform

import (
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/mcpform/mcpform/internal/decimal"
	"github.com/mcpform/mcpform/internal/format"
)

// ErrType reports a field whose accepted values a Go type cannot hold: the
// struct field a [Form] decodes it into, or a type [FormFor] cannot ask for;
// and an [AutoFormField] Type that is no [FieldType].
var ErrType = errors.New("invalid type")

var (
	timeType    = reflect.TypeFor[time.Time]()
	answersType = reflect.TypeFor[Answers]()
)

// A decoder fills a struct from accepted answers. It was built against the
// fields, so every accepted value fits the Go field it goes to.
type decoder struct {
	fields  []AutoFormField // the form's
	targets []target        // by field index
}

type target struct {
	index  []int        // the struct field, for reflect.Value.FieldByIndex
	typ    reflect.Type // its type; a pointer means optional
	goName string       // its Go name, for errors
}

// newDecoder returns the decoder of T for fields, or nil when T is
// Answers. It adds the Go type's limits to numeric fields without bounds,
// in place.
func newDecoder[T any](fields []AutoFormField) (*decoder, error) {
	t := reflect.TypeFor[T]()
	if t == answersType || t == reflect.TypeFor[map[string]any]() {
		return nil, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, &FieldError{Err: errors.New("mcpform: a form decodes into a struct or Answers, not " + t.String())}
	}
	byName := structFields(t)
	d := &decoder{fields: fields, targets: make([]target, len(fields))}
	for i := range fields {
		f := &fields[i]
		sf, ok := byName.exact[f.Name]
		if !ok {
			return nil, fieldErr(f.Name, ErrName, "no field of %s has this json name", t)
		}
		if throughPointer(t, sf.Index) {
			return nil, inGoField(fieldErr(f.Name, ErrType, "its field is promoted through an embedded pointer"), sf.Name)
		}
		if err := fitType(f, sf.Type); err != nil {
			return nil, inGoField(err, sf.Name)
		}
		d.targets[i] = target{index: sf.Index, typ: sf.Type, goName: sf.Name}
	}
	return d, nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// storable reports whether store handles the Go type t; [Answers.Decode]
// leaves the others, and types that decode themselves, to encoding/json.
func storable(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return true
	}
	if p := reflect.PointerTo(t); p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String && storable(t.Elem())
	}
	return false
}

// fitType checks that every value f accepts fits t, tightening f's bounds
// to t's range where f has none.
func fitType(f *AutoFormField, t reflect.Type) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func(what string) error {
		return fieldErr(f.Name, ErrType, "a %s field does not decode into %s", what, t)
	}
	switch k := f.kind(); k {
	case kindBoolean:
		if t.Kind() != reflect.Bool {
			return bad("boolean")
		}
	case kindMulti:
		if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.String {
			return bad("multiple-choice")
		}
	case kindNumber, kindInteger:
		lo, hi, ok := numberRange(t, k == kindInteger)
		if !ok {
			return bad(map[kind]string{kindNumber: "number", kindInteger: "integer"}[k])
		}
		for _, side := range [...]struct {
			max   bool
			b     *float64
			e     *exactBound
			limit string
		}{{false, f.Min, f.minExact(), lo}, {true, f.Max, f.maxExact(), hi}} {
			if side.b == nil {
				if err := f.setBound(side.max, side.limit); err != nil {
					return fieldErr(f.Name, ErrBounds, "%v", err) // unreachable: the limits are numbers
				}
				continue
			}
			b, text := boundDec(side.b, side.e)
			loD, _ := decimal.Parse(lo)
			hiD, _ := decimal.Parse(hi)
			if b.Cmp(loD) < 0 || b.Cmp(hiD) > 0 {
				return fieldErr(f.Name, ErrBounds, "bound %s does not fit %s", text, t)
			}
		}
	default:
		if t == timeType {
			if fm := f.format(); fm != "date" && fm != "date-time" {
				return bad("text")
			}
		} else if t.Kind() != reflect.String {
			return bad("text")
		}
	}
	return nil
}

// numberRange is the range of values t holds, for an integer field or a
// number field, written in decimal, and false when t holds none of them.
// A 64-bit integer's range is its own, exactly: an answer is judged and
// stored on its digits, so 9007199254740993 fits an int64.
func numberRange(t reflect.Type, integer bool) (lo, hi string, ok bool) {
	switch t.Kind() {
	case reflect.Float64:
		return "-1.7976931348623157e308", "1.7976931348623157e308", true
	case reflect.Float32:
		return "-3.4028234663852886e38", "3.4028234663852886e38", true
	}
	if !integer {
		return "", "", false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return strconv.FormatInt(-1<<(bits-1), 10), strconv.FormatInt(1<<(bits-1)-1, 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "0", strconv.FormatUint(1<<t.Bits()-1, 10), true
	}
	return "", "", false
}

// into stores accepted answers a in *v. Every value was accepted by its
// field, which fitType matched to its Go field, so it should return no
// error; FuzzFormRead holds it to that, and [Form.Read] surfaces one that
// comes all the same.
func (d *decoder) into(v any, a Answers) error {
	rv := reflect.ValueOf(v).Elem()
	for i := range d.fields {
		x, ok := a[d.fields[i].Name]
		if !ok {
			continue // unanswered: stays zero or nil
		}
		if err := store(rv.FieldByIndex(d.targets[i].index), d.fields[i].Name, x); err != nil {
			return inGoField(err, d.targets[i].goName)
		}
	}
	return nil
}

// store puts the answer x to the field name in fv, a settable value of a
// type fitType allows: a date string becomes a time.Time at UTC midnight, a
// date-time one with its offset, a whole number any integer type, and a
// list of strings any string slice; a pointer is allocated. It is the one
// conversion of answers to Go values, for a [Form] and for
// [Answers.Decode] alike. A value that does not fit is a *FieldError
// wrapping [ErrType].
func store(fv reflect.Value, name string, x any) error {
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		if err := store(p.Elem(), name, x); err != nil {
			return err
		}
		fv.Set(p)
		return nil
	}
	bad := func() error { return fieldErr(name, ErrType, "a %s does not decode into %s", jsonKind(x), fv.Type()) }
	if fv.Type() == timeType {
		s, _ := x.(string)
		t, ok := format.ParseDate(s, time.UTC)
		if !ok {
			t, ok = format.ParseDateTime(s)
		}
		if !ok {
			return bad()
		}
		fv.Set(reflect.ValueOf(t))
		return nil
	}
	switch fv.Kind() {
	case reflect.Bool:
		b, ok := x.(bool)
		if !ok {
			return bad()
		}
		fv.SetBool(b)
	case reflect.String:
		s, ok := x.(string)
		if !ok {
			return bad()
		}
		fv.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := intOf(x)
		if !ok || fv.OverflowInt(n) {
			return bad()
		}
		fv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, ok := uintOf(x)
		if !ok || fv.OverflowUint(n) {
			return bad()
		}
		fv.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, ok := toFloat(x)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) || fv.OverflowFloat(n) {
			return bad()
		}
		fv.SetFloat(n)
	case reflect.Slice:
		if fv.Type().Elem().Kind() != reflect.String {
			return bad()
		}
		return storeStrings(fv, x, bad)
	default:
		return bad()
	}
	return nil
}

// intOf returns the number x, as an accepted answer or a Go caller holds
// it, as an int64, exactly, and whether it is a whole number an int64
// holds: a float64 as it is, a json.Number on its digits (9007199254740993
// is not 9007199254740992), a Go integer as it is.
func intOf(x any) (int64, bool) {
	if n, ok := x.(float64); ok {
		// Within ±2^63 first: converting a float beyond it is undefined.
		if n != math.Trunc(n) || n < -(1<<63) || n >= 1<<63 {
			return 0, false
		}
		return int64(n), true
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		return int64(u), u < 1<<63
	}
	d, ok := decimalOf(x)
	if !ok {
		return 0, false
	}
	return d.Int64()
}

// uintOf is intOf for a uint64.
func uintOf(x any) (uint64, bool) {
	if n, ok := x.(float64); ok {
		if n != math.Trunc(n) || n < 0 || n >= 1<<64 {
			return 0, false
		}
		return uint64(n), true
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i := rv.Int()
		return uint64(i), i >= 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint(), true
	}
	d, ok := decimalOf(x)
	if !ok {
		return 0, false
	}
	return d.Uint64()
}

// storeStrings stores the list x, a []any of strings or a []string, in
// the string slice fv, copied so that the answer and the value do not
// share memory.
func storeStrings(fv reflect.Value, x any, bad func() error) error {
	var n int
	switch l := x.(type) {
	case []any:
		n = len(l)
	case []string:
		n = len(l)
	default:
		return bad()
	}
	sv := reflect.MakeSlice(fv.Type(), n, n)
	for i := range n {
		var s string
		switch l := x.(type) {
		case []any:
			var ok bool
			if s, ok = l[i].(string); !ok {
				return bad()
			}
		case []string:
			s = l[i]
		}
		sv.Index(i).SetString(s)
	}
	fv.Set(sv)
	return nil
}

// jsonKind names the JSON type of an answer's value, for errors that must
// not quote the value.
func jsonKind(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any, []string:
		return "list"
	case nil:
		return "null"
	}
	if _, ok := toFloat(x); ok {
		return "number"
	}
	return "value"
}
