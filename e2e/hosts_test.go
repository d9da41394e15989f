package e2e_test

// The host matrix (issue 18): a team signup and a set_password finish on
// every kind of host, each emulated by the official TypeScript client
// declaring exactly that host's capabilities and revision
// (interop/signup-client.mjs), and the MCP Apps host by the real ext-apps
// AppBridge in Chromium (interop/apps-host.mjs). The test plays the person
// on set_password's page, and the model on the bare host.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the person answers on every host.
var (
	matrixAccount = map[string]any{"email": "ada@example.com", "full_name": "Ada Lovelace", "plan": "team"}
	matrixTeam    = map[string]any{"team_name": "Analytical Engines", "seats": 12}
	matrixEmail   = map[string]any{"email": "ada@example.com"}
	matrixCreated = account{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "team", TeamName: "Analytical Engines", Seats: 12}
)

const (
	createdText  = `Signup complete: created Ada Lovelace <ada@example.com> on the Team plan for "Analytical Engines", 12 seats.`
	passwordText = "Password set for ada@example.com."
	// What a view shows of them: the heading and summary for the person.
	createdShown  = "Account created\nEmail: ada@example.com\nFull name: Ada Lovelace\nPlan: Team\nTeam name: Analytical Engines\nSeats: 12"
	passwordShown = "Password set\nEmail: ada@example.com"
)

// A hostKind is what a host's client declares.
type hostKind struct {
	form, url, apps bool
}

// caps is k as the TypeScript client's capabilities.
func (k hostKind) caps() json.RawMessage {
	c := map[string]any{}
	if k.form || k.url {
		el := map[string]any{}
		if k.form {
			el["form"] = map[string]any{}
		}
		if k.url {
			el["url"] = map[string]any{}
		}
		c["elicitation"] = el
	}
	if k.apps {
		c["extensions"] = map[string]any{mcpform.AppsExtension: map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}}}
	}
	b, _ := json.Marshal(c)
	return b
}

// A hostRun is one row's servers, and what crossed its MCP wire.
type hostRun struct {
	t        *testing.T
	kind     hostKind
	revision string
	db       string
	a, b     string // two replicas on db: the row runs on a, and replays on b
	wire     []string
}

// ts runs calls on replica a with the TypeScript client, as the row's host.
func (h *hostRun) ts(calls ...tsCall) []tsStep {
	h.t.Helper()
	plan := tsPlan{URL: h.a, Capabilities: h.kind.caps(), Calls: calls, TimeoutMs: 20000}
	if h.revision == modern {
		plan.Pin = modern // the client's default negotiation ends at 2025-11-25
	}
	out, _ := runDriver(h.t, "signup-client.mjs", plan)
	var tr struct {
		tsTranscript
		Wire []json.RawMessage `json:"wire"`
	}
	require.NoError(h.t, json.Unmarshal(out, &tr), "reading the transcript")
	require.Nil(h.t, tr.Error, "the client could not connect")
	require.Equal(h.t, h.revision, tr.ProtocolVersion)
	require.Len(h.t, tr.Calls, len(calls))
	h.tapped(tr.Wire)
	return tr.Calls
}

func (h *hostRun) tapped(wire []json.RawMessage) {
	for _, m := range wire {
		h.wire = append(h.wire, string(m))
	}
}

// apps runs the tool in the MCP Apps host, filling its views in turn.
func (h *hostRun) apps(tool string, views [][]map[string]any) appsTranscript {
	h.t.Helper()
	plan := map[string]any{"url": h.a, "tool": tool, "chromium": testenv.Chromium(h.t),
		"views": views, "allow": []string{baseOf(h.a)}, "timeoutMs": 60000}
	if h.revision == modern {
		plan["pin"] = modern
	}
	out, _ := runDriver(h.t, "apps-host.mjs", plan)
	var tr appsTranscript
	require.NoError(h.t, json.Unmarshal(out, &tr), "reading the transcript")
	require.Equal(h.t, h.revision, tr.ProtocolVersion)
	require.Len(h.t, tr.Views, len(views))
	require.NotEmpty(h.t, tr.Calls)
	h.tapped(tr.Wire)
	return tr
}

// appsTranscript is what interop/apps-host.mjs reports.
type appsTranscript struct {
	ProtocolVersion string `json:"protocolVersion"`
	Views           []struct {
		Names []string `json:"names"`
		Text  string   `json:"text"`
	} `json:"views"`
	Final string `json:"final"`
	// Companion is the app-only tool the view submits to, as listed.
	Companion *struct {
		Name       string   `json:"name"`
		Visibility []string `json:"visibility"`
	} `json:"companion"`
	// Messages are the view's ui/message requests; ModelContext its
	// ui/update-model-context requests.
	Messages     []json.RawMessage `json:"messages"`
	ModelContext []json.RawMessage `json:"modelContext"`
	Calls        []struct {
		Params json.RawMessage `json:"params"`
		Result map[string]any  `json:"result"`
	} `json:"calls"`
	Pages []struct {
		Shown, Status int
		Heading       string
	} `json:"pages"`
	Wire   []json.RawMessage `json:"wire"`
	Errors []string          `json:"errors"`
}

// page plays the person on the secret page: a browser opens link, keeping
// its cookie, and sends the password.
func (h *hostRun) page(link string) {
	h.t.Helper()
	require.True(h.t, strings.HasPrefix(link, baseOf(h.a)+"/secret?t="), "link %s", link)
	code, body := postPage(h.t, link, secret)
	require.Equal(h.t, 200, code, body)
}

// replay sends the params of a row's last call again, to replica b, from
// the test kit's host declaring what the row's host does, and returns the
// call as it saw it. A 2025-11-25 host that answers forms answers them as
// the person did.
func (h *hostRun) replay(params json.RawMessage) *mcpformtest.Result {
	h.t.Helper()
	host := mcpformtest.Host{Name: "replay", Protocol: h.revision, Form: h.kind.form, URL: h.kind.url, Apps: h.kind.apps}
	c := mcpformtest.Dial(h.t, &mcp.StreamableClientTransport{Endpoint: h.b, MaxRetries: -1}, host)
	return c.Replay(context.Background(), params, mcpformtest.Accept(matrixAccount), mcpformtest.Accept(matrixTeam))
}

// lastCall returns the params of the last tools/call the client sent.
func lastCall(t *testing.T, wire []string) json.RawMessage {
	t.Helper()
	for i := len(wire) - 1; i >= 0; i-- {
		var m struct {
			Dir     string
			Message struct {
				Method string
				Params json.RawMessage
			}
		}
		require.NoError(t, json.Unmarshal([]byte(wire[i]), &m))
		if m.Dir == "out" && m.Message.Method == "tools/call" {
			return m.Message.Params
		}
	}
	t.Fatal("no tools/call on the wire")
	return nil
}

// propsOf returns the sorted property names of a requested schema.
func propsOf(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	var out []string
	for k := range props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// merged returns the union of maps, later ones winning.
func merged(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// A hostRow is one host of the matrix, and how its person (and, on a bare
// host, its model) finish each tool there. Each returns the final result's
// text and the params of the call that produced it.
type hostRow struct {
	name     string
	revision string
	kind     hostKind
	args     []string // more flags for the server
	signup   func(h *hostRun) (text string, last json.RawMessage)
	password func(h *hostRun) (text string, last json.RawMessage)
}

// nativeSignup lets the TypeScript client answer signup's forms itself:
// by key on 2026-07-28, in turn on 2025-11-25, where the key is a JSON-RPC
// id.
func nativeSignup(h *hostRun) (string, json.RawMessage) {
	answers := map[string][]any{"account": {tsAccept(matrixAccount)}, "team": {tsAccept(matrixTeam)}}
	if h.revision == legacy {
		answers = map[string][]any{"*": {tsAccept(matrixAccount), tsAccept(matrixTeam)}}
	}
	s := h.ts(tsCall{Answers: answers})[0]
	var forms []string
	for _, a := range s.Asked {
		forms = append(forms, formOf(a.RequestedSchema))
	}
	assert.Equal(h.t, []string{"account", "team"}, forms, "the forms the client was asked")
	return s.final(h.t).text(), lastCall(h.t, h.wire)
}

// linkPassword: the client answers the email form, and is given the page's
// link in an ordinary result; the person sends the page, and the client
// calls again with the arguments the result says.
func linkPassword(h *hostRun) (string, json.RawMessage) {
	key := passwordForm
	if h.revision == legacy {
		key = "*"
	}
	s := h.ts(tsCall{Tool: passwordTool, Answers: map[string][]any{key: {tsAccept(matrixEmail)}}})[0]
	require.Len(h.t, s.Asked, 1)
	assert.Equal(h.t, []string{"email"}, propsOf(s.Asked[0].RequestedSchema), "the email alone is asked in a form")
	r := s.final(h.t)
	require.NotNil(h.t, r.StructuredContent.Arguments, "the link's result: %s", r.text())
	assert.Contains(h.t, r.text(), r.StructuredContent.URL, "the text gives the link")
	h.page(r.StructuredContent.URL)
	s = h.ts(tsCall{Tool: passwordTool, Arguments: r.StructuredContent.Arguments})[0]
	return s.final(h.t).text(), lastCall(h.t, h.wire)
}

// urlModePassword: one round asks the email in a form and the page in URL
// mode; the person sends the page, and the client answers both.
func urlModePassword(h *hostRun) (string, json.RawMessage) {
	s := h.ts(tsCall{Tool: passwordTool, Manual: true})[0]
	require.NotNil(h.t, s.Result)
	require.Equal(h.t, "input_required", s.Result.ResultType)
	page := s.Result.InputRequests[passwordPage]
	assert.Equal(h.t, "url", page.Params.Mode)
	require.Contains(h.t, s.Result.InputRequests, passwordForm)
	h.page(page.Params.URL)
	s = h.ts(tsCall{Tool: passwordTool, Manual: true, RequestState: s.Result.RequestState, InputResponses: map[string]any{
		passwordForm: tsAccept(matrixEmail), passwordPage: map[string]any{"action": "accept"}}})[0]
	return s.final(h.t).text(), lastCall(h.t, h.wire)
}

// modelSignup plays the model: it asks the person what each result's
// requestedSchema names, and calls again with the arguments it says.
func modelSignup(h *hostRun) (string, json.RawMessage) {
	all := merged(matrixAccount, matrixTeam)
	from := -1
	steps := h.ts(tsCall{}, tsCall{ArgumentsFrom: &from, Values: all}, tsCall{ArgumentsFrom: &from, Values: all})
	for i, want := range [][]string{{"email", "full_name", "plan"}, {"seats", "team_name"}} {
		r := steps[i].final(h.t)
		assert.Equal(h.t, want, propsOf(r.StructuredContent.RequestedSchema), "what the model is asked in round %d", i+1)
		assert.Empty(h.t, r.StructuredContent.URL)
	}
	return steps[2].final(h.t).text(), lastCall(h.t, h.wire)
}

// modelPassword: the model is asked the email and given the link; the
// person sends the page, and the model calls again.
func modelPassword(h *hostRun) (string, json.RawMessage) {
	r := h.ts(tsCall{Tool: passwordTool})[0].final(h.t)
	assert.Equal(h.t, []string{"email"}, propsOf(r.StructuredContent.RequestedSchema))
	h.page(r.StructuredContent.URL)
	s := h.ts(tsCall{Tool: passwordTool, Arguments: merged(r.StructuredContent.Arguments, matrixEmail)})[0]
	return s.final(h.t).text(), lastCall(h.t, h.wire)
}

// appsSignup fills the account view, then the team view, in Chromium.
func appsSignup(h *hostRun) (string, json.RawMessage) {
	tr := h.apps(toolName, [][]map[string]any{
		{{"name": "email", "value": "ada@example.com"}, {"name": "full_name", "value": "Ada Lovelace"}, {"name": "plan", "select": "team"}},
		{{"name": "team_name", "value": "Analytical Engines"}, {"name": "seats", "value": "12"}},
	})
	assert.Equal(h.t, []string{"email", "full_name", "plan"}, tr.Views[0].Names, "the first view asks the account alone")
	assert.Equal(h.t, []string{"team_name", "seats"}, tr.Views[1].Names, "the second view asks the team alone")
	assert.Contains(h.t, tr.Views[0].Text, "Create your account")
	assert.Contains(h.t, tr.Views[1].Text, "Tell us about your team")
	assert.Empty(h.t, tr.Errors, "the view's console")
	checkCompanion(h.t, tr, toolName)
	assert.Equal(h.t, createdShown, tr.Final, "the view shows the person's heading and summary")
	return saidOf(h.t, tr), tr.Calls[len(tr.Calls)-1].Params
}

// checkCompanion checks that the view submitted to the app-only companion
// tool, listed with visibility ["app"], naming tool, and that the view
// told the model the outcome it shows with ui/update-model-context.
func checkCompanion(t *testing.T, tr appsTranscript, tool string) {
	t.Helper()
	require.NotNil(t, tr.Companion, "the server lists an app-only tool")
	assert.Equal(t, []string{"app"}, tr.Companion.Visibility)
	for _, c := range tr.Calls {
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		require.NoError(t, json.Unmarshal(c.Params, &p))
		assert.Equal(t, tr.Companion.Name, p.Name, "the view calls the companion, never the tool itself")
		assert.Equal(t, tool, p.Arguments["mcpformTool"])
	}
	// The model never sees the companion's results: the view tells it
	// the outcome it shows, as the conversation's context.
	require.NotEmpty(t, tr.ModelContext, "the view tells the model the outcome")
	var last struct {
		Content []struct{ Type, Text string } `json:"content"`
	}
	require.NoError(t, json.Unmarshal(tr.ModelContext[len(tr.ModelContext)-1], &last))
	require.Len(t, last.Content, 1)
	assert.Equal(t, "text", last.Content[0].Type)
	assert.Equal(t, strings.TrimSpace(tr.Final)+"\n\n"+saidOf(t, tr), last.Content[0].Text,
		"the model is told what the view shows, then the sentence for the model")
}

// saidOf is what the last result a view got tells the model: its last
// text block, after the heading and summary for the person.
func saidOf(t *testing.T, tr appsTranscript) string {
	t.Helper()
	require.NotEmpty(t, tr.Calls)
	content, _ := tr.Calls[len(tr.Calls)-1].Result["content"].([]any)
	require.NotEmpty(t, content)
	last, _ := content[len(content)-1].(map[string]any)
	text, _ := last["text"].(string)
	return text
}

// appsPassword: the view asks the email and shows the page's link; the
// person opens it in a tab, sends the password there, then submits the
// view.
func appsPassword(h *hostRun) (string, json.RawMessage) {
	tr := h.apps(passwordTool, [][]map[string]any{
		{{"link": true, "password": secret}, {"name": "email", "value": "ada@example.com"}},
	})
	assert.Equal(h.t, []string{"email"}, tr.Views[0].Names, "the view asks the email alone")
	require.Len(h.t, tr.Pages, 1)
	assert.Equal(h.t, 200, tr.Pages[0].Status)
	assert.Equal(h.t, "You're done", tr.Pages[0].Heading)
	checkCompanion(h.t, tr, passwordTool)
	assert.Equal(h.t, passwordShown, tr.Final, "the view shows the person's heading and summary")
	return saidOf(h.t, tr), tr.Calls[len(tr.Calls)-1].Params
}

// TestHostMatrix finishes a team signup and a set_password on every host of
// issue 18's matrix, each the way it can be asked, on one replica; replays
// each tool's last call on a second replica on the same database; and
// checks that one account is left, that the password's hash is stored,
// and that the password crossed no MCP message and no state.
func TestHostMatrix(t *testing.T) {
	testenv.Node(t)
	for _, ex := range examples(t) {
		t.Run(ex.name, func(t *testing.T) { hostMatrix(t, ex.bin) })
	}
}

// An example is a build of the signup tools: examples/signup on go-sdk,
// and examples/mcpgo, the same tools on mcp-go, which every host must
// finish alike.
type example struct{ name, bin string }

func examples(t *testing.T) []example {
	return []example{{"signup", signupBin(t)}, {"mcpgo", mcpgoBin(t)}}
}

func hostMatrix(t *testing.T, bin string) {
	full, forms, apps, bare := hostKind{form: true, url: true}, hostKind{form: true}, hostKind{apps: true}, hostKind{}
	for _, row := range []hostRow{
		{"full", modern, full, nil, nativeSignup, urlModePassword},
		{"CLI with forms", modern, forms, nil, nativeSignup, linkPassword},
		{"older editor", legacy, forms, nil, nativeSignup, linkPassword},
		{"Apps-only", legacy, apps, nil, appsSignup, appsPassword},
		{"Apps-only", modern, apps, nil, appsSignup, appsPassword},
		{"bare", modern, bare, nil, modelSignup, modelPassword},
	} {
		t.Run(row.name+" "+row.revision, func(t *testing.T) {
			h := newHostRun(t, bin, row)
			got, last := row.signup(h)
			assert.Equal(t, createdText, got)
			again := h.replay(last)
			if row.revision == legacy && row.kind.form {
				// A 2025-11-25 call is all its rounds: replayed, it is a
				// new signup, asked again, and finds the email taken.
				assert.Equal(t, "exists", again.Status, again.Text)
			} else {
				assert.Equal(t, createdText, saidText(again.Text), "the last call replayed on the second replica")
			}
			assert.Equal(t, map[string]account{matrixCreated.Email: matrixCreated}, accounts(t, "sqlite", h.db))

			got, last = row.password(h)
			assert.Equal(t, passwordText, got)
			assert.Equal(t, passwordText, saidText(h.replay(last).Text), "the last call replayed on the second replica")
			checkPasswordHash(t, "sqlite", h.db, matrixCreated.Email, secret)
			assert.Len(t, accounts(t, "sqlite", h.db), 1)

			noSecret(t, "the MCP wire", h.wire...)
			assert.Positive(t, openStates(t, h.wire...), "states opened and checked")
		})
	}
	t.Run("bare, not opted in "+modern, func(t *testing.T) {
		h := newHostRun(t, bin, hostRow{revision: modern, kind: bare, args: []string{"-ask-model=false"}})
		for _, s := range h.ts(tsCall{}, tsCall{Tool: passwordTool}) {
			require.NotNil(t, s.Error, "want -32021, got %+v", s.Result)
			assert.Equal(t, -32021, s.Error.Code, s.Error.Message)
		}
		assert.Empty(t, accounts(t, "sqlite", h.db))
	})
}

// TestHostMatrixDecline presses the Decline button of the team view in the
// real MCP Apps host, in Chromium: the view's last screen says the signup
// was declined, naming the step, and nothing is created.
func TestHostMatrixDecline(t *testing.T) {
	testenv.Node(t)
	for _, ex := range examples(t) {
		for _, revision := range []string{legacy, modern} {
			t.Run(ex.name+" "+revision, func(t *testing.T) {
				hostDecline(t, ex.bin, revision)
			})
		}
	}
}

func hostDecline(t *testing.T, bin, revision string) {
	h := newHostRun(t, bin, hostRow{revision: revision, kind: hostKind{apps: true}})
	tr := h.apps(toolName, [][]map[string]any{
		{{"name": "email", "value": "ada@example.com"}, {"name": "full_name", "value": "Ada Lovelace"}, {"name": "plan", "select": "team"}},
		{{"name": "team_name", "value": "Analytical Engines"}, {"decline": true}},
	})
	assert.Equal(t, []string{"team_name", "seats"}, tr.Views[1].Names)
	assert.Contains(t, tr.Views[1].Text, "Decline", "the view shows the button")
	assert.Equal(t, "Not completed\nNothing was created.", tr.Final, "the view shows the person's heading and summary")
	assert.Equal(t, "Signup not completed: you declined to give your team details. Nothing was created.", saidOf(t, tr))
	assert.Empty(t, tr.Errors, "the view's console")
	assert.Empty(t, accounts(t, "sqlite", h.db))
}

// newHostRun starts row's two replicas of bin on a new SQLite file.
func newHostRun(t *testing.T, bin string, row hostRow) *hostRun {
	db := filepath.Join(t.TempDir(), "signup.db")
	args := append([]string{"-db", db}, row.args...)
	return &hostRun{t: t, kind: row.kind, revision: row.revision, db: db,
		a: startReplicaOf(t, bin, keyA, args...).url, b: startReplicaOf(t, bin, keyA, args...).url}
}

// openStates opens every sealed request state in texts with the replicas'
// key, as the signup tools bind them (the principal, the tool, no
// arguments of the tool's own, the channel), checks that none holds the password, and
// returns how many it opened. A state that opens for neither tool fails.
func openStates(t *testing.T, texts ...string) (opened int) {
	t.Helper()
	k, err := hex.DecodeString(keyA)
	require.NoError(t, err)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{k}, Bind: true, Seal: true})
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, s := range texts {
		for _, tok := range tokenRe.FindAllString(s, -1) {
			if !strings.HasPrefix(tok, "s1.") || seen[tok] || strings.Contains(s, "t="+tok) {
				continue // a secret page's link (t=…) is sealed too, but is no state
			}
			seen[tok] = true
			var payload json.RawMessage
			ok := false
			// A state is bound to the channel it was minted for too: the
			// input responses, a view's companion, or the model.
			for _, tool := range []string{toolName, passwordTool} {
				for _, channel := range []string{"form", "view", "model"} {
					if codec.Verify(tok, mcpform.BindTo(localPrincipal, tool, noArguments, channel), &payload) == nil {
						ok = true
					}
				}
			}
			if assert.True(t, ok, "a state that opens for neither tool: %s", tok) {
				opened++
				assert.NotContains(t, string(payload), secret, "a state holds the password")
			}
		}
	}
	return opened
}
