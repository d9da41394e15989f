package mcpform

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"time"
)

// ErrType reports a field whose accepted values a Go type cannot hold: the
// struct field a [Form] decodes it into, or a type [FormFor] cannot ask for.
var ErrType = errors.New("invalid type")

var (
	timeType    = reflect.TypeFor[time.Time]()
	answersType = reflect.TypeFor[Answers]()
)

// maxExactInt is the largest integer a JSON number (a float64) holds
// exactly, 2^53-1.
const maxExactInt = 1<<53 - 1

// A decoder fills a struct from accepted answers. It was built against the
// fields, so every accepted value fits the Go field it goes to.
type decoder struct {
	fields  []AutoFormField // the form's
	targets []target        // by field index
}

type target struct {
	index []int        // the struct field, for reflect.Value.FieldByIndex
	typ   reflect.Type // its type; a pointer means optional
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
	byName := map[string]reflect.StructField{}
	for _, sf := range reflect.VisibleFields(t) {
		if name, ok := jsonName(sf); ok {
			byName[name] = sf
		}
	}
	d := &decoder{fields: fields, targets: make([]target, len(fields))}
	for i := range fields {
		f := &fields[i]
		sf, ok := byName[f.Name]
		if !ok {
			return nil, fieldErr(f.Name, ErrName, "no field of %s has this json name", t)
		}
		if throughPointer(t, sf.Index) {
			return nil, fieldErr(f.Name, ErrType, "its field is promoted through an embedded pointer")
		}
		if err := fitType(f, sf.Type); err != nil {
			return nil, err
		}
		d.targets[i] = target{index: sf.Index, typ: sf.Type}
	}
	return d, nil
}

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

// jsonName is the name encoding/json gives a struct field, and false for
// one it skips.
func jsonName(sf reflect.StructField) (string, bool) {
	if !sf.IsExported() || sf.Anonymous && sf.Type.Kind() == reflect.Struct {
		return "", false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	return name, true
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
		for _, b := range []struct {
			p     **float64
			limit float64
		}{{&f.Min, lo}, {&f.Max, hi}} {
			if *b.p == nil {
				*b.p = Bound(b.limit)
			} else if **b.p < lo || **b.p > hi {
				return fieldErr(f.Name, ErrBounds, "bound %v does not fit %s", **b.p, t)
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
// number field, and false when t holds none of them.
func numberRange(t reflect.Type, integer bool) (lo, hi float64, ok bool) {
	switch t.Kind() {
	case reflect.Float64:
		return -math.MaxFloat64, math.MaxFloat64, true
	case reflect.Float32:
		return -math.MaxFloat32, math.MaxFloat32, true
	}
	if !integer {
		return 0, 0, false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		hi = math.Min(float64(int64(1)<<(bits-1)-1), maxExactInt)
		return -hi - boolFloat(bits < 64), hi, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits := t.Bits()
		return 0, math.Min(float64(uint64(1)<<bits-1), maxExactInt), true
	}
	return 0, 0, false
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// into stores accepted answers a in *v. Every value was accepted by its
// field, which fitType matched to its Go field, so nothing here can fail.
func (d *decoder) into(v any, a Answers) {
	rv := reflect.ValueOf(v).Elem()
	for i := range d.fields {
		f := &d.fields[i]
		x, ok := a[f.Name]
		if !ok {
			continue // unanswered: stays zero or nil
		}
		fv := rv.FieldByIndex(d.targets[i].index)
		if fv.Kind() == reflect.Pointer {
			p := reflect.New(fv.Type().Elem())
			setValue(p.Elem(), f, x)
			fv.Set(p)
			continue
		}
		setValue(fv, f, x)
	}
}

// setValue stores x, accepted by f, in fv.
func setValue(fv reflect.Value, f *AutoFormField, x any) {
	switch fv.Kind() {
	case reflect.Bool:
		fv.SetBool(x.(bool))
	case reflect.String:
		fv.SetString(x.(string))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, _ := toFloat(x)
		fv.SetInt(int64(n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, _ := toFloat(x)
		fv.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		n, _ := toFloat(x)
		fv.SetFloat(n)
	case reflect.Slice:
		var items []string
		switch l := x.(type) {
		case []string:
			items = l
		case []any:
			items = make([]string, len(l))
			for i, it := range l {
				items[i] = it.(string)
			}
		}
		sv := reflect.MakeSlice(fv.Type(), len(items), len(items))
		for i, it := range items {
			sv.Index(i).SetString(it)
		}
		fv.Set(sv)
	case reflect.Struct: // time.Time, as fitType allows
		s := x.(string)
		if f.format() == "date" {
			fv.Set(reflect.ValueOf(parseDate(s, time.UTC)))
		} else {
			fv.Set(reflect.ValueOf(parseDateTime(s)))
		}
	}
}

// parseDate reads a date isDate accepted, at midnight in loc.
func parseDate(s string, loc *time.Location) time.Time {
	y, _ := digits(s[0:4])
	m, _ := digits(s[5:7])
	d, _ := digits(s[8:10])
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc)
}

// parseDateTime reads a date-time isDateTime accepted, with its offset. It
// takes what time.Parse refuses but RFC 3339 allows: a lower-case 't' or
// 'z', any number of fraction digits, and a leap second, read as the first
// instant of the next minute.
func parseDateTime(s string) time.Time {
	h, _ := digits(s[11:13])
	mi, _ := digits(s[14:16])
	sec, _ := digits(s[17:19])
	rest := s[19:]
	nsec := 0
	if strings.HasPrefix(rest, ".") {
		n := 1
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		frac := rest[1:n]
		if len(frac) > 9 {
			frac = frac[:9]
		}
		nsec, _ = digits(frac)
		for range 9 - len(frac) {
			nsec *= 10
		}
		rest = rest[n:]
	}
	loc := time.UTC
	if rest != "z" && rest != "Z" {
		zh, _ := digits(rest[1:3])
		zm, _ := digits(rest[4:6])
		off := (zh*60 + zm) * 60
		if rest[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	d := parseDate(s[:10], loc)
	return time.Date(d.Year(), d.Month(), d.Day(), h, mi, sec, nsec, loc)
}
