package mcpform

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StateArgument is the argument under which the paths that answer through
// the tool's arguments carry a [Flow]'s state, or a [Form]'s: an MCP Apps
// view's submit, the call that follows a secret page's link, and an answer
// through the model. The tool's input schema must let it through, with the
// fields' names; [Flow.InputSchema] returns such a schema.
const StateArgument = "mcpform"

// A via is the way one round reaches the person.
type via int

const (
	viaForm  via = iota // input_required: native, or legacy rounds through the middleware
	viaApps             // a prefab view on an MCP Apps host
	viaModel            // an ordinary result that asks the model
)

// reach is what the client of a call declared it can be asked through.
type reach struct{ form, url, apps bool }

// reachOf reads what the client of req declared. Apps support is read only
// for a client without form elicitation, the one case where it matters.
func reachOf(req *mcp.CallToolRequest) reach {
	form, url := elicitationModes(req)
	r := reach{form: form, url: url}
	if !form {
		r.apps = appsDeclared(req)
	}
	return r
}

// appsDeclared reports whether the client of req renders MCP Apps, reading
// the per-request capabilities of 2026-07-28 in place when they arrived as
// JSON, as elicitationModes does.
func appsDeclared(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	if req.Params != nil {
		if m, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			ext, _ := m["extensions"].(map[string]any)
			ui, _ := ext[AppsExtension].(map[string]any)
			types, _ := ui["mimeTypes"].([]any)
			for _, t := range types {
				if t == AppMIMEType {
					return true
				}
			}
			return false
		}
	}
	return clientSupportsApps(req.ClientCapabilities())
}

// ownArguments returns the argument keys a flow's paths write: the state's
// and each field's name, with the key prefab's renderer sends it under.
// The state is bound to the call's arguments without them, so that
// answering through the arguments does not change what the state is bound
// to.
func ownArguments(steps []flowStep) map[string]bool {
	own := map[string]bool{StateArgument: true}
	for i := range steps {
		for _, f := range steps[i].c.all {
			own[f.Name], own[rendererKey(f.Name)] = true, true
		}
	}
	return own
}

// callArguments reads a call's arguments once: the digest of those the
// state is bound to, the state carried in them, and the rest to send back.
// Absent, null and {} arguments, and no state, cost nothing.
func (f *Flow) callArguments(raw json.RawMessage) (digest, token string, rest map[string]any, err error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "{}" || string(t) == "null" {
		digest, err = argumentsDigest(nil)
		return digest, "", nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", "", nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		digest, err = argumentsDigest(raw)
		return digest, "", nil, err
	}
	if s, ok := m[StateArgument].(string); ok {
		token = s
	} else if _, ok := m[StateArgument]; ok {
		token = "\x00" // present but not a string: a state that cannot verify
	}
	for k := range m {
		if f.own[k] {
			delete(m, k)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", "", nil, err
	}
	digest, err = argumentsDigest(b)
	return digest, token, m, err
}

// fromArguments returns the call's answer to s as read from its arguments,
// as an input response under s's key, or nil when the arguments name none
// of s's fields. On the Apps path the values are made typed as a browser
// sends them (see [AcceptedFormArguments]); through the model they are
// judged exactly as a native answer.
func (r *round) fromArguments(s *flowStep) mcp.InputResponseMap {
	content := argumentAnswers(r.req.Params.Arguments, s.c, r.can.apps && !r.can.form)
	if content == nil {
		return nil
	}
	return mcp.InputResponseMap{s.c.key: &mcp.ElicitResult{Action: "accept", Content: content}}
}

// argumentAnswers returns the values of c's fields in a call's arguments,
// or nil when there are none. Only c's fields are read, under their names
// or the keys the renderer sends them under; the rest are the tool's own.
func argumentAnswers(raw json.RawMessage, c *compiled, browser bool) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if browser {
		dec.UseNumber() // one out-of-range number fails its field, not the answer
	}
	var m map[string]any
	if dec.Decode(&m) != nil || len(m) == 0 {
		return nil
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil
	}
	content := make(map[string]any, len(c.fields))
	for i := range c.fields {
		name := c.fields[i].Name
		for _, k := range [2]string{name, rendererKey(name)} {
			if v, ok := m[k]; ok {
				content[k] = v
			}
		}
	}
	if len(content) == 0 {
		return nil
	}
	if browser {
		return c.normalizeArguments(content)
	}
	return content
}

// responses returns the answers the call carries: its input responses,
// or, for a state that came in the arguments, the answer to s read from
// them.
func (r *round) responses(s *flowStep) mcp.InputResponseMap {
	if r.inArgs {
		return r.fromArguments(s)
	}
	return r.req.Params.InputResponses
}

// byURL reports whether the call answers a step's secrets in URL mode: a
// native answer from a client that declared it. Everywhere else the person
// was given the page's link, and there is no consent to read.
func (r *round) byURL() bool { return r.can.url && !r.inArgs }

// pathFor picks how s's questions reach the person: a native form, an
// MCP Apps view, or the model, in that order, or the -32021 error when the
// client can be asked none of these ways. A step with a boolean field, a
// confirmation, fails closed rather than go through the model.
func (r *round) pathFor(s *flowStep) (via, error) {
	switch {
	case r.can.form:
		return viaForm, nil
	case r.can.apps:
		return viaApps, nil
	case r.flow.model && !confirms(s.c.fields):
		return viaModel, nil
	}
	return viaForm, requireInput(r.req, len(s.c.fields) > 0, len(s.c.secrets) > 0)
}

// confirms reports whether fields hold a boolean, which a model must never
// tick for the person.
func confirms(fields []AutoFormField) bool {
	for i := range fields {
		if fields[i].kind() == kindBoolean {
			return true
		}
	}
	return false
}

// present returns the result that asks s, naming problems and pre-filling
// filled, carrying token, on the way pathFor picks. Secrets go to URL mode
// on the native path of a client that declared it, and in a link
// everywhere else.
func (r *round) present(s *flowStep, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	if len(s.c.fields) == 0 {
		return r.presentPage(s, problems, token)
	}
	v, err := r.pathFor(s)
	if err != nil {
		return nil, err
	}
	switch v {
	case viaApps:
		return r.stepView(s, filled, problems, token)
	case viaModel:
		return r.modelResult(s, filled, problems, token)
	}
	res := s.c.reask(filled, problems, token)
	if len(s.c.secrets) > 0 && r.can.url {
		p, err := r.pageRequest(s, problems)
		if err != nil {
			return nil, err
		}
		res.InputRequests[s.urlKey()] = p
	}
	return res, nil
}

// presentPage returns the result that sends the person to s's secret page
// alone: a URL-mode request to a client that declared URL mode, and the
// link, in a view or an ordinary result, to one that can be asked some
// other way. A client that can be asked no way at all gets -32021.
func (r *round) presentPage(s *flowStep, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	switch {
	case r.can.url:
		p, err := r.pageRequest(s, problems)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{s.urlKey(): p}, RequestState: token}, nil
	case r.can.apps && !r.can.form:
		return r.linkView(s, problems, token)
	case r.can.form || r.flow.model:
		return r.linkResult(s, problems, token)
	}
	return nil, requireInput(r.req, false, true)
}

// sendBack returns the arguments the next call carries: the tool's own
// arguments of this call, and the state.
func (r *round) sendBack(token string) map[string]any {
	out := make(map[string]any, len(r.rest)+1)
	for k, v := range r.rest {
		out[k] = v
	}
	out[StateArgument] = token
	return out
}

// InputSchema returns the input schema of a tool that runs the flow: base
// (nil means {"type": "object"}), copied, with the properties that the
// paths answering through the arguments send added: [StateArgument], a
// string, and each field's name, and the key prefab's renderer sends it
// under, of any type, because a browser sends numbers as text and the
// flow judges every value itself. Secret fields are never sent, and are
// not added. A base whose additionalProperties is false keeps it: the
// flow's keys are properties.
func (f *Flow) InputSchema(base *jsonschema.Schema) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object"}
	if base != nil {
		s = base.CloneSchemas()
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	add := func(name string, p *jsonschema.Schema) {
		if _, ok := s.Properties[name]; !ok {
			s.Properties[name] = p
			s.PropertyOrder = append(s.PropertyOrder, name)
		}
	}
	add(StateArgument, &jsonschema.Schema{Type: "string",
		Description: "The state of the form, sent back unchanged as a previous result of this tool gave it."})
	for i := range f.steps {
		for _, fd := range f.steps[i].c.fields {
			add(fd.Name, &jsonschema.Schema{Description: fd.title()})
			add(rendererKey(fd.Name), &jsonschema.Schema{Description: fd.title()})
		}
	}
	return s
}
