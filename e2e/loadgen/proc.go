package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A server is one server process under test.
type server struct {
	name string // "mcpform", "floor" or "ts"
	url  string
	pid  int
}

// listening is what every server prints on stderr, after its name and
// before its URL, on one line.
const listening = ": listening on "

// clockTicks is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux that Go and Node run on.
const clockTicks = 100

// The Go servers' packages, built from the repository.
const (
	examplePkg = "./examples/signup"
	floorPkg   = "./e2e/loadgen/floor"
)

// build builds the Go packages pkgs from the repository at root into a
// temporary directory, and returns their binaries, by package, and the
// function that removes them.
func build(ctx context.Context, root string, pkgs ...string) (map[string]string, func(), error) {
	dir, err := os.MkdirTemp("", "mcpform-loadgen-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	bins := map[string]string{}
	for _, pkg := range pkgs {
		bin := filepath.Join(dir, filepath.Base(pkg))
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		bins[pkg] = bin
	}
	return bins, cleanup, nil
}

// startServers starts the servers cfg names, the Go ones with set's
// environment, each on a free loopback port with a new key, and returns
// them and the function that stops them.
func startServers(cfg config, set setting) ([]server, func(), error) {
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	key := make([]byte, 32)
	rand.Read(key)
	env := append(os.Environ(), "MCPFORM_STATE_KEY="+hex.EncodeToString(key))
	// Later entries win: set's over -go-env's over the loadgen's own.
	goEnv := slices.Concat(env, cfg.GoEnv, set.env)
	var out []server
	for _, name := range cfg.Servers {
		var cmd *exec.Cmd
		switch name {
		case "mcpform":
			cmd = exec.Command(cfg.GoBin, append([]string{"-http", "127.0.0.1:0"}, cfg.GoArgs...)...)
			cmd.Env = goEnv
		case "floor":
			cmd = exec.Command(cfg.FloorBin, "-http", "127.0.0.1:0")
			cmd.Env = goEnv
		case "ts":
			cmd = exec.Command(cfg.Node, filepath.Join(cfg.Root, "interop", "signup-server.mjs"))
			cmd.Dir = filepath.Join(cfg.Root, "interop")
			cmd.Env = env
		}
		s, kill, err := start(name, cmd)
		if err != nil {
			stop()
			return nil, nil, err
		}
		stops = append(stops, kill)
		out = append(out, s)
	}
	return out, stop, nil
}

// start starts cmd and waits for its URL on stderr.
func start(name string, cmd *exec.Cmd) (server, func(), error) {
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return server{}, nil, err
	}
	if err := cmd.Start(); err != nil {
		return server{}, nil, fmt.Errorf("starting %s: %w", name, err)
	}
	kill := func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), listening); ok && strings.HasPrefix(u, "http://127.0.0.1:") {
				urls <- u
			} else {
				fmt.Fprintf(os.Stderr, "%s: %s\n", name, sc.Text())
			}
		}
		close(urls)
	}()
	select {
	case u, ok := <-urls:
		if ok {
			return server{name: name, url: u, pid: cmd.Process.Pid}, kill, nil
		}
	case <-time.After(30 * time.Second):
	}
	kill()
	return server{}, nil, fmt.Errorf("%s printed no %q line", name, listening)
}

// cpuTime returns the CPU time process pid has used, user and system.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command, field 2, is in parentheses and may hold spaces; utime
	// and stime are fields 14 and 15, the 12th and 13th after it.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, errors.New("unexpected /proc/PID/stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

// peakMemory returns the peak resident memory of process pid, VmHWM.
func peakMemory(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

// resetPeak resets the peak resident memory of process pid, VmHWM, to
// what it holds now (proc(5), /proc/PID/clear_refs).
func resetPeak(pid int) error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting the peak memory: %w", err)
	}
	return nil
}
