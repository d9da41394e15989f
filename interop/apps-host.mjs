// apps-host.mjs is a real MCP Apps host for mcpform's end-to-end tests: the
// official TypeScript client talks to the server, and the view runs in
// Debian's Chromium behind the real host bridge of
// @modelcontextprotocol/ext-apps (AppBridge and PostMessageTransport,
// bundled for the page with esbuild at run time). It never downloads a
// browser, and the page reaches no network: the view carries prefab's
// renderer inline, and any other request is aborted.
//
// Usage (cwd interop/): node apps-host.mjs < plan.json > transcript.json
//
// The plan is
//
//	{
//	  "stdio": {"command": "...", "args": [...], "env": {...}},  // or
//	  "url": "http://127.0.0.1:PORT/mcp",
//	  "pin": "2026-07-28",           // omit for the default negotiation
//	  "tool": "signup",              // called first with {} as a host would
//	  "chromium": "/usr/bin/chromium",
//	  "views": [[Fill, ...], ...],   // what the person types in each view
//	  "screenshots": "/dir",         // optional: view-N.png for each view
//	  "allow": ["http://127.0.0.1:PORT"], // origins the browser may reach beyond the host's
//	  "theme": "light",              // or "dark": the host's theme and the browser's scheme
//	  "locale": "fr-FR",             // optional: the host's hostContext.locale; each view is
//	                                 // recorded once it is in that language (its html lang)
//	  "pageLocale": "de-DE",         // optional: the Accept-Language of the secret page's tab
//	  "renderDelayMs": 3000,         // optional: the host holds the view's "render" call this long
//	  "axe": "name",                 // optional: run axe-core on each view and the final one,
//	                                 // screenshots NAME-view-N.png and NAME-final.png
//	  "timeoutMs": 60000
//	}
//
// where a Fill is {"name": control name, "value": text} or {"name",
// "select": option value}, or {"link": true, "password": text}: the person
// presses the view's button that opens the secret page, the host records
// the view's ui/open-link request and opens its URL in a tab of the same
// browser (its origin must be allowed), where the person types the
// password and sends it, as a person does before submitting the view. A
// {"novalidate": true} Fill submits the view past the browser's own checks,
// so that the server's re-ask shows, and a {"copy": true} Fill presses the
// button that copies the page's link and records what the view then says
// ("copied": {"said", "role"}). A link Fill with "states": true first
// sends "short", a password the page refuses, and, once the page took the
// password, opens the link again as another browser would, without the
// page's cookie, recording the page at each of its
// states (form, problem, done, used) in "pageStates", as axe-core judges
// them when the plan sets axe. The password goes only into
// that page. A {"decline": true} Fill presses the view's Decline button
// instead of submitting it. The client declares the MCP Apps extension and
// nothing else: no elicitation. For each view in turn the host waits until
// the view shows a form, records the names of its controls and its text,
// fills it, submits, and waits for the view's tools/call to come back. After
// the last view it waits for the view to change once more and records that
// too: the outcome's text, and its panel. For each view it also records
// what a person with a screen reader meets: the control each label finds
// (as Playwright's getByLabel), each control's value, bounds and
// aria-invalid, the text its aria-describedby points at, and what has the
// focus. It writes
//
//	{"protocolVersion": "...", "first": the first tool result,
//	 "views": [{"names": [...], "text": "...", "labels": {label: name},
//	   "controls": [{"name", "value", "min", "max", "minlength", "maxlength",
//	     "invalid", "described"}], "lang": the page's lang, "focus": {"class", "text"},
//	   "title", "titleLang": the document's title, and the lang it is read in,
//	   "parts": [{"text", "lang"}: each element's own text, an option's
//	     among them, and the lang it is read in (its nearest lang)]}, ...],
//	 "final": "text", "panel": {"heading", "role", "text", "focused"},
//	 "openLinks": [the view's ui/open-link params],
//	 "axe": [{"name", "violations": [{"id", "impact", "help", "nodes"}]}],
//	 "calls": [{"params": ..., "result": ... or "error": ...}],
//	 "pages": [{"link", "shown", "status", "heading"}],
//	 "pageStates": [{"state", "title", "titleLang", "lang", "parts"}],
//	 "paints": [{"lang", "text", "ms"}]: the view's visible text at each frame
//	   it painted with something new, until the first view was recorded,
//	   ms after the frame's start (its performance.now),
//	 "visibleMs": when the view's root was first visible, ms after the
//	   frame's start, whether or not it had text yet, and "resultMs" when
//	   the host's first tool result reached the view,
//	 "finalParts": the parts of the final view,
//	 "wire": [{dir: "out"|"in", message}], every JSON-RPC message of the client,
//	 "methods": [view → host methods, in order], "errors": [...]}
//
// on stdout. Any failure exits non-zero with the reason on stderr.
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tap } from './wiretap.mjs';
import { CHROMIUM_FLAGS } from './chromium.mjs';

const plan = JSON.parse(readFileSync(0, 'utf8'));
const timeout = plan.timeoutMs ?? 60000;
const watchdog = setTimeout(() => fail(`no result within ${timeout} ms`), timeout);
const here = dirname(fileURLToPath(import.meta.url));
const UI = 'io.modelcontextprotocol/ui';
const FLAGS = [
  ...CHROMIUM_FLAGS,
  // Without this, request interception misses the sandboxed frame's requests.
  '--disable-features=IsolateSandboxedIframes',
];

let cleanup = async () => {};
const transcript = { views: [], calls: [], pages: [], pageStates: [], wire: [], errors: [], messages: [], modelContext: [], openLinks: [], axe: [], companion: null };
const theme = plan.theme ?? 'light';
const axeSource = plan.axe
  ? readFileSync(join(dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js'), 'utf8') : '';
let page;
async function fail(msg) {
  const methods = await page?.evaluate(() => window.host).catch(() => undefined);
  process.stderr.write(`apps-host.mjs: ${msg}\nhost: ${JSON.stringify(methods)}\nerrors: ${JSON.stringify(transcript.errors)}\n`);
  await cleanup().catch(() => {});
  process.exit(2);
}

// The host's MCP client: the Apps extension, and no elicitation.
const client = new Client(
  { name: 'mcpform-apps-host', version: '0.0.0' },
  {
    capabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } },
    ...(plan.pin && { versionNegotiation: { mode: { pin: plan.pin } } }),
  },
);
const transport = tap(plan.url
  ? new StreamableHTTPClientTransport(new URL(plan.url))
  : new StdioClientTransport({ ...plan.stdio, stderr: 'inherit' }), transcript.wire);


// The page's bridge: AppBridge and PostMessageTransport, as a host bundles them.
async function bundle() {
  const out = await build({
    stdin: {
      contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';",
      resolveDir: here,
    },
    bundle: true, write: false, format: 'iife', globalName: 'ExtApps', platform: 'browser', logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

const hostPage = `<!doctype html><html data-theme="${theme}"><meta charset="utf-8"><title>mcpform apps host</title>
<style>body{margin:0}iframe{border:0;width:720px;height:1200px}</style>
<body>
<script src="/bridge.js"></script>
<script>
(async () => {
  // The frame is made here, and navigated only once the bridge listens, so
  // the view's first message cannot arrive before the host is ready for it.
  const view = document.createElement('iframe');
  view.id = 'view';
  view.sandbox = 'allow-scripts allow-forms';
  document.body.appendChild(view);
  window.host = { methods: [], ready: false };
  window.addEventListener('message', (e) => {
    if (e.source === view.contentWindow && e.data && typeof e.data.method === 'string') window.host.methods.push(e.data.method);
  });
  const { AppBridge, PostMessageTransport } = ExtApps;
  const bridge = new AppBridge(null, { name: 'mcpform-apps-host', version: '0.0.0' }, { serverTools: {} },
    { hostContext: { theme: document.documentElement.dataset.theme, displayMode: 'inline', availableDisplayModes: ['inline']${plan.locale ? `, locale: ${JSON.stringify(plan.locale)}` : ''} } });
  bridge.oncalltool = (params) => window.hostCallTool(JSON.parse(JSON.stringify(params)));
  // What the view tells the conversation: ui/message and ui/update-model-context.
  bridge.onmessage = async (params) => { await window.hostMessage(JSON.parse(JSON.stringify(params))); return {}; };
  bridge.onupdatemodelcontext = async (params) => { await window.hostModelContext(JSON.parse(JSON.stringify(params))); return {}; };
  // A host opens the link itself: the sandbox has no allow-popups.
  bridge.onopenlink = async (params) => { await window.hostOpenLink(JSON.parse(JSON.stringify(params))); return {}; };
  bridge.oninitialized = async () => {
    const first = await window.hostFirst();
    await bridge.sendToolInput({ arguments: {} });
    await bridge.sendToolResult(first);
    window.host.ready = true;
  };
  await bridge.connect(new PostMessageTransport(view.contentWindow, view.contentWindow));
  view.src = '/view';
})().catch((e) => { window.host.error = String(e && e.stack || e); });
</script>`;

let browser, httpServer, profile;
cleanup = async () => {
  await browser?.close();
  httpServer?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await client.close();
};

try {
  await client.connect(transport, { timeout });
  transcript.protocolVersion = client.getNegotiatedProtocolVersion();
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === plan.tool);
  if (!tool) throw new Error(`no tool ${plan.tool}`);
  // The app-only tool a view submits to: hidden from the model by hosts
  // that honour _meta.ui.visibility.
  const companion = tools.find((t) => t.name !== plan.tool && JSON.stringify(t._meta?.ui?.visibility) === '["app"]');
  transcript.companion = companion ? { name: companion.name, visibility: companion._meta.ui.visibility } : null;
  const uri = tool._meta?.ui?.resourceUri;
  if (!uri) throw new Error(`tool ${plan.tool} links to no view`);
  const resource = await client.readResource({ uri });
  const html = resource.contents[0].text;
  transcript.first = await client.callTool({ name: plan.tool, arguments: {} });

  const bridgeJS = await bundle();
  httpServer = createServer((req, res) => {
    const body = { '/': [hostPage, 'text/html'], '/view': [html, 'text/html'], '/bridge.js': [bridgeJS, 'text/javascript'] }[req.url];
    if (!body) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': `${body[1]}; charset=utf-8` }).end(body[0]);
  });
  await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${httpServer.address().port}`;

  profile = await mkdtemp(join(tmpdir(), 'mcpform-apps-host-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: plan.chromium, args: FLAGS, colorScheme: theme });
  // One handler: Playwright tries the last route first, so two would race.
  await browser.route('**/*', async (route) => {
    const url = route.request().url();
    const allowed = [origin, ...(plan.allow ?? [])].some((o) => url.startsWith(o + '/'));
    return allowed ? route.continue() : route.abort();
  });
  // What a person sees of the view before each paint: its root's text
  // whenever it is visible and new, so that a flash of another language,
  // however short, is seen.
  await browser.addInitScript(() => {
    if (location.pathname !== '/view') return;
    window.__paints = [];
    window.__visibleMs = null;
    window.__resultMs = null;
    window.addEventListener('message', (e) => {
      if (window.__resultMs === null && e.source === window.parent && e.data?.method === 'ui/notifications/tool-result') window.__resultMs = Math.round(performance.now());
    });
    const sample = () => {
      const root = document.getElementById('root');
      if (root && getComputedStyle(root).visibility === 'visible') {
        if (window.__visibleMs === null) window.__visibleMs = Math.round(performance.now());
        const text = root.innerText.trim(), last = window.__paints.at(-1);
        if (text !== '' && (!last || last.text !== text)) window.__paints.push({ lang: document.documentElement.lang, text, ms: Math.round(performance.now()) });
      }
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (m) => { if (m.type() === 'error') transcript.errors.push(m.text()); });
  page.on('pageerror', (e) => transcript.errors.push(String(e)));
  await page.exposeFunction('hostFirst', () => transcript.first);
  await page.exposeFunction('hostMessage', (params) => { transcript.messages.push(params); });
  await page.exposeFunction('hostModelContext', (params) => { transcript.modelContext.push(params); });
  await page.exposeFunction('hostOpenLink', (params) => { transcript.openLinks.push(params); });
  await page.exposeFunction('hostCallTool', async (params) => {
    const call = { params };
    transcript.calls.push(call);
    // A slow network, or server, on the view's render only.
    if (plan.renderDelayMs && params.arguments?.mcpformAction === 'render') await new Promise((r) => setTimeout(r, plan.renderDelayMs));
    try {
      call.result = await client.callTool(params);
      return call.result;
    } catch (e) {
      call.error = { code: e.code, message: e.message, data: e.data };
      throw e;
    }
  });
  await page.goto(origin + '/');
  await page.waitForFunction(() => window.host.ready || window.host.error, null, { timeout });
  const hostError = await page.evaluate(() => window.host.error);
  if (hostError) throw new Error(`host page: ${hostError}`);
  const frame = page.frameLocator('#view');

  // What the view shows: its controls' names and its text.
  const shown = async () => ({
    names: await frame.locator('form [name]').evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('name')))]),
    text: (await frame.locator('body').innerText()).trim(),
  });
  for (const [i, fills] of (plan.views ?? []).entries()) {
    await frame.locator('form button[type="submit"]').first().waitFor({ timeout });
    if (plan.locale) {
      // The view may first show in its call's language, then in the locale's.
      const want = plan.locale.split('-')[0].toLowerCase();
      await frame.locator(want === 'en' ? '.pf-app-root' : `.pf-app-root.mcpform-lang-${want}`).first().waitFor({ timeout });
      await frame.locator('form button[type="submit"]').first().waitFor({ timeout });
    }
    const before = await shown();
    transcript.views.push({ ...before, ...await described() });
    if (i === 0) {
      const f = await (await page.$('#view')).contentFrame();
      transcript.paints = await f.evaluate(() => window.__paints);
      transcript.visibleMs = await f.evaluate(() => window.__visibleMs);
      transcript.resultMs = await f.evaluate(() => window.__resultMs);
    }
    if (plan.axe) await audit(`${plan.axe}-view-${i + 1}`);
    let decline = false;
    for (const f of fills) {
      if (f.decline) {
        decline = true; // the view's Decline button, in place of the submit
        continue;
      }
      if (f.link) {
        await sendPage(f.password, f.states);
        continue;
      }
      if (f.copy) {
        // The fallback for a host that opens nothing: copy the link, and
        // see the view say so.
        await frame.locator('.mcpform-copy-link').click();
        await frame.locator('.mcpform-copied').waitFor({ state: 'visible', timeout: 5000 }).catch(() => {});
        transcript.copied = {
          said: await frame.locator('.mcpform-copied').isVisible() ? (await frame.locator('.mcpform-copied').innerText()).trim() : '',
          role: await frame.locator('.mcpform-copied').getAttribute('role'),
        };
        continue;
      }
      if (f.novalidate) {
        await frame.locator('form').first().evaluate((form) => { form.noValidate = true; });
        continue;
      }
      const el = frame.locator(`form [name="${f.name}"]`).first();
      if ('select' in f) await el.selectOption(f.select);
      else await el.fill(String(f.value));
    }
    if (plan.screenshots) await page.screenshot({ path: join(plan.screenshots, `view-${i + 1}.png`), fullPage: true });
    const calls = transcript.calls.length;
    await frame.locator(decline ? 'form button:not([type="submit"])' : 'form [type="submit"]').last().click();
    await waitFor(() => transcript.calls.length > calls && transcript.calls.at(-1).result || transcript.calls.at(-1)?.error);
    // The view re-renders from the result: wait until it shows something new.
    await waitFor(async () => JSON.stringify(await shown()) !== JSON.stringify(before));
  }
  // The outcome's text, as the person reads it: the panel's, without
  // its heading; the body's when there is no panel.
  const outcome = frame.locator('.mcpform-outcome');
  transcript.final = (await outcome.count()) > 0 ? (await outcome.innerText()).trim() : (await shown()).text;
  transcript.panel = await frame.locator('body').evaluate(() => {
    const panel = document.querySelector('.mcpform-outcome-panel');
    return panel && { heading: panel.querySelector('h1, h2, h3')?.textContent ?? '', role: panel.getAttribute('role'),
      text: panel.querySelector('.mcpform-outcome')?.textContent ?? '', focused: document.activeElement === panel };
  });
  if (plan.screenshots) await page.screenshot({ path: join(plan.screenshots, 'final.png'), fullPage: true });
  if (plan.axe) await audit(`${plan.axe}-final`);
  transcript.finalParts = await frame.locator('body').evaluate(parts);
  transcript.methods = await page.evaluate(() => window.host.methods);
  process.stdout.write(JSON.stringify(transcript));
  clearTimeout(watchdog);
  await cleanup();
  process.exit(0);
} catch (e) {
  await fail(e?.stack ?? String(e));
}

// sendPage presses the view's button that opens the secret page, waits
// for the host to be asked to open it (ui/open-link), opens that URL in a
// new tab, types the password and sends it, and records what the page
// answered.
async function sendPage(password, states) {
  const asked = transcript.openLinks.length;
  await page.frameLocator('#view').locator('a.mcpform-open-link').click();
  await waitFor(() => transcript.openLinks.length > asked);
  const link = transcript.openLinks.at(-1).url;
  const tab = await browser.newPage();
  if (plan.pageLocale) await tab.setExtraHTTPHeaders({ 'Accept-Language': plan.pageLocale });
  const record = async (state) => {
    if (!states) return;
    transcript.pageStates.push({ state, ...await tab.evaluate(() => ({ title: document.title,
      titleLang: document.querySelector('title').closest('[lang]')?.lang ?? '', lang: document.documentElement.lang })),
    parts: await tab.evaluate(parts) });
    if (plan.axe) await auditIn(tab.mainFrame(), `${plan.axe}-page-${state}`, tab);
  };
  const send = async (value) => {
    await tab.locator('input[type=password]').fill(value, { timeout });
    const [sent] = await Promise.all([
      tab.waitForResponse((r) => r.request().method() === 'POST', { timeout }),
      tab.locator('button[type=submit]').click({ timeout }),
    ]);
    await tab.waitForLoadState();
    return sent;
  };
  try {
    const shown = await tab.goto(link);
    await record('form');
    if (states) {
      // A value the browser would refuse is sent past its checks.
      await tab.locator('form').evaluate((form) => { form.noValidate = true; });
      await send('short');
      await record('problem');
    }
    const sent = await send(password);
    await record('done');
    transcript.pages.push({ link, shown: shown.status(), status: sent.status(), heading: await tab.locator('h1').textContent() });
    if (states) {
      // Another browser, without the page's cookie, finds it used.
      await browser.clearCookies();
      await tab.goto(link);
      await record('used');
    }
  } finally {
    await tab.close();
  }
}

// parts lists each element's own text, and an option's, with the lang it
// is read in: its nearest lang attribute. It runs in the page.
function parts() {
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('script, style, [hidden], .hidden')) continue;
    let own = el.tagName === 'OPTION' ? el.textContent : '';
    if (el.tagName !== 'OPTION') for (const n of el.childNodes) if (n.nodeType === Node.TEXT_NODE) own += n.data;
    own = own.trim();
    if (own !== '') out.push({ text: own, lang: el.closest('[lang]')?.getAttribute('lang') ?? '' });
  }
  return out;
}

// described returns what a screen reader meets in the view: the control
// each label of the form finds, each control's value, bounds, state and
// description, and what has the focus.
async function described() {
  const frame = page.frameLocator('#view');
  const labels = {};
  for (const raw of await frame.locator('form label').allTextContents()) {
    const text = raw.trim();
    const found = frame.getByLabel(text, { exact: true });
    const n = await found.count();
    labels[text] = n === 1 ? await found.evaluate((e) => e.name) : `${n} controls`;
  }
  const rest = await frame.locator('body').evaluate(() => {
    const attr = (e, a) => e.getAttribute(a);
    const controls = [...document.querySelectorAll('form [name]')].map((e) => ({
      name: e.name, value: e.type === 'checkbox' ? String(e.checked) : e.value,
      min: attr(e, 'min'), max: attr(e, 'max'), minlength: attr(e, 'minlength'), maxlength: attr(e, 'maxlength'),
      invalid: attr(e, 'aria-invalid'),
      described: (attr(e, 'aria-describedby') ?? '').split(' ').filter(Boolean)
        .map((id) => document.getElementById(id)?.textContent ?? `no #${id}`),
    }));
    const a = document.activeElement;
    // The error summary: its h2, and the control each of its links finds.
    const summary = [...document.querySelectorAll('.mcpform-problems a[href^="#"]')].map((l) => {
      const to = document.getElementById(l.getAttribute('href').slice(1));
      return { text: l.textContent, to: to?.name ?? to?.querySelector('[name]')?.name ?? '' };
    });
    const summaryHeading = document.querySelector('.mcpform-problems h2')?.textContent ?? '';
    const title = document.querySelector('title');
    return { controls, summary, summaryHeading, lang: document.documentElement.lang,
      title: document.title, titleLang: title?.closest('[lang]')?.lang ?? '', focus: { class: a?.className ?? '', role: a?.getAttribute('role') ?? '', text: (a?.innerText ?? '').trim().slice(0, 200) } };
  });
  return { labels, ...rest, parts: await frame.locator('body').evaluate(parts) };
}

// audit runs axe-core in the view's frame, keeps what it found under
// name, and a screenshot of the state when the plan keeps them.
async function audit(name) {
  await auditIn(await (await page.$('#view')).contentFrame(), name, page);
}

// auditIn runs axe-core in frame, a frame of tab, as audit does.
async function auditIn(frame, name, tab) {
  if (plan.screenshots) await tab.screenshot({ path: join(plan.screenshots, `${name}.png`), fullPage: true });
  await frame.evaluate(axeSource);
  const found = await frame.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  transcript.axe.push({ name, violations: found });
}

// waitFor polls cond until it is truthy, within the plan's budget.
async function waitFor(cond) {
  for (const end = Date.now() + timeout; Date.now() < end;) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out waiting for the view');
}
