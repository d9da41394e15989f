package catalog

// catalogEN is English, the default, and the source every other catalog
// translates. A Reason's text (NotNumber to GivenTwice) is a Go error's, for
// a developer; a person reads what the View texts say of it instead.
var catalogEN = [NumMsgs]string{
	// A re-ask says each problem as a sentence of its own: "Email must be
	// an email address, like name@example.com. Enter a value for Plan."
	Sentence:      "{text}.", // one problem, said as a sentence
	ProblemSep:    " ",       // between a re-ask's sentences
	Missing:       "missing required value",
	Invalid:       "invalid value", // an answer malformed as a whole
	SecretWaiting: "the page for it is still waiting",

	NotBoolean:      "not a boolean",
	NotNumber:       "not a number",
	NotInteger:      "not an integer",
	LessThanMin:     "less than the minimum {min}",
	GreaterThanMax:  "greater than the maximum {max}",
	OutOfRange:      "too large for a number this field holds", // beyond a float64, as 1e400
	NotString:       "not a string",
	NotOption:       "not one of the options",
	NotList:         "not a list",
	FewerChoices:    "fewer than {min} choices",
	MoreChoices:     "more than {max} choices",
	ChoiceNotOption: "a choice is not one of the options",
	Shorter:         "shorter than {min} characters",
	Longer:          "longer than {max} characters",
	NotEmail:        "not a valid email address",
	NotURI:          "not a valid absolute URI",
	NotDate:         "not a valid date (YYYY-MM-DD)",
	NotDateTime:     "not a valid date-time (RFC 3339)",
	Control:         "a control character",
	LineBreak:       "a line break, which only a multi-line field takes",
	Bidi:            "a bidirectional control character",
	Invisible:       "an invisible zero-width or direction mark",
	Joiner:          "a zero-width joiner that joins nothing",
	// Bytes that are not UTF-8, or a lone surrogate escape: what the
	// client sent cannot be read as text, so it is asked again rather
	// than kept with U+FFFD in its place.
	NotUnicode: "characters that could not be read",
	// A key given twice in one object, which readers read differently.
	GivenTwice: "given more than once",

	DefaultInput: "Please provide the following information",
	// The URL-mode request's message; {fields} are the secret fields'
	// titles, joined by ListSep.
	PageAsks: "The page this link opens asks for: {fields}. What you type there goes straight to the server, never through this app.",
	ListSep:  ", ",
	// What the model is told, around the schema, link and arguments.
	ModelAsk:         "\n\nAsk the person for these answers, in their own words; do not make them up or choose for them. They must match this JSON schema:\n",
	ModelLink:        "Give the person this link. ",
	ModelCall:        "Then call the tool {tool} again with these arguments, unchanged",
	ModelPlusAnswers: ", plus each answer as an argument named by its field",
	ModelDecline:     "\n\nIf the person declines, call it again with these arguments plus {decline} and no answers. Only the person can decline or answer; do not do either for them.",

	PageIntro:      "What you type here goes straight to the server, never through your app or its assistant.",
	PageSend:       "Send",
	PageErrorTitle: "Error: ",
	PageRequired:   "Enter a value: it is required.",
	PageNotText:    "This could not be read as text. Type it again.",
	PageStop:       "I didn't send it: stop this link",
	// Appended to each refusal of a link, after its own sentence.
	PageAfterRefusal: " To keep your account safe, this link no longer works, and nothing sent from here was kept. " +
		"Go back to your app and ask it again: it will give you a new link. Open that one in one browser only.",

	DoneHeading: "You're done",
	DoneMessage: "You have sent it. You can close this page and go back to your app.",
	UsedHeading: "This link was already used",
	UsedMessage: "What it asked for was sent already. If you sent it, you're done: close this page and go back to your app. " +
		"If you didn't, stop the link, then go back to your app and ask it again for a new link.",
	StoppedHeading: "This link is stopped",
	StoppedMessage: "It no longer works. If your app has not finished with it yet, it will not use what was sent on it. " +
		"Go back to your app and ask it again for a new link.",
	UsedElsewhereHeading: "This link no longer works",
	UsedElsewhereMessage: "It was already used in another browser, or by someone else.",
	RefusedHeading:       "This link no longer works",
	RefusedMessage:       "It was used in another browser, or by someone else.",
	EndedHeading:         "This request has ended",
	EndedMessage: "It was ended in your app, so this page takes nothing more, and nothing you typed on it was kept. " +
		"To try again, go back to your app and ask it again for a new link.",
	FinishedHeading:    "This request is finished",
	FinishedMessage:    "What was sent on this link was used, and the request is finished. You can close this page.",
	BadLinkHeading:     "This link doesn't work",
	BadLinkMessage:     "It is not valid, or it has expired. Go back to your app to get a new one.",
	NotYoursHeading:    "This page is not for you",
	NotYoursMessage:    "It belongs to someone else's request.",
	AnotherSiteHeading: "This wasn't sent from this page",
	AnotherSiteMessage: "It came from another site, so nothing was kept. Open the link from your app again, and send it from there.",
	NoCookieHeading:    "This wasn't sent from this page",
	NoCookieMessage: "Your browser did not send back what this page gave it, so nothing was kept. " +
		"Allow cookies for this site, open the link from your app again, and send it from there.",
	TooBigHeading:      "That was too much to send",
	TooBigMessage:      "Nothing was kept. Go back, and send it again.",
	UnreadableHeading:  "That could not be read",
	UnreadableMessage:  "Nothing was kept. Go back, and send it again.",
	MethodHeading:      "This page can't do that",
	MethodMessage:      "Open the link from your app to use this page.",
	UnavailableHeading: "That could not be saved",
	UnavailableMessage: "Something went wrong on the server. Please try again in a moment.",

	// The MCP Apps views (the root's view.go).
	ViewProblemTitle: "There is a problem", // the error summary's heading
	ViewStepOf:       "Step {step} of {total}",
	ViewOptional:     "{label} (optional)", // the label of a field not required
	ViewContinue:     "Continue",           // a step's submit, but the last
	ViewFinish:       "Submit",             // the last step's submit
	ViewDecline:      "Decline",
	ViewDone:         "Finished",      // an outcome's heading
	ViewNotDone:      "Not completed", // an outcome's heading, with isError
	// What a problem says, by what the field asks: how to fix it.
	ViewMissing:       "Enter a value for {label}",
	ViewMissingChoice: "Choose an option for {label}",
	ViewEmail:         "{label} must be an email address, like name@example.com",
	ViewURL:           "{label} must be a web address, like https://example.com",
	ViewDate:          "{label} must be a date, like 2026-08-03",
	ViewDateTime:      "{label} must be a date and time, like 2026-08-03 10:00",
	ViewNumber:        "{label} must be a number",
	ViewWhole:         "{label} must be a whole number",
	ViewChoice:        "Choose one of the options for {label}",
	ViewCheck:         "Check {label}: {reason}", // {reason}: the rule broken
	ViewChanged:       "Check {label} again: the questions changed",
	// Bounds, as a hint under the label and in a problem.
	ViewBetween:       "From {min} to {max}",
	ViewAtLeast:       "{min} or more",
	ViewAtMost:        "{max} or less",
	ViewCharsBetween:  "{min} to {max} characters",
	ViewCharsAtLeast:  "At least {min} characters",
	ViewCharsAtMost:   "Up to {max} characters",
	ViewPickBetween:   "Choose {min} to {max}",
	ViewPickAtLeast:   "Choose at least {min}",
	ViewPickAtMost:    "Choose up to {max}",
	ViewLengthBetween: "{label} must be {min} to {max} characters",
	ViewLengthAtLeast: "{label} must be at least {min} characters",
	ViewLengthAtMost:  "{label} must be {max} characters or fewer",
	ViewMustBetween:   "{label} must be from {min} to {max}", // a number out of its bounds
	ViewMustAtLeast:   "{label} must be {min} or more",
	ViewMustAtMost:    "{label} must be {max} or less",
	ViewChooseBetween: "Choose {min} to {max} options for {label}", // too few or too many chosen
	ViewChooseAtLeast: "Choose at least {min} options for {label}",
	ViewChooseAtMost:  "Choose no more than {max} options for {label}",
	// The secret step; {fields} lists the secret fields' titles.
	ViewPageStep:      "Open the page and enter what it asks for: {fields}. What you type there goes straight to the server, never through this app.",
	ViewPageButton:    "Open the page",
	ViewPasswordPage:  "Open the password page",
	ViewCopyLink:      "Copy the link instead",
	ViewCopied:        "Link copied. Paste it into your browser.",
	ViewReturnStep:    "Come back here, fill in the rest, and continue.",
	ViewReturnOnly:    "Once you have sent the page, come back here and continue.",
	ViewPageSent:      "I've set it – continue",
	ViewPageWaiting:   "Not set yet: {fields}. Open the page, fill it in and send it, then continue here.",
	ViewPageElsewhere: "The page's link was used in another browser, so it was refused. Open the page again from here.",
	// What the model reads of a view; {form} is the form's message, quoted.
	ViewModelForm: "The person is shown the form {form} in the app's view and answers there; the view calls the tool again itself.",
	ViewModelLink: "The app's view gives the person this link, where they type what is asked straight to the server: {url}",

	// What a flow says it will do, and how it ended (h-out's block).
	OutStepOfUpTo:  "Step {step} of up to {total}", // a step when a later one may be skipped
	OutCheckTitle:  "Check your answers",           // the heading of the round before a flow ends
	OutCheckField:  "Are these answers right?",     // its one question
	OutCheckKeep:   "Yes, they are right",          // its choice that ends the flow
	OutCheckChange: "Change: {step}",               // its choice that asks {step} again
	OutCheckLine:   "{label}: {value}",             // one answer to check
	OutYes:         "Yes",                          // a checked box, among the answers to check
	OutNo:          "No",

	// What accepting a flow's step does, natively, and a view's way to
	// start a run again that did not complete (h-decline's block).
	OutCommitSure:  "This is the last step. Accepting it does this: {commit}.",                                     // a native step sure to finish the flow; {commit} is FlowOptions.Commit
	OutCommitMay:   "Depending on your answers, this may be the last step. Accepting it then does this: {commit}.", // a native step that may finish it
	ViewStartAgain: "Start again",                                                                                  // the button of an outcome that did not complete
}
