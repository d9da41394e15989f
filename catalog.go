package mcpform

import (
	"strings"

	"golang.org/x/text/language"
)

// A msg names one text that mcpform shows a person or sends a model. Each
// language's catalog maps every msg to its text (catalog_es.go and so
// on); TestCatalogsComplete holds every catalog to every msg, with the
// same placeholders as English.
//
// A placeholder is a name in braces, such as {min}; [lang.format] fills
// it. A text with none is used as it is, so a literal brace needs no
// escape there.
//
// To add texts, add a msg below and its text to every catalog: the test
// names what is missing.
type msg uint16

// The texts. Their English is in catalogEN, which says what each is for.
const (
	// Problems with an answer, and the re-ask that names them.
	msgPleaseCheck msg = iota
	msgProblemSep
	msgFieldProblem
	msgSentence
	msgMissing
	msgInvalid
	msgSecretWaiting

	// The reasons a value is refused; see value.go. reasonMsgs lists them.
	msgNotBoolean
	msgNotNumber
	msgNotInteger
	msgLessThanMin
	msgGreaterThanMax
	msgNotString
	msgNotOption
	msgNotList
	msgFewerChoices
	msgMoreChoices
	msgChoiceNotOption
	msgShorter
	msgLonger
	msgNotEmail
	msgNotURI
	msgNotDate
	msgNotDateTime
	msgControl
	msgLineBreak
	msgBidi
	msgInvisible
	msgJoiner

	// What a form, a link and a model are told.
	msgDefaultInput
	msgPageAsks
	msgListSep
	msgModelAsk
	msgModelLink
	msgModelCall
	msgModelPlusAnswers
	msgModelDecline

	// The secret page; see pageStrings.
	msgPageIntro
	msgPageSend
	msgPageErrorTitle
	msgPageRequired
	msgPageNotText
	msgPageStop
	msgPageAfterRefusal
	msgDoneHeading
	msgDoneMessage
	msgUsedHeading
	msgUsedMessage
	msgStoppedHeading
	msgStoppedMessage
	msgUsedElsewhereHeading
	msgUsedElsewhereMessage
	msgRefusedHeading
	msgRefusedMessage
	msgEndedHeading
	msgEndedMessage
	msgFinishedHeading
	msgFinishedMessage
	msgBadLinkHeading
	msgBadLinkMessage
	msgNotYoursHeading
	msgNotYoursMessage
	msgAnotherSiteHeading
	msgAnotherSiteMessage
	msgNoCookieHeading
	msgNoCookieMessage
	msgTooBigHeading
	msgTooBigMessage
	msgUnreadableHeading
	msgUnreadableMessage
	msgMethodHeading
	msgMethodMessage
	msgUnavailableHeading
	msgUnavailableMessage

	// The MCP Apps views; see viewText, which holds them by name.
	msgViewProblemTitle
	msgViewStepOf
	msgViewOptional
	msgViewContinue
	msgViewFinish
	msgViewDecline
	msgViewDone
	msgViewNotDone
	msgViewMissing
	msgViewMissingChoice
	msgViewEmail
	msgViewURL
	msgViewDate
	msgViewDateTime
	msgViewNumber
	msgViewWhole
	msgViewChoice
	msgViewCheck
	msgViewChanged
	msgViewBetween
	msgViewAtLeast
	msgViewAtMost
	msgViewCharsBetween
	msgViewCharsAtLeast
	msgViewCharsAtMost
	msgViewPickBetween
	msgViewPickAtLeast
	msgViewPickAtMost
	msgViewLengthBetween
	msgViewLengthAtLeast
	msgViewLengthAtMost
	msgViewAndBounds
	msgViewPageStep
	msgViewPageButton
	msgViewPasswordPage
	msgViewCopyLink
	msgViewCopied
	msgViewReturnStep
	msgViewReturnOnly
	msgViewPageSent
	msgViewPageWaiting
	msgViewPageElsewhere
	msgViewModelForm
	msgViewModelLink

	msgCount // the number of texts; not a text
)

// reasonMsgs are the reasons a value is refused, which checkValue words in
// English; localReason finds each in the others.
var reasonMsgs = [...]msg{msgNotBoolean, msgNotNumber, msgNotInteger, msgLessThanMin, msgGreaterThanMax,
	msgNotString, msgNotOption, msgNotList, msgFewerChoices, msgMoreChoices, msgChoiceNotOption, msgShorter,
	msgLonger, msgNotEmail, msgNotURI, msgNotDate, msgNotDateTime, msgControl, msgLineBreak, msgBidi,
	msgInvisible, msgJoiner}

// A catalog holds one language's texts.
type catalog map[msg]string

// A lang is one of the languages mcpform speaks: an index into langTags.
// The zero lang is English, the default.
type lang uint8

const (
	langEN lang = iota
	langES
	langFR
	langDE
	langJA
	langCount
)

// langTags are the languages' tags, English first: it is the matcher's
// fallback.
var langTags = [langCount]language.Tag{language.English, language.Spanish, language.French, language.German, language.Japanese}

// langCodes are langTags as strings, as a state pins them and
// contentLanguage reports them.
var langCodes = [langCount]string{"en", "es", "fr", "de", "ja"}

// catalogs are the languages' catalogs, in lang order.
var catalogs = [langCount]catalog{catalogEN, catalogES, catalogFR, catalogDE, catalogJA}

// texts are the catalogs as arrays, for lookups that cost an index. A text
// a catalog lacks is English's, which TestCatalogsComplete forbids.
var texts = func() (t [langCount][msgCount]string) {
	for l, c := range catalogs {
		for k := range msgCount {
			if s, ok := c[k]; ok {
				t[l][k] = s
			} else {
				t[l][k] = catalogEN[k]
			}
		}
	}
	return t
}()

// text returns l's text of k, with its placeholders unfilled.
func (l lang) text(k msg) string { return texts[l][k] }

// format returns l's text of k with each placeholder {name} filled by the
// value after name in args, which alternates names and values. A
// placeholder args does not name is left as it is: fillText's result,
// from the text cut once (textParts), in one allocation.
func (l lang) format(k msg, args ...string) string {
	parts := textParts[l][k]
	if len(parts) == 1 && !parts[0].hole {
		return parts[0].lit
	}
	var b strings.Builder
	b.Grow(partsLen(parts, args))
	writeParts(&b, parts, args)
	return b.String()
}

// A textPart is a piece of a text: a literal, then, if hole, the
// placeholder name.
type textPart struct {
	lit, name string
	hole      bool
}

// textParts are the texts cut at their placeholders, as fillText finds
// them, so that a text is scanned once, not each time it is filled.
var textParts = func() (p [langCount][msgCount][]textPart) {
	for l := range langCount {
		for k := range msgCount {
			p[l][k] = cutText(texts[l][k])
		}
	}
	return p
}()

// cutText cuts s at its placeholders, as fillText reads them.
func cutText(s string) []textPart {
	var parts []textPart
	for {
		lit, name, rest, ok := nextHole(s)
		if !ok {
			break
		}
		parts = append(parts, textPart{lit: lit, name: name, hole: true})
		s = rest
	}
	return append(parts, textPart{lit: s})
}

// nextHole splits s at its first placeholder {name}: the text before it,
// its name and the text after it; ok is false when s has none left. It is
// the one reader of the placeholder syntax.
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

// partsLen is the length of parts filled from args.
func partsLen(parts []textPart, args []string) int {
	n := 0
	for _, p := range parts {
		n += len(p.lit)
		if p.hole {
			if v, ok := argValue(args, p.name); ok {
				n += len(v)
			} else {
				n += len(p.name) + 2
			}
		}
	}
	return n
}

// writeParts writes parts filled from args to b.
func writeParts(b *strings.Builder, parts []textPart, args []string) {
	for _, p := range parts {
		b.WriteString(p.lit)
		if !p.hole {
			continue
		}
		if v, ok := argValue(args, p.name); ok {
			b.WriteString(v)
		} else {
			b.WriteString("{" + p.name + "}")
		}
	}
}

// placeholders returns the names of the placeholders in s, in order.
func placeholders(s string) []string {
	var names []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return names
		}
		j := strings.IndexByte(s[i+1:], '}')
		if j < 0 {
			return names
		}
		names = append(names, s[i+1:i+1+j])
		s = s[i+2+j:]
	}
}

// localReason returns reason, a text checkValue wrote in English, in l:
// it finds the reason's msg by its English text, the one placeholder of
// some filled with a bound. A reason it does not know, such as one a
// Step's Check wrote, is returned as it is.
func localReason(l lang, reason string) string {
	if l == langEN {
		return reason
	}
	if k, ok := reasonExact[reason]; ok {
		return l.text(k)
	}
	for _, p := range reasonParts {
		if p.name != "" && len(reason) > len(p.head)+len(p.tail) && strings.HasPrefix(reason, p.head) && strings.HasSuffix(reason, p.tail) {
			return l.format(p.k, p.name, reason[len(p.head):len(reason)-len(p.tail)])
		}
	}
	return reason
}

// reasonExact are the English reasons without a placeholder, found by a
// lookup rather than a scan. None of them reads as one with a placeholder
// filled (TestLocalReason), so the order of the scan does not matter.
var reasonExact = func() map[string]msg {
	m := make(map[string]msg)
	for _, p := range reasonParts {
		if p.name == "" {
			m[p.head] = p.k
		}
	}
	return m
}()

// reasonParts are the English reasons cut at their placeholder, once:
// head, then {name}, then tail; a reason without one is all head.
var reasonParts = func() (parts [len(reasonMsgs)]struct {
	k                msg
	head, name, tail string
}) {
	for i, k := range reasonMsgs {
		en := catalogEN[k]
		parts[i].k, parts[i].head = k, en
		if a, b := strings.IndexByte(en, '{'), strings.IndexByte(en, '}'); a >= 0 && b > a {
			parts[i].head, parts[i].name, parts[i].tail = en[:a], en[a+1:b], en[b+1:]
		}
	}
	return parts
}()
