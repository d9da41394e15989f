package mcpform

import (
	"maps"

	"github.com/mcpform/mcpform/internal/catalog"
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
	if f.translate != nil && f.commit != "" && !a.speaks(l) {
		if v := f.translate(l.Tag(), f.commit); v != "" {
			lf.commit = v
		}
	}
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
