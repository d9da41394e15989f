package main

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
)

// passwordTool is the second tool's name: it sets an account's password.
const passwordTool = "set_password"

// secretPath is where the server serves the page the password is typed on.
const secretPath = "/secret"

// A NewPassword is what set_password asks, in one round. The spec forbids
// asking for a password in a form, so mcpform asks the email in the
// client's own form and links the person, in URL mode or in an ordinary
// result, to the server's page for the password: the client never sees it.
type NewPassword struct {
	Email    string `json:"email" mcpform:"label=Email,type=email" jsonschema:"The account whose password to set."`
	Password string `json:"password" mcpform:"label=New password,type=password,min=12,max=128" jsonschema:"12 to 128 characters."`
}

// newPasswordFlow returns set_password's flow: one step, whose password
// the page at pageURL puts into st's secrets table, sealed with keys
// derived from the codec's, so the table never holds it in the clear.
func newPasswordFlow(codec *mcpform.RequestStateCodec, st *store, pageURL string) (*mcpform.Flow, error) {
	form, err := mcpform.FormFor[NewPassword](&mcpform.FormOptions{Key: "password", Message: "Set your password"})
	if err != nil {
		return nil, err
	}
	return mcpform.NewFlow(codec, []mcpform.Step{{Form: form}}, &mcpform.FlowOptions{
		ContextPrincipal: principalOf,
		Secrets:          &mcpform.SecretOptions{PageURL: pageURL, Store: mcpform.SealSecrets(st.runs, codec)},
		Outcomes:         st.runs, // a duplicate of the finishing round waits for its outcome
		// The email may be asked through the model; the password never
		// is: the person is given the page's link.
		AskModel: *askModelFlag,
	})
}

// passwordToolDef is set_password as clients list it. On an MCP Apps host
// its view asks the email and links to the page; the password is never on
// it.
func passwordToolDef(flow *mcpform.Flow) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(passwordTool, "Set the password of an account you signed up. The tool asks for the email itself, "+
		"and links the person to a page of the server's for the password; call it with no arguments.", flow.InputSchema(nil))
	tool.Title = "Set password"
	if err := mcpgo.AttachViewer(&tool, nil); err != nil {
		panic(err) // impossible with the default options
	}
	return tool
}

// handlePassword is set_password's handler, written once like signup's.
func (s *signup) handlePassword(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	round, err := mcpgo.Next(ctx, s.password, req)
	if err != nil {
		return nil, err
	}
	const what = "Password not set"
	switch round.Status {
	case mcpform.FlowAsk:
		return round.Result, nil
	case mcpform.FlowDone:
		var in NewPassword
		if err := round.Answers.Decode(&in); err != nil {
			return s.failed(what, err), nil
		}
		principal := principalOf(ctx)
		res, err := round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			return s.setPassword(ctx, in, principal)
		})
		if err != nil {
			return s.failed(what, err), nil
		}
		return res, nil
	case mcpform.FlowDeclined:
		return s.once(ctx, round, what, notCompleted("declined", "Password not set: you declined. Nothing was changed.")), nil
	case mcpform.FlowCancelled:
		return s.once(ctx, round, what, notCompleted("cancelled", "Password not set: it was cancelled. Nothing was changed.")), nil
	case mcpform.FlowInvalid:
		if slices.ContainsFunc(round.Problems, func(p *mcpform.FieldError) bool { return errors.Is(p, mcpform.ErrSecretRefused) }) {
			o := notCompleted("refused", "Password not set: the link to the password page was used in another browser, "+
				"or by someone else, so the page refused it. Nothing was changed. "+
				"Call set_password again for a new link, and open it in one browser only.")
			o.IsError = true
			return s.once(ctx, round, what, o), nil
		}
		o := notCompleted("invalid", fmt.Sprintf("Password not set: the details were still invalid after %d attempts. %s Nothing was changed.",
			round.Attempt, mcpform.ProblemMessage(s.password.Fields(round.Step), round.Problems)))
		o.IsError = true
		return s.once(ctx, round, what, o), nil
	}
	return nil, fmt.Errorf("set_password: unexpected flow status %v", round.Status)
}

// setPassword stores a salted hash of in.Password for the account
// in.Email, if principal created it. Once runs it under the run's claim:
// hashing takes a while, on purpose, and a duplicate waits for it.
func (s *signup) setPassword(ctx context.Context, in NewPassword, principal string) (*mcp.CallToolResult, error) {
	salt, hash := hashPassword(in.Password)
	ok, err := s.store.setPassword(ctx, in.Email, principal, salt, hash)
	if err != nil || ok {
		return notCompleted("updated", fmt.Sprintf("Password set for %s.", in.Email)).result(), err
	}
	// Another principal's account is as unknown as a missing one.
	o := notCompleted("unknown", fmt.Sprintf("Password not set: you have no account %s. Nothing was changed.", in.Email))
	o.IsError = true
	return o.result(), nil
}

// passwordIterations is the work factor of PBKDF2-HMAC-SHA256, OWASP's
// figure.
const passwordIterations = 600_000

// hashPassword returns a random salt and the PBKDF2 hash of pw with it,
// both hex. Only these are stored, never pw.
func hashPassword(pw string) (salt, hash string) {
	s := make([]byte, 16)
	rand.Read(s) // never fails; see crypto/rand.Read
	h, err := pbkdf2.Key(sha256.New, pw, s, passwordIterations, sha256.Size)
	if err != nil {
		panic(err) // only for a key length FIPS mode refuses; ours is fixed
	}
	return hex.EncodeToString(s), hex.EncodeToString(h)
}

// setPassword stores the hash as email's password, and reports false when
// principal has no account email.
func (s *store) setPassword(ctx context.Context, email, principal, salt, hash string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE email = $1 AND principal = $2`,
		normalize(email), principal).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO passwords (email, salt, hash, iterations, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO UPDATE SET
		salt = excluded.salt, hash = excluded.hash, iterations = excluded.iterations, updated_at = excluded.updated_at`,
		normalize(email), salt, hash, passwordIterations, time.Now().UTC())
	return err == nil, err
}
