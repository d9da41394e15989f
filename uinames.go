package mcpform

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rendererKey is the key under which prefab's renderer delivers an argument
// named name: before it dispatches an action it camel-cases every key,
// turning "_" followed by a letter a to z into that letter upper-cased.
func rendererKey(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		if name[i] == '_' && i+1 < len(name) && 'a' <= name[i+1] && name[i+1] <= 'z' {
			b.WriteByte(name[i+1] - 'a' + 'A')
			i++
			continue
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

// jsObjectKeys are the properties every JavaScript object has, plus the
// ones prefab's state store refuses to walk. The renderer looks a value up
// with the in operator, so an absent value under one of these names would
// read the inherited property instead.
var jsObjectKeys = map[string]bool{
	"__proto__": true, "__defineGetter__": true, "__defineSetter__": true,
	"__lookupGetter__": true, "__lookupSetter__": true, "constructor": true,
	"hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"toLocaleString": true, "toString": true, "valueOf": true, "prototype": true,
}

// templateProblem says why prefab's template language (renderer/rx.js in
// 0.3.13) would not read name back as a plain reference, or returns "".
// The rules are conservative: a name they refuse might survive by luck,
// but every name they allow is read back as the value the person entered.
func templateProblem(name string) string {
	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)
	if isJSSpace(first) || isJSSpace(last) {
		return "leading or trailing space is trimmed"
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "a control character"
		}
	}
	for _, s := range [...]string{"{{", "}}", "|", "?", "<", ">", "&&", "==", "!=", " + ", " - ", " * ", " / ", " % "} {
		if strings.Contains(name, s) {
			return fmt.Sprintf("%q is an operator or a template brace", s)
		}
	}
	if name[0] == '$' || name[0] == '!' {
		return fmt.Sprintf("a leading %q is an operator or a scope variable", name[0])
	}
	switch name {
	case "true", "false", "null", "undefined":
		return "it reads as a literal"
	}
	if isNumberLiteral(name) || len(name) >= 1 && (name[0] == '\'' && name[len(name)-1] == '\'' || name[0] == '"' && name[len(name)-1] == '"') {
		return "it reads as a literal"
	}
	for _, seg := range strings.Split(name, ".") {
		if jsObjectKeys[seg] {
			return fmt.Sprintf("%q is a property of every JavaScript object", seg)
		}
	}
	return ""
}

// isJSSpace reports whether JavaScript's String.prototype.trim removes r,
// or could: Go's wider notion of space (U+0085) is kept on the safe side.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// isNumberLiteral matches the renderer's number literal, /^-?\d+(\.\d+)?$/.
func isNumberLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	return allDigits(intPart) && (!hasFrac || allDigits(frac))
}

func allDigits(s string) bool {
	_, ok := digits(s) // its value may overflow; only ok matters here
	return s != "" && ok
}

// checkCarried reports the first field whose value the UI cannot carry back
// to the submit tool under a key AcceptedFormArguments maps to it alone,
// naming the earliest field it clashes with. It indexes the names, the
// renderer's keys and the dotted prefixes seen so far, so a long list costs
// a pass, not a pass per field.
func checkCarried(fields []AutoFormField) error {
	names := make(map[string]int, len(fields))    // name -> index
	keys := make(map[string]int, len(fields))     // renderer key -> index
	prefixes := make(map[string]int, len(fields)) // "a" of a name "a.b" -> index
	for i := range fields {
		name := fields[i].Name
		if p := templateProblem(name); p != "" {
			return fieldErr(name, ErrName, "the prefab renderer cannot read it back: %s", p)
		}
		key := rendererKey(name)
		clash, path := -1, false
		earliest := func(m map[string]int, k string, isPath bool) {
			if j, ok := m[k]; ok && (clash < 0 || j < clash) {
				clash, path = j, isPath
			}
		}
		earliest(names, key, false)
		earliest(keys, key, false)
		earliest(keys, name, false)
		// The renderer's state store reads "a.b" as a path, so "a" and
		// "a.b" would overwrite each other.
		earliest(prefixes, name, true)
		for k := range len(name) {
			if name[k] == '.' {
				earliest(names, name[:k], true)
			}
		}
		if clash >= 0 {
			other := fields[clash].Name
			if path {
				return fieldErr(name, ErrName, "the prefab renderer stores it and %q on one path", other)
			}
			return fieldErr(name, ErrName, "the prefab renderer delivers it and %q under the same key %q", other, key)
		}
		names[name], keys[key] = i, i
		for k := range len(name) {
			if _, seen := prefixes[name[:k]]; name[k] == '.' && !seen {
				prefixes[name[:k]] = i
			}
		}
	}
	return nil
}
