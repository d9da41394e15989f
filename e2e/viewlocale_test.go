package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// frenchWords are the author's own words in French, given through
// FlowOptions.Translate; mcpform's come from its catalog.
var frenchWords = map[string]string{
	"Create your account": "Créez votre compte", "Email": "Adresse e-mail", "Full name": "Nom complet", "Plan": "Formule",
	"Set up your team": "Configurez votre équipe", "Team name": "Nom de l'équipe", "Seats": "Places",
}

// localeServer serves a team signup with an MCP Apps view over
// Streamable HTTP, whose author translates their words into French, and
// returns the MCP endpoint's URL.
func localeServer(t *testing.T) string {
	t.Helper()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{[]byte(strings.Repeat("v", 32))}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
			{Name: "full_name", Label: "Full name"},
			{Name: "plan", Label: "Plan", Required: true, Options: []mcpform.Option{{Value: "free"}, {Value: "team"}}},
		}},
		{Key: "team", Message: "Set up your team", Fields: []mcpform.AutoFormField{
			{Name: "team_name", Label: "Team name", Required: true},
			{Name: "seats", Label: "Seats", Type: mcpform.TypeInteger, Required: true, Min: mcpform.Bound(2), Max: mcpform.Bound(50)},
		}, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &mcpform.FlowOptions{
		EveryCallerIsSamePerson: true,
		Translate: func(lang language.Tag, text string) string {
			if lang == language.French {
				return frenchWords[text]
			}
			return ""
		},
	})
	require.NoError(t, err)
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "locale", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	tool := &mcp.Tool{Name: toolName, InputSchema: flow.InputSchema(nil)}
	require.NoError(t, mcpform.AttachViewer(tool, nil))
	require.NoError(t, mcpform.AddViewer(server, nil))
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := flow.Next(ctx, req)
		if err != nil {
			return nil, err
		}
		if r.Status == mcpform.FlowAsk {
			return r.Result, nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String()}}, IsError: r.Status != mcpform.FlowDone}
		if r.Status == mcpform.FlowDone {
			res.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Compte créé pour l'équipe « %s ».", r.Answers["team_name"])}}
		}
		mcpform.ContentLanguage(res, r.Language)
		return res, nil
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestViewsInHostLocale: a host whose hostContext.locale is fr-FR, through
// the real AppBridge, calls the tool with no language of its own; the view
// asks for itself again in French (a render through the companion), and
// then every view is French: labels, "(facultatif)", the step, the
// buttons, the re-ask's summary and field problems, the outcome; the page
// says lang fr, the results carry contentLanguage fr, and axe-core finds
// no serious or critical violation in any of them.
func TestViewsInHostLocale(t *testing.T) {
	testenv.Node(t)
	url := localeServer(t)
	p := map[string]any{"url": url, "tool": toolName, "chromium": testenv.Chromium(t), "pin": modern, "locale": "fr-FR",
		"timeoutMs": 90000, "theme": "light", "axe": "locale-fr", "views": [][]map[string]any{
			{{"novalidate": true}, {"name": "email", "value": "ada@"}, {"name": "plan", "select": "team"}},
			{{"name": "email", "value": "ada@example.com"}, {"name": "plan", "select": "team"}},
			{{"name": "team_name", "value": "Moteurs analytiques"}, {"name": "seats", "value": "12"}},
		}}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run struct {
		personRun
		Views []struct {
			personView
			Lang string `json:"lang"`
		} `json:"views"`
		Calls []struct {
			Params struct {
				Name      string
				Arguments map[string]any
				Meta      map[string]any `json:"_meta"`
			}
			Result struct {
				Meta map[string]any `json:"_meta"`
			}
		} `json:"calls"`
	}
	require.NoError(t, json.Unmarshal(out, &run))
	require.Len(t, run.Views, 3)
	assert.Empty(t, run.Errors, "the view's console")
	require.Len(t, run.Axe, 4, "axe judged each view and the outcome")
	for _, r := range run.Axe {
		for _, v := range r.Violations {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: %s %s: %s at %s", r.Name, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, ", "))
			}
		}
	}

	first, reasked, team := run.Views[0], run.Views[1], run.Views[2]
	assert.Equal(t, "fr", first.Lang, "the page is announced in French")
	assert.Equal(t, map[string]string{"Adresse e-mail": "email", "Nom complet (facultatif)": "full_name", "Formule": "plan"}, first.Labels)
	for _, want := range []string{"Étape 1 sur 2 au plus", "Créez votre compte", "Envoyer", "Refuser"} {
		assert.Contains(t, first.Text, want)
	}
	for _, english := range []string{"Step ", "Decline", "(optional)", "Email"} {
		assert.NotContains(t, first.Text, english, "no English left")
	}

	assert.Contains(t, reasked.Focus.Class, "mcpform-problems", "the error summary has the focus")
	assert.Contains(t, reasked.Focus.Text, "Il y a un problème")
	assert.Contains(t, reasked.Focus.Text, "Adresse e-mail\u00a0: saisissez une adresse e-mail, par exemple nom@example.com")
	email := reasked.control(t, "email")
	assert.Equal(t, "true", email.Invalid)
	assert.Equal(t, []string{"Erreur\u00a0: Adresse e-mail\u00a0: saisissez une adresse e-mail, par exemple nom@example.com"}, email.Described)

	assert.Equal(t, "fr", team.Lang)
	assert.Equal(t, map[string]string{"Nom de l'équipe": "team_name", "Places": "seats"}, team.Labels)
	for _, want := range []string{"Étape 2 sur 2", "Configurez votre équipe", "Envoyer"} {
		assert.Contains(t, team.Text, want)
	}
	assert.Equal(t, []string{"De 2 à 50"}, team.control(t, "seats").Described)

	require.NotNil(t, run.Panel)
	assert.Equal(t, "Terminé", run.Panel.Heading)
	assert.Equal(t, "Compte créé pour l'équipe « Moteurs analytiques ».", run.Panel.Text)

	// The view's first call is the render, in the host's locale; every
	// result after it says it is French.
	require.GreaterOrEqual(t, len(run.Calls), 4)
	render := run.Calls[0].Params
	assert.Equal(t, "render", render.Arguments["mcpformAction"])
	assert.Equal(t, "fr-FR", render.Meta["io.modelcontextprotocol/acceptLanguage"])
	for i, c := range run.Calls {
		assert.Equal(t, "fr", c.Result.Meta["io.modelcontextprotocol/contentLanguage"], "call %d", i)
	}
}

// TestViewShownWhileRenderIsSlow: a host whose hostContext.locale is
// fr-FR holds the view's render in French for 3 s, as a slow network
// would. The view is hidden at most 500 ms after its tool result came
// (before it, there is no view to show), then shown in its call's
// language, English; the render, coming later while nothing was typed,
// replaces it with the French view.
func TestViewShownWhileRenderIsSlow(t *testing.T) {
	testenv.Node(t)
	url := localeServer(t)
	p := map[string]any{"url": url, "tool": toolName, "chromium": testenv.Chromium(t), "pin": modern, "locale": "fr-FR",
		"timeoutMs": 90000, "theme": "light", "renderDelayMs": 3000, "views": [][]map[string]any{
			{{"name": "email", "value": "ada@example.com"}, {"name": "plan", "select": "free"}},
		}}
	out, _ := runDriver(t, "apps-host.mjs", p)
	var run struct {
		personRun
		Views []struct {
			personView
			Lang string `json:"lang"`
		} `json:"views"`
		Paints []struct {
			Lang, Text string
			Ms         float64
		} `json:"paints"`
		VisibleMs *float64 `json:"visibleMs"`
		ResultMs  *float64 `json:"resultMs"`
	}
	require.NoError(t, json.Unmarshal(out, &run))
	assert.Empty(t, run.Errors, "the view's console")
	require.NotNil(t, run.VisibleMs, "the view was shown")
	require.NotNil(t, run.ResultMs, "the tool result came")
	// 500 ms, and the frames a busy machine takes to paint after it.
	assert.LessOrEqual(t, *run.VisibleMs-*run.ResultMs, 650.0,
		"the view is hidden at most 500 ms, though its render takes 3 s (result at %v ms, shown at %v ms)", *run.ResultMs, *run.VisibleMs)
	require.NotEmpty(t, run.Paints)
	assert.Equal(t, "en", run.Paints[0].Lang, "the view in its call's language, before the render came: %+v", run.Paints)
	assert.Contains(t, run.Paints[0].Text, "Create your account")
	last := run.Paints[len(run.Paints)-1]
	assert.Equal(t, "fr", last.Lang, "the late render replaced the view: %+v", run.Paints)
	assert.Contains(t, last.Text, "Créez votre compte")
	assert.GreaterOrEqual(t, last.Ms, 3000.0, "the render was held")
	require.Len(t, run.Views, 1)
	assert.Equal(t, "fr", run.Views[0].Lang)
}
