package prefab

import (
	"crypto/sha512"
	_ "embed"
	"encoding/base64"
	"sync"
)

// The renderer and stylesheet of @maxhealth.tech/prefab 0.3.13, unmodified
// (MIT; third_party holds the license and their checksums), and the
// viewer's own stylesheet and script. The viewer inlines them, so a view
// loads nothing from a network.
var (
	//go:embed third_party/prefab.css
	CSS string
	//go:embed third_party/renderer.auto.min.js
	JS string
	//go:embed viewer.css
	ViewerCSS string
	//go:embed viewer.js
	ViewerJS string
)

// The names of the embedded renderer files in the prefab package's dist
// folder, which is also what a viewer's base URL must serve.
const (
	CSSFile = "prefab.css"
	JSFile  = "renderer.auto.min.js"
)

// Integrity holds the Subresource Integrity values of the embedded
// renderer files, by name, computed once from their bytes, so that a page
// that loads them from a CDN runs only these exact files.
var Integrity = sync.OnceValue(func() map[string]string {
	return map[string]string{CSSFile: sri(CSS), JSFile: sri(JS)}
})

// sri is the integrity attribute value of content: "sha384-" and its
// digest in standard base64, as the Subresource Integrity spec recommends.
func sri(content string) string {
	sum := sha512.Sum384([]byte(content))
	return "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
}
