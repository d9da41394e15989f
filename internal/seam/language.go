package seam

// The wire names of per-request language, SEP-2792, as its open pull
// request (modelcontextprotocol/modelcontextprotocol#2792) names them.
// EXPERIMENTAL until the SEP merges: these are the only places that name
// them, for both faces, so a rename is a change here.
const (
	// MetaAcceptLanguage is the request's preference, in params._meta,
	// in HTTP Accept-Language syntax.
	MetaAcceptLanguage = "io.modelcontextprotocol/acceptLanguage"
	// MetaContentLanguage is the language of a result, in its _meta.
	MetaContentLanguage = "io.modelcontextprotocol/contentLanguage"
	// HeaderAcceptLanguage is the HTTP header the SEP mirrors the
	// preference in, and a browser sends the secret page.
	HeaderAcceptLanguage = "Accept-Language"
)
