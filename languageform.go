package mcpform

import "golang.org/x/text/language"

// A form or flow in another language is a copy of it, compiled once on
// first use: its fields carry the author's translations (Translate), its
// message mcpform's default in that language, and everything built from
// them, the schema, the view, the model's text, follows. Asking in a
// language then costs what asking in English does. English is the
// original itself.

// in returns c in l, compiled with c's own Translate.
func (c *compiled) in(l lang) *compiled {
	if c.origin != nil {
		c = c.origin // never a translation of a translation
	}
	if l == langEN {
		return c
	}
	if lc := c.local[l].Load(); lc != nil {
		return lc
	}
	lc := c.localize(l, c.translate)
	c.local[l].Store(lc) // a race builds two equal copies; one is kept
	return lc
}

// localize returns a copy of c compiled in l, with tr translating the
// author's words; c itself when the copy does not compile, which a
// translation of titles cannot cause.
func (c *compiled) localize(l lang, tr func(language.Tag, string) string) *compiled {
	t := func(s string) string {
		if tr == nil || s == "" {
			return s
		}
		if v := tr(langTags[l], s); v != "" {
			return v
		}
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
	message := t(c.message)
	if c.message == DefaultInputMessage {
		message = l.text(msgDefaultInput)
	}
	lc, err := compile(all, &FormOptions{Key: c.key, Message: message, AskModel: c.model, Translate: tr})
	if err != nil {
		return c
	}
	lc.lang, lc.origin = l, c
	return lc
}

// ownWords returns the function that translates the author's other words in
// c's language, such as a Check's reasons; nil in English.
func (c *compiled) ownWords() func(string) string {
	if c.lang == langEN || c.translate == nil {
		return nil
	}
	return func(s string) string {
		if v := c.translate(langTags[c.lang], s); v != "" {
			return v
		}
		return s
	}
}

// in returns f in l: a copy whose steps are compiled in l, with the
// flow's Translate or else each step form's own, and whose states pin l.
// Its pins are the original's, so a state minted in one language proves
// the same steps in every other.
func (f *Flow) in(l lang) *Flow {
	if f.origin != nil {
		f = f.origin // never a translation of a translation
	}
	if l == langEN || f.local == nil {
		return f
	}
	if lf := f.local[l].Load(); lf != nil {
		return lf
	}
	lf := *f
	lf.lang, lf.origin = l, f
	lf.steps = make([]flowStep, len(f.steps))
	for i, s := range f.steps {
		tr := f.translate
		if tr == nil {
			tr = s.c.translate
		}
		s.c = s.c.localize(l, tr)
		lf.steps[i] = s
	}
	f.local[l].Store(&lf)
	return &lf
}
