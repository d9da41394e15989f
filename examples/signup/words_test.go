package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestOutcomeLanguage: an outcome in the round's language says so with
// contentLanguage; an English one says nothing. The sentence for the
// model follows the person's heading (issue 34, item 3).
func TestOutcomeLanguage(t *testing.T) {
	tools := &accounts.Tools{}
	for _, tt := range []struct {
		lang language.Tag
		text string
		meta any
	}{
		{language.English, "Signup not completed: you declined to give your account details. Nothing was created.", nil},
		{language.French, "Inscription non aboutie\u00a0: vous n'avez pas souhaité donner les informations de votre compte. Rien n'a été créé.", "fr"},
		{language.Japanese, "登録は完了していません。アカウント情報の入力を見送られたため、何も作成していません。", "ja"},
	} {
		t.Run(tt.lang.String(), func(t *testing.T) {
			round := &mcpform.FlowRound{Status: mcpform.FlowDeclined, Step: "account", Language: tt.lang}
			o, ok := tools.SignupEnded(accounts.Round{Status: round.Status, Step: round.Step, Lang: tt.lang})
			require.True(t, ok)
			res, err := result(round, o)
			require.NoError(t, err)
			require.Len(t, res.Content, 2)
			assert.Equal(t, tt.text, res.Content[1].(*mcp.TextContent).Text)
			assert.Equal(t, tt.meta, res.Meta["io.modelcontextprotocol/contentLanguage"])
		})
	}
}

// TestOutcomeHeading checks issue 34, item 3: a created account's result
// is headed "Account created" for the person, with its email, plan and
// seats at a glance, apart from the sentence for the model; a declined
// signup and a refused email keep mcpform's "Not completed". In French
// and Japanese, the person reads none of the example's English words.
func TestOutcomeHeading(t *testing.T) {
	team := accounts.Record{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "team", TeamName: "Analytical Engines", Seats: 12}
	tools := &accounts.Tools{}
	for _, tt := range []struct {
		name    string
		lang    language.Tag
		status  mcpform.FlowStatus
		outcome func(language.Tag) accounts.Outcome
		heading string
		summary []string
		done    bool
	}{
		{"created", language.English, mcpform.FlowDone, func(l language.Tag) accounts.Outcome { return accounts.Created(l, &team) },
			"Account created", []string{"Email: ada@example.com", "Full name: Ada Lovelace", "Plan: Team", "Team name: Analytical Engines", "Seats: 12"}, true},
		{"created", language.French, mcpform.FlowDone, func(l language.Tag) accounts.Outcome { return accounts.Created(l, &team) },
			"Compte créé", []string{"Adresse e-mail\u00a0: ada@example.com", "Nom complet\u00a0: Ada Lovelace", "Formule\u00a0: Équipe",
				"Nom de l'équipe\u00a0: Analytical Engines", "Places\u00a0: 12"}, true},
		{"created", language.Japanese, mcpform.FlowDone, func(l language.Tag) accounts.Outcome { return accounts.Created(l, &team) },
			"アカウントを作成しました", []string{"メールアドレス：ada@example.com", "氏名：Ada Lovelace", "プラン：チーム", "チーム名：Analytical Engines", "席数：12"}, true},
		{"declined", language.French, mcpform.FlowDeclined, func(l language.Tag) accounts.Outcome {
			o, _ := tools.SignupEnded(accounts.Round{Status: mcpform.FlowDeclined, Step: "team", Lang: l})
			return o
		}, "", []string{"Rien n'a été créé."}, false},
		{"declined", language.Japanese, mcpform.FlowDeclined, func(l language.Tag) accounts.Outcome {
			o, _ := tools.SignupEnded(accounts.Round{Status: mcpform.FlowDeclined, Step: "team", Lang: l})
			return o
		}, "", []string{"何も作成していません。"}, false},
		{"cancelled", language.Japanese, mcpform.FlowCancelled, func(l language.Tag) accounts.Outcome {
			o, _ := tools.SignupEnded(accounts.Round{Status: mcpform.FlowCancelled, Lang: l})
			return o
		}, "", []string{"何も作成していません。"}, false},
	} {
		t.Run(tt.name+"/"+tt.lang.String(), func(t *testing.T) {
			o := tt.outcome(tt.lang)
			round := &mcpform.FlowRound{Status: tt.status, Language: tt.lang}
			res, err := result(round, o)
			require.NoError(t, err)
			if tt.heading == "" { // mcpform's own "Not completed", in the round's language
				own, err := round.Outcome(&mcpform.Outcome{})
				require.NoError(t, err)
				tt.heading = own.Content[0].(*mcp.TextContent).Text
				finished, err := (&mcpform.FlowRound{Status: mcpform.FlowDone, Language: tt.lang}).Outcome(&mcpform.Outcome{})
				require.NoError(t, err)
				require.NotEqual(t, finished.Content[0], own.Content[0], "not completed is not finished")
			}
			require.Len(t, res.Content, 2)
			person := res.Content[0].(*mcp.TextContent).Text
			assert.Equal(t, strings.Join(append([]string{tt.heading}, tt.summary...), "\n"), person)
			assert.Equal(t, o.Text, res.Content[1].(*mcp.TextContent).Text, "the sentence for the model comes second")
			var data map[string]any
			require.NoError(t, json.Unmarshal(res.StructuredContent.(json.RawMessage), &data))
			assert.Equal(t, tt.heading, data["mcpformHeading"])
			assert.Equal(t, map[bool]string{true: "completed", false: "not-completed"}[tt.done], data["mcpformEnd"])
			assert.Equal(t, o.Data.Status, data["status"], "the example's own data is kept")
			if tt.lang != language.English {
				for _, en := range accounts.English() {
					if accounts.Translate(tt.lang, en) != en && !strings.Contains(en, "%") {
						assert.NotContains(t, person, en, "English left for the person")
					}
				}
			}
		})
	}
}
