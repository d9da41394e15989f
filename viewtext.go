package mcpform

import "strings"

// viewText holds every word an MCP Apps view shows that is mcpform's own,
// not the author's, in one place, so that a catalog can later hold one per
// language. A placeholder is a name in braces, filled by fillText; the
// comment of each entry lists the ones it takes, and a translation must
// keep them.
type viewText struct {
	ProblemTitle string // heading of the error summary
	StepOf       string // {step}, {total}: where a step is in its flow
	Optional     string // appended to the label of a field not required
	Continue     string // a step's submit, but the last
	Finish       string // the last step's submit
	Decline      string // the button that declines the step
	Done         string // heading of an outcome
	NotDone      string // heading of an outcome with isError

	// What a problem says, by what the field asks: each says how to fix
	// it, not what the validator thought.
	Missing       string // {label}: a required field left empty
	MissingChoice string // {label}: a required choice not made
	Email         string // an email address that is not one
	URL           string // a web address that is not one
	Date          string // a date that is not one
	DateTime      string // a date and time that is not one
	Number        string // a number that is not one
	Whole         string // a whole number that is not one
	Choice        string // {label}: a value not among the options
	Check         string // {label}: any other problem; {reason} is the rule broken
	Changed       string // {label}: the questions changed since it was answered

	// Bounds, as a hint under the label and in a problem. {min}, {max}.
	Between      string // numbers
	AtLeast      string
	AtMost       string
	CharsBetween string // text length
	CharsAtLeast string
	CharsAtMost  string
	PickBetween  string // choices of a multiple choice
	PickAtLeast  string
	PickAtMost   string
	// What to enter when a text's length is out of bounds. {min}, {max}.
	LengthBetween string
	LengthAtLeast string
	LengthAtMost  string

	// The secret step. {fields} lists the secret fields' labels.
	PageStep      string // the first numbered step: open the page
	PageButton    string // opens the page through the host
	PasswordPage  string // PageButton when every secret is a password
	CopyLink      string // copies the link, for a host that opens nothing
	Copied        string // said once the link is copied
	ReturnStep    string // the second numbered step, on a view with fields
	ReturnOnly    string // the second numbered step, on a view without
	PageSent      string // the submit once the page is sent
	PageWaiting   string // {fields}: the page was not sent before the submit
	PageElsewhere string // the page refused its link: another browser used it
}

// viewEnglish is the views' English text, the default.
var viewEnglish = &viewText{
	ProblemTitle: "There is a problem",
	StepOf:       "Step {step} of {total}",
	Optional:     "(optional)",
	Continue:     "Continue",
	Finish:       "Submit",
	Decline:      "Decline",
	Done:         "Finished",
	NotDone:      "Not completed",

	Missing:       "Enter a value for {label}",
	MissingChoice: "Choose an option for {label}",
	Email:         "Enter an email address like name@example.com",
	URL:           "Enter a web address like https://example.com",
	Date:          "Enter a date like 2026-08-03",
	DateTime:      "Enter a date and time like 2026-08-03 10:00",
	Number:        "Enter a number",
	Whole:         "Enter a whole number",
	Choice:        "Choose one of the options for {label}",
	Check:         "Check {label}: {reason}",
	Changed:       "Check {label} again: the questions changed",

	Between:      "From {min} to {max}",
	AtLeast:      "{min} or more",
	AtMost:       "{max} or less",
	CharsBetween: "{min} to {max} characters",
	CharsAtLeast: "At least {min} characters",
	CharsAtMost:  "Up to {max} characters",
	PickBetween:  "Choose {min} to {max}",
	PickAtLeast:  "Choose at least {min}",
	PickAtMost:   "Choose up to {max}",

	LengthBetween: "Enter {min} to {max} characters",
	LengthAtLeast: "Enter at least {min} characters",
	LengthAtMost:  "Enter no more than {max} characters",

	PageStep:      "Open the page and enter your {fields} there. What you type there goes straight to the server, never through this app.",
	PageButton:    "Open the page",
	PasswordPage:  "Open the password page",
	CopyLink:      "Copy the link instead",
	Copied:        "Link copied. Paste it into your browser.",
	ReturnStep:    "Come back here, fill in the rest, and continue.",
	ReturnOnly:    "Once you have sent the page, come back here and continue.",
	PageSent:      "I've set it – continue",
	PageWaiting:   "The page has not been sent yet. Open it, enter your {fields}, send it, then continue here.",
	PageElsewhere: "The page's link was used in another browser, so it was refused. Open the page again from here.",
}

// fillText replaces each {name} of s by its value in kv, given as name,
// value pairs.
func fillText(s string, kv ...string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	pairs := make([]string, 0, len(kv))
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, "{"+kv[i]+"}", kv[i+1])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}
