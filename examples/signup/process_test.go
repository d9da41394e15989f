package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcess builds the example with go build, once, and runs the binary
// as a user, a host and an operator would: the demo with piped answers,
// bad flags and keys, -stdio, and two -http replicas.
func TestProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example binary")
	}
	bin := buildSignup(t)
	t.Run("demo", func(t *testing.T) { testDemoBinary(t, bin) })
	t.Run("flags", func(t *testing.T) { testFlags(t, bin) })
	t.Run("keys", func(t *testing.T) { testKeys(t, bin) })
	t.Run("stdio", func(t *testing.T) { testStdio(t, bin) })
	t.Run("http", func(t *testing.T) { testHTTP(t, bin) })
	t.Run("replicas", func(t *testing.T) { testReplicas(t, bin) })
}

// buildSignup builds the example into a temporary directory and returns
// the binary's path.
func buildSignup(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "signup")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return bin
}

// runBin runs bin with args, env added to the environment (less any
// MCPFORM_STATE_KEY) and stdin, and returns its exit code and output.
func runBin(t *testing.T, bin string, env []string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), o.String(), e.String()
	}
	require.NoError(t, err)
	return 0, o.String(), e.String()
}

// environ is the test's environment without MCPFORM_STATE_KEY.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, keyEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}

func testDemoBinary(t *testing.T, bin string) {
	for _, tt := range []struct {
		name, input string
		want        []string
	}{
		{"pro plan", "ada@example.com\nAda Lovelace\npro\n", []string{"Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan."}},
		{"team plan", "ada@example.com\n\nteam\nAnalytical Engines\n12\n", []string{
			"── round 3", `Signup complete: created ada@example.com on the Team plan for "Analytical Engines", 12 seats.`}},
		{"no input", "", []string{"Signup not completed: the form was cancelled"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBin(t, bin, nil, tt.input)
			require.Equal(t, 0, code, "stderr:\n%s", stderr)
			assert.Empty(t, stderr, "the demo needs no key and warns about none")
			for _, w := range tt.want {
				assert.Contains(t, stdout, w)
			}
		})
	}
}

func testFlags(t *testing.T, bin string) {
	for _, args := range [][]string{
		{"-nope"},
		{"-http"},
		{"-stdio", "-http", "127.0.0.1:0"},
		{"extra"},
		{"-principal", ""},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runBin(t, bin, nil, "", args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "Usage: ")
		})
	}
	t.Run("-h", func(t *testing.T) {
		_, _, stderr := runBin(t, bin, nil, "", "-h")
		assert.Contains(t, stderr, "Usage: ")
		assert.Contains(t, stderr, keyEnv)
	})
}

func testKeys(t *testing.T, bin string) {
	for _, tt := range []struct {
		name, key, want string
	}{
		{"short", "00112233", "MCPFORM_STATE_KEY: key 0 has 4 bytes; want at least 32"},
		{"not hex", strings.Repeat("zz", 32), "MCPFORM_STATE_KEY: key 0 is not hex"},
		{"short second key", keyA + ",abcd", "MCPFORM_STATE_KEY: key 1 has 2 bytes"},
		{"empty key in the list", keyA + ",", "MCPFORM_STATE_KEY: key 1 is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runBin(t, bin, []string{keyEnv + "=" + tt.key}, "", "-http", "127.0.0.1:0")
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, tt.want)
			for _, part := range strings.Split(tt.key, ",") {
				if part != "" {
					assert.NotContains(t, stderr, part, "an error must not quote the key")
				}
			}
		})
	}
	t.Run("no key", func(t *testing.T) {
		r := startReplica(t, bin, "")
		assert.Contains(t, r.stderr(), "warning: MCPFORM_STATE_KEY is not set; using a random request-state key. Replicas won't read each other's state")
	})
}

// testStdio runs a team signup against bin -stdio, as a host would spawn
// it, for a 2026-07-28 client and for an older one.
func testStdio(t *testing.T, bin string) {
	for _, tt := range []struct {
		version string
		mrtr    bool
	}{{modern, true}, {legacy, false}} {
		t.Run(tt.version, func(t *testing.T) {
			cmd := exec.Command(bin, "-stdio")
			cmd.Env = append(environ(), keyEnv+"="+keyA)
			var stderr syncBuffer // written by exec's copier, until the process is reaped
			cmd.Stderr = &stderr
			p := newPerson(map[string][]*mcp.ElicitResult{"account": {accepted(adaTeam)}, "team": {accepted(engines)}})
			cs := connectTransport(t, &mcp.CommandTransport{Command: cmd}, tt.version, tt.mrtr, p)
			res, err := call(t, cs, "", nil)
			require.NoError(t, err, "stderr:\n%s", stderr.String())
			assert.Equal(t, "created", status(t, res), text(res))
			assert.Equal(t, []string{"account", "team"}, p.forms())
			require.NoError(t, cs.Close())
			assert.NotContains(t, stderr.String(), "warning", "the key was set")
		})
	}
}

// testHTTP runs a team signup against bin -http for clients of both
// generations, and stops the server while an older client's session, with
// its event stream, is still open: it must exit promptly and cleanly.
func testHTTP(t *testing.T, bin string) {
	for _, tt := range []struct {
		version string
		mrtr    bool
	}{{modern, true}, {legacy, false}, {"2025-03-26", false}} {
		t.Run(tt.version, func(t *testing.T) {
			r := startReplica(t, bin, keyA)
			p := newPerson(map[string][]*mcp.ElicitResult{"account": {accepted(adaTeam)}, "team": {accepted(engines)}})
			cs := connectHTTP(t, r.url, tt.version, tt.mrtr, p)
			res, err := call(t, cs, "", nil)
			require.NoError(t, err)
			assert.Equal(t, "created", status(t, res), text(res))
			assert.Equal(t, []string{"account", "team"}, p.forms())
			assert.Less(t, r.stop(), 3*time.Second, "shutdown with a client connected")
		})
	}
}

// testReplicas runs two server processes. Rounds of one signup go to
// different replicas: with a shared key they verify each other's state,
// and the account is created where the last round lands; with different
// keys the state is refused with -32602.
func testReplicas(t *testing.T, bin string) {
	rounds := func(t *testing.T, first, second, third string) (*mcp.CallToolResult, error) {
		t.Helper()
		a := connectHTTP(t, first, modern, false, nil)
		res, err := call(t, a, "", nil)
		require.NoError(t, err)
		require.Equal(t, "account", asks(t, res))

		b := connectHTTP(t, second, modern, false, nil)
		res, err = call(t, b, res.RequestState, mcp.InputResponseMap{"account": accepted(adaTeam)})
		if err != nil {
			return nil, err
		}
		require.Equal(t, "team", asks(t, res))

		c := connectHTTP(t, third, modern, false, nil)
		return call(t, c, res.RequestState, mcp.InputResponseMap{"team": accepted(engines)})
	}

	t.Run("shared key", func(t *testing.T) {
		a, b := startReplica(t, bin, keyA).url, startReplica(t, bin, keyA).url
		res, err := rounds(t, a, b, a)
		require.NoError(t, err)
		assert.Equal(t, "created", status(t, res), text(res))
		res, err = rounds(t, b, a, b)
		require.NoError(t, err)
		assert.Equal(t, "created", status(t, res), "each replica has its own store")
	})
	t.Run("different keys", func(t *testing.T) {
		a, b := startReplica(t, bin, keyA).url, startReplica(t, bin, keyB).url
		_, err := rounds(t, a, b, b)
		requireBadState(t, err)
	})
	t.Run("rotation", func(t *testing.T) {
		// The new key mints on b; a has not been given it yet.
		a, b := startReplica(t, bin, keyA).url, startReplica(t, bin, keyB+","+keyA).url
		res, err := rounds(t, a, b, b)
		require.NoError(t, err, "b verifies under the old key too")
		assert.Equal(t, "created", status(t, res))
		_, err = rounds(t, a, b, a)
		requireBadState(t, err) // b minted under the new key, which a lacks
	})
	t.Run("principals", func(t *testing.T) {
		a := startReplica(t, bin, keyA, "-principal", "alice").url
		b := startReplica(t, bin, keyA, "-principal", "bob").url
		_, err := rounds(t, a, b, b)
		requireBadState(t, err)
	})
}

// A replica is a server process started by startReplica.
type replica struct {
	url    string
	stderr func() string // its stderr so far
	// stop interrupts it, waits for it to exit and returns how long that
	// took; it is called when the test ends, if not before.
	stop func() time.Duration
}

// startReplica starts bin -http on a free loopback port with key as
// MCPFORM_STATE_KEY ("" for none).
func startReplica(t *testing.T, bin, key string, args ...string) replica {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	cmd.Env = environ()
	if key != "" {
		cmd.Env = append(cmd.Env, keyEnv+"="+key)
	}
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	var mu sync.Mutex
	var log strings.Builder
	r := replica{stderr: func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}}
	url := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if u, ok := strings.CutPrefix(sc.Text(), "mcpform signup: listening on "); ok {
				url <- u
			}
		}
	}()
	var once sync.Once
	var took time.Duration
	r.stop = func() time.Duration {
		once.Do(func() {
			start := time.Now()
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			err := cmd.Wait()
			took = time.Since(start)
			assert.NoError(t, err, "the server should exit cleanly on interrupt; stderr:\n%s", r.stderr())
		})
		return took
	}
	t.Cleanup(func() { r.stop() })
	select {
	case r.url = <-url:
		require.Regexp(t, `^http://127\.0\.0\.1:[0-9]+/mcp$`, r.url)
		return r
	case <-done:
		t.Fatalf("the server exited before it printed its URL; stderr:\n%s", r.stderr())
	case <-time.After(30 * time.Second):
		t.Fatalf("no listening line in 30s; stderr:\n%s", r.stderr())
	}
	return r
}

// A syncBuffer is a bytes.Buffer safe for one writer and other readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
