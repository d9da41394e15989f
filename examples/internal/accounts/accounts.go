// Package accounts holds what examples/signup and examples/mcpgo share of
// their two tools, whatever the SDK: the questions (one field list each,
// as Go types), the outcomes they report, and how a password is hashed.
// Each example keeps only its SDK's face: its tools' registration, its
// handlers, and the result types of its SDK.
package accounts

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/mcpform/mcpform"
	"golang.org/x/text/language"
)

// The signup's questions are these two types, the only field list: FormFor
// derives each step from one, and native forms, MCP Apps views, what the
// model is asked and the decoded answers all come from it.

// An Account is what the first step asks.
type Account struct {
	Email    string `json:"email" mcpform:"label=Email,type=email" jsonschema:"One account per address; we send receipts here."`
	FullName string `json:"full_name,omitempty" mcpform:"label=Full name,max=100" jsonschema:"How we greet you."`
	Plan     Plan   `json:"plan" mcpform:"label=Plan,default=free" jsonschema:"Pro is $12 a month. Team is $10 a seat a month, and asks about your team next."`
}

// A Team is what the second step asks, of the team plan only.
type Team struct {
	TeamName string `json:"team_name" mcpform:"label=Team name,min=2,max=60"`
	Seats    int    `json:"seats" mcpform:"label=Seats,min=2,max=50,default=5" jsonschema:"How many people will sign in."`
}

// A Plan is asked as a choice among its Options, titled with their labels.
type Plan string

// Options are the plans, with the labels the person reads.
func (Plan) Options() []mcpform.Option {
	return []mcpform.Option{
		{Value: "free", Label: "Free"},
		{Value: "pro", Label: "Pro, $12 a month"},
		{Value: "team", Label: "Team, $10 a seat a month"},
	}
}

// A NewPassword is what set_password asks, in one round. The spec forbids
// asking for a password in a form, so mcpform asks the email in the
// client's own form and links the person, in URL mode or in an ordinary
// result, to the server's page for the password (type=password): the
// client never sees it.
type NewPassword struct {
	Email    string `json:"email" mcpform:"label=Email,type=email" jsonschema:"The account whose password to set."`
	Password string `json:"password" mcpform:"label=New password,type=password,min=12,max=128" jsonschema:"12 to 128 characters."`
}

// An Outcome is the final result of a signup or of set_password, which
// each example renders in its SDK's result type, through
// FlowRound.Outcome (see Final).
type Outcome struct {
	// Heading and Summary are for the person: a heading, such as
	// "Account created", and a few short items, such as "Plan: Team".
	// An empty Heading is mcpform's, "Not completed" or "Finished".
	Heading string
	Summary []string
	// Text is the sentence for the model.
	Text    string
	IsError bool
	Data    Data
	// Lang is the language Text is written in, the round's; the zero Tag
	// is English. A result carries it as contentLanguage.
	Lang language.Tag
}

// A Record is one signup, as stored and as reported.
type Record struct {
	Email     string `json:"email"`
	FullName  string `json:"full_name,omitempty"`
	Plan      string `json:"plan"`
	TeamName  string `json:"team_name,omitempty"`
	Seats     int    `json:"seats,omitempty"`
	Principal string `json:"-"`
}

// Data is the structured content of a final result, for programs (and
// tests) that read it rather than the text.
type Data struct {
	// Status is created, exists, declined, cancelled, invalid or error; for
	// set_password, updated, unknown, declined, cancelled, invalid,
	// refused or error.
	Status  string  `json:"status"`
	Account *Record `json:"account,omitempty"`
}

// NotCompleted is the outcome of a call that created or changed nothing.
func NotCompleted(status, text string) Outcome {
	return Outcome{Text: text, Data: Data{Status: status}}
}

// Final is o as mcpform's Outcome, which FlowRound.Outcome makes the
// tool's final result of, on either SDK's face: o's heading and summary
// for the person, its text for the model, and its data. A run that
// neither created an account nor set a password did not complete.
func (o Outcome) Final() *mcpform.Outcome {
	return &mcpform.Outcome{Heading: o.Heading, Summary: o.Summary, Text: o.Text, Data: o.Data,
		NotCompleted: o.Data.Status != "created" && o.Data.Status != "updated"}
}

// Created is the outcome of the account a, created, in lang: headed
// "Account created", with its email, name, plan and team at a glance.
func Created(lang language.Tag, a *Record) Outcome {
	plan := planFree
	switch a.Plan {
	case "team":
		plan = planTeam
	case "pro":
		plan = planPro
	}
	summary := []string{item(lang, "Email", a.Email)}
	if a.FullName != "" {
		summary = append(summary, item(lang, "Full name", a.FullName))
	}
	summary = append(summary, item(lang, "Plan", say(lang, plan)))
	if a.Plan == "team" {
		summary = append(summary, item(lang, "Team name", a.TeamName), item(lang, "Seats", strconv.Itoa(a.Seats)))
	}
	return Outcome{Heading: say(lang, accountCreated), Summary: summary, Text: CreatedText(lang, *a),
		Data: Data{Status: "created", Account: a}, Lang: lang}
}

// item is a summary's item in lang: the field's label, in lang, and its
// value.
func item(lang language.Tag, label, value string) string {
	return say(lang, summaryItem, say(lang, label), value)
}

// CreatedText is what a created account's outcome says, in lang.
func CreatedText(lang language.Tag, a Record) string {
	who := a.Email
	if a.FullName != "" {
		who = a.FullName + " <" + a.Email + ">"
	}
	switch a.Plan {
	case "team":
		return say(lang, createdTeam, who, a.TeamName, a.Seats)
	case "pro":
		return say(lang, createdPro, who)
	}
	return say(lang, createdFree, who)
}

// PasswordIterations is the work factor of PBKDF2-HMAC-SHA256, OWASP's
// figure: one SHA-256 per guess would let a stolen table be tried at
// billions of guesses a second; this costs each guess 600,000.
const PasswordIterations = 600_000

// HashPassword returns a random salt and the PBKDF2 hash of pw with it,
// both hex. Only these are stored, never pw.
func HashPassword(pw string) (salt, hash string) {
	s := make([]byte, 16)
	rand.Read(s) // never fails; see crypto/rand.Read
	h, err := pbkdf2.Key(sha256.New, pw, s, PasswordIterations, sha256.Size)
	if err != nil {
		panic(err) // only for a key length FIPS mode refuses; ours is fixed
	}
	return hex.EncodeToString(s), hex.EncodeToString(h)
}

// Normalize is email as accounts are keyed: lower-cased, trimmed.
func Normalize(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
