// prefab.mjs calls the pinned @maxhealth.tech/prefab helpers for mcpform's
// interop tests. It reads a JSON array of calls on stdin, each
// {"fn": name, "args": [...]}, and writes a JSON array of results on stdout,
// each {"result": value} or {"error": message}. A thrown helper is reported,
// not fatal, so one call cannot hide the others' answers.
import * as mcp from '@maxhealth.tech/prefab/mcp';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const calls = JSON.parse(Buffer.concat(chunks).toString('utf8'));

// Prefab logs warnings to the console; keep stdout for the answer only.
console.log = console.warn = console.info = console.debug = (...a) => process.stderr.write(a.join(' ') + '\n');

const out = [];
for (const { fn, args } of calls) {
  const f = mcp[fn];
  if (typeof f !== 'function') {
    out.push({ error: `no such prefab helper: ${fn}` });
    continue;
  }
  try {
    out.push({ result: await f(...args) });
  } catch (e) {
    out.push({ error: String(e && e.message || e) });
  }
}
process.stdout.write(JSON.stringify(out));
