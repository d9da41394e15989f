package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
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
