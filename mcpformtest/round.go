package mcpformtest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Path is how a round asked the person.
type Path string

// The paths a round may take.
const (
	// PathNative is a native form request (input_required). A round that
	// asks a form and a secret page at once is PathNative with Link set.
	PathNative Path = "form"
	// PathURL is a native URL-mode request: a secret page alone.
	PathURL Path = "url"
	// PathLegacy is an elicitation/create the server sent mid-call.
	PathLegacy Path = "legacy"
	// PathView is an MCP Apps view.
	PathView Path = "view"
	// PathModel is a result that asks the model to ask the person.
	PathModel Path = "model"
	// PathLink is a result that gives the person a secret page's link.
	PathLink Path = "link"
	// PathOutcome is the tool's last result, or the error that ended
	// the call.
	PathOutcome Path = "outcome"
)

// A Question is a field a round shows the person.
type Question struct {
	// Name is the field's name, as answers are keyed.
	Name string
	// Label is its title as shown; empty if it has none.
	Label string
	// Default is the value it shows before the person types, as JSON
	// decodes it: on a re-ask, the answer already accepted. Nil if none.
	Default any
}

// A Round is one thing the server sent the host in a call, as the host
// saw it: a question, or the outcome.
type Round struct {
	// Path is how the round asked.
	Path Path
	// Message is the round's message as the person reads it: a
	// request's message, a view's heading, or the model's instructions.
	Message string
	// Questions are the fields asked, in the server's order; a secret
	// page's are not among them.
	Questions []Question
	// Problems are the problems the round names, each "Label: reason"
	// as mcpform's re-ask words it, in the person's language: a form's as
	// its request's _meta notes them, a view's and the model's as the
	// result's text names them (the view itself words each at its field,
	// for the person); and what the secret page said when it refused a
	// post.
	Problems []string
	// Fields are the names of the fields the round names problems of, in
	// its order, the same in every language: a form's as its request's
	// _meta notes them, a view's as it marks each field with its error.
	Fields []string
	// Link is the secret page's link, if the round gives one.
	Link string
	// Page is the HTTP status of posting the secret page's form; zero if
	// it was not posted.
	Page int

	// Text is the text of the result's content blocks, joined by
	// newlines.
	Text string
	// Status is the result's structuredContent "status", if it has one.
	Status string
	// IsError says whether the result is an error result.
	IsError bool
	// Err is the JSON-RPC error that ended the call, on PathOutcome.
	Err *jsonrpc.Error
}

// Names returns the names of r's questions, in order.
func (r Round) Names() []string {
	var names []string
	for _, q := range r.Questions {
		names = append(names, q.Name)
	}
	return names
}

// A Result is a whole tool call as the host saw it. Its Round is the
// last: the outcome, or the question the script ran out on.
type Result struct {
	Round
	// Rounds are all the call's rounds, in order, the last included.
	Rounds []Round
	// Last is the params of the last tools/call the host sent, as sent,
	// for [Client.Replay].
	Last json.RawMessage
}

// A problemNote is one problem a re-ask notes in its _meta.
type problemNote struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// noted adds the problems a request notes to r's: the words of each,
// and the field it names.
func (r *Round) noted(notes []problemNote) {
	for _, n := range notes {
		r.Problems = append(r.Problems, n.Problem)
		if n.Field != "" {
			r.Fields = append(r.Fields, n.Field)
		}
	}
}

// questionsOf returns the properties of a requested schema, in the
// order the server wrote them, with their titles.
func questionsOf(schema json.RawMessage) []Question {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	var titles map[string]struct {
		Title   string `json:"title"`
		Default any    `json:"default"`
	}
	json.Unmarshal(s.Properties, &titles)
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var qs []Question
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return qs
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return qs
		}
		qs = append(qs, Question{Name: name, Label: titles[name].Title, Default: titles[name].Default})
	}
	return qs
}

// toolResult is what the host reads of a tools/call result.
type toolResult struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
	Content       []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Meta              struct {
		// Problems are a view's problems as mcpform notes them.
		Problems []problemNote `json:"io.github.mcpform/problems"`
	} `json:"_meta"`
}

// ended returns the tool's last result that r shows when r is the view of
// it, which a view's submit gets in its place: a view whose state holds
// the result under mcpform's outcome key. It returns nil for any other.
func (r *toolResult) ended() *toolResult {
	var w struct {
		Prefab json.RawMessage            `json:"$prefab"`
		State  map[string]json.RawMessage `json:"state"`
	}
	if json.Unmarshal(r.StructuredContent, &w) != nil || w.Prefab == nil {
		return nil
	}
	raw := w.State[outcomeKey]
	var last toolResult
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &last) != nil {
		return nil
	}
	return &last
}

// outcomeKey is where a view keeps the tool's last result
// (internal/prefab.OutcomeKey).
const outcomeKey = "mcpformResult"

// outcome returns r as an outcome round.
func (r *toolResult) outcome() Round {
	out := Round{Path: PathOutcome, Text: r.text(), IsError: r.IsError}
	var s struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(r.StructuredContent, &s) == nil {
		out.Status = s.Status
	}
	return out
}

func (r *toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}
