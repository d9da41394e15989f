// Package testenv finds what mcpform's interop, browser and database tests
// run against: Node and the pinned TypeScript peers, Debian's Chromium, and
// a PostgreSQL server.
//
// A missing peer skips the test on a developer's machine, with the command
// that installs it, so that go test ./... passes anywhere. Under CI (the
// CI environment variable set, as .ci/run sets it) it fails the test
// instead, because .ci/run is supposed to have installed everything.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// PostgresEnv names the environment variable that holds the URL of a
// PostgreSQL server for the database tests, such as
// postgres://postgres@127.0.0.1:5432/postgres. .ci/run starts one and sets
// it; the role must be allowed to create databases.
const PostgresEnv = "MCPFORM_TEST_POSTGRES"

// ChromiumPath is where Debian's chromium package installs the browser.
// Nothing ever downloads one.
const ChromiumPath = "/usr/bin/chromium"

// Missing reports that a peer the test needs is not there: it skips t, or
// fails it under CI. It does not return.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set, so .ci/run should have provided it)", msg)
	}
	t.Skip(msg)
}

// Root returns the repository's root: the nearest directory, from the
// test's working directory up, that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}

// InteropDir returns the repository's interop folder, where the pinned
// TypeScript peers are installed and the Node drivers run.
func InteropDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(Root(t), "interop")
}

// Node returns the path of node, once the interop folder's peers are
// installed; otherwise it calls [Missing].
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "interop test needs node on PATH: %v", err)
	}
	if _, err := os.Stat(filepath.Join(InteropDir(t), "node_modules", "@modelcontextprotocol", "client")); err != nil {
		Missing(t, "interop test needs the TypeScript peers: run (cd interop && npm ci): %v", err)
	}
	return node
}

// Chromium returns [ChromiumPath] when the browser is installed; otherwise
// it calls [Missing].
func Chromium(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		Missing(t, "browser test needs Debian's chromium: run apt-get install chromium: %v", err)
	}
	return ChromiumPath
}

// Postgres returns the server URL in [PostgresEnv]; when it is unset, it
// calls [Missing].
func Postgres(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		Missing(t, "database test needs PostgreSQL: set %s to a server's URL (.ci/run starts one)", PostgresEnv)
	}
	return dsn
}
