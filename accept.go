package mcpform

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Errors that say why part of an answer was not accepted. They reach callers
// wrapped in a [*FieldError] that names the field.
var (
	// ErrUnknownField reports an answered key that names no field.
	ErrUnknownField = errors.New("unknown field")
	// ErrInvalidValue reports a value that does not satisfy its field's
	// property schema. The wrapping error says which rule it breaks,
	// without repeating the value.
	ErrInvalidValue = errors.New("invalid value")
	// ErrMissing reports a required field with no acceptable value.
	ErrMissing = errors.New("missing required value")
)

// Answers holds the accepted values of a form answer, keyed by field name.
// Values have their JSON types: string, float64 (or another Go number, when
// the caller built the content in-process), bool, and []any of strings for a
// multiple-choice field. A nil Answers holds nothing.
//
// A number is judged as it was written, then converted: a number field's
// answer is the float64 nearest to it. An integer field's answer that no
// float64 holds exactly, such as 9007199254740993, stays a json.Number,
// written as JavaScript writes numbers, so that it is never rounded;
// [Answers.Decode] and a [Form] store it exactly in an int64 or uint64.
// Such a number arrives only as written: through the arguments (the view
// and model paths), or in content holding json.Number values. go-sdk
// decodes a native answer into float64, which has rounded it already.
type Answers map[string]any

// Decode stores the answers in the value pointed to by v, as a [Form]
// decodes the answers it accepts: a date answer fills a time.Time at UTC
// midnight and a date-time answer one with its offset, a whole number any
// integer type, and a multiple-choice answer a []string; a pointer field
// is allocated. A struct's fields are found by their json names, as
// encoding/json finds them, and keys that name none are ignored. A value
// that does not fit its Go field is a [*FieldError] wrapping [ErrType].
// Struct fields of other types (and v that is not a pointer to a struct)
// are filled by encoding/json from the values' JSON, as are fields of a
// type with its own UnmarshalJSON or UnmarshalText. Decoding nil Answers
// leaves v as it is.
func (a Answers) Decode(v any) error {
	if a == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return decodeJSON(map[string]any(a), v)
	}
	rv = rv.Elem()
	byName := structFields(rv.Type())
	for name, x := range a {
		sf, ok := byName.find(name)
		if !ok {
			continue
		}
		fv, err := fieldAlloc(rv, sf.Index)
		if err != nil {
			return inGoField(fieldErr(name, ErrType, "%v", err), sf.Name)
		}
		if !storable(sf.Type) {
			if err := decodeJSON(x, fv.Addr().Interface()); err != nil {
				return &FieldError{Field: name, GoField: sf.Name, Err: fmt.Errorf("%w: %w", ErrType, err)}
			}
			continue
		}
		if err := store(fv, name, x); err != nil {
			return inGoField(err, sf.Name)
		}
	}
	return nil
}

// UnmarshalJSON decodes a JSON object of answers, or null for nil, as
// encoding/json decodes one into a map[string]any, except for numbers: a
// number is the float64 that is exactly it, or else stays a json.Number
// as written. So an integer no float64 holds, which an accepted answer
// keeps as a json.Number, comes back as it was: 9007199254740993 proven
// in a flow's first step is still itself in its last. JSON that says two
// things, a key given twice, invalid UTF-8 or a lone surrogate escape, is
// an error: no answer has two readings.
func (a *Answers) UnmarshalJSON(b []byte) error {
	// Numbers as written, and JSON that says two things refused whole:
	// Answers hold no value that has two readings.
	v, err := decodeValue(b)
	if err == nil {
		err = canonjson.Check(b)
	}
	if err != nil {
		return err
	}
	switch m := v.(type) {
	case nil:
		*a = nil
	case map[string]any:
		answerNumbers(m)
		*a = m
	default:
		return &json.UnmarshalTypeError{Value: jsonKind(v), Type: answersType}
	}
	return nil
}

// decodeJSON stores x in v through its JSON, as encoding/json would.
func decodeJSON(x, v any) error {
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("mcpform: decoding answers: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("mcpform: decoding answers: %w", err)
	}
	return nil
}

// InputResponse returns the client's form answer under key, or nil when
// there is none: on a first call, for an unknown key, or when the response
// under key is not an elicitation result. Use it to tell a decline
// (Action "decline") or cancel (Action "cancel") from a first pass, which
// [AcceptedFormInput] reports alike. The result is the client's raw,
// unchecked answer. A nil responses has no answers.
func InputResponse(responses mcp.InputResponseMap, key string) *mcp.ElicitResult {
	r, _ := responses[key].(*mcp.ElicitResult)
	return legacy.Answer(r) // an answer AddLegacyRounds kept from go-sdk's check

}

// AcceptedFormInput returns the accepted values of the client's form answer
// under key, checked against fields, and whether the answer was accepted.
//
// The answer is untrusted. A value is kept only when its key names a field
// and the value satisfies that field's property in [FormSchema], exactly as a
// JSON Schema 2020-12 validator asserting formats would judge it: email, uri,
// date and date-time formats, string lengths in Unicode code points, item
// counts, and integers as whole numbers (42.0 is an integer). Other keys and
// values are dropped. If a required field is then missing, the whole answer
// fails.
//
// AcceptedFormInput returns nil, false when there is no answer, when it was
// declined or cancelled, when it was accepted without content, when a
// required value is missing or invalid, and when fields is broken. To learn
// why, call [CheckFormInput].
func AcceptedFormInput(responses mcp.InputResponseMap, key string, fields []AutoFormField) (Answers, bool) {
	a, _ := CheckFormInput(responses, key, fields)
	return a, a != nil
}

// CheckFormInput is [AcceptedFormInput] with the reasons. It returns the
// accepted answers, or nil when the answer as a whole fails, and one
// [*FieldError] for every dropped value (wrapping [ErrUnknownField] or
// [ErrInvalidValue]) and every missing required field (wrapping
// [ErrMissing]), in field order, then unknown keys in key order. The
// problems are meant for asking again with a message that names them.
//
// When there is no accepted answer to check, CheckFormInput returns nil, nil;
// read [InputResponse] to learn whether the person declined. A broken
// fields is returned as its only problem.
func CheckFormInput(responses mcp.InputResponseMap, key string, fields []AutoFormField) (Answers, []*FieldError) {
	r := InputResponse(responses, key)
	if r == nil || r.Action != "accept" || r.Content == nil {
		return nil, nil
	}
	return checkContent(r.Content, fields)
}

// checkContent applies the acceptance rules to an answer's content; both the
// native and the UI path end here.
func checkContent(content map[string]any, fields []AutoFormField) (Answers, []*FieldError) {
	if err := checkFields(fields); err != nil {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{Err: err}
		}
		return nil, []*FieldError{fe}
	}
	accepted, problems, missing := checkCompiled(content, fields, fieldLookup(fields), false)
	if missing {
		return nil, problems
	}
	return accepted, problems
}

// checkCompiled judges content against fields already checked, whose names
// lookup finds. It returns the accepted values, the problems, and whether a
// required field lacks an accepted value, which fails the answer as a
// whole. When owned, content is the caller's own, decoded for this call
// alone, and is returned as the accepted values when all of it is kept;
// otherwise they are always a new map.
func checkCompiled(content map[string]any, fields []AutoFormField, lookup func(string) int, owned bool) (Answers, []*FieldError, bool) {
	// Walk the fields, one map lookup each, rather than the content: the
	// cost follows the form, not what the client sent, and problems come
	// out in field order. Keys that name no field are only visited when
	// some were sent.
	var keptBuf [64]bool
	var kept []bool
	if len(fields) <= len(keptBuf) {
		kept = keptBuf[:len(fields)]
	} else {
		kept = make([]bool, len(fields))
	}
	var problems []*FieldError
	sent, refused := 0, 0
	missing, numbers := false, false
	for i := range fields {
		f := &fields[i]
		v, ok := content[f.Name]
		if ok {
			sent++
			reason := f.checkReason(v)
			if reason == nil {
				kept[i] = true
				if _, n := v.(json.Number); n {
					numbers = true // judged as written; converted below
				}
				continue
			}
			refused++
			problems = append(problems, &FieldError{Field: f.Name, Err: fmt.Errorf("%w: %w", ErrInvalidValue, reason)})
		}
		if f.Required {
			missing = true
			if !ok {
				problems = append(problems, &FieldError{Field: f.Name, Err: ErrMissing})
			}
		}
	}
	unknown := sent < len(content)
	var accepted Answers
	switch {
	case !unknown && refused == 0 && content != nil && owned:
		accepted = content
	case !unknown && refused == 0 && content != nil:
		// Everything sent is kept: a copy of the map costs less than
		// building it again key by key.
		accepted = maps.Clone(content)
	default:
		// Sized by what is kept, not by what was sent: unknown keys cost
		// nothing.
		accepted = make(Answers, sent-refused)
		for i := range fields {
			if kept[i] {
				accepted[fields[i].Name] = content[fields[i].Name]
			}
		}
	}
	if numbers {
		// Judged as written, converted only now that they passed. The
		// accepted map is content only when it is owned.
		for i := range fields {
			if n, ok := accepted[fields[i].Name].(json.Number); ok && kept[i] {
				accepted[fields[i].Name] = fields[i].acceptedNumber(n)
			}
		}
	}
	if unknown {
		problems = appendUnknown(problems, content, lookup)
	}
	return accepted, problems, missing
}

// maxUnknownReported bounds the unknown keys reported by name, so that an
// answer with a hundred thousand junk keys costs no more to report than one
// with a few.
const maxUnknownReported = 8

// appendUnknown reports the keys of content that name no field: the first
// maxUnknownReported in key order, each by name, then one problem that
// counts the rest. It keeps only those few keys, whatever was sent.
func appendUnknown(problems []*FieldError, content map[string]any, lookup func(string) int) []*FieldError {
	var buf [maxUnknownReported]string
	first := buf[:0] // sorted, the smallest keys seen so far
	more := 0
	for k := range content {
		if lookup(k) >= 0 {
			continue
		}
		if len(first) == maxUnknownReported {
			more++
			if k >= first[len(first)-1] {
				continue
			}
			first = first[:len(first)-1]
		}
		i, _ := slices.BinarySearch(first, k)
		first = slices.Insert(first, i, k)
	}
	for _, k := range first {
		problems = append(problems, &FieldError{Field: k, Err: ErrUnknownField})
	}
	if more > 0 {
		problems = append(problems, &FieldError{Err: fmt.Errorf("%w: %d more keys", ErrUnknownField, more)})
	}
	return problems
}

// indexFrom is the field count from which a name index beats a linear scan.
const indexFrom = 16

// fieldLookup returns a function from a name to its field's index, or -1.
func fieldLookup(fields []AutoFormField) func(string) int {
	if len(fields) < indexFrom {
		return func(name string) int { return fieldIndex(fields, name) }
	}
	index := make(map[string]int, len(fields))
	for i := range fields {
		index[fields[i].Name] = i
	}
	return func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		return -1
	}
}

func fieldIndex(fields []AutoFormField, name string) int {
	for i := range fields {
		if fields[i].Name == name {
			return i
		}
	}
	return -1
}

// ProblemMessage describes problems for a person, for a message that
// asks again: a sentence for each, which names the field by the title it
// was asked with and says how to put it right, in the words a view and
// the secret page use, for example "Email must be an email address, like
// name@example.com. Seats must be from 2 to 50." Problems with unknown
// fields are left out, as a person cannot act on them. It returns "" when
// nothing is left to say. It speaks English; a [Flow] or [Form] asks
// again in the person's language.
func ProblemMessage(fields []AutoFormField, problems []*FieldError) string {
	return problemMessage(catalog.English, nil, fields, problems)
}

// problemMessage is ProblemMessage in l. own translates what the
// catalogs cannot know, such as the reasons a Step's Check wrote; nil
// keeps them as they are.
func problemMessage(l catalog.Lang, own func(string) string, fields []AutoFormField, problems []*FieldError) string {
	return messageAndProblems("", l, own, fields, problems, nil)
}

// messageAndProblems returns message, followed, when problemMessage has
// something to say, by a blank line and that: in one string, as a re-ask
// says it. With notes non-nil, it also appends a note for each problem it
// names, whose words are the part of the string that names it: the notes
// cost no text of their own.
func messageAndProblems(message string, l catalog.Lang, own func(string) string, fields []AutoFormField, problems []*FieldError, notes *[]problemNote) string {
	type said struct {
		field, text string
		from, to    int // where its words are, in the string
	}
	var buf [8]said
	all := buf[:0]
	n := 0
	t := viewTexts[l]
	for _, p := range problems {
		if errors.Is(p.Err, ErrUnknownField) {
			continue
		}
		s := said{}
		var f *AutoFormField
		if i := fieldIndex(fields, p.Field); i >= 0 {
			f, s.field = &fields[i], p.Field
		}
		s.text = t.sentence(f, p, own)
		all = append(all, s)
		n += len(s.text)
	}
	if len(all) == 0 {
		return message
	}
	// One string, written in place around the problems, so that each
	// note can name its part of it. Every catalog's catalog.Sentence has
	// the one placeholder {text} (TestCatalogsComplete).
	head, tail, _ := strings.Cut(l.Text(catalog.Sentence), "{text}")
	sep := l.Text(catalog.ProblemSep)
	n += len(all) * (len(head) + len(tail) + len(sep))
	var b strings.Builder
	if message != "" {
		n += len(message) + 2
	}
	b.Grow(n)
	if message != "" {
		b.WriteString(message)
		b.WriteString("\n\n")
	}
	for i := range all {
		s := &all[i]
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(head)
		s.from = b.Len()
		b.WriteString(s.text)
		s.to = b.Len()
		b.WriteString(tail)
	}
	text := b.String()
	if notes != nil {
		for _, s := range all {
			*notes = append(*notes, problemNote{Field: s.field, Problem: text[s.from:s.to]})
		}
	}
	return text
}

// sentence says how to put p right, as one sentence without its stop, in
// t's language, in the words a view's summary uses: it names f, the field
// p is of (nil for none), by its title. A problem of no field is said as
// its reason, capitalised. own translates the author's own words, as in
// problemReason.
func (t *viewText) sentence(f *AutoFormField, p *FieldError, own func(string) string) string {
	if f == nil {
		return upperFirst(problemReason(t.l, own, p.Err))
	}
	if errors.Is(p.Err, ErrSecretWaiting) || errors.Is(p.Err, ErrSecretRefused) {
		// A view says to open its page; a re-ask, which has none, names
		// the field and what became of its page.
		return catalog.Fill(t.Check, "label", f.title(), "reason", problemReason(t.l, own, p.Err))
	}
	v := f.problemField()
	return t.fixOwn(&v, p, nil, own)
}

// problemReason words err, a problem's cause, in l: the detail after the
// sentinel, or the sentinel alone.
func problemReason(l catalog.Lang, own func(string) string, err error) string {
	reason := err.Error()
	for _, s := range [...]error{ErrInvalidValue, ErrMissing} {
		if errors.Is(err, s) {
			reason = strings.TrimPrefix(strings.TrimPrefix(reason, s.Error()), ": ")
			if reason == "" {
				reason = s.Error()
			}
		}
	}
	if l == catalog.English {
		return reason
	}
	if r := reasonIn(l, err, reason); r != reason {
		return r
	}
	switch {
	case reason == ErrMissing.Error():
		return l.Text(catalog.Missing)
	case errors.Is(err, ErrSecretWaiting):
		return l.Text(catalog.SecretWaiting)
	case reason == ErrInvalidValue.Error() || errors.Is(err, errUnknownAction) || errors.Is(err, errNotObject):
		return l.Text(catalog.Invalid)
	case own != nil:
		return own(reason)
	}
	return reason
}

// A re-ask names its problems twice: in its message, in words for the
// person, and in its _meta under problemsMeta, for machines (a test kit,
// a host's own UI), so that nothing has to read the person's language to
// know which fields were refused. A host shows neither _meta nor its
// notes; the person sees what they saw before.

// problemsMeta is the _meta key of a native re-ask's problem notes.
const problemsMeta = "io.github.mcpform/problems"

// A problemNote is one problem a re-ask names: the field's name, empty
// for a problem of no field, and the words the message uses for it.
type problemNote struct {
	Field   string `json:"field,omitempty"`
	Problem string `json:"problem"`
}

// withProblemsNoted returns message, then, if problemMessage says
// anything, a blank line and that, in c's language; and the _meta that
// notes each problem it names, whose words are that part of the text
// (nil for none).
func (c *compiled) withProblemsNoted(message string, problems []*FieldError) (string, map[string]any) {
	if len(problems) == 0 {
		return message, nil
	}
	notes := make([]problemNote, 0, len(problems))
	text := messageAndProblems(message, c.lang, c.ownWords(), c.all, problems, &notes)
	if len(notes) == 0 {
		return text, nil
	}
	return text, map[string]any{problemsMeta: notes}
}

// notesOf returns the problem notes in a request's _meta; nil for none.
func notesOf(meta mcp.Meta) []problemNote {
	notes, _ := meta[problemsMeta].([]problemNote)
	return notes
}
