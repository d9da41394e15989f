package mcpform

import (
	"go/build"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMESnippet keeps the README's Go snippet compiling and running:
// each of its top-level declarations must stand, verbatim, in
// example_test.go, where the package example runs it.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	examples, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	require.NotEmpty(t, blocks, "README.md has no Go snippet")
	for _, b := range blocks {
		decls := strings.Split(strings.TrimSpace(string(b[1])), "\n\n")
		require.NotEmpty(t, decls)
		for _, d := range decls {
			assert.Contains(t, string(examples), d+"\n", "README declaration not in example_test.go")
		}
	}
}

// TestPackageDoc checks the package comment's opening, which godoc and
// pkg.go.dev show as the package's synopsis.
func TestPackageDoc(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(doc), "// Package mcpform "), "doc.go must open with \"// Package mcpform …\"")
}

// TestLibraryImports keeps the library's dependencies to what the project
// allows: the root package and its internal seam import the standard
// library, go-sdk, jsonschema-go and each other, never mcp-go, so that a
// go-sdk user never compiles mcp-go; the mcpgo face may add mcp-go alone.
// Database drivers and the test-only judges are the example's and the
// tests' alone.
func TestLibraryImports(t *testing.T) {
	core := func(path string) bool {
		return strings.HasPrefix(path, "github.com/modelcontextprotocol/go-sdk/") ||
			path == "github.com/google/jsonschema-go/jsonschema" ||
			path == "github.com/mcpform/mcpform/internal/seam"
	}
	for _, tt := range []struct {
		dir     string
		allowed func(string) bool
	}{
		{".", core},
		{"internal/seam", core},
		{"mcpgo", func(path string) bool {
			return core(path) || path == "github.com/mcpform/mcpform" ||
				strings.HasPrefix(path, "github.com/mark3labs/mcp-go/")
		}},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			pkg, err := build.ImportDir(tt.dir, 0)
			require.NoError(t, err)
			require.NotEmpty(t, pkg.Imports)
			for _, path := range pkg.Imports {
				first, _, _ := strings.Cut(path, "/")
				if !strings.Contains(first, ".") {
					continue // the standard library
				}
				assert.True(t, tt.allowed(path), "%s imports %s", tt.dir, path)
			}
		})
	}
}
