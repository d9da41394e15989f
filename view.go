package mcpform

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A flow step on an MCP Apps host is a prefab view, one per step, built by
// internal/prefab from neutral inputs: the form's fields, compiled once per
// language into prefab.Field, and each round a prefab.Step with the values
// to show and what to fix, said here as text.

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
			c.markKept(&out[i])
		}
		return out
	}
	v := &viewFields{fields: conv(c.fields), secrets: conv(c.secrets), all: conv(c.all)}
	// What every view of c shows alike is built once, in c's language.
	prefab.Prepare(v.fields, viewTexts[c.lang].Text)
	c.views.Store(v) // a race builds two equal lists; one is kept
	return v
}

// viewField returns f, already checked, as a view shows it.
func (f *AutoFormField) viewField() prefab.Field {
	v := f.problemField()
	v.Description, v.Placeholder, v.Default = f.Description, f.Placeholder, f.Default
	for _, o := range f.Options {
		v.Options = append(v.Options, prefab.Option{Value: o.Value, Label: o.Label})
	}
	return v
}

// problemField returns what a problem's words need of f, as a view shows
// it: its name, title, kind and bounds, without its options.
func (f *AutoFormField) problemField() prefab.Field {
	v := prefab.Field{Name: f.Name, Title: f.title(), InputType: f.inputType(), Required: f.Required, Min: f.Min, Max: f.Max}
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
	return v
}

// markKept marks the words of v, a field as c's views show it, that stay in the
// author's language amid c's.
func (c *compiled) markKept(v *prefab.Field) {
	if c.kept == nil {
		return
	}
	v.TitleLang, v.DescriptionLang = c.authorLang(v.Title), c.authorLang(v.Description)
	for j := range v.Options {
		o := &v.Options[j]
		o.Lang = c.authorLang(cmp.Or(o.Label, o.Value))
	}
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
	problems = r.pageWords(problems)
	said, atField, atParts := c.problemTexts(problems, t)
	pos := r.position(s)
	step := &prefab.Step{Tool: r.tool, Message: c.message, MessageLang: c.authorLang(c.message), N: pos.n, Total: pos.total, UpTo: pos.upTo,
		Submit: pos.submit, SubmitLang: pos.lang, Last: pos.last,
		Fields: vf.fields, Filled: filled, Reask: len(problems) > 0, Summary: said, Problems: atField, ProblemParts: atParts,
		Rest: r.args.rest, StateKey: StateArgument, State: token} // no number through JavaScript
	if s.review != nil { // the check round: its answers, each step's change, and the submit that keeps them
		step.Message, step.MessageLang, step.Fields, step.Review = t.l.Text(catalog.OutCheckTitle), "", nil, s.review
		step.N, step.Total, step.UpTo, step.Last = 0, 0, false, true
		step.Submit, step.SubmitLang, step.Send = r.flow.commit, r.flow.commitLang, map[string]any{checkField: checkKeep}
	}
	text := catalog.Fill(t.ModelForm, "form", strconv.Quote(c.message))
	if page != nil {
		step.Page = &prefab.Page{URL: page.URL, Secrets: vf.secrets}
		if len(c.fields) == 0 {
			text = catalog.Fill(t.ModelLink, "url", page.URL)
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

// endedView returns the view of the tool's last result for r, a round
// through a view that ended the flow (see seam.Call.EndView): its
// outcome, in the run's language, and under one that did not complete, a
// way to start again, which sends back what the view r answers sent. A
// result that holds a view already, such as one the handler built with
// DisplayForm, gets none: the renderer shows it as it is.
func (r *round) endedView() func(json.RawMessage) ([]byte, error) {
	t, tool := viewTexts[r.lang].Text, r.tool
	back := map[string]any{StateArgument: r.args.token}
	if len(r.args.rest) > 0 {
		back[prefab.ArgumentsArgument] = "{" + string(r.args.rest) + "}"
	}
	return func(result json.RawMessage) ([]byte, error) {
		if prefab.HoldsView(result) {
			return nil, nil
		}
		return prefab.Ended(t, result, tool, back)
	}
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
	upTo     bool   // total counts later steps that may be skipped: "of up to"
	submit   string // the submit's label; "" for the default
	lang     string // submit's lang, when the author's words amid the view's language
	last     bool   // no step is sure to follow: the submit may finish the flow
}

// position returns where s stands: after the earlier steps that were
// asked, before every later one, which may yet be asked. A later step
// with a When may be skipped, so the count is "up to" then, and a step
// that only such steps follow may be the last: its submit is not
// "Continue", which would not be true of a submit that finishes the flow.
// A flow that checks its answers before it ends has a check round after
// every step.
func (r *round) position(s *flowStep) stepPos {
	steps := r.flow.steps
	i := 0
	for i < len(steps)-1 && steps[i].c != s.c {
		i++
	}
	pos := stepPos{n: 1, submit: s.submit, lang: s.submitLang, last: !r.flow.review}
	for j := range i {
		if steps[j].when == nil || steps[j].when(r.st.Proven) {
			pos.n++
		}
	}
	for j := i + 1; j < len(steps); j++ {
		if steps[j].when == nil {
			pos.last = false
		} else {
			pos.upTo = true
		}
	}
	pos.total = pos.n + len(steps) - 1 - i
	if pos.last && pos.submit == "" && !pos.upTo {
		pos.submit, pos.lang = r.flow.commit, r.flow.commitLang // sure to finish the flow
	}
	return pos
}

// problemTexts says how to fix each of problems, in order, for the
// summary, and the first of each field's, for the field.
func (c *compiled) problemTexts(problems []*FieldError, t *viewText) (said []prefab.Said, atField map[string]string, parts map[string][]prefab.Part) {
	if len(problems) == 0 {
		return nil, nil, nil
	}
	atField = make(map[string]string, len(problems))
	said = make([]prefab.Said, 0, len(problems))
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
		var msg string
		var marks []prefab.Part
		if len(c.kept) > 0 && !errors.Is(p.Err, ErrSecretWaiting) {
			msg, marks = c.fixMarked(t, f, p) // the author's own words may be left as written
		} else {
			msg, marks = t.fixParts(f, p, vf.secrets, own)
		}
		said = append(said, prefab.Said{Field: p.Field, Text: msg, Parts: marks})
		if _, ok := atField[p.Field]; !ok {
			atField[p.Field] = msg
			if marks != nil {
				if parts == nil {
					parts = make(map[string][]prefab.Part, len(problems))
				}
				parts[p.Field] = marks
			}
		}
	}
	return said, atField, parts
}

// viewText is one language's words of a view: the catalogs' view texts
// (catalog.View...), where their English says what each is for.
type viewText struct {
	l catalog.Lang // the language they are in
	*prefab.Text
}

// viewTexts are the languages' view texts, in lang order, drawn from the
// catalogs once, so that a view reads a field rather than looks one up.
var viewTexts = func() (v [catalog.NumLangs]*viewText) {
	for l := range catalog.NumLangs {
		code := l.Code()
		if l == catalog.English {
			code = ""
		}
		v[l] = &viewText{l: l, Text: &prefab.Text{Lang: code,
			ProblemTitle: l.Text(catalog.ViewProblemTitle), StepOf: l.Text(catalog.ViewStepOf), Optional: l.Text(catalog.ViewOptional),
			Continue: l.Text(catalog.ViewContinue), Finish: l.Text(catalog.ViewFinish), Decline: l.Text(catalog.ViewDecline),
			Done: l.Text(catalog.ViewDone), NotDone: l.Text(catalog.ViewNotDone),
			StepOfUpTo: l.Text(catalog.OutStepOfUpTo), StartAgain: l.Text(catalog.ViewStartAgain),

			Missing: l.Text(catalog.ViewMissing), MissingChoice: l.Text(catalog.ViewMissingChoice), Email: l.Text(catalog.ViewEmail),
			URL: l.Text(catalog.ViewURL), Date: l.Text(catalog.ViewDate), DateTime: l.Text(catalog.ViewDateTime),
			Number: l.Text(catalog.ViewNumber), Whole: l.Text(catalog.ViewWhole), Choice: l.Text(catalog.ViewChoice),
			Check: l.Text(catalog.ViewCheck), Changed: l.Text(catalog.ViewChanged),

			Between: l.Text(catalog.ViewBetween), AtLeast: l.Text(catalog.ViewAtLeast), AtMost: l.Text(catalog.ViewAtMost),
			CharsBetween: l.Text(catalog.ViewCharsBetween), CharsAtLeast: l.Text(catalog.ViewCharsAtLeast), CharsAtMost: l.Text(catalog.ViewCharsAtMost),
			PickBetween: l.Text(catalog.ViewPickBetween), PickAtLeast: l.Text(catalog.ViewPickAtLeast), PickAtMost: l.Text(catalog.ViewPickAtMost),
			LengthBetween: l.Text(catalog.ViewLengthBetween), LengthAtLeast: l.Text(catalog.ViewLengthAtLeast),
			LengthAtMost: l.Text(catalog.ViewLengthAtMost),
			MustBetween:  l.Text(catalog.ViewMustBetween), MustAtLeast: l.Text(catalog.ViewMustAtLeast), MustAtMost: l.Text(catalog.ViewMustAtMost),
			ChooseBetween: l.Text(catalog.ViewChooseBetween), ChooseAtLeast: l.Text(catalog.ViewChooseAtLeast),
			ChooseAtMost: l.Text(catalog.ViewChooseAtMost), ErrorPrefix: l.Text(catalog.PageErrorTitle),

			PageStep: l.Text(catalog.ViewPageStep), PageButton: l.Text(catalog.ViewPageButton), PasswordPage: l.Text(catalog.ViewPasswordPage),
			CopyLink: l.Text(catalog.ViewCopyLink), Copied: l.Text(catalog.ViewCopied), ReturnStep: l.Text(catalog.ViewReturnStep),
			ReturnOnly: l.Text(catalog.ViewReturnOnly), PageSent: l.Text(catalog.ViewPageSent), PageWaiting: l.Text(catalog.ViewPageWaiting),
			PageElsewhere: l.Text(catalog.ViewPageElsewhere),

			ModelForm: l.Text(catalog.ViewModelForm), ModelLink: l.Text(catalog.ViewModelLink), ListSep: l.Text(catalog.ListSep),
		}}
	}
	return v
}()

// viewEnglish is the views' English text, the default.
var viewEnglish = viewTexts[catalog.English]

// fix says how to put p right, in t's words, for f, the field it names
// (nil when it names none). A problem of the author's own, from a step's
// Check, is said as the author wrote it.
func (t *viewText) fix(f *prefab.Field, p *FieldError, secrets []prefab.Field) string {
	return t.fixOwn(f, p, secrets, nil)
}

// fixParts is fixOwn, and returns too the parts of what it says in
// another language than t's: the title of f, or of a secret a waiting
// page asks, that the author's words left untranslated (TitleLang).
func (t *viewText) fixParts(f *prefab.Field, p *FieldError, secrets []prefab.Field, own func(string) string) (string, []prefab.Part) {
	switch {
	case f != nil && f.TitleLang != "" && !errors.Is(p.Err, ErrSecretWaiting):
		marked := *f
		marked.Title = wordMark(0)
		return unmark(t.fixOwn(&marked, p, secrets, own), []string{f.Title}, []string{f.TitleLang})
	case titlesMarked(secrets) && errors.Is(p.Err, ErrSecretWaiting):
		return t.waitingParts(secrets)
	}
	return t.fixOwn(f, p, secrets, own), nil
}

// fixMarked is fixParts in t's language, c's, which is not the author's:
// the author's own words a problem says, such as a Check's reason, are
// translated with c's Translate, English too, or else marked as the
// author's, as is f's title when it is.
func (c *compiled) fixMarked(t *viewText, f *prefab.Field, p *FieldError) (string, []prefab.Part) {
	words, langs := [2]string{}, [2]string{}
	if f != nil && f.TitleLang != "" {
		words[0], langs[0] = f.Title, f.TitleLang
		marked := *f
		marked.Title = wordMark(0)
		f = &marked
	}
	own := func(s string) string {
		if c.translate != nil {
			if v := c.translate(c.lang.Tag(), s); v != "" {
				return v
			}
		}
		words[1], langs[1] = s, c.author.mark()
		return wordMark(1)
	}
	said := t.fixOwn(f, p, nil, own)
	if langs == [2]string{} {
		return said, nil // nothing marked: no mark in said either
	}
	return unmark(said, words[:], langs[:])
}

// titlesMarked reports whether the title of any of fields is in another
// language than the view's, and they are few enough to mark.
func titlesMarked(fields []prefab.Field) bool {
	for i := range fields {
		if fields[i].TitleLang != "" {
			return len(fields) <= maxMarks
		}
	}
	return false
}

// waitingParts says that the page of secrets is waiting, as fixOwn does,
// with the parts of the secrets' titles in another language than t's.
func (t *viewText) waitingParts(secrets []prefab.Field) (string, []prefab.Part) {
	titles, langs := make([]string, len(secrets)), make([]string, len(secrets))
	var list strings.Builder
	for i := range secrets {
		if i > 0 {
			list.WriteString(t.ListSep)
		}
		list.WriteString(wordMark(i))
		titles[i], langs[i] = secrets[i].Title, secrets[i].TitleLang
	}
	return unmark(catalog.Fill(t.PageWaiting, "fields", list.String()), titles, langs)
}

// fixOwn is fix, with own translating the author's own words, such as a
// Check's reasons, into t's language; nil keeps them.
func (t *viewText) fixOwn(f *prefab.Field, p *FieldError, secrets []prefab.Field, own func(string) string) string {
	switch {
	case errors.Is(p.Err, ErrSecretWaiting):
		return catalog.Fill(t.PageWaiting, "fields", prefab.Titles(secrets, t.ListSep))
	case errors.Is(p.Err, ErrSecretRefused):
		return t.PageElsewhere
	case f == nil:
		return t.said(p.Err, own)
	case errors.Is(p.Err, ErrChanged):
		return catalog.Fill(t.Changed, "label", f.Title)
	case errors.Is(p.Err, ErrMissing):
		if f.Kind == prefab.KindChoice || f.Kind == prefab.KindChoices {
			return catalog.Fill(t.MissingChoice, "label", f.Title)
		}
		return catalog.Fill(t.Missing, "label", f.Title)
	case !errors.Is(p.Err, ErrInvalidValue) && !errors.Is(p.Err, ErrType):
		// A problem of the author's own, such as a Check's: the field
		// named, then the author's words.
		return catalog.Fill(t.Check, "label", f.Title, "reason", t.said(p.Err, own))
	}
	label := "label"
	if r, ok := errors.AsType[*catalog.Reason](p.Err); ok {
		// The rule the value broke says what to say of it: a whole
		// number out of its bounds is told its bounds, not to enter a
		// whole number.
		switch r.Msg {
		case catalog.NotNumber, catalog.NotInteger:
			return t.notNumber(f)
		case catalog.LessThanMin, catalog.GreaterThanMax, catalog.OutOfRange:
			if s := prefab.Problem(f, t.MustBetween, t.MustAtLeast, t.MustAtMost); s != "" {
				return s
			}
			return t.notNumber(f)
		case catalog.Shorter, catalog.Longer:
			if s := prefab.Problem(f, t.LengthBetween, t.LengthAtLeast, t.LengthAtMost); s != "" {
				return s
			}
		case catalog.FewerChoices, catalog.MoreChoices:
			if s := prefab.Problem(f, t.ChooseBetween, t.ChooseAtLeast, t.ChooseAtMost); s != "" {
				return s
			}
		case catalog.NotOption, catalog.ChoiceNotOption, catalog.NotList:
			return catalog.Fill(t.Choice, label, f.Title)
		case catalog.NotEmail:
			return catalog.Fill(t.Email, label, f.Title)
		case catalog.NotURI:
			return catalog.Fill(t.URL, label, f.Title)
		case catalog.NotDate:
			return catalog.Fill(t.Date, label, f.Title)
		case catalog.NotDateTime:
			return catalog.Fill(t.DateTime, label, f.Title)
		case catalog.NotString:
		default: // a character the field never takes, or a key given twice
			return catalog.Fill(t.Check, label, f.Title, "reason", t.reason(p, own))
		}
	}
	switch f.Kind {
	case prefab.KindChoice, prefab.KindChoices:
		return catalog.Fill(t.Choice, label, f.Title)
	case prefab.KindInteger, prefab.KindNumber, prefab.KindRange:
		return t.notNumber(f)
	case prefab.KindCheckbox:
		return catalog.Fill(t.Check, label, f.Title, "reason", t.reason(p, own))
	}
	switch f.InputType { // a value of the wrong type: what to enter
	case string(TypeEmail):
		return catalog.Fill(t.Email, label, f.Title)
	case string(TypeURL):
		return catalog.Fill(t.URL, label, f.Title)
	case string(TypeDate):
		return catalog.Fill(t.Date, label, f.Title)
	case string(TypeDatetimeLocal):
		return catalog.Fill(t.DateTime, label, f.Title)
	}
	return catalog.Fill(t.Check, label, f.Title, "reason", t.reason(p, own))
}

// notNumber says to enter a number in f, a whole one when f takes no
// other.
func (t *viewText) notNumber(f *prefab.Field) string {
	if f.Kind == prefab.KindInteger {
		return catalog.Fill(t.Whole, "label", f.Title)
	}
	return catalog.Fill(t.Number, "label", f.Title)
}

// said is err as a person reads it in t's language: in English as it is,
// in another the reason problemReason finds for it.
func (t *viewText) said(err error, own func(string) string) string {
	if t.l == catalog.English {
		if own != nil && authorsOwn(err) {
			return own(err.Error())
		}
		return err.Error()
	}
	return problemReason(t.l, own, err)
}

// authorsOwn reports whether err is a problem in the author's own words,
// such as a Check's, rather than one mcpform words: it wraps none of
// mcpform's problems and no catalog.Reason.
func authorsOwn(err error) bool {
	for _, s := range [...]error{ErrInvalidValue, ErrMissing, ErrType, ErrChanged, ErrUnknownField, ErrSecretWaiting, ErrSecretRefused,
		ErrSecretUsed} {
		if errors.Is(err, s) {
			return false
		}
	}
	_, ok := errors.AsType[*catalog.Reason](err)
	return !ok
}

// reason is the rule p breaks, without the sentinel's own words, in t's
// language.
func (t *viewText) reason(p *FieldError, own func(string) string) string {
	s := p.Err.Error()
	for _, e := range [...]error{ErrInvalidValue, ErrType} {
		s = strings.TrimPrefix(strings.TrimPrefix(s, e.Error()), ": ")
	}
	if t.l == catalog.English {
		return s
	}
	if r := reasonIn(t.l, p.Err, s); r != s || own == nil {
		return r
	}
	return own(s)
}
