package mcpform

import (
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
