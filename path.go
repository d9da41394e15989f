package mcpform

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Path is a way a question reaches the person and the answer comes
// back. [PathFor] says which path a client can be asked by; [Reply.Path]
// and [FlowRound.Path] say which one a call's answers came by, so that a
// handler can refuse, say, answers that only the model vouches for before
// an action that needs the person's own. The zero value is [PathNone].
type Path int

const (
	// PathNone: no path. For [PathFor], the client declared no way to
	// answer; for a reply or a round, the call carried no answer, as on a
	// first call.
	PathNone Path = iota
	// PathNative: an input_required round of MCP 2026-07-28, answered in
	// the client's own form or URL-mode request.
	PathNative
	// PathLegacy: elicitation/create, for a client older than
	// 2026-07-28, through go-sdk's bridge or [AddLegacyRounds].
	PathLegacy
	// PathView: an MCP Apps view, submitted through the viewer's app-only
	// companion tool (see "UI path" in the package documentation).
	PathView
	// PathModel: the model collected the answers and called the tool
	// with them, opted in with AskModel. The model, not the person, typed
	// them.
	PathModel
	// PathLink: nothing but a secret page's link was answered: the call
	// came from the model or a view once the person had sent the page,
	// and what the page took came straight from the person's browser.
	PathLink
)

// String returns the path's lower-case name, such as "view".
func (p Path) String() string {
	switch p {
	case PathNone:
		return "none"
	case PathNative:
		return "native"
	case PathLegacy:
		return "legacy"
	case PathView:
		return "view"
	case PathModel:
		return "model"
	case PathLink:
		return "link"
	}
	return fmt.Sprintf("Path(%d)", int(p))
}

// weaker returns the weaker of a and b, the path by which the person
// vouches less for what came: PathModel, then PathLink, PathView,
// PathLegacy and PathNative. PathNone, no answer, is never the weaker.
func weaker(a, b Path) Path {
	if a == PathNone || b != PathNone && trust(b) < trust(a) {
		return b
	}
	return a
}

// trust ranks p for weaker: the higher, the more the person vouches for
// what came by p. A path of no known kind ranks as the model's.
func trust(p Path) int {
	switch p {
	case PathLink:
		return 1
	case PathView:
		return 2
	case PathLegacy:
		return 3
	case PathNative:
		return 4
	}
	return 0
}

// tag is what a state minted for p is bound to, beside the principal, the
// tool and the arguments: a state minted for one channel never verifies on
// another. Native and legacy rounds share one channel, the input
// responses; a view's submit comes through the companion tool; every
// other call that carries the state in its arguments comes from the model,
// the secret page's link included.
func (p Path) tag() string {
	switch p {
	case PathView:
		return "view"
	case PathModel, PathLink:
		return "model"
	}
	return "form"
}

// choosePath is the one place a form's path is chosen, for a [Form] and
// for each step of a [Flow]: c's questions reach the person in a native
// form, then in an MCP Apps view, then, opted in with model, through the
// model; a step of secrets alone is a URL-mode request, or the page's link
// in a view or a result. A boolean field (a confirmation) never goes
// through the model. A client that can be asked no way gets the -32021
// error of [NeedCapabilities], worded by face, the call's. can.native, a
// form without keys, leaves the native path alone. A view, when no viewer
// was made in this process, is errNoViewer, for the handler's author.
func choosePath(face refuser, can reach, c *compiled, model bool) (Path, error) {
	form, secret := len(c.fields) > 0, len(c.secrets) > 0
	switch {
	case !form:
		return pagePath(face, can, model)
	case can.form:
		return PathNative, nil
	case can.native:
	case can.apps && c.ui == nil:
		return PathView, viewerMissing()
	case model && !confirms(c.fields):
		return PathModel, nil
	}
	return 0, face.CapabilityError(true, secret) // form mode, and URL mode for secrets
}

// pagePath is choosePath for a secret page alone: a URL-mode request, or
// its link in a view or an ordinary result.
func pagePath(face refuser, can reach, model bool) (Path, error) {
	switch {
	case can.url:
		return PathNative, nil
	case can.native:
	case can.apps && !can.form:
		return PathView, viewerMissing()
	case can.form || model:
		return PathLink, nil
	}
	return 0, face.CapabilityError(false, true)
}

// viewerMade records that this process made the MCP Apps viewer's page,
// as AddViewer on either SDK's face and ViewerHTML do: a view path that
// no viewer could ever render is known from the first round that would
// offer one, rather than after the person answered.
var viewerMade atomic.Bool

// errNoViewer refuses a round that would show a view that nothing in
// this process can render.
var errNoViewer = errors.New("mcpform: this round would show an MCP Apps view, and no viewer was registered: " +
	"call AddViewer on the server (mcpgo.AddViewer on mcp-go), or serve ViewerHTML yourself, and AttachViewer on the tool")

// viewerMissing returns errNoViewer until a viewer was made (viewerMade).
func viewerMissing() error {
	if viewerMade.Load() {
		return nil
	}
	return errNoViewer
}

// A refuser words, in its face's terms, the refusal of a client that
// declared neither the mode a question needs nor any other way to be
// asked: every seam.Call is one. The path picker reads what the client can
// answer from the reach that the call's reading found, never from the
// call again.
type refuser interface {
	CapabilityError(form, url bool) error
}

// confirms reports whether fields hold a boolean, which a model must never
// tick for the person.
func confirms(fields []AutoFormField) bool {
	for i := range fields {
		if fields[i].kind() == kindBoolean {
			return true
		}
	}
	return false
}

// PathFor returns the path to ask the client whose capabilities are caps
// by, in the order [Flow.Next] and [Form.Ask] take: [PathNative] when it declared
// form elicitation (an elicitation capability with form set, or with
// neither form nor url set, which the spec keeps meaning form for clients
// that predate modes), else [PathView] when it renders MCP Apps (its
// capabilities carry the [AppsExtension] extension with [AppMIMEType]
// among its mimeTypes), else [PathNone]: return [NeedCapabilities] rather
// than a request it cannot read, or ask through the model (see
// [FlowOptions].AskModel). A nil caps declares nothing and gets PathNone.
// A handler that asks by hand picks its way with PathFor; [Form.Ask] and
// [Flow.Next] pick it themselves.
//
// Pass req.ClientCapabilities() of a tool request: on 2026-07-28 it reads
// the capabilities the client sent with that request, in
// _meta["io.modelcontextprotocol/clientCapabilities"], and on older
// revisions those it declared at initialize. The spec requires a server
// to send only the input requests a client declared.
func PathFor(caps *mcp.ClientCapabilities) Path {
	switch {
	case clientSupportsForm(caps):
		return PathNative
	case clientSupportsApps(caps):
		return PathView
	}
	return PathNone
}

// clientSupportsForm reports whether caps declare form-mode elicitation.
func clientSupportsForm(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// clientSupportsURL reports whether caps declare URL-mode elicitation, the
// only mode in which a server may ask for secrets such as passwords or API
// keys.
func clientSupportsURL(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// clientSupportsApps reports whether caps declare that the client renders
// MCP Apps.
func clientSupportsApps(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	ext, ok := caps.Extensions[AppsExtension]
	if !ok {
		return false
	}
	var settings struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	// The settings are a decoded map, or whatever a Go client put there;
	// a round trip reads both.
	b, err := json.Marshal(ext)
	if err != nil || json.Unmarshal(b, &settings) != nil {
		return false
	}
	for _, m := range settings.MIMETypes {
		if m == AppMIMEType {
			return true
		}
	}
	return false
}

// FormCapability returns the capabilities a form needs, form-mode
// elicitation ({"elicitation": {"form": {}}}), for [NeedCapabilities]. Each
// call returns a new value.
func FormCapability() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
}

// NeedCapabilities returns the JSON-RPC error the spec defines for a client
// that lacks a capability the call needs (MissingRequiredClientCapabilities):
// a *jsonrpc.Error with code -32021 ([mcp.CodeMissingRequiredClientCapabilities])
// whose data is [mcp.MissingRequiredClientCapabilityData] naming required.
// A nil required means [FormCapability]().
//
// Return it from the tool handler as it is, not wrapped, for the reason
// given at [RejectState]. Over streamable HTTP on 2026-07-28, go-sdk
// sends it with status 400, as the spec asks.
func NeedCapabilities(required *mcp.ClientCapabilities) error {
	if required == nil {
		required = FormCapability()
	}
	data, err := capabilityData(required)
	if err != nil {
		// Only a caller's unmarshallable Experimental or Extensions
		// value gets here; the code still tells the client what is wrong.
		data = nil
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capabilities",
		Data:    data,
	}
}

// capabilityData marshals {"requiredCapabilities": required}. Marshalling
// mcp.ClientCapabilities as it is would always add "roots": {}, its
// deprecated non-pointer field, and so claim that roots are required; the
// roots go out only when RootsV2 or the old field sets them, as go-sdk's own
// wire form of capabilities does.
func capabilityData(required *mcp.ClientCapabilities) (json.RawMessage, error) {
	b, err := json.Marshal(required)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "roots")
	if r := required.RootsV2; r != nil {
		if m["roots"], err = json.Marshal(r); err != nil {
			return nil, err
		}
	} else if required.Roots.ListChanged {
		m["roots"] = json.RawMessage(`{"listChanged":true}`)
	}
	return json.Marshal(map[string]any{"requiredCapabilities": m})
}
