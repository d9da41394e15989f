package e2e_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlowBodies sends requests whose body is too slow or too large over
// raw loopback sockets, and checks that the server answers and then closes
// each connection by itself, soon after -body-timeout. A server that
// clears its read deadline before answering leaves net/http draining the
// rest of the body with no deadline at all, and the connection open for
// as long as the client likes: enough of them exhaust the server's file
// descriptors.
func TestSlowBodies(t *testing.T) {
	const timeout = time.Second
	r := startReplica(t, keyA, "-body-timeout", timeout.String())
	u, err := url.Parse(r.url)
	require.NoError(t, err)
	// chunk is s as one chunk of a chunked body, not the last.
	chunk := func(s string) string { return strconv.FormatInt(int64(len(s)), 16) + "\r\n" + s + "\r\n" }
	for _, tt := range []struct {
		name    string
		path    string
		headers string // after the request line and Host
		body    string // sent, and then nothing more
		status  int
		within  time.Duration // from the headers to the close
	}{
		{"a partial body on /mcp", "/mcp", "Content-Type: application/json\r\nContent-Length: 1000\r\n",
			`{"jsonrpc":"2.0",`, http.StatusRequestTimeout, timeout},
		{"a partial chunked body on /mcp", "/mcp", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
			chunk(`{"jsonrpc":"2.0",`), http.StatusRequestTimeout, timeout},
		{"a body declared too large on /mcp", "/mcp", "Content-Type: application/json\r\nContent-Length: 100000\r\n",
			"", http.StatusRequestEntityTooLarge, 0},
		{"a chunked body too large on /mcp", "/mcp", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
			chunk(strings.Repeat(" ", 70<<10)), http.StatusRequestEntityTooLarge, 0},
		{"a partial body on /secret", "/secret", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n",
			"t=", 0, timeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", u.Host)
			require.NoError(t, err)
			defer conn.Close()
			// The client keeps its side open: only the server may end it.
			start := time.Now()
			_, err = io.WriteString(conn, "POST "+tt.path+" HTTP/1.1\r\nHost: "+u.Host+"\r\n"+tt.headers+"\r\n"+tt.body)
			require.NoError(t, err)

			// Bounded, so that a server that never closes fails the
			// test rather than hanging it.
			bound := tt.within + 3*time.Second
			require.NoError(t, conn.SetReadDeadline(start.Add(bound)))
			br := bufio.NewReader(conn)
			res, err := http.ReadResponse(br, nil)
			require.NoError(t, err, "no response within %v", bound)
			if tt.status != 0 {
				assert.Equal(t, tt.status, res.StatusCode)
			}
			_, err = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if err == nil {
				_, err = br.ReadByte()
			}
			closed := errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
			assert.True(t, closed, "want the connection closed (EOF) within %v of the headers, got %v after %v",
				bound, err, time.Since(start))
		})
	}
}
