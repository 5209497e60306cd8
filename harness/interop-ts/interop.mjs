#!/usr/bin/env node
// interop.mjs - run the baremcp demo-registry scenarios through the official
// TypeScript MCP clients:
//   v2  = @modelcontextprotocol/client 2.x (pinned 2026-07-28, 'auto' probe,
//         and its default 'legacy' mode at 2025-11-25 / 2025-06-18 / 2024-11-05)
//   v1  = @modelcontextprotocol/sdk 1.x (legacy initialize era, 2025-11-25)
// over stdio (the client spawns the server) and Streamable HTTP (this script
// starts the server with -http on a free loopback port, one server process per
// client configuration, and stops its process group afterwards).
//
// usage: node interop.mjs --server 'CMD' [options]
//   --server CMD        server command line (run through `sh -c 'exec CMD'`)
//   --http-args ARGS    appended to CMD for HTTP (default: '-http 127.0.0.1:{port}')
//   --path P            HTTP endpoint path (default /mcp)
//   --transport T       stdio | http | all (default all)
//   --client C          v1 | v2 | all (default all)
//   --config REGEX      only client configurations whose id matches
//   --only REGEX        only scenarios whose name matches
//   --timeout-ms N      per-request / per-scenario timeout (default 15000)
//   --trace FILE        append a wire trace (stdio messages, HTTP requests with headers) to FILE
//   --list              print the configuration and scenario names and exit
// Prints one line per scenario, `PASS name` or `FAIL name: reason`, and last
// exactly `N passed, M failed`. Exit status 1 when anything failed, 2 on bad usage.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import process from 'node:process';

import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
    LoggingMessageNotificationSchema
} from '@modelcontextprotocol/sdk/types.js';

import { check, describeError, Fail, freePort, parseArgs, reporter, short, sleep, stopProcessGroup, waitFor, waitListening, withTimeout } from './common.mjs';

const MODERN = '2026-07-28';
const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';
const ROOT_URI = 'file:///tmp/a';
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const DEMO_TOOLS = ['echo', 'add', 'slow', 'confirm_delete', 'ask_model', 'list_roots'];

// ------------------------------------------------------------------ args --
function usage(msg) {
    if (msg) console.error(`interop.mjs: ${msg}`);
    console.error("usage: node interop.mjs --server 'CMD' [--transport stdio|http|all] [--client v1|v2|all] " +
        "[--config REGEX] [--only REGEX] [--http-args ARGS] [--path /mcp] [--timeout-ms N] [--trace FILE] [--list]");
    process.exit(msg ? 2 : 0);
}

const opts = parseArgs(process.argv.slice(2), {
    server: '',
    httpArgs: '-http 127.0.0.1:{port}',
    path: '/mcp',
    transport: 'all',
    client: 'all',
    config: '',
    only: '',
    timeoutMs: 15000,
    trace: '',
    list: false
}, {
    '--server': ['server'],
    '--http-args': ['httpArgs'],
    '--path': ['path'],
    '--transport': ['transport'],
    '--client': ['client'],
    '--config': ['config'],
    '--only': ['only'],
    '--timeout-ms': ['timeoutMs', Number],
    '--trace': ['trace'],
    '--list': ['list', true]
}, usage);
if (!['v1', 'v2', 'all'].includes(opts.client)) usage('--client must be v1, v2 or all');
if (!opts.server && !opts.list) usage('--server is required');

// --------------------------------------------------------------- tracing --
let traceSeq = 0;
function trace(tag, obj) {
    if (!opts.trace) return;
    const line = `${new Date().toISOString()} #${++traceSeq} ${tag} ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n`;
    fs.appendFileSync(opts.trace, line);
}

/** A fetch that logs every HTTP exchange (method, headers, body, status, content-type). */
function tracingFetch(label) {
    return async (url, init = {}) => {
        const headers = {};
        new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
        trace(`${label} http> ${init.method ?? 'GET'} ${url}`, { headers, body: init.body ?? null });
        const res = await fetch(url, init);
        const rh = {};
        res.headers.forEach((v, k) => { rh[k] = v; });
        trace(`${label} http< ${res.status}`, rh);
        return res;
    };
}

/** Wrap a transport's send and (via an accessor) its onmessage slot so both directions are traced. */
function traceTransport(label, transport) {
    if (!opts.trace) return transport;
    const send = transport.send.bind(transport);
    transport.send = (message, o) => {
        trace(`${label} >`, message);
        return send(message, o);
    };
    let handler;
    Object.defineProperty(transport, 'onmessage', {
        configurable: true,
        enumerable: true,
        get: () => handler,
        set: fn => {
            handler = typeof fn === 'function'
                ? (message, extra) => {
                    trace(`${label} <`, message);
                    return fn(message, extra);
                }
                : fn;
        }
    });
    return transport;
}

// --------------------------------------------------------- configurations --
// expectEra: 'modern' | 'legacy'. offer: the protocolVersion the client puts in
// initialize (legacy only); the server must answer with exactly that version.
const CONFIGS = [
    { id: `v2-pin-${MODERN}`, lib: 'v2', negotiation: { mode: { pin: MODERN } }, expectEra: 'modern', version: MODERN },
    { id: 'v2-auto', lib: 'v2', negotiation: { mode: 'auto' }, expectEra: 'modern', version: MODERN },
    // The v2 default (no versionNegotiation) is 'legacy': plain initialize with 2025-11-25.
    { id: 'v2-default-2025-11-25', lib: 'v2', negotiation: undefined, expectEra: 'legacy', version: '2025-11-25' },
    { id: 'v2-legacy-2025-06-18', lib: 'v2', negotiation: { mode: 'legacy' }, supported: ['2025-06-18'], expectEra: 'legacy', version: '2025-06-18' },
    { id: 'v2-legacy-2024-11-05', lib: 'v2', negotiation: { mode: 'legacy' }, supported: ['2024-11-05'], expectEra: 'legacy', version: '2024-11-05' },
    { id: 'v1-2025-11-25', lib: 'v1', expectEra: 'legacy', version: '2025-11-25' }
];

const CLIENT_CAPABILITIES = {
    elicitation: { form: {} },
    sampling: {},
    roots: { listChanged: true }
};

// ----------------------------------------------------------- client side --
/** Per-configuration state the handlers and notification hooks write into. */
function newRecorder() {
    return { elicitations: [], samplings: [], rootsCalls: 0, logs: [], errors: [] };
}

function answerElicitation(params) {
    const props = params?.requestedSchema?.properties ?? {};
    const content = {};
    for (const [key, s] of Object.entries(props)) {
        if (key === 'confirm' || s.type === 'boolean') content[key] = true;
        else if (s.type === 'number' || s.type === 'integer') content[key] = s.default ?? (s.minimum ?? 42);
        else if (s.type === 'array') content[key] = s.items?.enum?.slice(0, 1) ?? s.items?.anyOf?.slice(0, 1).map(x => x.const) ?? [];
        else if (Array.isArray(s.enum)) content[key] = s.enum[0];
        else if (Array.isArray(s.oneOf) && s.oneOf[0]?.const !== undefined) content[key] = s.oneOf[0].const;
        else if (s.format === 'email') content[key] = 'alice@example.com';
        else if (s.format === 'uri') content[key] = 'https://example.com/';
        else if (s.format === 'date') content[key] = '2024-01-01';
        else if (s.format === 'date-time') content[key] = '2024-01-01T00:00:00Z';
        else content[key] = 'alice';
    }
    return { action: 'accept', content };
}

const SAMPLING_ANSWER = { role: 'assistant', content: { type: 'text', text: '42' }, model: 'interop-test-model', stopReason: 'endTurn' };

function makeClient(cfg, rec) {
    const info = { name: `baremcp-interop-${cfg.id}`, version: '0.0.0' };
    if (cfg.lib === 'v2') {
        const client = new V2Client(info, {
            capabilities: CLIENT_CAPABILITIES,
            ...(cfg.negotiation && { versionNegotiation: cfg.negotiation }),
            ...(cfg.supported && { supportedProtocolVersions: cfg.supported })
        });
        // Same handlers serve legacy wire requests and modern MRTR inputRequests.
        client.setRequestHandler('elicitation/create', async request => {
            rec.elicitations.push(request.params);
            return answerElicitation(request.params);
        });
        client.setRequestHandler('sampling/createMessage', async request => {
            rec.samplings.push(request.params);
            return SAMPLING_ANSWER;
        });
        client.setRequestHandler('roots/list', async () => {
            rec.rootsCalls++;
            return { roots: [{ uri: ROOT_URI, name: 'a' }] };
        });
        client.setNotificationHandler('notifications/message', n => {
            rec.logs.push({ at: Date.now(), params: n.params });
        });
        client.onerror = e => rec.errors.push(String(e?.message ?? e));
        return client;
    }
    const client = new V1Client(info, { capabilities: CLIENT_CAPABILITIES });
    client.setRequestHandler(ElicitRequestSchema, async request => {
        rec.elicitations.push(request.params);
        return answerElicitation(request.params);
    });
    client.setRequestHandler(CreateMessageRequestSchema, async request => {
        rec.samplings.push(request.params);
        return SAMPLING_ANSWER;
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
        rec.rootsCalls++;
        return { roots: [{ uri: ROOT_URI, name: 'a' }] };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, n => {
        rec.logs.push({ at: Date.now(), params: n.params });
    });
    client.onerror = e => rec.errors.push(String(e?.message ?? e));
    return client;
}

function makeTransport(cfg, transportKind, url) {
    const label = `${cfg.id}/${transportKind}`;
    if (transportKind === 'stdio') {
        const params = { command: 'sh', args: ['-c', `exec ${opts.server}`], env: { ...process.env }, stderr: 'inherit' };
        const T = cfg.lib === 'v2' ? V2Stdio : V1Stdio;
        return traceTransport(label, new T(params));
    }
    const T = cfg.lib === 'v2' ? V2Http : V1Http;
    return traceTransport(label, new T(new URL(url), opts.trace ? { fetch: tracingFetch(label) } : {}));
}

/** The uniform API the scenarios use (v1 and v2 differ in callTool's signature). */
function api(cfg, client) {
    const ro = { timeout: opts.timeoutMs };
    const modern = cfg.expectEra === 'modern';
    return {
        listTools: () => client.listTools(undefined, ro),
        callTool: (name, args, extra = {}) => {
            const params = { name, arguments: args, ...(extra.meta && { _meta: extra.meta }) };
            const o = { ...ro, ...(extra.onprogress && { onprogress: extra.onprogress }) };
            return cfg.lib === 'v2' ? client.callTool(params, o) : client.callTool(params, undefined, o);
        },
        listResources: () => client.listResources(undefined, ro),
        listResourceTemplates: () => client.listResourceTemplates(undefined, ro),
        readResource: uri => client.readResource({ uri }, ro),
        listPrompts: () => client.listPrompts(undefined, ro),
        getPrompt: (name, args) => client.getPrompt({ name, arguments: args }, ro),
        complete: params => client.complete(params, ro),
        // Modern: per-request _meta logLevel (there is no logging/setLevel in 2026-07-28).
        // Legacy: logging/setLevel once per connection.
        logMeta: modern ? { [LOG_LEVEL_META_KEY]: 'debug' } : undefined,
        setLoggingLevel: level => client.setLoggingLevel(level, ro)
    };
}

// --------------------------------------------------------------- helpers --
function texts(result) {
    return (result?.content ?? result?.contents ?? []).filter(c => typeof c?.text === 'string').map(c => c.text);
}
function firstText(result) {
    return texts(result)[0];
}
function expectText(result, want, what) {
    check(!result?.isError, `${what}: isError result ${short(result?.content)}`);
    const t = firstText(result);
    check(typeof t === 'string', `${what}: no text content in ${short(result)}`);
    check(t.trim() === want, `${what}: text ${short(t)}, want ${short(want)}`);
}

// ------------------------------------------------------------- scenarios --
// Each scenario: [name, async (ctx) => void]. ctx = { cfg, transportKind, client, transport, a (api), rec, state }.
// A scenario throws to fail. `state` carries listings between scenarios.
const SCENARIOS = [
    ['connect.era', async ({ cfg, client, transport }) => {
        if (cfg.lib === 'v2') {
            const era = client.getProtocolEra();
            const v = client.getNegotiatedProtocolVersion();
            check(era === cfg.expectEra, `protocol era ${era}, want ${cfg.expectEra}`);
            check(v === cfg.version, `negotiated version ${v}, want ${cfg.version}`);
            if (cfg.expectEra === 'modern') {
                const d = client.getDiscoverResult();
                check(d && Array.isArray(d.supportedVersions) && d.supportedVersions.includes(MODERN),
                    `server/discover supportedVersions ${short(d?.supportedVersions)} lacks ${MODERN}`);
            }
        } else {
            // v1 exposes the negotiated version only on its HTTP transport.
            const v = transport.protocolVersion;
            if (v !== undefined) check(v === cfg.version, `negotiated version ${v}, want ${cfg.version}`);
        }
        check(client.getServerVersion()?.name || cfg.expectEra === 'modern', 'initialize result has no serverInfo.name');
    }],
    ['server.capabilities', async ({ cfg, client }) => {
        const caps = client.getServerCapabilities();
        check(caps, 'no server capabilities');
        // `completions` is a capability from 2025-03-26 on (completion/complete itself exists in 2024-11-05).
        const want = cfg.version === '2024-11-05' ? ['tools', 'resources', 'prompts'] : ['tools', 'resources', 'prompts', 'completions'];
        for (const k of want) check(caps[k], `capabilities.${k} missing in ${short(caps)}`);
    }],
    ['tools.list', async ({ a, state }) => {
        const r = await a.listTools();
        state.tools = r.tools;
        const names = r.tools.map(t => t.name);
        for (const n of DEMO_TOOLS) check(names.includes(n), `tool ${n} missing; got ${short(names)}`);
        for (const t of r.tools) check(t.inputSchema?.type === 'object', `tool ${t.name} inputSchema.type is ${short(t.inputSchema?.type)}`);
        const add = r.tools.find(t => t.name === 'add');
        const props = add.inputSchema?.properties ?? {};
        check(props.a && props.b, `add inputSchema lacks a/b: ${short(add.inputSchema)}`);
    }],
    ['tools.list.add-outputSchema', async ({ cfg, state }) => {
        const add = state.tools?.find(t => t.name === 'add');
        check(add, 'tools.list did not run or lacks add');
        if (cfg.version === '2024-11-05' && !add.outputSchema) return; // outputSchema is 2025-06-18+
        check(add.outputSchema?.type === 'object', `add outputSchema ${short(add.outputSchema)}`);
        check(add.outputSchema.properties?.sum, `add outputSchema has no sum property: ${short(add.outputSchema)}`);
    }],
    ['tools.call.echo', async ({ a }) => {
        const r = await a.callTool('echo', { message: 'hello interop' });
        expectText(r, 'hello interop', 'echo');
    }],
    ['tools.call.add', async ({ cfg, a }) => {
        const r = await a.callTool('add', { a: 2, b: 3 });
        check(!r.isError, `isError ${short(r.content)}`);
        if (r.structuredContent !== undefined) {
            check(r.structuredContent?.sum === 5, `structuredContent ${short(r.structuredContent)}, want {"sum":5}`);
        } else {
            check(cfg.version === '2024-11-05', `no structuredContent (have ${short(r)})`);
            check(texts(r).some(t => t.includes('5')), `no sum in text ${short(r.content)}`);
        }
    }],
    ['tools.call.slow+notifications', async ({ a, rec, state }) => {
        const progress = [];
        const before = rec.logs.length;
        const r = await a.callTool('slow', { steps: 3 }, { onprogress: p => progress.push(p), meta: a.logMeta });
        expectText(r, 'done after 3 steps', 'slow');
        // Notifications precede the response on the wire; allow a short grace anyway.
        await waitFor(() => progress.length >= 3 && rec.logs.length - before >= 3, 500);
        state.slow = { progress, logs: rec.logs.slice(before) };
    }],
    ['notifications.progress', async ({ state }) => {
        check(state.slow, 'slow did not run');
        const p = state.slow.progress;
        // The TS clients dispatch notifications on a microtask but responses synchronously: a
        // progress notification read in the same chunk as the response finds its handler gone
        // ("unknown token" via onerror) and is dropped. See notes/interop.md.
        check(p.length === 3, `got ${p.length} progress notifications, want 3: ${short(p)}` +
            (p.length < 3 ? ' (were the last ones written in the same read as the response?)' : ''));
        for (let i = 1; i < p.length; i++) check(p[i].progress > p[i - 1].progress, `progress not increasing: ${short(p)}`);
    }],
    ['notifications.log', async ({ state }) => {
        check(state.slow, 'slow did not run');
        const logs = state.slow.logs.filter(l => l.params?.level === 'info');
        check(logs.length === 3, `got ${logs.length} info log notifications during slow, want 3: ${short(state.slow.logs.map(l => l.params))}`);
    }],
    ['mrtr.confirm_delete', async ({ cfg, a, rec }) => {
        const before = rec.elicitations.length;
        let r;
        try {
            r = await a.callTool('confirm_delete', { path: '/tmp/interop.txt' });
        } catch (e) {
            if (cfg.version === '2024-11-05') return; // no elicitation in 2024-11-05: an error is acceptable
            throw e;
        }
        if (cfg.version === '2024-11-05' && r.isError) return;
        expectText(r, 'deleted /tmp/interop.txt', 'confirm_delete');
        const asked = rec.elicitations.slice(before);
        check(asked.length >= 1, 'elicitation handler was never called');
        const schema = asked[0]?.requestedSchema;
        check(schema?.type === 'object' && schema.properties?.confirm?.type === 'boolean',
            `requestedSchema ${short(schema)} lacks boolean confirm`);
        check(typeof asked[0]?.message === 'string', `elicitation has no message: ${short(asked[0])}`);
    }],
    ['mrtr.ask_model', async ({ a, rec }) => {
        const before = rec.samplings.length;
        const r = await a.callTool('ask_model', { question: 'What is six times seven?' });
        expectText(r, 'model said: 42', 'ask_model');
        const asked = rec.samplings.slice(before);
        check(asked.length >= 1, 'sampling handler was never called');
        check(Array.isArray(asked[0]?.messages) && Number.isInteger(asked[0]?.maxTokens),
            `sampling params lack messages/maxTokens: ${short(asked[0])}`);
    }],
    ['mrtr.list_roots', async ({ a, rec }) => {
        const before = rec.rootsCalls;
        const r = await a.callTool('list_roots', {});
        expectText(r, ROOT_URI, 'list_roots');
        check(rec.rootsCalls > before, 'roots handler was never called');
    }],
    ['tools.call.unknown-tool', async ({ a }) => {
        let r;
        try {
            r = await a.callTool('no_such_tool', {});
        } catch {
            return; // a JSON-RPC error is fine
        }
        check(r?.isError === true, `calling an unknown tool succeeded: ${short(r)}`);
    }],
    ['resources.list', async ({ a }) => {
        const r = await a.listResources();
        const byUri = Object.fromEntries(r.resources.map(x => [x.uri, x]));
        check(byUri['demo://readme'], `demo://readme missing; got ${short(Object.keys(byUri))}`);
        check(byUri['demo://logo'], `demo://logo missing; got ${short(Object.keys(byUri))}`);
        check(byUri['demo://readme'].mimeType === 'text/plain', `demo://readme mimeType ${short(byUri['demo://readme'].mimeType)}`);
        check(byUri['demo://logo'].mimeType === 'image/png', `demo://logo mimeType ${short(byUri['demo://logo'].mimeType)}`);
    }],
    ['resources.read.readme', async ({ a }) => {
        const r = await a.readResource('demo://readme');
        const c = r.contents?.[0];
        check(c?.uri === 'demo://readme', `contents[0].uri ${short(c?.uri)}`);
        check(typeof c?.text === 'string' && c.text.length > 0, `no text: ${short(c)}`);
        check(c.mimeType === 'text/plain', `mimeType ${short(c.mimeType)}`);
    }],
    ['resources.read.logo', async ({ a }) => {
        const r = await a.readResource('demo://logo');
        const c = r.contents?.[0];
        check(typeof c?.blob === 'string', `no blob: ${short(c)}`);
        const bytes = Buffer.from(c.blob, 'base64');
        check(PNG_MAGIC.every((b, i) => bytes[i] === b), `blob is not a PNG (first bytes ${bytes.subarray(0, 8).toString('hex')})`);
        check(c.mimeType === 'image/png', `mimeType ${short(c.mimeType)}`);
    }],
    ['resources.templates.list', async ({ a }) => {
        const r = await a.listResourceTemplates();
        const t = r.resourceTemplates.map(x => x.uriTemplate);
        check(t.includes('demo://items/{id}'), `demo://items/{id} missing; got ${short(t)}`);
    }],
    ['resources.read.template', async ({ a }) => {
        const r = await a.readResource('demo://items/42');
        const c = r.contents?.[0];
        check(c?.uri === 'demo://items/42', `contents[0].uri ${short(c?.uri)}`);
        check(c?.text === 'item 42', `text ${short(c?.text)}, want "item 42"`);
    }],
    ['resources.read.unknown', async ({ a }) => {
        let r;
        try {
            r = await a.readResource('demo://no-such-resource');
        } catch {
            return;
        }
        throw new Fail(`reading an unknown resource succeeded: ${short(r)}`);
    }],
    ['prompts.list', async ({ a, state }) => {
        const r = await a.listPrompts();
        state.prompts = r.prompts;
        const greet = r.prompts.find(p => p.name === 'greet');
        check(greet, `prompt greet missing; got ${short(r.prompts.map(p => p.name))}`);
        check(greet.arguments?.some(x => x.name === 'name'), `greet has no argument "name": ${short(greet.arguments)}`);
    }],
    ['prompts.get.greet', async ({ a }) => {
        const r = await a.getPrompt('greet', { name: 'Ada' });
        const m = r.messages?.[0];
        check(m?.role === 'user', `messages[0].role ${short(m?.role)}`);
        check(m?.content?.type === 'text' && m.content.text === 'Hello, Ada!', `messages[0].content ${short(m?.content)}, want text "Hello, Ada!"`);
    }],
    ['completion.greet.name', async ({ a }) => {
        const r = await a.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: '' } });
        const v = r?.completion?.values;
        check(Array.isArray(v) && v.length > 0 && v.every(x => typeof x === 'string'), `completion.values ${short(v)}`);
        check(v.length <= 100, `more than 100 values (${v.length})`);
    }],
    ['mrtr.prompts.get.elicited', async ({ cfg, a, rec, state }) => {
        const p = state.prompts?.find(x => x.name !== 'greet');
        check(p, `no prompt besides greet (prompts: ${short(state.prompts?.map(x => x.name))})`);
        const args = {};
        for (const x of p.arguments ?? []) if (x.required) args[x.name] = 'x';
        const before = rec.elicitations.length;
        let r;
        try {
            r = await a.getPrompt(p.name, args);
        } catch (e) {
            if (cfg.version === '2024-11-05') return;
            throw e;
        }
        check(rec.elicitations.length > before, `prompt ${p.name}: the elicitation handler was never called`);
        check(Array.isArray(r.messages) && r.messages.length > 0, `prompt ${p.name}: no messages`);
    }],
    ['client.no-errors', async ({ rec }) => {
        check(rec.errors.length === 0, `client.onerror fired ${rec.errors.length}x: ${short(rec.errors)}`);
    }]
];

const selectedScenarios = SCENARIOS.filter(([n]) => !opts.only || new RegExp(opts.only).test(n));

// ------------------------------------------------------------- HTTP server --
async function startHttpServer() {
    const port = await freePort();
    const cmd = `exec ${opts.server} ${opts.httpArgs.replaceAll('{port}', String(port))}`;
    // detached: own process group, so stopping it reaches only what we started.
    const child = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'inherit', 'inherit'], detached: true, env: process.env });
    let exited = false;
    child.once('exit', () => { exited = true; });
    try {
        await waitListening(port, () => exited, `HTTP server (${cmd})`);
    } catch (e) {
        stopProcessGroup(child);
        throw e;
    }
    return { child, url: `http://127.0.0.1:${port}${opts.path}`, isExited: () => exited };
}

// -------------------------------------------------------------------- run --
const rep = reporter('interop.mjs');
const report = rep.report;

async function runConfig(cfg, transportKind) {
    const prefix = `${cfg.id}/${transportKind}`;
    const rec = newRecorder();
    const state = {};
    let server;
    let client;
    let transport;
    try {
        if (transportKind === 'http') server = await startHttpServer();
        client = makeClient(cfg, rec);
        transport = makeTransport(cfg, transportKind, server?.url);
        await withTimeout(client.connect(transport, { timeout: opts.timeoutMs }), opts.timeoutMs + 2000, 'connect');
        report(`${prefix}/connect`);
    } catch (e) {
        report(`${prefix}/connect`, describeError(e));
        for (const [n] of selectedScenarios) report(`${prefix}/${n}`, 'not run: connect failed');
        await client?.close().catch(() => {});
        await stopProcessGroup(server?.child);
        return;
    }
    const a = api(cfg, client);
    if (cfg.expectEra === 'legacy') {
        await rep.scenario(`${prefix}/logging.setLevel`, () => a.setLoggingLevel('debug'), opts.timeoutMs + 1000);
    }
    const ctx = { cfg, transportKind, client, transport, a, rec, state };
    await rep.run(prefix, selectedScenarios.map(([name, fn]) => [name, () => fn(ctx)]), client, opts.timeoutMs + 1000, server?.isExited);
    await stopProcessGroup(server?.child);
}

async function main() {
    const transports = opts.transport === 'all' ? ['stdio', 'http'] : [opts.transport];
    const configs = CONFIGS.filter(c => (opts.client === 'all' || c.lib === opts.client) && (!opts.config || new RegExp(opts.config).test(c.id)));
    if (opts.list) {
        for (const c of configs) for (const t of transports) {
            console.log(`${c.id}/${t}: connect${c.expectEra === 'legacy' ? ' logging.setLevel' : ''} ${selectedScenarios.map(([n]) => n).join(' ')} close`);
        }
        return;
    }
    if (opts.trace) fs.writeFileSync(opts.trace, '');
    for (const c of configs) for (const t of transports) await runConfig(c, t);
    rep.finish();
}

main().catch(rep.crash);
