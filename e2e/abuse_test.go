package e2e_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// initialize is an older client's first request, which opens a session.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"elicitation":{}},"clientInfo":{"name":"abandoned","version":"0"}}}`

// post sends body to the server at u as a streamable HTTP POST, with
// session ID sid if not "", and returns the response's status and session
// ID.
func post(t *testing.T, client *http.Client, u, sid, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", legacy)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// openSessions sends n initializes, eight at a time, and returns the
// session IDs they opened.
func openSessions(t *testing.T, client *http.Client, u string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				code, sid := post(t, client, u, "", initialize)
				if assert.Equal(t, http.StatusOK, code) {
					ids[i] = sid
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	require.NotContains(t, ids, "", "every initialize opened a session")
	return ids
}

// ping is a request on a session; it answers 404 once the session is gone.
const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`

// TestAbandonedSessions opens 2,000 sessions of an older client that never
// come back, and checks that the server closes every one of them once the
// idle timeout has passed.
func TestAbandonedSessions(t *testing.T) {
	const (
		n       = 2000
		timeout = 3 * time.Second
	)
	r := startReplica(t, keyA, "-session-timeout", timeout.String(), "-max-sessions", fmt.Sprint(2*n))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	ids := openSessions(t, client, r.url, n)

	// The last session opened a moment ago: it is open, and it is no
	// 404 that the loop below counts.
	code, _ := post(t, client, r.url, ids[n-1], ping)
	require.Equal(t, http.StatusOK, code, "a session is open before its timeout")

	// Each session's timer starts when its last request ends: a timeout
	// after the ping, all of them must have closed.
	time.Sleep(timeout + time.Second)
	deadline := time.Now().Add(5 * time.Second)
	closed := 0
	for _, sid := range ids {
		for {
			code, _ := post(t, client, r.url, sid, ping)
			if code == http.StatusNotFound {
				closed++
				break
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	assert.Equal(t, n, closed, "sessions closed by the idle timeout")
}

// TestSessionCap checks that the server refuses sessions beyond
// -max-sessions with 503, and takes new ones as old ones close.
func TestSessionCap(t *testing.T) {
	const n = 100
	r := startReplica(t, keyA, "-session-timeout", "10m", "-max-sessions", fmt.Sprint(n))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	ids := openSessions(t, client, r.url, n)

	req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(initialize))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "session %d is over the cap", n+1)
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	// A client that ends its session makes room.
	del, err := http.NewRequest(http.MethodDelete, r.url, nil)
	require.NoError(t, err)
	del.Header.Set("Mcp-Session-Id", ids[0])
	del.Header.Set("Mcp-Protocol-Version", legacy)
	resp, err = client.Do(del)
	require.NoError(t, err)
	resp.Body.Close()
	require.Less(t, resp.StatusCode, 300, "DELETE of the session")
	code, _ := post(t, client, r.url, "", initialize)
	assert.Equal(t, http.StatusOK, code, "the cap frees up as sessions close")
}

// TestLargeBodies sends request bodies over the 64 KiB limit: refused with
// 413, before the server has read them, whether the size is declared or
// not. A body within the limit is served.
func TestLargeBodies(t *testing.T) {
	r := startReplica(t, keyA)
	u, err := url.Parse(r.url)
	require.NoError(t, err)
	padded := func(size int) string {
		// A valid initialize, padded with spaces to size bytes.
		return initialize + strings.Repeat(" ", size-len(initialize))
	}

	t.Run("declared 2 MiB, refused before it is sent", func(t *testing.T) {
		// Send the headers and the first 1 KiB only: the answer must come
		// without the rest.
		conn, err := net.Dial("tcp", u.Host)
		require.NoError(t, err)
		defer conn.Close()
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", u.Path, u.Host, 2<<20)
		conn.Write(bytes.Repeat([]byte(" "), 1<<10))
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err, "no response before the body was sent")
		defer resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	})
	for _, tt := range []struct {
		name    string
		size    int
		chunked bool
		want    int
	}{
		{"2 MiB, chunked", 2 << 20, true, http.StatusRequestEntityTooLarge},
		{"2 MiB, declared", 2 << 20, false, http.StatusRequestEntityTooLarge},
		{"one byte over 64 KiB, chunked", 64<<10 + 1, true, http.StatusRequestEntityTooLarge},
		{"64 KiB exactly", 64 << 10, false, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(padded(tt.size))
			if tt.chunked {
				body = io.MultiReader(body) // hides the length: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, r.url, body)
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode)
			assert.Equal(t, tt.chunked, req.ContentLength == 0, "the body's length was hidden")
		})
	}
}
