package legacy

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

// TestWithID: a URL-mode request without an elicitationId is sent with
// the digest of what PageKey names, or of its URL, in a copy; one with an
// ID is sent as it is.
func TestWithID(t *testing.T) {
	p := &mcp.ElicitParams{Message: "m", URL: "https://x/page?t=1"}
	plain := (&bridge{}).withID(p)
	assert.Equal(t, "url", plain.Mode)
	assert.Equal(t, ElicitationID(p.URL), plain.ElicitationID)
	assert.Empty(t, p.ElicitationID, "p itself is not edited")

	keyed := (&bridge{pageKey: func(link string) string { return "run/step" }}).withID(p)
	assert.Equal(t, ElicitationID("run/step"), keyed.ElicitationID)
	assert.NotEqual(t, plain.ElicitationID, keyed.ElicitationID)

	assert.Same(t, keyed, (&bridge{}).withID(keyed), "an ID stays")
	assert.Len(t, ElicitationID("x"), 22, "16 bytes, base64url")
	assert.True(t, isURLMode(&mcp.ElicitParams{URL: "https://x"}))
	assert.False(t, isURLMode(&mcp.ElicitParams{Mode: "form"}))
}
