package accounts

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// The examples' own words are written in English, where they are used: the
// questions' struct tags, the steps' messages and the outcomes' sentences
// below. Their translations are one file per language under words/
// (es.json, fr.json, de.json, ja.json), each a JSON object from the
// English text, as written, to its translation, so that a translator
// edits one file, and a new English text is added to each file under the
// same key: TestWordsTranslated names any text a file lacks, and any key
// no longer used. mcpform's own words (buttons, "Step 1 of 2", problems)
// come from its catalogs; these are the rest.
//
// The files address the person as mcpform's catalogs do: vous in French,
// with a no-break space (\u00a0) before a colon or semicolon and inside
// « »; Sie in German, with „“; tú in Spanish, with «»; the polite
// です・ます form in Japanese, with full-width punctuation and 「」, and no
// space between sentences. A sentence with values is a fmt format; a
// translation may reorder them with explicit indexes, as %[2]s.

//go:embed words/*.json
var wordFiles embed.FS

// translations are the files' tables, by base language, read once.
var translations = func() map[string]map[string]string {
	files, err := fs.Glob(wordFiles, "words/*.json")
	if err != nil {
		panic(err)
	}
	all := make(map[string]map[string]string, len(files))
	for _, name := range files {
		b, err := wordFiles.ReadFile(name)
		if err != nil {
			panic(err)
		}
		var table map[string]string
		if err := json.Unmarshal(b, &table); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err)) // TestWordsTranslated reads each file
		}
		all[strings.TrimSuffix(path.Base(name), ".json")] = table
	}
	return all
}()

// Translate returns text in lang, or "" when the tables have no
// translation of it, which keeps text as it is: the flows'
// mcpform.FlowOptions.Translate.
func Translate(lang language.Tag, text string) string {
	base, _ := lang.Base()
	return translations[base.String()][text]
}

// English returns the English texts the tables translate, sorted: the
// examples' English catalog, for tests that look for English left in a
// translation. Translate gives a few of them back as they are, in some
// language ("Pro").
func English() []string { return slices.Sorted(maps.Keys(translations["fr"])) }

// say returns format in lang, filled with args as fmt.Sprintf fills it;
// English for a language the tables do not speak.
func say(lang language.Tag, format string, args ...any) string {
	if t := Translate(lang, format); t != "" {
		format = t
	}
	return fmt.Sprintf(format, args...)
}

// The steps' messages, which head their views and pages.
const (
	accountMessage  = "Create your account"
	createAccount   = "Create account" // the submit that creates it
	teamMessage     = "Tell us about your team"
	passwordMessage = "Set your password"
)

// The outcomes' headings and summaries, which the person reads; the
// summary's labels are the fields'. A summary item is a fmt format.
const (
	accountCreated = "Account created"
	passwordWasSet = "Password set"
	summaryItem    = "%s: %s" // a field's label, then its value
	planFree       = "Free"
	planPro        = "Pro"
	planTeam       = "Team"
	nothingCreated = "Nothing was created."
	nothingChanged = "Nothing was changed."
	alreadyTaken   = "%s is already registered."
)

// The outcomes' sentences, by what they report. Each step's sentence is
// written whole, so that a translation need not join its parts.
const (
	createdTeam = "Signup complete: created %s on the Team plan for %q, %d seats."
	createdPro  = "Signup complete: created %s on the Pro plan."
	createdFree = "Signup complete: created %s on the Free plan."

	declinedAccount  = "Signup not completed: you declined to give your account details. Nothing was created."
	declinedTeam     = "Signup not completed: you declined to give your team details. Nothing was created."
	cancelledSignup  = "Signup not completed: the form was cancelled before it was sent. Nothing was created."
	invalidAccount   = "Signup not completed: the account details were still invalid after %d attempts. %s Nothing was created."
	invalidTeam      = "Signup not completed: the team details were still invalid after %d attempts. %s Nothing was created."
	alreadyExists    = "Signup not completed: %s is already registered. Sign in instead, or sign up with another email. Nothing was created."
	fieldsToFix      = "Fields to fix: %s."
	listSeparator    = ", "
	passwordDeclined = "Password not set: you declined. Nothing was changed."
	passwordCancel   = "Password not set: it was cancelled. Nothing was changed."
	passwordRefused  = "Password not set: the link to the password page was used in another browser, " +
		"or by someone else, so the page refused it. Nothing was changed. " +
		"Call set_password again for a new link, and open it in one browser only."
	passwordInvalid = "Password not set: the details were still invalid after %d attempts. %s Nothing was changed."
	passwordSet     = "Password set for %s."
	passwordUnknown = "Password not set: you have no account %s. Nothing was changed."
)
