package mcpform

import (
	"maps"
	"strings"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// The wire names of per-request language, SEP-2792: internal/seam holds
// them, the one place that names them, for both faces. EXPERIMENTAL until
// the SEP merges.
const (
	metaAcceptLanguage   = seam.MetaAcceptLanguage
	metaContentLanguage  = seam.MetaContentLanguage
	headerAcceptLanguage = seam.HeaderAcceptLanguage
)

// A lang is one of the languages mcpform speaks, as internal/catalog
// numbers them: the root's name for [catalog.Lang], with the methods its
// files call. The zero lang is English, the default.
type lang catalog.Lang

const (
	langEN    = lang(catalog.English)
	langES    = lang(catalog.Spanish)
	langFR    = lang(catalog.French)
	langDE    = lang(catalog.German)
	langJA    = lang(catalog.Japanese)
	langCount = lang(catalog.NumLangs)
)

// langTags and langCodes are the languages' tags and codes ("es"), in
// lang order, as a state pins them and Content-Language reports them.
var langTags, langCodes = func() (tags [langCount]language.Tag, codes [langCount]string) {
	for l := range catalog.NumLangs {
		tags[l], codes[l] = l.Tag(), l.Code()
	}
	return tags, codes
}()

// text returns l's text of k, with its placeholders unfilled.
func (l lang) text(k msg) string { return catalog.Lang(l).Text(k) }

// format returns l's text of k with each placeholder {name} filled by the
// value after name in args, which alternates names and values.
func (l lang) format(k msg, args ...string) string { return catalog.Lang(l).Format(k, args...) }

// matchLang returns the language of ours that best fits accept, an HTTP
// Accept-Language value; English for none (see [catalog.Match]).
func matchLang(accept string) lang { return lang(catalog.Match(accept)) }

// A msg names one text of internal/catalog: the root's name for
// [catalog.Msg]. The msg names below are the texts the root's files name.
type msg = catalog.Msg

const (
	msgPleaseCheck          = catalog.PleaseCheck
	msgProblemSep           = catalog.ProblemSep
	msgFieldProblem         = catalog.FieldProblem
	msgSentence             = catalog.Sentence
	msgMissing              = catalog.Missing
	msgInvalid              = catalog.Invalid
	msgSecretWaiting        = catalog.SecretWaiting
	msgNotBoolean           = catalog.NotBoolean
	msgNotNumber            = catalog.NotNumber
	msgNotInteger           = catalog.NotInteger
	msgLessThanMin          = catalog.LessThanMin
	msgGreaterThanMax       = catalog.GreaterThanMax
	msgNotString            = catalog.NotString
	msgNotOption            = catalog.NotOption
	msgNotList              = catalog.NotList
	msgFewerChoices         = catalog.FewerChoices
	msgMoreChoices          = catalog.MoreChoices
	msgChoiceNotOption      = catalog.ChoiceNotOption
	msgShorter              = catalog.Shorter
	msgLonger               = catalog.Longer
	msgNotEmail             = catalog.NotEmail
	msgNotURI               = catalog.NotURI
	msgNotDate              = catalog.NotDate
	msgNotDateTime          = catalog.NotDateTime
	msgControl              = catalog.Control
	msgLineBreak            = catalog.LineBreak
	msgBidi                 = catalog.Bidi
	msgInvisible            = catalog.Invisible
	msgJoiner               = catalog.Joiner
	msgDefaultInput         = catalog.DefaultInput
	msgPageAsks             = catalog.PageAsks
	msgListSep              = catalog.ListSep
	msgModelAsk             = catalog.ModelAsk
	msgModelLink            = catalog.ModelLink
	msgModelCall            = catalog.ModelCall
	msgModelPlusAnswers     = catalog.ModelPlusAnswers
	msgModelDecline         = catalog.ModelDecline
	msgPageIntro            = catalog.PageIntro
	msgPageSend             = catalog.PageSend
	msgPageErrorTitle       = catalog.PageErrorTitle
	msgPageRequired         = catalog.PageRequired
	msgPageNotText          = catalog.PageNotText
	msgPageStop             = catalog.PageStop
	msgPageAfterRefusal     = catalog.PageAfterRefusal
	msgDoneHeading          = catalog.DoneHeading
	msgDoneMessage          = catalog.DoneMessage
	msgUsedHeading          = catalog.UsedHeading
	msgUsedMessage          = catalog.UsedMessage
	msgStoppedHeading       = catalog.StoppedHeading
	msgStoppedMessage       = catalog.StoppedMessage
	msgUsedElsewhereHeading = catalog.UsedElsewhereHeading
	msgUsedElsewhereMessage = catalog.UsedElsewhereMessage
	msgRefusedHeading       = catalog.RefusedHeading
	msgRefusedMessage       = catalog.RefusedMessage
	msgEndedHeading         = catalog.EndedHeading
	msgEndedMessage         = catalog.EndedMessage
	msgFinishedHeading      = catalog.FinishedHeading
	msgFinishedMessage      = catalog.FinishedMessage
	msgBadLinkHeading       = catalog.BadLinkHeading
	msgBadLinkMessage       = catalog.BadLinkMessage
	msgNotYoursHeading      = catalog.NotYoursHeading
	msgNotYoursMessage      = catalog.NotYoursMessage
	msgAnotherSiteHeading   = catalog.AnotherSiteHeading
	msgAnotherSiteMessage   = catalog.AnotherSiteMessage
	msgNoCookieHeading      = catalog.NoCookieHeading
	msgNoCookieMessage      = catalog.NoCookieMessage
	msgTooBigHeading        = catalog.TooBigHeading
	msgTooBigMessage        = catalog.TooBigMessage
	msgUnreadableHeading    = catalog.UnreadableHeading
	msgUnreadableMessage    = catalog.UnreadableMessage
	msgMethodHeading        = catalog.MethodHeading
	msgMethodMessage        = catalog.MethodMessage
	msgUnavailableHeading   = catalog.UnavailableHeading
	msgUnavailableMessage   = catalog.UnavailableMessage
	msgViewProblemTitle     = catalog.ViewProblemTitle
	msgViewStepOf           = catalog.ViewStepOf
	msgViewOptional         = catalog.ViewOptional
	msgViewContinue         = catalog.ViewContinue
	msgViewFinish           = catalog.ViewFinish
	msgViewDecline          = catalog.ViewDecline
	msgViewDone             = catalog.ViewDone
	msgViewNotDone          = catalog.ViewNotDone
	msgViewMissing          = catalog.ViewMissing
	msgViewMissingChoice    = catalog.ViewMissingChoice
	msgViewEmail            = catalog.ViewEmail
	msgViewURL              = catalog.ViewURL
	msgViewDate             = catalog.ViewDate
	msgViewDateTime         = catalog.ViewDateTime
	msgViewNumber           = catalog.ViewNumber
	msgViewWhole            = catalog.ViewWhole
	msgViewChoice           = catalog.ViewChoice
	msgViewCheck            = catalog.ViewCheck
	msgViewChanged          = catalog.ViewChanged
	msgViewBetween          = catalog.ViewBetween
	msgViewAtLeast          = catalog.ViewAtLeast
	msgViewAtMost           = catalog.ViewAtMost
	msgViewCharsBetween     = catalog.ViewCharsBetween
	msgViewCharsAtLeast     = catalog.ViewCharsAtLeast
	msgViewCharsAtMost      = catalog.ViewCharsAtMost
	msgViewPickBetween      = catalog.ViewPickBetween
	msgViewPickAtLeast      = catalog.ViewPickAtLeast
	msgViewPickAtMost       = catalog.ViewPickAtMost
	msgViewLengthBetween    = catalog.ViewLengthBetween
	msgViewLengthAtLeast    = catalog.ViewLengthAtLeast
	msgViewLengthAtMost     = catalog.ViewLengthAtMost
	msgViewAndBounds        = catalog.ViewAndBounds
	msgViewPageStep         = catalog.ViewPageStep
	msgViewPageButton       = catalog.ViewPageButton
	msgViewPasswordPage     = catalog.ViewPasswordPage
	msgViewCopyLink         = catalog.ViewCopyLink
	msgViewCopied           = catalog.ViewCopied
	msgViewReturnStep       = catalog.ViewReturnStep
	msgViewReturnOnly       = catalog.ViewReturnOnly
	msgViewPageSent         = catalog.ViewPageSent
	msgViewPageWaiting      = catalog.ViewPageWaiting
	msgViewPageElsewhere    = catalog.ViewPageElsewhere
	msgViewModelForm        = catalog.ViewModelForm
	msgViewModelLink        = catalog.ViewModelLink

	msgCount = catalog.NumMsgs
)

// catalogEN is English's texts, by msg, as the secret page's fallback
// reads them.
var catalogEN = func() (t [msgCount]string) {
	for k := range msgCount {
		t[k] = langEN.text(k)
	}
	return t
}()

// nextHole splits s at its first placeholder {name}: the text before it,
// its name and the text after it; ok is false when s has none left. It
// reads the placeholders as [catalog.Fill] does, for the views' fillText.
func nextHole(s string) (lit, name, rest string, ok bool) {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return "", "", s, false
	}
	j := strings.IndexByte(s[i+1:], '}')
	if j < 0 {
		return "", "", s, false
	}
	return s[:i], s[i+1 : i+1+j], s[i+2+j:], true
}

// argValue returns the value after name in args, which alternates names
// and values.
func argValue(args []string, name string) (string, bool) {
	for a := 0; a+1 < len(args); a += 2 {
		if args[a] == name {
			return args[a+1], true
		}
	}
	return "", false
}

// callLang returns the language a call asks for: its acceptLanguage
// _meta, else its HTTP Accept-Language header. The SEP's reference
// implementation reads the header only as a mirror of the _meta; a
// client that sends the header alone, as a browser-based one may, is
// read here too, because a person's language is worth more than the
// difference. A call of another SDK's face is English.
func callLang(call seam.Call) lang {
	if call == nil {
		return langEN
	}
	return matchLang(call.AcceptLanguage())
}

// acceptLanguage is the languages req carries: its acceptLanguage _meta,
// else its HTTP Accept-Language header; "" for none.
func acceptLanguage(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	if req.Params != nil {
		if s, ok := req.Params.Meta[metaAcceptLanguage].(string); ok {
			return s
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return req.Extra.Header.Get(headerAcceptLanguage)
	}
	return ""
}

// pinnedLang returns the language a state pinned, by its code; an old
// state without one, or with a code we do not know, is English.
func pinnedLang(code string) lang {
	for l, c := range langCodes {
		if c == code {
			return lang(l)
		}
	}
	return langEN
}

// code is l as a state pins it; "" for English, which a state leaves
// out.
func (l lang) code() string {
	if l == langEN {
		return ""
	}
	return langCodes[l]
}

// stamp marks res as written in l, in its _meta, unless l is English,
// the default. The _meta is copied, not changed in place, as a result
// may share it.
func (l lang) stamp(res *mcp.CallToolResult) {
	if l == langEN || res == nil {
		return
	}
	m := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(m, res.Meta)
	m[metaContentLanguage] = langCodeValues[l]
	res.Meta = m
}

// langCodeValues are langCodes in interfaces, made once: a string put in
// an interface is copied to the heap each time.
var langCodeValues = func() (v [langCount]any) {
	for l, c := range langCodes {
		v[l] = c
	}
	return v
}()

// ContentLanguage marks res as written in lang: it sets the
// contentLanguage _meta of SEP-2792 (experimental, as the SEP is still
// open) to lang, such as "es". A handler calls it on a result it writes
// itself in [FlowRound].Language. English, the default, and the zero Tag
// leave res as it is, as does a nil res.
func ContentLanguage(res *mcp.CallToolResult, lang language.Tag) {
	if base, _ := lang.Base(); res == nil || lang == (language.Tag{}) || base.String() == "en" {
		return
	}
	m := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(m, res.Meta)
	m[metaContentLanguage] = lang.String()
	res.Meta = m
}

// A form or flow in another language is a copy of it, compiled once on
// first use: its fields carry the author's translations (Translate), its
// message mcpform's default in that language, and everything built from
// them, the schema, the view, the model's text, follows. Asking in a
// language then costs what asking in English does. English is the
// original itself.

// in returns c in l, compiled with c's own Translate.
func (c *compiled) in(l lang) *compiled {
	if c.origin != nil {
		c = c.origin // never a translation of a translation
	}
	if l == langEN {
		return c
	}
	if lc := c.local[l].Load(); lc != nil {
		return lc
	}
	lc := c.localize(l, c.translate)
	c.local[l].Store(lc) // a race builds two equal copies; one is kept
	return lc
}

// localize returns a copy of c compiled in l, with tr translating the
// author's words; c itself when the copy does not compile, which a
// translation of titles cannot cause.
func (c *compiled) localize(l lang, tr func(language.Tag, string) string) *compiled {
	t := func(s string) string {
		if tr == nil || s == "" {
			return s
		}
		if v := tr(langTags[l], s); v != "" {
			return v
		}
		return s
	}
	all := cloneFields(c.all)
	for i := range all {
		f := &all[i]
		if title := f.title(); t(title) != title {
			f.Label = t(title)
		}
		f.Description, f.Placeholder = t(f.Description), t(f.Placeholder)
		for j := range f.Options {
			o := &f.Options[j]
			shown := o.Label
			if shown == "" {
				shown = o.Value
			}
			if v := t(shown); v != shown {
				o.Label = v
			}
		}
	}
	message := t(c.message)
	if c.message == DefaultInputMessage {
		message = l.text(msgDefaultInput)
	}
	lc, err := compile(all, &FormOptions{Key: c.key, Message: message, AskModel: c.model, Translate: tr})
	if err != nil {
		return c
	}
	lc.lang, lc.origin = l, c
	return lc
}

// ownWords returns the function that translates the author's other words in
// c's language, such as a Check's reasons; nil in English.
func (c *compiled) ownWords() func(string) string {
	if c.lang == langEN || c.translate == nil {
		return nil
	}
	return func(s string) string {
		if v := c.translate(langTags[c.lang], s); v != "" {
			return v
		}
		return s
	}
}

// in returns f in l: a copy whose steps are compiled in l, with the
// flow's Translate or else each step form's own, and whose states pin l.
// Its pins are the original's, so a state minted in one language proves
// the same steps in every other.
func (f *Flow) in(l lang) *Flow {
	if f.origin != nil {
		f = f.origin // never a translation of a translation
	}
	if l == langEN || f.local == nil {
		return f
	}
	if lf := f.local[l].Load(); lf != nil {
		return lf
	}
	lf := *f
	lf.lang, lf.origin = l, f
	lf.steps = make([]flowStep, len(f.steps))
	for i, s := range f.steps {
		tr := f.translate
		if tr == nil {
			tr = s.c.translate
		}
		s.c = s.c.localize(l, tr)
		lf.steps[i] = s
	}
	f.local[l].Store(&lf)
	return &lf
}
