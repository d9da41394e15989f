package mcpform

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// checkRoundView returns the view of a checked flow's check round, after
// the team plan's two steps, and the flow.
func checkRoundView(t *testing.T) (*Flow, *FlowRound) {
	t.Helper()
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep},
		&FlowOptions{EveryCallerIsSamePerson: true, CheckAnswers: true, Commit: "Create account"})
	require.NoError(t, err)
	ctx := context.Background()
	r, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	for _, answers := range []map[string]any{
		{"email": "ada@example.com", "plan": "team"},
		{"team_name": "Analytical", "seats": 5},
	} {
		answers[StateArgument] = carried(t, r)
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", answers))
		require.NoError(t, err)
	}
	require.Equal(t, CheckStep, r.Step)
	return flow, r
}

// TestFlowCheckAnswersBrowser renders the check round in Chromium with
// prefab's renderer: its submit, "Create account", sends that the answers
// are right, which, routed by the companion, finishes the flow.
func TestFlowCheckAnswersBrowser(t *testing.T) {
	flow, r := checkRoundView(t)
	run := runBrowser(t, r.Result, []browserStep{}, filepath.Join("testdata", "artifacts", "flow-check-answers.png"))
	require.Empty(t, run.Invalid)
	assert.Empty(t, run.Errors, "the view logged errors")
	require.Len(t, run.Calls, 1)
	call := run.Calls[0]
	route := companionMiddleware(ViewerURI)(listing(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		done, err := flow.Next(ctx, req.(*mcp.CallToolRequest))
		require.NoError(t, err)
		require.Equal(t, FlowDone, done.Status, "problems: %v", done.Problems)
		assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team", "team_name": "Analytical", "seats": 5.0}, done.Answers)
		return &mcp.CallToolResult{}, nil
	}, attachedTool(t, "signup")))
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: call.Name, Arguments: call.Arguments, Meta: appsMeta()}}
	_, err := route(context.Background(), "tools/call", req)
	require.NoError(t, err)
}

// TestFlowOutcomeBrowser shows FlowRound.Outcome's results in Chromium,
// as the viewer shows a tool's final result: the author's heading and
// summary, the text for the person not repeated, and a declined run
// headed "not completed" in its language, never "完了しました".
func TestFlowOutcomeBrowser(t *testing.T) {
	for _, tt := range []struct {
		name          string
		round         *FlowRound
		o             Outcome
		heading, lang string
		shown         []string
	}{
		{"created", &FlowRound{Status: FlowDone, Language: language.English},
			Outcome{Heading: "Account created", Summary: []string{"Email: ada@example.com", "Plan: Team", "Seats: 5"}, Text: "Created ada@example.com."},
			"Account created", "en", []string{"Account created", "Email: ada@example.com", "Plan: Team", "Seats: 5"}},
		{"declined ja", &FlowRound{Status: FlowDeclined, Language: language.Japanese},
			Outcome{Text: "Signup not completed: you declined."},
			viewTexts[catalog.Japanese].NotDone, "ja", []string{viewTexts[catalog.Japanese].NotDone}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.round.Outcome(&tt.o)
			require.NoError(t, err)
			run := runBrowserJob(t, res, browserJob{outcome: true,
				screenshot: filepath.Join("testdata", "artifacts", "outcome-author-"+tt.lang+".png")})
			assert.Empty(t, run.Errors, "the view logged errors")
			assert.Equal(t, tt.heading, run.Outcome.Heading)
			assert.Equal(t, tt.lang, run.Outcome.Lang)
			assert.Equal(t, tt.shown, splitLines(run.Outcome.Shown), "what the person sees")
			assert.NotContains(t, run.Outcome.Shown, "完了しました")
		})
	}
}

// TestFlowOutcomeAxe judges the new view states: the check round, and an
// outcome with the author's heading and summary.
func TestFlowOutcomeAxe(t *testing.T) {
	needNode(t)
	_, r := checkRoundView(t)
	check, _ := serveViewer(t, r.Result, false)
	res, err := (&FlowRound{Status: FlowDone}).Outcome(&Outcome{Heading: "Account created",
		Summary: []string{"Email: ada@example.com", "Plan: Team"}, Text: "Created."})
	require.NoError(t, err)
	created, _ := serveViewer(t, res, false)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			runAxe(t, scheme, []axeTarget{
				{Name: "flow-check-answers", URL: check.URL + "/", Frame: "#view", WaitFor: "." + prefab.ReviewClass},
				{Name: "outcome-author-heading", URL: created.URL + "/", Frame: "#view", WaitFor: "." + prefab.OutcomePanelClass},
			})
		})
	}
}

// splitLines returns s's non-empty lines, trimmed.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestFlowStartAgainBrowser shows, in Chromium with prefab's renderer, the
// view the companion gives Decline's result: headed "Not completed", with
// Start again, whose call, routed by the companion, begins a new run from
// the first step.
func TestFlowStartAgainBrowser(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	ctx := context.Background()
	first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	decline := argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, first), prefab.ActionArgument: prefab.DeclineAction})
	declined, err := flow.Next(ctx, decline)
	require.NoError(t, err)
	require.Equal(t, FlowDeclined, declined.Status)
	res, err := declined.Outcome(&Outcome{Text: "Signup not completed: you declined."})
	require.NoError(t, err)

	view := shownEnd(t, decline, res)
	run := runBrowserJob(t, map[string]any{"content": res.Content, "structuredContent": view}, browserJob{outcome: true,
		click: "Start again", screenshot: filepath.Join("testdata", "artifacts", "flow-start-again.png")})
	assert.Empty(t, run.Errors, "the view logged errors")
	assert.Equal(t, "Not completed", run.Outcome.Heading)
	require.Len(t, run.Calls, 1, "Start again calls the companion")
	call := run.Calls[0]
	route := companionMiddleware(ViewerURI)(listing(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		again, err := flow.Next(ctx, req.(*mcp.CallToolRequest))
		require.NoError(t, err)
		require.Equal(t, FlowAsk, again.Status)
		assert.Equal(t, "account", again.Step, "from the first step")
		assert.NotEqual(t, first.ID, again.ID, "a new run")
		return again.Result, nil
	}, attachedTool(t, "signup")))
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: call.Name, Arguments: call.Arguments, Meta: appsMeta()}}
	_, err = route(context.Background(), "tools/call", req)
	require.NoError(t, err)
}
