package mcpform

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
)

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
