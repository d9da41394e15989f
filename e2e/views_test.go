package e2e_test

// What a person meets in the MCP Apps views (issue 23): the signup's and
// set_password's views, run in the real ext-apps AppBridge in Chromium
// (interop/apps-host.mjs), read as a screen reader reads them, and judged
// by axe-core in the host's light and dark themes.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// personView is one view as apps-host.mjs records it.
type personView struct {
	Names    []string          `json:"names"`
	Text     string            `json:"text"`
	Labels   map[string]string `json:"labels"`
	Controls []struct {
		Name, Value, Min, Max, Minlength, Maxlength, Invalid string
		Described                                            []string
	} `json:"controls"`
	Focus struct{ Class, Role, Text string } `json:"focus"`
	// The error summary's links, each with the name of the control its
	// href finds, and its h2.
	Summary        []struct{ Text, To string } `json:"summary"`
	SummaryHeading string                      `json:"summaryHeading"`
}

// control returns the control named name, and fails without one.
func (v personView) control(t *testing.T, name string) (c struct {
	Name, Value, Min, Max, Minlength, Maxlength, Invalid string
	Described                                            []string
}) {
	t.Helper()
	for _, c := range v.Controls {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no control %q in %+v", name, v.Controls)
	return
}

// personRun is what apps-host.mjs reports of a person's run.
type personRun struct {
	Views []personView `json:"views"`
	Final string       `json:"final"`
	Panel *struct {
		Heading, Role, Text string
		Focused             bool
	} `json:"panel"`
	OpenLinks    []struct{ URL string }       `json:"openLinks"`
	Copied       *struct{ Said, Role string } `json:"copied"`
	ModelContext []json.RawMessage            `json:"modelContext"`
	Axe          []struct {
		Name       string `json:"name"`
		Violations []struct {
			ID, Impact, Help string
			Nodes            []string
		} `json:"violations"`
	} `json:"axe"`
	Errors []string `json:"errors"`
}

// A personPlan is a tool and what the person does in each of its views.
type personPlan struct {
	name  string
	tool  string
	views [][]map[string]any
}

// The runs a person makes, each view state of both tools among them: each
// step empty and with problems, the secret step before and after its
// page was sent, the outcomes, and a decline.
var personPlans = []personPlan{
	{"signup", toolName, [][]map[string]any{
		{{"novalidate": true}, {"name": "email", "value": "ada@"}, {"name": "plan", "select": "team"}},
		{{"name": "email", "value": "ada@example.com"}, {"name": "full_name", "value": "Ada Lovelace"}, {"name": "plan", "select": "team"}},
		{{"novalidate": true}, {"name": "team_name", "value": "A"}, {"name": "seats", "value": "1"}},
		{{"name": "team_name", "value": "Analytical Engines"}, {"name": "seats", "value": "12"}},
	}},
	{"password", passwordTool, [][]map[string]any{
		{{"copy": true}, {"name": "email", "value": "ada@example.com"}},
		{{"link": true, "password": secret}},
	}},
	{"decline", toolName, [][]map[string]any{{{"decline": true}}}},
}

// runPerson runs plan in the Apps host against a new signup server, in
// theme, with axe-core judging every view when axe is set.
func runPerson(t *testing.T, plan personPlan, theme string, axe bool) personRun {
	t.Helper()
	h := newHostRun(t, signupBin(t), hostRow{revision: modern, kind: hostKind{apps: true}})
	p := map[string]any{"url": h.a, "tool": plan.tool, "chromium": testenv.Chromium(t), "pin": modern,
		"views": plan.views, "allow": []string{baseOf(h.a)}, "timeoutMs": 90000, "theme": theme}
	if axe {
		p["axe"] = plan.name
		if os.Getenv("CI") == "true" {
			dir, err := filepath.Abs(filepath.Join("..", "testdata", "artifacts", "a11y", "views-"+theme))
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			p["screenshots"] = dir
		}
	}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run personRun
	require.NoError(t, json.Unmarshal(out, &run))
	require.Len(t, run.Views, len(plan.views))
	assert.Empty(t, run.Errors, "the view's console")
	return run
}

// TestViewsInBrowser reads the signup's and set_password's views as a
// person with a screen reader meets them, through the real AppBridge: each
// field found by its label, what it says, its default and bounds, where
// the step stands, the error summary focused after a re-ask with each
// field marked, the secret page opened through the host, and the outcome's
// panel.
func TestViewsInBrowser(t *testing.T) {
	testenv.Node(t)
	signupBin(t)
	t.Run("signup", func(t *testing.T) {
		run := runPerson(t, personPlans[0], "light", false)
		first, reasked, team, teamAgain := run.Views[0], run.Views[1], run.Views[2], run.Views[3]
		assert.Equal(t, map[string]string{"Email": "email", "Full name (optional)": "full_name", "Plan": "plan"}, first.Labels)
		// Step 2 comes on the Team plan alone (issue 34): "up to", and a
		// submit that may create the account is no "Continue".
		assert.Contains(t, first.Text, "Step 1 of up to 2")
		assert.Contains(t, first.Text, "Submit")
		assert.NotContains(t, first.Text, "Continue")
		assert.Equal(t, []string{"One account per address; we send receipts here."}, first.control(t, "email").Described)
		assert.Equal(t, []string{"How we greet you.", "Up to 100 characters"}, first.control(t, "full_name").Described)
		assert.Equal(t, "100", first.control(t, "full_name").Maxlength)
		assert.Equal(t, "free", first.control(t, "plan").Value, "the default is filled in")
		assert.Contains(t, first.Text, "Team, $10 a seat a month", "the plans show their prices")
		assert.Empty(t, first.control(t, "email").Invalid)

		assert.Contains(t, reasked.Focus.Class, "mcpform-problems", "the error summary has the focus")
		assert.Equal(t, "alert", reasked.Focus.Role)
		assert.Contains(t, reasked.Focus.Text, "There is a problem")
		assert.Equal(t, "There is a problem", reasked.SummaryHeading, "the summary's title is an h2")
		assert.Equal(t, []struct{ Text, To string }{{"Email must be an email address, like name@example.com", "email"}}, reasked.Summary,
			"the summary's item links to its field's control")
		email := reasked.control(t, "email")
		assert.Equal(t, "true", email.Invalid)
		assert.Equal(t, "ada@", email.Value, "what was typed is kept")
		assert.Equal(t, []string{"One account per address; we send receipts here.", "Error: Email must be an email address, like name@example.com"}, email.Described)

		assert.Equal(t, map[string]string{"Team name": "team_name", "Seats": "seats"}, team.Labels)
		assert.Contains(t, team.Text, "Step 2 of 2")
		assert.Contains(t, team.Text, "Create account", "the last step's submit says what it does")
		seats := team.control(t, "seats")
		assert.Equal(t, "5", seats.Value, "the default is filled in")
		assert.Equal(t, []string{"2", "50"}, []string{seats.Min, seats.Max})
		assert.Equal(t, []string{"How many people will sign in.", "From 2 to 50"}, seats.Described)
		name := team.control(t, "team_name")
		assert.Equal(t, []string{"2", "60"}, []string{name.Minlength, name.Maxlength})

		assert.Contains(t, teamAgain.Focus.Class, "mcpform-problems")
		assert.Equal(t, "true", teamAgain.control(t, "seats").Invalid)
		assert.Contains(t, teamAgain.control(t, "seats").Described, "Error: Seats must be from 2 to 50")
		assert.Equal(t, "true", teamAgain.control(t, "team_name").Invalid)

		require.NotNil(t, run.Panel, "the outcome's panel")
		// The example's Outcome heads it for the person, with a summary
		// (issue 34, item 3); the sentence is the model's.
		assert.Equal(t, "Account created", run.Panel.Heading)
		assert.Equal(t, "status", run.Panel.Role)
		assert.True(t, run.Panel.Focused, "the panel has the focus")
		assert.Equal(t, createdShown, run.Panel.Text)
		assert.Equal(t, createdShown, run.Final)
	})
	t.Run("password", func(t *testing.T) {
		run := runPerson(t, personPlans[1], "light", false)
		first, waiting := run.Views[0], run.Views[1]
		assert.Equal(t, map[string]string{"Email": "email"}, first.Labels)
		for _, want := range []string{"1. Open the page and enter what it asks for: New password.", "Open the password page",
			"Copy the link instead", "2. Come back here", "I've set it – continue", "Decline"} {
			assert.Contains(t, first.Text, want)
		}
		assert.NotContains(t, first.Text, "?t=", "the page's token is never on screen")
		assert.NotContains(t, first.Text, "http", "nor is its link")
		assert.Contains(t, waiting.Focus.Class, "mcpform-problems")
		assert.Contains(t, waiting.Text, "Not set yet: New password. Open the page, fill it in and send it, then continue here.")
		require.NotNil(t, run.Copied, "the link was copied")
		assert.Equal(t, "Link copied. Paste it into your browser.", run.Copied.Said)
		assert.Equal(t, "status", run.Copied.Role)
		require.Len(t, run.OpenLinks, 1, "the host was asked to open the page")
		assert.Contains(t, run.OpenLinks[0].URL, "/secret?t=")
		// The server has no account for the email: an error result,
		// whose panel says so in its heading.
		require.NotNil(t, run.Panel)
		assert.Equal(t, "Not completed", run.Panel.Heading)
		assert.Equal(t, "Not completed\nNothing was changed.", run.Panel.Text)
	})
}

// TestViewsAxe is the views' accessibility gate: axe-core judges every
// view state of personPlans, in the host's light and dark themes, and a
// serious or critical violation fails. Under CI, screenshots of each
// state are kept under testdata/artifacts/a11y/views-THEME.
func TestViewsAxe(t *testing.T) {
	testenv.Node(t)
	signupBin(t)
	for _, theme := range []string{"light", "dark"} {
		for _, plan := range personPlans {
			t.Run(theme+"/"+plan.name, func(t *testing.T) {
				run := runPerson(t, plan, theme, true)
				require.Len(t, run.Axe, len(plan.views)+1, "axe judged each view and the outcome")
				for _, r := range run.Axe {
					for _, v := range r.Violations {
						if v.Impact == "serious" || v.Impact == "critical" {
							t.Errorf("%s (%s): %s %s: %s at %s", r.Name, theme, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, ", "))
						}
					}
				}
			})
		}
	}
}
