package mcpform

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPageRequest: the URL-mode request names the step's secrets by their
// titles and links to the page with a sealed token, after the page URL's
// own query if it has one; asked again while the page waits, it says so
// in its message and notes the waiting field for machines, with the same
// link.
func TestPageRequest(t *testing.T) {
	for _, tt := range []struct{ name, query, sep string }{
		{"plain page URL", "", "?"},
		{"page URL with a query", "?tenant=a", "&"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newSecretFixture(t, nil)
			fx.flow.secrets.PageURL += tt.query
			r, err := fx.flow.Next(context.Background(), secretCall("", nil))
			require.NoError(t, err)
			first := r.Result.InputRequests["password.secret"].(*mcp.ElicitParams)
			base, token, ok := strings.Cut(first.URL, tt.sep+"t=")
			require.True(t, ok, "the link %q carries its token after %q", first.URL, tt.sep)
			assert.Equal(t, fx.flow.secrets.PageURL, base)
			tok, err := url.QueryUnescape(token)
			require.NoError(t, err)
			assert.NotContains(t, payloadOf(t, tok), "alice", "the token is sealed")
			assert.Contains(t, first.Message, "New password")
			assert.Nil(t, first.Meta, "a first ask names no problem")

			// The form part answered, the page not yet sent.
			again, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{
				"password": map[string]any{"email": "alice@example.com"}, "password.secret": "accept"}))
			require.NoError(t, err)
			require.Equal(t, FlowAsk, again.Status)
			waiting := again.Result.InputRequests["password.secret"].(*mcp.ElicitParams)
			assert.Equal(t, first.URL, waiting.URL, "the same link from round to round")
			assert.Contains(t, waiting.Message, "still waiting")
			notes := notesOf(waiting.Meta)
			require.Len(t, notes, 1)
			assert.Equal(t, "password", notes[0].Field)
			assert.Contains(t, waiting.Message, notes[0].Problem, "the note is the message's words")
		})
	}
}
