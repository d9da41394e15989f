package mcpform

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
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
// library, go-sdk, jsonschema-go, x/text's language matcher and each other,
// never mcp-go, so that a go-sdk user never compiles mcp-go; the mcpgo face
// may add mcp-go alone. Database drivers and the test-only judges are the
// example's and the tests' alone. The internal leaves import what their row
// allows, and none imports the root or mcpgo.
func TestLibraryImports(t *testing.T) {
	core := func(path string) bool {
		return strings.HasPrefix(path, "github.com/modelcontextprotocol/go-sdk/") ||
			path == "github.com/google/jsonschema-go/jsonschema" ||
			path == "golang.org/x/text/language" || // the person's language: internal/catalog
			path == "github.com/mcpform/mcpform/internal/seam"
	}
	rows := []struct {
		dir     string
		allowed func(string) bool
	}{
		{".", func(path string) bool {
			return core(path) || strings.HasPrefix(path, "github.com/mcpform/mcpform/internal/")
		}},
		{"internal/seam", core},
		{"internal/catalog", func(path string) bool {
			return path == "golang.org/x/text/language" || path == "github.com/mcpform/mcpform/internal/seam"
		}},
		{"internal/format", func(string) bool { return false }},
		{"internal/legacy", func(path string) bool { // go-sdk's middleware, and the page's link
			return strings.HasPrefix(path, "github.com/modelcontextprotocol/go-sdk/") ||
				path == "github.com/google/jsonschema-go/jsonschema" ||
				path == "github.com/mcpform/mcpform/internal/secretpage"
		}},
		{"internal/secretpage", func(path string) bool { // the link's seal
			return path == "github.com/mcpform/mcpform/internal/token"
		}},
		{"internal/prefab", func(path string) bool { // the catalogs' fill, the formats, and the strict JSON walk of an outcome's data
			return path == "github.com/mcpform/mcpform/internal/seam" || path == "github.com/mcpform/mcpform/internal/catalog" ||
				path == "github.com/mcpform/mcpform/internal/format" || path == "github.com/mcpform/mcpform/internal/canonjson"
		}},
		{"mcpgo", func(path string) bool { // the root, the seam, the views' wire names and the strict JSON check
			return core(path) || path == "github.com/mcpform/mcpform" ||
				path == "github.com/mcpform/mcpform/internal/prefab" ||
				path == "github.com/mcpform/mcpform/internal/canonjson" ||
				strings.HasPrefix(path, "github.com/mark3labs/mcp-go/")
		}},
		{"internal/rawanswers", func(path string) bool { // the answers as sent: the strict JSON walk
			return path == "github.com/mcpform/mcpform/internal/canonjson"
		}},
		{"internal/token", stdlibOnly},
		{"internal/canonjson", stdlibOnly},
		{"internal/decimal", stdlibOnly},
		{"internal/testenv", stdlibOnly},
		{"internal/arena", stdlibOnly},
	}
	hasRow := map[string]bool{}
	for _, tt := range rows {
		hasRow[tt.dir] = true
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
	// The internal leaves take neutral inputs: none imports the root or
	// mcpgo. Every package under internal/, a new one included, has its
	// row above.
	t.Run("internal/...", func(t *testing.T) {
		n := 0
		require.NoError(t, filepath.WalkDir("internal", func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			pkg, err := build.ImportDir(dir, 0)
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			require.NoError(t, err, dir)
			n++
			assert.True(t, hasRow[filepath.ToSlash(dir)], "%s has no row in TestLibraryImports", dir)
			for _, path := range pkg.Imports {
				assert.False(t, path == "github.com/mcpform/mcpform" || strings.HasPrefix(path, "github.com/mcpform/mcpform/mcpgo"),
					"%s imports %s", dir, path)
			}
			return nil
		}))
		require.NotZero(t, n)
	})
}

// stdlibOnly allows no import outside the standard library.
func stdlibOnly(string) bool { return false }

// TestDocPromises holds each promise that README.md and doc.go make to the
// tests that show it (issue 22, finding 12): the promise must stand in the
// file as written here, and each test named must exist, so that a reworded
// promise or a deleted test fails here and is looked at again. The claims
// that no test showed must not come back.
func TestDocPromises(t *testing.T) {
	promises := []struct {
		file, promise string
		shownBy       []string
	}{
		{"README.md", "accepts no value outside the schema the client was shown",
			[]string{"FuzzAcceptedFormInput", "FuzzFormRead", "TestStricterChoicesRefused"}},
		{"README.md", "a replay or duplicate gets that outcome and triggers nothing, and an effect cut off by a crash is retried with the same idempotency key",
			[]string{"TestSQLStoreSlowDo", "TestSQLStoreFailedWrite", "TestSQLStoreCrash", "TestMemoryOutcomesOnce", "TestIdempotencyKey"}},
		{"README.md", "never takes answers from the tool's arguments",
			[]string{"TestFinding1ArgumentsWithoutState", "FuzzReadCallWithoutState"}},
		{"doc.go", "Once is once, with two exceptions",
			[]string{"TestSQLStoreCrash", "TestSQLStoreFailedWrite", "TestSQLStoreClaimLost", "TestOnceUnencodable", "TestOnceRecordingFails"}},
		{"doc.go", "A run lasts only as long as its outcome is kept",
			[]string{"TestRunLastsAsLongAsItsOutcome", "TestRunID"}},
		{"doc.go", "bound to the principal, the tool and the call's arguments",
			[]string{"TestBindingExactNumbers", "TestStateChannels", "TestFlowNeedsPrincipal", "FuzzArgumentsDigest"}},
		{"doc.go", "The link's token is sealed: it reveals no principal, tool or run. Opening the page changes nothing",
			[]string{"TestSecretLinkSealed", "TestSetPasswordLinkRevealsNothing", "TestSecretPageOpeningClaimsNothing", "TestSetPasswordPreviewSpoilsNothing"}},
		{"doc.go", "with AnyoneWithTheLink, whoever opens the link and posts first sets the value, and only Authorize closes this.",
			[]string{"TestSecretLinkUsedElsewhere", "TestInteropTSSetPasswordIntruder"}},
		{"doc.go", "Once the flow has taken the secret, the link says the request is finished to any browser that opens it, and takes nothing more, a stop included.",
			[]string{"TestSecretPageAfterFinish", "TestSecretPageReopened", "TestLinkTakenBeforeDo", "TestLinkTakenOnce"}},
		{"doc.go", "judged again by the step's own rules",
			[]string{"TestLinkValuesCheckedByTheFlow"}},
		{"doc.go", "the token's length is one for every link whose principal, tool and step take 95 bytes or fewer together",
			[]string{"TestSecretLinkSealed"}},
		{"doc.go", "a second post from it, as a double submit sends, is its own",
			[]string{"TestSecretPageDoubleSubmit"}},
		{"doc.go", "However a flow ends, the secrets sent for it are deleted.",
			[]string{"TestSecretFlowEndings", "TestLinkEndedAfterEarlierStepReasked"}},
		{"doc.go", "tells the model: once the view shows the result",
			[]string{"TestHostMatrix"}},
	}
	tests := testFuncs(t)
	for _, p := range promises {
		doc, err := os.ReadFile(p.file)
		require.NoError(t, err)
		assert.True(t, strings.Contains(proseOf(doc), p.promise), "%s no longer promises %q: update TestDocPromises", p.file, p.promise)
		for _, name := range p.shownBy {
			assert.True(t, tests[name], "%s promises %q, shown by %s, which no longer exists", p.file, p.promise, name)
		}
	}
	for _, file := range []string{"README.md", "doc.go", "flow.go", "internal/seam/seam.go"} {
		doc, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, claim := range []string{"run their side effect once", "is never accepted", "run ID stays hidden", "SDK-free core"} {
			assert.False(t, strings.Contains(proseOf(doc), claim), "%s claims %q, which no test shows", file, claim)
		}
	}
}

// proseOf returns doc's words, each run of white space and comment
// markers made one space, so that a promise holds however its lines wrap.
func proseOf(doc []byte) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", " ")), " ")
}

// testFuncs returns the names of the Test and Fuzz functions of every
// test file in the module.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`)
	for _, dir := range []string{".", "e2e", "mcpgo", "internal/canonjson"} {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range decl.FindAllSubmatch(b, -1) {
				names[string(m[1])] = true
			}
		}
	}
	return names
}
