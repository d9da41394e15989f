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
