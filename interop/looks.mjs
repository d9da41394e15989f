// looks.mjs measures what a page or a view looks like in Debian's Chromium,
// for mcpform's layout tests: sizes, computed styles and document order,
// which a test of the HTML alone cannot see. It never downloads a browser.
//
// Usage (cwd interop/): node looks.mjs < job.json > looks.json
//
// The job is
//
//	{"chromium": "/usr/bin/chromium",
//	 "timeoutMs": 60000,
//	 "targets": [{"name": "view-phone", "url": "http://127.0.0.1:PORT/…",
//	              "width": 390,             // the viewport's width; 720 unless set
//	              "colorScheme": "dark",    // what the page is told; light unless set
//	              "frame": "#view",         // optional: measure in this iframe
//	              "waitFor": "form",        // optional: a selector to wait for
//	              "post": {"field": "value"}, // optional: submit the page's form first
//	              "measure": "() => ({…})"}]} // a function's source, run in the
//	                                        // page or frame: what it returns is the result
//
// It writes {"results": [{"name", "looks": what measure returned}]} on
// stdout. Any failure exits non-zero with the reason on stderr.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_FLAGS } from './chromium.mjs';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const timeout = job.timeoutMs ?? 60000;
const watchdog = setTimeout(() => {
  process.stderr.write(`looks.mjs: no result within ${timeout} ms\n`);
  process.exit(2);
}, timeout);

const profile = await mkdtemp(join(tmpdir(), 'mcpform-looks-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: job.chromium, headless: true, args: CHROMIUM_FLAGS,
    viewport: { width: 720, height: 1200 }, timeout,
    // The secret page's CSP allows no script; the measure runs all the same.
    bypassCSP: true,
  });
  context.setDefaultTimeout(timeout);
  const results = [];
  for (const target of job.targets) results.push({ name: target.name, looks: await measure(target) });
  process.stdout.write(JSON.stringify({ results }));
} finally {
  clearTimeout(watchdog);
  await context?.close();
  await rm(profile, { recursive: true, force: true });
}

// measure opens one target and runs its measure there.
async function measure(target) {
  const page = await context.newPage();
  const step = (what) => process.stderr.write(`looks.mjs: ${target.name}: ${what}\n`);
  try {
    await page.setViewportSize({ width: target.width ?? 720, height: 1200 });
    await page.emulateMedia({ colorScheme: target.colorScheme ?? 'light' });
    step(`open ${target.url}`);
    await page.goto(target.url);
    if (target.post) {
      step('submit the form');
      await page.locator('form').first().evaluate((f) => { f.noValidate = true; });
      for (const [name, value] of Object.entries(target.post)) await page.locator(`[name="${name}"]`).fill(value);
      await Promise.all([page.waitForNavigation(), page.locator('button[type=submit]').first().click()]);
    }
    let scope = page.mainFrame();
    if (target.frame) scope = await (await page.waitForSelector(target.frame)).contentFrame();
    if (target.waitFor) await scope.waitForSelector(target.waitFor);
    step('measure');
    return await scope.evaluate(`(${target.measure})()`);
  } finally {
    await page.close();
  }
}
