#!/usr/bin/env node
// sdk1.mjs - the interop scenarios through the @modelcontextprotocol/sdk 1.x
// clients people still run, each pinned in package.json under an npm alias:
//   sdk-1-0   1.0.4   offers 2024-11-05; HTTP is the 2024-11-05 HTTP+SSE transport
//   sdk-1-12  1.12.1  offers 2025-03-26; Streamable HTTP without MCP-Protocol-Version
//   sdk-1-32  1.32.2  offers 2025-11-25 (the newest 1.x)
// over stdio (the client spawns the server) and HTTP (this script starts
// `SERVER -http 127.0.0.1:PORT`, one process per client version).
//
// The scenario names and the rules for which run where are those of the Go
// harness (harness/interop-go/scenario): a scenario the negotiated revision
// or the client does not define prints SKIP and is not counted.
//
// usage: node sdk1.mjs --server PATH [--transport stdio|http|all] [--config RE] [--only RE] [--timeout-ms N]
// Prints `PASS name` / `FAIL name: reason` / `SKIP name: reason` lines and last
// exactly `N passed, M failed`. Exit 0 all passed, 1 failures, 2 bad usage.

import { spawn } from 'node:child_process';
import process from 'node:process';

import { EventSource } from 'eventsource';

import { check, describeError, Fail, freePort, parseArgs, reporter, short, sleep, waitFor, waitListening, withTimeout } from '../../interop-ts/common.mjs';

// The 1.0-era SSE transport uses the browser's EventSource; Node 20 has none.
globalThis.EventSource ??= EventSource;

const V = { v20241105: '2024-11-05', v20250326: '2025-03-26', v20250618: '2025-06-18', v20251125: '2025-11-25' };
const ROOT_URI = 'file:///tmp/a';
const DEMO_TOOLS = ['echo', 'add', 'slow', 'confirm_delete', 'ask_model', 'list_roots', 'toggle_extra_tool'];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

// Each pinned version: its npm alias (every 1.x maps `ALIAS/client/...` into
// its dist), the version it offers and requires back, its HTTP transport, and
// what it implements (1.0 and 1.12 predate elicitation).
const CLIENTS = [
    {
        id: 'tssdk-1.0.4', alias: 'sdk-1-0', expect: V.v20241105, http: 'sse',
        features: { elicitation: false, sampling: true, roots: true, logging: true, completion: true }
    },
    {
        id: 'tssdk-1.12.1', alias: 'sdk-1-12', expect: V.v20250326, http: 'streamable',
        features: { elicitation: false, sampling: true, roots: true, logging: true, completion: true }
    },
    {
        id: 'tssdk-1.32.2', alias: 'sdk-1-32', expect: V.v20251125, http: 'streamable',
        features: { elicitation: true, sampling: true, roots: true, logging: true, completion: true }
    }
];

// ------------------------------------------------------------------ args --
function usage(msg) {
    if (msg) console.error(`sdk1.mjs: ${msg}`);
    console.error('usage: node sdk1.mjs --server PATH [--transport stdio|http|all] [--config RE] [--only RE] [--timeout-ms N]');
    process.exit(msg ? 2 : 0);
}

const opts = parseArgs(process.argv.slice(2), { server: '', transport: 'all', config: '', only: '', timeoutMs: 15000 }, {
    '--server': ['server'],
    '--transport': ['transport'],
    '--config': ['config'],
    '--only': ['only'],
    '--timeout-ms': ['timeoutMs', Number]
}, usage);
if (!opts.server) usage('--server is required');

// --------------------------------------------------------------- helpers --
function expectText(r, want) {
    check(!r?.isError, `isError result ${short(r?.content)}`);
    const t = (r?.content ?? []).find(c => c?.type === 'text');
    check(t, `no text content in ${short(r?.content)}`);
    check(t.text.trim() === want, `text ${short(t.text)}, want ${short(want)}`);
}

function elicitContent(params) {
    const content = {};
    for (const [k, s] of Object.entries(params?.requestedSchema?.properties ?? {})) {
        if (s.type === 'boolean') content[k] = true;
        else if (s.type === 'number' || s.type === 'integer') content[k] = 42;
        else if (Array.isArray(s.enum)) content[k] = s.enum[0];
        else if (s.format === 'email') content[k] = 'alice@example.com';
        else content[k] = 'alice';
    }
    return content;
}

/**
 * Records the initialize result as it crosses the transport: the 1.x
 * clients keep the negotiated version to themselves (1.0 and 1.12 at least).
 */
function tapInitialize(transport, ev) {
    const send = transport.send.bind(transport);
    let initID;
    transport.send = (message, o) => {
        if (message?.method === 'initialize') initID = message.id;
        return send(message, o);
    };
    let handler;
    Object.defineProperty(transport, 'onmessage', {
        configurable: true,
        get: () => handler,
        set: fn => {
            handler = typeof fn === 'function'
                ? (message, extra) => {
                    if (initID !== undefined && message?.id === initID && message.result) ev.initialize = message.result;
                    return fn(message, extra);
                }
                : fn;
        }
    });
    return transport;
}

// ------------------------------------------------------------- scenarios --
const since = rev => r => (r.expect < rev ? `not defined before ${rev}` : '');
const feature = name => r => (r.client.features[name] ? '' : `the client does not implement ${name}`);
const all = (...needs) => r => needs.map(n => n(r)).find(Boolean) ?? '';

const SCENARIOS = [
    ['connect.version', null, async r => {
        const got = r.ev.initialize?.protocolVersion;
        check(got === r.expect, `negotiated ${short(got)}, want ${short(r.expect)}`);
        check(r.client_.getServerVersion()?.name, 'initialize result has no serverInfo.name');
    }],
    ['server.capabilities', null, async r => {
        const caps = r.ev.initialize?.capabilities ?? {};
        const want = ['tools', 'resources', 'prompts', ...(r.expect >= V.v20250326 ? ['completions'] : [])];
        for (const k of want) check(caps[k], `capabilities.${k} missing in ${short(caps)}`);
    }],
    ['logging.setLevel', feature('logging'), async r => {
        await r.c.setLoggingLevel('debug', r.ro);
    }],
    ['tools.list', null, async r => {
        const res = await r.c.listTools(undefined, r.ro);
        r.tools = res.tools;
        const names = res.tools.map(t => t.name);
        for (const n of DEMO_TOOLS) check(names.includes(n), `tool ${n} missing; got ${short(names)}`);
        for (const t of res.tools) check(t.inputSchema?.type === 'object', `tool ${t.name} inputSchema.type is ${short(t.inputSchema?.type)}`);
    }],
    ['tools.list.add-outputSchema', since(V.v20250618), async r => {
        const add = r.tools?.find(t => t.name === 'add');
        check(add, 'tools.list did not run or lacks add');
        check(add.outputSchema?.type === 'object' && add.outputSchema.properties?.sum, `add outputSchema ${short(add.outputSchema)}`);
    }],
    ['tools.call.echo', null, async r => {
        expectText(await r.call('echo', { message: 'hello interop' }), 'hello interop');
    }],
    ['tools.call.add', null, async r => {
        const res = await r.call('add', { a: 2, b: 3 });
        check(!res.isError, `isError result ${short(res.content)}`);
        if (r.expect >= V.v20250618) {
            check(res.structuredContent?.sum === 5, `structuredContent ${short(res.structuredContent)}, want {"sum":5}`);
        } else {
            check(res.structuredContent === undefined, `structuredContent ${short(res.structuredContent)} in ${r.expect}, which does not define it`);
        }
        check((res.content ?? []).some(c => c.text?.includes('5')), `no sum in text content ${short(res.content)}`);
    }],
    ['tools.call.slow', null, async r => {
        const progress = [];
        const before = r.ev.logs.length;
        const res = await r.call('slow', { steps: 3 }, p => progress.push(p.progress));
        expectText(res, 'done after 3 steps');
        await waitFor(() => progress.length >= 3 && r.ev.logs.length - before >= 3, 500);
        r.slow = { progress, logs: r.ev.logs.slice(before) };
    }],
    ['notifications.progress', null, async r => {
        check(r.slow, 'slow did not run');
        const p = r.slow.progress;
        check(p.length === 3, `got ${p.length} progress notifications, want 3: ${short(p)}`);
        for (let i = 1; i < p.length; i++) check(p[i] > p[i - 1], `progress not increasing: ${short(p)}`);
    }],
    ['notifications.log', feature('logging'), async r => {
        check(r.slow, 'slow did not run');
        const n = r.slow.logs.filter(l => l === 'info').length;
        check(n === 3, `got ${n} info log notifications during slow, want 3: ${short(r.slow.logs)}`);
    }],
    ['elicitation.confirm_delete', all(since(V.v20250618), feature('elicitation')), async r => {
        const before = r.ev.elicitations.length;
        expectText(await r.call('confirm_delete', { path: '/tmp/interop.txt' }), 'deleted /tmp/interop.txt');
        const asked = r.ev.elicitations.slice(before);
        check(asked.length >= 1, 'the elicitation handler was never called');
        const s = asked[0]?.requestedSchema;
        check(typeof asked[0]?.message === 'string' && s?.type === 'object' && s.properties?.confirm?.type === 'boolean',
            `elicitation params ${short(asked[0])} lack a message or a boolean confirm`);
    }],
    ['sampling.ask_model', feature('sampling'), async r => {
        const before = r.ev.samplings.length;
        expectText(await r.call('ask_model', { question: 'What is six times seven?' }), 'model said: 42');
        const asked = r.ev.samplings.slice(before);
        check(asked.length >= 1, 'the sampling handler was never called');
        check(Array.isArray(asked[0]?.messages) && Number.isInteger(asked[0]?.maxTokens), `sampling params ${short(asked[0])} lack messages or maxTokens`);
    }],
    ['roots.list_roots', feature('roots'), async r => {
        expectText(await r.call('list_roots', {}), ROOT_URI);
    }],
    ['tools.call.unknown-tool', null, async r => {
        let res;
        try {
            res = await r.call('no_such_tool', {});
        } catch {
            return;
        }
        check(res?.isError === true, `calling an unknown tool succeeded: ${short(res)}`);
    }],
    ['resources.list', null, async r => {
        const res = await r.c.listResources(undefined, r.ro);
        const byUri = Object.fromEntries(res.resources.map(x => [x.uri, x]));
        check(byUri['demo://readme']?.mimeType === 'text/plain', `demo://readme missing or not text/plain in ${short(res.resources)}`);
        check(byUri['demo://logo']?.mimeType === 'image/png', `demo://logo missing or not image/png in ${short(res.resources)}`);
    }],
    ['resources.read.readme', null, async r => {
        const c = (await r.c.readResource({ uri: 'demo://readme' }, r.ro)).contents?.[0];
        check(c?.uri === 'demo://readme' && c.text && c.mimeType === 'text/plain', `contents ${short(c)}, want text/plain text for demo://readme`);
    }],
    ['resources.read.logo', null, async r => {
        const c = (await r.c.readResource({ uri: 'demo://logo' }, r.ro)).contents?.[0];
        const bytes = Buffer.from(c?.blob ?? '', 'base64');
        check(PNG_MAGIC.every((b, i) => bytes[i] === b) && c.mimeType === 'image/png', `contents ${short(c)}, want an image/png blob`);
    }],
    ['resources.templates.list', null, async r => {
        const res = await r.c.listResourceTemplates(undefined, r.ro);
        const t = res.resourceTemplates.map(x => x.uriTemplate);
        check(t.includes('demo://items/{id}'), `demo://items/{id} missing in ${short(t)}`);
    }],
    ['resources.read.template', null, async r => {
        const c = (await r.c.readResource({ uri: 'demo://items/42' }, r.ro)).contents?.[0];
        check(c?.uri === 'demo://items/42' && c.text === 'item 42', `contents ${short(c)}, want demo://items/42 with text "item 42"`);
    }],
    ['resources.read.unknown', null, async r => {
        let res;
        try {
            res = await r.c.readResource({ uri: 'demo://no-such-resource' }, r.ro);
        } catch {
            return;
        }
        throw new Fail(`reading an unknown resource succeeded: ${short(res)}`);
    }],
    ['prompts.list', null, async r => {
        const res = await r.c.listPrompts(undefined, r.ro);
        const greet = res.prompts.find(p => p.name === 'greet');
        check(greet?.arguments?.some(a => a.name === 'name'), `prompt greet with argument name missing in ${short(res.prompts)}`);
    }],
    ['prompts.get.greet', null, async r => {
        const m = (await r.c.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, r.ro)).messages?.[0];
        check(m?.role === 'user' && m.content?.text === 'Hello, Ada!', `messages[0] ${short(m)}, want user text "Hello, Ada!"`);
    }],
    ['completion.greet.name', feature('completion'), async r => {
        const res = await r.c.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } }, r.ro);
        check(short(res?.completion?.values) === short(['Ada', 'Alan']), `completion values ${short(res?.completion?.values)}, want ["Ada","Alan"]`);
    }],
    ['elicitation.prompts.get.personal_greeting', all(since(V.v20250618), feature('elicitation')), async r => {
        const before = r.ev.elicitations.length;
        const res = await r.c.getPrompt({ name: 'personal_greeting' }, r.ro);
        check(r.ev.elicitations.length > before, 'the elicitation handler was never called');
        check(res.messages?.[0]?.content?.text === 'Hello, alice!', `messages ${short(res.messages)}, want the text "Hello, alice!"`);
    }],
    ['client.no-errors', null, async r => {
        check(r.ev.errors.length === 0, `the client reported ${r.ev.errors.length} error(s): ${short(r.ev.errors)}`);
    }]
];

// ------------------------------------------------------------ HTTP server --
async function startHttpServer() {
    const port = await freePort();
    const child = spawn(opts.server, ['-http', `127.0.0.1:${port}`], { stdio: ['ignore', 'inherit', 'inherit'] });
    let exited = false;
    child.once('exit', () => { exited = true; });
    try {
        await waitListening(port, () => exited, `${opts.server} -http`);
    } catch (e) {
        await stopServer(child);
        throw e;
    }
    return { child, base: `http://127.0.0.1:${port}`, isExited: () => exited };
}

async function stopServer(child) {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise(r => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([gone, sleep(3000)]);
    if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await gone;
    }
}

// -------------------------------------------------------------------- run --
const rep = reporter('sdk1.mjs');
const report = rep.report;

async function load(client) {
    const base = `${client.alias}/`;
    const { Client } = await import(`${base}client/index.js`);
    const { StdioClientTransport } = await import(`${base}client/stdio.js`);
    const http = client.http === 'sse'
        ? (await import(`${base}client/sse.js`)).SSEClientTransport
        : (await import(`${base}client/streamableHttp.js`)).StreamableHTTPClientTransport;
    const types = await import(`${base}types.js`);
    return { Client, StdioClientTransport, HttpTransport: http, types };
}

async function runClient(client, transportKind) {
    const prefix = `${client.id}-default/${transportKind}`;
    const lib = await load(client);
    const ev = { initialize: undefined, logs: [], elicitations: [], samplings: [], errors: [] };
    const c = new lib.Client({ name: 'baremcp-interop-sdk1', version: '0.0.0' }, {
        capabilities: {
            sampling: {},
            roots: { listChanged: true },
            ...(client.features.elicitation && { elicitation: {} })
        }
    });
    c.setRequestHandler(lib.types.CreateMessageRequestSchema, async req => {
        ev.samplings.push(req.params);
        return { role: 'assistant', content: { type: 'text', text: '42' }, model: 'interop-test-model', stopReason: 'endTurn' };
    });
    c.setRequestHandler(lib.types.ListRootsRequestSchema, async () => ({ roots: [{ uri: ROOT_URI, name: 'a' }] }));
    if (client.features.elicitation) {
        c.setRequestHandler(lib.types.ElicitRequestSchema, async req => {
            ev.elicitations.push(req.params);
            return { action: 'accept', content: elicitContent(req.params) };
        });
    }
    c.setNotificationHandler(lib.types.LoggingMessageNotificationSchema, n => { ev.logs.push(n.params.level); });
    c.onerror = e => ev.errors.push(String(e?.message ?? e));

    let server;
    try {
        let transport;
        if (transportKind === 'stdio') {
            transport = new lib.StdioClientTransport({ command: opts.server, args: [], env: { ...process.env }, stderr: 'inherit' });
        } else {
            server = await startHttpServer();
            // 1.0's only HTTP transport is 2024-11-05's HTTP+SSE: its
            // event stream is /sse; Streamable HTTP is /mcp.
            transport = new lib.HttpTransport(new URL(client.http === 'sse' ? '/sse' : '/mcp', server.base));
        }
        tapInitialize(transport, ev);
        await withTimeout(c.connect(transport), opts.timeoutMs, 'connect');
        report(`${prefix}/connect`);
    } catch (e) {
        report(`${prefix}/connect`, describeError(e));
        // Every scenario that would have run fails, so the cell's count does not shrink.
        const r = { client, expect: client.expect };
        for (const [name, needs] of SCENARIOS) {
            if ((!opts.only || new RegExp(opts.only).test(name)) && !(needs && needs(r))) report(`${prefix}/${name}`, 'not run: connect failed');
        }
        await c.close().catch(() => {});
        await stopServer(server?.child);
        return;
    }
    const ro = { timeout: opts.timeoutMs };
    const r = {
        client, c, ev, ro, expect: client.expect, client_: c,
        call: (name, args, onprogress) => c.callTool({ name, arguments: args }, undefined, { ...ro, ...(onprogress && { onprogress }) })
    };
    const run = [];
    for (const [name, needs, fn] of SCENARIOS) {
        if (opts.only && !new RegExp(opts.only).test(name)) continue;
        const why = needs ? needs(r) : '';
        if (why) console.log(`SKIP ${prefix}/${name}: ${why}`);
        else run.push([name, () => fn(r)]);
    }
    await rep.run(prefix, run, c, opts.timeoutMs + 1000, server?.isExited);
    await stopServer(server?.child);
}

async function main() {
    const transports = opts.transport === 'all' ? ['stdio', 'http'] : [opts.transport];
    for (const client of CLIENTS) {
        if (opts.config && !new RegExp(opts.config).test(client.id)) continue;
        for (const t of transports) await runClient(client, t);
    }
    rep.finish();
}

main().catch(rep.crash);
