package mcpform

import "strings"

// viewerColor is one of prefab's colour tokens (a CSS custom property of
// prefab.css, without its "--") and the value the viewer gives it in the
// light and the dark scheme.
type viewerColor struct{ token, light, dark string }

// viewerPalette sets prefab's colour tokens to values that meet WCAG 2.2
// contrast: 4.5:1 for text on its background, including button labels and
// links, and 3:1 for input borders and the focus ring (1.4.3, 1.4.11).
// prefab 0.3.13's own light primary (#3b82f6 under white) is 3.68:1 and its
// input borders (#e5e7eb on white) 1.24:1. TestViewerContrast checks each
// such pair the renderer's stylesheet draws. The hues stay close to
// prefab's; mostly the lightness moves. The primary keeps 4.5:1 under the
// 0.9 opacity prefab gives a hovered button.
var viewerPalette = []viewerColor{
	{"background", "#ffffff", "#09090b"},
	{"foreground", "#09090b", "#fafafa"},
	{"card", "#ffffff", "#111113"},
	{"card-foreground", "#09090b", "#fafafa"},
	{"popover", "#ffffff", "#111113"},
	{"popover-foreground", "#09090b", "#fafafa"},
	{"primary", "#1d4ed8", "#60a5fa"},
	{"primary-foreground", "#ffffff", "#09090b"},
	{"secondary", "#f3f4f6", "#1f2937"},
	{"secondary-foreground", "#1f2937", "#f3f4f6"},
	{"muted", "#f3f4f6", "#1f2937"},
	{"muted-foreground", "#4b5563", "#a1a1aa"},
	{"accent", "#eff6ff", "#1e3a5f"},
	{"accent-foreground", "#1e40af", "#93c5fd"},
	{"destructive", "#b91c1c", "#f87171"},
	{"destructive-foreground", "#ffffff", "#09090b"},
	{"success", "#15803d", "#4ade80"},
	{"success-foreground", "#ffffff", "#09090b"},
	{"warning", "#b45309", "#fbbf24"},
	{"warning-foreground", "#ffffff", "#09090b"},
	{"input", "#6b7280", "#71717a"},
	{"ring", "#1d4ed8", "#60a5fa"},
}

// viewerCSS is the viewer's own stylesheet, which follows prefab.css and so
// wins over it at equal specificity. Its token rules repeat prefab.css's
// selectors: the renderer sets data-theme (and the light or dark class) on
// both the document and its mount element, and a rule on the element beats
// what it inherits.
var viewerCSS = func() string {
	var light, dark strings.Builder
	for _, c := range viewerPalette {
		light.WriteString("--" + c.token + ":" + c.light + ";")
		dark.WriteString("--" + c.token + ":" + c.dark + ";")
	}
	return `
/* The frame follows the host's scheme, or the system's until the host
   says: no white frame around a dark view. */
:root{color-scheme:light dark}
:root[data-theme="light"]{color-scheme:light}
:root[data-theme="dark"]{color-scheme:dark}
body{margin:0}
/* prefab's auto-mounting renderer adds a light/dark toggle to every view:
   it mounts with no options, and themeToggle defaults to true, so there is
   no supported way to turn it off. The host chooses the theme; hide it. */
.pf-theme-toggle{display:none!important}
:root,:root[data-theme="light"],[data-theme="light"],.light{` + light.String() + `}
@media (prefers-color-scheme:dark){:root:not([data-theme="light"]){` + dark.String() + `}}
:root[data-theme="dark"],[data-theme="dark"],.dark{` + dark.String() + `}
`
}()

// viewerScript is the viewer's own script, which runs before the renderer.
//
// It repairs @maxhealth.tech/prefab 0.3.13, whose renderer writes
// <label for="NAME"> but gives the input the id "pf-input-NAME", a textarea
// "pf-textarea-NAME", and a select or slider no id at all, so that no label
// names its control (WCAG 1.3.1, 4.1.2). After each render it points every
// label whose for names a field at that field's control in the same
// wrapper, giving the control an id if it has none. Remove it once prefab
// ties its labels.
//
// It also tells the model the outcome a view shows (see outcomeClass):
// once the element of that class has text, and each time the text
// changes, it sends the host ui/update-model-context with that text. The
// view submits to an app-only tool, whose results the model never sees.
const viewerScript = `
(function () {
  'use strict';
  var root = document.getElementById('root');
  function freeId(id, control) {
    var n = 1, candidate = id;
    for (;;) {
      var taken = document.getElementById(candidate);
      if (taken === null || taken === control) return candidate;
      candidate = id + '-' + (++n);
    }
  }
  function repair() {
    var labels = root.querySelectorAll('label[for]');
    for (var i = 0; i < labels.length; i++) {
      var label = labels[i], name = label.htmlFor, box = label.parentElement, control = null;
      if (box === null) continue;
      var controls = box.querySelectorAll('input, select, textarea');
      for (var j = 0; j < controls.length && control === null; j++) {
        if (controls[j].name === name) control = controls[j];
      }
      if (control === null || label.control === control) continue;
      control.id = freeId(control.id || 'pf-' + control.tagName.toLowerCase() + '-' + name, control);
      label.htmlFor = control.id;
    }
  }
  var told = '', sent = 0;
  function tell() {
    var outcome = root.querySelector('.` + outcomeClass + `');
    var text = outcome === null ? '' : outcome.textContent.trim();
    if (text === '' || text === told) return;
    told = text;
    window.parent.postMessage({ jsonrpc: '2.0', id: 'mcpform-outcome-' + (++sent), method: 'ui/update-model-context',
      params: { content: [{ type: 'text', text: text }] } }, '*');
  }
  new MutationObserver(function () { repair(); tell(); })
    .observe(root, { childList: true, subtree: true, characterData: true });
})();
`
