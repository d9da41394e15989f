// signup-server.mjs is the signup of examples/signup written on the
// official TypeScript server SDK, the peer of mcpform's end-to-end load
// benchmark (e2e/loadgen). It is written as the SDK's users would write it:
//
//   - createMcpHandler serves 2026-07-28 requests from a per-request
//     McpServer, mounted on plain node:http;
//   - the forms are the schemas examples/signup sends, byte for byte;
//   - the request state is HMAC-signed by the SDK's createRequestStateCodec,
//     bound to the principal and the tool, and carries the run's ID and the
//     proven account answers;
//   - answers are checked with the SDK's acceptedContent, against the same
//     schemas through fromJsonSchema;
//   - a Map keeps each run's first outcome (exactly-once), and another one
//     accounts by email.
//
// It listens on a free loopback port and prints one line,
//
//	mcpform signup: listening on http://127.0.0.1:PORT/mcp
//
// as the Go example does, then serves until it is killed. The key comes from
// MCPFORM_STATE_KEY (hex; the first of a comma-separated list), as the Go
// example's does.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';

const principal = 'local';
const toolName = 'signup';

// The forms of examples/signup, as its requestedSchema sends them.
const accountSchema = JSON.parse(
  '{"type":"object","properties":{"email":{"type":"string","title":"Email","description":"One account per address; we send receipts here.","format":"email"},"full_name":{"type":"string","title":"Full name","description":"How we greet you.","maxLength":100},"plan":{"type":"string","title":"Plan","description":"Pro is $12 a month. Team is $10 a seat a month, and asks about your team next.","default":"free","oneOf":[{"title":"Free","const":"free"},{"title":"Pro, $12 a month","const":"pro"},{"title":"Team, $10 a seat a month","const":"team"}]}},"required":["email","plan"]}',
);
const teamSchema = JSON.parse(
  '{"type":"object","properties":{"team_name":{"type":"string","title":"Team name","minLength":2,"maxLength":60},"seats":{"type":"integer","title":"Seats","description":"How many people will sign in.","default":5,"minimum":2,"maximum":50}},"required":["team_name","seats"]}',
);
const accountCheck = fromJsonSchema(accountSchema);
const teamCheck = fromJsonSchema(teamSchema);

const keyHex = (process.env.MCPFORM_STATE_KEY ?? '').split(',')[0];
if (!/^[0-9a-fA-F]{64,}$/.test(keyHex)) {
  console.error('signup-server: set MCPFORM_STATE_KEY to a hex key of 32 bytes or more');
  process.exit(2);
}
const codec = createRequestStateCodec({
  key: Buffer.from(keyHex, 'hex'),
  bind: (ctx) => `${principal}\0${ctx.mcpReq.method}\0${toolName}`,
});

const outcomes = new Map(); // run ID → the run's first result
const accounts = new Map(); // lower-cased email → run ID

function ask(key, message, requestedSchema, state, ctx) {
  return codec.mint(state, ctx).then((requestState) =>
    inputRequired({
      inputRequests: { [key]: inputRequired.elicit({ message, requestedSchema }) },
      requestState,
    }),
  );
}

function result(text, data, isError = false) {
  return { content: [{ type: 'text', text }], structuredContent: data, ...(isError && { isError }) };
}

function notCompleted(status, text, isError = false) {
  return result(text, { status }, isError);
}

function createdText(a) {
  const who = a.full_name ? `${a.full_name} <${a.email}>` : a.email;
  if (a.plan === 'team') return `Signup complete: created ${who} on the Team plan for ${JSON.stringify(a.team_name)}, ${a.seats} seats.`;
  if (a.plan === 'pro') return `Signup complete: created ${who} on the Pro plan.`;
  return `Signup complete: created ${who} on the Free plan.`;
}

// once returns the run's first outcome, computing it with make the first
// time only.
function once(id, make) {
  if (!outcomes.has(id)) outcomes.set(id, make());
  return outcomes.get(id);
}

function create(id, a, t) {
  const email = a.email.trim().toLowerCase();
  const owner = accounts.get(email) ?? id;
  if (owner !== id) {
    return notCompleted('exists', `Signup not completed: ${a.email} is already registered. ` +
      'Sign in instead, or sign up with another email. Nothing was created.', true);
  }
  accounts.set(email, id);
  const acct = { email: a.email, ...(a.full_name && { full_name: a.full_name }), plan: a.plan };
  if (a.plan === 'team') Object.assign(acct, { team_name: t.team_name, seats: t.seats });
  return result(createdText(acct), { status: 'created', account: acct });
}

// ended answers a declined or cancelled form, or undefined for another
// answer.
function ended(responses, key, id) {
  const view = inputResponse(responses, key);
  if (view.kind !== 'elicit' || view.action === 'accept') return undefined;
  if (view.action === 'decline') {
    return once(id, () => notCompleted('declined',
      `Signup not completed: you declined to give your ${key} details. Nothing was created.`));
  }
  return once(id, () => notCompleted('cancelled',
    'Signup not completed: the form was cancelled before it was sent. Nothing was created.'));
}

async function signup(ctx) {
  const state = ctx.mcpReq.requestState(); // verified by the codec, or undefined
  const responses = ctx.mcpReq.inputResponses;
  if (state === undefined) {
    return ask('account', 'Create your account', accountSchema, { id: randomUUID() }, ctx);
  }
  const { id } = state;
  if (outcomes.has(id)) return outcomes.get(id);
  if (state.account === undefined) {
    const stop = ended(responses, 'account', id);
    if (stop) return stop;
    const account = acceptedContent(responses, 'account', accountCheck);
    if (account === undefined) {
      return ask('account', 'Create your account', accountSchema, { id }, ctx);
    }
    if (account.plan !== 'team') return once(id, () => create(id, account));
    return ask('team', 'Tell us about your team', teamSchema, { id, account }, ctx);
  }
  const stop = ended(responses, 'team', id);
  if (stop) return stop;
  const team = acceptedContent(responses, 'team', teamCheck);
  if (team === undefined) {
    return ask('team', 'Tell us about your team', teamSchema, state, ctx);
  }
  return once(id, () => create(id, state.account, team));
}

function newServer() {
  const server = new McpServer(
    { name: 'ts-signup', version: '0.1.0' },
    { requestState: { verify: codec.verify } },
  );
  server.registerTool(toolName, {
    title: 'Sign up',
    description: 'Create an account. The tool asks the person for their details itself; call it with no arguments.',
  }, signup);
  return server;
}

const handler = createMcpHandler(() => newServer());

// node:http in front of the handler's web-standard fetch face.
const httpServer = http.createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: hasBody ? Buffer.concat(chunks) : undefined,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (err) {
    console.error('signup-server:', err);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
httpServer.keepAliveTimeout = 120_000;
httpServer.listen(0, '127.0.0.1', () => {
  const { port } = httpServer.address();
  console.error(`mcpform signup: listening on http://127.0.0.1:${port}/mcp`);
});
