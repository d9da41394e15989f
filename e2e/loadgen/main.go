// Command loadgen is mcpform's end-to-end load benchmark: whole signups
// against examples/signup (mcpform), against the same conversation on
// go-sdk alone (the floor, e2e/loadgen/floor: what any library on go-sdk
// pays) and against the same flow written on the TypeScript server SDK
// (interop/signup-server.mjs), in one interleaved session on this
// machine, on loopback only.
//
// Each client of a run loops over whole signups with unique emails,
// speaking the 2026-07-28 wire on plain net/http: the first call gets the
// account form, the second answers it, and on the team plan a third
// answers the team form. For each server and number of clients it prints
// signups per second, the 99th percentile of a call's latency, the
// server's CPU time per signup (utime+stime from /proc/PID/stat) and its
// peak resident memory during the run (VmHWM from /proc/PID/status, reset
// through /proc/PID/clear_refs before it). At the end it prints, for each
// setting, a markdown table of the medians of the runs with mcpform's
// ratios to the floor and to TypeScript, for a note to paste.
//
// The Go servers run in two settings: the example's defaults, each as
// shipped, and an equal memory budget (-budget, GOGC=off GOMEMLIMIT=256MiB),
// under which both collectors run at the same rate. Each setting and
// number of clients gets fresh server processes, warmed up (-prewarm) so
// that Node's JIT has settled; its runs go mcpform, floor, ts, then ts,
// floor, mcpform, and so on, so that a drift of the machine's load hits
// them alike. The machine's load average is printed with the results: on
// a shared machine, compare only runs of one session. The session's length
// is about settings × client counts × servers × (prewarm + count ×
// (warmup + d)), which it prints first: 20 minutes with the defaults.
//
// From the repository's root, with node and interop's packages installed
// (cd interop && npm ci), on a quiet machine:
//
//	go run ./e2e/loadgen
//
// which is -c 1,16,64,200 -d 10s -count 3 -settings defaults,budget;
// -c and -d (or $LOADGEN_C and $LOADGEN_D) choose the client counts and
// the measured time of a run. -go-env adds environment to both Go
// servers in every setting, such as the memory settings examples/signup's
// package comment tells an operator of a small shared box:
//
//	go run ./e2e/loadgen -settings defaults -go-env "GOMAXPROCS=1 GOGC=400 GOMEMLIMIT=170MiB"
//
// It is run by hand; no test times it. A smoke test runs it for a moment,
// and TestFloorConversation holds the floor to the example's answers.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is what a session runs.
type config struct {
	Clients  []int         // numbers of concurrent clients, each a run
	Duration time.Duration // measured time of a run
	Warmup   time.Duration // unmeasured load before each run
	Prewarm  time.Duration // unmeasured load of each server before the first run
	Count    int           // runs of each server at each number of clients
	Plan     string        // pro (2 calls), team (3 calls) or mix (alternating)
	Servers  []string      // "mcpform", "floor", "ts"
	Settings []setting     // what the Go servers run with, each a session of its own
	GoBin    string        // the example's binary; "" builds it
	FloorBin string        // the floor's binary; "" builds it
	GoArgs   []string      // more flags for the example
	GoEnv    []string      // more environment for both Go servers, in every setting
	Node     string        // node's path
	Root     string        // the repository's root
}

// A setting is the environment both Go servers run with: the example's
// defaults, with none, or an equal memory budget. Their collectors
// otherwise run at rates of their own, so CPU per signup compares their
// heaps' sizes as much as their work.
type setting struct {
	name string
	env  []string
}

// defaultBudget is the equal memory budget: no collection until the heap
// nears 256 MiB, the same for both.
const defaultBudget = "GOGC=off GOMEMLIMIT=256MiB"

// serverNames are the servers -servers may name.
var serverNames = []string{"mcpform", "floor", "ts"}

func main() {
	var (
		clients  = flag.String("c", envOr("LOADGEN_C", "1,16,64,200"), "comma-separated `counts` of concurrent clients (or $LOADGEN_C)")
		duration = flag.Duration("d", envDuration("LOADGEN_D", 10*time.Second), "measured `time` of each run (or $LOADGEN_D)")
		warmup   = flag.Duration("warmup", 2*time.Second, "unmeasured load before each run")
		prewarm  = flag.Duration("prewarm", 10*time.Second, "unmeasured load of each server, at 16 clients, before the first run: Node's JIT settles")
		count    = flag.Int("count", 3, "runs of each server at each client count; the table shows medians")
		plan     = flag.String("plan", "pro", "`plan` of every signup: pro (2 calls), team (3 calls) or mix")
		servers  = flag.String("servers", "mcpform,floor,ts", "servers to load: mcpform (examples/signup), floor (e2e/loadgen/floor), ts (interop/signup-server.mjs)")
		settings = flag.String("settings", "defaults,budget", "`settings` of the Go servers: defaults (as shipped), budget (-budget)")
		budget   = flag.String("budget", defaultBudget, "space-separated `KEY=VALUE` of the equal memory budget setting")
		goBin    = flag.String("go-bin", "", "examples/signup `binary` (default: built from the repository)")
		floorBin = flag.String("floor-bin", "", "e2e/loadgen/floor `binary` (default: built from the repository)")
		goArgs   = flag.String("go-args", "", "more space-separated `flags` for the example, such as -db FILE")
		goEnv    = flag.String("go-env", "", "more space-separated `KEY=VALUE` for both Go servers in every setting, such as GOMAXPROCS=1")
		node     = flag.String("node", "node", "node `binary`")
	)
	flag.Parse()
	cfg := config{Duration: *duration, Warmup: *warmup, Prewarm: *prewarm, Count: *count, Plan: *plan,
		GoBin: *goBin, FloorBin: *floorBin, GoArgs: strings.Fields(*goArgs), GoEnv: strings.Fields(*goEnv),
		Node: *node, Servers: strings.Split(*servers, ",")}
	var err error
	if cfg.Clients, err = parseInts(*clients); err == nil {
		cfg.Settings, err = parseSettings(*settings, *budget)
	}
	if err == nil {
		err = cfg.check()
	}
	if err == nil {
		cfg.Root, err = root()
	}
	if err == nil {
		_, err = run(context.Background(), cfg, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func envDuration(key string, def time.Duration) time.Duration {
	d, err := time.ParseDuration(os.Getenv(key))
	if err != nil {
		return def
	}
	return d
}

func (c config) check() error {
	if c.Duration <= 0 || c.Warmup < 0 || c.Prewarm < 0 || c.Count < 1 || len(c.Clients) == 0 {
		return fmt.Errorf("-d must be positive, -warmup and -prewarm not negative, -count and -c at least 1")
	}
	if c.Plan != "pro" && c.Plan != "team" && c.Plan != "mix" {
		return fmt.Errorf("-plan %q: want pro, team or mix", c.Plan)
	}
	if len(c.Servers) == 0 || len(c.Settings) == 0 {
		return fmt.Errorf("-servers and -settings: want at least one")
	}
	for _, s := range c.Servers {
		if !slices.Contains(serverNames, s) {
			return fmt.Errorf("-servers: %q is none of %s", s, strings.Join(serverNames, ", "))
		}
	}
	return nil
}

// parseSettings returns the settings named in s, comma-separated, the
// budget one with the environment budget.
func parseSettings(s, budget string) ([]setting, error) {
	var out []setting
	for _, name := range strings.Split(s, ",") {
		switch name = strings.TrimSpace(name); name {
		case "defaults":
			out = append(out, setting{name: name})
		case "budget":
			out = append(out, setting{name: name, env: strings.Fields(budget)})
		default:
			return nil, fmt.Errorf("-settings: %q is neither defaults nor budget", name)
		}
	}
	return out, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-c %q: want positive integers, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// root returns the repository's root: the nearest directory up that holds
// go.mod.
func root() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(dir + "/go.mod"); serr == nil {
			return dir, nil
		}
		parent := dir[:max(strings.LastIndexByte(dir, '/'), 0)]
		if parent == dir || parent == "" {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
	return "", err
}

// run loads the servers in each setting at each number of clients in
// turn, prints each run and the medians to out, and returns the runs.
// Each setting and number of clients gets fresh server processes, warmed
// up, so that a peak memory is that of its own load and not of the runs
// before it.
func run(ctx context.Context, cfg config, out io.Writer) ([]result, error) {
	var pkgs []string
	if cfg.GoBin == "" && slices.Contains(cfg.Servers, "mcpform") {
		pkgs = append(pkgs, examplePkg)
	}
	if cfg.FloorBin == "" && slices.Contains(cfg.Servers, "floor") {
		pkgs = append(pkgs, floorPkg)
	}
	if len(pkgs) > 0 {
		bins, cleanup, err := build(ctx, cfg.Root, pkgs...)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cfg.GoBin, cfg.FloorBin = cmp.Or(cfg.GoBin, bins[examplePkg]), cmp.Or(cfg.FloorBin, bins[floorPkg])
	}
	fmt.Fprintf(out, "# plan %s, %v measured per run after %v of warm-up, %d runs each; go: env %q, flags %q; %s; about %v in all\n",
		cfg.Plan, cfg.Duration, cfg.Warmup, cfg.Count, cfg.GoEnv, cfg.GoArgs, machine(), cfg.estimate())
	fmt.Fprintf(out, "%-8s %-7s %4s %3s %10s %9s %9s %11s %9s %7s\n",
		"setting", "server", "c", "run", "signups/s", "p50 ms", "p99 ms", "cpu ms/su", "peak MB", "errors")
	var all []result
	for _, set := range cfg.Settings {
		for _, c := range cfg.Clients {
			rs, err := runAt(ctx, cfg, set, c, out)
			if err != nil {
				return nil, err
			}
			all = append(all, rs...)
		}
	}
	printSummary(out, cfg, all)
	return all, nil
}

// estimate is how long the session's load lasts, starts and builds aside.
func (c config) estimate() time.Duration {
	n := time.Duration(len(c.Settings) * len(c.Clients) * len(c.Servers))
	return n * (c.Prewarm + time.Duration(c.Count)*(c.Warmup+c.Duration))
}

// runAt starts the servers with set, warms them up and loads them in turn
// with c clients, cfg.Count times each: mcpform, floor, ts, then ts,
// floor, mcpform, and so on, so that a drift of the machine's load hits
// every server alike.
func runAt(ctx context.Context, cfg config, set setting, c int, out io.Writer) ([]result, error) {
	procs, stop, err := startServers(cfg, set)
	if err != nil {
		return nil, err
	}
	defer stop()
	for _, p := range procs {
		if err := prewarm(ctx, p, cfg); err != nil {
			return nil, fmt.Errorf("%s, warming up: %w", p.name, err)
		}
	}
	var all []result
	for rep := range cfg.Count {
		order := procs
		if rep%2 == 1 { // alternate which server goes first
			order = reversed(procs)
		}
		for _, p := range order {
			r, err := load(ctx, p, c, cfg)
			if err != nil {
				return nil, fmt.Errorf("%s at c=%d, %s: %w", p.name, c, set.name, err)
			}
			r.setting, r.rep = set.name, rep
			all = append(all, r)
			fmt.Fprintln(out, r.line())
		}
	}
	return all, nil
}

func reversed[T any](s []T) []T {
	r := make([]T, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

// machine describes the machine: its CPUs and load.
func machine() string {
	load, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(load))
	if len(f) > 3 {
		f = f[:3]
	}
	return fmt.Sprintf("load average %s at start", strings.Join(f, " "))
}
