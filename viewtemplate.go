package mcpform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A step's view changes little from round to round: a re-ask adds the
// summary of its problems and each field's problem, and shows the values
// it keeps; the rest, most of its bytes, stays. So a step's view, at its
// place and for the tool it submits to, is encoded once with stand-ins
// where those go, and cut there into a viewTemplate; a round writes only
// what changed, between the pieces, and its renderer state.
//
// What the pieces hold is fixed once c is compiled: its fields, message
// and labels, in c's language (a form in another language is a compiled
// copy of its own, with the author's translations applied: see
// languageform.go). What a round translates, such as a Check's reasons,
// goes in the holes. So nothing invalidates a template: a step at another
// place, or asked by another tool, builds another, and compiled.view keeps
// the last, with the plain view.

// A viewTemplate is a step's view as JSON pieces, each followed by a slot.
type viewTemplate struct {
	ops      []viewOp
	controls [][]byte // each field's control with its default, as JSON
	text     string   // what the model reads of the view, with no problems
}

// A viewOp is a piece of a template's JSON, and what comes after it.
type viewOp struct {
	piece []byte
	slot  viewSlot
	k     int // the field of a slotControl or slotProblem
}

// A viewSlot is a hole in a template.
type viewSlot uint8

const (
	slotEnd     viewSlot = iota // nothing: the last piece
	slotArgs                    // the submit's arguments: a cut between builtView parts
	slotSummary                 // the error summary and a comma, when there are problems
	slotControl                 // field k's control
	slotProblem                 // a comma and field k's problem, when it has one
)

// The stand-ins a template is built with, and their JSON, which nothing
// else can write: a string's quotes are escaped in JSON. The summary is
// never last in its column, nor a problem first in its field.
var (
	summaryStandIn = &node{Type: "\x01s"}
	controlStandIn = &node{Type: "\x01c"}
	problemStandIn = &node{Type: "\x01p"}
)

var slotJSON = [...]struct {
	slot viewSlot
	json string
}{
	{slotArgs, argsSlotJSON},
	{slotSummary, `{"type":"\u0001s"},`},
	{slotControl, `{"type":"\u0001c"}`},
	{slotProblem, `,{"type":"\u0001p"}`},
}

// plainState is how a template's view ends, its state being the outcome's
// alone; filling it writes the round's state instead.
const plainState = `,"state":{"` + outcomeKey + `":null}}`

// viewTemplate returns the template of c's view at pos submitting to tool.
func (c *compiled) viewTemplate(tool string, pos stepPos, t *viewText) (*viewTemplate, error) {
	n := len(c.fields)
	controls, problems := make([]*node, n), make([]*node, n)
	tp := &viewTemplate{controls: make([][]byte, n), text: fillText(t.ModelForm, "form", strconv.Quote(c.message))}
	for i := range c.fields {
		controls[i], problems[i] = controlStandIn, problemStandIn
		ctl, err := fieldControl(&c.fields[i], t)
		if err != nil {
			return nil, err
		}
		if tp.controls[i], err = appendNode(nil, ctl); err != nil {
			return nil, err
		}
	}
	w := viewWireOf(c.stepTree(pos, c.fields, controls, problems, summaryStandIn, nil, t), tool, "", nil, t)
	b, err := appendViewWire(make([]byte, 0, 4096), w)
	if viewJSONCheck != nil {
		viewJSONCheck(w, b, err)
	}
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(b, []byte(plainState)) {
		return nil, errors.New("mcpform: the view's template has a state") // built here: cannot happen
	}
	b = b[:len(b)-len(plainState)]
	var count [len(slotJSON) + 1]int
	for len(b) > 0 {
		at, s := len(b), slotEnd
		for _, sj := range slotJSON {
			if i := bytes.Index(b[:at], []byte(sj.json)); i >= 0 {
				at, s = i, sj.slot
			}
		}
		op := viewOp{piece: b[:at], slot: s, k: count[s]}
		count[s]++
		tp.ops = append(tp.ops, op)
		if s == slotEnd {
			break
		}
		b = b[at+len(slotJSON[s-1].json):]
	}
	if count[slotArgs] == 0 || count[slotSummary] != 1 || count[slotControl] != n || count[slotProblem] != n {
		return nil, errors.New("mcpform: the view's template lacks a slot") // built here: cannot happen
	}
	return tp, nil
}

// fill returns the view of c that tp is the template of, naming problems
// and pre-filling filled. The view shares tp's pieces: a round writes
// only what it changes, and go-sdk's encoding copies the whole once.
func (tp *viewTemplate) fill(c *compiled, tool string, pos stepPos, filled Answers, problems []*FieldError, t *viewText) (*builtView, error) {
	said, atField := c.problemTexts(problems, t)
	size := 64 + 16*len(c.fields)
	for _, s := range said {
		size += 2*len(s) + 64
	}
	for i := range c.fields {
		if _, ok := filled[c.fields[i].Name]; ok {
			size += len(tp.controls[i]) + 32
		}
	}
	// What the round writes goes to dyn; a span is a piece of tp, the
	// arguments' place, or a stretch of dyn, which may yet move.
	type span struct {
		piece    []byte
		from, to int
		args     bool
	}
	dyn := make([]byte, 0, size)
	var spansArr [32]span
	spans := spansArr[:0]
	var err error
	for _, op := range tp.ops {
		if len(op.piece) > 0 {
			spans = append(spans, span{piece: op.piece})
		}
		if op.slot == slotArgs {
			spans = append(spans, span{args: true})
			continue
		}
		from := len(dyn)
		var shared []byte
		if dyn, shared, err = tp.slot(dyn, op, c, filled, said, atField, t); err != nil {
			return nil, err
		}
		switch {
		case shared != nil:
			spans = append(spans, span{piece: shared})
		case len(dyn) > from:
			spans = append(spans, span{from: from, to: len(dyn)})
		}
	}
	from := len(dyn)
	if dyn, err = appendViewState(append(dyn, `,"state":`...), c.fields, filled, len(problems) > 0); err != nil {
		return nil, fmt.Errorf("mcpform: encoding the view: %w", err)
	}
	spans = append(spans, span{from: from, to: len(dyn)})
	v := &builtView{tool: tool, pos: pos, segs: make([][]byte, len(spans)), text: tp.text}
	for i, s := range spans {
		switch {
		case s.args:
		case s.piece != nil:
			v.segs[i] = s.piece
		default:
			v.segs[i] = dyn[s.from:s.to]
		}
	}
	if viewJSONCheck != nil {
		// The view as the nodes would have it, for the check.
		if content, state, err := c.stepContent(pos, filled, problems, nil, t); err == nil {
			viewJSONCheck(viewWireOf(content, tool, "", state, t), v.withSlots(), nil)
		}
	}
	v.text, v.notes = c.withProblemsNoted(v.text, problems) // the model reads what the person is asked to fix
	return v, nil
}

// slot appends to dyn what goes in op's slot, or returns the piece of tp
// that does: a control with its default, shared.
func (tp *viewTemplate) slot(dyn []byte, op viewOp, c *compiled, filled Answers, said []string, atField map[string]string, t *viewText) ([]byte, []byte, error) {
	var err error
	switch op.slot {
	case slotSummary:
		if len(said) > 0 {
			if dyn, err = appendNode(dyn, summaryNode(said, t)); err != nil {
				return nil, nil, err
			}
			dyn = append(dyn, ',')
		}
	case slotControl:
		f := &c.fields[op.k]
		v, ok := filled[f.Name]
		if !ok {
			return dyn, tp.controls[op.k], nil
		}
		g := *f
		g.Default = v
		ctl, err := fieldControl(&g, t)
		if err != nil {
			return nil, nil, err
		}
		if dyn, err = appendNode(dyn, ctl); err != nil {
			return nil, nil, err
		}
	case slotProblem:
		if p := atField[c.fields[op.k].Name]; p != "" {
			dyn = appendJSONString(append(dyn, `,{"type":"FieldError","content":`...), p)
			dyn = append(dyn, '}')
		}
	}
	return dyn, nil, nil
}

// withSlots returns v's JSON with the arguments' slot in their place, as
// appendViewWire writes a view.
func (v *builtView) withSlots() []byte {
	var out []byte
	for _, s := range v.segs {
		if s == nil {
			s = []byte(argsSlotJSON)
		}
		out = append(out, s...)
	}
	return append(out, '}')
}

// appendViewState appends, as encoding/json would marshal viewState's map
// with the outcome's key, the renderer state of a view of fields.
func appendViewState(b []byte, fields []AutoFormField, filled Answers, problems bool) ([]byte, error) {
	var keysArr [8]int
	keys := keysArr[:0] // the fields in the state, by index
	for i := range fields {
		f := &fields[i]
		if _, ok := filled[f.Name]; (ok || (!problems && f.Default != nil)) && f.Name != outcomeKey {
			keys = append(keys, i)
		}
	}
	keys = append(keys, -1) // the outcome
	name := func(i int) string {
		if i < 0 {
			return outcomeKey
		}
		return fields[i].Name
	}
	slices.SortFunc(keys, func(i, j int) int { return strings.Compare(name(i), name(j)) })
	b = append(b, '{')
	for n, i := range keys {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, name(i)), ':')
		if i < 0 {
			b = append(b, "null"...)
			continue
		}
		v := fields[i].Default
		if fv, ok := filled[fields[i].Name]; ok {
			v = fv
		}
		if s, ok := v.(string); ok {
			b = appendJSONString(b, s)
			continue
		}
		m, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b = append(b, m...)
	}
	return append(b, '}'), nil
}
