package mcpform

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// The wire names of per-request language, SEP-2792: internal/seam holds
// them, the one place that names them, for both faces. EXPERIMENTAL until
// the SEP merges.
const (
	metaAcceptLanguage   = seam.MetaAcceptLanguage
	metaContentLanguage  = seam.MetaContentLanguage
	headerAcceptLanguage = seam.HeaderAcceptLanguage
)

// maxAcceptLanguage bounds the preference parsed: a real one is a few
// dozen bytes, and a longer one is ignored rather than parsed.
const maxAcceptLanguage = 512

var langMatcher = language.NewMatcher(langTags[:])

// matchLang returns the language of ours that best fits accept, an HTTP
// Accept-Language value, by RFC 4647 matching with x/text's matcher
// ("es-MX" is Spanish, "fr;q=0.9, de" German). A value that is empty,
// malformed, too long, or names no language of ours is English.
func matchLang(accept string) lang {
	if accept == "" || len(accept) > maxAcceptLanguage {
		return langEN
	}
	if l, ok := matched.Load(accept); ok {
		return l.(lang)
	}
	l := parseLang(accept)
	if matchedCount.Add(1) <= maxMatched {
		matched.Store(accept, l)
	}
	return l
}

// matched remembers the languages of the first maxMatched Accept-Language
// values seen: browsers and clients send a few values over and over, and
// parsing one costs a page dozens of allocations. Values past those are
// parsed every time, so that no one can grow the map.
var (
	matched      sync.Map // string → lang
	matchedCount atomic.Int64
)

const maxMatched = 256

func parseLang(accept string) lang {
	tags, _, err := language.ParseAcceptLanguage(accept)
	if err != nil || len(tags) == 0 {
		return langEN
	}
	_, i, conf := langMatcher.Match(tags...)
	if conf == language.No {
		return langEN
	}
	return lang(i)
}

// callLang returns the language a call asks for: its acceptLanguage
// _meta, else its HTTP Accept-Language header. The SEP's reference
// implementation reads the header only as a mirror of the _meta; a
// client that sends the header alone, as a browser-based one may, is
// read here too, because a person's language is worth more than the
// difference. A call of another SDK's face is English.
func callLang(call seam.Call) lang {
	if call == nil {
		return langEN
	}
	return matchLang(call.AcceptLanguage())
}

// acceptLanguage is the languages req carries: its acceptLanguage _meta,
// else its HTTP Accept-Language header; "" for none.
func acceptLanguage(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	if req.Params != nil {
		if s, ok := req.Params.Meta[metaAcceptLanguage].(string); ok {
			return s
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return req.Extra.Header.Get(headerAcceptLanguage)
	}
	return ""
}

// pinnedLang returns the language a state pinned, by its code; an old
// state without one, or with a code we do not know, is English.
func pinnedLang(code string) lang {
	for l, c := range langCodes {
		if c == code {
			return lang(l)
		}
	}
	return langEN
}

// code is l as a state pins it; "" for English, which a state leaves
// out.
func (l lang) code() string {
	if l == langEN {
		return ""
	}
	return langCodes[l]
}

// stamp marks res as written in l, in its _meta, unless l is English,
// the default. The _meta is copied, not changed in place, as a result
// may share it.
func (l lang) stamp(res *mcp.CallToolResult) {
	if l == langEN || res == nil {
		return
	}
	m := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(m, res.Meta)
	m[metaContentLanguage] = langCodeValues[l]
	res.Meta = m
}

// langCodeValues are langCodes in interfaces, made once: a string put in
// an interface is copied to the heap each time.
var langCodeValues = func() (v [langCount]any) {
	for l, c := range langCodes {
		v[l] = c
	}
	return v
}()

// ContentLanguage marks res as written in lang: it sets the
// contentLanguage _meta of SEP-2792 (experimental, as the SEP is still
// open) to lang, such as "es". A handler calls it on a result it writes
// itself in [FlowRound].Language. English, the default, and the zero Tag
// leave res as it is, as does a nil res.
func ContentLanguage(res *mcp.CallToolResult, lang language.Tag) {
	if base, _ := lang.Base(); res == nil || lang == (language.Tag{}) || base.String() == "en" {
		return
	}
	m := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(m, res.Meta)
	m[metaContentLanguage] = lang.String()
	res.Meta = m
}
