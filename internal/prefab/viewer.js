// The viewer's own script, which runs before prefab's renderer. After each
// render it repairs what @maxhealth.tech/prefab 0.3.13 renders wrong or not
// at all, and it does what a view needs of the host. Remove each repair once
// prefab does it. The names it finds elements and sends arguments by are
// internal/prefab's (names.go); TestViewerFiles holds them equal.
//
// - Labels (repair of prefab 0.3.13): the renderer writes <label for="NAME">
//   but gives the input the id "pf-input-NAME", a textarea
//   "pf-textarea-NAME", and a select or slider no id at all, so that no
//   label names its control (WCAG 1.3.1, 4.1.2). It points every label
//   whose for names a field at that field's control in the same wrapper,
//   giving the control an id if it has none.
// - Fields (repair of prefab 0.3.13): Field, FieldDescription and
//   FieldError render as bare elements. It gives each description and error
//   an id and lists them in the control's aria-describedby, marks a control
//   with an error aria-invalid, and copies the bounds the Field carries as
//   classes (mcpform-attr-) onto the control as min, max, minlength or
//   maxlength, which prefab's Input drops.
// - Focus: a new error summary (mcpform-problems) or outcome panel
//   (mcpform-outcome-panel) takes the focus, so that a re-ask or an outcome
//   is read out rather than left behind the body. The panel is a status.
// - The model: once the outcome (mcpform-outcome) has text, and each time
//   it changes, it sends the host ui/update-model-context with it, and the
//   hidden text for the model alone (mcpform-outcome-model). The view
//   submits to an app-only tool, whose results the model never sees.
// - Links: the secret page's link (mcpform-open-link) is opened by the
//   host, with ui/open-link, since a sandbox without allow-popups opens no
//   window; only when the host refuses does it try window.open. The copy
//   button (mcpform-copy-link) copies the link and says so (mcpform-copied).
// - Language: the page's lang is the view's, which its root carries as a
//   class (mcpform-lang-), so that a screen reader speaks it right. When the
//   host's hostContext.locale is a language mcpform speaks and the first
//   view is in another (its result's contentLanguage; none is English), and
//   nothing has been typed yet, it asks the tool, through the companion,
//   for the same view in the locale's language: the view's own arguments
//   with the action render and the locale as acceptLanguage, once. It shows
//   the new view as the host shows a tool result, by posting
//   ui/notifications/tool-result to the renderer, which takes it from any
//   sender.
// - Title: the document's title is the view's heading (its h1), so that
//   the frame is named for what it asks, not for the viewer. A title holds
//   no part in another language, so it takes the heading's lang, as when
//   the heading is the author's words without a translation.
// - No flash: the root stays hidden (visibility, so that it keeps its
//   size for the host to fit the frame to) until the view's language is
//   known, and then shows it in that language: once the host's context
//   has come and the view needs no render in the locale's language, or
//   once the render's view is shown, or the render failed; and in any
//   case 500 ms after the host gave the view its tool result, the longest
//   a person waits on a blank frame that has a view to show (before the
//   result there is none, hidden or not). A person then neither reads,
//   nor starts typing into, a view about to change language, unless its
//   render is later than that: the render's view then replaces the one
//   shown if nothing has been typed into it yet. A host that sends the
//   call's acceptLanguage itself gets the right view at once, and no
//   render.
// - Parts in another language: author text the view shows in the
//   author's language, as when it has no translation, carries classes
//   (mcpform-part-) that say so; it sets lang on the element, on a span
//   it wraps the part's text in, on the label of a field, or on one of
//   its select's options, so that a screen reader speaks each part by
//   its own language's rules (WCAG 3.1.2).
// - Outcomes: a host that answers a tool's questions itself, in its own
//   dialog over the view (the MCP Inspector's Apps tab), gives the view
//   only the tool's final result, which is no view, and for which the
//   renderer shows nothing. The viewer shows it as a flow view shows its
//   outcome: the page's outcome view (mcpform-outcomes) in the result's
//   contentLanguage, else the host's locale, else English, with the
//   result's text blocks, isError and status under the outcome key
//   (mcpformResult), posted to the renderer as a tool result. The model
//   has that result already, as the tool's: it is not told it again.
(function () {
  'use strict';
  var root = document.getElementById('root');
  var sent = 0, told = '', focused = null, pending = {};
  // The view is hidden until its language is known; see show.
  root.style.visibility = 'hidden';
  var hidden = true, awaited = '';
  // limit ends the longest the view stays hidden, 500 ms after its tool
  // result came: a host without a context by then leaves the view in its
  // own language, and a render still to come replaces it if nothing was
  // typed.
  function limit() {
    if (!known) {
      known = true;
      render();
    }
    show();
  }
  function show() {
    if (!hidden) return;
    hidden = false;
    awaited = '';
    root.style.visibility = '';
    focused = null; // a hidden element takes no focus: give it again
    focus();
  }
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
        if (c.indexOf('mcpform-attr-') !== 0 || control.type === 'range') continue;
        var kv = c.slice('mcpform-attr-'.length).split('=');
        if (kv.length === 2) control.setAttribute(kv[0], kv[1]);
      }
    }
  }
  function focus() {
    var target = root.querySelector('.mcpform-problems, .mcpform-outcome-panel');
    if (target === null || target === focused) return;
    focused = target;
    if (target.classList.contains('mcpform-outcome-panel')) target.setAttribute('role', 'status');
    target.setAttribute('tabindex', '-1');
    target.focus();
  }
  function post(method, params) {
    var id = 'mcpform-' + (++sent);
    window.parent.postMessage({ jsonrpc: '2.0', id: id, method: method, params: params }, '*');
    return id;
  }
  function tell() {
    var outcome = root.querySelector('.mcpform-outcome');
    var text = outcome === null ? '' : outcome.textContent.trim();
    if (text === '' || text === told || hostOutcome) return;
    told = text;
    var model = root.querySelector('.mcpform-outcome-model');
    if (model !== null && model.textContent.trim() !== '') text += '\n\n' + model.textContent.trim();
    post('ui/update-model-context', { content: [{ type: 'text', text: text }] });
  }
  var locale = '', known = false, shown = null, typed = false, rendered = false;
  var spoken = 'en es fr de ja'.split(' ');
  function primary(tag) { return String(tag || '').split(/[-_]/)[0].toLowerCase(); }
  // toolOf finds the tool a view submits to, in its submit's arguments.
  function toolOf(v) {
    if (v === null || typeof v !== 'object') return '';
    if (typeof v['mcpformTool'] === 'string') return v['mcpformTool'];
    for (var k in v) { var t = toolOf(v[k]); if (t) return t; }
    return '';
  }
  function render() {
    if (rendered || typed || !known || shown === null) return;
    var sc = shown.structuredContent, meta = shown._meta || {};
    var have = primary(meta['io.modelcontextprotocol/contentLanguage'] || 'en'), want = primary(locale);
    var tool = sc && sc.arguments && want !== have && spoken.indexOf(want) >= 0 ? toolOf(sc.view) : '';
    if (!tool) {
      show(); // the view is in its language already, or cannot be had in another
      return;
    }
    rendered = true;
    awaited = want;
    var args = {};
    for (var k in sc.arguments) args[k] = sc.arguments[k];
    args['mcpformTool'] = tool;
    args['mcpformAction'] = 'render';
    var m = {};
    m['io.modelcontextprotocol/acceptLanguage'] = locale;
    pending[post('tools/call', { name: 'mcpform_view_submit', arguments: args, _meta: m })] = function (d) {
      if (typed || d.error || !d.result || d.result.isError || !d.result.structuredContent) {
        show();
        return;
      }
      window.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: d.result }, '*');
    };
  }
  var outcomes = {}, hostOutcome = false;
  try { outcomes = JSON.parse(document.getElementById('mcpform-outcomes').textContent) || {}; } catch (err) { outcomes = {}; }
  // isView reports whether a tool result carries a view where the
  // renderer looks for one: its structuredContent, or a text block's JSON.
  function isView(r) {
    var sc = r.structuredContent;
    if (sc !== null && typeof sc === 'object' && '$prefab' in sc) return true;
    var blocks = Array.isArray(r.content) ? r.content : [];
    for (var i = 0; i < blocks.length; i++) {
      if (!blocks[i] || blocks[i].type !== 'text' || typeof blocks[i].text !== 'string') continue;
      try {
        var v = JSON.parse(blocks[i].text);
        if (v !== null && typeof v === 'object' && '$prefab' in v) return true;
      } catch (err) { /* text, not JSON */ }
    }
    return false;
  }
  // outcome shows the host's tool result r, when it is a final result and
  // no view, in the outcome view of the person's language.
  function outcome(r) {
    if (r === null || typeof r !== 'object' || isView(r) || r.resultType === 'input_required' || r.inputRequests) return false;
    var meta = r._meta || {}, code = primary(meta['io.modelcontextprotocol/contentLanguage']);
    if (!outcomes[code]) code = primary(locale);
    if (!outcomes[code]) code = 'en';
    if (!outcomes[code]) return false;
    var texts = [], blocks = Array.isArray(r.content) ? r.content : [];
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i] && blocks[i].type === 'text' && typeof blocks[i].text === 'string') texts.push({ type: 'text', text: blocks[i].text });
    }
    var sc = r.structuredContent !== null && typeof r.structuredContent === 'object' ? r.structuredContent : {};
    var view = JSON.parse(JSON.stringify(outcomes[code]));
    view.state = view.state || {};
    var summary = Array.isArray(sc.mcpformSummary) ? sc.mcpformSummary.filter(function (s) { return typeof s === 'string'; }) : [];
    view.state['mcpformResult'] = { isError: r.isError === true,
      structuredContent: { status: typeof sc.status === 'string' ? sc.status : '',
        mcpformHeading: typeof sc.mcpformHeading === 'string' ? sc.mcpformHeading : '',
        mcpformSummary: summary, mcpformEnd: typeof sc.mcpformEnd === 'string' ? sc.mcpformEnd : '' }, content: texts };
    hostOutcome = true;
    window.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { structuredContent: view } }, '*');
    return true;
  }
  root.addEventListener('input', function () { typed = true; });
  window.addEventListener('message', function (e) {
    var d = e.data;
    if (e.source !== window.parent || d === null || typeof d !== 'object') return;
    if (d.method === 'ui/notifications/tool-result' && d.params) {
      if (shown === null) {
        shown = d.params;
        setTimeout(limit, 500);
        render();
      }
      if (outcome(d.params)) show();
      return;
    }
    if (!('method' in d) && d.result && d.result.hostContext) {
      // The answer to the renderer's ui/initialize: a host without a
      // locale leaves the view in its own language.
      if (typeof d.result.hostContext.locale === 'string') locale = d.result.hostContext.locale;
      known = true;
      render();
    }
    if (!(d.id in pending)) return;
    var done = pending[d.id];
    delete pending[d.id];
    done(d);
  });
  function copied() {
    var said = root.querySelector('.mcpform-copied');
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
    var link = t && t.closest('a.mcpform-open-link');
    if (link) {
      e.preventDefault();
      var dest = link.href;
      pending[post('ui/open-link', { url: dest })] = function (d) {
        if (d.error || (d.result && d.result.isError)) window.open(dest, '_blank', 'noopener');
      };
      return;
    }
    var button = t && t.closest('.mcpform-copy-link');
    var page = root.querySelector('a.mcpform-open-link');
    if (button && page) {
      e.preventDefault();
      copy(page.href);
    }
  });
  function lang() {
    var code = 'en', tagged = root.querySelector('[class*="mcpform-lang-"]');
    for (var i = 0; tagged !== null && i < tagged.classList.length; i++) {
      if (tagged.classList[i].indexOf('mcpform-lang-') === 0) code = tagged.classList[i].slice('mcpform-lang-'.length);
    }
    if (document.documentElement.lang !== code) document.documentElement.lang = code;
    if (awaited !== '' && primary(code) === awaited) show(); // the render's view is in
  }
  // title names the frame by what the view is about: its heading, rather
  // than the viewer's one title for every tool and step.
  function title() {
    var h = root.querySelector('h1');
    var text = h === null ? '' : h.textContent.trim();
    if (text === '') return;
    if (document.title !== text) document.title = text;
    var el = document.querySelector('title'), own = h.closest('[lang]');
    var code = own === null || own === document.documentElement ? '' : own.lang;
    if (el === null || el.lang === code) return;
    if (code === '') el.removeAttribute('lang');
    else el.lang = code;
  }
  // wrap sets code as the lang of the text of el from UTF-16 offset at,
  // for n code units: el's own when that is all of it, else a span's.
  function wrap(el, at, n, code) {
    if (el === null) return;
    if (at === 0 && n === el.textContent.length) {
      el.lang = code;
      return;
    }
    var walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), seen = 0;
    for (var node = walk.nextNode(); node !== null; node = walk.nextNode()) {
      var len = node.data.length;
      if (at >= seen && at + n <= seen + len) {
        var range = document.createRange(), span = document.createElement('span');
        range.setStart(node, at - seen);
        range.setEnd(node, at - seen + n);
        span.lang = code;
        range.surroundContents(span);
        return;
      }
      seen += len;
    }
  }
  function parts() {
    var all = root.querySelectorAll('[class*="mcpform-part-"]');
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.hasAttribute('data-mcpform-parts')) continue;
      el.setAttribute('data-mcpform-parts', '');
      for (var k = 0; k < el.classList.length; k++) {
        var c = el.classList[k];
        if (c.indexOf('mcpform-part-') !== 0) continue;
        // The lang is the rest, a tag that may hold hyphens itself (de-CH).
        var p = c.slice('mcpform-part-'.length).split('-'), n = p[0] === 'in' ? 1 : p[0] === 'option' ? 2 : 3;
        var code = p.slice(n).join('-');
        if (code === '') continue;
        if (p[0] === 'in') el.lang = code;
        else if (p[0] === 'span') wrap(el, +p[1], +p[2], code);
        else if (p[0] === 'label') wrap(el.querySelector('label'), +p[1], +p[2], code);
        else if (p[0] === 'option') {
          var select = el.querySelector('select'), options = [];
          for (var j = 0; select !== null && j < select.options.length; j++) {
            var o = select.options[j];
            if (!(o.hidden && o.disabled && o.value === '')) options.push(o); // not the placeholder
          }
          if (options[+p[1]]) options[+p[1]].lang = code;
        }
      }
    }
  }
  new MutationObserver(function () { lang(); parts(); labels(); fields(); focus(); tell(); title(); })
    .observe(root, { childList: true, subtree: true, characterData: true });
})();
