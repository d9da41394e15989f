package mcpform

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// checkPath answers a flow on one path: how a call carries a step's
// answers, and what the round that asks says to the person.
type checkPath struct {
	name   string
	answer func(t *testing.T, prev *FlowRound, step string, answers map[string]any) *mcp.CallToolRequest
	says   func(t *testing.T, r *FlowRound) string
}

// checkPaths are the native, view and model paths.
func checkPaths() []checkPath {
	inArgs := func(meta func() mcp.Meta, direct bool) func(t *testing.T, prev *FlowRound, step string, answers map[string]any) *mcp.CallToolRequest {
		return func(t *testing.T, prev *FlowRound, _ string, answers map[string]any) *mcp.CallToolRequest {
			args := map[string]any{}
			if prev != nil {
				args[StateArgument] = carried(t, prev)
			}
			for k, v := range answers {
				args[k] = v
			}
			if direct {
				return directCall(t, meta(), "alice", "signup", args)
			}
			return argsCall(t, meta(), "alice", "signup", args)
		}
	}
	return []checkPath{
		{
			name: "native",
			answer: func(t *testing.T, prev *FlowRound, step string, answers map[string]any) *mcp.CallToolRequest {
				if prev == nil {
					return call("signup", "", nil)
				}
				return call("signup", prev.Result.RequestState, map[string]any{step: answers})
			},
			says: func(t *testing.T, r *FlowRound) string {
				p := r.Result.InputRequests[asked(t, r)].(*mcp.ElicitParams)
				schema, err := json.Marshal(p.RequestedSchema) // the choices' titles
				require.NoError(t, err)
				return p.Message + "\n" + string(schema)
			},
		},
		{
			name:   "view",
			answer: inArgs(appsMeta, false),
			says: func(t *testing.T, r *FlowRound) string {
				return strings.Join(viewWords(t, r), "\n")
			},
		},
		{
			name:   "model",
			answer: inArgs(bareMeta, true),
			says: func(t *testing.T, r *FlowRound) string {
				return r.Result.Content[0].(*mcp.TextContent).Text
			},
		},
	}
}

// viewWords returns every text, heading and button label of a flow view
// but its outcome's, in order.
func viewWords(t *testing.T, r *FlowRound) []string {
	t.Helper()
	var w struct{ View json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	var says []string
	var walk func(n *prefab.Node, inOutcome bool)
	walk = func(n *prefab.Node, inOutcome bool) {
		if !inOutcome && n.Content != "" {
			says = append(says, n.Type+": "+n.Content)
		}
		if !inOutcome && n.Type == "Button" {
			says = append(says, "Button: "+n.Label)
		}
		for _, c := range n.Children {
			walk(c, inOutcome || n.Type == "If")
		}
	}
	var root prefab.Node
	require.NoError(t, json.Unmarshal(w.View, &root))
	walk(&root, false)
	return says
}

// TestFlowCheckAnswers: a flow with CheckAnswers ends, on every path,
// with a round that shows the answers; changing one asks its step again,
// filled, keeps the others, and checks again; only "keep" finishes.
func TestFlowCheckAnswers(t *testing.T) {
	for _, p := range checkPaths() {
		t.Run(p.name, func(t *testing.T) {
			_, codec, _ := newFlowFixture(t)
			flow, err := NewFlow(codec, []Step{accountStep, teamStep},
				&FlowOptions{Principal: tokenUser, AskModel: true, CheckAnswers: true, Commit: "Create account"})
			require.NoError(t, err)
			ctx := context.Background()
			next := func(prev *FlowRound, step string, answers map[string]any) *FlowRound {
				t.Helper()
				r, err := flow.Next(ctx, p.answer(t, prev, step, answers))
				require.NoError(t, err)
				return r
			}
			r := next(nil, "", nil)
			require.Equal(t, "account", r.Step)
			r = next(r, "account", map[string]any{"email": "ada@example.com", "plan": "team"})
			require.Equal(t, "team", r.Step)
			r = next(r, "team", map[string]any{"team_name": "Analytical", "seats": 5})
			require.Equal(t, FlowAsk, r.Status, "the check round comes before the flow ends")
			require.Equal(t, CheckStep, r.Step)
			says := p.says(t, r)
			for _, want := range []string{"Check your answers", "Create your account", "Email: ada@example.com", "Plan: team",
				"Set up your team", "Seats: 5", "Create account", "Change: Set up your team"} {
				assert.Contains(t, says, want)
			}

			r = next(r, CheckStep, map[string]any{checkField: checkChange + "account"})
			require.Equal(t, FlowAsk, r.Status)
			assert.Equal(t, "account", r.Step, "the step to change is asked again")
			assert.Equal(t, Answers{"email": "ada@example.com", "plan": "team"}, r.filled, "filled with its answers")
			assert.Equal(t, Answers{"team_name": "Analytical", "seats": 5.0}, r.Answers, "the other steps stay proven")

			r = next(r, "account", map[string]any{"email": "bob@example.com", "plan": "team"})
			require.Equal(t, CheckStep, r.Step, "the team step stays proven: straight to the check round")
			says = p.says(t, r)
			assert.Contains(t, says, "Email: bob@example.com")
			assert.NotContains(t, says, "ada@example.com")

			r = next(r, CheckStep, map[string]any{checkField: checkKeep})
			require.Equal(t, FlowDone, r.Status)
			assert.Equal(t, Answers{"email": "bob@example.com", "plan": "team", "team_name": "Analytical", "seats": 5.0}, r.Answers)
		})
	}
}

// TestFlowProgressAndButton: "Step 1 of 2" only when step 2 is sure to
// come; before a step that may be skipped, "of up to", and a submit that
// may finish the flow is not "Continue"; Commit names the submit of a step
// sure to be the last. The native message says the same: where the step
// stands, and, on a step whose accepting may finish a flow with a Commit,
// what accepting does.
func TestFlowProgressAndButton(t *testing.T) {
	always := teamStep
	always.When = nil
	for _, tt := range []struct {
		name       string
		steps      []Step
		opts       FlowOptions
		plan       string
		wantFirst  []string // the first step's view: progress, heading, buttons
		wantSecond []string // the second step's view, when it comes
		wantNative [2]string
	}{
		{name: "conditional", steps: []Step{accountStep, teamStep}, plan: "team",
			wantFirst:  []string{"Muted: Step 1 of up to 2", "Heading: Create your account", "Button: Submit", "Button: Decline"},
			wantSecond: []string{"Muted: Step 2 of 2", "Heading: Set up your team", "FieldDescription: At least 2 characters", "FieldDescription: From 2 to 50", "Button: Submit", "Button: Decline"},
			wantNative: [2]string{"Step 1 of up to 2\n\nCreate your account", "Step 2 of 2\n\nSet up your team"}},
		{name: "conditional with Commit", steps: []Step{accountStep, teamStep}, opts: FlowOptions{Commit: "Create account"}, plan: "team",
			wantFirst:  []string{"Muted: Step 1 of up to 2", "Heading: Create your account", "Button: Submit", "Button: Decline"},
			wantSecond: []string{"Muted: Step 2 of 2", "Heading: Set up your team", "FieldDescription: At least 2 characters", "FieldDescription: From 2 to 50", "Button: Create account", "Button: Decline"},
			wantNative: [2]string{"Step 1 of up to 2\n\nCreate your account\n\nDepending on your answers, this may be the last step. Accepting it then does this: Create account.",
				"Step 2 of 2\n\nSet up your team\n\nThis is the last step. Accepting it does this: Create account."}},
		{name: "always", steps: []Step{accountStep, always}, opts: FlowOptions{Commit: "Create account"}, plan: "pro",
			wantFirst:  []string{"Muted: Step 1 of 2", "Heading: Create your account", "Button: Continue", "Button: Decline"},
			wantSecond: []string{"Muted: Step 2 of 2", "Heading: Set up your team", "FieldDescription: At least 2 characters", "FieldDescription: From 2 to 50", "Button: Create account", "Button: Decline"},
			wantNative: [2]string{"Step 1 of 2\n\nCreate your account", "Step 2 of 2\n\nSet up your team\n\nThis is the last step. Accepting it does this: Create account."}},
		{name: "checked", steps: []Step{accountStep, teamStep}, opts: FlowOptions{Commit: "Create account", CheckAnswers: true}, plan: "team",
			wantFirst:  []string{"Muted: Step 1 of up to 2", "Heading: Create your account", "Button: Continue", "Button: Decline"},
			wantSecond: []string{"Muted: Step 2 of 2", "Heading: Set up your team", "FieldDescription: At least 2 characters", "FieldDescription: From 2 to 50", "Button: Continue", "Button: Decline"},
			wantNative: [2]string{"Step 1 of up to 2\n\nCreate your account", "Step 2 of 2\n\nSet up your team"}}, // the check round commits
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, codec, _ := newFlowFixture(t)
			opts := tt.opts
			opts.Principal = tokenUser
			flow, err := NewFlow(codec, tt.steps, &opts)
			require.NoError(t, err)
			ctx := context.Background()

			first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
			require.NoError(t, err)
			says, _ := viewSays(t, first)
			assert.Equal(t, tt.wantFirst, says)
			second, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup",
				map[string]any{StateArgument: carried(t, first), "email": "ada@example.com", "plan": tt.plan}))
			require.NoError(t, err)
			require.Equal(t, "team", second.Step)
			says, _ = viewSays(t, second)
			assert.Equal(t, tt.wantSecond, says)

			native, err := flow.Next(ctx, call("signup", "", nil))
			require.NoError(t, err)
			assert.Equal(t, tt.wantNative[0], native.Result.InputRequests["account"].(*mcp.ElicitParams).Message)
			native, err = flow.Next(ctx, call("signup", native.Result.RequestState, map[string]any{
				"account": map[string]any{"email": "ada@example.com", "plan": tt.plan}}))
			require.NoError(t, err)
			assert.Equal(t, tt.wantNative[1], native.Result.InputRequests["team"].(*mcp.ElicitParams).Message)
		})
	}
}

// TestFlowRoundOutcome: an Outcome's result is headed for the person apart
// from the model's sentence, and a run that did not complete is headed
// "Not completed" in its language, never "Finished" (完了しました).
func TestFlowRoundOutcome(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	ctx := context.Background()
	declined := func(accept string) *FlowRound {
		r, err := flow.Next(ctx, spanish(call("signup", "", nil), accept))
		require.NoError(t, err)
		r, err = flow.Next(ctx, call("signup", r.Result.RequestState, map[string]any{"account": "decline"}))
		require.NoError(t, err)
		require.Equal(t, FlowDeclined, r.Status)
		return r
	}
	type data struct {
		Status string `json:"status"`
	}
	for _, tt := range []struct {
		name        string
		round       *FlowRound
		o           Outcome
		wantContent []string
		wantData    map[string]any
		wantLang    any
	}{
		{name: "declined", round: declined("en"), o: Outcome{Text: "Signup not completed: you declined.", Data: data{"declined"}},
			wantContent: []string{"Not completed", "Signup not completed: you declined."},
			wantData:    map[string]any{"status": "declined", "mcpformHeading": "Not completed", "mcpformSummary": []any{}, "mcpformEnd": "not-completed"}},
		{name: "declined ja", round: declined("ja"), o: Outcome{Text: "Signup not completed."},
			wantContent: []string{"完了しませんでした", "Signup not completed."},
			wantData:    map[string]any{"mcpformHeading": "完了しませんでした", "mcpformSummary": []any{}, "mcpformEnd": "not-completed"},
			wantLang:    "ja"},
		{name: "done", round: &FlowRound{Status: FlowDone, Language: language.English},
			o:           Outcome{Heading: "Account created", Summary: []string{"Email: ada@example.com", "Plan: Team"}, Text: "Created ada@example.com."},
			wantContent: []string{"Account created\nEmail: ada@example.com\nPlan: Team", "Created ada@example.com."},
			wantData: map[string]any{"mcpformHeading": "Account created", "mcpformSummary": []any{"Email: ada@example.com", "Plan: Team"},
				"mcpformEnd": "completed"}},
		{name: "done, not completed", round: &FlowRound{Status: FlowDone, Language: language.English},
			o:           Outcome{Text: "ada@example.com is already registered.", NotCompleted: true},
			wantContent: []string{"Not completed", "ada@example.com is already registered."},
			wantData:    map[string]any{"mcpformHeading": "Not completed", "mcpformSummary": []any{}, "mcpformEnd": "not-completed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.round.Outcome(&tt.o)
			require.NoError(t, err)
			var content []string
			for _, c := range res.Content {
				content = append(content, c.(*mcp.TextContent).Text)
			}
			assert.Equal(t, tt.wantContent, content)
			assert.NotContains(t, strings.Join(content, " "), "完了しました")
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &got))
			assert.Equal(t, tt.wantData, got)
			assert.Equal(t, tt.wantLang, res.Meta[seam.MetaContentLanguage])
			assert.False(t, res.IsError)
		})
	}
	_, err := (&FlowRound{}).Outcome(&Outcome{Data: []int{1}})
	assert.Error(t, err, "data that is no object")
	_, err = (&FlowRound{}).Outcome(&Outcome{Data: json.RawMessage(`{"status":"a","status":"b"}`)})
	assert.ErrorContains(t, err, "says two things", "data with a key given twice")
	res, err := (&FlowRound{}).Outcome(&Outcome{Data: json.RawMessage(`{"z":1,"a":2}`)})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(wireJSON(t, res.StructuredContent), `{"z":1,"a":2,`), "the data's members first, in its order")
}

// shownEnd returns the view the companion gives res, the tool's last
// result of req, a view's submit that ended its flow: what the round gave
// the call's mark (seam.Call.EndView), as the middleware puts it in place
// of res's structuredContent.
func shownEnd(t *testing.T, req *mcp.CallToolRequest, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	view := companionMark(req).ended.Load()
	require.NotNil(t, view, "the round that ended the flow gave its view")
	shown, err := endedResult(res, *view)
	require.NoError(t, err)
	var w map[string]any
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, shown.StructuredContent)), &w))
	return w
}

// outcomeButtons returns the buttons of a view, by label, each with the
// arguments of its toolCall, which keeps its result as an outcome.
func outcomeButtons(t *testing.T, view any) map[string]map[string]any {
	t.Helper()
	found := map[string]map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if a, _ := m["onClick"].(map[string]any); m["type"] == "Button" && a != nil {
			assert.Equal(t, prefab.CompanionTool, a["tool"])
			assert.Equal(t, prefab.OutcomeKey, a["resultKey"], "its result replaces the outcome")
			found[m["label"].(string)], _ = a["arguments"].(map[string]any)
		}
		children, _ := m["children"].([]any)
		for _, c := range children {
			walk(c)
		}
	}
	walk(view)
	return found
}

// TestFlowDeclineStartsAgain: a declined run is headed "Not completed" in
// its language on the view and native paths; a step's view has no outcome
// in it, and the view of an outcome that did not complete, which the
// companion gives its result, offers Start again, which begins a new
// run, from the first step, in
// the language of the run it follows, which the view asked in, with
// nothing of the declined run's answers.
func TestFlowDeclineStartsAgain(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Commit: "Créer le compte"})
	require.NoError(t, err)
	ctx := context.Background()
	french := func(req *mcp.CallToolRequest) *mcp.CallToolRequest { return spanish(req, "fr-FR,fr;q=0.9") }
	heading := func(r *FlowRound) string {
		t.Helper()
		res, err := r.Outcome(&Outcome{Text: "Signup not completed."})
		require.NoError(t, err)
		return res.Content[0].(*mcp.TextContent).Text
	}

	t.Run("view", func(t *testing.T) {
		first, err := flow.Next(ctx, french(argsCall(t, appsMeta(), "alice", "signup", nil)))
		require.NoError(t, err)
		require.Equal(t, language.French, first.Language)
		state := carried(t, first)
		var step struct{ View any }
		require.NoError(t, json.Unmarshal([]byte(wireJSON(t, first.Result.StructuredContent)), &step))
		assert.NotContains(t, outcomeButtons(t, step.View), "Recommencer", "a step's view shows no outcome")
		req := argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: state, prefab.ActionArgument: prefab.DeclineAction})
		r, err := flow.Next(ctx, req)
		require.NoError(t, err)
		require.Equal(t, FlowDeclined, r.Status)
		assert.Equal(t, "Non abouti", heading(r), "declined: not completed, in the run's language")
		res, err := r.Outcome(&Outcome{Text: "Signup not completed."})
		require.NoError(t, err)
		ended := shownEnd(t, req, res)
		assert.JSONEq(t, wireJSON(t, res), wireJSON(t, ended["state"].(map[string]any)[prefab.OutcomeKey]), "the view shows the tool's result")
		assert.Contains(t, wireJSON(t, ended["view"]), `"cssClass":"pf-app-root mcpform-lang-fr"`, "in the run's language")
		buttons := outcomeButtons(t, ended["view"])
		assert.Equal(t, map[string]map[string]any{"Recommencer": {StateArgument: state, prefab.ActionArgument: prefab.RestartAction,
			prefab.ToolArgument: "signup"}}, buttons, "Start again, in the view's language, sends the view's state")

		// The host sends no language with the button's call: the new run
		// speaks the one it follows.
		again, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", buttons["Recommencer"]))
		require.NoError(t, err)
		require.Equal(t, FlowAsk, again.Status)
		assert.Equal(t, "account", again.Step, "from the first step")
		assert.NotEqual(t, first.ID, again.ID, "a new run")
		assert.Equal(t, PathNone, again.Path, "a new run, whose answers came by no path yet")
		assert.Equal(t, Answers{}, again.Answers)
		assert.Equal(t, language.French, again.Language)
		says, _ := viewSays(t, again)
		assert.Equal(t, []string{"Muted: Étape 1 sur 2 au plus", "Heading: Create your account", "Button: Envoyer", "Button: Refuser"}, says)

		// The new run goes on as any run does.
		next, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{
			StateArgument: carried(t, again), "email": "ada@example.com", "plan": "team"}))
		require.NoError(t, err)
		assert.Equal(t, "team", next.Step)
		assert.Equal(t, again.ID, next.ID)

		// Start again is a view's: the model, calling the tool itself
		// with the view's state, is refused, as for any view's state.
		_, err = flow.Next(ctx, directCall(t, appsMeta(), "alice", "signup", buttons["Recommencer"]))
		require.Error(t, err)
	})

	t.Run("native", func(t *testing.T) {
		first, err := flow.Next(ctx, french(call("signup", "", nil)))
		require.NoError(t, err)
		assert.Equal(t, "Étape 1 sur 2 au plus\n\nCreate your account\n\nSelon vos réponses, cette étape peut être la dernière. "+
			"L'accepter fera alors ceci\u00a0: Créer le compte.", first.Result.InputRequests["account"].(*mcp.ElicitParams).Message)
		r, err := flow.Next(ctx, call("signup", first.Result.RequestState, map[string]any{"account": "decline"}))
		require.NoError(t, err)
		require.Equal(t, FlowDeclined, r.Status)
		assert.Equal(t, "Non abouti", heading(r))
	})
}
