package prefab

// Text holds, by name, every word a view shows or tells the model that is
// mcpform's own, not the author's, in one language. The caller fills it from
// its catalogs. A placeholder is a name in braces, filled by [catalog.Fill].
type Text struct {
	// Lang is the language's code, which marks a view's root; empty for
	// English, the viewer page's own language.
	Lang string

	// Optional is a template of the {label} of a field not required.
	ProblemTitle, StepOf, Optional, Continue, Finish, Decline, Done, NotDone string
	// ErrorPrefix comes before each problem under a field, hidden from
	// the eye, so that a screen reader says it is one ("Error: ").
	ErrorPrefix string

	// StepOfUpTo is StepOf when later steps may be skipped.
	StepOfUpTo string
	// StartAgain labels the button under an outcome that did not
	// complete, which starts the flow again.
	StartAgain string

	// What a problem says, by what the field asks: each is one sentence
	// (without its stop) that names the field by its {label} and says how
	// to fix it, not what the validator thought.
	Missing, MissingChoice, Email, URL, Date, DateTime, Number, Whole, Choice, Check, Changed string

	// Bounds, as a hint under the label.
	Between, AtLeast, AtMost, CharsBetween, CharsAtLeast, CharsAtMost string
	PickBetween, PickAtLeast, PickAtMost                              string
	// Bounds, in a problem that names the field: a text's length, a
	// number, the number of choices.
	LengthBetween, LengthAtLeast, LengthAtMost string
	MustBetween, MustAtLeast, MustAtMost       string
	ChooseBetween, ChooseAtLeast, ChooseAtMost string

	// The secret step.
	PageStep, PageButton, PasswordPage, CopyLink, Copied, ReturnStep, ReturnOnly string
	PageSent, PageWaiting, PageElsewhere                                         string

	// What the model reads of a view, and how a list is joined.
	ModelForm, ModelLink, ListSep string
}
