package mcpform

import (
	"crypto/sha512"
	_ "embed"
	"encoding/base64"
	"sync"
)

// The renderer and stylesheet of @maxhealth.tech/prefab 0.3.13, unmodified
// (MIT; third_party/prefab holds the license and their checksums). The
// viewer inlines them, so a view loads nothing from a network.
var (
	//go:embed third_party/prefab/prefab.css
	prefabCSS string
	//go:embed third_party/prefab/renderer.auto.min.js
	prefabJS string
)

// The names of the embedded files in the prefab package's dist folder,
// which is also what a [ViewerOptions].BaseURL must serve.
const (
	prefabCSSFile = "prefab.css"
	prefabJSFile  = "renderer.auto.min.js"
)

// prefabIntegrity holds the Subresource Integrity values of the embedded
// files, computed once from their bytes, so a page that loads them from a
// CDN runs only these exact files.
var prefabIntegrity = sync.OnceValue(func() map[string]string {
	return map[string]string{prefabCSSFile: sri(prefabCSS), prefabJSFile: sri(prefabJS)}
})

// sri is the integrity attribute value of content: "sha384-" and its
// digest in standard base64, as the Subresource Integrity spec recommends.
func sri(content string) string {
	sum := sha512.Sum384([]byte(content))
	return "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
}
