package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The link path gives the person a link to the flow's secret page (see
// secretpage.go) for a step's secret fields: in a URL-mode request where
// the client declared URL mode, and otherwise in a view or an ordinary
// result. What the person types there goes to the [SecretStore], never
// through the client, and the round that finishes the flow takes it from
// there, once; a flow that ends any other way closes its links.

// link returns what the link to s's secret page carries.
func (r *round) link(s *flowStep) *secretLink {
	return &secretLink{Principal: r.principal, Tool: r.tool, Run: r.st.ID, Step: s.c.key}
}

// pageRequest returns the URL-mode request that links the person to s's
// secret page. The link carries a sealed token, never a secret, and the
// same one from round to round (see linkKeys.expiry).
func (r *round) pageRequest(s *flowStep, problems []*FieldError) (*mcp.ElicitParams, error) {
	token := r.flow.links.seal(r.link(s))
	titles := make([]string, len(s.c.secrets))
	for i := range s.c.secrets {
		titles[i] = s.c.secrets[i].title()
	}
	// Titles are labels, written to stand alone: list them rather than
	// build a sentence around them ("Enter your New password").
	msg := s.c.lang.format(msgPageAsks, "fields", strings.Join(titles, s.c.lang.text(msgListSep)))
	var secretProblems []*FieldError
	for _, p := range problems {
		if errors.Is(p.Err, ErrSecretWaiting) {
			secretProblems = append(secretProblems, p)
		}
	}
	msg, notes := s.c.withProblemsNoted(msg, secretProblems)
	sep := "?"
	if strings.Contains(r.flow.secrets.PageURL, "?") {
		sep = "&"
	}
	return own(&mcp.ElicitParams{Mode: "url", Message: msg, URL: r.flow.secrets.PageURL + sep + "t=" + url.QueryEscape(token),
		Meta: notes}), nil
}

// linkResult returns the ordinary result that gives the person the link
// to s's secret page, for a client that cannot open it in URL mode.
func (r *round) linkResult(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	page, err := r.pageRequest(s, problems)
	if err != nil {
		return nil, err
	}
	return askModel(s.c.lang, r.tool, "", &askContract{Message: page.Message, URL: page.URL, Arguments: r.sendBack(token),
		Problems: notesOf(page.Meta)}, page), nil
}

// storeTimeout bounds each call of a [SecretStore], within the round's
// own context, so that a store that hangs cannot hold a round forever.
const storeTimeout = 10 * time.Second

// readLink reads what s's page took, from the store: s's secrets and
// their link, or nil while the page has not sent them; and why s's link
// was closed, when it takes nothing more: the page refused it, or an
// earlier round of the run ended it (a replay after a decline) or took
// its secret. A link taken by a finish whose outcome was not stored
// still gives its secret, to the retry that Outcomes lets run again.
func (r *round) readLink(ctx context.Context, s *flowStep) (values Answers, link *secretLink, closed string, err error) {
	store, link := r.flow.secrets.Store, r.link(s)
	if closed, err = link.closed(ctx, store); err != nil || (closed != "" && !r.retakes(closed)) {
		return nil, nil, closed, err
	}
	raw, ok, err := store.GetSecret(ctx, link.key())
	if err != nil || !ok {
		return nil, nil, closed, err
	}
	var sent map[string]string
	if json.Unmarshal([]byte(raw), &sent) != nil {
		return nil, nil, "", nil // not the page's: as good as not sent
	}
	values = make(Answers, len(s.c.secrets))
	for _, f := range s.c.secrets {
		v, ok := sent[f.Name]
		switch {
		case !ok && f.Required:
			return nil, nil, "", nil
		case !ok:
		case v != "" && (!utf8.ValidString(v) || f.checkValue(v) != ""):
			// Sent on a page with other rules: another flow's, sharing
			// the codec and a step key, or a replica's of another deploy.
			// The flow takes no value its step refuses.
			return nil, nil, closedRefused, nil
		default:
			values[f.Name] = v
		}
	}
	return values, link, "", nil
}

// retakes reports whether a link closed for why may still give its
// secret: one taken by a finish, when the flow has Outcomes, whose claim
// lets one finish of the run at a time take it until its outcome is
// stored.
func (r *round) retakes(why string) bool {
	return why == closedDone && r.flow.outcomes != nil
}

// take closes links as done for a finish that takes their secrets, before
// it uses them: from then on their page says the request is finished, and
// a stop or another browser's post changes nothing. It returns the index
// of the first link it could not take and the reason that stands for it:
// another finish took it (closedDone), unless retake lets a link closed
// as done be taken again, or the page or the flow closed it first. It
// returns -1 when it took them all.
func (f *Flow) take(ctx context.Context, links []*secretLink, retake bool) (int, string, error) {
	store, expires := f.secrets.Store, f.linkStoreExpiry()
	for i, link := range links {
		why, closed, err := link.close(ctx, store, closedDone, expires)
		switch {
		case err != nil:
			return i, "", err
		case !closed && (why != closedDone || !retake):
			return i, why, nil
		}
	}
	return -1, "", nil
}

// spend deletes the secrets sent on links, which a finish took: their
// page tells any browser that opens them that they are done, rather than
// showing the form again.
func (f *Flow) spend(ctx context.Context, links []*secretLink) error {
	if len(links) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	for _, link := range links {
		if err := f.secrets.Store.DeleteSecret(ctx, link.key()); err != nil {
			return err
		}
	}
	return nil
}

// secretProblems names each of s's secrets with err: still waiting for
// its page, or refused by it.
func secretProblems(s *flowStep, err error) []*FieldError {
	problems := make([]*FieldError, len(s.c.secrets))
	for i, f := range s.c.secrets {
		problems[i] = &FieldError{Field: f.Name, Err: err}
	}
	return problems
}

// linkClosed ends the flow when s's link was closed for why, and no
// round of the run stored an outcome to replay: nothing from that link is
// taken, and what was sent on any of the run's links is dropped (see
// ended). A link the page refused says so; one whose secret a round
// already took, for a flow without [Outcomes], says it was used.
func (r *round) linkClosed(s *flowStep, valid Answers, why string) (*FlowRound, error) {
	err := ErrSecretRefused
	if why == closedDone {
		err = ErrSecretUsed
	}
	return r.ended(&FlowRound{Status: FlowInvalid, Answers: valid, Step: s.c.key,
		Problems: secretProblems(s, err), Attempt: r.st.Attempt, ID: r.st.ID}, nil)
}

// ended returns end, the round that ends the flow without FlowDone, once
// the run's secrets are gone: whatever the ending (declined, cancelled,
// invalid, refused), each step with secrets whose page the run may have
// linked to, the proven ones and end's own, is closed, so that its page
// takes nothing more and says the request ended, and the secret sent on
// it, if any, is deleted; so is one sent for a step no longer proven,
// whose earlier step was asked again. A round that does not end passes
// through.
func (r *round) ended(end *FlowRound, err error) (*FlowRound, error) {
	if err != nil || end == nil || end.Status == FlowAsk || end.Status == FlowDone || r.flow.secrets == nil {
		return end, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, storeTimeout)
	defer cancel()
	for i := range r.flow.steps {
		s := &r.flow.steps[i]
		if len(s.c.secrets) == 0 {
			continue
		}
		_, proven := r.st.Pins.get(s.c.key)
		if err := r.endLink(ctx, r.link(s), !proven && s.c.key != end.Step); err != nil {
			return nil, err
		}
	}
	return end, nil
}

// endLinks ends the links of the flow's steps with secrets that a finish
// does not take, because they no longer apply: any secret sent on one
// before an earlier answer changed is deleted.
func (r *round) endLinks(ctx context.Context, taken []*flowStep) error {
	for i := range r.flow.steps {
		s := &r.flow.steps[i]
		if len(s.c.secrets) > 0 && !slices.Contains(taken, s) {
			if err := r.endLink(ctx, r.link(s), true); err != nil {
				return err
			}
		}
	}
	return nil
}

// endLink closes link as ended, and uses up and deletes its secret. With
// ifSent, a link that holds no secret is left as it is, so that a run
// writes nothing for a page it most likely never linked to.
func (r *round) endLink(ctx context.Context, link *secretLink, ifSent bool) error {
	store, expires := r.flow.secrets.Store, r.flow.linkStoreExpiry()
	if ifSent {
		if _, sent, err := store.GetSecret(ctx, link.key()); err != nil || !sent {
			return err
		}
	}
	if _, _, err := link.close(ctx, store, closedEnded, expires); err != nil {
		return err
	}
	// Use the secret's key up before deleting it, so that a post the page
	// let through just before the close stores nothing.
	if err := store.PutSecret(ctx, link.key(), "", expires); err != nil && !errors.Is(err, ErrSecretUsed) {
		return err
	}
	return store.DeleteSecret(ctx, link.key())
}
