// common.mjs - what the TypeScript interop runners share: interop.mjs
// (the official clients, here), oauth.mjs (their OAuth flow) and
// harness/interop-clients/ts/sdk1.mjs
// (the @modelcontextprotocol/sdk 1.x versions people still run). Node's
// standard library only, so either runner imports it whatever its own
// node_modules hold.
//
//   the command line   parseArgs
//   checks             Fail, check, short, expectText-style helpers use them
//   time               sleep, waitFor, withTimeout
//   the HTTP server    freePort, waitListening, stopProcessGroup
//   the report         reporter: PASS/FAIL lines, scenarios run one by one,
//                      the client's close, and last exactly "N passed, M failed"

import net from 'node:net';
import process from 'node:process';

// ------------------------------------------------------------------ args --
/**
 * Parses argv: options maps each flag to the key it sets in a copy of
 * defaults, as [key] (a string value), [key, Number] (a number) or
 * [key, true] (a switch). usage(msg) prints the runner's usage and exits
 * (2 with a message, 0 without); -h and --help call it without one.
 */
export function parseArgs(argv, defaults, options, usage) {
    const o = { ...defaults };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '-h' || a === '--help') usage();
        const opt = options[a];
        if (!opt) usage(`unknown argument ${a}`);
        const [key, kind] = opt;
        if (kind === true) {
            o[key] = true;
            continue;
        }
        if (i + 1 >= argv.length) usage(`${a} needs a value`);
        o[key] = kind === Number ? Number(argv[++i]) : argv[++i];
    }
    if (o.transport !== undefined && !['stdio', 'http', 'all'].includes(o.transport)) usage('--transport must be stdio, http or all');
    if (o.timeoutMs !== undefined && (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0)) usage('--timeout-ms must be a positive number');
    return o;
}

// ---------------------------------------------------------------- checks --
/** Fail is a scenario's own failure: its message is the whole story. */
export class Fail extends Error {}

export function check(cond, msg) {
    if (!cond) throw new Fail(msg);
}

/** short renders v for a message, cut at 300 characters. */
export const short = v => {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    return s === undefined ? 'undefined' : s.length > 300 ? `${s.slice(0, 300)}...` : s;
};

export function describeError(e) {
    if (e instanceof Fail) return e.message;
    const code = e?.code !== undefined ? ` (code ${e.code})` : '';
    return `${e?.constructor?.name ?? 'Error'}${code}: ${e?.message ?? String(e)}`;
}

// ------------------------------------------------------------------ time --
export const sleep = ms => new Promise(r => setTimeout(r, ms));

/** waitFor polls pred every 20 ms for up to ms and returns its last value. */
export async function waitFor(pred, ms) {
    const end = Date.now() + ms;
    while (!pred() && Date.now() < end) await sleep(20);
    return pred();
}

export function withTimeout(promise, ms, what) {
    let timer;
    return Promise.race([
        promise.finally(() => clearTimeout(timer)),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Fail(`${what}: timed out after ${ms}ms`)), ms); })
    ]);
}

// ----------------------------------------------------------- HTTP server --
/** freePort returns a loopback port nobody listens on (now). */
export function freePort() {
    return new Promise((resolve, reject) => {
        const srv = net.createServer();
        srv.unref();
        srv.on('error', reject);
        srv.listen(0, '127.0.0.1', () => {
            const { port } = srv.address();
            srv.close(() => resolve(port));
        });
    });
}

function portOpen(port) {
    return new Promise(resolve => {
        const s = net.connect({ host: '127.0.0.1', port });
        s.once('connect', () => { s.destroy(); resolve(true); });
        s.once('error', () => resolve(false));
    });
}

/**
 * waitListening waits up to 20 s for a server just started on port;
 * isExited says whether its process is gone. It throws, naming what, if
 * the server exits or never listens.
 */
export async function waitListening(port, isExited, what) {
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
        if (isExited()) throw new Error(`${what} exited before listening`);
        if (await portOpen(port)) return;
        await sleep(50);
    }
    throw new Error(`${what} did not listen on 127.0.0.1:${port} within 20s`);
}

/**
 * stopProcessGroup ends a server started detached (its own process group,
 * so only what the runner started is reached): SIGTERM, then SIGKILL if it
 * is still there after 2 s.
 */
export async function stopProcessGroup(child) {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise(r => child.once('exit', r));
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
    await Promise.race([gone, sleep(2000)]);
    if (child.exitCode === null && child.signalCode === null) {
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
        await Promise.race([gone, sleep(1000)]);
    }
}

// ---------------------------------------------------------------- report --
/**
 * reporter counts and prints results: report(name, err) prints PASS, or
 * FAIL with err; scenario runs one scenario with a time limit; run runs
 * a client's scenarios and closes it; close closes a client and reports
 * it; finish prints the last line and sets the exit status; crash
 * reports a runner that broke.
 */
export function reporter(prog) {
    let passed = 0;
    let failed = 0;
    const report = (name, err) => {
        if (err === undefined) {
            passed++;
            console.log(`PASS ${name}`);
        } else {
            failed++;
            console.log(`FAIL ${name}: ${String(err).replace(/\s+/g, ' ')}`);
        }
    };
    return {
        report,
        async scenario(name, fn, ms) {
            try {
                await withTimeout(Promise.resolve().then(fn), ms, name.slice(name.lastIndexOf('/') + 1));
                report(name);
            } catch (e) {
                report(name, describeError(e));
            }
        },
        /**
         * run runs scenarios, [name, fn] pairs, in order as prefix/name,
         * stops when isExited says the HTTP server died under them, and
         * closes client.
         */
        async run(prefix, scenarios, client, ms, isExited) {
            for (const [name, fn] of scenarios) {
                await this.scenario(`${prefix}/${name}`, fn, ms);
                if (isExited?.()) {
                    report(`${prefix}/server-alive`, `the HTTP server exited during ${name}`);
                    break;
                }
            }
            await this.close(prefix, client);
        },
        async close(prefix, client) {
            try {
                await withTimeout(client.close(), 8000, 'close');
                report(`${prefix}/close`);
            } catch (e) {
                report(`${prefix}/close`, describeError(e));
            }
        },
        finish() {
            console.log(`${passed} passed, ${failed} failed`);
            process.exitCode = failed > 0 ? 1 : 0;
        },
        crash(e) {
            console.error(`${prog}: ${e?.stack ?? e}`);
            console.log(`${passed} passed, ${failed + 1} failed`);
            process.exit(1);
        }
    };
}
