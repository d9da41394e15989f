// language-client.mjs runs a team signup in the person's language with the
// official TypeScript client, @modelcontextprotocol/client, and a real
// Chromium for the secret page, for e2e/language_test.go.
//
// Usage (cwd interop/):
//
//	node language-client.mjs < plan.json > transcript.json
//
// The plan is
//
//	{
//	  "url": "http://127.0.0.1:PORT/mcp",
//	  "pin": "2026-07-28",
//	  "acceptLanguage": "es-ES,es;q=0.9",   // SEP-2792 _meta on the call
//	  "locale": "es-ES",                    // the browser's, for the page
//	  "chromium": "/usr/bin/chromium",
//	  "account": {...},                     // the account step's answer
//	  "team": [{...}, {...}],               // the team step's answers, in turn
//	  "short": "...", "password": "...",    // typed on the page, in turn
//	  "timeoutMs": 30000
//	}
//
// The client declares form and URL-mode elicitation and calls signup once,
// with the acceptLanguage _meta; it fulfils every input request itself.
// The transcript is
//
//	{"protocolVersion", "result", "asked": [{key, mode, message, url, titles}],
//	 "page": {lang, title, heading, intro, label, button, problemTitle, problem, done},
//	 "wire": [...], "error"}
//
// The password is never written anywhere but into the page.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tap } from './wiretap.mjs';
import { CHROMIUM_FLAGS } from './chromium.mjs';

const plan = JSON.parse(readFileSync(0, 'utf8'));
const timeout = plan.timeoutMs ?? 30000;
const transcript = { asked: [], wire: [] };

// openPage types a too-short password into the page at url, in a
// Chromium whose locale is plan.locale, then the real one, and records
// what the page said in between.
async function openPage(url) {
    const profile = await mkdtemp(join(tmpdir(), 'mcpform-chromium-'));
    let context;
    try {
        context = await chromium.launchPersistentContext(profile, {
            executablePath: plan.chromium, headless: true, args: CHROMIUM_FLAGS, timeout, locale: plan.locale,
        });
        context.setDefaultTimeout(timeout);
        const page = context.pages()[0] ?? await context.newPage();
        await page.goto(url);
        const record = {
            lang: await page.locator('html').getAttribute('lang'),
            title: await page.title(),
            heading: await page.locator('h1').textContent(),
            intro: await page.locator('main > p').first().textContent(),
            label: await page.locator('label').first().textContent(),
            button: await page.locator('button[type=submit]').textContent(),
        };
        const send = async (value) => {
            // The page's own minlength would stop the browser: send anyway.
            await page.locator('input[type=password]').evaluate((el) => el.removeAttribute('minlength'));
            await page.locator('input[type=password]').fill(value);
            await Promise.all([
                page.waitForResponse((r) => r.request().method() === 'POST'),
                page.locator('button[type=submit]').click(),
            ]);
            await page.waitForLoadState();
        };
        await send(plan.short);
        record.problemTitle = await page.title();
        record.problem = await page.locator('[role=alert]').textContent();
        await send(plan.password);
        record.done = await page.locator('h1').textContent();
        transcript.page = record;
    } finally {
        await context?.close().catch(() => {});
        await rm(profile, { recursive: true, force: true });
    }
}

const client = new Client(
    { name: 'mcpform-language-interop', version: '0.0.0' },
    {
        capabilities: { elicitation: { form: {}, url: {} } },
        versionNegotiation: { mode: { pin: plan.pin } },
    }
);
let teamAnswers = 0;
client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const { mode, message, url, requestedSchema } = request.params;
    const props = requestedSchema?.properties ?? {};
    transcript.asked.push({
        key: String(ctx.mcpReq.id), mode: mode ?? 'form', message, url,
        titles: Object.values(props).map((p) => p.title),
    });
    if (mode === 'url') {
        await openPage(url);
        return { action: 'accept' };
    }
    if ('seats' in props) {
        return { action: 'accept', content: plan.team[teamAnswers++] };
    }
    return { action: 'accept', content: plan.account };
});

try {
    await client.connect(tap(new StreamableHTTPClientTransport(new URL(plan.url)), transcript.wire), { timeout });
    transcript.protocolVersion = client.getNegotiatedProtocolVersion();
    transcript.result = await client.callTool({
        name: 'signup', arguments: {},
        _meta: { 'io.modelcontextprotocol/acceptLanguage': plan.acceptLanguage },
    }, { timeout });
} catch (err) {
    transcript.error = { code: err.code, message: err.message, data: err.data };
} finally {
    await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(transcript, null, 2) + '\n');
