// Package terminal is the examples' terminal demo, whatever the SDK of
// its client: a person answers, in the terminal, the questions a server
// asks on 2026-07-28 (input_required), the way a host without a UI would
// ask them, in the language of the locale (LC_ALL, LC_MESSAGES, LANG).
// The client checks nothing: what the person types goes to the server,
// whose re-ask, with the problems named, is what the person reads, and a
// value the server refused is offered back for editing. A URL-mode
// request links to the server's secret page, which the demo opens as a
// browser would (page.go): a secret typed there is read without echo at
// a terminal, and never printed, not even as its length.
//
// Each example keeps its SDK's face: it connects its client, and hands
// [Demo.Call] a [Caller] that makes one tools/call of its SDK's types.
package terminal

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/term"
)

// Options say how the demo talks to the person.
type Options struct {
	// Interactive says whether the input is a terminal, which echoes what
	// is typed; otherwise each answer read is echoed after its prompt, so
	// the transcript reads the same, and a secret is echoed masked.
	Interactive bool
	// Verbose prints the protocol trace: each tools/call, what the server
	// answered, and the request state's size.
	Verbose bool
	// ReadSecret reads a secret from the terminal without echo; nil reads
	// it as any other answer.
	ReadSecret func() (string, error)
	// Lang is the person's language, a BCP 47 tag: the demo speaks it
	// when it can, and the client asks the server and the page for it.
	// "" is English; an example's demo fills it from the locale with
	// [Language].
	Lang string
}

// ForFile returns the options for answers read from in: at a terminal, a
// secret is read without echo, so that it never appears on the screen;
// from a pipe or file, each answer is echoed after its prompt. The
// language is the locale's.
func ForFile(in *os.File, verbose bool) Options {
	fd := int(in.Fd())
	opts := Options{Interactive: term.IsTerminal(fd), Verbose: verbose, Lang: Language(os.Getenv)}
	if opts.Interactive {
		opts.ReadSecret = func() (string, error) {
			b, err := term.ReadPassword(fd)
			return string(b), err
		}
	}
	return opts
}

// A Request is one of a result's input requests, an elicitation: a form
// (Mode "form" or "") with its requested schema's JSON, or a link (Mode
// "url").
type Request struct {
	Mode, Message, URL string
	Schema             json.RawMessage
}

// An Answer is the person's answer to a Request: accept, with the
// form's content, decline or cancel.
type Answer struct {
	Action  string
	Content map[string]any
}

// A Reply is what one tools/call returned: input requests, with the state
// to echo, or a final result's text blocks.
type Reply struct {
	Requests map[string]Request
	State    string
	Texts    []string
}

// AcceptLanguageKey is the _meta key of a request's language (SEP-2792),
// which a Caller sets to the person's.
const AcceptLanguageKey = "io.modelcontextprotocol/acceptLanguage"

// A Caller makes one tools/call of tool in lang (SEP-2792's
// acceptLanguage, when lang is not ""), with the answers to the round
// before and its state, both empty at first.
type Caller func(ctx context.Context, tool, lang string, answers map[string]Answer, state string) (*Reply, error)

// A Demo asks the person in a terminal. Make one with [New].
type Demo struct {
	p     *prompter
	forms formOrder
}

// New returns a demo that reads answers from in and writes the
// transcript to out.
func New(in io.Reader, out io.Writer, opts Options) *Demo {
	w := wordsFor(opts.Lang)
	return &Demo{p: &prompter{in: bufio.NewReader(in), out: out, echo: !opts.Interactive, verbose: opts.Verbose, readSecret: opts.ReadSecret,
		lang: opts.Lang, w: w, typed: map[string]map[string]string{}}, forms: formOrder{orders: map[string][]string{}}}
}

// Intro prints the demo's first lines: what the client of sdk calls, the
// tools in order, and how to answer; the protocol in the trace.
func (d *Demo) Intro(sdk, protocol string, tools ...string) {
	p, w := d.p, d.p.w
	calls := fmt.Sprintf(w.oneTool, tools[0])
	if len(tools) > 1 {
		calls = fmt.Sprintf(w.twoTools, tools[0], tools[1])
	}
	fmt.Fprintf(p.out, w.intro+"\n", sdk, calls)
	p.trace("The client speaks protocol %s.\n", protocol)
	fmt.Fprintln(p.out, w.answer)
}

// Run calls each of tools in turn through call, as Call does.
func (d *Demo) Run(ctx context.Context, call Caller, tools ...string) error {
	for _, tool := range tools {
		if _, err := d.Call(ctx, tool, call); err != nil {
			return err
		}
	}
	return nil
}

// Call calls tool through call until it returns a final result, answering
// its input requests in the terminal, and returns that result's text
// blocks, which it prints: the person's heading and summary, then the
// model's sentence.
func (d *Demo) Call(ctx context.Context, tool string, call Caller) ([]string, error) {
	p := d.p
	out := p.out
	var (
		answers map[string]Answer
		state   string
	)
	for round := 1; ; round++ {
		p.trace("\n── round %d %s\n", round, strings.Repeat("─", 50))
		if p.verbose {
			printCall(out, tool, answers, state)
		}
		res, err := call(ctx, tool, p.lang, answers, state)
		if err != nil {
			fmt.Fprintf(out, "\n"+p.w.refused+"\n", err)
			return nil, err
		}
		if len(res.Requests) == 0 {
			p.trace("server ← result\n")
			for _, t := range res.Texts {
				fmt.Fprintf(out, "\n%s\n", t)
			}
			return res.Texts, nil
		}
		// Answer every input request, the form before the page, then
		// retry the call with the answers and the state echoed as it came.
		keys := slices.Sorted(maps.Keys(res.Requests))
		for _, key := range keys {
			p.trace("server ← input_required: %s %q\n", cmp.Or(res.Requests[key].Mode, "form"), key)
		}
		p.trace("         requestState sealed by the server (%d bytes)\n", len(res.State))
		answers = map[string]Answer{}
		for _, key := range keys {
			r := res.Requests[key]
			var a Answer
			if r.Mode == "url" {
				a, err = p.openPage(ctx, r)
			} else {
				a, err = p.elicit(key, r, d.forms.order(key))
			}
			if err != nil {
				return nil, err
			}
			answers[key] = a
		}
		state = res.State
	}
}

// printCall prints a tools/call as it goes out.
func printCall(out io.Writer, tool string, answers map[string]Answer, state string) {
	fmt.Fprintf(out, "client → tools/call %s\n", tool)
	for _, key := range slices.Sorted(maps.Keys(answers)) {
		a := answers[key]
		fmt.Fprintf(out, "         %s %q", a.Action, key)
		if a.Content != nil {
			b, _ := json.Marshal(a.Content)
			fmt.Fprintf(out, " %s", b)
		}
		fmt.Fprintln(out)
	}
	if state != "" {
		fmt.Fprintf(out, "         requestState echoed as received (%d bytes)\n", len(state))
	}
}

// A prompter renders a form elicitation in the terminal, one prompt per
// field, the way a host without a UI would.
type prompter struct {
	in         *bufio.Reader
	out        io.Writer
	echo       bool // print each answer read, for input that is not a terminal
	verbose    bool // print the protocol trace
	readSecret func() (string, error)
	eof        bool
	lang       string     // the person's language, "" for English
	w          *demoWords // the demo's words in it
	// typed is what the person typed last in each form, by input key and
	// field name: a re-ask offers a refused value back. It never holds a
	// secret, which only the page reads.
	typed map[string]map[string]string
}

// trace prints a line of the protocol trace, in verbose mode only: the
// person reads the questions, and a developer the wire.
func (p *prompter) trace(format string, args ...any) {
	if p.verbose {
		fmt.Fprintf(p.out, format, args...)
	}
}

// elicit asks for the fields of ep, the form of input key, in the given
// order and returns the answer: accept with what was typed, or the decline
// or cancel typed instead. The end of the input means cancel, as closing a
// form does. A field the server asks again without a default, since it
// refused what was typed, offers that value back: Enter keeps it, as it
// takes a default, and anything typed replaces it.
func (p *prompter) elicit(key string, ep Request, order []string) (Answer, error) {
	var schema jsonschema.Schema
	if err := json.Unmarshal(ep.Schema, &schema); err != nil {
		return Answer{}, fmt.Errorf("requested schema: %w", err)
	}
	fmt.Fprintln(p.out)
	for _, line := range strings.Split(ep.Message, "\n") {
		if line != "" {
			line = "  " + line
		}
		fmt.Fprintln(p.out, line)
	}
	content := map[string]any{}
	before, typed := p.typed[key], map[string]string{}
	p.typed[key] = typed
	for _, name := range order {
		f := schema.Properties[name]
		if f == nil {
			continue
		}
		// A value typed before that the server does not offer back as
		// the default is one it refused: offer it back instead.
		again := before[name]
		if again != "" && f.Default != nil {
			if v, err := json.Marshal(value(f, again)); err == nil && jsonEqual(v, f.Default) {
				again = ""
			}
		}
		shown := f
		if again != "" {
			g := *f
			g.Default = nil // Enter takes what was typed, not the default
			shown = &g
		}
		fmt.Fprintf(p.out, "\n  %s\n", p.heading(name, shown, schema.Required))
		if f.Description != "" {
			fmt.Fprintf(p.out, "    %s\n", f.Description)
		}
		printChoices(p.out, f)
		if again != "" {
			fmt.Fprintf(p.out, "  [%s] > ", again)
		} else {
			fmt.Fprintf(p.out, "  > ")
		}
		line := p.readLine()
		switch strings.ToLower(line) {
		case "decline", "cancel":
			fmt.Fprintf(p.out, "\n  → %s\n", strings.ToLower(line))
			return Answer{Action: strings.ToLower(line)}, nil
		case "":
			switch {
			case again != "":
				fmt.Fprintf(p.out, "    → %s %s\n", again, p.w.typed)
				line = again
			case f.Default != nil:
				var d any
				json.Unmarshal(f.Default, &d)
				fmt.Fprintf(p.out, "    → %s %s\n", f.Default, p.w.theDefault)
				content[name] = d
				continue
			default:
				continue // left out: the server says if it was required
			}
		}
		typed[name] = line
		content[name] = value(f, line)
	}
	return Answer{Action: "accept", Content: content}, nil
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// readLine reads one answer; "cancel" at the end of the input.
func (p *prompter) readLine() string { return p.read(false) }

// read reads one answer, echoing it masked if hide is set. A hidden
// answer at a terminal is read without echo, so that the terminal never
// shows it either.
func (p *prompter) read(hide bool) string {
	if p.eof {
		return "cancel"
	}
	if hide && p.readSecret != nil {
		line, err := p.readSecret()
		fmt.Fprintln(p.out) // the Enter that the terminal did not echo
		if err != nil {
			p.eof = true
			return "cancel"
		}
		return strings.TrimSpace(line)
	}
	line, err := p.in.ReadString('\n')
	if err != nil && line == "" {
		p.eof = true
		if p.echo {
			fmt.Fprintln(p.out, p.w.endOfInput)
		}
		return "cancel"
	}
	line = strings.TrimSpace(line)
	if p.echo {
		shown := line
		if hide && line != "" {
			shown = p.w.hidden // not even its length
		}
		fmt.Fprintf(p.out, "%s\n", shown)
	}
	return line
}

// value turns a typed answer into JSON of the field's type, when it reads
// as one, and otherwise sends the text as it is: judging it is the
// server's job. An option may be typed in any case.
func value(f *jsonschema.Schema, s string) any {
	for _, o := range f.OneOf {
		if o.Const == nil {
			continue
		}
		if c, ok := (*o.Const).(string); ok && (strings.EqualFold(c, s) || strings.EqualFold(o.Title, s)) {
			return c
		}
	}
	switch f.Type {
	case "integer", "number":
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return n
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	return s
}

// printChoices lists a choice's options, one a line, each value with its
// title: the person may type either.
func printChoices(out io.Writer, f *jsonschema.Schema) {
	for _, o := range f.OneOf {
		if o.Const == nil {
			continue
		}
		v := fmt.Sprint(*o.Const)
		if o.Title == "" || strings.EqualFold(o.Title, v) {
			fmt.Fprintf(out, "    · %s\n", v)
		} else {
			fmt.Fprintf(out, "    · %s – %s\n", v, o.Title)
		}
	}
}

// heading is a field's title line: its title, whether it is required, and
// what it takes, in the person's language.
func (p *prompter) heading(name string, f *jsonschema.Schema, required []string) string {
	w := p.w
	facts := []string{w.optional}
	for _, r := range required {
		if r == name {
			facts[0] = w.required
		}
	}
	if len(f.OneOf) > 0 {
		facts = append(facts, w.oneOf)
	}
	switch {
	case f.Format == "email":
		facts = append(facts, w.email)
	case f.Type == "integer" && f.Minimum != nil && f.Maximum != nil:
		facts = append(facts, fmt.Sprintf(w.wholeFromTo, *f.Minimum, *f.Maximum))
	case f.MinLength != nil && f.MaxLength != nil:
		facts = append(facts, fmt.Sprintf(w.charsFromTo, *f.MinLength, *f.MaxLength))
	case f.MaxLength != nil:
		facts = append(facts, fmt.Sprintf(w.charsUpTo, *f.MaxLength))
	}
	if f.Default != nil {
		facts = append(facts, fmt.Sprintf(w.defaultIs, strings.Trim(string(f.Default), `"`)))
	}
	return fmt.Sprintf(w.titled, cmp.Or(f.Title, name), strings.Join(facts, w.factSep))
}
