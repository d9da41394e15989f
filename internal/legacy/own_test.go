package legacy

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLegacyHandlersOwnElicit: the middleware leaves alone what a handler
// asks by itself, outside Own. An answer of 99 to a question with
// a maximum of 5 is refused by go-sdk's check with the middleware as
// without it, whether the handler sends its own elicitation/create or
// returns its own input request, which go-sdk's bridge sends; and the
// handler's params keep their schema. The middleware switched the check
// off for every elicitation of an older client's call, and cleared the
// handler's schema, so 99 came through.
func TestLegacyHandlersOwnElicit(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"n"},
		"properties": map[string]any{"n": map[string]any{"type": "integer", "maximum": 5}}}
	// A record is what the handler got, and the params it asked with.
	type record struct {
		got    string
		params *mcp.ElicitParams
	}
	reply := func(rec *record, s string) (*mcp.CallToolResult, error) {
		rec.got = s
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil
	}
	for _, tt := range []struct {
		name    string
		handler func(rec *record) mcp.ToolHandler
	}{
		{"its own Elicit", func(rec *record) mcp.ToolHandler {
			return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				rec.params = &mcp.ElicitParams{Mode: "form", Message: "How many?", RequestedSchema: schema}
				r, err := req.Session.Elicit(ctx, rec.params)
				if err != nil {
					return reply(rec, "refused: "+err.Error())
				}
				return reply(rec, fmt.Sprint("accepted ", r.Content["n"]))
			}
		}},
		{"its own input request", func(rec *record) mcp.ToolHandler {
			return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if r, ok := req.Params.InputResponses["n"].(*mcp.ElicitResult); ok {
					return reply(rec, fmt.Sprint("accepted ", r.Content["n"]))
				}
				rec.params = &mcp.ElicitParams{Mode: "form", Message: "How many?", RequestedSchema: schema}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"n": rec.params}}, nil
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// run returns what the handler got and whether its params
			// still hold their schema.
			run := func(installed bool) (string, bool) {
				rec := &record{}
				server := newServer("count", tt.handler(rec))
				if installed {
					install(server, Options{})
				}
				cs := connectOld(t, server, "2025-11-25", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 99}}, nil
				}, true)
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "count"})
				if err != nil && rec.got == "" {
					rec.got = "refused: " + err.Error() // go-sdk's bridge ended the call
				}
				require.NotNil(t, rec.params, "the handler asked")
				return rec.got, rec.params.RequestedSchema != nil
			}
			got, kept := run(false)
			require.Contains(t, got, "does not match requested schema", "go-sdk refuses 99 without the middleware")
			require.True(t, kept)
			gotWith, keptWith := run(true)
			assert.Equal(t, got, gotWith, "the middleware changes nothing the handler asks by itself")
			assert.True(t, keptWith, "the handler's params keep their schema")
		})
	}
}

// TestOwnRequests: only what Own recorded while the middleware served a
// call is sent unjudged by go-sdk, and the stand-in that carries its
// answer past Elicit is read back by Answer alone, never made from a
// client's JSON. (The root's TestLegacyOwnRequests holds its builders and
// InputResponse to it.)
func TestOwnRequests(t *testing.T) {
	idle := Own(&mcp.ElicitParams{Mode: "form", Message: "m"})
	done := Serving(nil) // as while the middleware serves a call
	asked := Own(&mcp.ElicitParams{Mode: "form", Message: "m"})
	copied := *asked
	done()
	for _, tt := range []struct {
		name string
		p    *mcp.ElicitParams
		want bool
	}{
		{"built while a call was served", asked, true},
		{"built while no call was served", idle, false},
		{"a handler's own", &mcp.ElicitParams{Mode: "form", Message: "m"}, false},
		{"a copy of the caller's", &copied, false},
		{"nil", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, IsOwn(tt.p)) })
	}

	answer := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 99.0}}
	s := StandIn(answer)
	assert.Nil(t, s.Content, "Elicit judges no stand-in")
	assert.Same(t, answer, Answer(s))
	assert.Same(t, answer, Answer(answer))
	for _, r := range []*mcp.ElicitResult{{Action: "decline"}, {Action: "accept"}, nil} {
		assert.Same(t, r, StandIn(r), "nothing to judge: passed as it is")
	}
	var forged mcp.ElicitResult
	require.NoError(t, json.Unmarshal([]byte(`{"action":"accept","_meta":{"`+standInKey+`":{"r":{"action":"accept","content":{"n":1}}}}}`), &forged))
	assert.Same(t, &forged, Answer(&forged), "a client cannot make a stand-in")
}

// TestServed: a session is served while a call of it is, and no longer.
func TestServed(t *testing.T) {
	assert.False(t, Served(nil))
	done := Serving(nil)
	again := Serving(nil)
	assert.True(t, Served(nil))
	done()
	assert.True(t, Served(nil), "one call still served")
	again()
	assert.False(t, Served(nil))
}
