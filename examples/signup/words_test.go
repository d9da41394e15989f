package main

import (
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestOutcomeLanguage: an outcome in the round's language says so with
// contentLanguage; an English one says nothing.
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
			o, ok := tools.SignupEnded(accounts.Round{Status: mcpform.FlowDeclined, Step: "account", Lang: tt.lang})
			require.True(t, ok)
			res := result(o)
			assert.Equal(t, tt.text, res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, tt.meta, res.Meta["io.modelcontextprotocol/contentLanguage"])
		})
	}
}
