package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatelessAnswersJSON: a 2026-07-28 call that accepts either gets its
// result as one JSON body, not an event stream, which costs the server
// more and carries nothing more.
func TestStatelessAnswersJSON(t *testing.T) {
	s, _ := newTestSignup(t)
	srv := httptest.NewServer(newHTTPHandler(newServer(s), httpLimits{}))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"signup","_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"test","version":"0"}}}}`
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(protocolVersionHeader, statelessProtocol)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", toolName)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var r struct {
		Result struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(data, &r), "%s", data)
	assert.Equal(t, "input_required", r.Result.ResultType)
}
