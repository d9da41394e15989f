package mcpform

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// update rewrites golden files instead of comparing against them.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// checkGolden compares got with the golden file at path, or rewrites the file
// when -update is set.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	assert.Equal(t, string(want), string(got), "%s differs from the golden file (-want +got); run go test -update to accept", path)
}

// interopDir is where .ci/run installs the pinned TypeScript peers.
const interopDir = "interop"

// needNode returns the path of node, once the interop folder's peers are
// installed. A missing peer skips the test, or fails it under CI; see
// internal/testenv.
func needNode(t *testing.T) (node string) {
	t.Helper()
	return testenv.Node(t)
}

// missingPeer reports a missing peer, named by the message: outside CI it
// skips the test, and under CI (CI set) it fails it.
func missingPeer(t *testing.T, format string, args ...any) {
	t.Helper()
	testenv.Missing(t, format, args...)
}

// runNode runs an interop script with stdin and returns its stdout. The
// script's stderr is reported on failure.
func runNode(t *testing.T, script string, stdin []byte, args ...string) []byte {
	t.Helper()
	node := needNode(t)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = interopDir
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.Bytes())
	}
	return out
}

// wireJSON returns a requested schema as it goes on the wire, whatever Go
// value holds it.
func wireJSON(t testing.TB, schema any) string {
	t.Helper()
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	return string(b)
}

// connectClient connects client to server in memory at protocol version
// ("" negotiates the latest), closing both sessions when the test ends.
func connectClient(t testing.TB, server *mcp.Server, client *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, ct, opts)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}
