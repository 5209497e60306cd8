#!/usr/bin/env node
// bundles.mjs - a release's MCP Bundles judged by the official MCPB tool
// (@anthropic-ai/mcpb, pinned in package-lock.json) and started as a host
// starts them:
//
// 1. every .mcpb is unpacked (`mcpb unpack`) and its manifest validated
//    (`mcpb validate`); its entry point is an executable of the bundle's
//    system and architecture (ELF, Mach-O, PE by their headers), and the
//    manifest names that system;
// 2. each Linux bundle this machine can run (amd64 here; arm64 through
//    qemu-user when installed, else it says so) is started with the
//    command and arguments the host computes from its manifest
//    (getMcpConfigForManifest, the function the tool's hosts use:
//    ${__dirname} and the user_config prompts substituted), once with
//    every prompt left empty and once with a folder to read: it answers
//    server/discover naming the manifest's server, lists exactly the
//    manifest's tools, and answers a tools/call;
// 3. the Windows amd64 bundle runs the same under Wine when Wine is
//    installed, else it says so.
//
// usage: node bundles.mjs --release DIR [--call TOOL --args JSON --expect TEXT]
// (without --call, no tools/call: a server whose tools this script cannot
// know how to call)
// Prints PASS, FAIL or SKIP lines and last "N passed, M failed".

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MCPB = path.join(HERE, 'node_modules', '.bin', 'mcpb');
const args = process.argv.slice(2);
const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : '';
};
const release = opt('--release');
const call = opt('--call');
const callArgs = JSON.parse(opt('--args') || '{}');
const expect = opt('--expect');
if (!release || (call && !expect)) {
    console.error('usage: node bundles.mjs --release DIR [--call TOOL --args JSON --expect TEXT]');
    process.exit(2);
}

let passed = 0;
let failed = 0;
const pass = (name) => { console.log(`PASS ${name}`); passed++; };
const fail = (name, why) => { console.log(`FAIL ${name}: ${why}`); failed++; };
const skip = (name, why) => console.log(`SKIP ${name}: ${why}`);
async function step(name, fn) {
    try {
        await fn();
        pass(name);
    } catch (e) {
        fail(name, e?.message ?? String(e));
    }
}
function check(ok, what) {
    if (!ok) throw new Error(what);
}
function which(cmd) {
    return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
}

// The executable formats, by their headers: the machine each was built for.
function executableKind(file) {
    const b = fs.readFileSync(file);
    if (b.readUInt32BE(0) === 0x7f454c46) {
        const machine = { 0x3e: 'amd64', 0xb7: 'arm64' }[b.readUInt16LE(18)];
        return { os: 'linux', arch: machine };
    }
    if (b.readUInt32LE(0) === 0xfeedfacf) {
        const cpu = { 0x01000007: 'amd64', 0x0100000c: 'arm64' }[b.readUInt32LE(4)];
        return { os: 'darwin', arch: cpu };
    }
    if (b.toString('latin1', 0, 2) === 'MZ') {
        const pe = b.readUInt32LE(0x3c);
        if (b.toString('latin1', pe, pe + 4) === 'PE\0\0') {
            const machine = { 0x8664: 'amd64', 0xaa64: 'arm64' }[b.readUInt16LE(pe + 4)];
            return { os: 'windows', arch: machine };
        }
    }
    return { os: 'unknown', arch: 'unknown' };
}

// exchange starts command with args (under runner, an emulator, when
// given) and sends the lines of a host: server/discover, tools/list and
// the tools/call, then closes its input; it returns the answers by id.
function exchange(command, cmdArgs, env, runner) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const lines = [
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } },
    ];
    if (call) lines.push({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: call, arguments: callArgs, _meta: meta } });
    const [cmd, argv] = runner ? [runner[0], [...runner.slice(1), command, ...cmdArgs]] : [command, cmdArgs];
    return new Promise((resolve, reject) => {
        const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        const timer = setTimeout(() => { child.kill(); reject(new Error(`no end in 60 s; stderr: ${err}`)); }, 60000);
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('error', (e) => { clearTimeout(timer); reject(e); });
        child.on('close', (code) => {
            clearTimeout(timer);
            if (code !== 0) return reject(new Error(`exit ${code}; stderr: ${err.slice(-600)}`));
            const byId = {};
            for (const line of out.split('\n').filter(Boolean)) {
                const msg = JSON.parse(line);
                byId[msg.id] = msg;
            }
            resolve({ byId, stderr: err });
        });
        child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    });
}

// answers checks a run's answers against the manifest.
function answers(manifest, { byId }) {
    const info = byId[1]?.result?._meta?.['io.modelcontextprotocol/serverInfo'];
    check(info?.name === manifest.name, `server/discover: serverInfo ${JSON.stringify(info)} is not ${manifest.name}`);
    check(info?.version === 'v' + manifest.version, `server/discover: version ${info?.version}, the manifest's ${manifest.version}`);
    const listed = (byId[2]?.result?.tools ?? []).map((t) => t.name).join(',');
    const declared = (manifest.tools ?? []).map((t) => t.name).join(',');
    check(listed === declared, `tools/list says ${listed}, the manifest's tools field ${declared}`);
    if (!call) return;
    const text = (byId[3]?.result?.content ?? []).map((c) => c.text).join('');
    check(text.includes(expect), `tools/call ${call}: ${JSON.stringify(byId[3])}, want ${JSON.stringify(expect)}`);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baremcp-bundles-'));
const systemDirs = { HOME: os.homedir(), DESKTOP: path.join(os.homedir(), 'Desktop'), DOCUMENTS: path.join(os.homedir(), 'Documents'), DOWNLOADS: path.join(os.homedir(), 'Downloads') };
const bundles = fs.readdirSync(release).filter((f) => f.endsWith('.mcpb')).sort();
if (bundles.length === 0) fail('bundles', `no .mcpb in ${release}`);
const qemu = which('qemu-aarch64') || which('qemu-aarch64-static');
// Debian's wine64 package installs its loader outside PATH.
const wine = which('wine64') || which('wine') || (fs.existsSync('/usr/lib/wine/wine64') ? '/usr/lib/wine/wine64' : '');
try {
    for (const file of bundles) {
        const [, goos, goarch] = file.match(/-([a-z]+)-([a-z0-9]+)\.mcpb$/) ?? [];
        const dir = path.join(work, file.replace(/\.mcpb$/, ''));
        let manifest;
        await step(`${file}: mcpb unpack, mcpb validate`, () => {
            for (const argv of [['unpack', path.join(release, file), dir], ['validate', path.join(dir, 'manifest.json')]]) {
                const r = spawnSync(MCPB, argv, { encoding: 'utf8' });
                check(r.status === 0, `mcpb ${argv[0]}: exit ${r.status}: ${r.stdout}${r.stderr}`);
            }
            manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
        });
        if (!manifest) continue;
        const entry = path.join(dir, manifest.server.entry_point);
        await step(`${file}: server/${path.basename(entry)} is a ${goos}/${goarch} executable, and the manifest says ${goos}`, () => {
            const kind = executableKind(entry);
            check(kind.os === goos && kind.arch === goarch, `it is ${kind.os}/${kind.arch}`);
            const platform = goos === 'windows' ? 'win32' : goos;
            check(JSON.stringify(manifest.compatibility?.platforms) === JSON.stringify([platform]), `compatibility.platforms ${JSON.stringify(manifest.compatibility?.platforms)}`);
            check(manifest.server.type === 'binary' && manifest.server.mcp_config.command === '${__dirname}/' + manifest.server.entry_point, `server ${JSON.stringify(manifest.server)}`);
            if (goos !== 'windows') check((fs.statSync(entry).mode & 0o111) !== 0, 'not executable once unpacked');
        });
        let runner = null;
        if (goos === 'linux' && goarch === 'arm64' && process.arch !== 'arm64') {
            if (!qemu) {
                skip(`${file}: started as a host starts it`, 'qemu-user is not installed (apt-get install qemu-user)');
                continue;
            }
            runner = [qemu];
        } else if (goos === 'windows') {
            if (goarch !== 'amd64' || !wine) {
                skip(`${file}: started as a host starts it`, goarch !== 'amd64' ? 'no arm64 Windows here' : 'Wine is not installed');
                continue;
            }
            runner = [wine];
            // Go's runtime (1.22 on) needs bcryptprimitives.dll
            // (ProcessPrng): a Wine without it runs no Go binary at all
            // (Debian 12's Wine 8.0 is one).
            const probe = spawnSync(wine, [entry, '-version'], { encoding: 'utf8', timeout: 60000 });
            if (probe.status !== 0 && /bcryptprimitives\.dll not found/.test(probe.stderr)) {
                skip(`${file}: started as a host starts it`, `this Wine (${spawnSync(wine, ['--version'], { encoding: 'utf8' }).stdout.trim()}) lacks bcryptprimitives.dll, which every Windows binary of Go 1.22 or later needs`);
                continue;
            }
        } else if (goos !== 'linux' || goarch !== { x64: 'amd64', arm64: 'arm64' }[process.arch]) {
            continue; // macOS: its header is all this machine can check
        }
        const readable = fs.mkdtempSync(path.join(work, 'readable-'));
        for (const [label, userConfig] of [['every prompt empty', {}], ['a folder to read', { allow_read: readable }]]) {
            await step(`${file}: started as a host starts it (${label}${runner ? ', under ' + path.basename(runner[0]) : ''}): server/discover, tools/list${call ? ', tools/call ' + call : ''}`, async () => {
                const cfg = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs, userConfig, pathSeparator: path.sep });
                check(cfg, 'the host would not start it (required configuration missing)');
                check(!JSON.stringify(cfg).includes('${'), `a variable is left: ${JSON.stringify(cfg)}`);
                if (userConfig.allow_read) check(cfg.args.includes('-allow-read=' + readable), `-allow-read=${readable} is not among the arguments ${JSON.stringify(cfg.args)}`);
                const run = await exchange(cfg.command, cfg.args, cfg.env ?? {}, runner);
                answers(manifest, run);
                if (userConfig.allow_read && goos === 'linux') check(run.stderr.includes(readable), `the start-up log does not grant ${readable}: ${run.stderr.slice(0, 600)}`);
            });
        }
    }
} finally {
    fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
