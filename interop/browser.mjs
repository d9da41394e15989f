// browser.mjs drives Debian's Chromium through playwright-core for
// mcpform's browser test. It never downloads a browser.
//
// It reads one JSON job on stdin:
//
//   {"url": host page, "chromium": executable path, "screenshot": PNG path,
//    "timeoutMs": budget for the whole run,
//    "steps": [{"do": "fill"|"check"|"uncheck"|"select"|"press",
//               "name": control name, "value": text or key,
//               "values": [option values]}, ...]}
//
// It opens the host page in a fresh profile, waits until the view inside the
// host's iframe has rendered a form, applies the steps to the controls by
// their name attribute, takes the screenshot, submits, and waits for the
// host to record the view's tools/call. It writes
//
//   {"calls": [tools/call params], "methods": [ui/* methods the view sent],
//    "shown": {name: value the control showed after the fill steps},
//    "types": {name: the type of the input element each fill step filled,
//              which is "text" for a type the browser does not know},
//    "labels": {text of each label in the form: the name of the one control
//               Playwright's getByLabel finds by it, or "N controls"},
//    "looks": {"toggle": whether a theme toggle shows, "bodyMargin",
//              "colorScheme": computed styles of the view's page},
//    "invalid": ["name: message" of each control the browser would not
//                submit; when there is one, the form is not submitted],
//    "errors": [console errors and uncaught exceptions]}
//
// on stdout. With "outcome": true in the job it neither fills nor submits:
// it waits for the view's outcome panel, takes the screenshot, and writes
// {"calls", "methods", "errors", "outcome": {"heading", "text", "shown", "role",
// "focused", "lang": the page's lang}} instead; with "click", a button's
// name, it then clicks that button and waits for its call. Any failure exits non-zero
// with the reason on stderr.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_FLAGS } from './chromium.mjs';

const FLAGS = CHROMIUM_FLAGS;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const timeout = job.timeoutMs ?? 30000;
const watchdog = setTimeout(() => {
  process.stderr.write(`browser.mjs: no result within ${timeout} ms\n`);
  process.exit(2);
}, timeout);

// A CSS attribute value in double quotes: escape the quote and backslash,
// and write other characters CSS cannot hold literally as hex escapes.
const cssString = (s) => '"' + [...s].map((c) => {
  const n = c.codePointAt(0);
  if (c === '"' || c === '\\') return '\\' + c;
  if (n < 0x20 || n === 0x7f || n === 0x2028 || n === 0x2029) return '\\' + n.toString(16) + ' ';
  return c;
}).join('') + '"';

const profile = await mkdtemp(join(tmpdir(), 'mcpform-chromium-'));
let context;
const errors = [];
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: job.chromium,
    headless: true,
    args: FLAGS,
    viewport: { width: 720, height: 1700 },
    timeout,
  });
  context.setDefaultTimeout(timeout);
  const page = context.pages()[0] ?? await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`exception: ${e.message}`));
  await page.goto(job.url);
  await page.waitForFunction(() => window.mcpHost?.ready === true);
  const view = page.frameLocator('#view');
  if (job.outcome) {
    await view.locator('.mcpform-outcome-panel').waitFor();
    const outcome = await view.locator('body').evaluate(() => {
      const panel = document.querySelector('.mcpform-outcome-panel');
      return { heading: panel.querySelector('h1, h2, h3')?.textContent.trim() ?? '',
        text: panel.querySelector('.mcpform-outcome')?.textContent.trim() ?? '', role: panel.getAttribute('role') ?? '',
        focused: document.activeElement === panel, lang: document.documentElement.lang, shown: panel.innerText.trim() };
    });
    if (job.screenshot) await page.screenshot({ path: job.screenshot, fullPage: true });
    if (job.click) {
      // A button under the outcome, by its name: its call is reported.
      await view.getByRole('button', { name: job.click, exact: true }).click();
      await page.waitForFunction(() => window.mcpHost.calls.length > 0);
    }
    const host = await page.evaluate(() => window.mcpHost);
    process.stdout.write(JSON.stringify({ calls: host.calls, methods: host.methods, errors, outcome }));
  } else {
    await view.locator('form.pf-form').waitFor();

    for (const step of job.steps) {
      const control = view.locator(`[name=${cssString(step.name)}]`);
      switch (step.do) {
        case 'fill': await control.fill(step.value); break;
        case 'check': await control.check(); break;
        case 'uncheck': await control.uncheck(); break;
        case 'select': await control.selectOption(step.values); break;
        case 'press': await control.press(step.value); break;
        default: throw new Error(`unknown step ${JSON.stringify(step)}`);
      }
    }
    // What the form shows, read back from the DOM before submitting.
    const shown = {};
    const types = {};
    for (const step of job.steps) {
      if (step.do !== 'fill') continue;
      const control = view.locator(`[name=${cssString(step.name)}]`);
      shown[step.name] = await control.inputValue();
      types[step.name] = await control.evaluate((e) => e.type);
    }
    // Each label of the form, and the name of the one control a person (or a
    // screen reader) reaches by it.
    const labels = {};
    for (const raw of await view.locator('form.pf-form label').allTextContents()) {
      const text = raw.trim();
      const found = view.getByLabel(text, { exact: true });
      const n = await found.count();
      labels[text] = n === 1 ? await found.evaluate((e) => e.name) : `${n} controls`;
    }
    // What frames the view: the theme toggle, the body's margin, the scheme.
    const looks = {
      toggle: await view.locator('.pf-theme-toggle').isVisible(),
      ...await view.locator('body').evaluate((b) => ({
        bodyMargin: getComputedStyle(b).margin,
        colorScheme: getComputedStyle(document.documentElement).colorScheme,
      })),
    };
    if (job.screenshot) {
      // Filling scrolls the controls into view, inside the frame too; shoot
      // the form from its top.
      await view.locator('body').evaluate(() => window.scrollTo(0, 0));
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: job.screenshot, fullPage: true });
    }

    // The browser's own constraint validation blocks a submit without a
    // word; report it rather than wait for a call that will never come.
    const invalid = await view.locator('form.pf-form').evaluate((form) => [...form.elements]
      .filter((e) => e.willValidate && !e.checkValidity())
      .map((e) => `${e.name}: ${e.validationMessage}`));
    if (invalid.length === 0) {
      await view.locator('button[type=submit]').click();
      await page.waitForFunction(() => window.mcpHost.calls.length > 0);
    }
    const host = await page.evaluate(() => window.mcpHost);
    process.stdout.write(JSON.stringify({ calls: host.calls, methods: host.methods, shown, types, labels, looks, invalid, errors }));
  }
} finally {
  clearTimeout(watchdog);
  await context?.close();
  await rm(profile, { recursive: true, force: true });
}
