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
//	  "timeoutMs": 30000
//	}
//
// The client declares form and URL-mode elicitation, calls signup (the
// form answered with email on the free plan), then set_password: its form
// gets email, and its URL-mode request is opened in Chromium, where the
// password is typed into the page and sent. The transcript is
//
//	{"protocolVersion", "results": [signup's, set_password's],
//	 "asked": [{key, mode, message, url}], "pages": [{status, heading}],
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

const FLAGS = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const plan = JSON.parse(readFileSync(0, 'utf8'));
const timeout = plan.timeoutMs ?? 30000;
const transcript = { results: [], asked: [], pages: [], wire: [] };

// tap records every message through transport, both ways.
function tap(transport) {
    return new Proxy(transport, {
        set(target, prop, value) {
            if (prop === 'onmessage' && typeof value === 'function') {
                const deliver = value;
                value = (message, ...rest) => {
                    transcript.wire.push({ dir: 'in', message });
                    return deliver(message, ...rest);
                };
            }
            target[prop] = value;
            return true;
        },
        get(target, prop) {
            if (prop === 'send') {
                return (message, ...rest) => {
                    transcript.wire.push({ dir: 'out', message });
                    return target.send(message, ...rest);
                };
            }
            const v = target[prop];
            return typeof v === 'function' ? v.bind(target) : v;
        },
    });
}

// openPage types the password into the page at url in a fresh Chromium
// profile, sends it, and records what the page answered.
async function openPage(url) {
    const profile = await mkdtemp(join(tmpdir(), 'mcpform-chromium-'));
    let context;
    try {
        context = await chromium.launchPersistentContext(profile, {
            executablePath: plan.chromium, headless: true, args: FLAGS, timeout,
        });
        context.setDefaultTimeout(timeout);
        const page = context.pages()[0] ?? await context.newPage();
        const shown = await page.goto(url);
        await page.locator('input[type=password]').fill(plan.password);
        const [sent] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST'),
            page.locator('button[type=submit]').click(),
        ]);
        await page.waitForLoadState();
        transcript.pages.push({ shown: shown.status(), status: sent.status(), heading: await page.locator('h1').textContent() });
    } finally {
        await context?.close();
        await rm(profile, { recursive: true, force: true });
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
    await client.connect(tap(new StdioClientTransport({ ...plan.stdio, stderr: 'inherit' })), { timeout });
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
