#!/usr/bin/env node
// check.mjs - renders the demo's MCP App (the tally tool and its ui://
// view, registry_demo.go) the way an MCP Apps host does, in headless
// Chromium, through the official host bridge (AppBridge of
// @modelcontextprotocol/ext-apps), and clicks its button.
//
// 1. An MCP client (@modelcontextprotocol/client 2.4.0, declaring the
//    io.modelcontextprotocol/ui extension) starts SERVER over stdio, finds
//    the tool whose _meta.ui.resourceUri names a view, reads the view
//    (resources/read: text/html;profile=mcp-app) and calls the tool.
// 2. A host page, served on 127.0.0.1, puts the view in a sandboxed iframe
//    (allow-scripts only, the spec's restrictive default CSP since the view
//    declares no domains) and connects an AppBridge to it over
//    postMessage. The bridge answers the view's ui/initialize, then sends
//    the tool's input and result; the view shows the count.
// 3. Playwright clicks the view's button: the view sends tools/call to the
//    host, the bridge hands it to this script (oncalltool), which calls
//    the server, and the view shows the new count.
//
// Chromium is Debian's (/usr/bin/chromium, or $CHROMIUM), driven by
// playwright-core: no browser is downloaded.
//
// With --tool NAME it renders that tool's view instead, called with
// --args (a JSON object): a view of your own. Steps 1 and 2 run as above,
// and the view must complete the extension's handshake (ui/initialize,
// then ui/notifications/initialized) and show the result without a page
// error; what it shows is yours to judge (--screenshot). The demo's tally
// alone gets step 3, its counts and its button.
//
// usage: node check.mjs --server PATH [--tool NAME [--args JSON] [--expect TEXT]] [--screenshot FILE]
// Prints `PASS name` / `FAIL name: reason` lines and last exactly
// `N passed, M failed`. Exit 0 all passed, 1 failures, 2 bad usage.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import esbuild from 'esbuild';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXTENSION = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
// The host's CSP for a view that declares no domains (the spec's
// restrictive default).
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

const args = process.argv.slice(2);
const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : '';
};
const server = opt('--server');
const screenshot = opt('--screenshot');
const toolName = opt('--tool');
const expectText = opt('--expect');
if (!server) {
    console.error('usage: node check.mjs --server PATH [--tool NAME [--args JSON]] [--screenshot FILE]');
    process.exit(2);
}
// tally: the demo's own view, whose counts and button this script knows.
const tally = !toolName;

let passed = 0;
let failed = 0;
const fail = (name, why) => {
    console.log(`FAIL ${name}: ${why}`);
    failed++;
};
async function step(name, fn) {
    try {
        const v = await fn();
        console.log(`PASS ${name}`);
        passed++;
        return v;
    } catch (e) {
        fail(name, e?.message ?? String(e));
        throw e;
    }
}
function check(ok, what) {
    if (!ok) throw new Error(what);
}
const withTimeout = (p, ms, what) =>
    Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms))]);

const client = new Client(
    { name: 'baremcp-apps-check', version: '1' },
    { capabilities: { extensions: { [EXTENSION]: { mimeTypes: [MIME] } } } }
);
let browser;
let web;
const calls = []; // tools/call the view sent through the host
try {
    await step('mcp.connect', () => client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'inherit' })));
    const tool = await step(`tools.list: ${toolName || 'a tool'} links a ui:// view`, async () => {
        const { tools } = await client.listTools();
        const t = toolName ? tools.find((t) => t.name === toolName) : tools.find((t) => typeof t._meta?.ui?.resourceUri === 'string');
        check(t, toolName ? `no tool ${toolName}: ${tools.map((t) => t.name).join(', ')}` : `no tool has _meta.ui.resourceUri: ${tools.map((t) => t.name).join(', ')}`);
        check(typeof t._meta?.ui?.resourceUri === 'string', `${t.name} has no _meta.ui.resourceUri: ${JSON.stringify(t._meta)}`);
        check(t._meta.ui.resourceUri.startsWith('ui://'), `resourceUri ${t._meta.ui.resourceUri} is not ui://`);
        const caps = client.getServerCapabilities?.() ?? {};
        if (caps.extensions) check(caps.extensions[EXTENSION], `extension ${EXTENSION} not advertised: ${JSON.stringify(caps.extensions)}`);
        return t;
    });
    const view = await step('resources.read: the view', async () => {
        const { contents } = await client.readResource({ uri: tool._meta.ui.resourceUri });
        check(contents.length === 1, `${contents.length} contents`);
        check(contents[0].mimeType === MIME, `mimeType ${contents[0].mimeType}`);
        check(/^<!doctype html>/i.test(contents[0].text ?? ''), 'not an HTML5 document');
        return contents[0];
    });
    const input = tally ? { count: 0 } : JSON.parse(opt('--args') || '{}');
    const first = await step('tools.call: the first result', async () => {
        const r = await client.callTool({ name: tool.name, arguments: input });
        check(!r.isError && (!tally || r.structuredContent?.count === 1), `result ${JSON.stringify(r)}`);
        check(r.content?.some((c) => c.type === 'text'), 'no text content for hosts without apps');
        return r;
    });

    // The host page and its bridge, bundled for the browser.
    const bundle = await esbuild.build({
        entryPoints: [path.join(HERE, 'host.js')],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        write: false,
        logLevel: 'silent',
    });
    const hostJS = bundle.outputFiles[0].text;
    const hostHTML = '<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body><script type="module" src="/host.js"></script></body></html>';
    web = http.createServer((req, res) => {
        const [type, body] = req.url === '/host.js' ? ['text/javascript', hostJS] : ['text/html', hostHTML];
        res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
        res.end(body);
    });
    await new Promise((resolve) => web.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${web.address().port}`;

    const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'baremcp-apps-chromium-'));
    browser = await step('chromium.launch', () =>
        chromium.launchPersistentContext(userData, {
            executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
            headless: true,
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        })
    );
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    page.on('console', (m) => console.error(`page console: ${m.text()}`));
    await page.exposeFunction('hostCallTool', async (params) => {
        calls.push(params);
        return client.callTool(params);
    });
    await page.goto(origin, { waitUntil: 'load' });
    await page.waitForFunction(() => typeof window.startApp === 'function', null, { timeout: 10000 });

    const html = view.text.replace(/<head>/i, `<head><meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await step('bridge: ui/initialize and the tool result', async () => {
        await withTimeout(page.evaluate(([h, i, r]) => window.startApp(h, i, r), [html, input, first]), 10000, 'startApp');
        if (tally) {
            const count = page.frameLocator('iframe').locator('#count');
            await count.filter({ hasText: /^1$/ }).waitFor({ timeout: 10000 });
            return;
        }
        await page.waitForFunction(() => window.bridgeLog.includes('ui/notifications/initialized'), null, { timeout: 10000 });
        // The result is sent once the view has initialized: wait until
        // the view shows some text, then judge what it did.
        const body = page.frameLocator('iframe').locator('body');
        let shown = '';
        for (let i = 0; i < 50 && shown.trim() === ''; i++) {
            shown = await body.innerText({ timeout: 5000 });
            if (shown.trim() === '') await new Promise((r) => setTimeout(r, 100));
        }
        check(shown.trim() !== '', 'the view shows nothing');
        if (expectText) check(shown.includes(expectText), `the view shows ${JSON.stringify(shown)}, not ${JSON.stringify(expectText)}`);
        console.log(`the view shows: ${JSON.stringify(shown.trim().slice(0, 200))}`);
        check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
    });
    if (tally) await step('view: the button calls the tool through the host', async () => {
        const frame = page.frameLocator('iframe');
        await frame.locator('#more:not([disabled])').click({ timeout: 10000 });
        await frame.locator('#count').filter({ hasText: /^2$/ }).waitFor({ timeout: 10000 });
        check(calls.length === 1 && calls[0].name === tool.name && calls[0].arguments?.count === 1, `the view called ${JSON.stringify(calls)}`);
        const status = await frame.locator('#status').textContent();
        check(status === '', `status ${JSON.stringify(status)}`);
    });
    const log = await page.evaluate(() => window.bridgeLog);
    await step('bridge: the view spoke the extension', async () => {
        for (const m of ['ui/initialize', 'ui/notifications/initialized', ...(tally ? ['tools/call'] : [])]) {
            check(log.includes(m), `the view never sent ${m}; it sent ${log.join(', ')}`);
        }
    });
    if (screenshot) await page.screenshot({ path: screenshot });
} catch {
    // The failing step printed its line.
} finally {
    await browser?.close().catch(() => {});
    web?.close();
    await client.close().catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
