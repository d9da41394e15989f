package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowView checks what prefab's renderer is given on the Apps path:
// the submit and the Decline button keep the tool's result and show no
// toast, each view clears the last outcome, a re-ask names the problem and
// keeps the good values, and the tool's last result, which is no view,
// comes back as a view of its outcome.
func TestFlowView(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	r, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	var w map[string]any
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	assert.Equal(t, map[string]any{prefab.OutcomeKey: nil}, w["state"], "a view clears the last outcome")
	state := carried(t, r)
	root := w["view"].(map[string]any)["children"].([]any)
	require.Len(t, root, 1, "a step's view is the step alone: its outcome comes as a view of its own")
	submit := findSubmit(t, root[0])
	assert.Equal(t, prefab.OutcomeKey, submit["resultKey"])
	assert.Nil(t, submit["onSuccess"], "a toast would show for an error too")
	assert.Equal(t, prefab.CompanionTool, submit["tool"], "a view submits to the app-only companion")
	assert.Equal(t, map[string]any{"email": "{{ email }}", "plan": "{{ plan }}", StateArgument: state, prefab.ToolArgument: "signup"}, submit["arguments"])
	assert.Equal(t, map[string]any{StateArgument: state}, w["arguments"])
	assert.Equal(t, map[string]any{"action": "toolCall", "tool": prefab.CompanionTool, "resultKey": prefab.OutcomeKey,
		"arguments": map[string]any{StateArgument: state, prefab.ActionArgument: prefab.DeclineAction, prefab.ToolArgument: "signup"},
		"onError":   map[string]any{"action": "showToast", "message": prefab.DefaultErrorMessage, "variant": "error"},
	}, findDecline(t, root[0]), "Decline sends the state and the action alone, and keeps the outcome")

	again, err := flow.Next(context.Background(), argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: state, "email": "ada", "plan": "pro"}))
	require.NoError(t, err)
	view := wireJSON(t, again.Result.StructuredContent)
	assert.Contains(t, view, `{"type":"Link","content":"Email must be an email address, like name@example.com","href":"#pf-input-email"}`,
		"the re-ask's summary says how to fix it, linked to the field")
	assert.Contains(t, view, `{"type":"Text","content":"Email must be an email address, like name@example.com"}`, "and so does the field")
	assert.Contains(t, view, `"name":"plan","value":"pro"`, "the good value is kept")
	assert.NotContains(t, view, `"value":"ada"`, "the refused value is not")

	state = carried(t, again)
	sc := "mcpformResult.structuredContent."
	panel := map[string]any{"type": "Column", "cssClass": "p-6 max-w-2xl gap-3 " + prefab.OutcomePanelClass, "children": []any{
		map[string]any{"type": "If", "condition": "{{ " + sc + "mcpformHeading }}", "children": []any{
			map[string]any{"type": "Heading", "content": "{{ " + sc + "mcpformHeading }}", "level": 1.0},
			map[string]any{"type": "ForEach", "expression": "{{ " + sc + "mcpformSummary }}", "children": []any{
				map[string]any{"type": "Text", "content": "{{ $item }}"}}},
			map[string]any{"type": "Text", "cssClass": "hidden " + prefab.OutcomeClass, "content": "{{ mcpformResult.content.0.text }}"}}},
		map[string]any{"type": "Else", "children": []any{
			map[string]any{"type": "If", "condition": "{{ mcpformResult.isError || mcpformResult.structuredContent.status == 'declined' || " +
				"mcpformResult.structuredContent.status == 'cancelled' || mcpformResult.structuredContent.mcpformEnd == 'not-completed' }}", "children": []any{
				map[string]any{"type": "Heading", "content": "Not completed", "level": 1.0}}},
			map[string]any{"type": "Else", "children": []any{map[string]any{"type": "Heading", "content": "Finished", "level": 1.0}}},
			map[string]any{"type": "Text", "cssClass": prefab.OutcomeClass, "content": "{{ mcpformResult.content.0.text }}"}}},
		map[string]any{"type": "If", "condition": prefab.OutcomeKey + ".content.1.text", "children": []any{
			map[string]any{"type": "Text", "cssClass": "hidden " + prefab.OutcomeModelClass, "content": "{{ mcpformResult.content.1.text }}"}}},
	}}
	startAgain := map[string]any{"type": "If", "condition": "{{ mcpformResult.isError || mcpformResult.structuredContent.status == 'declined' || " +
		"mcpformResult.structuredContent.status == 'cancelled' || mcpformResult.structuredContent.mcpformEnd == 'not-completed' }}", "children": []any{
		map[string]any{"type": "Row", "cssClass": "px-6 pb-6 max-w-2xl", "children": []any{
			map[string]any{"type": "Button", "label": "Start again", "variant": "outline", "size": "default", "onClick": map[string]any{
				"action": "toolCall", "tool": prefab.CompanionTool, "resultKey": prefab.OutcomeKey,
				"arguments": map[string]any{StateArgument: state, prefab.ActionArgument: prefab.RestartAction, prefab.ToolArgument: "signup"},
				"onError":   map[string]any{"action": "showToast", "message": prefab.DefaultErrorMessage, "variant": "error"}}}}}}}
	req := argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: state, prefab.ActionArgument: prefab.DeclineAction})
	declined, err := flow.Next(context.Background(), req)
	require.NoError(t, err)
	res, err := declined.Outcome(&Outcome{Text: "Signup not completed."})
	require.NoError(t, err)
	ended := shownEnd(t, req, res)
	assert.Equal(t, map[string]any{"type": "Div", "cssClass": "pf-app-root", "children": []any{panel, startAgain}}, ended["view"],
		"the outcome: a heading, \"Not completed\" for an error or a result declined or cancelled (issue 35), "+
			"the text for the person, and the text for the model, hidden; under one that did not complete, Start again (issue 34)")
}

// TestViewFix: each problem a view shows says how to fix it, in the words
// of viewText, for what the field asks; an author's own problem is said as
// written.
func TestViewFix(t *testing.T) {
	email := AutoFormField{Name: "email", Label: "Email", Type: TypeEmail, Required: true}
	seats := AutoFormField{Name: "seats", Label: "Seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50)}
	ratio := AutoFormField{Name: "ratio", Type: TypeNumber, Min: Bound(0.5)}
	team := AutoFormField{Name: "team_name", Label: "Team name", Min: Bound(2), Max: Bound(60)}
	plan := AutoFormField{Name: "plan", Label: "Plan", Options: []Option{{Value: "free"}}}
	tags := AutoFormField{Name: "tags", Label: "Tags", Multiple: true, Max: Bound(3), Options: []Option{{Value: "a"}, {Value: "b"}, {Value: "c"}, {Value: "d"}}}
	site := AutoFormField{Name: "site", Label: "Site", Type: TypeURI}
	day := AutoFormField{Name: "day", Label: "Day", Type: TypeDate}
	notes := AutoFormField{Name: "notes", Label: "Notes"}
	password := []AutoFormField{{Name: "password", Label: "New password", Type: TypePassword}}
	// invalid is the problem the checker finds with v in f, as a round
	// reads it: a reason of the catalogs.
	invalid := func(f *AutoFormField, v any) error {
		r := f.checkReason(v)
		require.NotNil(t, r, "%v in %s", v, f.Name)
		return fmt.Errorf("%w: %w", ErrInvalidValue, r)
	}
	for _, tt := range []struct {
		name string
		f    *AutoFormField
		err  error
		want string
	}{
		{"a bad email", &email, invalid(&email, "ada"), "Email must be an email address, like name@example.com"},
		{"an email of the wrong type", &email, invalid(&email, 42.0), "Email must be an email address, like name@example.com"},
		{"a missing email", &email, ErrMissing, "Enter a value for Email"},
		{"a whole number out of bounds", &seats, invalid(&seats, 1.0), "Seats must be from 2 to 50"},
		{"a whole number above its bounds", &seats, invalid(&seats, 51.0), "Seats must be from 2 to 50"},
		{"not a whole number", &seats, invalid(&seats, 2.5), "Seats must be a whole number"},
		{"not a number", &seats, invalid(&seats, "two"), "Seats must be a whole number"},
		{"a number below its bound", &ratio, invalid(&ratio, 0.25), "Ratio must be 0.5 or more"},
		{"a text too short", &team, invalid(&team, "A"), "Team name must be 2 to 60 characters"},
		{"a choice not offered", &plan, invalid(&plan, "gold"), "Choose one of the options for Plan"},
		{"a missing choice", &plan, ErrMissing, "Choose an option for Plan"},
		{"too many choices", &tags, invalid(&tags, []any{"a", "b", "c", "d"}), "Choose no more than 3 options for Tags"},
		{"a bad URI", &site, invalid(&site, "example"), "Site must be a web address, like https://example.com"},
		{"a bad date", &day, invalid(&day, "03/08/2026"), "Day must be a date, like 2026-08-03"},
		{"another rule", &notes, invalid(&notes, "a\x01b"), "Check Notes: a control character"},
		{"a changed question", &notes, fmt.Errorf("%w", ErrChanged), "Check Notes again: the questions changed"},
		{"the page not sent", nil, ErrSecretWaiting, "Not set yet: New password. Open the page, fill it in and send it, then continue here."},
		{"the page refused", nil, ErrSecretRefused, "The page's link was used in another browser, so it was refused. Open the page again from here."},
		{"the author's own", &notes, errors.New("that room is taken"), "Check Notes: that room is taken"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := ""
			if tt.f != nil {
				name = tt.f.Name
			}
			var f *prefab.Field
			if tt.f != nil {
				v := tt.f.viewField()
				f = &v
			}
			assert.Equal(t, tt.want, viewEnglish.fix(f, &FieldError{Field: name, Err: tt.err}, []prefab.Field{password[0].viewField()}))
		})
	}
}

// TestViewFieldBounds: a field says its bounds under its label, and
// carries them to its control as the attributes a browser enforces
// (internal/prefab's TestFieldBounds checks attrs on the same fields).
func TestViewFieldBounds(t *testing.T) {
	for _, tt := range []struct {
		f           AutoFormField
		hint, attrs string
	}{
		{AutoFormField{Name: "seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50)}, "From 2 to 50", " mcpform-attr-min=2 mcpform-attr-max=50"},
		{AutoFormField{Name: "ratio", Type: TypeNumber, Max: Bound(0.25)}, "0.25 or less", " mcpform-attr-max=0.25"},
		{AutoFormField{Name: "name", Max: Bound(100)}, "Up to 100 characters", " mcpform-attr-maxlength=100"},
		{AutoFormField{Name: "code", Min: Bound(4)}, "At least 4 characters", " mcpform-attr-minlength=4"},
		{AutoFormField{Name: "tags", Multiple: true, Min: Bound(1), Max: Bound(2), Options: []Option{{Value: "a"}}}, "Choose 1 to 2", ""},
		// A slider carries its own bounds.
		{AutoFormField{Name: "level", Type: TypeRange, Min: Bound(0), Max: Bound(1)}, "From 0 to 1", ""},
		{AutoFormField{Name: "plain"}, "", ""},
	} {
		t.Run(tt.f.Name, func(t *testing.T) {
			v := tt.f.viewField()
			assert.Equal(t, tt.hint, prefab.Hint(&v, viewEnglish.Text))
		})
	}
}

// viewSays returns what a flow view says to the person, walking its tree:
// the texts of its step, headings, buttons, descriptions and problems, in
// order, and its renderer state.
func viewSays(t *testing.T, r *FlowRound) ([]string, map[string]any) {
	t.Helper()
	var w struct {
		View  json.RawMessage
		State map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, r.Result.StructuredContent)), &w))
	var says []string
	var walk func(n *prefab.Node, inOutcome bool)
	walk = func(n *prefab.Node, inOutcome bool) {
		switch {
		case inOutcome:
		case n.Type == "Muted" || n.Type == "Heading" || n.Type == "AlertTitle" || n.Type == "AlertDescription" ||
			n.Type == "FieldDescription" || n.Type == "FieldError":
			says = append(says, n.Type+": "+n.Content)
		case n.Type == "Link":
			says = append(says, n.Type+" "+n.Href+": "+n.Content)
		case n.Type == "Span" && n.CSSClass == "pf-field-error":
			// The inline error: its hidden prefix, then the problem.
			said := ""
			for _, c := range n.Children {
				if c.Type == "Span" && c.CSSClass == prefab.HiddenClass {
					said += "[" + c.Children[0].Content + "]"
				} else {
					said += c.Content
				}
			}
			says = append(says, "FieldError: "+said)
			return
		case n.Type == "Button":
			says = append(says, n.Type+": "+n.Label)
		}
		for _, c := range n.Children {
			walk(c, inOutcome || n.Type == "If")
		}
	}
	var root prefab.Node
	require.NoError(t, json.Unmarshal(w.View, &root))
	walk(&root, false)
	return says, w.State
}

// TestFlowViewSteps: a flow's views say where each step stands, label
// their submit as the step asks, Continue before the last step and Submit
// on it, fill their defaults, and after a re-ask lead with the summary.
func TestFlowViewSteps(t *testing.T) {
	team := teamStep
	team.Fields = append([]AutoFormField(nil), team.Fields...)
	team.Fields[1].Default = 5
	team.Submit = "Create the team"
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, team}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	ctx := context.Background()

	first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	says, state := viewSays(t, first)
	assert.Equal(t, []string{"Muted: Step 1 of up to 2", "Heading: Create your account", "Button: Submit", "Button: Decline"}, says)
	assert.Equal(t, map[string]any{prefab.OutcomeKey: nil}, state)

	again, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, first), "email": "ada@", "plan": "team"}))
	require.NoError(t, err)
	says, state = viewSays(t, again)
	assert.Equal(t, []string{"Heading: There is a problem", "Link #pf-input-email: Email must be an email address, like name@example.com",
		"Muted: Step 1 of up to 2", "Heading: Create your account", "FieldError: [Error: ]Email must be an email address, like name@example.com",
		"Button: Submit", "Button: Decline"}, says)
	assert.Equal(t, map[string]any{prefab.OutcomeKey: nil, "plan": "team"}, state, "the accepted value is filled, the refused one left as typed")

	second, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, again), "email": "ada@example.com", "plan": "team"}))
	require.NoError(t, err)
	says, state = viewSays(t, second)
	assert.Equal(t, []string{"Muted: Step 2 of 2", "Heading: Set up your team", "FieldDescription: At least 2 characters",
		"FieldDescription: From 2 to 50", "Button: Create the team", "Button: Decline"}, says)
	assert.Equal(t, map[string]any{prefab.OutcomeKey: nil, "seats": 5.0}, state, "the default is filled")

	one, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser})
	require.NoError(t, err)
	only, err := one.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	says, _ = viewSays(t, only)
	assert.Equal(t, []string{"Heading: Create your account", "Button: Submit", "Button: Decline"}, says, "one step: no count, and Submit")
}

// BenchmarkFlowViewReask builds a re-ask's view, which names a problem and
// keeps a good value, and encodes it as go-sdk does. Together with
// BenchmarkFlowRound/apps, a first ask's view, it measures what a view
// costs to build.
func BenchmarkFlowViewReask(b *testing.B) {
	flow, _, _ := newFlowFixture(b)
	ctx := context.Background()
	first, err := flow.Next(ctx, argsCall(b, appsMeta(), "alice", "signup", nil))
	require.NoError(b, err)
	req := argsCall(b, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(b, first), "email": "ada@", "plan": "team"})
	b.ReportAllocs()
	for b.Loop() {
		r, err := flow.Next(ctx, req)
		if err != nil || r.Status != FlowAsk {
			b.Fatal(err, r)
		}
		if _, err := json.Marshal(r.Result); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFlowViewInLanguage: a flow asked in French shows its view in
// French, from the catalog: the step, buttons, summary and problems; its
// root says the language for the viewer, and the model reads French too.
func TestFlowViewInLanguage(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	ctx := context.Background()
	first, err := flow.Next(ctx, argsCall(t, withLang(appsMeta(), "fr-FR"), "alice", "signup", nil))
	require.NoError(t, err)
	says, _ := viewSays(t, first)
	assert.Equal(t, []string{"Muted: Étape 1 sur 2 au plus", "Heading: Create your account", "Button: Envoyer", "Button: Refuser"}, says)
	assert.Contains(t, wireJSON(t, first.Result.StructuredContent), `"cssClass":"pf-app-root mcpform-lang-fr"`)

	again, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, first), "email": "ada@", "plan": "team"}))
	require.NoError(t, err)
	says, _ = viewSays(t, again)
	assert.Equal(t, []string{"Heading: Il y a un problème", "Link #pf-input-email: Email\u00a0: saisissez une adresse e-mail, par exemple nom@example.com",
		"Muted: Étape 1 sur 2 au plus", "Heading: Create your account",
		"FieldError: [Erreur\u00a0: ]Email\u00a0: saisissez une adresse e-mail, par exemple nom@example.com", "Button: Envoyer", "Button: Refuser"}, says)
	text := again.Result.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "La personne voit le formulaire")
	assert.Contains(t, text, "Email\u00a0: saisissez une adresse e-mail", "the model reads the problems in French")
}

// TestViewText: every entry of each language's view text is set, from
// its catalog, and uses only the placeholders its view fills.
func TestViewText(t *testing.T) {
	known := map[string]bool{"{step}": true, "{total}": true, "{label}": true, "{reason}": true,
		"{min}": true, "{max}": true, "{fields}": true, "{what}": true, "{bounds}": true, "{form}": true, "{url}": true}
	for i, vt := range viewTexts {
		l := catalog.Lang(i)
		assert.Equal(t, l, vt.l)
		if l == catalog.English {
			assert.Empty(t, vt.Lang, "English, the viewer page's own, goes unmarked")
		} else {
			assert.Equal(t, l.Code(), vt.Lang)
		}
		v := reflect.ValueOf(*vt.Text)
		for i := range v.NumField() {
			name, f := v.Type().Field(i).Name, v.Field(i)
			if name == "Lang" {
				continue
			}
			if f.Kind() != reflect.String {
				continue
			}
			assert.NotEmpty(t, f.String(), "%s: %s", l.Code(), name)
			for _, p := range regexp.MustCompile(`\{[^}]*\}`).FindAllString(f.String(), -1) {
				assert.True(t, known[p], "%s: %s has the unknown placeholder %s", l.Code(), name, p)
			}
		}
	}
	assert.Equal(t, "Étape {step} sur {total}", viewTexts[catalog.French].StepOf)
}

// TestFlowViewRender: a view's render (prefab.RenderAction) asks the same step
// again in the language of its host, reading no answer: the same step and
// attempt, nothing proven, nothing filled; the state it mints pins the new
// language and is bound as before, to the view's channel and the same
// arguments and principal.
func TestFlowViewRender(t *testing.T) {
	ctx := context.Background()
	flow, _, _ := newFlowFixture(t)
	render := func(t *testing.T, meta mcp.Meta, principal string, args map[string]any) (*FlowRound, error) {
		a := map[string]any{prefab.ActionArgument: prefab.RenderAction}
		maps.Copy(a, args)
		return flow.Next(ctx, argsCall(t, withLang(meta, "fr-FR"), principal, "signup", a))
	}
	first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	require.Equal(t, "en", first.Language.String())

	t.Run("the same step, in French, unanswered", func(t *testing.T) {
		// Answers sent with a render are not read: a render cannot answer.
		r, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: carried(t, first), "email": "ada@example.com", "plan": "team"})
		require.NoError(t, err)
		assert.Equal(t, roundOutcome{Status: FlowAsk, Step: "account"}, outcomeOf(r, nil).without())
		assert.Equal(t, first.ID, r.ID)
		assert.Zero(t, r.Attempt)
		assert.Empty(t, r.Answers, "nothing proven")
		assert.Equal(t, "fr", r.Language.String())
		assert.Equal(t, "fr", r.Result.Meta[seam.MetaContentLanguage])
		says, state := viewSays(t, r)
		assert.Equal(t, []string{"Muted: Étape 1 sur 2 au plus", "Heading: Create your account", "Button: Envoyer", "Button: Refuser"}, says)
		assert.Equal(t, map[string]any{prefab.OutcomeKey: nil}, state, "nothing filled")

		// The next submit, with no language asked, keeps French: pinned.
		next, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, r), "email": "ada@", "plan": "team"}))
		require.NoError(t, err)
		assert.Equal(t, "fr", next.Language.String())
		assert.Equal(t, 1, next.Attempt, "a re-ask counts from the render's attempt")
		says, _ = viewSays(t, next)
		assert.Contains(t, says, "Heading: Il y a un problème")

		// A render of the re-ask keeps its attempt: it cannot reset it.
		again, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: carried(t, next)})
		require.NoError(t, err)
		assert.Equal(t, 1, again.Attempt)
		assert.Equal(t, "account", again.Step)
	})

	t.Run("the step after is not skipped to", func(t *testing.T) {
		r, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: carried(t, first)})
		require.NoError(t, err)
		// The render's state, sent with no answer, asks the first step still.
		r, err = flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, r)}))
		require.NoError(t, err)
		assert.Equal(t, "account", r.Step)
		assert.Empty(t, r.Answers)
	})

	t.Run("the binding holds", func(t *testing.T) {
		state := carried(t, first)
		for name, call := range map[string]func() (*FlowRound, error){
			"another principal": func() (*FlowRound, error) {
				return render(t, appsMeta(), "mallory", map[string]any{StateArgument: state})
			},
			"other arguments": func() (*FlowRound, error) {
				return render(t, appsMeta(), "alice", map[string]any{StateArgument: state, "account_id": "42"})
			},
			"not through the view": func() (*FlowRound, error) {
				return flow.Next(ctx, directCall(t, withLang(appsMeta(), "fr"), "alice", "signup",
					map[string]any{StateArgument: state, prefab.ActionArgument: prefab.RenderAction}))
			},
		} {
			_, err := call()
			assert.Equal(t, roundOutcome{Code: -32602}, outcomeOf(nil, err).without(), name)
		}
		// The render's own state verifies on the view's channel alone.
		r, err := render(t, appsMeta(), "alice", map[string]any{StateArgument: state})
		require.NoError(t, err)
		_, err = flow.Next(ctx, directCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, r), "email": "ada@example.com", "plan": "pro"}))
		assert.Equal(t, roundOutcome{Code: -32602}, outcomeOf(nil, err).without())
	})
}

// TestFlowRenderOnlyFromAView: prefab.RenderAction on the model's path is an
// unknown action, refused and counted as before, and the language stays
// pinned.
func TestFlowRenderOnlyFromAView(t *testing.T) {
	ctx := context.Background()
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	first, err := flow.Next(ctx, argsCall(t, bareMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	r, err := flow.Next(ctx, argsCall(t, withLang(bareMeta(), "fr"), "alice", "signup",
		map[string]any{StateArgument: carried(t, first), prefab.ActionArgument: prefab.RenderAction, "email": "ada@example.com", "plan": "pro"}))
	require.NoError(t, err)
	assert.Equal(t, 1, r.Attempt, "a re-ask, counted")
	require.Len(t, r.Problems, 1)
	assert.ErrorIs(t, r.Problems[0].Err, errArgumentAction)
	assert.Equal(t, "en", r.Language.String(), "the pinned language")

	for _, a := range []callArgs{{acted: true, action: prefab.RenderAction}, {view: true, acted: true, action: "Render"}, {view: true, acted: true, action: 1.0}} {
		st, p, ok := a.declined()
		assert.Equal(t, ReplyInvalid, st, "%+v", a)
		assert.True(t, ok)
		assert.Len(t, p, 1)
	}
	st, p, ok := (&callArgs{view: true, acted: true, action: prefab.RenderAction}).declined()
	assert.Equal(t, []any{ReplyNone, 0, true}, []any{st, len(p), ok})
}

// without is o without the run's ID.
func (o roundOutcome) without() roundOutcome { o.id = ""; return o }

// TestPageWordsNameTheThing checks issue 34, item 7, in every language:
// the secret step never splices a field's label into a sentence, where a
// title-cased label reads wrong ("enter your New password there"), but
// lists it after a colon; and the waiting text says what has not been set,
// not that "the page" has not been sent.
func TestPageWordsNameTheThing(t *testing.T) {
	secrets := []prefab.Field{{Name: "password", Title: "New password", InputType: "password"}}
	midSentence := regexp.MustCompile(`\p{Ll}[ \x{a0}]New password|New password[ \x{a0}]\p{Ll}`)
	for l := range catalog.NumLangs {
		t.Run(l.Code(), func(t *testing.T) {
			v := viewTexts[l]
			step := catalog.Fill(v.PageStep, "fields", prefab.Titles(secrets, v.ListSep))
			waiting := v.fix(nil, &FieldError{Err: ErrSecretWaiting}, secrets)
			for _, said := range []string{step, waiting} {
				assert.Contains(t, said, "New password")
				assert.NotRegexp(t, midSentence, said, "the label is spliced into a sentence")
			}
			first := strings.SplitN(waiting, "New password", 2)[0]
			assert.NotEqual(t, first, waiting)
			for _, page := range []string{"page", "página", "Seite", "ページ"} {
				assert.NotContains(t, first, page, "the waiting text names what is not set, before the page")
			}
		})
	}
}

// TestEndedViewLeavesAView: a view's submit that ends the flow gets the
// view of the tool's result, unless that result holds a view already, as
// one a handler builds with DisplayForm, which reaches the view as it is.
func TestEndedViewLeavesAView(t *testing.T) {
	flow, _, _ := newFlowFixture(t)
	ctx := context.Background()
	first, err := flow.Next(ctx, argsCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	req := argsCall(t, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(t, first), prefab.ActionArgument: prefab.DeclineAction})
	r, err := flow.Next(ctx, req)
	require.NoError(t, err)
	require.Equal(t, FlowDeclined, r.Status)
	view := companionMark(req).ended.Load()
	require.NotNil(t, view, "the round that ended the flow gave its view")

	shown, err := DisplayForm([]AutoFormField{{Name: "note", Label: "Note"}}, "note", nil)
	require.NoError(t, err)
	got, err := endedResult(shown, *view)
	require.NoError(t, err)
	assert.Same(t, shown, got, "a result that holds a view is shown as it is")

	plain := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Not created."}}}
	got, err = endedResult(plain, *view)
	require.NoError(t, err)
	assert.Contains(t, wireJSON(t, got.StructuredContent), prefab.OutcomePanelClass, "any other is shown as an outcome")
}
