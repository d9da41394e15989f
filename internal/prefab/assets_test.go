package prefab

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sha256 of each file third_party holds, as its README lists
// them: sha256sum of the files of @maxhealth.tech/prefab 0.3.13 from npm.
const (
	pinnedCSSSHA256     = "7e6dfc470bfe0f4d7b7cb4b6c0ff5b2a45deb0a7f6bb7db40c6f72cfb9166660"
	pinnedJSSHA256      = "549c7166cda5bf84ac7eba0834003fbde69b536ad51957bd54d29857af79a71b"
	pinnedCSSIntegrity  = "sha384-82lYoPMpvT84VJh1KSU76YGwLH3/DOGX3+3OZitifwuaQX/nhGFbpfOifnNiy/jb"
	pinnedJSIntegrity   = "sha384-xq2ZsFiqOfn0D8KzIrKp1WlA+fh+9mnGlB4g0HOj4V/Br93TPM6KynZL2kV6kby+"
	pinnedLicenseSHA256 = "d9d6217270544ef09506049d10b7df14126134cf40eebf7d13b91904e978fdfc"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestViewerAssets pins the embedded prefab files: their checksums, the
// license beside them, the integrity values a CDN viewer carries, and that
// they can stand inline in the page as they are.
func TestViewerAssets(t *testing.T) {
	license, err := os.ReadFile(filepath.Join("third_party", "LICENSE"))
	require.NoError(t, err, "prefab's MIT license must stay beside its files")
	readme, err := os.ReadFile(filepath.Join("third_party", "README.md"))
	require.NoError(t, err)
	for _, tt := range []struct {
		file, content, sha256, integrity string
	}{
		{"prefab.css", CSS, pinnedCSSSHA256, pinnedCSSIntegrity},
		{"renderer.auto.min.js", JS, pinnedJSSHA256, pinnedJSIntegrity},
		{"LICENSE", string(license), pinnedLicenseSHA256, ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			assert.Equal(t, tt.sha256, sha256Hex([]byte(tt.content)), "the embedded file changed")
			assert.Contains(t, string(readme), "| `"+tt.file+"` |", "README.md does not list it")
			assert.Contains(t, string(readme), "`"+tt.sha256+"`", "README.md lists another checksum")
			if tt.integrity != "" {
				assert.Equal(t, tt.integrity, Integrity()[tt.file])
			}
			// Inline, any of these would end the element early or change
			// how the HTML parser reads the script.
			for _, s := range []string{"</style", "</script", "<!--", "<script"} {
				assert.NotContains(t, strings.ToLower(tt.content), s)
			}
		})
	}
	assert.Contains(t, string(license), "MIT License")
}

// TestViewerAssetsMatchNPM checks that the embedded files are the npm
// package's, byte for byte, where the package is installed.
func TestViewerAssetsMatchNPM(t *testing.T) {
	pkg := filepath.Join("..", "..", "interop", "node_modules", "@maxhealth.tech", "prefab")
	manifest, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		testenv.Missing(t, "the prefab package is not installed: run (cd interop && npm ci): %v", err)
	}
	var meta struct{ Name, Version string }
	require.NoError(t, json.Unmarshal(manifest, &meta))
	require.Equal(t, "@maxhealth.tech/prefab 0.3.13", meta.Name+" "+meta.Version, "interop pins another prefab")
	license, err := os.ReadFile(filepath.Join("third_party", "LICENSE"))
	require.NoError(t, err)
	for _, tt := range []struct{ path, embedded string }{
		{filepath.Join("dist", "prefab.css"), CSS},
		{filepath.Join("dist", "renderer.auto.min.js"), JS},
		{"LICENSE", string(license)},
	} {
		npm, err := os.ReadFile(filepath.Join(pkg, tt.path))
		require.NoError(t, err)
		assert.True(t, string(npm) == tt.embedded, "%s differs from the npm package's (sha256 %s, embedded %s)",
			tt.path, sha256Hex(npm), sha256Hex([]byte(tt.embedded)))
	}
}

// TestViewerFiles checks that the viewer's own files can stand inline, and
// that viewer.js finds elements and sends arguments by the names this
// package writes.
func TestViewerFiles(t *testing.T) {
	for name, content := range map[string]string{"viewer.css": ViewerCSS, "viewer.js": ViewerJS} {
		for _, s := range []string{"</style", "</script", "<!--", "<script"} {
			assert.NotContains(t, strings.ToLower(content), s, name)
		}
	}
	for _, class := range []string{SummaryClass, OutcomePanelClass, OutcomeClass, OutcomeModelClass, CopiedClass, OpenLinkClass, CopyLinkClass} {
		assert.Regexp(t, `\.`+regexp.QuoteMeta(class)+`[',]`, ViewerJS, "viewer.js does not find .%s", class)
	}
	for _, name := range []string{BoundClass, LangClass, ToolArgument, ActionArgument, RenderAction, CompanionTool, OutcomeKey, OutcomesID} {
		assert.Contains(t, ViewerJS, "'"+name+"'", "viewer.js does not use %s", name)
	}
	assert.Contains(t, ViewerCSS, "."+OutcomePanelClass+":focus")
	assert.Contains(t, ViewerCSS, "a."+OpenLinkClass+"{")
	assert.Contains(t, ViewerCSS, "."+HiddenClass+"{", "viewer.css hides the inline error's prefix")
}
