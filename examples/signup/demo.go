package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runDemo runs the signup server and an in-process go-sdk client that
// negotiates 2026-07-28 and asks the person in the terminal: it reads
// answers from in and writes the transcript to out. interactive says
// whether in is a terminal, which echoes what is typed; otherwise each
// answer read is echoed after its prompt, so the transcript reads the same.
func runDemo(ctx context.Context, st *store, in io.Reader, out io.Writer, interactive bool) error {
	// The demo's state never leaves the process, so a random key is right
	// here and needs no warning; a set MCPFORM_STATE_KEY is still used.
	codec, err := newCodec(os.Getenv(keyEnv), io.Discard)
	if err != nil {
		return err
	}
	s, err := newSignup(codec, st, "")
	if err != nil {
		return err
	}
	_, err = demo(ctx, newServer(s), in, out, interactive)
	return err
}

// demo runs one signup against server and returns the final result.
func demo(ctx context.Context, server *mcp.Server, in io.Reader, out io.Writer, interactive bool) (*mcp.CallToolResult, error) {
	tr := &transcript{out: out, orders: map[string][]string{}}
	p := &prompter{in: bufio.NewReader(in), tr: tr, echo: !interactive}
	client := mcp.NewClient(&mcp.Implementation{Name: "signup-demo", Version: "v0.1.0"}, &mcp.ClientOptions{
		ElicitationHandler: p.elicit,
	})

	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	// An empty ProtocolVersion asks for the latest, 2026-07-28: the client
	// then discovers the server and sends no initialize.
	cs, err := client.Connect(ctx, &wireLog{Transport: ct, tr: tr}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()

	tr.printf("mcpform signup demo: a go-sdk client on protocol %s calls the %q tool.\n", cs.InitializeResult().ProtocolVersion, toolName)
	tr.printf("Answer each question. An empty answer takes the default; \"decline\" or \"cancel\" stops.\n")
	// The client's default multi-round-trip loop answers each
	// input_required result by calling p.elicit, then retries the call
	// with the answers and the echoed requestState.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName})
	if err != nil {
		tr.printf("\nThe call failed: %v\n", err)
		return nil, err
	}
	return res, nil
}

// A transcript serializes what the demo prints.
type transcript struct {
	mu    sync.Mutex
	out   io.Writer
	round int
	// orders holds the property order of each form seen on the wire,
	// keyed by its sorted property names: go-sdk hands the elicitation
	// handler the schema as a map, which forgets the order the server
	// asked in.
	orders map[string][]string
}

func (t *transcript) order(names []string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if o, ok := t.orders[setKey(names)]; ok {
		return o
	}
	return names
}

func setKey(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

func (t *transcript) printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, format, args...)
}

// wireLog is a client transport that prints each tools/call as it crosses
// the wire, one round at a time: what the client sent and what the server
// answered.
type wireLog struct {
	mcp.Transport
	tr *transcript
}

func (w *wireLog) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &wireConn{Connection: c, tr: w.tr, calls: map[jsonrpc.ID]bool{}}, nil
}

type wireConn struct {
	mcp.Connection
	tr    *transcript
	mu    sync.Mutex
	calls map[jsonrpc.ID]bool // tools/call requests awaiting a response
}

func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		c.mu.Lock()
		c.calls[req.ID] = true
		c.mu.Unlock()
		c.logCall(req.Params)
	}
	return c.Connection.Write(ctx, msg)
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		mine := c.calls[resp.ID]
		delete(c.calls, resp.ID)
		c.mu.Unlock()
		if mine {
			c.logResult(resp)
		}
	}
	return msg, err
}

func (c *wireConn) logCall(raw json.RawMessage) {
	var p struct {
		Name           string                     `json:"name"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   string                     `json:"requestState"`
	}
	json.Unmarshal(raw, &p)
	c.tr.mu.Lock()
	defer c.tr.mu.Unlock()
	c.tr.round++
	fmt.Fprintf(c.tr.out, "\n── round %d %s\n", c.tr.round, strings.Repeat("─", 50))
	fmt.Fprintf(c.tr.out, "client → tools/call %s", p.Name)
	for key, r := range p.InputResponses {
		var er struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(r, &er)
		fmt.Fprintf(c.tr.out, "\n         %s %q", er.Action, key)
		if len(er.Content) > 0 {
			fmt.Fprintf(c.tr.out, " %s", er.Content)
		}
	}
	if p.RequestState != "" {
		fmt.Fprintf(c.tr.out, "\n         requestState echoed as received (%d bytes)", len(p.RequestState))
	}
	fmt.Fprintln(c.tr.out)
}

func (c *wireConn) logResult(resp *jsonrpc.Response) {
	c.tr.mu.Lock()
	defer c.tr.mu.Unlock()
	if resp.Error != nil {
		fmt.Fprintf(c.tr.out, "server ← error: %v\n", resp.Error)
		return
	}
	var r struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
		Content       []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	json.Unmarshal(resp.Result, &r)
	if len(r.InputRequests) > 0 {
		for key, ir := range r.InputRequests {
			fmt.Fprintf(c.tr.out, "server ← input_required: form %q", key)
			// An input request is {"method": ..., "params": ...}.
			var form struct {
				Params struct {
					RequestedSchema struct {
						Properties orderedKeys `json:"properties"`
					} `json:"requestedSchema"`
				} `json:"params"`
			}
			if json.Unmarshal(ir, &form) == nil {
				names := form.Params.RequestedSchema.Properties
				c.tr.orders[setKey(names)] = names
			}
		}
		if r.RequestState != "" {
			fmt.Fprintf(c.tr.out, "\n         requestState signed by the server (%d bytes)", len(r.RequestState))
		}
		fmt.Fprintln(c.tr.out)
		return
	}
	fmt.Fprintf(c.tr.out, "server ← result")
	if r.IsError {
		fmt.Fprintf(c.tr.out, " (isError)")
	}
	for _, ct := range r.Content {
		fmt.Fprintf(c.tr.out, "\n\n%s", ct.Text)
	}
	fmt.Fprintln(c.tr.out)
}

// A prompter is the demo client's elicitation handler: it renders a form
// elicitation in the terminal, one prompt per field, the way a host
// without a UI would.
type prompter struct {
	in   *bufio.Reader
	tr   *transcript
	echo bool // print each answer read, for input that is not a terminal
	eof  bool
}

// errStop ends the form early, with the action the person chose.
type errStop struct{ action string }

func (e errStop) Error() string { return e.action }

func (p *prompter) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	form, err := parseForm(req.Params.RequestedSchema, p.tr.order)
	if err != nil {
		return nil, err
	}
	p.tr.printf("\n")
	for _, line := range strings.Split(req.Params.Message, "\n") {
		if line == "" {
			p.tr.printf("\n")
			continue
		}
		p.tr.printf("  %s\n", line)
	}
	content := map[string]any{}
	for _, f := range form {
		v, ok, err := p.ask(f)
		var stop errStop
		if errors.As(err, &stop) {
			p.tr.printf("\n  → %s\n", stop.action)
			return &mcp.ElicitResult{Action: stop.action}, nil
		}
		if err != nil {
			return nil, err
		}
		if ok {
			content[f.name] = v
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// ask prompts for one field until the answer is valid, and returns its
// value, or false for an optional field left empty.
func (p *prompter) ask(f formField) (any, bool, error) {
	p.tr.printf("\n  %s\n", f.heading())
	if f.Description != "" {
		p.tr.printf("    %s\n", f.Description)
	}
	for {
		p.tr.printf("  > ")
		line, err := p.readLine()
		if err != nil {
			return nil, false, err
		}
		switch strings.ToLower(line) {
		case "decline", "cancel":
			return nil, false, errStop{strings.ToLower(line)}
		case "":
			if f.def != nil {
				d, _ := json.Marshal(f.def)
				p.tr.printf("    → %s (the default)\n", d)
				return f.def, true, nil
			}
			if !f.required {
				p.tr.printf("    → left empty\n")
				return nil, false, nil
			}
			p.tr.printf("    ✗ required\n")
			continue
		}
		v, problem := f.parse(line)
		if problem == "" {
			return v, true, nil
		}
		p.tr.printf("    ✗ %s\n", problem)
	}
}

// readLine reads one answer. The end of the input means cancel, as closing
// a form does.
func (p *prompter) readLine() (string, error) {
	if p.eof {
		return "", errStop{"cancel"}
	}
	line, err := p.in.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		p.eof = true
		if p.echo {
			p.tr.printf("(end of input)\n")
		}
		if errors.Is(err, io.EOF) {
			return "", errStop{"cancel"}
		}
		return "", err
	}
	line = strings.TrimSpace(line)
	if p.echo {
		p.tr.printf("%s\n", line)
	}
	return line, nil
}

// A formField is one property of a restricted elicitation schema.
type formField struct {
	*jsonschema.Schema
	name     string
	required bool
	def      any // the decoded default, or nil
}

// parseForm reads a requested schema, with its properties in the order
// that order returns for their names.
func parseForm(requested any, order func([]string) []string) ([]formField, error) {
	raw, err := json.Marshal(requested)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var keys struct {
		Properties orderedKeys `json:"properties"`
	}
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var form []formField
	for _, name := range order(keys.Properties) {
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		f := formField{Schema: prop, name: name}
		for _, r := range s.Required {
			f.required = f.required || r == name
		}
		if len(prop.Default) > 0 {
			json.Unmarshal(prop.Default, &f.def)
		}
		form = append(form, f)
	}
	return form, nil
}

// orderedKeys unmarshals the keys of a JSON object in document order,
// which a Go map forgets.
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

// heading is the field's title line: its title, whether it is required,
// and what it takes.
func (f formField) heading() string {
	title := f.Title
	if title == "" {
		title = f.name
	}
	var facts []string
	if f.required {
		facts = append(facts, "required")
	} else {
		facts = append(facts, "optional")
	}
	if what := f.takes(); what != "" {
		facts = append(facts, what)
	}
	if f.def != nil {
		d, _ := json.Marshal(f.def)
		facts = append(facts, "default "+strings.Trim(string(d), `"`))
	}
	return title + " (" + strings.Join(facts, "; ") + ")"
}

// takes describes the values the field accepts: its options, type, format
// and bounds.
func (f formField) takes() string {
	if len(f.Enum) > 0 {
		opts := make([]string, len(f.Enum))
		for i, e := range f.Enum {
			opts[i] = fmt.Sprint(e)
		}
		return "one of " + strings.Join(opts, ", ")
	}
	switch f.Type {
	case "integer", "number":
		what := "a number"
		if f.Type == "integer" {
			what = "a whole number"
		}
		switch {
		case f.Minimum != nil && f.Maximum != nil:
			return fmt.Sprintf("%s from %v to %v", what, *f.Minimum, *f.Maximum)
		case f.Minimum != nil:
			return fmt.Sprintf("%s, at least %v", what, *f.Minimum)
		case f.Maximum != nil:
			return fmt.Sprintf("%s, at most %v", what, *f.Maximum)
		}
		return what
	case "boolean":
		return "yes or no"
	case "string":
		var parts []string
		switch f.Format {
		case "email":
			parts = append(parts, "an email address")
		case "uri":
			parts = append(parts, "a URL")
		case "date":
			parts = append(parts, "a date, YYYY-MM-DD")
		case "date-time":
			parts = append(parts, "a date and time, RFC 3339")
		}
		switch {
		case f.MinLength != nil && f.MaxLength != nil:
			parts = append(parts, fmt.Sprintf("%d to %d characters", *f.MinLength, *f.MaxLength))
		case f.MinLength != nil:
			parts = append(parts, fmt.Sprintf("at least %d characters", *f.MinLength))
		case f.MaxLength != nil:
			parts = append(parts, fmt.Sprintf("up to %d characters", *f.MaxLength))
		}
		return strings.Join(parts, ", ")
	}
	return ""
}

// parse turns a typed answer into the field's JSON value, or says why it
// can't. These are the checks a careful client makes before sending; the
// server checks again, as it must.
func (f formField) parse(s string) (any, string) {
	if len(f.Enum) > 0 {
		for _, e := range f.Enum {
			if v, ok := e.(string); ok && strings.EqualFold(v, s) {
				return v, ""
			}
		}
		return nil, "not one of the options"
	}
	switch f.Type {
	case "integer", "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "not a number"
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, "not a whole number"
		}
		if (f.Minimum != nil && n < *f.Minimum) || (f.Maximum != nil && n > *f.Maximum) {
			return nil, "out of range: " + f.takes()
		}
		if f.Type == "integer" {
			return int64(n), ""
		}
		return n, ""
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, ""
		case "n", "no", "false":
			return false, ""
		}
		return nil, "answer yes or no"
	}
	n := utf8.RuneCountInString(s)
	if (f.MinLength != nil && n < *f.MinLength) || (f.MaxLength != nil && n > *f.MaxLength) {
		return nil, "wrong length: " + f.takes()
	}
	if f.Format == "email" {
		local, domain, ok := strings.Cut(s, "@")
		if !ok || local == "" || domain == "" || strings.ContainsAny(s, " \t") || strings.Contains(domain, "@") {
			return nil, "not an email address"
		}
	}
	return s, ""
}
