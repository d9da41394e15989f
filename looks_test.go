package mcpform

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// looksTarget is one page for interop/looks.mjs to measure: Measure is
// the source of a function run in the page, or in its Frame.
type looksTarget struct {
	Name        string            `json:"name"`
	URL         string            `json:"url"`
	Width       int               `json:"width,omitempty"`
	ColorScheme string            `json:"colorScheme,omitempty"`
	Frame       string            `json:"frame,omitempty"`
	WaitFor     string            `json:"waitFor,omitempty"`
	Post        map[string]string `json:"post,omitempty"`
	Measure     string            `json:"measure"`
}

// runLooks measures targets in Chromium and returns what each measure
// returned, by target name, decoded into looks[name] (a pointer).
func runLooks(t *testing.T, targets []looksTarget, looks map[string]any) {
	t.Helper()
	in, err := json.Marshal(map[string]any{"chromium": needChromium(t), "targets": targets, "timeoutMs": 90000})
	require.NoError(t, err)
	var report struct {
		Results []struct {
			Name  string          `json:"name"`
			Looks json.RawMessage `json:"looks"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(runNode(t, "looks.mjs", in), &report))
	require.Len(t, report.Results, len(targets))
	for _, r := range report.Results {
		t.Logf("%s: %s", r.Name, r.Looks)
		require.NoError(t, json.Unmarshal(r.Looks, looks[r.Name]), r.Name)
	}
}

// viewLooks is what viewMeasure finds in a view.
type viewLooks struct {
	Mains        int       `json:"mains"`
	RootInMain   bool      `json:"rootInMain"`
	Width        float64   `json:"width"`
	HeadingLines int       `json:"headingLines"`
	Inputs       []float64 `json:"inputs"`
	Title        string    `json:"title"`
	Tokens       struct {
		Background, Foreground, Muted, Border string
	} `json:"tokens"`
	PageBackground, RootBackground, CardBackground, Text string
}

// viewMeasure measures a view in its frame: its main landmarks, its
// width, how many lines its heading takes, the widths of its text
// controls, its title, the form's colour tokens and what it paints.
const viewMeasure = `() => {
  const h1 = document.querySelector('h1'), app = document.querySelector('.pf-app-root');
  const style = (e) => getComputedStyle(e);
  const token = (name) => style(app).getPropertyValue(name).trim();
  return {
    mains: document.querySelectorAll('main, [role=main]').length,
    rootInMain: document.getElementById('root').closest('main') !== null,
    width: document.documentElement.clientWidth,
    headingLines: Math.round(h1.getBoundingClientRect().height / parseFloat(style(h1).lineHeight)),
    inputs: [...document.querySelectorAll('form input[type=text], form input[type=email], form input[type=number]')]
      .map((e) => e.getBoundingClientRect().width),
    title: document.title,
    tokens: { background: token('--background'), foreground: token('--foreground'),
      muted: token('--muted-foreground'), border: token('--border') },
    pageBackground: style(document.documentElement).backgroundColor,
    rootBackground: style(app).backgroundColor,
    cardBackground: style(document.querySelector('.pf-card')).backgroundColor,
    text: style(h1).color,
  };
}`

// TestViewerBrowserFitsHost checks issue 34, items 7 and 8, as Chromium
// draws a view of the signup example's second step: the view is in a main
// landmark and titled by its heading; on a 390 px phone the heading takes
// one line and the fields keep the frame's width but 16 px each side; and
// the host's style variables, given in hostContext.styles, are the form's
// colours, in a dark host too, where the view paints the host's background
// and no slab of its own.
func TestViewerBrowserFitsHost(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{{Key: "team", Message: "Tell us about your team", Fields: []AutoFormField{
		{Name: "team_name", Label: "Team name", Required: true},
		{Name: "billing_email", Label: "Billing email", Type: TypeEmail, Required: true},
	}}}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), directCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	require.IsType(t, &viewContent{}, r.Result.StructuredContent, "a view")
	srv, _ := serveViewer(t, r.Result, false)

	vars := map[string]string{"--color-background-primary": "#262624", "--color-text-primary": "#f5f4ef",
		"--color-text-secondary": "#c2c0b6", "--color-border-primary": "#4a4944"}
	styles, err := json.Marshal(vars)
	require.NoError(t, err)
	hosted := srv.URL + "/?theme=dark&styles=" + url.QueryEscape(string(styles))
	looks := map[string]any{"phone": &viewLooks{}, "desktop": &viewLooks{}, "hosted": &viewLooks{}}
	runLooks(t, []looksTarget{
		{Name: "phone", URL: srv.URL + "/", Width: 390, Frame: "#view", WaitFor: "form.pf-form", Measure: viewMeasure},
		{Name: "desktop", URL: srv.URL + "/", Width: 720, Frame: "#view", WaitFor: "form.pf-form", Measure: viewMeasure},
		{Name: "hosted", URL: hosted, Width: 720, ColorScheme: "dark", Frame: "#view", WaitFor: "form.pf-form", Measure: viewMeasure},
	}, looks)

	for name, l := range looks {
		l := l.(*viewLooks)
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, 1, l.Mains, "one main landmark")
			assert.True(t, l.RootInMain, "the view is in the main landmark")
			assert.Equal(t, "Tell us about your team", l.Title, "the frame's title is the view's heading")
			assert.Equal(t, 1, l.HeadingLines, "the heading takes one line")
			require.NotEmpty(t, l.Inputs)
			assert.Equal(t, "rgba(0, 0, 0, 0)", l.RootBackground, "the view's root paints no slab of its own")
		})
	}
	phone := looks["phone"].(*viewLooks)
	require.Equal(t, 390.0, phone.Width)
	for _, w := range phone.Inputs {
		assert.GreaterOrEqual(t, w, phone.Width-2*16-1, "a field on a phone keeps its width: %v of %v", w, phone.Width)
	}

	hostedLooks := looks["hosted"].(*viewLooks)
	assert.Equal(t, struct{ Background, Foreground, Muted, Border string }{
		vars["--color-background-primary"], vars["--color-text-primary"], vars["--color-text-secondary"], vars["--color-border-primary"],
	}, hostedLooks.Tokens, "the host's style variables are the form's tokens")
	assert.Equal(t, "rgb(38, 38, 36)", hostedLooks.PageBackground, "the view is on the host's background")
	assert.Contains(t, []string{"rgb(38, 38, 36)", "rgba(0, 0, 0, 0)"}, hostedLooks.CardBackground, "the card is on the host's background")
	assert.Equal(t, "rgb(245, 244, 239)", hostedLooks.Text, "the heading is in the host's text colour")
}

// pageLooks is what pageMeasure finds on the secret page.
type pageLooks struct {
	Mains              int     `json:"mains"`
	Width              float64 `json:"width"`
	HeadingLines       int     `json:"headingLines"`
	Input              float64 `json:"input"`
	HelpBeforeProblem  bool    `json:"helpBeforeProblem"`
	ProblemBeforeInput bool    `json:"problemBeforeInput"`
	DescribedBy        string  `json:"describedBy"`
	Stop               bool    `json:"stop"`
	Button, Default    struct {
		Background, Color, Border string
	}
}

// pageMeasure measures the secret page: its main landmarks, its width,
// its heading's lines, its input's width, where a problem stands, and its
// button's colours beside those of a button the page's style does not
// reach (in a shadow root): the browser's own.
const pageMeasure = `() => {
  const style = (e) => getComputedStyle(e);
  const colours = (b) => ({ background: style(b).backgroundColor, color: style(b).color, border: style(b).borderTopColor });
  const box = document.createElement('div');
  document.body.appendChild(box);
  const plain = colours(box.attachShadow({ mode: 'open' }).appendChild(document.createElement('button')));
  box.remove();
  const h1 = document.querySelector('h1'), input = document.querySelector('input[type=password]');
  const help = document.querySelector('.help'), problem = document.querySelector('.problem');
  const before = (a, b) => a !== null && b !== null && (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  return {
    mains: document.querySelectorAll('main, [role=main]').length,
    width: document.documentElement.clientWidth,
    headingLines: Math.round(h1.getBoundingClientRect().height / parseFloat(style(h1).lineHeight)),
    input: input === null ? 0 : input.getBoundingClientRect().width,
    helpBeforeProblem: before(help, problem), problemBeforeInput: before(problem, input),
    describedBy: input === null ? '' : input.getAttribute('aria-describedby') ?? '',
    stop: document.querySelector('input[name=a]') !== null,
    button: colours(document.querySelector('form button')), default: plain,
  };
}`

// TestSecretPageBrowserLooks checks issue 34, items 7 and 8, as Chromium
// draws the secret page on a 390 px phone, light and dark: one main
// landmark; the heading on one line; the input the page's width but 16 px
// each side; a problem between the hint and the input, which both still
// describe it; Send drawn as a primary button, not as the browser's; and,
// on a used link, the stop button drawn as a secondary one, unlike Send.
func TestSecretPageBrowserLooks(t *testing.T) {
	fx := newSecretFixtureOf(t, nil, Step{Key: "password", Message: "Set your password", Fields: []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
		{Name: "password", Label: "New password", Description: "8 to 64 characters.", Type: TypePassword,
			Required: true, Min: Bound(8), Max: Bound(64)},
	}}, nil)
	link := func() string {
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		return pageLink(t, r)
	}
	used := link()
	require.Equal(t, 200, send(t, used, "correct horse battery"))
	looks := map[string]any{}
	var targets []looksTarget
	for _, scheme := range []string{"light", "dark"} {
		looks["problem-"+scheme], looks["used-"+scheme] = &pageLooks{}, &pageLooks{}
		targets = append(targets,
			looksTarget{Name: "problem-" + scheme, URL: link(), Width: 390, ColorScheme: scheme,
				Post: map[string]string{"password": "short"}, Measure: pageMeasure},
			looksTarget{Name: "used-" + scheme, URL: used, Width: 390, ColorScheme: scheme, WaitFor: "form", Measure: pageMeasure})
	}
	runLooks(t, targets, looks)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			p, u := looks["problem-"+scheme].(*pageLooks), looks["used-"+scheme].(*pageLooks)
			for _, l := range []*pageLooks{p, u} {
				assert.Equal(t, 1, l.Mains, "one main landmark")
				assert.Equal(t, 1, l.HeadingLines, "the heading takes one line")
			}
			assert.GreaterOrEqual(t, p.Input, p.Width-2*16-1, "the input keeps the phone's width: %v of %v", p.Input, p.Width)
			assert.True(t, p.HelpBeforeProblem && p.ProblemBeforeInput, "the problem is between the hint and the input")
			assert.Equal(t, "f-0-help f-0-problem", p.DescribedBy)
			assert.NotEqual(t, p.Default, p.Button, "Send is drawn as the page's, not the browser's")
			assert.NotEqual(t, "rgba(0, 0, 0, 0)", p.Button.Background, "Send is filled: the primary action")
			require.True(t, u.Stop, "the used link's page has the stop button")
			assert.Equal(t, "rgba(0, 0, 0, 0)", u.Button.Background, "stop is drawn in outline: a secondary action")
			assert.NotEqual(t, p.Button, u.Button, "stop does not look like Send")
			assert.NotEqual(t, u.Default, u.Button, "stop is drawn as the page's, not the browser's")
		})
	}
}

// TestViewerHostStylesAxe checks issue 34, item 8, with axe-core: a view
// keeps no serious or critical finding in the host's light and dark
// themes, with the host's style variables and without, now that the
// view paints the host's colours and sits in a main landmark.
func TestViewerHostStylesAxe(t *testing.T) {
	needNode(t)
	_, codec, _ := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{{Key: "team", Message: "Tell us about your team", Fields: []AutoFormField{
		{Name: "team_name", Label: "Team name", Description: "As your invoices show it.", Required: true},
		{Name: "seats", Label: "Seats", Type: TypeInteger, Min: Bound(2), Max: Bound(50)},
	}}}, &FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), directCall(t, appsMeta(), "alice", "signup", nil))
	require.NoError(t, err)
	srv, _ := serveViewer(t, r.Result, false)
	hosts := map[string]map[string]string{
		"light": {"--color-background-primary": "#faf9f5", "--color-text-primary": "#141413",
			"--color-text-secondary": "#5e5d59", "--color-border-primary": "#d1cfc5"},
		"dark": {"--color-background-primary": "#262624", "--color-text-primary": "#f5f4ef",
			"--color-text-secondary": "#c2c0b6", "--color-border-primary": "#4a4944"},
	}
	for scheme, vars := range hosts {
		t.Run(scheme, func(t *testing.T) {
			styles, err := json.Marshal(vars)
			require.NoError(t, err)
			results := runAxe(t, scheme, []axeTarget{
				{Name: "view-" + scheme, URL: srv.URL + "/?theme=" + scheme, Frame: "#view", WaitFor: "form.pf-form"},
				{Name: "view-host-styles-" + scheme, URL: srv.URL + "/?theme=" + scheme + "&styles=" + url.QueryEscape(string(styles)),
					Frame: "#view", WaitFor: "form.pf-form"},
			})
			for _, r := range results {
				for _, v := range r.Violations {
					assert.NotEqual(t, "landmark-one-main", v.ID, "%s has a main landmark", r.Name)
					assert.NotEqual(t, "region", v.ID, "%s: all its content is in a landmark", r.Name)
				}
			}
		})
	}
}
