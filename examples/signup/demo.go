package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/examples/internal/deploy"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoOptions says how the demo talks to the person.
type demoOptions struct {
	// interactive says whether the input is a terminal, which echoes what
	// is typed; otherwise each answer read is echoed after its prompt, so
	// the transcript reads the same, and a secret is echoed masked.
	interactive bool
	// verbose prints the protocol trace: each tools/call, what the server
	// answered, and the request state's size.
	verbose bool
	// readSecret reads a secret from the terminal without echo; nil reads
	// it as any other answer.
	readSecret func() (string, error)
	// lang is the person's language, a BCP 47 tag: the demo speaks it
	// when it can, and the client asks the server and the page for it.
	// runDemo reads it from the locale (LC_ALL, LC_MESSAGES, LANG) when
	// it is ""; demo takes "" as English.
	lang string
}

// runDemo runs the signup server and an in-process go-sdk client on
// 2026-07-28 that asks the person in the terminal: it reads answers from in
// and writes the transcript to out. tool is the tool to demonstrate:
// signup, or set_password, which runs after a signup.
func runDemo(ctx context.Context, st *store, in io.Reader, out io.Writer, opts demoOptions, tool string) error {
	// The demo's state never leaves the process, so a random key is right
	// here and needs no warning; a set MCPFORM_STATE_KEY is still used.
	if opts.lang == "" {
		opts.lang = demoLanguage(os.Getenv)
	}
	codec, err := deploy.NewCodec(os.Getenv, io.Discard, "mcpform signup")
	if err != nil {
		return err
	}
	// The secret page, on a loopback port of the demo's own.
	ln, err := listenHTTP("127.0.0.1:0")
	if err != nil {
		return err
	}
	s, err := newSignup(codec, st, "", pageURLOf(ln))
	if err != nil {
		ln.Close()
		return err
	}
	defer servePage(ln, s.secretPage(), 0)()
	tools := []string{toolName}
	if tool == passwordTool {
		tools = append(tools, passwordTool)
	}
	_, err = demo(ctx, newServer(s), in, out, opts, tools...)
	return err
}

// demo calls tools, signup by default, one after the other against server,
// and returns the last final result.
//
// The client answers the input requests itself, round by round, rather
// than through go-sdk's loop, which would check each answer against the
// schema first. This client checks nothing: what the person types goes to
// the server, whose checks are the ones that count, and whose re-ask, with
// the problems named, is what the person sees.
//
// A URL-mode request links to the server's secret page. The person would
// open it in a browser; here the demo plays the browser too (demopage.go).
func demo(ctx context.Context, server *mcp.Server, in io.Reader, out io.Writer, opts demoOptions, tools ...string) (*mcp.CallToolResult, error) {
	if len(tools) == 0 {
		tools = []string{toolName}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "signup-demo", Version: "v0.1.0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, mcpform.AnswersAsSentTransport(st), nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	forms := &formOrder{orders: map[string][]string{}}
	// An empty ProtocolVersion asks for the latest, 2026-07-28.
	cs, err := client.Connect(ctx, &orderTransport{Transport: ct, forms: forms}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()

	w := wordsFor(opts.lang)
	p := &prompter{in: bufio.NewReader(in), out: out, echo: !opts.interactive, verbose: opts.verbose, readSecret: opts.readSecret,
		lang: opts.lang, w: w, typed: map[string]map[string]string{}}
	calls := fmt.Sprintf(w.oneTool, tools[0])
	if len(tools) > 1 {
		calls = fmt.Sprintf(w.twoTools, tools[0], tools[1])
	}
	fmt.Fprintf(out, w.intro+"\n", calls)
	p.trace("The client speaks protocol %s.\n", cs.InitializeResult().ProtocolVersion)
	fmt.Fprintln(out, w.answer)
	var res *mcp.CallToolResult
	for _, tool := range tools {
		if res, err = demoCall(ctx, cs, tool, p, forms); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// demoCall calls tool until it returns a final result, answering its input
// requests in the terminal.
func demoCall(ctx context.Context, cs *mcp.ClientSession, tool string, p *prompter, forms *formOrder) (*mcp.CallToolResult, error) {
	out := p.out
	params := &mcp.CallToolParams{Name: tool}
	for round := 1; ; round++ {
		if p.lang != "" {
			// SEP-2792: the server words its questions in the person's
			// language.
			params.Meta = mcp.Meta{acceptLanguageKey: p.lang}
		}
		p.trace("\n── round %d %s\n", round, strings.Repeat("─", 50))
		if p.verbose {
			printCall(out, params)
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			fmt.Fprintf(out, "\n"+p.w.refused+"\n", err)
			return nil, err
		}
		if len(res.InputRequests) == 0 {
			p.trace("server ← result\n")
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					fmt.Fprintf(out, "\n%s\n", t.Text)
				}
			}
			return res, nil
		}
		// Answer every input request, the form before the page, then
		// retry the call with the answers and the state echoed as it came.
		keys := slices.Sorted(maps.Keys(res.InputRequests))
		for _, key := range keys {
			mode := "form"
			if ep, ok := res.InputRequests[key].(*mcp.ElicitParams); ok && ep.Mode == "url" {
				mode = "url"
			}
			p.trace("server ← input_required: %s %q\n", mode, key)
		}
		p.trace("         requestState sealed by the server (%d bytes)\n", len(res.RequestState))
		answers := mcp.InputResponseMap{}
		for _, key := range keys {
			ep, ok := res.InputRequests[key].(*mcp.ElicitParams)
			switch {
			case !ok:
				return nil, fmt.Errorf("input request %q is %T, not an elicitation", key, res.InputRequests[key])
			case ep.Mode == "url":
				answers[key], err = p.openPage(ctx, ep)
			default:
				answers[key], err = p.elicit(key, ep, forms.order(key))
			}
			if err != nil {
				return nil, err
			}
		}
		params = &mcp.CallToolParams{Name: tool, InputResponses: answers, RequestState: res.RequestState}
	}
}

// printCall prints a tools/call as it goes out.
func printCall(out io.Writer, p *mcp.CallToolParams) {
	fmt.Fprintf(out, "client → tools/call %s\n", p.Name)
	for _, key := range slices.Sorted(maps.Keys(p.InputResponses)) {
		er := p.InputResponses[key].(*mcp.ElicitResult)
		fmt.Fprintf(out, "         %s %q", er.Action, key)
		if er.Content != nil {
			b, _ := json.Marshal(er.Content)
			fmt.Fprintf(out, " %s", b)
		}
		fmt.Fprintln(out)
	}
	if p.RequestState != "" {
		fmt.Fprintf(out, "         requestState echoed as received (%d bytes)\n", len(p.RequestState))
	}
}

// acceptLanguageKey is the _meta key of a request's language (SEP-2792).
const acceptLanguageKey = "io.modelcontextprotocol/acceptLanguage"

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
func (p *prompter) elicit(key string, ep *mcp.ElicitParams, order []string) (*mcp.ElicitResult, error) {
	raw, err := json.Marshal(ep.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
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
			return &mcp.ElicitResult{Action: strings.ToLower(line)}, nil
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
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
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

// formOrder keeps the property order of each form the server sends, by
// input key: go-sdk decodes a requested schema into a map, which forgets
// the order the server asked in.
type formOrder struct {
	mu     sync.Mutex
	orders map[string][]string
}

func (f *formOrder) order(key string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.orders[key]
}

// orderTransport is a client transport that reads each response's forms'
// property order into forms.
type orderTransport struct {
	mcp.Transport
	forms *formOrder
}

func (t *orderTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return &orderConn{Connection: c, forms: t.forms}, err
}

type orderConn struct {
	mcp.Connection
	forms *formOrder
}

func (c *orderConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Result != nil {
		var r struct {
			InputRequests map[string]struct {
				Params struct {
					RequestedSchema struct {
						Properties orderedKeys `json:"properties"`
					} `json:"requestedSchema"`
				} `json:"params"`
			} `json:"inputRequests"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			c.forms.mu.Lock()
			for key, ir := range r.InputRequests {
				c.forms.orders[key] = ir.Params.RequestedSchema.Properties
			}
			c.forms.mu.Unlock()
		}
	}
	return msg, err
}

// orderedKeys unmarshals the keys of a JSON object in document order.
type orderedKeys []string

func (k *orderedKeys) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("properties is not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		*k = append(*k, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}
