package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/internal/seam"
)

// The compiler checks that each of this face's calls is a whole
// seam.Call.
var _ seam.Call = (*call)(nil)

// call is an mcp-go tool request read as the core's call (see
// internal/seam): the conversion is all there is to this face.
// It copies the few fields it reads, so that the request, which handlers
// get by value, stays on their stack.
type call struct {
	ctx       context.Context
	tool      string
	state     string
	raw       json.RawMessage
	arguments any
	meta      *mcp.Meta
	header    http.Header
	responses mcp.InputResponses
	decoded   bool // answers are read as decoded, without asJSON (see Read)
}

func (c *call) read(ctx context.Context, req *mcp.CallToolRequest) {
	p := &req.Params
	*c = call{ctx: ctx, tool: p.Name, state: p.RequestState, raw: p.RawArguments,
		arguments: p.Arguments, meta: p.Meta, header: req.Header, responses: p.InputResponses}
}

// AcceptLanguage reads the call's acceptLanguage _meta, else its HTTP
// Accept-Language header.
func (c *call) AcceptLanguage() string {
	if c.meta != nil {
		if s, ok := c.meta.AdditionalFields[seam.MetaAcceptLanguage].(string); ok {
			return s
		}
	}
	if c.header == nil { // in process, or stdio: no HTTP request
		return ""
	}
	return c.header.Get(seam.HeaderAcceptLanguage)
}

func (c *call) Tool() string  { return c.tool }
func (c *call) State() string { return c.state }

// ViaView reports whether the call came through the viewer's companion
// tool (see AddViewer), which marks the context with a value no client
// can send.
func (c *call) ViaView() bool { return c.mark() != nil }

// EndView keeps view in the call's companion mark, for the companion to
// show the tool's last result with (see seam.Call.EndView).
func (c *call) EndView(view func(json.RawMessage) ([]byte, error)) {
	if m := c.mark(); m != nil {
		m.ended.Store(&view)
	}
}

// mark returns the companion's mark on the call's context; nil when the
// call did not come through the companion.
func (c *call) mark() *viewMark {
	if c.ctx == nil {
		return nil
	}
	m, _ := c.ctx.Value(viewMarkKey{}).(*viewMark)
	return m
}

// Legacy reports whether the call came on the legacy handshake, which
// mcp-go's bridge serves with elicitation/create.
func (c *call) Legacy() bool {
	if c.ctx == nil || server.ClientSessionFromContext(c.ctx) == nil {
		return false
	}
	info := server.RequestProtocolInfoFromContext(c.ctx)
	return info == nil || !info.Modern
}

// Apps reports whether the client declared MCP Apps with the viewer's
// MIME type: on 2026-07-28 in the request, else for the session.
func (c *call) Apps() bool {
	if c.ctx != nil {
		if info := server.RequestProtocolInfoFromContext(c.ctx); info != nil && info.ClientCapabilities != nil {
			return appsIn(info.ClientCapabilities.Extensions)
		}
	}
	if c.meta != nil {
		if caps, ok := c.meta.AdditionalFields[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			ext, _ := caps["extensions"].(map[string]any)
			return appsIn(ext)
		}
		if caps := c.meta.ClientCapabilities(); caps != nil {
			return appsIn(caps.Extensions)
		}
	}
	if c.ctx != nil {
		if s, ok := server.ClientSessionFromContext(c.ctx).(server.SessionWithClientInfo); ok {
			return appsIn(s.GetClientCapabilities().Extensions)
		}
	}
	return false
}

// appsIn reports whether extensions declare MCP Apps with the viewer's
// MIME type.
func appsIn(extensions map[string]any) bool {
	ui, _ := extensions[mcpform.AppsExtension].(map[string]any)
	types, _ := ui["mimeTypes"].([]any)
	for _, t := range types {
		if t == mcpform.AppMIMEType {
			return true
		}
	}
	if types, ok := ui["mimeTypes"].([]string); ok {
		for _, t := range types {
			if t == mcpform.AppMIMEType {
				return true
			}
		}
	}
	return false
}

// Arguments are the bytes the client sent when mcp-go kept them, else
// the decoded arguments marshalled; the core's digest reads both alike.
func (c *call) Arguments() (json.RawMessage, error) {
	if len(c.raw) > 0 {
		return c.raw, nil
	}
	if c.arguments == nil {
		return nil, nil
	}
	return json.Marshal(c.arguments)
}

func (c *call) Answer(key string) (seam.Answer, bool) {
	if c.decoded {
		return asDecoded(c.responses).Answer(key)
	}
	return answers(c.responses).Answer(key)
}
func (c *call) Modes() (form, url bool)              { return modes(c.ctx, c.meta) }
func (c *call) CapabilityError(form, url bool) error { return newCapabilityError(form, url) }
func (c *call) StateError(err error) error           { return server.NewHandlerError(stateError{err}) }
func (c *call) ArgumentsError(err error) error {
	return server.NewHandlerError(argumentsError{err})
}

// answers are mcp-go's input responses read as the core's answers.
type answers mcp.InputResponses

// asDecoded are answers read without asJSON, for Read's first pass: the
// content of a 2026-07-28 answer is JSON already.
type asDecoded mcp.InputResponses

func (a asDecoded) Answer(key string) (seam.Answer, bool) {
	if w, ok, kept := written(mcp.InputResponses(a), key); kept {
		return w, ok
	}
	r := server.ElicitationResponse(mcp.InputResponses(a), key)
	if r == nil {
		return seam.Answer{}, false
	}
	return seam.Answer{Action: string(r.Action), Content: r.Content}, true
}

// written reads the elicitation answer under key as the client wrote it,
// when mcp-go kept its bytes (kept), as it does for every response it
// decoded from JSON until a handler resolves it: its action, and its
// content as those bytes, which the core reads itself (see seam.Answer),
// rather than as encoding/json decodes them, numbers into float64,
// invalid UTF-8 into U+FFFD and a key given twice into its last value.
// A response that does not decode as an elicitation result is no answer,
// as for server.ElicitationResponse; one whose action or whose
// content's key says two things has no action the core takes, and is
// asked again.
func written(a mcp.InputResponses, key string) (ans seam.Answer, ok, kept bool) {
	r, found := a[key]
	if !found {
		return seam.Answer{}, false, true
	}
	if r.Elicitation != nil || r.Sampling != nil || r.Roots != nil {
		return seam.Answer{}, false, false // built in Go, or resolved
	}
	raw, err := r.MarshalJSON() // the bytes as written, not copied
	if err != nil || len(raw) == 0 {
		return seam.Answer{}, false, false
	}
	// Only the members encoding/json reads into an elicitation result
	// matter, matched as it matches them; a defect inside the content is
	// the core's to find, field by field. The bytes are JSON: mcp-go kept
	// them from a decoded request.
	var action, content []byte
	twice := false
	isObject := canonjson.EachMember(raw, func(k, v []byte) {
		switch {
		case memberIs(k, "action"):
			twice = twice || action != nil
			action = v
		case memberIs(k, "content"):
			twice = twice || content != nil
			content = v
		}
	})
	if !isObject {
		// null decodes as an empty result; anything else as none.
		return seam.Answer{}, string(bytes.TrimSpace(raw)) == "null", true
	}
	switch string(action) {
	case "", "null":
	case `"accept"`, `"decline"`, `"cancel"`: // the spec's, with no copy
		ans.Action = knownActions[action[1]]
	default:
		var s string
		if json.Unmarshal(action, &s) != nil {
			return seam.Answer{}, false, true // as mcp-go's decoding fails
		}
		ans.Action = s
	}
	if twice {
		ans.Action = "" // which action, or which content, is unclear
	}
	if content != nil && string(content) != "null" {
		ans.Content = json.RawMessage(content)
	}
	return ans, true, true
}

// knownActions are the spec's actions, by their first letter.
var knownActions = map[byte]string{'a': "accept", 'd': "decline", 'c': "cancel"}

// memberIs reports whether the key k, as written with its quotes, is the
// field name as encoding/json matches a key to a field: unescaped, and
// without regard to case.
func memberIs(k []byte, name string) bool {
	if bytes.IndexByte(k, '\\') >= 0 {
		var s string
		_ = json.Unmarshal(k, &s) // k is JSON: mcp-go decoded it
		return strings.EqualFold(s, name)
	}
	return len(k) == len(name)+2 && strings.EqualFold(string(k[1:len(k)-1]), name)
}

// builtInGo reports whether the content under key holds Go values JSON
// would not decode to, as an in-process client's may.
func (a asDecoded) builtInGo(key string) bool {
	r := server.ElicitationResponse(mcp.InputResponses(a), key)
	return r != nil && !isJSON(r.Content, 0)
}

// Answer decodes the elicitation result under key, as
// server.ElicitationResponse does; a response that does not decode as one
// is no answer. Content built in Go (by mcp-go's bridge, in process) is
// carried as JSON would carry it, so that it is judged as the wire's.
func (a answers) Answer(key string) (seam.Answer, bool) {
	if w, ok, kept := written(mcp.InputResponses(a), key); kept {
		return w, ok
	}
	r := server.ElicitationResponse(mcp.InputResponses(a), key)
	if r == nil {
		return seam.Answer{}, false
	}
	return seam.Answer{Action: string(r.Action), Content: asJSON(r.Content)}, true
}

// asJSON returns v as encoding/json would decode it: v itself when it is
// already made of JSON's Go types, as decoded content is.
func asJSON(v any) any {
	if isJSON(v, 0) {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v // the core refuses what is not an object
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

func isJSON(v any, depth int) bool {
	if depth > 2 { // form content is flat: an array of strings at most
		return false
	}
	switch v := v.(type) {
	case nil, string, float64, bool:
		return true
	case []any:
		for _, x := range v {
			if !isJSON(x, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, x := range v {
			if !isJSON(x, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// modes reports the elicitation modes the client of req declared: on
// 2026-07-28 those it sent with the request, which mcp-go has decoded into
// the context by the time a handler runs, or which _meta carries; on the
// legacy handshake those the session declared at initialize. Without a
// session and without _meta (a call made in process, by hand) nothing
// says: form mode is assumed, which mcp-go's bridge then asks for with
// elicitation/create, and URL mode is not.
func modes(ctx context.Context, m *mcp.Meta) (form, url bool) {
	if ctx != nil {
		if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientCapabilities != nil {
			return elicitation(info.ClientCapabilities.Elicitation)
		}
	}
	if m != nil {
		if caps, ok := m.AdditionalFields[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
			e, ok := caps["elicitation"].(map[string]any)
			if !ok {
				return false, false
			}
			url = e["url"] != nil
			return e["form"] != nil || !url, url
		}
		if caps := m.ClientCapabilities(); caps != nil {
			return elicitation(caps.Elicitation)
		}
	}
	if ctx != nil {
		if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
			caps := s.GetClientCapabilities()
			return elicitation(caps.Elicitation)
		}
	}
	return true, false
}

// elicitation reads the modes of an elicitation capability: form, or
// neither mode named, which the spec keeps meaning form.
func elicitation(e *mcp.ElicitationCapability) (form, url bool) {
	if e == nil {
		return false, false
	}
	return e.Form != nil || e.URL == nil, e.URL != nil
}

// A resultBox is a result and room for one elicitation's params, built
// in one allocation with the call that asks: mcp-go's types are large, and
// asking is mostly their making.
type resultBox struct {
	res   mcp.CallToolResult
	param [1]mcp.ElicitationParams
}

// render is the result of a round that asks, described by p, built in
// place into box: input requests, or an ordinary result (a view, a link,
// a request through the model) of one text block and structuredContent.
// An Outcome asks nothing, and renders as nil.
func render(box *resultBox, p seam.Presentation) *mcp.CallToolResult {
	res := &box.res
	switch p.Kind {
	case seam.Native, seam.Legacy: // mcp-go's bridge carries a legacy round
		res.ResultType = mcp.ResultTypeInputRequired
		res.InputRequests, res.RequestState = build(p.Requests, box.param[:]), p.State
		return contentLanguage(res, p.Language)
	case seam.View, seam.Link, seam.Model:
		res.Content = []mcp.Content{mcp.NewTextContent(p.Text)}
		res.StructuredContent = p.Structured
		if p.Meta != nil {
			res.Meta = &mcp.Meta{AdditionalFields: maps.Clone(p.Meta)}
		}
		return contentLanguage(res, p.Language)
	}
	return nil
}

// contentLanguage marks res, unless it is in English (lang ""), with the
// contentLanguage _meta of SEP-2792.
func contentLanguage(res *mcp.CallToolResult, lang string) *mcp.CallToolResult {
	switch {
	case lang == "":
	case res.Meta == nil:
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{seam.MetaContentLanguage: lang}}
	default:
		res.Meta.AdditionalFields[seam.MetaContentLanguage] = lang
	}
	return res
}

// build returns requests as mcp-go's, made for this result alone: its map
// and params are the caller's own, so that a handler that edits one
// result edits no other, and concurrent calls share no map. One request's
// params go into one, the box's room. The schema was marshalled once, when
// the form was compiled; its bytes are shared, read-only, as go-sdk's
// face shares them (copying them per call costs twice go-sdk's Ask).
func build(requests []seam.Request, one []mcp.ElicitationParams) mcp.InputRequests {
	params := one
	if len(requests) > len(one) {
		params = make([]mcp.ElicitationParams, len(requests))
	}
	in := make(mcp.InputRequests, len(requests))
	for i, r := range requests {
		params[i] = mcp.ElicitationParams{Mode: r.Mode, Message: r.Message, URL: r.URL}
		if r.Meta != nil {
			params[i].Meta = &mcp.Meta{AdditionalFields: r.Meta}
		}
		if r.Schema != nil {
			// Marshalled once, when the form was compiled: mcp-go sends
			// the bytes as they are.
			params[i].RequestedSchema = r.Schema
		}
		if r.Mode == mcp.ElicitationModeURL {
			// mcp-go's bridge refuses a URL elicitation without an ID
			// on the legacy handshake; 2026-07-28 correlates through the
			// state instead, and clients ignore the field.
			params[i].ElicitationID = r.Key
		}
		in[r.Key] = mcp.InputRequest{Method: mcp.MethodElicitationCreate, Elicitation: &params[i]}
	}
	return in
}
