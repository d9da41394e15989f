package mcpform

import (
	"maps"
	"strings"

	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/seam"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// callLang returns the language a call asks for: its acceptLanguage
// _meta, else its HTTP Accept-Language header. The SEP's reference
// implementation reads the header only as a mirror of the _meta; a
// client that sends the header alone, as a browser-based one may, is
// read here too, because a person's language is worth more than the
// difference. A call of another SDK's face is English.
func callLang(call seam.Call) catalog.Lang {
	if call == nil {
		return catalog.English
	}
	return catalog.Match(call.AcceptLanguage())
}

// acceptLanguage is the languages req carries: its acceptLanguage _meta,
// else its HTTP Accept-Language header; "" for none.
func acceptLanguage(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	if req.Params != nil {
		if s, ok := req.Params.Meta[seam.MetaAcceptLanguage].(string); ok {
			return s
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return req.Extra.Header.Get(seam.HeaderAcceptLanguage)
	}
	return ""
}

// pinnedLang returns the language a state pinned, by its code; an old
// state without one, or with a code we do not know, is English.
func pinnedLang(code string) catalog.Lang {
	for l := range catalog.NumLangs {
		if l.Code() == code {
			return l
		}
	}
	return catalog.English
}

// pinCode is l as a state pins it; "" for English, which a state leaves
// out.
func pinCode(l catalog.Lang) string {
	if l == catalog.English {
		return ""
	}
	return l.Code()
}

// ContentLanguage marks res as written in lang: it sets the
// contentLanguage _meta of SEP-2792 (experimental, as the SEP is still
// open) to lang, such as "es". A handler calls it on a result it writes
// itself in [FlowRound].Language. English, the default, and the zero Tag
// leave res as it is, as does a nil res.
func ContentLanguage(res *mcp.CallToolResult, lang language.Tag) {
	if base, _ := lang.Base(); res == nil || lang == (language.Tag{}) || base.String() == "en" {
		return
	}
	stampLang(res, lang.String())
}

// stampLang sets res's contentLanguage _meta to code. The _meta is
// copied, not changed in place, as a result may share it.
func stampLang(res *mcp.CallToolResult, code string) {
	m := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(m, res.Meta)
	m[seam.MetaContentLanguage] = code
	res.Meta = m
}

// A form or flow in another language is a copy of it, compiled once on
// first use: its fields carry the author's translations (Translate), its
// message mcpform's default in that language, and everything built from
// them, the schema, the view, the model's text, follows. Asking in a
// language then costs what asking in English does. English is the
// original itself.

// An authorLanguage is the language an author writes their words in, as
// FormOptions.Language or FlowOptions.Language says it. The zero value is
// English.
type authorLanguage struct {
	code  string       // its tag, as a lang attribute says it; "" for English
	lang  catalog.Lang // the catalog's language of its base, unless other
	other bool         // no language of the catalog's has its base
}

// newAuthorLanguage returns the author's language t; the zero Tag is
// English.
func newAuthorLanguage(t language.Tag) authorLanguage {
	if t == (language.Tag{}) {
		return authorLanguage{}
	}
	a := authorLanguage{code: t.String(), other: true}
	base, _ := t.Base()
	for l := range catalog.NumLangs {
		if b, _ := l.Tag().Base(); b == base {
			a.lang, a.other = l, false
		}
	}
	return a
}

// speaks reports whether l is the author's language, whose rounds show
// the author's words as written and mark none.
func (a authorLanguage) speaks(l catalog.Lang) bool { return !a.other && a.lang == l }

// label returns s, a button's label in the author's words, in l: as tr
// translates it, or else as written, with the lang it then carries amid
// l; "" when it is l's. In the author's own language tr is not asked.
func (a authorLanguage) label(l catalog.Lang, tr func(language.Tag, string) string, s string) (string, string) {
	if s == "" || a.speaks(l) {
		return s, ""
	}
	if tr != nil {
		if v := tr(l.Tag(), s); v != "" {
			return v, ""
		}
	}
	return s, a.mark()
}

// mark is the lang the author's words carry amid another language.
func (a authorLanguage) mark() string {
	if a.code == "" {
		return "en"
	}
	return a.code
}

// in returns c in l, compiled with c's own Translate. An English author's
// form in English is the original itself.
func (c *compiled) in(l catalog.Lang) *compiled {
	if c.origin != nil {
		c = c.origin // never a translation of a translation
	}
	if lc := c.local[l].Load(); lc != nil {
		return lc
	}
	if l == catalog.English && c.author.speaks(l) {
		return c
	}
	lc := c.localize(l, c.translate, c.author)
	c.local[l].Store(lc) // a race builds two equal copies; one is kept
	return lc
}

// localize returns a copy of c compiled in l, with tr translating the
// words of an author writing in a; c itself when the copy does not
// compile, which a translation of titles cannot cause. In a's own
// language nothing is translated, and nothing is marked as kept.
func (c *compiled) localize(l catalog.Lang, tr func(language.Tag, string) string, a authorLanguage) *compiled {
	own := a.speaks(l)
	if own {
		tr = nil
	}
	kept := map[string]bool{} // what stays in the author's language
	t := func(s string) string {
		if s == "" {
			return s
		}
		if tr != nil {
			if v := tr(l.Tag(), s); v != "" {
				return v
			}
		}
		kept[s] = true
		return s
	}
	all := cloneFields(c.all)
	for i := range all {
		f := &all[i]
		if title := f.title(); t(title) != title {
			f.Label = t(title)
		}
		f.Description, f.Placeholder = t(f.Description), t(f.Placeholder)
		for j := range f.Options {
			o := &f.Options[j]
			shown := o.Label
			if shown == "" {
				shown = o.Value
			}
			if v := t(shown); v != shown {
				o.Label = v
			}
		}
	}
	message := l.Text(catalog.DefaultInput)
	if c.message != DefaultInputMessage {
		message = t(c.message)
	}
	lc, err := compile(all, &FormOptions{Key: c.key, Message: message, AskModel: c.model, Translate: tr})
	if err != nil {
		return c
	}
	if own {
		kept = nil
	}
	lc.lang, lc.origin, lc.kept, lc.author = l, c, kept, a
	return lc
}

// authorLang is the language to mark s with where it is shown amid c's
// language: the author's, when Translate left s as the author wrote it;
// "" when s is in c's language. A person then never hears the author's
// words read by another language's rules (WCAG 3.1.2).
func (c *compiled) authorLang(s string) string {
	if s != "" && c.kept[s] {
		return c.author.mark()
	}
	return ""
}

// ownWords returns the function that translates the author's other words in
// c's language, such as a Check's reasons; nil in English.
func (c *compiled) ownWords() func(string) string {
	if c.lang == catalog.English || c.translate == nil {
		return nil
	}
	return func(s string) string {
		if v := c.translate(c.lang.Tag(), s); v != "" {
			return v
		}
		return s
	}
}

// in returns f in l: a copy whose steps are compiled in l, with the
// flow's Translate or else each step form's own, and the flow's Language
// or else each step form's, and whose states pin l. Its pins are the
// original's, so a state minted in one language proves the same steps in
// every other. An English author's flow in English is the original
// itself.
func (f *Flow) in(l catalog.Lang) *Flow {
	if f.origin != nil {
		f = f.origin // never a translation of a translation
	}
	if f.local == nil {
		return f
	}
	if lf := f.local[l].Load(); lf != nil {
		return lf
	}
	if l == catalog.English && f.english() {
		return f
	}
	lf := *f
	lf.lang, lf.origin = l, f
	a := newAuthorLanguage(f.author)
	lf.commit, lf.commitLang = a.label(l, f.translate, f.commit)
	lf.steps = make([]flowStep, len(f.steps))
	for i, s := range f.steps {
		tr := f.translate
		if tr == nil {
			tr = s.c.translate
		}
		sa := a
		if f.author == (language.Tag{}) {
			sa = s.c.author
		}
		s.c = s.c.localize(l, tr, sa)
		s.submit, s.submitLang = sa.label(l, tr, s.submit)
		lf.steps[i] = s
	}
	f.local[l].Store(&lf)
	return &lf
}

// english reports whether f's author writes every step in English.
func (f *Flow) english() bool {
	if f.author != (language.Tag{}) {
		base, _ := f.author.Base()
		return base == englishBase
	}
	for i := range f.steps {
		if !f.steps[i].c.author.speaks(catalog.English) {
			return false
		}
	}
	return true
}

// englishBase is English's base language.
var englishBase, _ = language.English.Base()

// A text in the person's language may name the author's words, such as a
// field's title in a problem's sentence, left as the author wrote them.
// The text is filled with a mark in place of each such word, and unmark
// puts the words back, saying where they landed, so that a view or a
// page marks each with its lang. A text with no such word is filled as
// it is, at no cost.

// wordMarks are the marks of the words a text names, two bytes each: a
// NUL, which no catalog's text holds, then the word's index. A NUL that
// no index follows, as in a person's value, unmark keeps as it is.
const wordMarks = "\x00\x00\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\x06\x00\x07"

// maxMarks is how many words a text can mark.
const maxMarks = len(wordMarks) / 2

// wordMark is the mark of the i-th word, i < maxMarks.
func wordMark(i int) string { return wordMarks[2*i : 2*i+2] }

// unmark returns s with the mark of each of words put back as the word,
// and the parts of s they make: the i-th word is in langs[i], or in s's
// own language when that is "".
func unmark(s string, words, langs []string) (string, []prefab.Part) {
	var b strings.Builder
	b.Grow(len(s) + 16*len(words))
	var parts []prefab.Part
	for {
		j := strings.IndexByte(s, 0)
		if j < 0 || j+1 >= len(s) {
			break
		}
		b.WriteString(s[:j])
		k := int(s[j+1])
		if k >= len(words) { // a NUL of a value's own, such as a person's: kept
			b.WriteByte(0)
			s = s[j+1:]
			continue
		}
		if w, l := words[k], langs[k]; l != "" && w != "" {
			parts = append(parts, prefab.Part{At: b.Len(), Len: len(w), Lang: l})
		}
		b.WriteString(words[k])
		s = s[j+2:]
	}
	b.WriteString(s)
	return b.String(), parts
}
