#!/usr/bin/env node
// fields.mjs - the @modelcontextprotocol/sdk 1.32.2 client (a 2025-11-25
// session) against the fields part of the test registry (fields_test.go),
// which sets every field the registry API offers: tools/list must show
// every tool (the SDK validates the whole list with its schema, so one
// field it cannot parse drops them all), and each tool, resource, template
// and prompt must be usable. The Go test TestFieldsTypeScriptClient serves
// the registry over Streamable HTTP and runs this script with its URL.
//
// usage: node fields.mjs URL
// Prints `PASS name` / `FAIL name: reason` lines and last exactly
// `N passed, M failed`. Exit 0 all passed, 1 failures, 2 bad usage.

import process from 'node:process';

import { Client } from 'sdk-1-32/client/index.js';
import { StreamableHTTPClientTransport } from 'sdk-1-32/client/streamableHttp.js';
import { CreateMessageRequestSchema } from 'sdk-1-32/types.js';

const url = process.argv[2];
if (!url) {
    console.error('usage: node fields.mjs URL');
    process.exit(2);
}

const TOOLS = ['everything', 'list_output', 'sample_everything'];
let passed = 0;
let failed = 0;
async function step(name, fn) {
    try {
        await fn();
        console.log(`PASS ${name}`);
        passed++;
    } catch (e) {
        console.log(`FAIL ${name}: ${e?.message ?? e}`);
        failed++;
    }
}
function check(ok, what) {
    if (!ok) throw new Error(what);
}

const client = new Client({ name: 'fields', version: '1' }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async req => {
    check(req.params.messages.length === 3, `sampling: ${req.params.messages.length} messages`);
    return { role: 'assistant', content: { type: 'text', text: '42' }, model: 'm', stopReason: 'endTurn' };
});
const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));

await step('connect', async () => {
    await client.connect(transport);
    check(client.getServerVersion()?.description, `serverInfo ${JSON.stringify(client.getServerVersion())} has no description`);
});
await step('tools.list', async () => {
    const { tools } = await client.listTools();
    const names = tools.map(t => t.name);
    for (const n of TOOLS) check(names.includes(n), `tool ${n} missing from ${JSON.stringify(names)}`);
    const every = tools.find(t => t.name === 'everything');
    check(every._meta?.ui?.resourceUri === 'ui://fields/view.html', `everything._meta ${JSON.stringify(every._meta)}`);
    check(every.icons?.length === 2, `everything.icons ${JSON.stringify(every.icons)}`);
});
await step('tools.call.everything', async () => {
    const r = await client.callTool({ name: 'everything', arguments: { a: 'x' }, _meta: { 'com.example/trace': 't-1' } });
    check(!r.isError, `isError: ${JSON.stringify(r.content)}`);
    check(r.content.length === 6, `${r.content.length} content blocks`);
    check(r.content[0].text.includes('com.example/trace="t-1"'), `text ${r.content[0].text}`);
    check(r.structuredContent?.n === 1, `structuredContent ${JSON.stringify(r.structuredContent)}`);
    check(r._meta?.['com.example/what'] === 'result', `_meta ${JSON.stringify(r._meta)}`);
});
await step('tools.call.list_output', async () => {
    const r = await client.callTool({ name: 'list_output', arguments: {} });
    check(!r.isError && r.content[0]?.text === '[1,2,3]', `result ${JSON.stringify(r)}`);
});
await step('tools.call.sample_everything', async () => {
    const r = await client.callTool({ name: 'sample_everything', arguments: {} });
    check(r.content[0]?.text === 'model answered', `result ${JSON.stringify(r)}`);
});
await step('resources', async () => {
    const { resources } = await client.listResources();
    check(resources.find(r => r.uri === 'fields://everything')?.size === 0, `resources ${JSON.stringify(resources)}`);
    const { resourceTemplates } = await client.listResourceTemplates();
    check(resourceTemplates.length === 1, `templates ${JSON.stringify(resourceTemplates)}`);
    const view = await client.readResource({ uri: 'ui://fields/view.html' });
    check(view.contents[0].mimeType === 'text/html;profile=mcp-app', `view ${JSON.stringify(view.contents[0])}`);
    const item = await client.readResource({ uri: 'fields://items/7' });
    check(item.contents.length === 2 && item.contents[0]._meta, `item ${JSON.stringify(item)}`);
});
await step('prompts', async () => {
    const { prompts } = await client.listPrompts();
    check(prompts.length === 1, `prompts ${JSON.stringify(prompts)}`);
    const p = await client.getPrompt({ name: 'everything', arguments: { topic: 'fields' } });
    check(p.messages.length === 6, `${p.messages.length} messages`);
});
await client.close().catch(() => {});
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
