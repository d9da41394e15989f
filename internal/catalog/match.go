package catalog

import (
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"
)

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
	if l, ok := matched.Load(accept); ok {
		return l.(Lang)
	}
	l := match(accept)
	if nMatched.Add(1) <= maxMatched {
		matched.Store(accept, l)
	}
	return l
}

// matched holds what Match found for the first maxMatched values it was
// given, counted by nMatched: a server is sent the same few values again
// and again, by its users' browsers and hosts, and parsing one costs a
// few dozen allocations. Past maxMatched, a new value is parsed each time,
// so no caller can grow the cache beyond maxMatched×maxAcceptLanguage
// bytes.
var (
	matched  sync.Map // string → Lang
	nMatched atomic.Int64
)

const maxMatched = 256

// match is Match, parsing accept.
func match(accept string) Lang {
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
