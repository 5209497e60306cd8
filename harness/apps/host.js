// host.js - the host page of check.mjs, bundled for the browser by
// esbuild: an MCP Apps host as the extension describes one, built on the
// official bridge (AppBridge). startApp(html, input, result) puts the
// view in a sandboxed iframe, connects the bridge to it over postMessage,
// and once the view has initialized sends it the tool's input and result;
// the view's tools/call goes to window.hostCallTool, which check.mjs
// exposes and relays to the MCP server. bridgeLog records the method of
// every message the view sends.

import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

window.bridgeLog = [];

window.startApp = async (html, input, result) => {
    const iframe = document.createElement('iframe');
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.style.width = '480px';
    iframe.style.height = '240px';
    iframe.srcdoc = html;
    document.body.append(iframe);

    const bridge = new AppBridge(
        null,
        { name: 'baremcp-apps-check', version: '1' },
        { serverTools: {}, logging: {} }
    );
    bridge.oncalltool = async (params) => window.hostCallTool(params);
    bridge.oninitialized = () => {
        bridge.sendToolInput({ arguments: input });
        bridge.sendToolResult(result);
    };
    window.addEventListener('message', (event) => {
        if (event.source === iframe.contentWindow && event.data?.method) window.bridgeLog.push(event.data.method);
    });
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
};
