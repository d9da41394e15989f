package mcpform

// catalogEN is English, the default, and the source every other catalog
// translates. Its texts are the ones mcpform has always sent, byte for
// byte.
var catalogEN = catalog{
	// "Please check: Email: not a valid email address; Plan: missing
	// required value."
	msgPleaseCheck:   "Please check: {problems}.",
	msgProblemSep:    "; ",
	msgFieldProblem:  "{field}: {reason}",
	msgSentence:      "{text}.", // a reason shown alone, as on the secret page
	msgMissing:       "missing required value",
	msgInvalid:       "invalid value", // an answer malformed as a whole
	msgSecretWaiting: "the page for it is still waiting",

	msgNotBoolean:      "not a boolean",
	msgNotNumber:       "not a number",
	msgNotInteger:      "not an integer",
	msgLessThanMin:     "less than the minimum {min}",
	msgGreaterThanMax:  "greater than the maximum {max}",
	msgNotString:       "not a string",
	msgNotOption:       "not one of the options",
	msgNotList:         "not a list",
	msgFewerChoices:    "fewer than {min} choices",
	msgMoreChoices:     "more than {max} choices",
	msgChoiceNotOption: "a choice is not one of the options",
	msgShorter:         "shorter than {min} characters",
	msgLonger:          "longer than {max} characters",
	msgNotEmail:        "not a valid email address",
	msgNotURI:          "not a valid absolute URI",
	msgNotDate:         "not a valid date (YYYY-MM-DD)",
	msgNotDateTime:     "not a valid date-time (RFC 3339)",
	msgControl:         "a control character",
	msgLineBreak:       "a line break, which only a multi-line field takes",
	msgBidi:            "a bidirectional control character",
	msgInvisible:       "an invisible zero-width or direction mark",
	msgJoiner:          "a zero-width joiner that joins nothing",

	msgDefaultInput: "Please provide the following information",
	// The URL-mode request's message; {fields} are the secret fields'
	// titles, joined by msgListSep.
	msgPageAsks: "The page this link opens asks for: {fields}. What you type there goes straight to the server, never through this app.",
	msgListSep:  ", ",
	// What the model is told, around the schema, link and arguments.
	msgModelAsk:         "\n\nAsk the person for these answers, in their own words; do not make them up or choose for them. They must match this JSON schema:\n",
	msgModelLink:        "Give the person this link. ",
	msgModelCall:        "Then call the tool {tool} again with these arguments, unchanged",
	msgModelPlusAnswers: ", plus each answer as an argument named by its field",
	msgModelDecline:     "\n\nIf the person declines, call it again with these arguments plus {decline} and no answers. Only the person can decline or answer; do not do either for them.",

	msgPageIntro:      "What you type here goes straight to the server, never through your app or its assistant.",
	msgPageSend:       "Send",
	msgPageErrorTitle: "Error: ",
	msgPageRequired:   "Enter a value: it is required.",
	msgPageNotText:    "This could not be read as text. Type it again.",
	msgPageStop:       "I didn't send it: stop this link",
	// Appended to each refusal of a link, after its own sentence.
	msgPageAfterRefusal: " To keep your account safe, this link no longer works, and nothing sent from here was kept. " +
		"Go back to your app and ask it again: it will give you a new link. Open that one in one browser only.",

	msgDoneHeading: "You're done",
	msgDoneMessage: "You have sent it. You can close this page and go back to your app.",
	msgUsedHeading: "This link was already used",
	msgUsedMessage: "What it asked for was sent already. If you sent it, you're done: close this page and go back to your app. " +
		"If you didn't, stop the link, then go back to your app and ask it again for a new link.",
	msgStoppedHeading: "This link is stopped",
	msgStoppedMessage: "It no longer works. If your app has not finished with it yet, it will not use what was sent on it. " +
		"Go back to your app and ask it again for a new link.",
	msgUsedElsewhereHeading: "This link no longer works",
	msgUsedElsewhereMessage: "It was already used in another browser, or by someone else.",
	msgRefusedHeading:       "This link no longer works",
	msgRefusedMessage:       "It was used in another browser, or by someone else.",
	msgEndedHeading:         "This request has ended",
	msgEndedMessage: "It was ended in your app, so this page takes nothing more, and nothing you typed on it was kept. " +
		"To try again, go back to your app and ask it again for a new link.",
	msgFinishedHeading:    "This request is finished",
	msgFinishedMessage:    "What was sent on this link was used, and the request is finished. You can close this page.",
	msgBadLinkHeading:     "This link doesn't work",
	msgBadLinkMessage:     "It is not valid, or it has expired. Go back to your app to get a new one.",
	msgNotYoursHeading:    "This page is not for you",
	msgNotYoursMessage:    "It belongs to someone else's request.",
	msgAnotherSiteHeading: "This wasn't sent from this page",
	msgAnotherSiteMessage: "It came from another site, so nothing was kept. Open the link from your app again, and send it from there.",
	msgNoCookieHeading:    "This wasn't sent from this page",
	msgNoCookieMessage: "Your browser did not send back what this page gave it, so nothing was kept. " +
		"Allow cookies for this site, open the link from your app again, and send it from there.",
	msgTooBigHeading:      "That was too much to send",
	msgTooBigMessage:      "Nothing was kept. Go back, and send it again.",
	msgUnreadableHeading:  "That could not be read",
	msgUnreadableMessage:  "Nothing was kept. Go back, and send it again.",
	msgMethodHeading:      "This page can't do that",
	msgMethodMessage:      "Open the link from your app to use this page.",
	msgUnavailableHeading: "That could not be saved",
	msgUnavailableMessage: "Something went wrong on the server. Please try again in a moment.",

	// The MCP Apps views (viewtext.go).
	msgViewProblemTitle: "There is a problem", // the error summary's heading
	msgViewStepOf:       "Step {step} of {total}",
	msgViewOptional:     "(optional)", // after the label of a field not required
	msgViewContinue:     "Continue",   // a step's submit, but the last
	msgViewFinish:       "Submit",     // the last step's submit
	msgViewDecline:      "Decline",
	msgViewDone:         "Finished",      // an outcome's heading
	msgViewNotDone:      "Not completed", // an outcome's heading, with isError
	// What a problem says, by what the field asks: how to fix it.
	msgViewMissing:       "Enter a value for {label}",
	msgViewMissingChoice: "Choose an option for {label}",
	msgViewEmail:         "Enter an email address like name@example.com",
	msgViewURL:           "Enter a web address like https://example.com",
	msgViewDate:          "Enter a date like 2026-08-03",
	msgViewDateTime:      "Enter a date and time like 2026-08-03 10:00",
	msgViewNumber:        "Enter a number",
	msgViewWhole:         "Enter a whole number",
	msgViewChoice:        "Choose one of the options for {label}",
	msgViewCheck:         "Check {label}: {reason}", // {reason}: the rule broken
	msgViewChanged:       "Check {label} again: the questions changed",
	// Bounds, as a hint under the label and in a problem.
	msgViewBetween:       "From {min} to {max}",
	msgViewAtLeast:       "{min} or more",
	msgViewAtMost:        "{max} or less",
	msgViewCharsBetween:  "{min} to {max} characters",
	msgViewCharsAtLeast:  "At least {min} characters",
	msgViewCharsAtMost:   "Up to {max} characters",
	msgViewPickBetween:   "Choose {min} to {max}",
	msgViewPickAtLeast:   "Choose at least {min}",
	msgViewPickAtMost:    "Choose up to {max}",
	msgViewLengthBetween: "Enter {min} to {max} characters",
	msgViewLengthAtLeast: "Enter at least {min} characters",
	msgViewLengthAtMost:  "Enter no more than {max} characters",
	msgViewAndBounds:     "{what}. {bounds}", // what to enter, then its bounds
	// The secret step; {fields} lists the secret fields' titles.
	msgViewPageStep:      "Open the page and enter your {fields} there. What you type there goes straight to the server, never through this app.",
	msgViewPageButton:    "Open the page",
	msgViewPasswordPage:  "Open the password page",
	msgViewCopyLink:      "Copy the link instead",
	msgViewCopied:        "Link copied. Paste it into your browser.",
	msgViewReturnStep:    "Come back here, fill in the rest, and continue.",
	msgViewReturnOnly:    "Once you have sent the page, come back here and continue.",
	msgViewPageSent:      "I've set it – continue",
	msgViewPageWaiting:   "The page has not been sent yet. Open it, enter your {fields}, send it, then continue here.",
	msgViewPageElsewhere: "The page's link was used in another browser, so it was refused. Open the page again from here.",
	// What the model reads of a view; {form} is the form's message, quoted.
	msgViewModelForm: "The person is shown the form {form} in the app's view and answers there; the view calls the tool again itself.",
	msgViewModelLink: "The app's view gives the person this link, where they type what is asked straight to the server: {url}",
}
