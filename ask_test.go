package mcpform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsent: the answer to a step's URL-mode request decides with its
// form's. A decline or cancel of either ends the step, no answer to the
// page asks the step again as it was, an unknown action is a problem, and
// only an accepted page passes the form's own status and problems on.
func TestConsent(t *testing.T) {
	s := &flowStep{c: &compiled{key: "password"}}
	formProblem := []*FieldError{{Field: "email", Err: ErrInvalidValue}}
	for _, tt := range []struct {
		name     string
		page     string // the action answered to the page; "" for none
		form     ReplyStatus
		want     ReplyStatus
		problems int
	}{
		{"both accepted", "accept", ReplyAccepted, ReplyAccepted, 0},
		{"form invalid, page accepted", "accept", ReplyInvalid, ReplyInvalid, 1},
		{"page declined", "decline", ReplyAccepted, ReplyDeclined, 0},
		{"page dismissed", "cancel", ReplyInvalid, ReplyCancelled, 0},
		{"form declined, page accepted", "accept", ReplyDeclined, ReplyDeclined, 1},
		{"form cancelled, page unanswered", "", ReplyCancelled, ReplyCancelled, 1},
		{"page unanswered", "", ReplyAccepted, ReplyNone, 0},
		{"page action unknown", "approve", ReplyAccepted, ReplyInvalid, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			responses := mcp.InputResponseMap{}
			if tt.page != "" {
				responses["password.secret"] = &mcp.ElicitResult{Action: tt.page}
			}
			var problems []*FieldError
			if tt.form != ReplyAccepted {
				problems = formProblem
			}
			status, got := s.consent(sdkAnswers(responses), tt.form, problems)
			assert.Equal(t, tt.want, status)
			assert.Len(t, got, tt.problems)
		})
	}
}

// TestFlowArgumentsDecline sends a decline natively, through an Apps
// view's arguments and through the model's, at each step, and wants the
// same round on each: FlowDeclined naming the step, with the answers
// proven before it. Any other value of the action argument is judged as a
// native answer with an unknown action: asked again, naming the problem.
func TestFlowArgumentsDecline(t *testing.T) {
	flow, codec, _ := newFlowFixture(t)
	model, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	account := map[string]any{"email": "ada@example.com", "plan": "team"}
	type path struct {
		name string
		flow *Flow
		meta mcp.Meta
	}
	paths := []path{{"native", flow, formCaps()}, {"apps", flow, appsMeta()}, {"model", model, bareMeta()}}
	// send answers step natively with native, or through the arguments
	// with args beside the state.
	send := func(t *testing.T, p path, state, step string, native any, args map[string]any) (*FlowRound, error) {
		if p.name == "native" {
			return p.flow.Next(context.Background(), callAs("alice", "signup", state, map[string]any{step: native}))
		}
		a := map[string]any{StateArgument: state}
		for k, v := range args {
			a[k] = v
		}
		return p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", a))
	}
	begin := func(t *testing.T, p path) *FlowRound {
		r, err := p.flow.Next(context.Background(), argsCall(t, p.meta, "alice", "signup", nil))
		require.NoError(t, err)
		return r
	}
	decline := map[string]any{prefab.ActionArgument: prefab.DeclineAction}
	shared := func(r *FlowRound, err error) roundOutcome { // the run's ID is checked apart
		o := outcomeOf(r, err)
		o.id = ""
		return o
	}

	t.Run("each step", func(t *testing.T) {
		for _, p := range paths {
			first := begin(t, p)
			r, err := send(t, p, carried(t, first), "account", "decline", decline)
			require.NoError(t, err, p.name)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "account"}, shared(r, err), p.name)
			assert.Equal(t, first.ID, r.ID, p.name)
			assert.Empty(t, r.Answers, p.name)

			second, err := send(t, p, carried(t, first), "account", account, account)
			require.NoError(t, err, p.name)
			require.Equal(t, "team", second.Step, p.name)
			r, err = send(t, p, carried(t, second), "team", "decline", decline)
			require.NoError(t, err, p.name)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "team"}, shared(r, err), p.name)
			assert.Equal(t, first.ID, r.ID, p.name)
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.Answers, p.name)
		}
	})

	t.Run("a decline with answers is a decline", func(t *testing.T) {
		for _, p := range paths[1:] {
			args := map[string]any{prefab.ActionArgument: prefab.DeclineAction, "email": "ada@example.com", "plan": "pro"}
			r, err := send(t, p, carried(t, begin(t, p)), "", nil, args)
			assert.Equal(t, roundOutcome{Status: FlowDeclined, Step: "account"}, shared(r, err), p.name)
		}
	})

	t.Run("a decline with a forged state is refused", func(t *testing.T) {
		for _, p := range paths[1:] {
			s := carried(t, begin(t, p))
			r, err := send(t, p, s[:len(s)-4]+"AAAA", "", nil, decline)
			assert.Equal(t, roundOutcome{Code: -32602}, shared(r, err), p.name)
		}
	})

	reasked := roundOutcome{Status: FlowAsk, Step: "account", Problems: []string{""}}
	t.Run("a native unknown action", func(t *testing.T) {
		p := paths[0]
		r, err := send(t, p, carried(t, begin(t, p)), "account", "bogus", nil)
		assert.Equal(t, reasked, shared(r, err))
	})
	for _, bad := range []any{"accept", "Decline", "cancel", "", 1.0, true, nil, map[string]any{"action": "decline"}, []any{"decline"}} {
		t.Run(fmt.Sprintf("action %#v", bad), func(t *testing.T) {
			for _, p := range paths[1:] {
				args := map[string]any{prefab.ActionArgument: bad, "email": "ada@example.com", "plan": "pro"}
				r, err := send(t, p, carried(t, begin(t, p)), "", nil, args)
				assert.Equal(t, reasked, shared(r, err), p.name)
				require.NoError(t, err)
				assert.Equal(t, 1, r.Attempt, "%s: a re-ask, counted", p.name)
				assert.Contains(t, wireJSON(t, r.Result), prefab.ActionArgument, "%s: the re-ask names the problem", p.name)
			}
		})
	}
}

// TestFlowArgumentsDeclineOnce declines through a view's and the model's
// arguments with Outcomes set: a replay of the decline, and one that
// answers instead, get the first outcome, and nothing is created.
func TestFlowArgumentsDeclineOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		_, codec, _ := newFlowFixture(t)
		s, _ := d.store(t, d.tables(t))
		flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: s, AskModel: true})
		require.NoError(t, err)
		for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
			r, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", nil))
			require.NoError(t, err)
			state := carried(t, r)
			var calls int
			for i, args := range []map[string]any{
				{StateArgument: state, prefab.ActionArgument: prefab.DeclineAction},
				{StateArgument: state, prefab.ActionArgument: prefab.DeclineAction},
				{StateArgument: state, "email": "ada@example.com", "plan": "pro"},
			} {
				round, err := flow.Next(context.Background(), argsCall(t, meta, "alice", "signup", args))
				require.NoError(t, err)
				require.NotEqual(t, FlowAsk, round.Status, "round %d", i)
				assert.Equal(t, r.ID, round.ID)
				res, err := round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
					calls++
					if round.Status == FlowDone {
						return outcome("created"), nil
					}
					return outcome("Signup not completed: you declined " + round.Step), nil
				})
				require.NoError(t, err)
				assert.Equal(t, "Signup not completed: you declined account", textOf(res), "round %d", i)
			}
			assert.Equal(t, 1, calls, "the decline's outcome alone was made")
		}
	})
}

// TestFlowModelConfirmation: a step with a boolean field, a confirmation,
// is never asked through the model, even opted in, while the steps before
// it are.
func TestFlowModelConfirmation(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	confirm := Step{Key: "confirm", Message: "Delete the account?", Fields: []AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}}}
	flow, err := NewFlow(codec, []Step{accountStep, confirm}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "delete", nil))
	require.NoError(t, err)
	assert.Equal(t, "account", r.Step, "the account step goes through the model")
	_, err = flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "delete", map[string]any{
		StateArgument: carried(t, r), "email": "ada@example.com", "plan": "pro", "sure": true}))
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "the confirmation fails closed")
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
}

// TestModelReaskContract: a re-ask through the model gives, beside its
// words, the message for the person and the problems it names as fields
// of its contract, so that neither the model nor a test reads them from
// text in the person's language.
func TestModelReaskContract(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	first := r.Result.StructuredContent.(*askContract)
	assert.Empty(t, first.Problems)
	assert.Equal(t, "Create your account", first.Message)
	r, err = flow.Next(context.Background(), argsCall(t, bareMeta(), "alice", "signup", map[string]any{
		StateArgument: carried(t, r), "email": "ada@", "plan": "pro"}))
	require.NoError(t, err)
	require.Equal(t, FlowAsk, r.Status)
	c := r.Result.StructuredContent.(*askContract)
	require.Len(t, c.Problems, 1)
	assert.Equal(t, "email", c.Problems[0].Field)
	assert.Contains(t, c.Message, "Create your account")
	assert.Contains(t, c.Message, c.Problems[0].Problem, "the note is the message's words")
	assert.Contains(t, r.Result.Content[0].(*mcp.TextContent).Text, c.Message, "the text says the same")
}

// TestPageRequest: the URL-mode request names the step's secrets by their
// titles and links to the page with a sealed token, after the page URL's
// own query if it has one; asked again while the page waits, it says so
// in its message and notes the waiting field for machines, with the same
// link.
func TestPageRequest(t *testing.T) {
	for _, tt := range []struct{ name, query, sep string }{
		{"plain page URL", "", "?"},
		{"page URL with a query", "?tenant=a", "&"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			fx.flow.secrets.PageURL += tt.query
			r, err := fx.flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			first := r.Result.InputRequests["password.secret"].(*mcp.ElicitParams)
			base, token, ok := strings.Cut(first.URL, tt.sep+"t=")
			require.True(t, ok, "the link %q carries its token after %q", first.URL, tt.sep)
			assert.Equal(t, fx.flow.secrets.PageURL, base)
			tok, err := url.QueryUnescape(token)
			require.NoError(t, err)
			assert.NotContains(t, payloadOf(t, tok), "alice", "the token is sealed")
			assert.Contains(t, first.Message, "New password")
			assert.Nil(t, first.Meta, "a first ask names no problem")

			// The form part answered, the page not yet sent.
			again, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{
				"password": map[string]any{"email": "alice@example.com"}, "password.secret": "accept"}))
			require.NoError(t, err)
			require.Equal(t, FlowAsk, again.Status)
			waiting := again.Result.InputRequests["password.secret"].(*mcp.ElicitParams)
			assert.Equal(t, first.URL, waiting.URL, "the same link from round to round")
			assert.Contains(t, waiting.Message, "still waiting")
			notes := notesOf(waiting.Meta)
			require.Len(t, notes, 1)
			assert.Equal(t, "password", notes[0].Field)
			assert.Contains(t, waiting.Message, notes[0].Problem, "the note is the message's words")
		})
	}
}

// barrierStore holds each read of key that finds a secret until n reads
// have found it, so that n rounds read the secret before any takes it.
type barrierStore struct {
	SecretStore
	key  string
	wait sync.WaitGroup
}

func (s *barrierStore) GetSecret(ctx context.Context, key string) (string, bool, error) {
	v, ok, err := s.SecretStore.GetSecret(ctx, key)
	if key == s.key && ok {
		s.wait.Done()
		s.wait.Wait()
	}
	return v, ok, err
}

// TestLinkTakenOnce: without Outcomes, two finishing rounds of one run
// that both read the secret before either takes it (a client's retry
// racing its call) do not both finish with it: the first to close the
// link as done finishes, and the other ends invalid, taking nothing.
func TestLinkTakenOnce(t *testing.T) {
	barrier := &barrierStore{SecretStore: NewMemorySecretStore()}
	fx := newSecretFixtureWith(t, nil, []Step{passwordStep}, nil, barrier)
	r := next(t, fx, "", nil)
	link := pageLink(t, r)
	require.Equal(t, http.StatusOK, send(t, link, "correct horse battery"))
	barrier.key = fx.linkOf(t, link).key()
	barrier.wait.Add(2)

	var rounds [2]*FlowRound
	var wg sync.WaitGroup
	for i := range rounds {
		wg.Go(func() {
			var err error
			rounds[i], err = fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	var statuses []FlowStatus
	for _, d := range rounds {
		require.NotNil(t, d)
		statuses = append(statuses, d.Status)
		if d.Status == FlowDone {
			assert.Equal(t, "correct horse battery", d.Answers["password"])
			continue
		}
		assert.NotContains(t, d.Answers, "password")
		require.Len(t, d.Problems, 1)
		assert.ErrorIs(t, d.Problems[0], ErrSecretUsed)
	}
	assert.ElementsMatch(t, []FlowStatus{FlowDone, FlowInvalid}, statuses)
}

// TestLinkTakenBeforeDo: with Outcomes, Once closes the link as done
// before do runs, so that a stop from another browser while do runs
// changes nothing and is told the request is finished; and a stop before
// Once keeps do from running, with ErrSecretRefused.
func TestLinkTakenBeforeDo(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*secretFixture, string, *FlowRound, *browser) {
		fx := newSecretFixtureOf(t, nil, passwordStep, NewMemoryOutcomes(0))
		r := next(t, fx, "", nil)
		link := pageLink(t, r)
		person := newBrowser(t)
		person.get(t, link)
		status, _ := person.post(t, link, url.Values{"password": {"correct horse battery"}}, nil)
		require.Equal(t, http.StatusOK, status)
		done := next(t, fx, r.Result.RequestState, alicesAnswer)
		require.Equal(t, FlowDone, done.Status)
		return fx, link, done, person
	}
	t.Run("stop while do runs", func(t *testing.T) {
		fx, link, done, person := setup(t)
		var stopStatus int
		var stopPage string
		res, err := done.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
			other := newBrowser(t)
			other.get(t, link)
			stopStatus, stopPage = other.post(t, link, url.Values{"a": {"stop"}}, nil)
			return outcome("password set"), nil
		})
		require.NoError(t, err)
		assert.Equal(t, "password set", textOf(res))
		assert.Equal(t, http.StatusConflict, stopStatus)
		assert.Contains(t, stopPage, "<h1>This request is finished</h1>", "not told the link was stopped")
		_, page := person.get(t, link)
		assert.Contains(t, page, "<title>You&#39;re done</title>", "the sender's browser")
		_, page = newBrowser(t).get(t, link)
		assert.Contains(t, page, "<title>This request is finished</title>")
		assert.False(t, fx.held(t, link))
	})
	t.Run("stop before Once", func(t *testing.T) {
		fx, link, done, _ := setup(t)
		other := newBrowser(t)
		other.get(t, link)
		status, page := other.post(t, link, url.Values{"a": {"stop"}}, nil)
		require.Equal(t, http.StatusOK, status)
		require.Contains(t, page, "This link is stopped")
		ran := false
		_, err := done.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
			ran = true
			return outcome("password set"), nil
		})
		assert.ErrorIs(t, err, ErrSecretRefused)
		assert.False(t, ran, "do never runs with a stopped link's secret")
		again := next(t, fx, "", nil) // a new run is untouched
		assert.Equal(t, FlowAsk, again.Status)
	})
}

// TestLinkEndedAfterEarlierStepReasked: a secret sent for a step whose
// earlier step is asked again, and so no longer proven, is deleted however
// the flow then ends: declined, or done with the secret's step no longer
// applying.
func TestLinkEndedAfterEarlierStepReasked(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer map[string]any // to the earlier step, asked again
		want   FlowStatus
	}{
		{"declined", map[string]any{"account": "decline"}, FlowDeclined},
		{"done without the secret's step", map[string]any{"account": map[string]any{"kind": "sso"}}, FlowDone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			closed := false
			account := Step{Key: "account", Message: "Sign-in",
				Fields: []AutoFormField{{Name: "kind", Label: "Kind", Required: true}},
				Check: func(a Answers) []*FieldError {
					if closed && a["kind"] == "password" {
						return []*FieldError{{Field: "kind", Err: errors.New("passwords are off now")}}
					}
					return nil
				}}
			pw := passwordStep
			pw.When = func(a Answers) bool { return a["kind"] == "password" }
			fx := newSecretFixtureWith(t, nil, []Step{account, pw}, nil, nil)
			r1 := next(t, fx, "", nil)
			r2 := next(t, fx, r1.Result.RequestState, map[string]any{"account": map[string]any{"kind": "password"}})
			link := pageLink(t, r2)
			require.Equal(t, http.StatusOK, send(t, link, "correct horse battery"))
			closed = true // the earlier answer no longer passes
			r3 := next(t, fx, r2.Result.RequestState, alicesAnswer)
			require.Equal(t, FlowAsk, r3.Status)
			require.Contains(t, r3.Result.InputRequests, "account")
			end := next(t, fx, r3.Result.RequestState, tt.answer)
			require.Equal(t, tt.want, end.Status)
			assert.NotContains(t, end.Answers, "password")
			assert.False(t, fx.held(t, link), "the secret outlives the flow")
			status, _ := newBrowser(t).get(t, link)
			assert.Equal(t, http.StatusGone, status, "the link says the request ended")
		})
	}
}

// TestLinkValuesCheckedByTheFlow: the flow judges what a page sent by
// its own step's rules. A value sent on a page with other rules (another
// flow's, sharing the codec, the store and a step key, or a replica's of
// another deploy) ends the flow invalid, and the flow takes nothing.
func TestLinkValuesCheckedByTheFlow(t *testing.T) {
	strict := passwordStep // at least 12 characters
	lax := Step{Key: "password", Message: "Set your PIN", Fields: []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "password", Label: "PIN", Type: TypePassword, Required: true},
	}}
	fx := newSecretFixtureWith(t, nil, []Step{strict}, nil, nil)
	laxFlow, err := NewFlow(fx.codec, []Step{lax}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: fx.page.URL + "/lax", Store: fx.store}})
	require.NoError(t, err)
	laxPage, err := laxFlow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)
	strictPage := fx.page.Config.Handler
	fx.page.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/lax") {
			laxPage.ServeHTTP(w, r)
			return
		}
		strictPage.ServeHTTP(w, r)
	})

	r := next(t, fx, "", nil)
	onLax := fx.page.URL + "/lax?t=" + url.QueryEscape(linkToken(t, pageLink(t, r)))
	require.Equal(t, http.StatusOK, send(t, onLax, "1234"), "the lax page takes the strict flow's link")
	end := next(t, fx, r.Result.RequestState, alicesAnswer)
	assert.Equal(t, FlowInvalid, end.Status)
	assert.NotContains(t, end.Answers, "password")
	require.Len(t, end.Problems, 1)
	assert.ErrorIs(t, end.Problems[0], ErrSecretRefused)
	assert.False(t, fx.held(t, onLax), "nothing is kept")
}

// TestPageWaitingAfterATry checks item 4 of issue 35: the words of a round
// that gives a secret page's link say to open it first, and that the page
// is still waiting only after a try at it. On the model path, and natively
// on a client without URL mode, the call that answers the step's form
// comes before anyone had to open the link, so its result, the first that
// gives the link alone, says nothing of waiting; the next call, which
// answers nothing, is the try. A view's continue button says the page was
// sent, so a view says so after it, and never on its first show. In
// English and in Spanish.
func TestPageWaitingAfterATry(t *testing.T) {
	const email = "ada@example.com"
	for _, lang := range []catalog.Lang{catalog.English, catalog.Spanish} {
		waiting := []string{lang.Text(catalog.SecretWaiting), strings.Split(lang.Text(catalog.ViewPageWaiting), "{")[0]}
		withLang := func(m mcp.Meta) mcp.Meta {
			m[seam.MetaAcceptLanguage] = lang.Code()
			return m
		}
		for _, tt := range []struct {
			name  string
			first func() *mcp.CallToolRequest
			// answer answers the form, state alone the try at the page.
			answer, try func(state string) *mcp.CallToolRequest
			afterAnswer bool // whether the answer's round says the page waits
		}{
			{"model", func() *mcp.CallToolRequest { return directCall(t, withLang(bareMeta()), "alice", "set_password", nil) },
				func(st string) *mcp.CallToolRequest {
					return directCall(t, bareMeta(), "alice", "set_password", map[string]any{StateArgument: st, "email": email})
				},
				func(st string) *mcp.CallToolRequest {
					return directCall(t, bareMeta(), "alice", "set_password", map[string]any{StateArgument: st})
				}, false},
			{"native form without URL mode", func() *mcp.CallToolRequest {
				req := call("set_password", "", nil)
				req.Params.Meta = withLang(formCaps())
				return req
			},
				func(st string) *mcp.CallToolRequest {
					return call("set_password", st, map[string]any{"password": map[string]any{"email": email}})
				},
				func(st string) *mcp.CallToolRequest {
					return directCall(t, formCaps(), "alice", "set_password", map[string]any{StateArgument: st})
				}, false},
			{"view", func() *mcp.CallToolRequest { return directCall(t, withLang(appsMeta()), "alice", "set_password", nil) },
				func(st string) *mcp.CallToolRequest {
					return argsCall(t, appsMeta(), "alice", "set_password", map[string]any{StateArgument: st, "email": email})
				},
				func(st string) *mcp.CallToolRequest {
					return argsCall(t, appsMeta(), "alice", "set_password", map[string]any{StateArgument: st})
				}, true},
		} {
			t.Run(lang.Code()+"/"+tt.name, func(t *testing.T) {
				_, codec, _ := newFlowFixture(t)
				const page = "http://127.0.0.1:9/secret"
				flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser, AskModel: true,
					Secrets: &SecretOptions{PageURL: page, Store: NewMemorySecretStore()}})
				require.NoError(t, err)
				said := func(r *FlowRound) string {
					t.Helper()
					require.Equal(t, FlowAsk, r.Status, "problems: %v", r.Problems)
					var b strings.Builder
					for _, c := range r.Result.Content {
						b.WriteString(c.(*mcp.TextContent).Text)
					}
					if r.Result.StructuredContent != nil {
						b.WriteString(wireJSON(t, r.Result.StructuredContent))
					}
					return b.String()
				}
				saysWaiting := func(text string) bool {
					return strings.Contains(text, waiting[0]) || strings.Contains(text, waiting[1])
				}
				first, err := flow.Next(context.Background(), tt.first())
				require.NoError(t, err)
				assert.False(t, saysWaiting(said(first)), "the first round says the page waits:\n%s", said(first))

				answered, err := flow.Next(context.Background(), tt.answer(carried(t, first)))
				require.NoError(t, err)
				text := said(answered)
				assert.Contains(t, text, page+"?t=", "the link is given")
				assert.Equal(t, tt.afterAnswer, saysWaiting(text), "after the form's answer:\n%s", text)
				if c, ok := answered.Result.StructuredContent.(*askContract); ok {
					assert.Empty(t, c.Problems, "no problem is noted that the words do not name")
				}

				tried, err := flow.Next(context.Background(), tt.try(carried(t, answered)))
				require.NoError(t, err)
				text = said(tried)
				assert.Contains(t, text, page+"?t=", "the link is given again")
				assert.True(t, saysWaiting(text), "after a try, the page is still waiting:\n%s", text)
			})
		}
	}
}
