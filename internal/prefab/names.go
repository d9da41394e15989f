package prefab

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpform/mcpform/internal/format"
)

// The names a view's calls carry, which the tool that reads them shares.
const (
	// ActionArgument is the argument under which a view, or a model,
	// acts rather than answers, beside the state. Its value is
	// DeclineAction, RenderAction or RestartAction; there is no way to
	// say "accept" this way, so that a confirmation stays fail-closed. It
	// has no "_", which the renderer would camel-case (see RendererKey).
	ActionArgument = "mcpformAction"
	// DeclineAction declines the step a view shows: a view's Decline
	// button sends it, and the model is told to.
	DeclineAction = "decline"
	// RenderAction asks, from a view alone, for the step it shows again,
	// unanswered, in the language of the call's acceptLanguage: the
	// viewer sends it when the host's locale is not the view's. It reads
	// no answer and proves nothing.
	RenderAction = "render"
	// RestartAction, sent with a view's state, starts the flow again from
	// its first step, as a new run in the state's language: the Start
	// again button of an outcome that did not complete sends it. It reads
	// no answer and proves nothing.
	RestartAction = "restart"
	// CompanionTool is the app-only tool a view's submit calls.
	CompanionTool = "mcpform_view_submit"
	// ToolArgument names, in a companion call, the tool it reaches.
	ToolArgument = "mcpformTool"
	// ArgumentsArgument names, in a view's submit, the tool's own
	// arguments of the call that showed the view, as the text of a JSON
	// object: a string, which a host's JavaScript sends back as it was
	// given, where it would round a number above 2^53 it parsed. The
	// companion puts its members back among the arguments (see Unpack)
	// before the tool reads them.
	ArgumentsArgument = "mcpformArguments"
	// OutcomeKey is the renderer state key under which a flow view keeps
	// the result of its submit.
	OutcomeKey = "mcpformResult"
)

// The classes the viewer's script (viewer.js) finds its elements by.
const (
	// OutcomeClass marks the element of a view that shows the text of the
	// tool's final result, for the viewer's script to tell the model.
	OutcomeClass = "mcpform-outcome"
	// OutcomeModelClass marks the hidden element that holds the result's
	// second text block, which is for the model alone.
	OutcomeModelClass = "mcpform-outcome-model"
	// OutcomePanelClass marks the outcome's panel: a status, focused.
	OutcomePanelClass = "mcpform-outcome-panel"
	// ReviewClass marks the answers a flow's last round asks to check.
	ReviewClass = "mcpform-review"
	// SummaryClass marks the error summary, focused after a re-ask.
	SummaryClass = "mcpform-problems"
	// HiddenClass hides text from the eye but not from a screen reader,
	// as GOV.UK's govuk-visually-hidden does (viewer.css).
	HiddenClass = "mcpform-visually-hidden"
	// OpenLinkClass marks the link that the host opens (ui/open-link).
	OpenLinkClass = "mcpform-open-link"
	// CopyLinkClass marks the button that copies that link.
	CopyLinkClass = "mcpform-copy-link"
	// CopiedClass marks the status said once the link is copied.
	CopiedClass = "mcpform-copied"
	// LangClass, followed by a language code, marks a view's root in
	// that language; the viewer's script sets the page's lang from it,
	// since prefab 0.3.13 passes no lang attribute through. English, the
	// viewer page's own lang, goes unmarked.
	LangClass = "mcpform-lang-"
	// LangPartClass is the class prefix under which a view marks author
	// text in another language than its own, as when the author gave no
	// translation, since prefab 0.3.13 passes no lang attribute through:
	// LangPartClass+"in-en" on an element in English;
	// LangPartClass+"span-3-9-en" on an element whose text from UTF-16
	// offset 3, for 9 code units, is; on a Field, LangPartClass+
	// "label-0-9-en" for its label's text, and LangPartClass+"option-2-en"
	// for the third option of its select. The viewer's script sets lang
	// on the element, or on a span it wraps the text in.
	LangPartClass = "mcpform-part-"
	// BoundClass is the class prefix under which a Field carries an
	// attribute for its control, as BoundClass+"max=50".
	BoundClass = "mcpform-attr-"
)

// RendererKey is the key under which prefab's renderer delivers an argument
// named name: before it dispatches an action it camel-cases every key,
// turning "_" followed by a letter a to z into that letter upper-cased.
func RendererKey(name string) string {
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

// TemplateProblem says why prefab's template language (renderer/rx.js in
// 0.3.13) would not read name back as a plain reference, or returns "".
// The rules are conservative: a name they refuse might survive by luck,
// but every name they allow is read back as the value the person entered.
func TemplateProblem(name string) string {
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
	return format.AllDigits(intPart) && (!hasFrac || format.AllDigits(frac))
}

// CarryProblem returns the index of the first of names whose value a view
// cannot carry back to the tool under a key that maps to it alone, and
// why, naming the earliest name it clashes with; -1 and "" when every name
// is carried. It indexes the names, the renderer's keys and the dotted
// prefixes seen so far, so a long list costs a pass, not a pass per name.
func CarryProblem(names []string) (int, string) {
	byName := make(map[string]int, len(names))   // name -> index
	keys := make(map[string]int, len(names))     // renderer key -> index
	prefixes := make(map[string]int, len(names)) // "a" of a name "a.b" -> index
	for i, name := range names {
		if p := TemplateProblem(name); p != "" {
			return i, "the prefab renderer cannot read it back: " + p
		}
		key := RendererKey(name)
		clash, path := -1, false
		earliest := func(m map[string]int, k string, isPath bool) {
			if j, ok := m[k]; ok && (clash < 0 || j < clash) {
				clash, path = j, isPath
			}
		}
		earliest(byName, key, false)
		earliest(keys, key, false)
		earliest(keys, name, false)
		// The renderer's state store reads "a.b" as a path, so "a" and
		// "a.b" would overwrite each other.
		earliest(prefixes, name, true)
		for k := range len(name) {
			if name[k] == '.' {
				earliest(byName, name[:k], true)
			}
		}
		if clash >= 0 {
			other := names[clash]
			if path {
				return i, fmt.Sprintf("the prefab renderer stores it and %q on one path", other)
			}
			return i, fmt.Sprintf("the prefab renderer delivers it and %q under the same key %q", other, key)
		}
		byName[name], keys[key] = i, i
		for k := range len(name) {
			if _, seen := prefixes[name[:k]]; name[k] == '.' && !seen {
				prefixes[name[:k]] = i
			}
		}
	}
	return -1, ""
}
