package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestOutcomeLanguage: an outcome in the round's language says so with
// contentLanguage on mcp-go too; an English one says nothing. The
// sentence for the model follows the person's heading (issue 34, item 3).
func TestOutcomeLanguage(t *testing.T) {
	tools := &accounts.Tools{}
	for _, tt := range []struct {
		lang language.Tag
		text string
		meta any
	}{
		{language.English, "Signup not completed: the form was cancelled before it was sent. Nothing was created.", nil},
		{language.German, "Registrierung nicht abgeschlossen: Das Formular wurde abgebrochen, bevor es gesendet wurde. Es wurde nichts angelegt.", "de"},
		{language.Spanish, "Registro no completado: el formulario se canceló antes de enviarse. No se creó nada.", "es"},
	} {
		t.Run(tt.lang.String(), func(t *testing.T) {
			o, ok := tools.SignupEnded(accounts.Round{Status: mcpform.FlowCancelled, Lang: tt.lang})
			require.True(t, ok)
			res, err := result(&mcpgo.FlowRound{Status: mcpform.FlowCancelled, Language: tt.lang}, o)
			require.NoError(t, err)
			require.Len(t, res.Content, 2)
			assert.Equal(t, tt.text, res.Content[1].(mcp.TextContent).Text)
			var meta any
			if res.Meta != nil {
				meta = res.Meta.AdditionalFields["io.modelcontextprotocol/contentLanguage"]
			}
			assert.Equal(t, tt.meta, meta)
		})
	}
}

// TestOutcomeHeading checks issue 34, item 3, on mcp-go's face: a created
// account is headed "Account created" in the person's language, with its
// email, plan and seats listed, and a declined set_password keeps
// mcpform's "Not completed"; the French and Japanese person reads none of
// the example's English words, and the model its sentence, second.
func TestOutcomeHeading(t *testing.T) {
	rec := accounts.Record{Email: "ada@example.com", Plan: "team", TeamName: "Engines", Seats: 3}
	tools := &accounts.Tools{}
	for _, tt := range []struct {
		lang   language.Tag
		person string // for a created account
	}{
		{language.French, "Compte créé\nAdresse e-mail\u00a0: ada@example.com\nFormule\u00a0: Équipe\nNom de l'équipe\u00a0: Engines\nPlaces\u00a0: 3"},
		{language.Japanese, "アカウントを作成しました\nメールアドレス：ada@example.com\nプラン：チーム\nチーム名：Engines\n席数：3"},
	} {
		t.Run(tt.lang.String(), func(t *testing.T) {
			declined, _ := tools.PasswordEnded(accounts.Round{Status: mcpform.FlowDeclined, Lang: tt.lang})
			for _, c := range []struct {
				round  *mcpgo.FlowRound
				o      accounts.Outcome
				person string
				end    string
			}{
				{&mcpgo.FlowRound{Status: mcpform.FlowDone, Language: tt.lang}, accounts.Created(tt.lang, &rec), tt.person, "completed"},
				{&mcpgo.FlowRound{Status: mcpform.FlowDeclined, Language: tt.lang}, declined, "", "not-completed"},
			} {
				res, err := result(c.round, c.o)
				require.NoError(t, err)
				require.Len(t, res.Content, 2)
				person := res.Content[0].(mcp.TextContent).Text
				if c.person == "" { // mcpform's heading, then the example's summary
					own, err := c.round.Outcome(&mcpform.Outcome{})
					require.NoError(t, err)
					c.person = own.Content[0].(mcp.TextContent).Text + "\n" + strings.Join(c.o.Summary, "\n")
				}
				assert.Equal(t, c.person, person)
				assert.Equal(t, c.o.Text, res.Content[1].(mcp.TextContent).Text)
				b, err := json.Marshal(res.StructuredContent)
				require.NoError(t, err)
				var data struct{ Status, MCPFormEnd string }
				require.NoError(t, json.Unmarshal(b, &data))
				assert.Equal(t, c.o.Data.Status, data.Status)
				assert.Equal(t, c.end, data.MCPFormEnd)
				for _, en := range accounts.English() {
					if accounts.Translate(tt.lang, en) != en && !strings.Contains(en, "%") {
						assert.NotContains(t, person, en, "English left for the person")
					}
				}
			}
		})
	}
}

// TestWordsEveryPath checks issue 34, item 1, on mcp-go's face: a French
// or Japanese person reads none of the example's English words, on any
// path: the native form (labels, descriptions, option labels, the step's
// message), the MCP Apps view (its heading, which also titles the
// viewer's frame), the secret page (its heading and field) and the
// outcome. The test reads every message the server sent the host, and
// the page as a browser in that language gets it. (The viewer's one
// title, "Sign up", is the server's resource's, in no language: the
// viewer shows no view before its language is known, and then titles the
// frame with the view's heading.)
func TestWordsEveryPath(t *testing.T) {
	s, _ := newDemoSignup(t)
	srv := newServer(s)
	for _, lang := range []language.Tag{language.French, language.Japanese} {
		for _, host := range []mcpformtest.Host{mcpformtest.CLI, mcpformtest.AppsOnly, mcpformtest.Full} {
			t.Run(lang.String()+"/"+host.Name, func(t *testing.T) {
				host.Language = lang.String()
				c := mcpformtest.Dial(t, mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
					stdio := server.NewStdioServer(srv)
					stdio.SetContextFunc(s.withPrincipal)
					return stdio.Listen(ctx, in, out)
				}), host)
				email := fmt.Sprintf("ada+%s-%d@example.com", lang, len(host.Name)) // one account each
				res := c.Call(context.Background(), toolName, nil,
					mcpformtest.Accept(map[string]any{"email": email, "full_name": "Ada", "plan": "team"}),
					mcpformtest.Accept(map[string]any{"team_name": "Analytical Engines", "seats": 12}))
				require.Nil(t, res.Err)
				require.Equal(t, "created", res.Status, "%+v", res.Rounds)
				var seen []string
				if host.URL { // set_password, whose page a browser in the person's language opens
					var page strings.Builder
					c.Pages = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						r.Header.Set("Accept-Language", lang.String())
						s.Page.ServeHTTP(teeWriter{w, &page}, r)
					})
					pw := c.Call(context.Background(), passwordTool, nil, mcpformtest.Answer{Values: map[string]any{"email": email},
						Secrets: map[string]string{"password": "correct horse battery staple"}})
					require.Nil(t, pw.Err)
					require.Equal(t, "updated", pw.Status, "%+v", pw.Rounds)
					assert.Contains(t, page.String(), "<h1>"+html.EscapeString(accounts.Translate(lang, "Set your password"))+"</h1>", "the page's heading")
					seen = append(seen, html.UnescapeString(page.String()))
				}
				for _, m := range c.Wire() {
					if strings.HasPrefix(m, "← ") {
						var v any // the message's strings, unescaped
						require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(m, "← ")), &v))
						b, _ := json.Marshal(v)
						seen = append(seen, strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b)))
					}
				}
				person := strings.Join(seen, "\n")
				assert.Contains(t, person, accounts.Translate(lang, "Tell us about your team"), "the step's message")
				for _, en := range accounts.English() {
					// A format's words are checked as filled in, in the
					// outcome's; the list separator is no word.
					if accounts.Translate(lang, en) != en && !strings.Contains(en, "%") && en != ", " {
						assert.NotContains(t, person, en, "English left on the %s path", host.Name)
					}
				}
			})
		}
	}
}

// teeWriter is an http.ResponseWriter that keeps a copy of the body.
type teeWriter struct {
	http.ResponseWriter
	body *strings.Builder
}

func (t teeWriter) Write(b []byte) (int, error) {
	t.body.Write(b)
	return t.ResponseWriter.Write(b)
}
