package e2e_test

import (
	"bytes"
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

// spanishWords are the author's own words in Spanish, given through
// FlowOptions.Translate; mcpform's come from its catalog.
var spanishWords = map[string]string{
	"Create your account": "Crea tu cuenta", "Email": "Correo electrónico", "Password": "Contraseña",
	"Set up your team": "Configura tu equipo", "Team name": "Nombre del equipo", "Seats": "Plazas",
}

// languageServer serves a team signup over Streamable HTTP (stateless,
// for 2026-07-28), with its secret page at /secret, and returns the MCP
// endpoint's URL and the answers the finished flow proved.
func languageServer(t *testing.T) (string, chan mcpform.Answers) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{[]byte(strings.Repeat("k", 32))}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
			{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "free"}, {Value: "team"}}},
			{Name: "password", Label: "Password", Type: mcpform.TypePassword, Required: true, Min: mcpform.Bound(8)},
		}},
		{Key: "team", Message: "Set up your team", Fields: []mcpform.AutoFormField{
			{Name: "team_name", Label: "Team name", Required: true},
			{Name: "seats", Label: "Seats", Type: mcpform.TypeInteger, Required: true, Min: mcpform.Bound(2), Max: mcpform.Bound(50)},
		}, When: func(proven mcpform.Answers) bool { return proven["plan"] == "team" }},
	}, &mcpform.FlowOptions{
		EveryCallerIsSamePerson: true,
		Secrets:                 &mcpform.SecretOptions{PageURL: srv.URL + "/secret", Store: mcpform.NewMemorySecretStore()},
		Translate: func(lang language.Tag, text string) string {
			if lang == language.Spanish {
				return spanishWords[text]
			}
			return ""
		},
	})
	require.NoError(t, err)
	page, err := flow.SecretPage(&mcpform.SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)
	mux.Handle("/secret", page)

	done := make(chan mcpform.Answers, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "language", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: toolName, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := flow.Next(ctx, req)
			if err != nil {
				return nil, err
			}
			if r.Status == mcpform.FlowAsk {
				return r.Result, nil
			}
			if r.Status != mcpform.FlowDone {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String()}}}, nil
			}
			done <- r.Answers
			// The handler writes its own result in the flow's language.
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: fmt.Sprintf("Cuenta creada para el equipo «%s».", r.Answers["team_name"])}}}
			mcpform.ContentLanguage(res, r.Language)
			return res, nil
		})
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	return srv.URL + "/mcp", done
}

// A tsLanguageTranscript is what interop/language-client.mjs reports.
type tsLanguageTranscript struct {
	ProtocolVersion string `json:"protocolVersion"`
	Error           *tsError
	Result          struct {
		Meta    map[string]any `json:"_meta"`
		IsError bool           `json:"isError"`
		Content []struct{ Text string }
	}
	Asked []struct {
		Key, Mode, Message, URL string
		Titles                  []string
	}
	Page *struct {
		Lang, Title, Heading, Intro, Label, Button, ProblemTitle, Problem, Done string
	}
	Wire []json.RawMessage
}

// TestInteropTSSpanishTeamSignup runs a team signup with the official
// TypeScript client, which sends SEP-2792's acceptLanguage "es-ES" on its
// call, and a Chromium whose locale is es-ES for the secret page. The
// form, the re-ask's problems and the page are in Spanish, and the result
// says contentLanguage es. (The client sends its language on every round;
// that the state pins the first round's is TestFlowSpeaksThePersonsLanguage's.)
func TestInteropTSSpanishTeamSignup(t *testing.T) {
	browser := testenv.Chromium(t)
	url, done := languageServer(t)
	const password = "correct horse battery"
	out, _ := runDriver(t, "language-client.mjs", map[string]any{
		"url": url, "pin": tsModern, "acceptLanguage": "es-ES,es;q=0.9,en;q=0.5", "locale": "es-ES",
		"chromium": browser, "short": "corta", "password": password,
		"account": map[string]any{"email": "ada@example.com", "plan": "team"},
		"team":    []map[string]any{{"team_name": "Analytical", "seats": 500}, {"team_name": "Analytical", "seats": 5}},
	})
	var tr tsLanguageTranscript
	require.NoError(t, json.Unmarshal(out, &tr))
	require.Nil(t, tr.Error)
	assert.Equal(t, tsModern, tr.ProtocolVersion)

	require.False(t, tr.Result.IsError, "result: %+v", tr.Result)
	assert.Equal(t, "es", tr.Result.Meta["io.modelcontextprotocol/contentLanguage"])
	require.Len(t, tr.Result.Content, 1)
	assert.Equal(t, "Cuenta creada para el equipo «Analytical».", tr.Result.Content[0].Text)
	calls, withLang := 0, 0
	for _, raw := range tr.Wire {
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, raw))
		if m := b.String(); strings.Contains(m, `"dir":"out"`) && strings.Contains(m, `"tools/call"`) {
			calls++
			if strings.Contains(m, `"io.modelcontextprotocol/acceptLanguage":"es-ES,es;q=0.9,en;q=0.5"`) {
				withLang++
			}
		}
	}
	t.Logf("%d tools/call requests, %d with acceptLanguage", calls, withLang)
	assert.Equal(t, 4, calls, "four rounds: account, team, its re-ask, done")
	assert.Equal(t, calls, withLang, "the client sends its language on every round")
	answers := <-done
	assert.Equal(t, password, answers["password"], "the page's secret reached the flow")

	type ask struct {
		Mode, Message string
		Titles        []string
	}
	var asked []ask
	for _, a := range tr.Asked {
		asked = append(asked, ask{a.Mode, a.Message, a.Titles})
	}
	assert.Equal(t, []ask{
		{"form", "Paso 1 de 2 como máximo\n\nCrea tu cuenta", []string{"Correo electrónico", "Plan"}},
		{"url", "La página que abre este enlace te pide: Contraseña. Lo que escribas allí va directamente al servidor, nunca a través de esta aplicación.", []string{}},
		{"form", "Paso 2 de 2\n\nConfigura tu equipo", []string{"Nombre del equipo", "Plazas"}},
		{"form", "Paso 2 de 2\n\nConfigura tu equipo\n\nPlazas: escribe un valor de 2 a 50.", []string{"Nombre del equipo", "Plazas"}},
	}, asked)

	require.NotNil(t, tr.Page)
	p := *tr.Page
	assert.Equal(t, "es", p.Lang)
	assert.Equal(t, "Crea tu cuenta", p.Title)
	assert.Equal(t, "Crea tu cuenta", p.Heading)
	assert.Equal(t, "Lo que escribas aquí va directamente al servidor, nunca a través de tu aplicación ni de su asistente.", p.Intro)
	assert.Equal(t, "Contraseña", p.Label)
	assert.Equal(t, "Enviar", p.Button)
	assert.Equal(t, "Error: Crea tu cuenta", p.ProblemTitle)
	assert.Equal(t, "Contraseña: escribe al menos 8 caracteres.", p.Problem)
	assert.Equal(t, "Listo", p.Done)
}
