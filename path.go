package mcpform

import "fmt"

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
// form without keys, leaves the native path alone.
func choosePath(face refuser, can reach, c *compiled, model bool) (Path, error) {
	form, secret := len(c.fields) > 0, len(c.secrets) > 0
	switch {
	case !form:
		return pagePath(face, can, model)
	case can.form:
		return PathNative, nil
	case can.native:
	case can.apps && c.ui == nil:
		return PathView, nil
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
		return PathView, nil
	case can.form || model:
		return PathLink, nil
	}
	return 0, face.CapabilityError(false, true)
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
