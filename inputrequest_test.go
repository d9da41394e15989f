package mcpform

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormInputRequestGolden(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			res, err := FormInputRequest(fields, &InputRequestOptions{
				Key:          name,
				Message:      "Tell us about " + name,
				RequestState: "opaque-state",
			})
			require.NoError(t, err)
			checkGolden(t, filepath.Join("testdata", "forms", name+".inputrequest.golden"), marshalIndent(t, res))
		})
	}
}

func TestFormInputRequestDefaults(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Type: TypeEmail}}
	for _, opts := range []*InputRequestOptions{nil, {}} {
		res, err := FormInputRequest(fields, opts)
		require.NoError(t, err)
		require.Len(t, res.InputRequests, 1)
		p, ok := res.InputRequests[DefaultInputKey].(*mcp.ElicitParams)
		require.True(t, ok, "want *mcp.ElicitParams under %q, got %#v", DefaultInputKey, res.InputRequests)
		assert.Equal(t, "form", p.Mode)
		assert.Equal(t, DefaultInputMessage, p.Message)
		assert.Empty(t, res.RequestState)
		assert.Empty(t, res.Content, "an input_required result carries no content")
	}
	_, err := FormInputRequest(nil, &InputRequestOptions{Key: "k"})
	assert.ErrorIs(t, err, ErrNoFields)
}

// sample returns a value that satisfies f, for driving real clients: the
// default when there is one, else the smallest value the bounds allow.
func sample(f *AutoFormField) any {
	if v, ok := f.defaultValue(); ok {
		return v
	}
	switch f.kind() {
	case kindBoolean:
		return true
	case kindNumber, kindInteger:
		switch {
		case f.Min != nil:
			return *f.Min
		case f.Max != nil:
			return *f.Max
		}
		return 7.0
	case kindEnum:
		return f.Options[0].Value
	case kindMulti:
		n := 1
		if f.Min != nil {
			n = int(*f.Min)
		}
		if f.Max != nil && int(*f.Max) < n {
			n = int(*f.Max)
		}
		var vs []any
		for _, o := range f.Options[:n] {
			vs = append(vs, o.Value)
		}
		return vs
	}
	switch f.format() {
	case "email":
		return "ada@example.com"
	case "uri":
		return "https://example.com/x"
	case "date":
		return "2026-07-28"
	case "date-time":
		return "2026-07-28T09:30:00Z"
	}
	n := 3
	if f.Min != nil {
		n = int(*f.Min)
	}
	if f.Max != nil && int(*f.Max) < n {
		n = int(*f.Max)
	}
	return strings.Repeat("é", n)
}

// TestFormInputRequestGoSDKClient sends every golden form through a real
// go-sdk client over the 2026-07-28 protocol. The client checks the
// requested schema before it calls its ElicitationHandler, and checks the
// accepted content against it, so this proves that every schema we emit is
// one go-sdk accepts, and that answers round-trip to the handler intact.
func TestFormInputRequestGoSDKClient(t *testing.T) {
	ctx := context.Background()
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			content := make(map[string]any, len(fields))
			for i := range fields {
				content[fields[i].Name] = sample(&fields[i])
			}

			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if a, ok := AcceptedFormInput(req.Params.InputResponses, name, fields); ok {
						b, err := json.Marshal(a)
						if err != nil {
							return nil, err
						}
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
					}
					if r := InputResponse(req.Params.InputResponses, name); r != nil {
						return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not accepted: " + r.Action}}}, nil
					}
					return FormInputRequest(fields, &InputRequestOptions{Key: name})
				})

			var asked []string
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: "accept", Content: content}, nil
				},
			})
			cs := connectClient(t, server, client, "")
			require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
			require.NoError(t, err)
			require.False(t, res.IsError, "%v", res.Content)
			assert.Equal(t, []string{DefaultInputMessage}, asked)

			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got))
			want := map[string]any{}
			b, _ := json.Marshal(content)
			require.NoError(t, json.Unmarshal(b, &want))
			assert.Equal(t, want, got)
		})
	}
}

// TestInputRequiredContentIsNotNull (issue 35, item 5): go-sdk writes a nil
// content list as "content": null, which the 2026-07-28 schema's
// InputRequiredResult does not have; an input_required result carries an
// empty list, as mcp-go writes it. e2e's TestHostileRawHTTP checks a
// flow's on the wire.
func TestInputRequiredContentIsNotNull(t *testing.T) {
	res, err := FormInputRequest(signupFields, nil)
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, []any{}, got["content"], "%s", b)
}
