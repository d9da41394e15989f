package mcpformtest

import "github.com/mcpform/mcpform"

// Protocol revisions a [Host] speaks.
const (
	// Latest is MCP 2026-07-28: no handshake, the client's capabilities
	// on every request, and input_required results.
	Latest = "2026-07-28"
	// Legacy is MCP 2025-11-25: an initialize handshake, and the server
	// asks with elicitation/create during the call.
	Legacy = "2025-11-25"
)

// A Host is what a fake host declares: its protocol revision and the
// capabilities it has. A zero Host speaks no protocol; use one of the
// defined hosts, or copy one and change it.
type Host struct {
	// Name names the host in a test's output.
	Name string
	// Protocol is the revision it speaks: [Latest] or [Legacy].
	Protocol string
	// Form and URL say whether it answers form and URL-mode
	// elicitations.
	Form, URL bool
	// Apps says whether it renders MCP Apps views, submitting them to
	// the app-only tool each names, as the ext-apps AppBridge does.
	Apps bool
	// Language is the person's languages, as an Accept-Language value
	// ("es-ES,es;q=0.9"), sent in each tools/call's acceptLanguage _meta
	// (SEP-2792); empty sends none.
	Language string
}

// The hosts people use, late 2026. A tool that finishes on all five
// finishes on the hosts of the field.
var (
	// Full is a 2026-07-28 host that answers forms and URL mode.
	Full = Host{Name: "full", Protocol: Latest, Form: true, URL: true}
	// CLI is a 2026-07-28 command-line host that answers forms but has
	// no URL mode: it shows a secret page's link as text.
	CLI = Host{Name: "CLI with forms", Protocol: Latest, Form: true}
	// Editor is a 2025-11-25 editor that answers forms with
	// elicitation/create. A server meets it with mcpform.AddLegacyRounds.
	Editor = Host{Name: "older editor", Protocol: Legacy, Form: true}
	// AppsOnly is a 2025-11-25 desktop host that renders MCP Apps views
	// and answers no elicitation.
	AppsOnly = Host{Name: "Apps-only", Protocol: Legacy, Apps: true}
	// Bare is a 2026-07-28 host with none of these: the model asks the
	// person, and calls the tool again with the answers.
	Bare = Host{Name: "bare", Protocol: Latest}
)

// Hosts returns the five hosts, for a table-driven test on each.
func Hosts() []Host { return []Host{Full, CLI, Editor, AppsOnly, Bare} }

// capabilities returns h's client capabilities as JSON.
func (h Host) capabilities() map[string]any {
	c := map[string]any{}
	if h.Form || h.URL {
		el := map[string]any{}
		if h.Form {
			el["form"] = map[string]any{}
		}
		if h.URL {
			el["url"] = map[string]any{}
		}
		c["elicitation"] = el
	}
	if h.Apps {
		c["extensions"] = map[string]any{mcpform.AppsExtension: map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}}}
	}
	return c
}
