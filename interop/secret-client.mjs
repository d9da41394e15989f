// secret-client.mjs drives examples/signup's set_password with the official
// TypeScript client, @modelcontextprotocol/client, and a real Chromium for
// the secret page, for e2e/secret_test.go.
//
// Usage (cwd interop/):
//
//	node secret-client.mjs < plan.json > transcript.json
//
// The plan is
//
//	{
//	  "stdio": {"command": "...", "args": ["-stdio", ...], "env": {...}},
//	  "pin": "2026-07-28",
//	  "chromium": "/usr/bin/chromium",
//	  "email": "...", "password": "...",
//	  "intruder": false,
//	  "timeoutMs": 30000
//	}
//
// The client declares form and URL-mode elicitation, calls signup (the
// form answered with email on the free plan), then set_password: its form
// gets email, and its URL-mode request is opened in Chromium, where the
// password is typed into the page and sent, and the link opened again;
// with intruder, a second Chromium, someone else's, opens the link first.
// The transcript is
//
//	{"protocolVersion", "results": [signup's, set_password's],
//	 "asked": [{key, mode, message, url}],
//	 "pages": [{shown, fits, status, heading, reopened, intruder: {status, heading, text}}],
//	 "wire": [{dir: "out"|"in", message}], "error"}
//
// where wire is every JSON-RPC message the client sent or received. The
// password is never written anywhere but into the page.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tap } from './wiretap.mjs';
import { CHROMIUM_FLAGS } from './chromium.mjs';

const FLAGS = CHROMIUM_FLAGS;

const plan = JSON.parse(readFileSync(0, 'utf8'));
const timeout = plan.timeoutMs ?? 30000;
const transcript = { results: [], asked: [], pages: [], wire: [] };


// launch starts Chromium on a fresh profile: a browser of its own.
async function launch() {
    const profile = await mkdtemp(join(tmpdir(), 'mcpform-chromium-'));
    try {
        const context = await chromium.launchPersistentContext(profile, {
            executablePath: plan.chromium, headless: true, args: FLAGS, timeout,
        });
        context.setDefaultTimeout(timeout);
        const page = context.pages()[0] ?? await context.newPage();
        return {
            page,
            async close() {
                await context.close();
                await rm(profile, { recursive: true, force: true });
            },
        };
    } catch (err) {
        await rm(profile, { recursive: true, force: true });
        throw err;
    }
}

// openPage types the password into the page at url in a fresh Chromium
// profile, sends it, and records what the page answered, then opens the
// link again and records what it says. With plan.intruder, someone else
// (or a chat app's preview) opens the same link in a browser of their own
// first, and what they saw is recorded too. Before typing, it records
// whether the page's input fits its column on a 390 px wide screen.
async function openPage(url) {
    const browsers = [];
    try {
        const record = {};
        if (plan.intruder) {
            const other = await launch();
            browsers.push(other);
            const seen = await other.page.goto(url);
            record.intruder = {
                status: seen.status(),
                heading: await other.page.locator('h1').textContent(),
                text: await other.page.locator('p').first().textContent(),
            };
        }
        const person = await launch();
        browsers.push(person);
        await person.page.setViewportSize({ width: 390, height: 844 });
        const shown = await person.page.goto(url);
        record.shown = shown.status();
        record.fits = await person.page.locator('input[type=password]').evaluate(
            (el) => el.getBoundingClientRect().right <= el.closest('form').getBoundingClientRect().right + 0.5
                && document.documentElement.scrollWidth <= window.innerWidth);
        await person.page.locator('input[type=password]').fill(plan.password);
        const [sent] = await Promise.all([
            person.page.waitForResponse((r) => r.request().method() === 'POST'),
            person.page.locator('button[type=submit]').click(),
        ]);
        await person.page.waitForLoadState();
        record.status = sent.status();
        record.heading = await person.page.locator('h1').textContent();
        await person.page.goto(url);
        record.reopened = await person.page.locator('h1').textContent();
        transcript.pages.push(record);
    } finally {
        for (const b of browsers) {
            await b.close().catch(() => {});
        }
    }
}

const client = new Client(
    { name: 'mcpform-secret-interop', version: '0.0.0' },
    {
        capabilities: { elicitation: { form: {}, url: {} } },
        versionNegotiation: { mode: { pin: plan.pin } },
    }
);
client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const { mode, message, url, requestedSchema } = request.params;
    transcript.asked.push({ key: String(ctx.mcpReq.id), mode: mode ?? 'form', message, url });
    if (mode === 'url') {
        await openPage(url);
        return { action: 'accept' };
    }
    const content = { email: plan.email };
    if (requestedSchema?.properties?.plan) content.plan = 'free';
    return { action: 'accept', content };
});

try {
    await client.connect(tap(new StdioClientTransport({ ...plan.stdio, stderr: 'inherit' }), transcript.wire), { timeout });
    transcript.protocolVersion = client.getNegotiatedProtocolVersion();
    for (const name of ['signup', 'set_password']) {
        transcript.results.push(await client.callTool({ name, arguments: {} }, { timeout }));
    }
} catch (err) {
    transcript.error = { code: err.code, message: err.message, data: err.data };
} finally {
    await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(transcript, null, 2) + '\n');
