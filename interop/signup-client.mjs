// signup-client.mjs drives examples/signup with the official TypeScript
// client, @modelcontextprotocol/client, for the Go interop tests in
// e2e/interop_test.go.
//
// Usage (cwd interop/):
//
//	node signup-client.mjs < plan.json > transcript.json
//
// The plan is
//
//	{
//	  "stdio": {"command": "...", "args": ["-stdio"], "env": {"MCPFORM_STATE_KEY": "..."}},
//	  "url": "http://127.0.0.1:PORT/mcp",       // instead of stdio
//	  "pin": "2026-07-28",                      // omit for the default negotiation
//	  "capabilities": {},                       // omit to declare form elicitation
//	  "timeoutMs": 20000,                       // per request
//	  "calls": [Call, ...]                      // run in order, on one connection
//	}
//
// Every call is of "tool" (default signup), with "arguments" (default {}),
// or, with "argumentsFrom": i, as the model does on the link and model
// paths: the arguments result i's structuredContent says to send back,
// plus, for each property of its requestedSchema, that answer from
// "values", plus "arguments" on top.
//
// A Call is either automatic, {"answers": {KEY: [ElicitResult, ...]}}, where
// the client fulfils each input request itself and the n-th time KEY is
// asked gets the n-th answer (KEY "*" answers any key, in order: use it where
// the server sends elicitation/create and the key is a JSON-RPC id; a key
// with no answer left is cancelled); or manual, {"manual": true,
// "inputResponses": {...}, "requestState": "...", "stateFrom": i,
// "tamper": true}, which sends one tools/call as it is written and returns
// the input_required result as it comes. stateFrom takes requestState from
// the result of call i (a negative i counts back from this call: -1 is the
// one before); tamper then rewrites a signed state's body ("a" member
// email set to mallory@example.com) and keeps its MAC, or flips a bit in
// the middle of a sealed state.
//
// The transcript is {"protocolVersion": "...", "calls": [Step, ...]}, where
// each Step has "sent" (the call's params as given to the client, before
// any automatic round), "asked" (automatic calls: [{round, key, message,
// requestedSchema}]) and either "result" (the tool's result, or the
// input_required value of a manual call) or "error" ({code, message, data});
// and "wire": [{dir: "out"|"in", message}], every JSON-RPC message the
// client sent or received.
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tap } from './wiretap.mjs';

const plan = JSON.parse(readFileSync(0, 'utf8'));
const timeout = plan.timeoutMs ?? 20000;

const capabilities = plan.capabilities ?? { elicitation: { form: {} } };
const client = new Client(
    { name: 'mcpform-interop', version: '0.0.0' },
    {
        capabilities,
        ...(plan.pin && { versionNegotiation: { mode: { pin: plan.pin } } })
    }
);

// The elicitation handler answers from the current automatic call's script.
let current = null; // {answers, asked, seen: {key: count}}
// A client that declares no elicitation has no handler for it either.
if (capabilities.elicitation) client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const key = String(ctx.mcpReq.id);
    const { message, requestedSchema } = request.params;
    current.asked.push({ round: current.asked.length + 1, key, message, requestedSchema });
    const script = key in current.answers ? key : '*';
    const n = (current.seen[script] = (current.seen[script] ?? 0) + 1);
    return current.answers[script]?.[n - 1] ?? { action: 'cancel' };
});

const transport = plan.url
    ? new StreamableHTTPClientTransport(new URL(plan.url))
    : new StdioClientTransport({ ...plan.stdio, stderr: 'inherit' });

// tamper re-encodes a signed state's body with a changed payload, keeping
// its MAC; a sealed state ("s1." and one part) has a bit of its ciphertext
// flipped.
function tamper(state) {
    if (state.startsWith('s1.')) {
        const raw = Buffer.from(state.slice(3), 'base64url');
        raw[raw.length >> 1] ^= 1;
        return 's1.' + raw.toString('base64url');
    }
    const [v, body, mac] = state.split('.');
    const env = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    env.p = { ...env.p, a: { ...env.p?.a, email: 'mallory@example.com' } };
    return [v, Buffer.from(JSON.stringify(env)).toString('base64url'), mac].join('.');
}

const transcript = { calls: [], wire: [] };

try {
    await client.connect(tap(transport, transcript.wire), { timeout });
    transcript.protocolVersion = client.getNegotiatedProtocolVersion();
    for (const call of plan.calls) {
        const step = { asked: [] };
        transcript.calls.push(step);
        const params = { name: call.tool ?? 'signup', arguments: call.arguments ?? {} };
        if (call.argumentsFrom !== undefined) {
            const i = call.argumentsFrom < 0 ? transcript.calls.length - 1 + call.argumentsFrom : call.argumentsFrom;
            const sc = transcript.calls[i].result?.structuredContent ?? {};
            const answers = {};
            for (const p of Object.keys(sc.requestedSchema?.properties ?? {})) {
                if (call.values && p in call.values) answers[p] = call.values[p];
            }
            params.arguments = { ...sc.arguments, ...answers, ...call.arguments };
        }
        step.sent = params;
        try {
            if (call.manual) {
                let state = call.requestState;
                if (call.stateFrom !== undefined) {
                    const i = call.stateFrom < 0 ? transcript.calls.length - 1 + call.stateFrom : call.stateFrom;
                    state = transcript.calls[i].result?.requestState;
                }
                if (call.tamper) state = tamper(state);
                if (call.inputResponses !== undefined) params.inputResponses = call.inputResponses;
                if (state !== undefined) params.requestState = state;
                step.result = await client.callTool(params, { timeout, allowInputRequired: true });
            } else {
                current = { answers: call.answers ?? {}, asked: step.asked, seen: {} };
                step.result = await client.callTool(params, { timeout });
            }
        } catch (err) {
            step.error = { code: err.code, message: err.message, data: err.data };
        }
    }
} catch (err) {
    transcript.error = { code: err.code, message: err.message, data: err.data };
} finally {
    await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(transcript, null, 2) + '\n');
