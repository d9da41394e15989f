package e2e_test

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcess runs the binary as a user, a host and an operator would: the
// demo with piped answers, bad flags and keys, -stdio, and two -http
// replicas.
func TestProcess(t *testing.T) {
	t.Run("demo", testDemoBinary)
	t.Run("flags", testFlags)
	t.Run("keys", testKeys)
	t.Run("stdio", testStdio)
	t.Run("http", testHTTP)
	t.Run("replicas", testReplicas)
}

func testDemoBinary(t *testing.T) {
	for _, tt := range []struct {
		name, input string
		want        []string
	}{
		{"pro plan", "ada@example.com\nAda Lovelace\npro\n", []string{"Signup complete: created Ada Lovelace <ada@example.com> on the Pro plan."}},
		{"team plan", "ada@example.com\n\nteam\nAnalytical Engines\n12\n", []string{
			"Tell us about your team", `Signup complete: created ada@example.com on the Team plan for "Analytical Engines", 12 seats.`}},
		{"no input", "", []string{"Signup not completed: the form was cancelled"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBin(t, nil, tt.input)
			require.Equal(t, 0, code, "stderr:\n%s", stderr)
			assert.Empty(t, stderr, "the demo needs no key and warns about none")
			for _, w := range tt.want {
				assert.Contains(t, stdout, w)
			}
		})
	}
}

func testFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-nope"},
		{"-http"},
		{"-stdio", "-http", "127.0.0.1:0"},
		{"extra"},
		{"-principal", ""},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runBin(t, nil, "", args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "Usage: ")
		})
	}
	t.Run("-h", func(t *testing.T) {
		_, _, stderr := runBin(t, nil, "", "-h")
		assert.Contains(t, stderr, "Usage: ")
		assert.Contains(t, stderr, keyEnv)
	})
}

func testKeys(t *testing.T) {
	for _, tt := range []struct {
		name, key, want string
	}{
		{"short", "00112233", "MCPFORM_STATE_KEY: key 0 has 4 bytes; want at least 32"},
		{"not hex", strings.Repeat("zz", 32), "MCPFORM_STATE_KEY: key 0 is not hex"},
		{"short second key", keyA + ",abcd", "MCPFORM_STATE_KEY: key 1 has 2 bytes"},
		{"empty key in the list", keyA + ",", "MCPFORM_STATE_KEY: key 1 is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runBin(t, []string{keyEnv + "=" + tt.key}, "", "-http", "127.0.0.1:0")
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
		r := startReplica(t, "")
		assert.Contains(t, r.stderr(), "warning: MCPFORM_STATE_KEY is not set; using a random request-state key. Replicas won't read each other's state")
	})
}

// testStdio runs a team signup against bin -stdio, as a host would spawn
// it, for a 2026-07-28 client and for an older one.
func testStdio(t *testing.T) {
	for _, tt := range []struct {
		version string
		mrtr    bool
	}{{modern, true}, {legacy, false}} {
		t.Run(tt.version, func(t *testing.T) {
			cmd := exec.Command(signupBin(t), "-stdio")
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
func testHTTP(t *testing.T) {
	for _, tt := range []struct {
		version string
		mrtr    bool
	}{{modern, true}, {legacy, false}, {"2025-03-26", false}} {
		t.Run(tt.version, func(t *testing.T) {
			r := startReplica(t, keyA)
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
func testReplicas(t *testing.T) {
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
		a, b := startReplica(t, keyA).url, startReplica(t, keyA).url
		res, err := rounds(t, a, b, a)
		require.NoError(t, err)
		assert.Equal(t, "created", status(t, res), text(res))
		res, err = rounds(t, b, a, b)
		require.NoError(t, err)
		assert.Equal(t, "created", status(t, res), "each replica has its own store")
	})
	t.Run("different keys", func(t *testing.T) {
		a, b := startReplica(t, keyA).url, startReplica(t, keyB).url
		_, err := rounds(t, a, b, b)
		requireBadState(t, err)
	})
	t.Run("rotation", func(t *testing.T) {
		// The new key mints on b; a has not been given it yet.
		a, b := startReplica(t, keyA).url, startReplica(t, keyB+","+keyA).url
		res, err := rounds(t, a, b, b)
		require.NoError(t, err, "b verifies under the old key too")
		assert.Equal(t, "created", status(t, res))
		_, err = rounds(t, a, b, a)
		requireBadState(t, err) // b minted under the new key, which a lacks
	})
	t.Run("principals", func(t *testing.T) {
		a := startReplica(t, keyA, "-principal", "alice").url
		b := startReplica(t, keyA, "-principal", "bob").url
		_, err := rounds(t, a, b, b)
		requireBadState(t, err)
	})
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
