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

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/legacy"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The native path asks in input requests of an input_required result
// (MCP 2026-07-28), or, for an older client, in the elicitation/create
// rounds its SDK's bridge makes of them (the legacy path), and reads the
// answers from the input responses the client sends back with the state.

// askNative returns the input_required result that asks s, naming
// problems, pre-filling filled and carrying token: s's form when form is
// set, and, for a client that declared URL mode, the URL-mode request of
// s's secret page. On a face other than go-sdk's, the face builds the
// result from the requests faceAsk keeps.
func (r *round) askNative(s *flowStep, form bool, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	page := len(s.c.secrets) > 0 && r.can.url
	if r.forFace() {
		return nil, r.faceAsk(s, filled, problems, token, form, page)
	}
	var res *mcp.CallToolResult
	if form {
		res = s.c.reask(filled, problems, token)
	} else {
		res = inputRequired(make(mcp.InputRequestMap, 1), token)
	}
	if page {
		p, err := r.pageRequest(s, problems)
		if err != nil {
			return nil, err
		}
		res.InputRequests[s.urlKey()] = p
	}
	return res, nil
}

// readNative judges the answer to s in the call's input responses: its
// form's, and, where its page was asked in URL mode, the person's consent
// to that page.
func (r *round) readNative(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	status, accepted, problems := ReplyAccepted, Answers{}, []*FieldError(nil)
	if len(s.c.fields) > 0 {
		status, accepted, problems = s.c.judge(r.call)
	}
	if len(s.c.secrets) > 0 && r.can.url {
		status, problems = s.consent(r.call, status, problems)
	}
	return status, accepted, problems
}

// pageAnswer reads the person's answer to s's URL-mode request while its
// page is awaited: ReplyDeclined or ReplyCancelled when they declined or
// dismissed it, and ReplyNone otherwise.
func (r *round) pageAnswer(s *flowStep) ReplyStatus {
	switch u, ok := r.call.Answer(s.urlKey()); {
	case ok && u.Action == "decline":
		return ReplyDeclined
	case ok && u.Action == "cancel":
		return ReplyCancelled
	}
	return ReplyNone
}

// urlKey is the key of s's URL-mode request, beside its form under s's key.
func (s *flowStep) urlKey() string { return s.c.key + ".secret" }

// consent folds the answer to s's URL-mode request into the form part's
// status: a decline or cancel of either ends the step, and no answer to
// either asks it again as it was.
func (s *flowStep) consent(responses seam.Answers, status ReplyStatus, problems []*FieldError) (ReplyStatus, []*FieldError) {
	if status == ReplyDeclined || status == ReplyCancelled {
		return status, problems
	}
	u, ok := responses.Answer(s.urlKey())
	switch {
	case !ok:
		return ReplyNone, nil
	case u.Action == "decline":
		return ReplyDeclined, nil
	case u.Action == "cancel":
		return ReplyCancelled, nil
	case u.Action != "accept":
		return ReplyInvalid, append(problems, &FieldError{Err: errUnknownAction})
	}
	return status, problems
}

// The paths that answer through the arguments without a view, the model
// and the link, put a contract before the model in an ordinary result:
// what the next call of the same tool must carry, in structuredContent
// and in words.

// askContract is the structuredContent of a result that asks through the
// model or gives the person a secret page's link: what the next call of
// the same tool must carry. The text content says the same in words.
type askContract struct {
	// Message is what to tell the person, in their language: the
	// questions' message, or the page's for a link alone.
	Message string `json:"message,omitempty"`
	// Problems are the problems Message names, as a native re-ask notes
	// them (see problemNote), so that no one reads them from the words.
	Problems []problemNote `json:"problems,omitempty"`
	// RequestedSchema is the restricted schema a native request would
	// carry; absent for a link alone.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the secret page's link, for a secret step.
	URL string `json:"url,omitempty"`
	// Arguments go back unchanged, merged with the answers.
	Arguments json.RawMessage `json:"arguments"`
	// Decline is merged into Arguments, in place of the answers, when the
	// person declines: declineArguments, always. There is no "accept".
	Decline json.RawMessage `json:"decline"`
}

// declineArguments is what a model adds to the arguments to report that
// the person declined.
var declineArguments = json.RawMessage(`{"` + prefab.ActionArgument + `":"` + prefab.DeclineAction + `"}`)

// askModel returns the result of contract c, in words for the model too:
// what to ask the person, where to send them, and what to call next, in
// l, the person's language, which the model then speaks to them.
func askModel(l catalog.Lang, tool, message string, c *askContract, page *mcp.ElicitParams) *mcp.CallToolResult {
	var b strings.Builder
	b.Grow(len(message) + len(c.RequestedSchema) + len(c.Arguments) + 512)
	if c.RequestedSchema != nil {
		b.WriteString(message)
		b.WriteString(l.Text(catalog.ModelAsk))
		b.Write(c.RequestedSchema)
		b.WriteString("\n\n")
	}
	if page != nil {
		b.WriteString(l.Text(catalog.ModelLink))
		b.WriteString(page.Message)
		b.WriteString("\n")
		b.WriteString(page.URL)
		b.WriteString("\n\n")
	}
	b.WriteString(l.Format(catalog.ModelCall, "tool", tool))
	if c.RequestedSchema != nil {
		b.WriteString(l.Text(catalog.ModelPlusAnswers))
	}
	b.WriteString(":\n")
	b.Write(c.Arguments)
	b.WriteString(l.Format(catalog.ModelDecline, "decline", string(declineArguments[1:len(declineArguments)-1])))
	c.Decline = declineArguments
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: c}
}

// The model path, opted in with AskModel, asks a client that can be asked
// neither in a form nor in a view through the model: an ordinary result
// tells the model what to ask the person and how to call the tool again
// (see askContract), and the answers come back in the arguments, read only
// with a state minted for this path.

// modelResult returns the ordinary result that asks the model to collect
// s's answers from the person and call the tool again with them.
func (r *round) modelResult(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	msg, schema := s.c.message, s.c.schema
	if len(filled) == 0 && len(problems) == 0 && len(s.c.secrets) == 0 {
		return s.c.modelAsk(r.tool, r.sendBack(token)), nil
	}
	var notes []problemNote
	if len(filled) > 0 || len(problems) > 0 {
		p := s.c.reask(filled, problems, "").InputRequests[s.c.key].(*mcp.ElicitParams)
		b, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, err
		}
		msg, schema, notes = p.Message, b, notesOf(p.Meta)
	}
	c := &askContract{Message: msg, Problems: notes, RequestedSchema: schema, Arguments: r.sendBack(token)}
	var page *mcp.ElicitParams
	if len(s.c.secrets) > 0 {
		var err error
		if page, err = r.pageRequest(s, problems); err != nil {
			return nil, err
		}
		c.URL = page.URL
	}
	return askModel(s.c.lang, r.tool, msg, c, page), nil
}

// readModel judges the answer to s that the model sent in the arguments,
// exactly as a native answer is judged: the model, not a browser, typed it.
func (r *round) readModel(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	content := r.args.answersFor(s.c)
	if content == nil {
		return ReplyNone, nil, nil
	}
	return s.c.judgeContent(content, true) // read from this call's arguments
}

// A modelText is the text of c's plain model request to one tool, cut
// where the arguments go, built once.
type modelText struct{ tool, head, tail string }

// modelAsk returns c's plain request through the model to tool, with
// nothing to name or pre-fill: its text is built once per tool.
func (c *compiled) modelAsk(tool string, args json.RawMessage) *mcp.CallToolResult {
	t := c.plainText.Load()
	if t == nil || t.tool != tool {
		const slot = "\x00"
		full := askModel(c.lang, tool, c.message, &askContract{RequestedSchema: c.schema, Arguments: json.RawMessage(slot)}, nil)
		text := full.Content[0].(*mcp.TextContent).Text
		i := strings.Index(text, slot)
		t = &modelText{tool: tool, head: text[:i], tail: text[i+len(slot):]}
		c.plainText.Store(t)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t.head + string(args) + t.tail}},
		StructuredContent: &askContract{Message: c.message, RequestedSchema: c.schema, Arguments: args, Decline: declineArguments}}
}

// mustJSON is the JSON of a schema the package built, which marshals.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpform: a built schema does not marshal: " + err.Error())
	}
	return b
}

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
// same one from round to round (see secretpage.Keys.Seal).
func (r *round) pageRequest(s *flowStep, problems []*FieldError) (*mcp.ElicitParams, error) {
	token := r.flow.links.seal(r.link(s))
	titles := make([]string, len(s.c.secrets))
	for i := range s.c.secrets {
		titles[i] = s.c.secrets[i].title()
	}
	// Titles are labels, written to stand alone: list them rather than
	// build a sentence around them ("Enter your New password").
	msg := s.c.lang.Format(catalog.PageAsks, "fields", strings.Join(titles, s.c.lang.Text(catalog.ListSep)))
	var secretProblems []*FieldError
	for _, p := range r.pageWords(problems) {
		if errors.Is(p.Err, ErrSecretWaiting) {
			secretProblems = append(secretProblems, p)
		}
	}
	msg, notes := s.c.withProblemsNoted(msg, secretProblems)
	sep := "?"
	if strings.Contains(r.flow.secrets.PageURL, "?") {
		sep = "&"
	}
	return legacy.Own(&mcp.ElicitParams{Mode: "url", Message: msg, URL: r.flow.secrets.PageURL + sep + "t=" + url.QueryEscape(token),
		Meta: notes}), nil
}

// pageTried reports whether the call could have followed a try at a
// secret page, so that a page not sent yet is said to be still waiting:
// a view's submit, whose button says the page was sent; a native answer
// where the client was asked the page in URL mode, which it accepted;
// and a call of the link's, which answers no field. A call that answered
// a step's fields otherwise, the model's or a native form's without URL
// mode, came before anyone had to open the link, which its result gives
// the person first.
func (r *round) pageTried() bool {
	switch r.channel {
	case PathView:
		return true
	case PathNative, PathLegacy:
		return r.can.url
	}
	return !r.fieldsRead
}

// pageWords returns the problems the words of a round that asks a page
// name: problems, less the page's waiting when no try at the page came
// before this call (see pageTried), whose result says to open the link.
func (r *round) pageWords(problems []*FieldError) []*FieldError {
	if r.pageTried() || !slices.ContainsFunc(problems, func(p *FieldError) bool { return errors.Is(p.Err, ErrSecretWaiting) }) {
		return problems
	}
	return slices.DeleteFunc(slices.Clone(problems), func(p *FieldError) bool { return errors.Is(p.Err, ErrSecretWaiting) })
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
