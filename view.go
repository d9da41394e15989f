package mcpform

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A flow step on an MCP Apps host is a prefab view, one per step, built by
// internal/prefab from neutral inputs: the form's fields, compiled once per
// language into prefab.Field, and each round a prefab.Step with the values
// to show and what to fix, said here as text.

// outcomeKey is the renderer state key under which a flow view keeps the
// result of its submit.
const outcomeKey = prefab.OutcomeKey

// rendererKey is the key under which prefab's renderer delivers an argument
// named name (see [prefab.RendererKey]).
func rendererKey(name string) string { return prefab.RendererKey(name) }

// viewFields are a compiled form's fields as its views show them.
type viewFields struct {
	fields, secrets, all []prefab.Field // of c.fields, c.secrets and c.all
}

// viewFields returns c's fields as its views show them, built once.
func (c *compiled) viewFields() *viewFields {
	if v := c.views.Load(); v != nil {
		return v
	}
	conv := func(fields []AutoFormField) []prefab.Field {
		out := make([]prefab.Field, len(fields))
		for i := range fields {
			out[i] = fields[i].viewField()
		}
		return out
	}
	v := &viewFields{fields: conv(c.fields), secrets: conv(c.secrets), all: conv(c.all)}
	c.views.Store(v) // a race builds two equal lists; one is kept
	return v
}

// viewField returns f, already checked, as a view shows it.
func (f *AutoFormField) viewField() prefab.Field {
	v := prefab.Field{Name: f.Name, Title: f.title(), Description: f.Description, Placeholder: f.Placeholder,
		InputType: f.inputType(), Required: f.Required, Min: f.Min, Max: f.Max, Default: f.Default}
	switch f.kind() {
	case kindEnum:
		v.Kind = prefab.KindChoice
	case kindMulti:
		v.Kind = prefab.KindChoices
	case kindNumber:
		v.Kind = prefab.KindNumber
		if f.Type == TypeRange {
			v.Kind = prefab.KindRange
		}
	case kindInteger:
		v.Kind = prefab.KindInteger
	case kindBoolean:
		v.Kind = prefab.KindCheckbox
	}
	for _, o := range f.Options {
		v.Options = append(v.Options, prefab.Option{Value: o.Value, Label: o.Label})
	}
	return v
}

// viewErr turns a default JSON cannot hold into the field's error.
func viewErr(err error) error {
	if de, ok := errors.AsType[*prefab.DefaultError](err); ok {
		return fieldErr(de.Field, ErrDefault, "%v", de.Err)
	}
	return err
}

// stepView returns the view that asks s's form fields, never its secrets,
// naming problems and pre-filling filled. A secret step's view links to
// its page too.
func (r *round) stepView(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	if s.c.ui != nil {
		return nil, fmt.Errorf("mcpform: flow step %q cannot be shown in an MCP Apps view: %w", s.c.key, s.c.ui)
	}
	var page *mcp.ElicitParams
	if len(s.c.secrets) > 0 {
		var err error
		if page, err = r.pageRequest(s, problems); err != nil {
			return nil, err
		}
	}
	return r.view(s, filled, problems, page, token)
}

// linkView returns the view that sends the person to s's secret page, a
// step with no form fields: the page first, then a button that calls the
// tool again once the page is sent, and one to decline.
func (r *round) linkView(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	p, err := r.pageRequest(s, problems)
	if err != nil {
		return nil, err
	}
	res, err := r.view(s, nil, problems, p, token)
	if err != nil {
		return nil, err
	}
	res.Meta = p.Meta // the page's problem notes
	return res, nil
}

// view returns s's view this round: naming problems, pre-filling filled,
// linking to page when not nil, and sending back token.
func (r *round) view(s *flowStep, filled Answers, problems []*FieldError, page *mcp.ElicitParams, token string) (*mcp.CallToolResult, error) {
	c, t := s.c, viewTexts[s.c.lang]
	vf := c.viewFields()
	said, atField := c.problemTexts(problems, t)
	pos := r.position(s)
	step := &prefab.Step{Tool: r.tool, Message: c.message, N: pos.n, Total: pos.total, Submit: pos.submit, Last: pos.last,
		Fields: vf.fields, Filled: filled, Reask: len(problems) > 0, Summary: said, Problems: atField,
		Arguments: r.sendBack(token)}
	text := fillText(t.ModelForm, "form", strconv.Quote(c.message))
	if page != nil {
		step.Page = &prefab.Page{URL: page.URL, Secrets: vf.secrets}
		if len(c.fields) == 0 {
			text = fillText(t.ModelLink, "url", page.URL)
		}
	}
	b, err := prefab.View(step, t.Text)
	if err != nil {
		if _, ok := errors.AsType[*prefab.DefaultError](err); ok {
			return nil, viewErr(err)
		}
		return nil, fmt.Errorf("mcpform: encoding the view: %w", err)
	}
	text, notes := c.withProblemsNoted(text, problems) // the model reads what the person is asked to fix
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: &viewContent{b},
		Meta: notes}, nil // as a native re-ask notes them
}

// viewContent is a view's structuredContent: its JSON, which go-sdk
// writes as it is, and by whose type the go-sdk face knows a view.
type viewContent struct{ json []byte }

// MarshalJSON returns the view's JSON.
func (v *viewContent) MarshalJSON() ([]byte, error) { return v.json, nil }

// readView judges the answer to s that a view's submit sent through the
// companion tool: s's fields among the arguments, made typed as a browser
// sends them (see [AcceptedFormArguments]).
func (r *round) readView(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	content := r.args.answersFor(s.c)
	if content == nil {
		return ReplyNone, nil, nil
	}
	return s.c.judgeContent(s.c.normalizeArguments(content), true) // read from this call's arguments
}

// A stepPos is where a step stands in its flow, as its view says it.
type stepPos struct {
	n, total int    // "Step n of total", shown when total > 1
	submit   string // the submit's label; "" for the default
	last     bool   // no step follows
}

// position returns where s stands: after the earlier steps that were
// asked, before every later one, which may yet be asked.
func (r *round) position(s *flowStep) stepPos {
	steps := r.flow.steps
	i := 0
	for i < len(steps)-1 && steps[i].c != s.c {
		i++
	}
	pos := stepPos{n: 1, submit: s.submit, last: i == len(steps)-1}
	for j := range i {
		if steps[j].when == nil || steps[j].when(r.st.Proven) {
			pos.n++
		}
	}
	pos.total = pos.n + len(steps) - 1 - i
	return pos
}

// problemTexts says how to fix each of problems, in order, for the
// summary, and the first of each field's, for the field.
func (c *compiled) problemTexts(problems []*FieldError, t *viewText) (said []string, atField map[string]string) {
	if len(problems) == 0 {
		return nil, nil
	}
	atField = make(map[string]string, len(problems))
	own := c.ownWords()
	vf := c.viewFields()
	for _, p := range problems {
		if errors.Is(p.Err, ErrUnknownField) {
			continue
		}
		var f *prefab.Field
		if i := fieldIndex(c.all, p.Field); i >= 0 {
			f = &vf.all[i]
		}
		msg := t.fixOwn(f, p, vf.secrets, own)
		said = append(said, msg)
		if _, ok := atField[p.Field]; !ok {
			atField[p.Field] = msg
		}
	}
	return said, atField
}

// viewText is one language's words of a view: the catalogs' view texts
// (msgView...), where their English says what each is for.
type viewText struct {
	l lang // the language they are in
	*prefab.Text
}

// viewTexts are the languages' view texts, in lang order, drawn from the
// catalogs once, so that a view reads a field rather than looks one up.
var viewTexts = func() (v [langCount]*viewText) {
	for l := range langCount {
		code := langCodes[l]
		if l == langEN {
			code = ""
		}
		v[l] = &viewText{l: l, Text: &prefab.Text{Lang: code,
			ProblemTitle: l.text(msgViewProblemTitle), StepOf: l.text(msgViewStepOf), Optional: l.text(msgViewOptional),
			Continue: l.text(msgViewContinue), Finish: l.text(msgViewFinish), Decline: l.text(msgViewDecline),
			Done: l.text(msgViewDone), NotDone: l.text(msgViewNotDone),

			Missing: l.text(msgViewMissing), MissingChoice: l.text(msgViewMissingChoice), Email: l.text(msgViewEmail),
			URL: l.text(msgViewURL), Date: l.text(msgViewDate), DateTime: l.text(msgViewDateTime),
			Number: l.text(msgViewNumber), Whole: l.text(msgViewWhole), Choice: l.text(msgViewChoice),
			Check: l.text(msgViewCheck), Changed: l.text(msgViewChanged),

			Between: l.text(msgViewBetween), AtLeast: l.text(msgViewAtLeast), AtMost: l.text(msgViewAtMost),
			CharsBetween: l.text(msgViewCharsBetween), CharsAtLeast: l.text(msgViewCharsAtLeast), CharsAtMost: l.text(msgViewCharsAtMost),
			PickBetween: l.text(msgViewPickBetween), PickAtLeast: l.text(msgViewPickAtLeast), PickAtMost: l.text(msgViewPickAtMost),
			LengthBetween: l.text(msgViewLengthBetween), LengthAtLeast: l.text(msgViewLengthAtLeast),
			LengthAtMost: l.text(msgViewLengthAtMost), AndBounds: l.text(msgViewAndBounds),

			PageStep: l.text(msgViewPageStep), PageButton: l.text(msgViewPageButton), PasswordPage: l.text(msgViewPasswordPage),
			CopyLink: l.text(msgViewCopyLink), Copied: l.text(msgViewCopied), ReturnStep: l.text(msgViewReturnStep),
			ReturnOnly: l.text(msgViewReturnOnly), PageSent: l.text(msgViewPageSent), PageWaiting: l.text(msgViewPageWaiting),
			PageElsewhere: l.text(msgViewPageElsewhere),

			ModelForm: l.text(msgViewModelForm), ModelLink: l.text(msgViewModelLink), ListSep: l.text(msgListSep),
		}}
	}
	return v
}()

// viewEnglish is the views' English text, the default.
var viewEnglish = viewTexts[langEN]

// fix says how to put p right, in t's words, for f, the field it names
// (nil when it names none). A problem of the author's own, from a step's
// Check, is said as the author wrote it.
func (t *viewText) fix(f *prefab.Field, p *FieldError, secrets []prefab.Field) string {
	return t.fixOwn(f, p, secrets, nil)
}

// fixOwn is fix, with own translating the author's own words, such as a
// Check's reasons, into t's language; nil keeps them.
func (t *viewText) fixOwn(f *prefab.Field, p *FieldError, secrets []prefab.Field, own func(string) string) string {
	switch {
	case errors.Is(p.Err, ErrSecretWaiting):
		return fillText(t.PageWaiting, "fields", prefab.Titles(secrets, t.ListSep))
	case errors.Is(p.Err, ErrSecretRefused):
		return t.PageElsewhere
	case f == nil:
		return t.said(p.Err, own)
	case errors.Is(p.Err, ErrChanged):
		return fillText(t.Changed, "label", f.Title)
	case errors.Is(p.Err, ErrMissing):
		if f.Kind == prefab.KindChoice || f.Kind == prefab.KindChoices {
			return fillText(t.MissingChoice, "label", f.Title)
		}
		return fillText(t.Missing, "label", f.Title)
	case !errors.Is(p.Err, ErrInvalidValue) && !errors.Is(p.Err, ErrType):
		return t.said(p.Err, own)
	}
	switch f.Kind {
	case prefab.KindChoice:
		return fillText(t.Choice, "label", f.Title)
	case prefab.KindChoices:
		if s := prefab.Bounds(f, t.PickBetween, t.PickAtLeast, t.PickAtMost); s != "" {
			return s
		}
		return fillText(t.Choice, "label", f.Title)
	case prefab.KindInteger:
		return t.orBounds(t.Whole, prefab.Hint(f, t.Text))
	case prefab.KindNumber, prefab.KindRange:
		return t.orBounds(t.Number, prefab.Hint(f, t.Text))
	case prefab.KindCheckbox:
		return fillText(t.Check, "label", f.Title, "reason", t.reason(p, own))
	}
	// A length is checked before a format (checkValue), and its rule ends
	// so: say the bounds, not the format.
	if strings.HasSuffix(p.Err.Error(), " characters") {
		if s := prefab.Bounds(f, t.LengthBetween, t.LengthAtLeast, t.LengthAtMost); s != "" {
			return s
		}
	}
	switch f.InputType { // as inputType asks for each format
	case string(TypeEmail):
		return t.Email
	case string(TypeURL):
		return t.URL
	case string(TypeDate):
		return t.Date
	case string(TypeDatetimeLocal):
		return t.DateTime
	}
	return fillText(t.Check, "label", f.Title, "reason", t.reason(p, own))
}

// orBounds is what to enter, and the bounds when there are any.
func (t *viewText) orBounds(what, bounds string) string {
	if bounds == "" {
		return what
	}
	return fillText(t.AndBounds, "what", what, "bounds", bounds)
}

// said is err as a person reads it in t's language: in English as it is,
// in another the reason problemReason finds for it.
func (t *viewText) said(err error, own func(string) string) string {
	if t.l == langEN {
		return err.Error()
	}
	return problemReason(t.l, own, err)
}

// reason is the rule p breaks, without the sentinel's own words, in t's
// language.
func (t *viewText) reason(p *FieldError, own func(string) string) string {
	s := p.Err.Error()
	for _, e := range [...]error{ErrInvalidValue, ErrType} {
		s = strings.TrimPrefix(strings.TrimPrefix(s, e.Error()), ": ")
	}
	if t.l == langEN {
		return s
	}
	if r := reasonIn(t.l, p.Err, s); r != s || own == nil {
		return r
	}
	return own(s)
}

// fillText returns s with each placeholder {name} filled by the value
// after name in kv, which alternates names and values, in one pass: a
// value is never read again for placeholders, and a placeholder kv does
// not name is left as it is.
func fillText(s string, kv ...string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	n := len(s)
	for a := 1; a < len(kv); a += 2 {
		n += len(kv[a]) // enough unless a placeholder is used twice
	}
	var b strings.Builder
	b.Grow(n)
	for {
		lit, name, rest, ok := nextHole(s)
		if !ok {
			break
		}
		b.WriteString(lit)
		if value, found := argValue(kv, name); found {
			b.WriteString(value)
		} else {
			b.WriteString(s[len(lit) : len(s)-len(rest)]) // the placeholder, as it is
		}
		s = rest
	}
	b.WriteString(s)
	return b.String()
}
