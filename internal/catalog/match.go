package catalog

import "golang.org/x/text/language"

// maxAcceptLanguage bounds the preference parsed: a real one is a few
// dozen bytes, and a longer one is ignored rather than parsed.
const maxAcceptLanguage = 512

var matcher = language.NewMatcher(tags[:])

// Match returns the language of ours that best fits accept, an HTTP
// Accept-Language value, by RFC 4647 matching with x/text's matcher
// ("es-MX" is Spanish, "fr;q=0.9, de" German). A value that is empty,
// malformed, too long, or names no language of ours is English.
func Match(accept string) Lang {
	if accept == "" || len(accept) > maxAcceptLanguage {
		return English
	}
	tags, _, err := language.ParseAcceptLanguage(accept)
	if err != nil || len(tags) == 0 {
		return English
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return English
	}
	return Lang(i)
}
