package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The agreement suite on the mcp-go face: santhosh-tekuri/jsonschema, a
// JSON Schema 2020-12 validator asserting formats, judges each value
// against the schema exactly as mcp-go sends it (the result of Ask,
// marshalled), and mcpgo.Read must judge it the same.

// agreementPool is values on both sides of the rules of every field type.
var agreementPool = []any{
	nil, true, false, 0.0, 1.0, -1.0, 2.5, 5.0, 8.0, 9.0, 42.0, 1e300, 1.0e-7,
	"", "a", "ab", "x y", strings.Repeat("z", 101), "ada@example.com", "not an email", "a@b",
	"https://example.com/x", "example.com", "2026-08-03", "2026-02-30", "2024-02-29",
	"2026-08-03T10:00:00Z", "2026-08-03T10:00", "2026-08-03t23:59:60z", "5", "true",
	[]any{}, []any{"a"}, []any{"a", "a"}, []any{1.0}, map[string]any{},
}

// sentSchema returns the requested schema of form's request as mcp-go
// puts it on the wire.
func sentSchema(t *testing.T, form *mcpform.Form[mcpform.Answers]) map[string]any {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Meta = formMeta()
	res, err := mcpgo.Ask(context.Background(), form, req, "")
	require.NoError(t, err)
	wire, err := json.Marshal(res)
	require.NoError(t, err)
	var sent struct {
		InputRequests map[string]struct {
			Params struct {
				RequestedSchema map[string]any `json:"requestedSchema"`
			} `json:"params"`
		} `json:"inputRequests"`
	}
	require.NoError(t, json.Unmarshal(wire, &sent))
	s := sent.InputRequests[form.Key()].Params.RequestedSchema
	require.NotNil(t, s, "no schema in %s", wire)
	return s
}

func compile(t *testing.T, schema map[string]any) *santhosh.Schema {
	t.Helper()
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	c.AssertFormat()
	require.NoError(t, c.AddResource("mem:///s.json", doc))
	s, err := c.Compile("mem:///s.json")
	require.NoError(t, err)
	return s
}

func readContent(form *mcpform.Form[mcpform.Answers], content map[string]any) mcpform.Reply[mcpform.Answers] {
	var req mcp.CallToolRequest
	req.Params.InputResponses = mcpgoAnswer(form.Key(), content)
	return mcpgo.Read(form, req)
}

func TestAgreement(t *testing.T) {
	paths, err := filepath.Glob("../testdata/forms/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no field lists in ../testdata/forms")
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			var fields []mcpform.AutoFormField
			require.NoError(t, json.Unmarshal(data, &fields))
			// Secret fields are never in a form-mode request.
			fields = slices.DeleteFunc(fields, func(f mcpform.AutoFormField) bool { return f.Secret() })
			form, err := mcpform.NewForm[mcpform.Answers](fields, nil)
			require.NoError(t, err)
			schema := sentSchema(t, form)
			whole := compile(t, schema)
			loose := map[string]any{}
			for k, v := range schema {
				if k != "required" {
					loose[k] = v
				}
			}
			each := compile(t, loose) // one value at a time: nothing is required

			valid := map[string]any{}
			verdicts := map[bool]int{}
			for _, f := range form.Fields() {
				pool := append([]any{}, agreementPool...)
				for _, o := range f.Options {
					pool = append(pool, o.Value, []any{o.Value})
				}
				if f.Default != nil {
					pool = append(pool, f.Default)
				}
				for _, v := range pool {
					content := map[string]any{f.Name: v}
					ref := each.Validate(content) == nil
					r := readContent(form, content)
					ours := true
					for _, pr := range r.Problems {
						if pr.Field == f.Name && errors.Is(pr, mcpform.ErrInvalidValue) {
							ours = false
						}
					}
					assert.Equal(t, ref, ours, "field %q value %#v: santhosh says valid=%v", f.Name, v, ref)
					verdicts[ref]++
					if ref && ours {
						if _, ok := valid[f.Name]; !ok {
							valid[f.Name] = v
						}
					}
				}
			}
			assert.NotZero(t, verdicts[true], "no value was valid")
			assert.NotZero(t, verdicts[false], "no value was refused")
			// The whole answer, one accepted value per field.
			ref := whole.Validate(valid) == nil
			r := readContent(form, valid)
			assert.Equal(t, ref, r.Status == mcpform.ReplyAccepted, "whole answer %v: %v", valid, r.Problems)
		})
	}
}
