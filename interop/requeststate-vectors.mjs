// requeststate-vectors.mjs mints the request-state test vectors that the Go
// codec must verify, with the TypeScript SDK's createRequestStateCodec.
//
// Usage (cwd interop/):
//
//	node requeststate-vectors.mjs > ../testdata/requeststate/vectors.json
//
// or, from the module root, go test -run TestRequestStateVectorsReproducible -update.
//
// The output is deterministic: the key and the clock are fixed (the codec has
// no clock option, so Date.now is replaced). It has two lists:
//
//   - vectors: tokens minted by the codec. The script checks each one
//     verifies with the codec before writing it out.
//   - crafted: tokens whose bodies the codec never mints (odd JSON shapes,
//     other base64 spellings), MACed with node:crypto under the same key,
//     with the outcome the TS codec gives for each.
import { createHmac } from 'node:crypto';
import { codecFor, hexToBytes, outcome, provenance, withClock } from './requeststate-verify.mjs';

const KEY_HEX = '6d6370666f726d2072657175657374207374617465207465737420766563746f72'; // "mcpform request state test vector"
const NOW_MILLIS = 1767225600789; // 2026-01-01T00:00:00.789Z: the .789 checks that exp uses whole seconds
const NOW_SECONDS = Math.floor(NOW_MILLIS / 1000);
const key = hexToBytes(KEY_HEX);

const object = { step: 2, answers: { name: 'Ada', age: 36 } };

// Each case: name, payload (absent for undefined), bind (null: no bind
// callback), ttlSeconds (null: the default).
const cases = [
    { name: 'unbound-object', payload: object, bind: null, ttlSeconds: null },
    { name: 'bound-object', payload: object, bind: 'user-42/signup', ttlSeconds: null },
    { name: 'bound-bindto-alice-signup', payload: object, bind: '5:alice6:signup', ttlSeconds: null },
    { name: 'bound-nul-byte', payload: object, bind: 'a\u0000b', ttlSeconds: null },
    { name: 'bound-empty', payload: object, bind: '', ttlSeconds: null },
    { name: 'bound-non-ascii', payload: object, bind: 'ünï ✓ 世界 🎉', ttlSeconds: null },
    { name: 'ttl-0', payload: object, bind: null, ttlSeconds: 0 },
    { name: 'ttl-0-bound', payload: object, bind: 'user-42/signup', ttlSeconds: 0 },
    { name: 'ttl-60', payload: object, bind: null, ttlSeconds: 60 },
    { name: 'ttl-86400', payload: object, bind: null, ttlSeconds: 86400 },
    { name: 'payload-null', payload: null, bind: null, ttlSeconds: null },
    { name: 'payload-true', payload: true, bind: null, ttlSeconds: null },
    { name: 'payload-false', payload: false, bind: null, ttlSeconds: null },
    { name: 'payload-zero', payload: 0, bind: null, ttlSeconds: null },
    { name: 'payload-negative-fraction', payload: -1.5, bind: null, ttlSeconds: null },
    { name: 'payload-exponent', payload: 1e21, bind: null, ttlSeconds: null },
    { name: 'payload-max-safe-integer', payload: Number.MAX_SAFE_INTEGER, bind: null, ttlSeconds: null },
    { name: 'payload-empty-string', payload: '', bind: null, ttlSeconds: null },
    { name: 'payload-ascii-string', payload: 'hello', bind: null, ttlSeconds: null },
    { name: 'payload-non-ascii-string', payload: 'héllo wörld 世界 🎉', bind: null, ttlSeconds: null },
    { name: 'payload-line-separators', payload: 'a\u2028b\u2029c', bind: null, ttlSeconds: null },
    { name: 'payload-escapes', payload: '\u0000\u001f"\\/\n\t<script>&amp;</script>', bind: null, ttlSeconds: null },
    { name: 'payload-empty-array', payload: [], bind: null, ttlSeconds: null },
    { name: 'payload-mixed-array', payload: [1, 'two', null, true, { x: [] }], bind: null, ttlSeconds: null },
    { name: 'payload-empty-object', payload: {}, bind: null, ttlSeconds: null },
    { name: 'payload-object-key-order', payload: { b: 1, a: 2, 'ü': 'ß', '\u2028': 'sep' }, bind: null, ttlSeconds: null },
    { name: 'payload-nested', payload: { a: [{ b: [{ c: [[], {}, 'd\u2028'] }] }] }, bind: 'user-42/signup', ttlSeconds: null },
    { name: 'payload-undefined', bind: null, ttlSeconds: null },
];

const b64url = bytes => Buffer.from(bytes).toString('base64url');

/** decodeBody returns the JSON text of a token's body. */
function decodeBody(token) {
    return Buffer.from(token.slice(3, token.lastIndexOf('.')), 'base64url').toString('utf8');
}

const vectors = [];
for (const c of cases) {
    const codec = codecFor(key, c.bind, c.ttlSeconds);
    const token = await withClock(NOW_MILLIS, () => codec.mint(c.payload, {}));
    const exp = NOW_SECONDS + (c.ttlSeconds ?? 600);
    // Sanity checks, so a broken setup fails here rather than in Go.
    const body = JSON.parse(decodeBody(token));
    if (body.exp !== exp) throw new Error(`${c.name}: exp ${body.exp}, want ${exp}`);
    const check = await outcome(key, NOW_MILLIS, token, c.bind);
    if (!check.ok) throw new Error(`${c.name}: the codec rejects its own token: ${check.error}`);
    const v = { name: c.name, bind: c.bind, ttlSeconds: c.ttlSeconds, exp };
    if ('payload' in c) v.payload = c.payload;
    v.payloadJSON = 'payload' in c ? JSON.stringify(c.payload) : null;
    v.token = token;
    vectors.push(v);
}

/** sign MACs body (already base64url text) the way the codec does. */
function sign(bodyText) {
    return `v1.${bodyText}.${createHmac('sha256', key).update(`v1.${bodyText}`).digest('base64url')}`;
}
const json = text => b64url(Buffer.from(text, 'utf8'));
const future = NOW_SECONDS + 600;
const boundTag = b64url(createHmac('sha256', key).update('mcp.requestState.bind:user-42/signup').digest().subarray(0, 16));
// 26 bytes, so its base64url text has a partial final group: the case for
// padding and for unused trailing bits.
const oddBody = json(`{"p":"x","exp":${future}}`);
// The MAC spellings need a MAC with '-' or '_' in it, so that the standard
// alphabet spells it differently.
const base = vectors.find(v => v.bind === null && /[-_]/.test(v.token.slice(v.token.lastIndexOf('.')))).token;
const [, baseBody, baseMAC] = base.match(/^v1\.([^.]*)\.(.*)$/);
// respell returns another base64 spelling of the same final group, one that
// lenient decoders read as the same bytes: the unused low bits set.
function respell(text) {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const unused = { 2: 0b1111, 3: 0b11 }[text.length % 4];
    if (!unused) throw new Error('no unused bits to set');
    const last = alphabet.indexOf(text.at(-1));
    return text.slice(0, -1) + alphabet[last | unused];
}

// Each crafted case: name, bind for the verifying codec, token.
const crafted = [
    { name: 'body-null', bind: null, token: sign(json('null')) },
    { name: 'body-array', bind: null, token: sign(json(`[1,${future}]`)) },
    { name: 'body-number', bind: null, token: sign(json(`${future}`)) },
    { name: 'body-string', bind: null, token: sign(json('"exp"')) },
    { name: 'body-not-json', bind: null, token: sign(json('{"p":')) },
    { name: 'body-invalid-utf8', bind: null, token: sign(b64url(Buffer.concat([Buffer.from(`{"p":"`), Buffer.from([0xff]), Buffer.from(`","exp":${future}}`)]))) },
    { name: 'body-bom', bind: null, token: sign(b64url(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"p":1,"exp":${future}}`)]))) },
    { name: 'body-whitespace', bind: null, token: sign(json(` \t\n{ "p" : 1 , "exp" : ${future} }\r\n`)) },
    { name: 'body-canonical', bind: null, token: sign(oddBody) },
    { name: 'body-padded', bind: null, token: sign(oddBody.padEnd(Math.ceil(oddBody.length / 4) * 4, '=')) },
    { name: 'body-trailing-bits', bind: null, token: sign(respell(oddBody)) },
    { name: 'body-contains-dot', bind: null, token: sign(`${oddBody}.e30`) },
    { name: 'p-missing', bind: null, token: sign(json(`{"exp":${future}}`)) },
    { name: 'exp-missing', bind: null, token: sign(json('{"p":1}')) },
    { name: 'exp-string', bind: null, token: sign(json(`{"p":1,"exp":"${future}"}`)) },
    { name: 'exp-null', bind: null, token: sign(json('{"p":1,"exp":null}')) },
    { name: 'exp-uppercase-key', bind: null, token: sign(json(`{"p":1,"EXP":${future}}`)) },
    { name: 'exp-escaped-key', bind: null, token: sign(json(`{"p":1,"\\u0065xp":${future}}`)) },
    { name: 'exp-duplicate-last-wins', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS - 1},"exp":${future}}`)) },
    { name: 'exp-now', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS}}`)) },
    { name: 'exp-past', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS - 1}}`)) },
    { name: 'exp-fraction-future', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS}.5}`)) },
    { name: 'exp-fraction-past', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS - 1}.5}`)) },
    { name: 'exp-exponent', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS / 100}e2}`)) },
    { name: 'exp-overflow', bind: null, token: sign(json('{"p":1,"exp":1e400}')) },
    { name: 'exp-negative', bind: null, token: sign(json('{"p":1,"exp":-1}')) },
    // The lifetime rules of the Go codec: an exp of whole seconds up to
    // Number.MAX_SAFE_INTEGER, within the TTL (600) and Go's
    // RequestStateLeeway (5 s) of now, either way.
    { name: 'exp-zero', bind: null, token: sign(json('{"p":1,"exp":0}')) },
    { name: 'exp-negative-zero', bind: null, token: sign(json('{"p":1,"exp":-0}')) },
    { name: 'exp-past-leeway', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS - 5}}`)) },
    { name: 'exp-past-beyond-leeway', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS - 6}}`)) },
    { name: 'exp-ttl-leeway-ahead', bind: null, token: sign(json(`{"p":1,"exp":${future + 5}}`)) },
    { name: 'exp-beyond-ttl-leeway', bind: null, token: sign(json(`{"p":1,"exp":${future + 6}}`)) },
    { name: 'exp-far-future', bind: null, token: sign(json(`{"p":1,"exp":${NOW_SECONDS + 100 * 365 * 86400}}`)) },
    { name: 'exp-max-safe-integer', bind: null, token: sign(json(`{"p":1,"exp":${Number.MAX_SAFE_INTEGER}}`)) },
    { name: 'exp-above-max-safe-integer', bind: null, token: sign(json('{"p":1,"exp":9007199254740992}')) },
    { name: 'exp-huge-integer', bind: null, token: sign(json('{"p":1,"exp":99999999999999999999999}')) },
    { name: 'b-null-unbound', bind: null, token: sign(json(`{"p":1,"exp":${future},"b":null}`)) },
    { name: 'b-null-bound', bind: 'user-42/signup', token: sign(json(`{"p":1,"exp":${future},"b":null}`)) },
    { name: 'b-number-bound', bind: 'user-42/signup', token: sign(json(`{"p":1,"exp":${future},"b":1}`)) },
    { name: 'b-escaped-bound', bind: 'user-42/signup', token: sign(json(`{"p":1,"exp":${future},"b":"\\u${boundTag.charCodeAt(0).toString(16).padStart(4, '0')}${boundTag.slice(1)}"}`)) },
    { name: 'b-before-exp-bound', bind: 'user-42/signup', token: sign(json(`{"b":"${boundTag}","exp":${future},"p":1}`)) },
    { name: 'mac-padded', bind: null, token: `v1.${baseBody}.${baseMAC}=` },
    { name: 'mac-trailing-bits', bind: null, token: `v1.${baseBody}.${respell(baseMAC)}` },
    { name: 'mac-standard-alphabet', bind: null, token: `v1.${baseBody}.${Buffer.from(baseMAC, 'base64url').toString('base64').replace(/=+$/, '')}` },
    { name: 'mac-space', bind: null, token: `v1.${baseBody}.${baseMAC.slice(0, 20)} ${baseMAC.slice(20)}` },
    { name: 'mac-newline', bind: null, token: `v1.${baseBody}.${baseMAC.slice(0, 20)}\n${baseMAC.slice(20)}` },
    { name: 'mac-empty', bind: null, token: `v1.${baseBody}.` },
    { name: 'mac-truncated', bind: null, token: `v1.${baseBody}.${baseMAC.slice(0, 42)}` },
    { name: 'mac-bad-length', bind: null, token: `v1.${baseBody}.${baseMAC.slice(0, 41)}` },
];
for (const c of crafted) c.ts = await outcome(key, NOW_MILLIS, c.token, c.bind);

const out = {
    comment: 'Request-state tokens minted by the TypeScript SDK. Generated by interop/requeststate-vectors.mjs; do not edit by hand. See README.md.',
    provenance: {
        ...provenance,
        script: 'interop/requeststate-vectors.mjs',
        keyHex: KEY_HEX,
        nowMillis: NOW_MILLIS,
        now: new Date(NOW_MILLIS).toISOString(),
        clock: 'Date.now replaced by a function returning nowMillis',
    },
    vectors,
    crafted,
};
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
