// axe.mjs runs axe-core, the accessibility engine of browsers' own
// developer tools, over pages in Debian's Chromium, for mcpform's
// accessibility gate. It never downloads a browser.
//
// Usage (cwd interop/): node axe.mjs < job.json > report.json
//
// The job is
//
//	{"chromium": "/usr/bin/chromium",
//	 "screenshots": "/dir",        // optional: NAME.png for each target
//	 "timeoutMs": 60000,
//	 "colorScheme": "light",       // or "dark": what the page is told
//	 "targets": [{"name": "page-empty", "url": "http://127.0.0.1:PORT/…",
//	              "frame": "#view",      // optional: audit this iframe
//	              "waitFor": "form",     // optional: a selector to wait for
//	              "post": {"field": "value"}}]} // optional: submit the page's
//	                                     // form with these values first
//
// For each target it opens the URL in a fresh page, waits for the
// selector (in the frame, when one is named), submits the form when the
// target says so, takes the screenshot, injects axe-core into the page or
// frame and runs it with its default rules. It writes
//
//	{"results": [{"name", "violations": [{"id", "impact", "help",
//	  "nodes": [CSS targets]}], "title": document.title}]}
//
// on stdout, every violation of every impact: the Go test decides which
// fail the gate. Any failure exits non-zero with the reason on stderr.
import { chromium } from 'playwright-core';
import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { CHROMIUM_FLAGS } from './chromium.mjs';

const FLAGS = CHROMIUM_FLAGS;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const timeout = job.timeoutMs ?? 60000;
const watchdog = setTimeout(() => {
  process.stderr.write(`axe.mjs: no result within ${timeout} ms\n`);
  process.exit(2);
}, timeout);

const require = createRequire(import.meta.url);
const axeSource = await readFile(join(dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');

const profile = await mkdtemp(join(tmpdir(), 'mcpform-axe-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: job.chromium,
    headless: true,
    args: FLAGS,
    // A phone's width: what overflows there is what a person meets.
    viewport: { width: 390, height: 844 },
    colorScheme: job.colorScheme ?? 'light',
    // The secret page's CSP allows no script; axe is injected all the same.
    bypassCSP: true,
    timeout,
  });
  context.setDefaultTimeout(timeout);
  const results = [];
  for (const target of job.targets) {
    results.push(await audit(context, target));
  }
  process.stdout.write(JSON.stringify({ results }));
} finally {
  clearTimeout(watchdog);
  await context?.close();
  await rm(profile, { recursive: true, force: true });
}

// audit opens one target and returns what axe found there.
async function audit(context, target) {
  const page = await context.newPage();
  // What it did last, on stderr: the Go test shows it when this fails.
  const step = (what) => process.stderr.write(`axe.mjs: ${target.name}: ${what}\n`);
  try {
    step(`open ${target.url}`);
    await page.goto(target.url);
    if (target.post) {
      step('submit the form');
      // The server's check is the one that counts: skip the browser's.
      await page.locator('form').first().evaluate((f) => { f.noValidate = true; });
      for (const [name, value] of Object.entries(target.post)) {
        await page.locator(`[name="${name}"]`).fill(value);
      }
      await Promise.all([page.waitForNavigation(), page.locator('button[type=submit]').first().click()]);
    }
    let scope = page.mainFrame();
    if (target.frame) {
      const handle = await page.waitForSelector(target.frame);
      scope = await handle.contentFrame();
    }
    if (target.waitFor) await scope.waitForSelector(target.waitFor);
    if (job.screenshots) {
      await page.screenshot({ path: join(job.screenshots, `${target.name}.png`), fullPage: true });
    }
    step('run axe');
    await scope.evaluate(axeSource);
    const found = await scope.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return {
        title: document.title,
        violations: r.violations.map((v) => ({
          id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map((n) => n.target.join(' ')),
        })),
      };
    });
    return { name: target.name, ...found };
  } finally {
    await page.close();
  }
}
