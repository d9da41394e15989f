package mcpform

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// problemNotes are the notes of problems, in c's language, one for each
// part of c.problemMessage(problems), in its order; nil for none.
func (c *compiled) problemNotes(problems []*FieldError) []problemNote {
	var notes []problemNote
	own := c.ownWords()
	for _, p := range problems {
		if errors.Is(p.Err, ErrUnknownField) {
			continue // unnamed in the message too
		}
		n := problemNote{Problem: problemReason(c.lang, own, p.Err)}
		if i := fieldIndex(c.all, p.Field); i >= 0 {
			n.Field = p.Field
			n.Problem = c.lang.format(msgFieldProblem, "field", c.all[i].title(), "reason", n.Problem)
		}
		notes = append(notes, n)
	}
	return notes
}

// problemsMetaOf is the _meta of a re-ask naming problems; nil for none.
func (c *compiled) problemsMetaOf(problems []*FieldError) map[string]any {
	notes := c.problemNotes(problems)
	if len(notes) == 0 {
		return nil
	}
	return map[string]any{problemsMeta: notes}
}

// notesOf returns the problem notes in a request's _meta; nil for none.
func notesOf(meta mcp.Meta) []problemNote {
	notes, _ := meta[problemsMeta].([]problemNote)
	return notes
}
