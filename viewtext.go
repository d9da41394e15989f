package mcpform

import "strings"

// viewText holds, by name, every word an MCP Apps view shows or tells
// the model that is mcpform's own, not the author's: one language's view
// texts of the catalogs (msgView...), where their English says what each
// is for. A placeholder is a name in braces, filled by fillText.
type viewText struct {
	l lang // the language they are in

	ProblemTitle, StepOf, Optional, Continue, Finish, Decline, Done, NotDone string

	// What a problem says, by what the field asks: each says how to fix
	// it, not what the validator thought.
	Missing, MissingChoice, Email, URL, Date, DateTime, Number, Whole, Choice, Check, Changed string

	// Bounds, as a hint under the label and in a problem; what to enter
	// when a text's length is out of them; what to enter and its bounds.
	Between, AtLeast, AtMost, CharsBetween, CharsAtLeast, CharsAtMost string
	PickBetween, PickAtLeast, PickAtMost                              string
	LengthBetween, LengthAtLeast, LengthAtMost, AndBounds             string

	// The secret step.
	PageStep, PageButton, PasswordPage, CopyLink, Copied, ReturnStep, ReturnOnly string
	PageSent, PageWaiting, PageElsewhere                                         string

	// What the model reads of a view, and how a list is joined.
	ModelForm, ModelLink, ListSep string
}

// viewTexts are the languages' view texts, in lang order, drawn from the
// catalogs once, so that a view reads a field rather than looks one up.
var viewTexts = func() (v [langCount]*viewText) {
	for l := range langCount {
		v[l] = &viewText{l: l,
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
		}
	}
	return v
}()

// viewEnglish is the views' English text, the default.
var viewEnglish = viewTexts[langEN]

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
