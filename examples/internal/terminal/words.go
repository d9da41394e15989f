package terminal

import "strings"

// demoWords are the terminal demo's own words in one language: what it
// says around the server's questions, which the server words itself, in
// the language the client asks for. Each is a fmt format where it says
// so. The answers "decline" and "cancel" stay as they are in every
// language: they are the protocol's words.
type demoWords struct {
	intro    string // the first line; %s, %s: the client's SDK, the tools called
	oneTool  string // %s: the tool, quoted as the language quotes
	twoTools string // %s, %s: the tools, in order, quoted
	answer   string // how to answer
	refused  string // %v: why the server refused a call

	required, optional, oneOf, email string
	wholeFromTo                      string // %v, %v: the bounds
	charsFromTo                      string // %d, %d: the bounds
	charsUpTo                        string // %d: the bound
	defaultIs                        string // %s: the default
	factSep                          string // between a field's facts
	titled                           string // %s, %s: a field's title, then its facts

	theDefault string // after a default taken by Enter
	typed      string // after a value taken back by Enter
	endOfInput string
	hidden     string // in place of a secret, in a transcript

	link, playsBrowser, pageSays, onThePage, leftToBrowser string
}

// english is the demo's English, its default.
var english = &demoWords{
	intro:    "mcpform signup demo: a %s client calls %s.",
	oneTool:  "the %q tool",
	twoTools: "%q, then %q",
	answer: "Answer each question. An empty answer takes the default, or what you typed before; " +
		"\"decline\" or \"cancel\" stops.",
	refused:     "The server refused the call: %v",
	required:    "required",
	optional:    "optional",
	oneOf:       "one of these",
	email:       "an email address",
	wholeFromTo: "a whole number from %v to %v",
	charsFromTo: "%d to %d characters",
	charsUpTo:   "up to %d characters",
	defaultIs:   "default %s",
	factSep:     "; ",
	titled:      "%s (%s)",
	theDefault:  "(the default)",
	typed:       "(as you typed it)",
	endOfInput:  "(end of input)",
	hidden:      "(hidden)",
	link:        "Link: %s",
	playsBrowser: "The demo plays your browser too: it opens the link, and what you type\n" +
		"  next goes to that page, not to the client. A browser would not show it.\n" +
		"  Once a browser has sent the page, the page refuses the link anywhere else.\n" +
		"  An empty answer leaves the page for later.",
	pageSays:      "The page says: %s",
	onThePage:     "%s (on the page)",
	leftToBrowser: "→ left to your browser",
}

// demoLanguages are the languages the demo speaks, by primary subtag.
var demoLanguages = map[string]*demoWords{
	"en": english,
	"fr": {
		intro:    "Démo d'inscription mcpform\u00a0: un client %s appelle %s.",
		oneTool:  "l'outil «\u00a0%s\u00a0»",
		twoTools: "«\u00a0%s\u00a0», puis «\u00a0%s\u00a0»",
		answer: "Répondez à chaque question. Une réponse vide prend la valeur par défaut, ou ce que vous avez saisi avant\u00a0; " +
			"«\u00a0decline\u00a0» ou «\u00a0cancel\u00a0» arrête.",
		refused:     "Le serveur a refusé l'appel\u00a0: %v",
		required:    "obligatoire",
		optional:    "facultatif",
		oneOf:       "l'un de ceux-ci",
		email:       "une adresse e-mail",
		wholeFromTo: "un nombre entier de %v à %v",
		charsFromTo: "de %d à %d caractères",
		charsUpTo:   "jusqu'à %d caractères",
		defaultIs:   "par défaut %s",
		factSep:     "\u00a0; ",
		titled:      "%s (%s)",
		theDefault:  "(la valeur par défaut)",
		typed:       "(tel que vous l'avez saisi)",
		endOfInput:  "(fin de la saisie)",
		hidden:      "(masqué)",
		link:        "Lien\u00a0: %s",
		playsBrowser: "La démo joue aussi votre navigateur\u00a0: elle ouvre le lien, et ce que vous saisissez\n" +
			"  ensuite va à cette page, pas au client. Un navigateur ne l'afficherait pas.\n" +
			"  Une fois la page envoyée depuis un navigateur, elle refuse le lien partout ailleurs.\n" +
			"  Une réponse vide laisse la page pour plus tard.",
		pageSays:      "La page dit\u00a0: %s",
		onThePage:     "%s (sur la page)",
		leftToBrowser: "→ laissé à votre navigateur",
	},
	"de": {
		intro:    "mcpform-Registrierungsdemo: ein %s-Client ruft %s auf.",
		oneTool:  "das Tool „%s“",
		twoTools: "„%s“, dann „%s“",
		answer: "Beantworten Sie jede Frage. Eine leere Antwort übernimmt den Standardwert oder Ihre vorherige Eingabe; " +
			"„decline“ oder „cancel“ bricht ab.",
		refused:     "Der Server hat den Aufruf abgelehnt: %v",
		required:    "erforderlich",
		optional:    "optional",
		oneOf:       "einer dieser Werte",
		email:       "eine E-Mail-Adresse",
		wholeFromTo: "eine ganze Zahl von %v bis %v",
		charsFromTo: "%d bis %d Zeichen",
		charsUpTo:   "bis zu %d Zeichen",
		defaultIs:   "Standard %s",
		factSep:     "; ",
		titled:      "%s (%s)",
		theDefault:  "(der Standardwert)",
		typed:       "(wie eingegeben)",
		endOfInput:  "(Ende der Eingabe)",
		hidden:      "(verborgen)",
		link:        "Link: %s",
		playsBrowser: "Die Demo spielt auch Ihren Browser: Sie öffnet den Link, und was Sie als Nächstes\n" +
			"  eingeben, geht an diese Seite, nicht an den Client. Ein Browser würde es nicht anzeigen.\n" +
			"  Sobald ein Browser die Seite abgeschickt hat, lehnt die Seite den Link überall sonst ab.\n" +
			"  Eine leere Antwort lässt die Seite für später.",
		pageSays:      "Die Seite sagt: %s",
		onThePage:     "%s (auf der Seite)",
		leftToBrowser: "→ Ihrem Browser überlassen",
	},
	"es": {
		intro:    "Demo de registro de mcpform: un cliente %s llama a %s.",
		oneTool:  "la herramienta «%s»",
		twoTools: "«%s» y luego a «%s»",
		answer: "Responde a cada pregunta. Una respuesta vacía toma el valor predeterminado o lo que escribiste antes; " +
			"«decline» o «cancel» detiene.",
		refused:     "El servidor rechazó la llamada: %v",
		required:    "obligatorio",
		optional:    "opcional",
		oneOf:       "uno de estos",
		email:       "una dirección de correo electrónico",
		wholeFromTo: "un número entero de %v a %v",
		charsFromTo: "de %d a %d caracteres",
		charsUpTo:   "hasta %d caracteres",
		defaultIs:   "predeterminado %s",
		factSep:     "; ",
		titled:      "%s (%s)",
		theDefault:  "(el valor predeterminado)",
		typed:       "(tal como lo escribiste)",
		endOfInput:  "(fin de la entrada)",
		hidden:      "(oculto)",
		link:        "Enlace: %s",
		playsBrowser: "La demo también hace de tu navegador: abre el enlace, y lo que escribas\n" +
			"  a continuación va a esa página, no al cliente. Un navegador no lo mostraría.\n" +
			"  Una vez que un navegador envía la página, esta rechaza el enlace en cualquier otro lugar.\n" +
			"  Una respuesta vacía deja la página para más tarde.",
		pageSays:      "La página dice: %s",
		onThePage:     "%s (en la página)",
		leftToBrowser: "→ se deja a tu navegador",
	},
	"ja": {
		intro:       "mcpform 登録デモ：%s クライアントが %s を呼び出します。",
		oneTool:     "ツール「%s」",
		twoTools:    "「%s」、続いて「%s」",
		answer:      "各質問に答えてください。空の回答は既定値、または前回の入力になります。「decline」または「cancel」で中止します。",
		refused:     "サーバーが呼び出しを拒否しました：%v",
		required:    "必須",
		optional:    "任意",
		oneOf:       "次のいずれか",
		email:       "メールアドレス",
		wholeFromTo: "%v～%v の整数",
		charsFromTo: "%d～%d 文字",
		charsUpTo:   "%d 文字まで",
		defaultIs:   "既定値 %s",
		factSep:     "、",
		titled:      "%s（%s）",
		theDefault:  "（既定値）",
		typed:       "（入力どおり）",
		endOfInput:  "（入力の終わり）",
		hidden:      "（非表示）",
		link:        "リンク：%s",
		playsBrowser: "このデモはブラウザーの役もします。リンクを開き、次に入力した内容は\n" +
			"  クライアントではなくそのページに送られます。ブラウザーなら表示しません。\n" +
			"  ブラウザーがページを送信すると、ほかの場所ではそのリンクは拒否されます。\n" +
			"  空の回答では、ページを後回しにします。",
		pageSays:      "ページの表示：%s",
		onThePage:     "%s（ページ上）",
		leftToBrowser: "→ ブラウザーに任せます",
	},
}

// Language returns the language the POSIX locale names, as a BCP 47
// tag ("fr-FR" for fr_FR.UTF-8): LC_ALL's, else LC_MESSAGES's, else
// LANG's, the order in which they win. It returns "" for none, and for
// the C or POSIX locale.
func Language(getenv func(string) string) string {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		v, _, _ = strings.Cut(v, ".")
		v, _, _ = strings.Cut(v, "@")
		if v == "C" || v == "POSIX" || v == "" {
			return ""
		}
		return strings.ReplaceAll(v, "_", "-")
	}
	return ""
}

// wordsFor returns the demo's words in lang, a BCP 47 tag, or in English
// when it does not speak lang.
func wordsFor(lang string) *demoWords {
	primary, _, _ := strings.Cut(strings.ToLower(lang), "-")
	if w, ok := demoLanguages[primary]; ok {
		return w
	}
	return english
}
