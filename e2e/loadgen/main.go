// Command loadgen is mcpform's end-to-end load benchmark: whole signups
// against examples/signup and against the same flow written on the
// TypeScript server SDK (interop/signup-server.mjs), in one interleaved
// session on this machine.
//
// Each client of a run loops over whole signups with unique emails,
// speaking the 2026-07-28 wire on plain net/http: the first call gets the
// account form, the second answers it, and on the team plan a third
// answers the team form. For each server and number of clients it prints
// signups per second, the 99th percentile of a call's latency, the
// server's CPU time per signup (utime+stime from /proc/PID/stat) and its
// peak resident memory (VmHWM from /proc/PID/status), and at the end the
// medians of the runs, side by side. Each number of clients gets fresh
// server processes, warmed up (-prewarm) so that Node's JIT has settled;
// its runs alternate between the servers, and which goes first, so that
// both see the same load from the rest of the machine. The machine's
// load average is printed with the results: on a shared machine, compare
// only runs of one session.
//
// From the repository's root, with node and interop's packages installed,
// and the example set up as its package comment tells an operator of a
// small shared box (one thread, a memory budget):
//
//	go run ./e2e/loadgen -c 1,16,64,200 -d 15s -count 3 -go-env "GOMAXPROCS=1 GOGC=400 GOMEMLIMIT=56MiB"
//
// It is run by hand; no test times it. A smoke test runs it for a moment.
package main

import (
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
	Servers  []string      // "go", "ts"
	GoBin    string        // the example's binary; "" builds it
	GoArgs   []string      // more flags for the example
	GoEnv    []string      // more environment for the example, e.g. GOMAXPROCS=1
	Node     string        // node's path
	Root     string        // the repository's root
}

func main() {
	var (
		clients  = flag.String("c", "1,16,64,200", "comma-separated `counts` of concurrent clients")
		duration = flag.Duration("d", 15*time.Second, "measured `time` of each run")
		warmup   = flag.Duration("warmup", 2*time.Second, "unmeasured load before each run")
		prewarm  = flag.Duration("prewarm", 10*time.Second, "unmeasured load of each server, at 16 clients, before the first run: Node's JIT settles")
		count    = flag.Int("count", 3, "runs of each server at each client count; the table shows medians")
		plan     = flag.String("plan", "pro", "`plan` of every signup: pro (2 calls), team (3 calls) or mix")
		servers  = flag.String("servers", "go,ts", "servers to load: go (examples/signup), ts (interop/signup-server.mjs)")
		goBin    = flag.String("go-bin", "", "examples/signup `binary` (default: built from the repository)")
		goArgs   = flag.String("go-args", "", "more space-separated `flags` for the example, such as -db FILE")
		goEnv    = flag.String("go-env", "", "more space-separated `KEY=VALUE` for the example, such as GOMAXPROCS=1")
		node     = flag.String("node", "node", "node `binary`")
	)
	flag.Parse()
	cfg := config{Duration: *duration, Warmup: *warmup, Prewarm: *prewarm, Count: *count, Plan: *plan, GoBin: *goBin,
		GoArgs: strings.Fields(*goArgs), GoEnv: strings.Fields(*goEnv), Node: *node, Servers: strings.Split(*servers, ",")}
	var err error
	if cfg.Clients, err = parseInts(*clients); err == nil {
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

func (c config) check() error {
	if c.Duration <= 0 || c.Warmup < 0 || c.Prewarm < 0 || c.Count < 1 || len(c.Clients) == 0 {
		return fmt.Errorf("-d must be positive, -warmup and -prewarm not negative, -count and -c at least 1")
	}
	if c.Plan != "pro" && c.Plan != "team" && c.Plan != "mix" {
		return fmt.Errorf("-plan %q: want pro, team or mix", c.Plan)
	}
	for _, s := range c.Servers {
		if s != "go" && s != "ts" {
			return fmt.Errorf("-servers: %q is neither go nor ts", s)
		}
	}
	return nil
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

// run loads the servers at each number of clients in turn, prints each
// run and the medians to out, and returns the runs. Each number of
// clients gets fresh server processes, warmed up, so that a peak memory
// is that of its own load and not of the runs before it.
func run(ctx context.Context, cfg config, out io.Writer) ([]result, error) {
	if cfg.GoBin == "" && slices.Contains(cfg.Servers, "go") {
		bin, cleanup, err := buildExample(ctx, cfg.Root)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cfg.GoBin = bin
	}
	fmt.Fprintf(out, "# plan %s, %v measured per run after %v of warm-up, %d runs each; go: env %q, flags %q; %s\n",
		cfg.Plan, cfg.Duration, cfg.Warmup, cfg.Count, cfg.GoEnv, cfg.GoArgs, machine())
	fmt.Fprintf(out, "%-3s %4s %3s %10s %9s %9s %11s %9s %7s\n",
		"srv", "c", "run", "signups/s", "p50 ms", "p99 ms", "cpu ms/su", "peak MB", "errors")
	var all []result
	for _, c := range cfg.Clients {
		rs, err := runAt(ctx, cfg, c, out)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	printSummary(out, cfg, all)
	return all, nil
}

// runAt starts the servers, warms them up and loads them in turn with c
// clients, cfg.Count times each.
func runAt(ctx context.Context, cfg config, c int, out io.Writer) ([]result, error) {
	procs, stop, err := startServers(cfg)
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
				return nil, fmt.Errorf("%s at c=%d: %w", p.name, c, err)
			}
			r.rep = rep
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
