// requeststate-verify.mjs verifies request-state tokens with the TypeScript
// SDK's codec, so that Go tests can check that Go-minted tokens verify there.
//
// Usage (cwd interop/, as runNode in helpers_test.go does):
//
//	node requeststate-verify.mjs < request.json > results.json
//
// The request is
//
//	{"key": "<hex>", "nowMillis": <int>, "cases": [{"token": "...", "bind": "..." | null, "key"?: "<hex>", "nowMillis"?: <int>}]}
//
// where a null bind means a codec without a bind callback, and a case's own
// key or nowMillis overrides the request's. The codec has no
// clock option, so Date.now is replaced by the fixed nowMillis. The output is
//
//	{"package": "...", "version": "...", "results": [{"ok": true, "payloadJSON": "..."} | {"ok": false, "error": "..."}]}
//
// in the order of the cases. error is the codec's Error message ("malformed",
// "mac", "expired", "bind") or "<Name>: <message>" for anything else it throws,
// such as a TypeError.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createRequestStateCodec } from '@modelcontextprotocol/server';

/**
 * The name and version of the installed package whose codec these scripts
 * exercise (its exports hide package.json, so read the file).
 */
export const provenance = (() => {
    const url = new URL('./node_modules/@modelcontextprotocol/server/package.json', import.meta.url);
    const pkg = JSON.parse(readFileSync(url, 'utf8'));
    return { package: pkg.name, version: pkg.version, function: 'createRequestStateCodec' };
})();

/** hexToBytes decodes a hex string; it throws on odd length or bad digits. */
export function hexToBytes(hex) {
    if (!/^(?:[0-9a-f]{2})*$/i.test(hex)) throw new Error('key must be hex');
    return Uint8Array.from(hex.match(/../g) ?? [], h => parseInt(h, 16));
}

/**
 * withClock runs fn with Date.now fixed at nowMillis and restores it after,
 * because createRequestStateCodec reads the clock only through Date.now.
 */
export async function withClock(nowMillis, fn) {
    const real = Date.now;
    Date.now = () => nowMillis;
    try {
        return await fn();
    } finally {
        Date.now = real;
    }
}

/** codecFor builds a TS codec; bind null means no bind callback. */
export function codecFor(key, bind, ttlSeconds) {
    const options = { key };
    if (ttlSeconds !== undefined && ttlSeconds !== null) options.ttlSeconds = ttlSeconds;
    if (bind !== null && bind !== undefined) options.bind = () => bind;
    return createRequestStateCodec(options);
}

/**
 * outcome verifies token and describes the result as plain JSON. payloadJSON
 * is JSON.stringify of the payload, or null when the payload is undefined.
 */
export async function outcome(key, nowMillis, token, bind) {
    const codec = codecFor(key, bind);
    try {
        const p = await withClock(nowMillis, () => codec.verify(token, {}));
        return { ok: true, payloadJSON: p === undefined ? null : JSON.stringify(p) };
    } catch (e) {
        const known = ['malformed', 'mac', 'expired', 'bind'];
        if (e && e.constructor === Error && known.includes(e.message)) return { ok: false, error: e.message };
        return { ok: false, error: `${e?.name}: ${e?.message}` };
    }
}

// readStdin reads all of stdin. (readFileSync(0) fails with EAGAIN when
// stdin is a non-blocking pipe, as it is under go test.)
async function readStdin() {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
}

async function main() {
    const req = JSON.parse(await readStdin());
    const key = hexToBytes(req.key);
    const results = [];
    for (const c of req.cases) {
        const k = c.key === undefined ? key : hexToBytes(c.key);
        results.push(await outcome(k, c.nowMillis ?? req.nowMillis, c.token, c.bind ?? null));
    }
    process.stdout.write(JSON.stringify({ ...provenance, results }) + '\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
    await main();
}
