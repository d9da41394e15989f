package mcpform

import (
	"encoding/json"

	"github.com/mcpform/mcpform/internal/canonjson"
)

// The binding digest's canonical JSON is internal/canonjson's. A flow's
// state is bound to the digest of the call's arguments without the flow's
// own (see callArguments); these names keep the root's spelling for the
// call reader and the answer checks.

// argumentsDigest returns the digest of a tool call's arguments that a
// flow's state is bound to when the flow has no argument of its own, as
// callArguments computes it with none.
func argumentsDigest(raw json.RawMessage) (string, error) {
	return canonjson.ArgumentsDigest(raw)
}

// canonicalJSON returns v, as readArguments decodes it, in the canonical
// form the binding digest is taken of; v is changed in place. See
// canonjson.Marshal.
func canonicalJSON(v any) ([]byte, error) { return canonjson.Marshal(v) }

// errFoldedKeys refuses arguments that hold an object with two keys that
// differ only in case.
var errFoldedKeys = canonjson.ErrFoldedKeys

// canonicalNumber returns the JSON number s in its canonical spelling.
func canonicalNumber(s string) string { return canonjson.Number(s) }

// isCanonicalInteger reports whether s is an integer as canonicalNumber
// writes it.
func isCanonicalInteger(s string) bool { return canonjson.IsCanonicalInteger(s) }

// digestOf returns the binding digest of canonical JSON.
func digestOf(canonical []byte) string { return canonjson.Digest(canonical) }
