package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bins are the Go servers, built once for the package's tests.
var bins struct {
	once    sync.Once
	m       map[string]string
	cleanup func()
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.cleanup != nil {
		bins.cleanup()
	}
	os.Exit(code)
}

// goServers returns the example's binary and the floor's.
func goServers(t *testing.T) (example, floor string) {
	root := testenv.Root(t)
	bins.once.Do(func() { bins.m, bins.cleanup, bins.err = build(context.Background(), root, examplePkg, floorPkg) })
	require.NoError(t, bins.err)
	return bins.m[examplePkg], bins.m[floorPkg]
}

// TestSmoke runs a whole session for a moment, against the three servers
// in both settings: each completes signups of both plans, with no
// failure, and the tables compare them. It says nothing of speed.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example and starts Node")
	}
	cfg := config{Clients: []int{2}, Duration: 300 * time.Millisecond, Count: 1, Plan: "mix",
		Servers: serverNames, Settings: []setting{{name: "defaults"}, {name: "budget", env: strings.Fields(defaultBudget)}},
		Node: testenv.Node(t), Root: testenv.Root(t)}
	cfg.GoBin, cfg.FloorBin = goServers(t)
	require.NoError(t, cfg.check())
	var out strings.Builder
	runs, err := run(context.Background(), cfg, &out)
	require.NoError(t, err, "output so far:\n%s", out.String())
	require.Len(t, runs, 6)
	for _, r := range runs {
		assert.Positive(t, r.signups, "%s at c=%d, %s, completed no signup", r.server, r.clients, r.setting)
		assert.Zero(t, r.errors, "%s at c=%d, %s", r.server, r.clients, r.setting)
		assert.Positive(t, r.peak, "%s's peak memory", r.server)
		assert.Positive(t, r.p99, "%s's p99", r.server)
	}
	for _, want := range []string{
		"| c | | mcpform | floor | TS | mcpform ÷ floor | mcpform ÷ TS |",
		"#### The example's defaults: both Go servers as shipped",
		"#### An equal memory budget for both Go servers: GOGC=off GOMEMLIMIT=256MiB",
		"| 2 | CPU ms per signup |",
	} {
		assert.Contains(t, out.String(), want)
	}
}

// TestFloorConversation holds the floor to examples/signup's conversation
// with the loadgen's client: on each plan, the same rounds, each answered
// with the same bytes but for the request state, so that the floor cannot
// drift into doing less.
func TestFloorConversation(t *testing.T) {
	cfg := config{Servers: []string{"mcpform", "floor"}}
	cfg.GoBin, cfg.FloorBin = goServers(t)
	procs, stop, err := startServers(cfg, setting{name: "defaults"})
	require.NoError(t, err)
	defer stop()

	conversation := func(s server, plan string) []string {
		var bodies []string
		c := caller{hc: &http.Client{Timeout: time.Minute}, url: s.url}
		c.trace = func(body []byte) {
			var r reply
			require.NoError(t, json.Unmarshal(body, &r), "%s", body)
			if st := r.Result.RequestState; st != "" {
				quoted, err := json.Marshal(st)
				require.NoError(t, err)
				require.Equal(t, 1, bytes.Count(body, quoted), "%s's request state in %s", s.name, body)
				body = bytes.Replace(body, quoted, []byte(`"STATE"`), 1)
			}
			bodies = append(bodies, string(body))
		}
		var lat []time.Duration
		require.NoError(t, c.signup(context.Background(), plan, "floor-"+plan+"@example.com", &lat), s.name)
		return bodies
	}
	// The same tool, whose input schema go-sdk reads on every call.
	inputSchema := func(s server) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
		req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var list struct {
			Result struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list), s.name)
		for _, tool := range list.Result.Tools {
			if tool.Name == "signup" {
				return string(tool.InputSchema)
			}
		}
		t.Fatalf("%s lists no signup tool", s.name)
		return ""
	}
	assert.JSONEq(t, inputSchema(procs[0]), inputSchema(procs[1]), "the floor's signup tool takes another input schema")
	for plan, rounds := range map[string]int{"pro": 2, "team": 3} {
		example, floor := conversation(procs[0], plan), conversation(procs[1], plan)
		require.Len(t, example, rounds, plan)
		assert.Equal(t, example, floor, "plan %s: the floor's answers differ from examples/signup's", plan)
		assert.Contains(t, example[rounds-1], `"text":"Signup complete: created Ada Lovelace \u003cfloor-`+plan)
	}
}

func TestConfigCheck(t *testing.T) {
	good := config{Clients: []int{1}, Duration: time.Second, Count: 1, Plan: "pro", Servers: serverNames,
		Settings: []setting{{name: "defaults"}}}
	require.NoError(t, good.check())
	for name, mutate := range map[string]func(*config){
		"no duration":    func(c *config) { c.Duration = 0 },
		"no runs":        func(c *config) { c.Count = 0 },
		"unknown plan":   func(c *config) { c.Plan = "gold" },
		"unknown server": func(c *config) { c.Servers = []string{"rust"} },
		"no setting":     func(c *config) { c.Settings = nil },
	} {
		t.Run(name, func(t *testing.T) {
			c := good
			mutate(&c)
			assert.Error(t, c.check())
		})
	}
	_, err := parseInts("1,x")
	assert.Error(t, err)
	n, err := parseInts("1, 16,64")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 16, 64}, n)

	sets, err := parseSettings("defaults, budget", "GOGC=off GOMEMLIMIT=1GiB")
	require.NoError(t, err)
	assert.Equal(t, []setting{{name: "defaults"}, {name: "budget", env: []string{"GOGC=off", "GOMEMLIMIT=1GiB"}}}, sets)
	_, err = parseSettings("defaults,fast", "")
	assert.Error(t, err)
}
