package main

import (
	"strings"
	"testing"

	"github.com/mcpform/mcpform/examples/internal/accounts"
	"github.com/mcpform/mcpform/examples/internal/terminal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestDemoSpeaksLANG checks issue 34, item 9, on mcp-go's face, as
// examples/signup's test of the same name does on go-sdk's: run with
// LANG set, the demo speaks the locale's language, and so do the
// server's questions, its re-ask, the secret page and the outcomes, which
// the client asks in that language; none of the demo's English, nor the
// example's, is left. A refused email is offered back; a secret typed on
// the page, refused or taken, never shows, not even as its length.
func TestDemoSpeaksLANG(t *testing.T) {
	const refused, good = "tiny-secret", "correct horse battery staple"
	for _, tt := range []struct {
		lang language.Tag
		env  string
		want []string
	}{
		{language.French, "fr_FR.UTF-8", []string{
			"Démo d'inscription mcpform\u00a0: un client mcp-go appelle «\u00a0signup\u00a0», puis «\u00a0set_password\u00a0».",
			"Répondez à chaque question.", "Adresse e-mail (obligatoire\u00a0; une adresse e-mail)",
			"Adresse e-mail\u00a0: saisissez une adresse e-mail, par exemple nom@example.com.", "[ada@example..com] > ada@example.com",
			"Compte créé\nAdresse e-mail\u00a0: ada@example.com\nFormule\u00a0: Pro",
			"La page dit\u00a0: Nouveau mot de passe\u00a0: saisissez de 12 à 128 caractères.", "(sur la page)", "> (masqué)",
			"Mot de passe défini\nAdresse e-mail\u00a0: ada@example.com\n\nMot de passe défini pour ada@example.com.",
		}},
		{language.Japanese, "ja_JP.UTF-8", []string{
			"mcpform 登録デモ：mcp-go クライアントが 「signup」、続いて「set_password」 を呼び出します。",
			"各質問に答えてください。", "メールアドレス（必須、メールアドレス）", "[ada@example..com] > ada@example.com",
			"アカウントを作成しました\nメールアドレス：ada@example.com\nプラン：Pro",
			"（ページ上）", "> （非表示）",
			"パスワードを設定しました\nメールアドレス：ada@example.com\n\nada@example.com のパスワードを設定しました。",
		}},
	} {
		t.Run(tt.lang.String(), func(t *testing.T) {
			t.Setenv("LC_ALL", "")
			t.Setenv("LC_MESSAGES", "")
			t.Setenv("LANG", tt.env)
			s, _ := newDemoSignup(t)
			var out strings.Builder
			input := "ada@example..com\n\npro\nada@example.com\n\n\nada@example.com\n" + refused + "\n" + good + "\n"
			require.NoError(t, runDemo(demoContext(t), s, newServer(s), strings.NewReader(input), &out, terminal.Options{}, passwordTool))
			screen := out.String()
			for _, want := range tt.want {
				assert.Contains(t, screen, want)
			}
			for _, english := range []string{"Answer each question", "required", "optional", "Please check", "The page says", "(on the page)",
				"The demo plays", "(hidden)", "Not completed", "Account created"} {
				assert.NotContains(t, screen, english, "the demo's English left in:\n%s", screen)
			}
			for _, en := range accounts.English() {
				if accounts.Translate(tt.lang, en) != en && !strings.Contains(en, "%") {
					assert.NotContains(t, screen, en, "the example's English left in:\n%s", screen)
				}
			}
			for _, secret := range []string{refused, good, "•"} {
				assert.NotContains(t, screen, secret, "a secret shows in:\n%s", screen)
			}
		})
	}
}

// TestDemoProblemWords: on mcp-go's face too, the terminal prints a
// refused answer's problem as one sentence that names the field and the
// fix, in the person's language, with no validator's words; a whole
// number out of its bounds is told its bounds, not that it must be whole,
// and the value is offered back for editing.
func TestDemoProblemWords(t *testing.T) {
	for _, tt := range []struct {
		lang, seats, want string
	}{
		{"en", "1", "Seats must be from 2 to 50."},
		{"en", "2.5", "Seats must be a whole number."},
		{"fr", "1", "Places\u00a0: saisissez une valeur de 2 à 50."},
		{"ja", "51", "席数には2～50の値を入力してください。"},
	} {
		t.Run(tt.lang+"/"+tt.seats, func(t *testing.T) {
			s, _ := newDemoSignup(t)
			var out strings.Builder
			input := "ada@example.com\n\nteam\nAnalytical Engines\n" + tt.seats + "\n\n12\n"
			_, err := demo(demoContext(t), s, newServer(s), strings.NewReader(input), &out, terminal.Options{Lang: tt.lang})
			require.NoError(t, err)
			screen := out.String()
			assert.Contains(t, screen, "\n\n  "+tt.want+"\n", "the terminal prints the re-ask")
			assert.Contains(t, screen, "["+tt.seats+"] > 12\n", "the refused value is offered back")
			for _, jargon := range []string{"minimum", "maximum", "integer", "Enter a whole number"} {
				assert.NotContains(t, screen, jargon)
			}
		})
	}
}
