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
/* prefab 0.3.13 styles no Alert: the error summary is framed in the
   problem colour, and what the viewer focuses shows the ring. */
.pf-alert[data-variant="destructive"]{border:2px solid var(--destructive);border-radius:var(--radius);color:var(--foreground);background:var(--background)}
.pf-alert-title{font-size:1rem}
.pf-alert:focus,.` + outcomePanelClass + `:focus{outline:3px solid var(--ring);outline-offset:2px}
.pf-field{display:flex;flex-direction:column;gap:4px}
.pf-field-error{font-size:0.875rem;font-weight:600}
.pf-field-description{font-size:0.8125rem}
[aria-invalid="true"]{border-color:var(--destructive)!important;border-width:2px!important}
/* Decline is secondary, but its border must still be seen, at 3:1: prefab
   0.3.13 sets every button's border to none inline. */
.pf-button[data-variant="outline"]{border:1px solid var(--input)!important}
/* The secret page's link, drawn as the primary button it acts as. */
a.` + openLinkClass + `{display:inline-block;padding:8px 16px;font-size:14px;font-weight:500;border-radius:var(--radius-sm);background:var(--primary);color:var(--primary-foreground);text-decoration:none}
a.` + openLinkClass + `:focus-visible{outline:3px solid var(--ring);outline-offset:2px}
`
}()

// viewerScript is the viewer's own script, which runs before the renderer.
// After each render it repairs what @maxhealth.tech/prefab 0.3.13 renders
// wrong or not at all, and it does what a view needs of the host. Remove
// each repair once prefab does it.
//
//   - Labels (repair of prefab 0.3.13): the renderer writes
//     <label for="NAME"> but gives the input the id "pf-input-NAME", a
//     textarea "pf-textarea-NAME", and a select or slider no id at all, so
//     that no label names its control (WCAG 1.3.1, 4.1.2). It points every
//     label whose for names a field at that field's control in the same
//     wrapper, giving the control an id if it has none.
//   - Fields (repair of prefab 0.3.13): Field, FieldDescription and
//     FieldError render as bare elements. It gives each description and
//     error an id and lists them in the control's aria-describedby, marks
//     a control with an error aria-invalid, and copies the bounds the
//     Field carries as classes (boundClass) onto the control as min, max,
//     minlength or maxlength, which prefab's Input drops.
//   - Focus: a new error summary (summaryClass) or outcome panel
//     (outcomePanelClass) takes the focus, so that a re-ask or an outcome
//     is read out rather than left behind the body. The panel is a status.
//   - The model: once the outcome (outcomeClass) has text, and each time
//     it changes, it sends the host ui/update-model-context with it, and
//     the hidden text for the model alone (outcomeModelClass). The view
//     submits to an app-only tool, whose results the model never sees.
//   - Links: the secret page's link (openLinkClass) is opened by the host,
//     with ui/open-link, since a sandbox without allow-popups opens no
//     window; only when the host refuses does it try window.open. The copy
//     button (copyLinkClass) copies the link and says so (copiedClass).
//   - Language: the page's lang is the view's, which its root carries as
//     a class (langClass), so that a screen reader speaks it right. When
//     the host's hostContext.locale is a language mcpform speaks and the
//     first view is in another (its result's contentLanguage; none is
//     English), and nothing has been typed yet, it asks the tool, through
//     the companion, for the same view in the locale's language: the
//     view's own arguments with the action renderAction and the locale as
//     acceptLanguage, once. It shows the new view as the host shows a
//     tool result, by posting ui/notifications/tool-result to the
//     renderer, which takes it from any sender.
var viewerScript = `
(function () {
  'use strict';
  var root = document.getElementById('root');
  var sent = 0, told = '', focused = null, pending = {};
  function freeId(id, control) {
    var n = 1, candidate = id;
    for (;;) {
      var taken = document.getElementById(candidate);
      if (taken === null || taken === control) return candidate;
      candidate = id + '-' + (++n);
    }
  }
  function labels() {
    var all = root.querySelectorAll('label[for]');
    for (var i = 0; i < all.length; i++) {
      var label = all[i], name = label.htmlFor, box = label.parentElement, control = null;
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
  function fields() {
    var all = root.querySelectorAll('.pf-field');
    for (var i = 0; i < all.length; i++) {
      var field = all[i], control = field.querySelector('input, select, textarea');
      if (control === null) continue;
      var said = field.querySelectorAll('.pf-field-description, .pf-field-error'), ids = [];
      for (var j = 0; j < said.length; j++) {
        if (!said[j].id) said[j].id = freeId((control.id || control.name) + '-said-' + (j + 1), said[j]);
        ids.push(said[j].id);
      }
      if (ids.length > 0) control.setAttribute('aria-describedby', ids.join(' '));
      if (field.querySelector('.pf-field-error') !== null) control.setAttribute('aria-invalid', 'true');
      for (var k = 0; k < field.classList.length; k++) {
        var c = field.classList[k];
        if (c.indexOf('` + boundClass + `') !== 0 || control.type === 'range') continue;
        var kv = c.slice('` + boundClass + `'.length).split('=');
        if (kv.length === 2) control.setAttribute(kv[0], kv[1]);
      }
    }
  }
  function focus() {
    var target = root.querySelector('.` + summaryClass + `, .` + outcomePanelClass + `');
    if (target === null || target === focused) return;
    focused = target;
    if (target.classList.contains('` + outcomePanelClass + `')) target.setAttribute('role', 'status');
    target.setAttribute('tabindex', '-1');
    target.focus();
  }
  function post(method, params) {
    var id = 'mcpform-' + (++sent);
    window.parent.postMessage({ jsonrpc: '2.0', id: id, method: method, params: params }, '*');
    return id;
  }
  function tell() {
    var outcome = root.querySelector('.` + outcomeClass + `');
    var text = outcome === null ? '' : outcome.textContent.trim();
    if (text === '' || text === told) return;
    told = text;
    var model = root.querySelector('.` + outcomeModelClass + `');
    if (model !== null && model.textContent.trim() !== '') text += '\n\n' + model.textContent.trim();
    post('ui/update-model-context', { content: [{ type: 'text', text: text }] });
  }
  var locale = '', shown = null, typed = false, rendered = false;
  var spoken = '` + strings.Join(langCodes[:], " ") + `'.split(' ');
  function primary(tag) { return String(tag || '').split(/[-_]/)[0].toLowerCase(); }
  // toolOf finds the tool a view submits to, in its submit's arguments.
  function toolOf(v) {
    if (v === null || typeof v !== 'object') return '';
    if (typeof v['` + toolArgument + `'] === 'string') return v['` + toolArgument + `'];
    for (var k in v) { var t = toolOf(v[k]); if (t) return t; }
    return '';
  }
  function render() {
    if (rendered || typed || !locale || shown === null) return;
    var sc = shown.structuredContent, meta = shown._meta || {};
    var have = primary(meta['` + metaContentLanguage + `'] || 'en'), want = primary(locale);
    if (!sc || !sc.arguments || want === have || spoken.indexOf(want) < 0) return;
    var tool = toolOf(sc.view);
    if (!tool) return;
    rendered = true;
    var args = {};
    for (var k in sc.arguments) args[k] = sc.arguments[k];
    args['` + toolArgument + `'] = tool;
    args['` + actionArgument + `'] = '` + renderAction + `';
    var m = {};
    m['` + metaAcceptLanguage + `'] = locale;
    pending[post('tools/call', { name: '` + companionTool + `', arguments: args, _meta: m })] = function (d) {
      if (typed || d.error || !d.result || d.result.isError || !d.result.structuredContent) return;
      window.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: d.result }, '*');
    };
  }
  root.addEventListener('input', function () { typed = true; });
  window.addEventListener('message', function (e) {
    var d = e.data;
    if (e.source !== window.parent || d === null || typeof d !== 'object') return;
    if (d.method === 'ui/notifications/tool-result' && shown === null && d.params) {
      shown = d.params;
      render();
      return;
    }
    if (!('method' in d) && d.result && d.result.hostContext && typeof d.result.hostContext.locale === 'string') {
      locale = d.result.hostContext.locale; // the answer to the renderer's ui/initialize
      render();
    }
    if (!(d.id in pending)) return;
    var done = pending[d.id];
    delete pending[d.id];
    done(d);
  });
  function copied() {
    var said = root.querySelector('.` + copiedClass + `');
    if (said === null) return;
    said.setAttribute('role', 'status');
    said.classList.remove('hidden');
  }
  function copy(url) {
    var fallback = function () {
      var box = document.createElement('textarea');
      box.value = url;
      box.setAttribute('readonly', '');
      box.style.position = 'fixed';
      box.style.opacity = '0';
      document.body.appendChild(box);
      box.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
      document.body.removeChild(box);
      if (ok) copied();
    };
    // A host frame without allow="clipboard-write" blocks the API, with
    // a console error: ask the policy first.
    var policy = document.permissionsPolicy || document.featurePolicy;
    var allowed = !policy || policy.allowsFeature('clipboard-write');
    if (allowed && navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).then(copied, fallback);
    else fallback();
  }
  root.addEventListener('click', function (e) {
    var t = e.target instanceof Element ? e.target : null;
    var link = t && t.closest('a.` + openLinkClass + `');
    if (link) {
      e.preventDefault();
      var dest = link.href;
      pending[post('ui/open-link', { url: dest })] = function (d) {
        if (d.error || (d.result && d.result.isError)) window.open(dest, '_blank', 'noopener');
      };
      return;
    }
    var button = t && t.closest('.` + copyLinkClass + `');
    var page = root.querySelector('a.` + openLinkClass + `');
    if (button && page) {
      e.preventDefault();
      copy(page.href);
    }
  });
  function lang() {
    var code = 'en', tagged = root.querySelector('[class*="` + langClass + `"]');
    for (var i = 0; tagged !== null && i < tagged.classList.length; i++) {
      if (tagged.classList[i].indexOf('` + langClass + `') === 0) code = tagged.classList[i].slice('` + langClass + `'.length);
    }
    if (document.documentElement.lang !== code) document.documentElement.lang = code;
  }
  new MutationObserver(function () { lang(); labels(); fields(); focus(); tell(); })
    .observe(root, { childList: true, subtree: true, characterData: true });
})();
`
