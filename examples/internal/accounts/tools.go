package accounts

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpform/mcpform"
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
	account, err := mcpform.FormFor[Account](&mcpform.FormOptions{Key: "account", Message: "Create your account"})
	if err != nil {
		return nil, err
	}
	team, err := mcpform.FormFor[Team](&mcpform.FormOptions{Key: "team", Message: "Tell us about your team"})
	if err != nil {
		return nil, err
	}
	opts := mcpform.FlowOptions{Principal: who.Principal, ContextPrincipal: who.ContextPrincipal,
		// A host with neither forms nor MCP Apps is asked through its
		// model: nothing here is a consent the person must give.
		AskModel: who.AskModel,
		Outcomes: st.Runs, // the first outcome of each run wins, on every replica
	}
	signupOpts := opts
	// The submit that creates the account says so: on the check round, or
	// on the team step, which is sure to be the last. (A new example
	// string, in English: h-lang's catalog is to translate it.)
	signupOpts.Commit = "Create account"
	signupOpts.CheckAnswers = who.CheckAnswers
	t := &Tools{}
	t.Signup, err = mcpform.NewFlow(codec, []mcpform.Step{
		{Form: account},
		{Form: team, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &signupOpts)
	if err != nil || pageURL == "" {
		return t, err
	}
	password, err := mcpform.FormFor[NewPassword](&mcpform.FormOptions{Key: "password", Message: "Set your password"})
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
}

// SignupEnded is the outcome of a signup round that ended without
// finishing: declined, cancelled, or still invalid. ok is false for any
// other status.
func (t *Tools) SignupEnded(r Round) (o Outcome, ok bool) {
	switch r.Status {
	case mcpform.FlowDeclined:
		return NotCompleted("declined", fmt.Sprintf(
			"Signup not completed: you declined to give your %s details. Nothing was created.", r.Step)), true
	case mcpform.FlowCancelled:
		return NotCompleted("cancelled", "Signup not completed: the form was cancelled before it was sent. Nothing was created."), true
	case mcpform.FlowInvalid:
		o = NotCompleted("invalid", fmt.Sprintf(
			"Signup not completed: the %s details were still invalid after %d attempts. %s Nothing was created.",
			r.Step, r.Attempt, mcpform.ProblemMessage(t.Signup.Fields(r.Step), r.Problems)))
		o.IsError = true
		return o, true
	}
	return Outcome{}, false
}

// PasswordEnded is SignupEnded for set_password.
func (t *Tools) PasswordEnded(r Round) (o Outcome, ok bool) {
	switch r.Status {
	case mcpform.FlowDeclined:
		return NotCompleted("declined", "Password not set: you declined. Nothing was changed."), true
	case mcpform.FlowCancelled:
		return NotCompleted("cancelled", "Password not set: it was cancelled. Nothing was changed."), true
	case mcpform.FlowInvalid:
		if slices.ContainsFunc(r.Problems, func(p *mcpform.FieldError) bool { return errors.Is(p, mcpform.ErrSecretRefused) }) {
			o = NotCompleted("refused", "Password not set: the link to the password page was used in another browser, "+
				"or by someone else, so the page refused it. Nothing was changed. "+
				"Call set_password again for a new link, and open it in one browser only.")
		} else {
			o = NotCompleted("invalid", fmt.Sprintf("Password not set: the details were still invalid after %d attempts. %s Nothing was changed.",
				r.Attempt, mcpform.ProblemMessage(t.Password.Fields(r.Step), r.Problems)))
		}
		o.IsError = true
		return o, true
	}
	return Outcome{}, false
}

// Create creates the account of run, for principal, or reports that its
// email is taken.
func (s *Store) Create(ctx context.Context, run string, a Account, t Team, principal string) (Outcome, error) {
	acct := Record{Email: a.Email, FullName: a.FullName, Plan: string(a.Plan), Principal: principal}
	if a.Plan == "team" {
		acct.TeamName, acct.Seats = t.TeamName, t.Seats
	}
	ok, err := s.CreateAccount(ctx, run, &acct)
	if err != nil || ok {
		return Outcome{Text: CreatedText(acct), Data: Data{Status: "created", Account: &acct}}, err
	}
	o := NotCompleted("exists", fmt.Sprintf("Signup not completed: %s is already registered. "+
		"Sign in instead, or sign up with another email. Nothing was created.", a.Email))
	o.IsError = true
	return o, nil
}

// SetNewPassword stores a salted hash of in.Password for the account
// in.Email, if principal created it. Run it under the run's claim
// (FlowRound.Once): hashing takes a while, on purpose, and a duplicate of
// the round waits for it rather than hashing again.
func (s *Store) SetNewPassword(ctx context.Context, in NewPassword, principal string) (Outcome, error) {
	salt, hash := HashPassword(in.Password)
	ok, err := s.SetPassword(ctx, in.Email, principal, salt, hash)
	if err != nil || ok {
		return NotCompleted("updated", fmt.Sprintf("Password set for %s.", in.Email)), err
	}
	// Another principal's account is as unknown as a missing one.
	o := NotCompleted("unknown", fmt.Sprintf("Password not set: you have no account %s. Nothing was changed.", in.Email))
	o.IsError = true
	return o, nil
}
