package legacy

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInOrder: the requests of a first round that the caller recorded
// with InOrder reach the client one at a time, in the order of their keys,
// though go-sdk's bridge sends them at once; a decline stops the round,
// and the requests after it reach the handler unanswered.
func TestInOrder(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}
	for _, tt := range []struct {
		name      string
		actions   map[string]string // the client's answer, by message
		wantAsked []string
		wantSeen  string // what the handler's second run reads
	}{
		{"all answered", map[string]string{}, []string{"a", "b", "c"}, "a=accept b=accept c=accept"},
		{"the second declined", map[string]string{"b": "decline"}, []string{"a", "b"}, "a=accept b=decline c=none"},
		{"the first cancelled", map[string]string{"a": "cancel"}, []string{"a"}, "a=cancel b=none c=none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := newServer("t", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if len(req.Params.InputResponses) == 0 {
					res := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}}
					for _, k := range []string{"c", "a", "b"} {
						res.InputRequests[k] = Own(&mcp.ElicitParams{Mode: "form", Message: k, RequestedSchema: schema})
					}
					InOrder(req, res.InputRequests)
					return res, nil
				}
				var seen []string
				for _, k := range []string{"a", "b", "c"} {
					r, _ := req.Params.InputResponses[k].(*mcp.ElicitResult)
					if a := Answer(r); a != nil {
						seen = append(seen, k+"="+a.Action)
					} else {
						seen = append(seen, k+"=none")
					}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(seen, " ")}}}, nil
			})
			install(server, Options{})
			var (
				mu         sync.Mutex
				asked      []string
				open, most int
			)
			cs := connectOld(t, server, "2025-11-25", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params.Message)
				open++
				most = max(most, open)
				mu.Unlock()
				time.Sleep(50 * time.Millisecond) // time for another to come
				mu.Lock()
				open--
				mu.Unlock()
				if a := tt.actions[req.Params.Message]; a != "" {
					return &mcp.ElicitResult{Action: a}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"x": "y"}}, nil
			}, false)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
			require.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tt.wantAsked, asked, "asked, in order")
			assert.Equal(t, 1, most, "asked at once")
			require.Len(t, res.Content, 1, "%+v", res)
			assert.Equal(t, tt.wantSeen, res.Content[0].(*mcp.TextContent).Text)
		})
	}
	t.Run("no call served", func(t *testing.T) {
		assert.NotPanics(t, func() {
			InOrder(nil, nil)
			InOrder(&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}}, mcp.InputRequestMap{"a": &mcp.ElicitParams{}, "b": &mcp.ElicitParams{}})
		})
	})
}
