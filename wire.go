package mcpform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// freeze turns JSON into a Go value without Marshalers (structs made with
// reflect.StructOf, one field per key in order, and typed slices) whose
// json.Marshal is the same bytes. go-sdk validates and compacts every
// Marshaler's output again at each of the four levels of a result's
// encoding; a compiled schema held this way skips the first of those
// passes, which is most of what sending a compiled form costs. The types
// it makes are never freed, but the runtime shares identical ones, so they
// grow with the distinct schemas compiled, not with calls: only what is
// compiled once is frozen.
func freeze(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return freezeValue(dec)
}

func freezeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var fields []reflect.StructField
		var values []any
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if !validTagName(key) {
				return nil, fmt.Errorf("key %q cannot be a struct tag", key)
			}
			v, err := freezeValue(dec)
			if err != nil {
				return nil, err
			}
			t := reflect.TypeOf(v)
			if t == nil {
				t = reflect.TypeFor[any]()
			}
			fields = append(fields, reflect.StructField{
				Name: fmt.Sprintf("F%d", len(fields)), Type: t, Tag: reflect.StructTag(`json:"` + key + `"`),
			})
			values = append(values, v)
		}
		if _, err := dec.Token(); err != nil { // '}'
			return nil, err
		}
		sv := reflect.New(reflect.StructOf(fields)).Elem()
		for i, v := range values {
			if v != nil {
				sv.Field(i).Set(reflect.ValueOf(v))
			}
		}
		return sv.Interface(), nil
	case json.Delim('['):
		var items []any
		for dec.More() {
			v, err := freezeValue(dec)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
		// One element type: a typed slice, encoded without an
		// interface lookup per element.
		if len(items) > 0 && items[0] != nil {
			t := reflect.TypeOf(items[0])
			same := true
			for _, it := range items {
				same = same && reflect.TypeOf(it) == t
			}
			if same {
				sv := reflect.MakeSlice(reflect.SliceOf(t), len(items), len(items))
				for i, it := range items {
					sv.Index(i).Set(reflect.ValueOf(it))
				}
				return sv.Interface(), nil
			}
		}
		if items == nil {
			items = []any{}
		}
		return items, nil
	}
	return tok, nil // string, json.Number, bool or nil
}

// validTagName reports whether encoding/json takes s as a field's name
// from a tag (its isValidTag), and the tag syntax can hold it.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}
