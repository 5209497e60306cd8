#!/usr/bin/env node
// oauth.mjs - the OAuth 2.1 flow of baremcp's resource server (issue 12) driven
// by the official TypeScript clients against a local authorization server
// (testas.mjs): each client discovers the protected resource metadata from
// the 401 challenge, finds the authorization server, obtains a token for
// this resource and calls a tool; a tool that needs more scope (the demo's
// toggle_extra_tool needs demo:admin) answers 403 insufficient_scope, and
// the client steps up.
//
// baremcp runs with -http 127.0.0.1:{port} -oauth-issuer {issuer}
// -oauth-scopes mcp:tools (the resource derived: http://127.0.0.1:{port}/mcp).
// Flows: client_credentials (the SDKs' ClientCredentialsProvider) and
// authorization_code + PKCE S256 with a scripted browser (the provider's
// redirectToAuthorization fetches /authorize without following the 302 and
// hands the code to finishAuth); modern (2026-07-28) and classic (2025-11-25).
//
// usage: node oauth.mjs --server 'CMD' [--only REGEX] [--client v1|v2|all]
//        [--config REGEX] [--transport stdio|http|all] [--timeout-ms N] [--list]
// Other interop.mjs options are accepted and ignored. Prints one line per
// scenario, `PASS name` or `FAIL name: reason` (names config/http/scenario),
// then `N passed, M failed`. With --transport stdio there is nothing to run.

import { spawn } from 'node:child_process';
import process from 'node:process';

import {
    Client as V2Client,
    ClientCredentialsProvider as V2ClientCredentials,
    StreamableHTTPClientTransport as V2Http,
    UnauthorizedError as V2Unauthorized
} from '@modelcontextprotocol/client';
import { ClientCredentialsProvider as V1ClientCredentials } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError as V1Unauthorized } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { check, describeError, Fail, freePort, parseArgs, reporter, stopProcessGroup, waitFor, waitListening } from './common.mjs';
import { startTestAS } from './testas.mjs';

const MODERN = '2026-07-28';

// The options of interop.mjs, so that run.sh passes both programs the
// same; those about stdio, traces and the server's arguments do not apply.
const opts = parseArgs(process.argv.slice(2), {
    server: '', only: '', client: 'all', config: '', transport: 'all', timeoutMs: 15000, list: false, ignored: ''
}, {
    '--server': ['server'],
    '--only': ['only'],
    '--client': ['client'],
    '--config': ['config'],
    '--transport': ['transport'],
    '--timeout-ms': ['timeoutMs', Number],
    '--http-args': ['ignored'],
    '--path': ['ignored'],
    '--trace': ['ignored'],
    '--list': ['list', true]
}, usage);

function usage(msg) {
    if (msg) console.error(`oauth.mjs: ${msg}`);
    console.error("usage: node oauth.mjs --server 'CMD' [--only REGEX] [--client v1|v2|all] [--config REGEX] [--transport stdio|http|all] [--timeout-ms N]");
    process.exit(msg ? 2 : 0);
}
if (!opts.server) usage('--server is required');

const info = { name: 'baremcp-oauth-interop', version: '0.0.0' };
const text = r => (r?.content ?? []).filter(c => typeof c?.text === 'string').map(c => c.text).join('');

/** Starts baremcp as the resource server of issuer; its log is kept in `log`. */
async function startServer(issuer) {
    const port = await freePort();
    const cmd = `exec ${opts.server} -http 127.0.0.1:${port} -oauth-issuer ${issuer} -oauth-scopes mcp:tools`;
    // detached: its own process group, so stopping it reaches only what we started.
    const child = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: process.env });
    const server = { child, url: `http://127.0.0.1:${port}/mcp`, log: '', exited: false };
    child.stderr.on('data', d => { server.log += d; });
    child.once('exit', () => { server.exited = true; });
    try {
        await waitListening(port, () => server.exited, `the server (${cmd})`);
    } catch (e) {
        await stopProcessGroup(child);
        throw new Error(`${e.message}: ${server.log.slice(-2000)}`);
    }
    return server;
}

/**
 * An in-memory OAuthClientProvider for authorization_code + PKCE whose
 * "browser" is a fetch that does not follow the authorization server's 302:
 * the callback's parameters (code, state, iss) are kept for finishAuth.
 */
class ScriptedProvider {
    constructor(clientInformation) {
        this._client = clientInformation; // pre-registered, or undefined: dynamic registration
        this.callback = undefined;
        this.authorizations = [];
    }
    get redirectUrl() { return 'http://localhost:3000/callback'; }
    get clientMetadata() {
        return { client_name: info.name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    }
    clientInformation() { return this._client; }
    saveClientInformation(c) { this._client = c; }
    tokens() { return this._tokens; }
    saveTokens(t) { this._tokens = t; }
    saveCodeVerifier(v) { this._verifier = v; }
    codeVerifier() { return this._verifier; }
    saveDiscoveryState(s) { this._discovery = s; }
    discoveryState() { return this._discovery; }
    async redirectToAuthorization(url) {
        this.authorizations.push(Object.fromEntries(url.searchParams));
        const res = await fetch(url, { redirect: 'manual' });
        const location = res.headers.get('location');
        if (res.status !== 302 || !location) throw new Fail(`authorize answered ${res.status}`);
        this.callback = new URL(location).searchParams;
        if (this.callback.get('error')) throw new Fail(`authorize: ${this.callback.get('error')}: ${this.callback.get('error_description')}`);
    }
}

/** The configurations: which client library and era. */
const CONFIGS = [
    { id: `oauth-v2-pin-${MODERN}`, lib: 'v2', negotiation: { mode: { pin: MODERN } } },
    { id: 'oauth-v2-default-2025-11-25', lib: 'v2' },
    { id: 'oauth-v1-2025-11-25', lib: 'v1' }
];

// audited reports whether the server's log has the line of a successful
// tools/call of tool by principal: the access line (msg=request), or the
// audit line a server without access lines writes (msg=audit). The server
// writes its log in batches (a millisecond apart), so the line may follow
// the answer: wait for it a little.
async function audited(server, principal, tool) {
    const has = () => server.log.split('\n').some(line =>
        (line.includes(' msg=request ') || line.includes(' msg=audit ')) &&
        line.includes(' principal=' + principal + ' ') && line.includes(' method=tools/call ') &&
        line.includes(' name=' + tool + ' ') && line.includes(' outcome=ok '));
    return waitFor(has, 2000);
}

function newClient(cfg) {
    if (cfg.lib === 'v1') return new V1Client(info, { capabilities: {} });
    return new V2Client(info, { capabilities: {}, ...(cfg.negotiation && { versionNegotiation: cfg.negotiation }) });
}
function newTransport(cfg, url, authProvider) {
    const T = cfg.lib === 'v1' ? V1Http : V2Http;
    return new T(new URL(url), { authProvider });
}
const Unauthorized = cfg => (cfg.lib === 'v1' ? V1Unauthorized : V2Unauthorized);

// -------------------------------------------------------------- scenarios --
// Each: [name, configs it runs for, async ({cfg, as, server}) => void].
const SCENARIOS = [
    ['challenge-and-metadata', ['raw'], async ({ as, server }) => {
        // What every client starts from: the 401 names the metadata; the
        // metadata names the authorization server and the resource.
        const res = await fetch(server.url, {
            method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
        });
        const challenge = res.headers.get('www-authenticate') ?? '';
        const prm = server.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
        check(res.status === 401, `status ${res.status}, want 401`);
        check(challenge === `Bearer realm="baremcp", resource_metadata="${prm}", scope="mcp:tools"`, `WWW-Authenticate ${challenge}`);
        const md = await (await fetch(prm)).json();
        check(md.resource === server.url && md.authorization_servers?.[0] === as.issuer, `metadata ${JSON.stringify(md)}`);
    }],
    ['token-for-another-resource-is-refused', ['raw'], async ({ as, server }) => {
        // A token the authorization server minted for another resource
        // (RFC 8707) gets 401 invalid_token: never reaches a handler.
        const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:tools demo:admin', resource: server.url.replace('/mcp', '/other') });
        const tok = await (await fetch(`${as.issuer}/token`, { method: 'POST', body: form, headers: { Authorization: `Basic ${btoa('cc-client:cc-secret')}` } })).json();
        const res = await fetch(server.url, {
            method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"toggle_extra_tool","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}',
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${tok.access_token}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'toggle_extra_tool' }
        });
        check(res.status === 401 && (res.headers.get('www-authenticate') ?? '').includes('error="invalid_token"'), `status ${res.status} ${res.headers.get('www-authenticate')}`);
        check(!server.log.includes('name=toggle_extra_tool'), 'the refused request reached the audit log as served');
    }],
    ['client-credentials', ['v2'], async ({ cfg, as, server }) => {
        // 401 -> metadata -> token (resource, scope mcp:tools) -> echo;
        // toggle_extra_tool -> 403 insufficient_scope -> new token with the
        // union of scopes -> retried by the client.
        const before = as.issued.length;
        const provider = new V2ClientCredentials({ clientId: 'cc-client', clientSecret: 'cc-secret', expectedIssuer: as.issuer });
        const client = newClient(cfg);
        await client.connect(newTransport(cfg, server.url, provider), { timeout: opts.timeoutMs });
        check(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })) === 'hi', 'echo');
        check(provider.tokens()?.scope === 'mcp:tools', `first token scope ${provider.tokens()?.scope}`);
        const toggled = text(await client.callTool({ name: 'toggle_extra_tool', arguments: {} }));
        check(/the tool extra/.test(toggled), `toggle_extra_tool: ${toggled}`);
        check(provider.tokens()?.scope === 'mcp:tools demo:admin', `stepped-up token scope ${provider.tokens()?.scope}`);
        const mine = as.issued.slice(before);
        check(mine.length >= 2 && mine.every(t => t.resource === server.url), `token requests ${JSON.stringify(mine)}`);
        check(await audited(server, as.issuer + '#cc-client', 'toggle_extra_tool'), 'no audit line for the stepped-up call');
        await client.close();
    }],
    ['client-credentials', ['v1'], async ({ cfg, as, server }) => {
        // The 1.x provider asks for the scope it is configured with.
        const provider = new V1ClientCredentials({ clientId: 'cc-client', clientSecret: 'cc-secret', scope: 'mcp:tools demo:admin', expectedIssuer: as.issuer });
        const client = newClient(cfg);
        await client.connect(newTransport(cfg, server.url, provider), { timeout: opts.timeoutMs });
        check(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })) === 'hi', 'echo');
        check(/the tool extra/.test(text(await client.callTool({ name: 'toggle_extra_tool', arguments: {} }))), 'toggle_extra_tool');
        await client.close();
    }],
    ['client-credentials-no-step-up', ['v1'], async ({ cfg, as, server }) => {
        // Known 1.x limitation: its client_credentials token request uses
        // the configured scope, never the challenge's, so the 403 cannot be
        // cured; the SDK gives up with this error, after one retry.
        const provider = new V1ClientCredentials({ clientId: 'cc-client', clientSecret: 'cc-secret', scope: 'mcp:tools', expectedIssuer: as.issuer });
        const client = newClient(cfg);
        await client.connect(newTransport(cfg, server.url, provider), { timeout: opts.timeoutMs });
        let err;
        try { await client.callTool({ name: 'toggle_extra_tool', arguments: {} }); } catch (e) { err = e; }
        check(/403 after trying upscoping/.test(err?.message ?? ''), `want the SDK's "403 after trying upscoping", got ${describeError(err)}`);
        await client.close();
    }],
    ['authorization-code-pkce', ['v2'], async ({ cfg, as, server }) => {
        // A pre-registered public client (stamped with its issuer, which 2.x
        // checks before it uses stored credentials); the browser is scripted.
        const provider = new ScriptedProvider({ client_id: 'public-client', issuer: as.issuer });
        await authorize(cfg, server, provider, a => (a.client_id === 'public-client'));
        const client = newClient(cfg);
        const transport = newTransport(cfg, server.url, provider);
        await client.connect(transport, { timeout: opts.timeoutMs });
        check(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })) === 'hi', 'echo');
        // Step-up: the 403 sends the user back to authorize, with the union.
        let err;
        try { await client.callTool({ name: 'toggle_extra_tool', arguments: {} }); } catch (e) { err = e; }
        check(err instanceof V2Unauthorized, `toggle_extra_tool before re-authorization: ${describeError(err)}`);
        const last = provider.authorizations.at(-1);
        check(last.scope?.split(' ').includes('demo:admin') && last.scope?.split(' ').includes('mcp:tools'), `re-authorization scope ${last.scope}`);
        await transport.finishAuth(provider.callback);
        check(/the tool extra/.test(text(await client.callTool({ name: 'toggle_extra_tool', arguments: {} }))), 'toggle_extra_tool after step-up');
        check(as.issued.filter(t => t.grant === 'authorization_code').every(t => t.resource === server.url), 'a code grant without this resource');
        check(await audited(server, `${as.issuer}#alice`, 'toggle_extra_tool'), 'no audit line for alice');
        await client.close();
    }],
    ['authorization-code-pkce-dynamic-registration', ['v1'], async ({ cfg, server }) => {
        const provider = new ScriptedProvider(undefined);
        await authorize(cfg, server, provider, a => a.client_id?.startsWith('dyn-'));
        const client = newClient(cfg);
        await client.connect(newTransport(cfg, server.url, provider), { timeout: opts.timeoutMs });
        check(text(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })) === 'hi', 'echo');
        await client.close();
    }]
];

/**
 * The first leg of authorization_code: connecting fails with
 * UnauthorizedError once the scripted browser has the code; finishAuth
 * exchanges it (with the PKCE verifier and the resource).
 */
async function authorize(cfg, server, provider, clientOK) {
    const first = newTransport(cfg, server.url, provider);
    let err;
    try { await newClient(cfg).connect(first, { timeout: opts.timeoutMs }); } catch (e) { err = e; }
    check(err instanceof Unauthorized(cfg), `connect before authorization: ${describeError(err)}`);
    const a = provider.authorizations.at(-1);
    check(a && clientOK(a) && a.code_challenge_method === 'S256' && a.resource === server.url && a.scope === 'mcp:tools',
        `authorization request ${JSON.stringify(a)}`);
    await (cfg.lib === 'v1' ? first.finishAuth(provider.callback.get('code')) : first.finishAuth(provider.callback));
    check(provider.tokens()?.access_token, 'no token after finishAuth');
}

// -------------------------------------------------------------------- run --
const rep = reporter('oauth.mjs');
const report = rep.report;

/** Runs the scenarios of config ids `which` against a fresh authorization server and baremcp signing with alg. */
async function runWith(alg, which) {
    const cfgs = [{ id: 'oauth-raw', lib: 'raw' }, ...CONFIGS]
        .filter(c => which.includes(c.lib))
        .filter(c => (opts.client === 'all' || c.lib === 'raw' || c.lib === opts.client) && (!opts.config || new RegExp(opts.config).test(c.id)));
    const todo = [];
    for (const c of cfgs) {
        for (const [name, libs, fn] of SCENARIOS) {
            const full = `${c.id}${alg === 'RS256' ? '' : `-${alg}`}/http/${name}`;
            if (libs.includes(c.lib) && (!opts.only || new RegExp(opts.only).test(full))) todo.push([full, c, fn]);
        }
    }
    if (opts.list) {
        for (const [full] of todo) console.log(full);
        return;
    }
    if (todo.length === 0) return;
    let as;
    let server;
    try {
        as = await startTestAS({ alg });
        server = await startServer(as.issuer);
    } catch (e) {
        for (const [full] of todo) report(full, `not run: ${describeError(e)}`);
        await stopProcessGroup(server?.child);
        await as?.close();
        return;
    }
    for (const [full, cfg, fn] of todo) {
        await rep.scenario(full, () => fn({ cfg, as, server }), opts.timeoutMs + 5000);
        if (server.exited) {
            report(`${full}/server-alive`, `the server exited: ${server.log.slice(-2000)}`);
            break;
        }
    }
    const tokens = as.issued.map(t => t.resource).length;
    if (tokens > 0 && /eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/.test(server.log)) {
        report(`oauth-log${alg === 'RS256' ? '' : `-${alg}`}/http/no-token-in-the-log`, 'the server logged an access token');
    }
    await stopProcessGroup(server.child);
    await as.close();
}

async function main() {
    if (opts.transport !== 'stdio') {
        await runWith('RS256', ['raw', 'v1', 'v2']);
        // The Go verifier against node:crypto signatures of the other algorithms.
        for (const alg of ['PS256', 'ES256', 'EdDSA']) await runWith(alg, ['v2']);
    }
    if (!opts.list) rep.finish();
}

main().catch(e => rep.crash(e));
