// Package catalog holds the texts mcpform shows a person or sends a
// model, in each language it speaks, and matches a request's
// Accept-Language to one of those languages.
package catalog

import (
	"strings"

	"golang.org/x/text/language"
)

// A Msg names one text. Each language's catalog holds every Msg's text
// (catalog_es.go and so on); TestCatalogsComplete holds every catalog to
// every Msg, with the same placeholders as English.
//
// A placeholder is a name in braces, such as {min}; [Lang.Format] fills
// it. A text with none is used as it is, so a literal brace needs no
// escape there.
//
// To add a text, add a Msg below and its text to every catalog: the test
// names what is missing.
type Msg uint16

// The texts. Their English is in catalogEN, which says what each is for.
const (
	// Problems with an answer, and the re-ask that names them.
	Sentence Msg = iota
	ProblemSep
	Missing
	Invalid
	SecretWaiting

	// The reasons a value is refused: a Reason carries one.
	NotBoolean
	NotNumber
	NotInteger
	LessThanMin
	GreaterThanMax
	OutOfRange
	NotString
	NotOption
	NotList
	FewerChoices
	MoreChoices
	ChoiceNotOption
	Shorter
	Longer
	NotEmail
	NotURI
	NotDate
	NotDateTime
	Control
	LineBreak
	Bidi
	Invisible
	Joiner
	NotUnicode
	GivenTwice

	// What a form, a link and a model are told.
	DefaultInput
	PageAsks
	ListSep
	ModelAsk
	ModelLink
	ModelCall
	ModelPlusAnswers
	ModelDecline

	// The secret page.
	PageIntro
	PageSend
	PageErrorTitle
	PageRequired
	PageNotText
	PageStop
	PageAfterRefusal
	DoneHeading
	DoneMessage
	UsedHeading
	UsedMessage
	StoppedHeading
	StoppedMessage
	UsedElsewhereHeading
	UsedElsewhereMessage
	RefusedHeading
	RefusedMessage
	EndedHeading
	EndedMessage
	FinishedHeading
	FinishedMessage
	BadLinkHeading
	BadLinkMessage
	NotYoursHeading
	NotYoursMessage
	AnotherSiteHeading
	AnotherSiteMessage
	NoCookieHeading
	NoCookieMessage
	TooBigHeading
	TooBigMessage
	UnreadableHeading
	UnreadableMessage
	MethodHeading
	MethodMessage
	UnavailableHeading
	UnavailableMessage

	// The MCP Apps views.
	ViewProblemTitle
	ViewStepOf
	ViewOptional
	ViewContinue
	ViewFinish
	ViewDecline
	ViewDone
	ViewNotDone
	ViewMissing
	ViewMissingChoice
	ViewEmail
	ViewURL
	ViewDate
	ViewDateTime
	ViewNumber
	ViewWhole
	ViewChoice
	ViewCheck
	ViewChanged
	ViewBetween
	ViewAtLeast
	ViewAtMost
	ViewCharsBetween
	ViewCharsAtLeast
	ViewCharsAtMost
	ViewPickBetween
	ViewPickAtLeast
	ViewPickAtMost
	ViewLengthBetween
	ViewLengthAtLeast
	ViewLengthAtMost
	ViewMustBetween
	ViewMustAtLeast
	ViewMustAtMost
	ViewChooseBetween
	ViewChooseAtLeast
	ViewChooseAtMost
	ViewPageStep
	ViewPageButton
	ViewPasswordPage
	ViewCopyLink
	ViewCopied
	ViewReturnStep
	ViewReturnOnly
	ViewPageSent
	ViewPageWaiting
	ViewPageElsewhere
	ViewModelForm
	ViewModelLink

	// What a flow says it will do, and how it ended (h-out's block).
	OutStepOfUpTo
	OutCheckTitle
	OutCheckField
	OutCheckKeep
	OutCheckChange
	OutCheckLine
	OutYes
	OutNo

	// What accepting a flow's step does, natively, and a view's way to
	// start a run again that did not complete (h-decline's block).
	OutCommitSure
	OutCommitMay
	ViewStartAgain

	NumMsgs // the number of texts; not a text
)

// A Lang is one of the languages mcpform speaks. The zero Lang is
// English, the default.
type Lang uint8

// The languages, English first: it is the matcher's fallback.
const (
	English Lang = iota
	Spanish
	French
	German
	Japanese
	NumLangs // the number of languages; not a language
)

// tags are the languages' tags, in Lang order.
var tags = [NumLangs]language.Tag{language.English, language.Spanish, language.French, language.German, language.Japanese}

// codes are tags as strings.
var codes = [NumLangs]string{"en", "es", "fr", "de", "ja"}

// texts are the catalogs, in Lang order.
var texts = [NumLangs]*[NumMsgs]string{&catalogEN, &catalogES, &catalogFR, &catalogDE, &catalogJA}

// Tag returns l's language tag, such as language.Spanish.
func (l Lang) Tag() language.Tag { return tags[l] }

// Code returns l's BCP 47 code, such as "es", as a state pins it and
// Content-Language reports it.
func (l Lang) Code() string { return codes[l] }

// Text returns l's text of k, with its placeholders unfilled.
func (l Lang) Text(k Msg) string { return texts[l][k] }

// Format returns l's text of k with its placeholders filled from args,
// as [Fill] fills them.
func (l Lang) Format(k Msg, args ...string) string { return Fill(texts[l][k], args...) }

// Fill returns s with each placeholder {name} filled by the value after
// name in args, which alternates names and values. A placeholder args
// does not name is left as it is, and a value is never read again for
// placeholders.
func Fill(s string, args ...string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '}')
		if j < 0 {
			break
		}
		end := i + 2 + j
		b.WriteString(s[:i])
		if v, ok := arg(args, s[i+1:end-1]); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:end])
		}
		s = s[end:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}

// arg returns the value after name in args, which alternates names and
// values.
func arg(args []string, name string) (string, bool) {
	for a := 0; a+1 < len(args); a += 2 {
		if args[a] == name {
			return args[a+1], true
		}
	}
	return "", false
}

// A Reason says why a value is refused: a Msg and the arguments that
// fill it, alternating names and values. It is an error whose text is
// English; In says it in another language, by lookup.
type Reason struct {
	Msg  Msg
	Args []string
}

// Error returns r in English.
func (r *Reason) Error() string { return English.Format(r.Msg, r.Args...) }

// In returns r in l.
func (r *Reason) In(l Lang) string { return l.Format(r.Msg, r.Args...) }
