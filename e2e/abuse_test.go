package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
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
	// One client opens them all: its own cap must not stop it first.
	r := startReplica(t, keyA, "-session-timeout", timeout.String(), "-max-sessions", fmt.Sprint(2*n),
		"-max-sessions-per-client", fmt.Sprint(2*n))
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

// TestSessionCap checks that the server keeps at most -max-sessions
// sessions: at the cap, a new initialize closes the session idle longest
// rather than being refused, so that sessions a flood abandoned lock no
// new client out until they time out (issue 33); a client that ends its
// session makes room as before. TestAbandonedCallsFreeSessions checks the
// 503 when every session has a call in flight.
func TestSessionCap(t *testing.T) {
	const n = 100
	r := startReplica(t, keyA, "-session-timeout", "10m", "-max-sessions", fmt.Sprint(n),
		"-max-sessions-per-client", fmt.Sprint(n)) // the global cap, from one address
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	ids := openSessions(t, client, r.url, n)
	// Every session but the first is used since: the first is idle longest.
	for _, id := range ids[1:] {
		code, _ := post(t, client, r.url, id, ping)
		require.Equal(t, http.StatusOK, code)
	}

	code, sid := post(t, client, r.url, "", initialize)
	require.Equal(t, http.StatusOK, code, "session %d at the cap of idle sessions", n+1)
	code, _ = post(t, client, r.url, sid, ping)
	assert.Equal(t, http.StatusOK, code, "the new session")
	code, _ = post(t, client, r.url, ids[0], ping)
	assert.Equal(t, http.StatusNotFound, code, "the session idle longest is closed")
	for _, id := range ids[1:] {
		code, _ = post(t, client, r.url, id, ping)
		require.Equal(t, http.StatusOK, code, "the other sessions stay open")
	}

	// A client that ends its session makes room.
	del, err := http.NewRequest(http.MethodDelete, r.url, nil)
	require.NoError(t, err)
	del.Header.Set("Mcp-Session-Id", ids[1])
	del.Header.Set("Mcp-Protocol-Version", legacy)
	resp, err := client.Do(del)
	require.NoError(t, err)
	resp.Body.Close()
	require.Less(t, resp.StatusCode, 300, "DELETE of the session")
	code, _ = post(t, client, r.url, "", initialize)
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

// openSession initializes an older client's session and returns its ID.
func openSession(t *testing.T, client *http.Client, u string) string {
	t.Helper()
	code, sid := post(t, client, u, "", initialize)
	require.Equal(t, http.StatusOK, code, "initialize")
	require.NotEmpty(t, sid)
	code, _ = post(t, client, u, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, code, "notifications/initialized")
	return sid
}

// callAndWalkAway posts a tools/call of signup with id on session sid and
// reads its event stream until the server either asks the person
// (elicitation/create) or answers the call; then it closes the stream, as
// a client that walked away. It returns "asked", or the answer's JSON-RPC
// error as "code message".
func callAndWalkAway(t *testing.T, client *http.Client, u, sid string, id int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, toolName)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", legacy)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "tools/call %d", id)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var msg struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &msg), "event %s", data)
		switch {
		case msg.Method == "elicitation/create":
			return "asked"
		case string(msg.ID) == fmt.Sprint(id) && msg.Error != nil:
			return fmt.Sprint(msg.Error.Code, " ", msg.Error.Message)
		case string(msg.ID) == fmt.Sprint(id):
			return "result " + string(msg.Result)
		}
	}
	t.Fatalf("tools/call %d: the stream ended without an answer: %v", id, sc.Err())
	return ""
}

// peakRSS returns the peak resident memory of process pid, in bytes, from
// /proc (Linux only).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc status for the server (%v): peak memory is measured on Linux only", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// TestAbandonedCalls sends 20,000 calls on one older client's session,
// each abandoned once the server asks the person: the server asks at most
// four of them (LegacyOptions' default per session) and refuses the rest
// at once, so its memory stays bounded. Unbounded, the calls took the
// server to about 950 MB and 40,000 goroutines for 10 minutes.
func TestAbandonedCalls(t *testing.T) {
	const (
		n       = 20000
		workers = 8
		perCall = 4 // LegacyOptions.MaxCallsPerSession's default
		// 20,000 calls held would take about 1 GB.
		maxGrowth = 64 << 20
	)
	// A session timeout longer than the test: no call ends by its
	// deadline and makes room for another while the test runs.
	r := startReplica(t, keyA, "-session-timeout", "2m")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	sid := openSession(t, client, r.url)
	base := peakRSS(t, r.pid)

	var mu sync.Mutex
	outcomes := map[string]int{}
	var wg sync.WaitGroup
	work := make(chan int)
	for range workers {
		wg.Go(func() {
			for id := range work {
				out := callAndWalkAway(t, client, r.url, sid, id)
				mu.Lock()
				outcomes[out]++
				mu.Unlock()
			}
		})
	}
	start := time.Now()
	sent := 0
	for ; sent < n; sent++ {
		if sent%1000 == 0 && peakRSS(t, r.pid)-base > maxGrowth {
			break // the bound is broken already: stop rather than swap
		}
		work <- sent + 10 // past initialize's IDs
	}
	close(work)
	wg.Wait()
	grown := peakRSS(t, r.pid) - base
	t.Logf("%d calls in %v; peak memory %d MB, grown by %d MB; outcomes %v",
		sent, time.Since(start).Round(time.Millisecond), (base+grown)>>20, grown>>20, outcomes)
	assert.Equal(t, map[string]int{
		"asked": perCall,
		"-32603 mcpform: this session has 4 calls waiting for input already, the most it may; answer or cancel one first": n - perCall,
	}, outcomes)
	assert.Less(t, grown, int64(maxGrowth), "the server's peak memory grew by %d MB", grown>>20)
}

// TestAbandonedCallsFreeSessions fills -max-sessions with older clients'
// sessions, each holding a call abandoned once the server asked the
// person. A new older client is refused with 503 while they hold the cap,
// and served within the session timeout and a few seconds: closing a
// session waits for its calls, and the example bounds their waits by
// -session-timeout. Unbounded, they held the cap for 10 minutes.
func TestAbandonedCallsFreeSessions(t *testing.T) {
	// The sessions must all be open before the first of them times out:
	// 200 take about a second here.
	const (
		n       = 200
		timeout = 5 * time.Second
		slack   = 5 * time.Second
	)
	// The global caps, filled from one address: TestOneClientCannotStarve
	// checks the caps per address.
	r := startReplica(t, keyA, "-session-timeout", timeout.String(), "-max-sessions", fmt.Sprint(n),
		"-max-sessions-per-client", fmt.Sprint(n), "-max-calls-per-client", fmt.Sprint(n), "-max-calls", fmt.Sprint(n))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()

	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				sid := openSession(t, client, r.url)
				assert.Equal(t, "asked", callAndWalkAway(t, client, r.url, sid, i))
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	abandoned := time.Now()

	code, _ := post(t, client, r.url, "", initialize)
	require.Equal(t, http.StatusServiceUnavailable, code, "the sessions of the abandoned calls fill the cap")
	var sid string
	for {
		code, sid = post(t, client, r.url, "", initialize)
		if code == http.StatusOK {
			break
		}
		require.Equal(t, http.StatusServiceUnavailable, code)
		if waited := time.Since(abandoned); waited > timeout+slack {
			t.Fatalf("a new older client still refused %v after the calls were abandoned, with -session-timeout %v", waited.Round(time.Millisecond), timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	served := time.Since(abandoned)
	// And it is asked, as a person would be: the cap on calls is free too.
	// It goes on with the session it got: another initialize could find
	// the cap full again, until the last abandoned session closes.
	code, _ = post(t, client, r.url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, code, "notifications/initialized")
	assert.Equal(t, "asked", callAndWalkAway(t, client, r.url, sid, 1))
	t.Logf("a new older client was served %v after %d calls were abandoned, with -session-timeout %v",
		served.Round(time.Millisecond), n, timeout)
}

// fromAddress returns an HTTP client whose connections come from the
// loopback address ip, a client of its own to the server. Linux routes
// all of 127/8 to loopback; elsewhere the test skips, and fails under CI.
func fromAddress(t *testing.T, ip string) *http.Client {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		testenv.Missing(t, "no loopback address %s here (%v): clients from several addresses need Linux's 127/8", ip, err)
	}
	ln.Close()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestOneClientCannotStarve: one older client, from one address, opens as
// many sessions as it can and abandons as many calls as it can on each,
// enough to fill every waiting call the server holds (-max-calls, half of
// -max-sessions) and -max-sessions too. The caps per address stop it first: a client
// that opened its session before is still asked, and one that comes after
// still gets a session and is asked. Before, both were refused for the
// whole session timeout.
func TestOneClientCannotStarve(t *testing.T) {
	const (
		sessions = 300 // past 1000 calls / 4 per session
		perCall  = 4   // LegacyOptions.MaxCallsPerSession's default
	)
	r := startReplica(t, keyA, "-session-timeout", "2m", "-max-sessions", fmt.Sprint(sessions))
	early, flood, late := fromAddress(t, "127.0.0.3"), fromAddress(t, "127.0.0.2"), fromAddress(t, "127.0.0.4")
	earlySID := openSession(t, early, r.url)

	var mu sync.Mutex
	outcomes := map[string]int{}
	count := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[s]++
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				code, sid := post(t, flood, r.url, "", initialize)
				if code != http.StatusOK {
					count(fmt.Sprint("initialize ", code))
					continue
				}
				code, _ = post(t, flood, r.url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				require.Equal(t, http.StatusAccepted, code)
				count("initialize 200")
				for j := range perCall + 1 {
					count(callAndWalkAway(t, flood, r.url, sid, 10+i*(perCall+1)+j))
				}
			}
		})
	}
	for i := range sessions {
		work <- i
	}
	close(work)
	wg.Wait()
	t.Logf("the flooding client's outcomes: %v", outcomes)

	assert.Equal(t, "asked", callAndWalkAway(t, early, r.url, earlySID, 1), "a client whose session opened first")
	code, sid := post(t, late, r.url, "", initialize)
	require.Equal(t, http.StatusOK, code, "a client that comes after the flood gets a session")
	code, _ = post(t, late, r.url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, "asked", callAndWalkAway(t, late, r.url, sid, 1), "and is asked")

	// The flood stopped at the caps per address: the example's defaults.
	assert.Equal(t, 16, outcomes["initialize 200"], "sessions of the flooding client")
	assert.Equal(t, 32, outcomes["asked"], "calls of the flooding client that wait")
}
