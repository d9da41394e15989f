package mcpformtest

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxRounds bounds the rounds of one call: a server that asks forever
// fails the test rather than hang it.
const maxRounds = 50

// Call calls tool with args (nil sends none), as c's host does, until it
// ends: it answers each round with the next of answers, posts the rounds'
// secret pages, and, on the bare host, plays the model that calls the tool
// again. A script that runs out answers [Cancel]. A JSON-RPC error ends the
// call and is the outcome's Err; a broken connection fails the test.
func (c *Client) Call(ctx context.Context, tool string, args map[string]any, answers ...Answer) *Result {
	c.t.Helper()
	params := map[string]any{"name": tool}
	if args != nil {
		params["arguments"] = args
	}
	return c.run(ctx, params, answers)
}

// Replay sends last, the params of a tools/call such as a [Result]'s
// Last, again, as a host that retries or a person who pastes an old
// call would, with c's own _meta, and goes on as [Client.Call] does.
func (c *Client) Replay(ctx context.Context, last json.RawMessage, answers ...Answer) *Result {
	c.t.Helper()
	var params map[string]any
	dec := json.NewDecoder(bytes.NewReader(last))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil {
		c.t.Fatalf("mcpformtest: replaying: %v", err)
	}
	return c.run(ctx, params, answers)
}

// run calls until an outcome, the script's end, or maxRounds.
func (c *Client) run(ctx context.Context, params map[string]any, answers []Answer) *Result {
	c.t.Helper()
	s := script(answers)
	tool, _ := params["name"].(string)
	res := &Result{}
	for len(res.Rounds) < maxRounds {
		res.Last, _ = json.Marshal(c.withMeta(params))
		body, err := c.request(ctx, "tools/call", params, func(m *jsonrpc.Request) (any, error) {
			return c.legacy(ctx, m, &s, res)
		})
		if err != nil {
			we, ok := err.(*jsonrpc.Error)
			if !ok {
				we = &jsonrpc.Error{Message: err.Error()}
			}
			return res.end(Round{Path: PathOutcome, Err: we})
		}
		var r toolResult
		if err := json.Unmarshal(body, &r); err != nil {
			c.t.Fatalf("mcpformtest: reading the result of %s: %v", tool, err)
		}
		var round Round
		var next map[string]any
		last := r.ended()
		switch {
		case r.ResultType == "input_required":
			round, next = c.native(ctx, params, &r, s.next())
		case last != nil: // a view's submit's last result, as a view of it
			return res.end(last.outcome())
		case hasKeys(r.StructuredContent, "$prefab", "view"):
			round, next = c.view(ctx, &r, s.next())
		case hasKeys(r.StructuredContent, "arguments", "decline"):
			round, next = c.model(ctx, tool, &r, s.next())
		default:
			return res.end(r.outcome())
		}
		if next == nil {
			return res.end(round)
		}
		res.Rounds = append(res.Rounds, round)
		params = next
	}
	c.t.Fatalf("mcpformtest: %s asked more than %d rounds", tool, maxRounds)
	return nil
}

// end ends res with its last round.
func (res *Result) end(last Round) *Result {
	res.Rounds = append(res.Rounds, last)
	res.Round = last
	return res
}

// hasKeys reports whether raw is a JSON object with all of keys.
func hasKeys(raw json.RawMessage, keys ...string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// elicitParams is what the host reads of an elicitation.
type elicitParams struct {
	Meta struct {
		// Problems are the re-ask's problems as mcpform notes them
		// for machines, beside the words of its message.
		Problems []problemNote `json:"io.github.mcpform/problems"`
	} `json:"_meta"`
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
}

// native answers an input_required result's requests, the forms with a's
// values and the pages with a's secrets, and returns the round and the
// retry's params: the same call with the answers and the state echoed.
func (c *Client) native(ctx context.Context, params map[string]any, r *toolResult, a Answer) (Round, map[string]any) {
	c.t.Helper()
	round := Round{Path: PathURL}
	asked := map[string]*elicitParams{}
	forms := 0
	for key, raw := range r.InputRequests {
		var ir struct {
			Method string       `json:"method"`
			Params elicitParams `json:"params"`
		}
		if err := json.Unmarshal(raw, &ir); err != nil || ir.Method != "elicitation/create" {
			c.t.Fatalf("mcpformtest: input request %q is no elicitation the host answers: %s", key, raw)
		}
		asked[key] = &ir.Params
		if ir.Params.Mode != "url" {
			forms++
		}
	}
	responses := map[string]any{}
	var messages []string
	for _, key := range slices.Sorted(maps.Keys(asked)) {
		p := asked[key]
		messages = append(messages, p.Message)
		round.noted(p.Meta.Problems)
		if p.Mode == "url" {
			round.Link = p.URL
			c.page(ctx, &round, a)
			responses[key] = map[string]any{"action": a.action()}
			continue
		}
		round.Path = PathNative
		qs := questionsOf(p.RequestedSchema)
		round.Questions = append(round.Questions, qs...)
		resp := map[string]any{"action": a.action()}
		if a.action() == "accept" {
			resp["content"] = valuesFor(a.Values, qs, forms == 1)
		}
		responses[key] = resp
	}
	round.Message = strings.Join(messages, "\n\n")
	next := maps.Clone(params)
	next["inputResponses"] = responses
	delete(next, "requestState")
	if r.RequestState != "" {
		next["requestState"] = r.RequestState
	}
	return round, next
}

// valuesFor returns the values a form of qs is sent: all of them if it
// is the round's one form, else those of its own fields.
func valuesFor(values map[string]any, qs []Question, all bool) map[string]any {
	if all {
		return maps.Clone(values)
	}
	out := map[string]any{}
	for _, q := range qs {
		if v, ok := values[q.Name]; ok {
			out[q.Name] = v
		}
	}
	return out
}

// legacy answers the server's elicitation/create with the script's next
// answer, as a 2025-11-25 host does mid-call, and records the round.
func (c *Client) legacy(ctx context.Context, m *jsonrpc.Request, s *script, res *Result) (any, error) {
	if m.Method != "elicitation/create" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "mcpformtest: the host does not serve " + m.Method}
	}
	var p elicitParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "mcpformtest: " + err.Error()}
	}
	a := s.next()
	round := Round{Path: PathLegacy, Message: p.Message}
	round.noted(p.Meta.Problems)
	out := map[string]any{"action": a.action()}
	if p.Mode == "url" {
		round.Link = p.URL
		c.page(ctx, &round, a)
	} else {
		round.Questions = questionsOf(p.RequestedSchema)
		if a.action() == "accept" {
			out["content"] = maps.Clone(a.Values)
		}
	}
	res.Rounds = append(res.Rounds, round)
	return out, nil
}

// contract is what a result that asks through the model, or gives a
// link, says the next call must carry.
type contract struct {
	Message         string          `json:"message"`
	Problems        []problemNote   `json:"problems"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	Arguments       map[string]any  `json:"arguments"`
	Decline         map[string]any  `json:"decline"`
}

// model plays the model on a result that asks it to ask the person, or to
// give them a link: it posts the page, and calls tool again with the
// arguments the result says, plus a's values, or plus its decline.
func (c *Client) model(ctx context.Context, tool string, r *toolResult, a Answer) (Round, map[string]any) {
	c.t.Helper()
	var k contract
	dec := json.NewDecoder(bytes.NewReader(r.StructuredContent))
	dec.UseNumber()
	if err := dec.Decode(&k); err != nil {
		c.t.Fatalf("mcpformtest: reading what the model is asked: %v", err)
	}
	round := Round{Path: PathModel, Link: k.URL, Message: k.Message, Questions: questionsOf(k.RequestedSchema)}
	if k.RequestedSchema == nil {
		round.Path = PathLink // a link alone: its message is the page's
	}
	round.noted(k.Problems)
	if k.URL != "" {
		c.page(ctx, &round, a)
	}
	args := maps.Clone(k.Arguments)
	if args == nil {
		args = map[string]any{}
	}
	switch a.action() {
	case "cancel":
		return round, nil
	case "decline":
		maps.Copy(args, k.Decline)
	default:
		maps.Copy(args, a.Values)
	}
	return round, map[string]any{"name": tool, "arguments": args}
}
