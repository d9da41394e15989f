package accounts

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpform/mcpform"
	"golang.org/x/text/language"
)

// Tools are the two tools' flows and set_password's page, the same on
// every SDK: each example reads its SDK's call into a round of one of
// them, and renders the Outcome of what the round ends in.
type Tools struct {
	Signup   *mcpform.Flow
	Password *mcpform.Flow // nil without a page
	Page     http.Handler  // set_password's secret page; nil without
}

// NewTools returns signup's flow and, for a pageURL, set_password's, whose
// secret page the server serves at pageURL. Their states are sealed with
// codec, their outcomes and secrets kept in st. who says how the flows
// read the principal (Principal on go-sdk, ContextPrincipal on mcp-go),
// whether a host may be asked through its model (AskModel), and whether
// signup ends with a round that checks the answers (CheckAnswers); its
// other fields are ignored.
func NewTools(codec *mcpform.RequestStateCodec, st *Store, pageURL string, who mcpform.FlowOptions) (*Tools, error) {
	account, err := mcpform.FormFor[Account](&mcpform.FormOptions{Key: "account", Message: accountMessage})
	if err != nil {
		return nil, err
	}
	team, err := mcpform.FormFor[Team](&mcpform.FormOptions{Key: "team", Message: teamMessage})
	if err != nil {
		return nil, err
	}
	opts := mcpform.FlowOptions{Principal: who.Principal, ContextPrincipal: who.ContextPrincipal,
		// A host with neither forms nor MCP Apps is asked through its
		// model: nothing here is a consent the person must give.
		AskModel: who.AskModel,
		// The questions' words in the person's language (words.go).
		Translate: Translate,
		Outcomes:  st.Runs, // the first outcome of each run wins, on every replica
	}
	signupOpts := opts
	// The submit that creates the account says so: on the check round, or
	// on the team step, which is sure to be the last.
	signupOpts.Commit = createAccount
	signupOpts.CheckAnswers = who.CheckAnswers
	t := &Tools{}
	t.Signup, err = mcpform.NewFlow(codec, []mcpform.Step{
		{Form: account},
		{Form: team, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &signupOpts)
	if err != nil || pageURL == "" {
		return t, err
	}
	password, err := mcpform.FormFor[NewPassword](&mcpform.FormOptions{Key: "password", Message: passwordMessage})
	if err != nil {
		return nil, err
	}
	// The password's page puts it into st's secrets table, sealed with
	// keys derived from the codec's, so the table never holds it in the
	// clear. The email may be asked through the model; the password
	// never is: without URL mode, the person is given the page's link.
	opts.Secrets = &mcpform.SecretOptions{PageURL: pageURL, Store: mcpform.SealSecrets(st.Runs, codec)}
	if t.Password, err = mcpform.NewFlow(codec, []mcpform.Step{{Form: password}}, &opts); err != nil {
		return nil, err
	}
	// The examples have no login that an Authorize could check the person
	// against, so the page says that whoever holds a link may use it:
	// whoever opens it and posts first sets the password, and only an
	// Authorize would close this. So they offer set_password only where
	// that is true enough: over stdio, in a demo, and over HTTP on
	// loopback, where the page's port answers this machine alone, as the
	// person at the host is on it. Once a browser has posted on a link,
	// the page refuses it in any other.
	t.Page, err = t.Password.SecretPage(&mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	return t, err
}

// A Round is what the tools read of a flow's round that did not ask,
// whichever SDK's round it is.
type Round struct {
	Status   mcpform.FlowStatus
	Step     string
	Attempt  int
	Problems []*mcpform.FieldError
	Lang     language.Tag // the round's language, which its outcome speaks
}

// SignupEnded is the outcome of a signup round that ended without
// finishing: declined, cancelled, or still invalid, in the round's
// language. ok is false for any other status.
func (t *Tools) SignupEnded(r Round) (o Outcome, ok bool) {
	switch r.Status {
	case mcpform.FlowDeclined:
		o = NotCompleted("declined", say(r.Lang, pick(r.Step, declinedAccount, declinedTeam)))
	case mcpform.FlowCancelled:
		o = NotCompleted("cancelled", say(r.Lang, cancelledSignup))
	case mcpform.FlowInvalid:
		o = NotCompleted("invalid", say(r.Lang, pick(r.Step, invalidAccount, invalidTeam),
			r.Attempt, problems(r.Lang, t.Signup.Fields(r.Step), r.Problems)))
		o.IsError = true
	default:
		return Outcome{}, false
	}
	o.Summary, o.Lang = []string{say(r.Lang, nothingCreated)}, r.Lang
	return o, true
}

// pick is ofAccount for the account step, ofTeam for the team step.
func pick(step, ofAccount, ofTeam string) string {
	if step == "team" {
		return ofTeam
	}
	return ofAccount
}

// problems says what was wrong with the fields' answers, in lang:
// mcpform's ProblemMessage, in English; elsewhere, the fields to fix, by
// their titles in lang, as ProblemMessage speaks English alone.
func problems(lang language.Tag, fields []mcpform.AutoFormField, problems []*mcpform.FieldError) string {
	if base, _ := lang.Base(); base.String() == "en" || Translate(lang, fieldsToFix) == "" {
		return mcpform.ProblemMessage(fields, problems)
	}
	var titles []string
	for _, p := range problems {
		for _, f := range fields {
			if f.Name == p.Field {
				titles = append(titles, say(lang, cmp.Or(f.Label, f.Name)))
			}
		}
	}
	return say(lang, fieldsToFix, strings.Join(titles, say(lang, listSeparator)))
}

// PasswordEnded is SignupEnded for set_password.
func (t *Tools) PasswordEnded(r Round) (o Outcome, ok bool) {
	switch r.Status {
	case mcpform.FlowDeclined:
		o = NotCompleted("declined", say(r.Lang, passwordDeclined))
	case mcpform.FlowCancelled:
		o = NotCompleted("cancelled", say(r.Lang, passwordCancel))
	case mcpform.FlowInvalid:
		if slices.ContainsFunc(r.Problems, func(p *mcpform.FieldError) bool { return errors.Is(p, mcpform.ErrSecretRefused) }) {
			o = NotCompleted("refused", say(r.Lang, passwordRefused))
		} else {
			o = NotCompleted("invalid", say(r.Lang, passwordInvalid,
				r.Attempt, problems(r.Lang, t.Password.Fields(r.Step), r.Problems)))
		}
		o.IsError = true
	default:
		return Outcome{}, false
	}
	o.Summary, o.Lang = []string{say(r.Lang, nothingChanged)}, r.Lang
	return o, true
}

// Create creates the account of run, for principal, or reports that its
// email is taken, in lang.
func (s *Store) Create(ctx context.Context, run string, a Account, t Team, principal string, lang language.Tag) (Outcome, error) {
	acct := Record{Email: a.Email, FullName: a.FullName, Plan: string(a.Plan), Principal: principal}
	if a.Plan == "team" {
		acct.TeamName, acct.Seats = t.TeamName, t.Seats
	}
	ok, err := s.CreateAccount(ctx, run, &acct)
	if err != nil || ok {
		return Created(lang, &acct), err
	}
	o := NotCompleted("exists", say(lang, alreadyExists, a.Email))
	o.Summary = []string{say(lang, alreadyTaken, a.Email), say(lang, nothingCreated)}
	o.IsError, o.Lang = true, lang
	return o, nil
}

// SetNewPassword stores a salted hash of in.Password for the account
// in.Email, if principal created it, and says so in lang. Run it under
// the run's claim (FlowRound.Once): hashing takes a while, on purpose,
// and a duplicate of the round waits for it rather than hashing again.
func (s *Store) SetNewPassword(ctx context.Context, in NewPassword, principal string, lang language.Tag) (Outcome, error) {
	salt, hash := HashPassword(in.Password)
	ok, err := s.SetPassword(ctx, in.Email, principal, salt, hash)
	if err != nil || ok {
		return Outcome{Heading: say(lang, passwordWasSet), Summary: []string{item(lang, "Email", in.Email)},
			Text: say(lang, passwordSet, in.Email), Data: Data{Status: "updated"}, Lang: lang}, err
	}
	// Another principal's account is as unknown as a missing one.
	o := NotCompleted("unknown", say(lang, passwordUnknown, in.Email))
	o.Summary = []string{say(lang, nothingChanged)}
	o.IsError, o.Lang = true, lang
	return o, nil
}
