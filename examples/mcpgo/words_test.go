package main

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestOutcomeLanguage: an outcome in the round's language says so with
// contentLanguage on mcp-go too; an English one says nothing.
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
			res := result(o)
			assert.Equal(t, tt.text, res.Content[0].(mcp.TextContent).Text)
			var meta any
			if res.Meta != nil {
				meta = res.Meta.AdditionalFields["io.modelcontextprotocol/contentLanguage"]
			}
			assert.Equal(t, tt.meta, meta)
		})
	}
}
