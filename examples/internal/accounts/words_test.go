package accounts

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcpform/mcpform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// english is every English text of the examples that a person reads: the
// questions' labels, descriptions and option labels, the steps' messages
// and the outcomes' sentences. A new sentence goes here too.
func english(t *testing.T) []string {
	t.Helper()
	words := []string{accountMessage, createAccount, teamMessage, passwordMessage,
		createdTeam, createdPro, createdFree, declinedAccount, declinedTeam, cancelledSignup,
		invalidAccount, invalidTeam, alreadyExists, fieldsToFix, listSeparator,
		passwordDeclined, passwordCancel, passwordRefused, passwordInvalid, passwordSet, passwordUnknown,
		accountCreated, passwordWasSet, summaryItem, planFree, planPro, planTeam, nothingCreated, nothingChanged, alreadyTaken}
	var fields []mcpform.AutoFormField
	account, err := mcpform.FormFor[Account](nil)
	require.NoError(t, err)
	team, err := mcpform.FormFor[Team](nil)
	require.NoError(t, err)
	password, err := mcpform.FormFor[NewPassword](nil)
	require.NoError(t, err)
	fields = append(append(append(fields, account.Fields()...), team.Fields()...), password.Fields()...)
	for _, f := range fields {
		words = append(words, f.Label, f.Description, f.Placeholder)
		for _, o := range f.Options {
			words = append(words, o.Label)
		}
	}
	words = slices.DeleteFunc(words, func(s string) bool { return s == "" })
	slices.Sort(words)
	return slices.Compact(words)
}

// TestWordsTranslated: each language's file translates every English
// text, and nothing else; its formats take the English one's values.
func TestWordsTranslated(t *testing.T) {
	want := english(t)
	require.Equal(t, []string{"de", "es", "fr", "ja"}, slices.Sorted(maps.Keys(translations)))
	for code, table := range translations {
		t.Run(code, func(t *testing.T) {
			assert.Equal(t, want, slices.Sorted(maps.Keys(table)), "words/%s.json's keys are the English texts", code)
			for en, tr := range table {
				assert.NotEmpty(t, tr, "%q", en)
				// A value of each of the English format's verbs, in order.
				var args []any
				for _, verb := range strings.Split(en, "%")[1:] {
					if strings.HasPrefix(verb, "d") {
						args = append(args, 1)
					} else {
						args = append(args, "x")
					}
				}
				assert.NotContains(t, fmt.Sprintf(tr, args...), "%!", "%q: the translation takes the English format's values", en)
			}
		})
	}
}

// TestOutcomesInLanguage: an outcome is written in the round's language
// and says so; English stays as it was.
func TestOutcomesInLanguage(t *testing.T) {
	tools := &Tools{}
	for _, tt := range []struct {
		lang language.Tag
		want string
	}{
		{language.English, "Signup not completed: you declined to give your team details. Nothing was created."},
		{language.French, "Inscription non aboutie\u00a0: vous n'avez pas souhaité donner les informations de votre équipe. Rien n'a été créé."},
		{language.German, "Registrierung nicht abgeschlossen: Sie haben die Angaben zu Ihrem Team nicht gemacht. Es wurde nichts angelegt."},
		{language.Spanish, "Registro no completado: decidiste no dar los datos de tu equipo. No se creó nada."},
		{language.Japanese, "登録は完了していません。チーム情報の入力を見送られたため、何も作成していません。"},
	} {
		t.Run(tt.lang.String(), func(t *testing.T) {
			o, ok := tools.SignupEnded(Round{Status: mcpform.FlowDeclined, Step: "team", Lang: tt.lang})
			require.True(t, ok)
			assert.Equal(t, tt.want, o.Text)
			assert.Equal(t, tt.lang, o.Lang)
		})
	}
	a := Record{Email: "ada@example.com", FullName: "Ada Lovelace", Plan: "team", TeamName: "Engines", Seats: 12}
	assert.Equal(t, "登録が完了しました。Ada Lovelace <ada@example.com> のアカウントを、チーム「Engines」（12席）のチームプランで作成しました。",
		CreatedText(language.Japanese, a), "Japanese puts the values in its own order")
	assert.Equal(t, "Inscription terminée\u00a0: le compte Ada Lovelace <ada@example.com> a été créé avec la formule Équipe pour l'équipe «\u00a0Engines\u00a0», avec 12 places.",
		CreatedText(language.French, a))
}
