package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// A result is one run: one server at one number of clients.
type result struct {
	setting  string // the name of the setting the Go servers ran with
	server   string
	clients  int
	rep      int
	signups  int
	elapsed  time.Duration
	p50, p99 time.Duration // per call
	cpu      time.Duration // the server's, during the measured time
	peak     int64         // the server's VmHWM during the run, bytes
	errors   int
}

func (r result) rate() float64 { return float64(r.signups) / r.elapsed.Seconds() }

// cpuPerSignup is the server's CPU time per signup, in milliseconds.
func (r result) cpuPerSignup() float64 {
	if r.signups == 0 {
		return 0
	}
	return float64(r.cpu) / float64(time.Millisecond) / float64(r.signups)
}

func (r result) line() string {
	return fmt.Sprintf("%-8s %-7s %4d %3d %10.0f %9.2f %9.2f %11.3f %9.1f %7d", r.setting, r.server, r.clients, r.rep, r.rate(),
		ms(r.p50), ms(r.p99), r.cpuPerSignup(), float64(r.peak)/(1<<20), r.errors)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// emails numbers the signups of the whole session, so each has an email of
// its own on every server.
var emails atomic.Int64

// sessionID keeps emails unique across sessions against the same store.
var sessionID = strconv.FormatInt(time.Now().UnixNano(), 36)

// prewarm loads s, unmeasured, for cfg.Prewarm at 16 clients.
func prewarm(ctx context.Context, s server, cfg config) error {
	if cfg.Prewarm <= 0 {
		return nil
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 16, MaxConnsPerHost: 16}
	defer tr.CloseIdleConnections()
	_, _, _, err := drive(ctx, &http.Client{Transport: tr, Timeout: time.Minute}, s.url, 16, cfg.Prewarm, "mix")
	return err
}

// load runs clients concurrent signup loops against s for cfg's warm-up,
// then for its duration, measured.
func load(ctx context.Context, s server, clients int, cfg config) (result, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	if cfg.Warmup > 0 {
		if _, _, _, err := drive(ctx, hc, s.url, clients, cfg.Warmup, cfg.Plan); err != nil {
			return result{}, err
		}
	}
	// The peak is this run's: neither the warm-up's nor the runs' before.
	if err := resetPeak(s.pid); err != nil {
		return result{}, err
	}
	cpu0, err := cpuTime(s.pid)
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	signups, lat, errs, err := drive(ctx, hc, s.url, clients, cfg.Duration, cfg.Plan)
	elapsed := time.Since(start)
	if err != nil {
		return result{}, err
	}
	cpu1, err := cpuTime(s.pid)
	if err != nil {
		return result{}, err
	}
	peak, err := peakMemory(s.pid)
	if err != nil {
		return result{}, err
	}
	slices.Sort(lat)
	return result{server: s.name, clients: clients, signups: signups, elapsed: elapsed,
		p50: quantile(lat, 0.50), p99: quantile(lat, 0.99), cpu: cpu1 - cpu0, peak: peak, errors: errs}, nil
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(int(q*float64(len(sorted))), len(sorted)-1)]
}

// drive runs clients loops of whole signups on url for d, and returns the
// signups completed, every call's latency and the number of failed
// signups. Too many failures end it with an error: a broken server would
// otherwise look fast.
func drive(ctx context.Context, hc *http.Client, url string, clients int, d time.Duration, plan string) (int, []time.Duration, int, error) {
	deadline := time.Now().Add(d)
	var (
		mu      sync.Mutex
		lat     []time.Duration
		signups int
		errs    int
		first   error
		wg      sync.WaitGroup
	)
	for w := range clients {
		wg.Go(func() {
			c := caller{hc: hc, url: url}
			mine, done, failed := make([]time.Duration, 0, 1024), 0, 0
			var err error
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				p := plan
				if plan == "mix" {
					p = [2]string{"pro", "team"}[(w+i)%2]
				}
				if e := c.signup(ctx, p, newEmail(), &mine); e != nil {
					failed++
					err = cmpErr(err, e)
					continue
				}
				done++
			}
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, mine...)
			signups += done
			errs += failed
			first = cmpErr(first, err)
		})
	}
	wg.Wait()
	if errs > 0 && errs*100 > signups {
		return 0, nil, errs, fmt.Errorf("%d of %d signups failed; the first: %w", errs, errs+signups, first)
	}
	return signups, lat, errs, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// A caller speaks the 2026-07-28 wire to one server.
type caller struct {
	hc    *http.Client
	url   string
	id    int
	buf   bytes.Buffer
	trace func(body []byte) // if set, sees each response's body
}

// reply is what the load generator reads of a tools/call response.
type reply struct {
	Result struct {
		ResultType        string `json:"resultType"`
		RequestState      string `json:"requestState"`
		StructuredContent struct {
			Status string `json:"status"`
		} `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// meta is what a 2026-07-28 client sends in every request's _meta.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpform-loadgen","version":"0"}}`

// newEmail returns an email no signup of the session has used.
func newEmail() string {
	return "lg" + sessionID + "-" + strconv.FormatInt(emails.Add(1), 10) + "@example.com"
}

// signup runs one whole signup of email on plan, appending each call's
// latency.
func (c *caller) signup(ctx context.Context, plan, email string, lat *[]time.Duration) error {
	r, err := c.call(ctx, "", "", lat)
	if err != nil {
		return err
	}
	if r.Result.ResultType != "input_required" || r.Result.RequestState == "" {
		return fmt.Errorf("first call: want the account form, got %q", r.Result.ResultType)
	}
	r, err = c.call(ctx, r.Result.RequestState,
		`"account":{"action":"accept","content":{"email":"`+email+`","full_name":"Ada Lovelace","plan":"`+plan+`"}}`, lat)
	if err != nil {
		return err
	}
	if plan == "team" {
		if r.Result.ResultType != "input_required" || r.Result.RequestState == "" {
			return fmt.Errorf("second call: want the team form, got %q", r.Result.ResultType)
		}
		r, err = c.call(ctx, r.Result.RequestState,
			`"team":{"action":"accept","content":{"team_name":"Analytical Engines","seats":12}}`, lat)
		if err != nil {
			return err
		}
	}
	if r.Result.ResultType != "complete" || r.Result.StructuredContent.Status != "created" {
		return fmt.Errorf("last call: want created, got %q, status %q", r.Result.ResultType, r.Result.StructuredContent.Status)
	}
	return nil
}

// call posts one tools/call of the signup tool with state and answers (a
// JSON object's members, "" for none) and decodes the response.
func (c *caller) call(ctx context.Context, state, answers string, lat *[]time.Duration) (*reply, error) {
	c.id++
	c.buf.Reset()
	c.buf.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(c.id) + `,"method":"tools/call","params":{"name":"signup",` + meta)
	if state != "" {
		state, _ := json.Marshal(state)
		c.buf.WriteString(`,"requestState":` + string(state))
	}
	if answers != "" {
		c.buf.WriteString(`,"inputResponses":{` + answers + `}`)
	}
	c.buf.WriteString(`}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(c.buf.Bytes()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "signup")
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	*lat = append(*lat, time.Since(start))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); len(body) > 0 && body[0] != '{' {
		// An event stream: the response is the last data line.
		i := bytes.LastIndex(body, []byte("data: "))
		if i < 0 {
			return nil, fmt.Errorf("a %s response without data", ct)
		}
		body = bytes.TrimSpace(body[i+len("data: "):])
	}
	if c.trace != nil {
		c.trace(body)
	}
	var r reply
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decoding %.200q: %w", body, err)
	}
	if r.Error != nil {
		return nil, errors.New("JSON-RPC error " + strconv.Itoa(r.Error.Code) + ": " + r.Error.Message)
	}
	return &r, nil
}
