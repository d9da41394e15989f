package mcpform

import "encoding/json"

// wireSchema returns a compiled form's schema, marshalled once, as it goes
// on the wire: the bytes themselves, as a json.RawMessage, which
// encoding/json writes as they are. Every legal property name, "-" and
// names with quotes or commas included, reaches the client exactly as the
// schema was marshalled, and nothing is made per form but the bytes,
// which go when the form goes. (Go types made at run time with
// reflect.StructOf, which this replaces, were never freed, and a struct
// tag cannot carry every name: json:"-" drops the field.)
func wireSchema(raw []byte) any { return json.RawMessage(raw) }
