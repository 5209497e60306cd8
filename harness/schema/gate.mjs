// gate.mjs - validates every message baremcp wrote against the schema.json
// of the protocol revision it was written in.
//
// usage: node gate.mjs SPEC_DIR WIRE_LOG...
//
// SPEC_DIR holds one folder per revision with its schema.json
// (../shared/spec). Each WIRE_LOG is JSON lines, one message the server
// wrote per line, as the Go tests record them with -wire-log
// (wirelog_test.go):
//
//   {"v":"2025-11-25","m":"tools/call","src":"testdata/tools.txt","msg":{...}}
//
// v is the revision the message was written in, m the method of the
// request a response answers ("" for a notification or a request of the
// server's), src where it was recorded.
//
// Two checks, both gating:
//   schema  the message is valid JSON Schema-wise: the envelope
//           (JSONRPCResponse, JSONRPCNotification, ...) and the definition
//           of its method (CallToolResult, ProgressNotification, ...).
//   strict  no object has a member its definition does not name, unless
//           the definition allows more (additionalProperties): JSON
//           Schema lets any member through, and a member of a later
//           revision (a title in 2024-11-05) is exactly what a client of
//           that revision may choke on. The members whose values are
//           schemas or free-form values (inputSchema, outputSchema,
//           structuredContent, _meta, experimental) are opaque.
//
// Messages of the extensions the revision's schema does not define (the
// tasks extension's tasks/* and a CreateTaskResult) are checked against
// the revision's base Result or envelope only, and counted apart. The
// skills extension's results and its capability setting are checked, as
// written and strictly, against its own types (skills.json), added to the
// definitions of the revision it is declared against.
//
// Prints one line per problem, a count per revision and kind, and last
// exactly "N passed, M failed" (messages). Exit status 0 when none
// failed, 1 when some did, 2 on usage or unreadable input, 3 when the logs
// hold no message at all.

import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const [specDir, ...logs] = process.argv.slice(2);
if (!specDir || logs.length === 0) {
  console.error('usage: node gate.mjs SPEC_DIR WIRE_LOG...');
  process.exit(2);
}

// The members whose values are schemas or free-form: never strict.
const OPAQUE = new Set(['inputSchema', 'outputSchema', 'structuredContent', '_meta', 'experimental']);

// EXTENSION_MEMBERS are members an extension adds to a core definition
// (definition, member, its schema): the tasks extension's taskIds in a
// subscription's filter (SEP-2663, "Subscribing to task status").
const EXTENSION_MEMBERS = [['SubscriptionFilter', 'taskIds', { type: 'array', items: { type: 'string' } }]];

// skills is the skills extension's types (skills.json): definitions added
// to one revision's, the definition of each method's result, and the
// definition of its capability setting.
const skills = JSON.parse(fs.readFileSync(new URL('./skills.json', import.meta.url), 'utf8'));
let skillsChecked = 0;

// resultDefs names the definition of each method's result.
const resultDefs = {
  'initialize': 'InitializeResult',
  'ping': 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

// extensionMethod reports whether a method belongs to an extension the
// core schema does not define (the tasks extension, SEP-2663).
const extensionMethod = (m) => m.startsWith('tasks/') || m === 'notifications/tasks' || m.startsWith('notifications/tasks/');

// strictCopy returns schema with unevaluatedProperties: false on every
// object definition that names its members and does not allow others. A
// definition used as a branch of allOf (Result beside Task) is left open
// and the node holding the allOf is closed instead, since each branch
// sees only its own members.
function strictCopy(schema) {
  const s = structuredClone(schema);
  const defs = s.$defs || s.definitions;
  for (const [def, member, value] of EXTENSION_MEMBERS) {
    if (defs[def]?.properties) defs[def].properties[member] = value;
  }
  const inAllOf = new Set();
  const walkRefs = (x) => {
    if (Array.isArray(x)) return x.forEach(walkRefs);
    if (x && typeof x === 'object') {
      if (Array.isArray(x.allOf)) {
        for (const b of x.allOf) if (b.$ref) inAllOf.add(b.$ref.split('/').pop());
      }
      Object.values(x).forEach(walkRefs);
    }
  };
  walkRefs(s);
  const close = (node, isBranch) => {
    if (Array.isArray(node)) return node.forEach((n) => close(n, false));
    if (!node || typeof node !== 'object') return;
    if (node.allOf && !('additionalProperties' in node)) node.unevaluatedProperties = false;
    if (node.properties && !isBranch && !('additionalProperties' in node) && !('unevaluatedProperties' in node)) {
      node.unevaluatedProperties = false;
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties') {
        for (const [name, sub] of Object.entries(v)) if (!OPAQUE.has(name)) close(sub, false);
      } else if (k === 'allOf') {
        v.forEach((b) => close(b, true));
      } else if (k !== '$defs' && k !== 'definitions') {
        close(v, false);
      }
    }
  };
  for (const [name, def] of Object.entries(defs)) {
    // _meta objects name the reserved keys and are open to any other.
    if (!/MetaObject$/.test(name)) close(def, inAllOf.has(name));
  }
  return s;
}

// revision loads one revision's schema twice (as written, and strict)
// into one validator each, compiling definitions on demand.
const revisions = new Map();
function revision(v) {
  if (revisions.has(v)) return revisions.get(v);
  const file = path.join(specDir, v, 'schema.json');
  let raw;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`gate.mjs: ${file}: ${e.message}`);
    process.exit(2);
  }
  delete raw.$schema; // draft-07 documents read as 2020-12: the keywords used mean the same
  const defsKey = raw.$defs ? '$defs' : 'definitions';
  if (v === skills.revision) Object.assign(raw[defsKey], skills.$defs);
  const mk = (schema, id) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
    ajv.addSchema({ ...schema, $id: id });
    const cache = new Map();
    return (def) => {
      if (!cache.has(def)) {
        cache.set(def, schema[defsKey][def] ? ajv.getSchema(`${id}#/${defsKey}/${def}`) : null);
      }
      return cache.get(def);
    };
  };
  const defs = raw[defsKey];
  const byMethod = new Map();
  for (const [name, d] of Object.entries(defs)) {
    const m = d?.properties?.method?.const;
    if (m && !/^(Client|Server)/.test(name)) byMethod.set(m, name);
  }
  const r = {
    defs,
    plain: mk(raw, `urn:mcp:${v}`),
    strict: mk(strictCopy(raw), `urn:mcp:${v}:strict`),
    byMethod,
    pick: (...names) => names.find((n) => defs[n]),
  };
  revisions.set(v, r);
  return r;
}

// checks returns the [definition, value] pairs a message must satisfy;
// ext is set for a message of an extension the schema does not define.
function checks(r, rec) {
  const msg = rec.msg;
  if ('error' in msg) {
    const def = r.pick('JSONRPCErrorResponse', 'JSONRPCError');
    const body = withoutNullID(msg);
    if (body !== msg && r.defs[def].required?.includes('id')) {
      // Before 2025-11-25 the envelope requires an id: check the rest.
      return { list: [[def, { ...body, id: 0 }]] };
    }
    return { list: [[def, body]] };
  }
  if ('result' in msg) {
    const env = [r.pick('JSONRPCResultResponse', 'JSONRPCResponse'), msg];
    const type = msg.result?.resultType;
    if (type === 'input_required') return { list: [env, ['InputRequiredResult', msg.result]] };
    if (type === 'task' || extensionMethod(rec.m)) return { list: [env, ['Result', msg.result]], ext: true };
    if (skills.results[rec.m]) {
      skillsChecked++;
      return { list: [env, [skills.results[rec.m], msg.result]] };
    }
    const def = resultDefs[rec.m];
    const [capName, capDef] = skills.capability;
    const cap = msg.result?.capabilities?.extensions?.[capName];
    if (cap !== undefined) {
      skillsChecked++;
      return { list: [env, [def, msg.result], [capDef, cap]] };
    }
    if (!def) return { list: [env], missing: `no result definition for method ${JSON.stringify(rec.m)}` };
    return { list: [env, [def, msg.result]] };
  }
  const env = ['id' in msg ? 'JSONRPCRequest' : 'JSONRPCNotification', msg];
  if (extensionMethod(msg.method)) return { list: [env], ext: true };
  const def = r.byMethod.get(msg.method);
  if (!def) return { list: [env], missing: `method ${msg.method} is not in this revision` };
  // Before 2025-11-25 a request's or notification's definition names
  // method and params only; the envelope check covers jsonrpc and id.
  const named = r.defs[def].properties || {};
  const body = Object.fromEntries(Object.entries(msg).filter(([k]) => k in named || (k !== 'jsonrpc' && k !== 'id')));
  return { list: [env, [def, body]] };
}

// nullIDs counts error responses with "id": null: JSON-RPC 2.0 requires
// null when the request's id could not be read (a parse error, an
// invalid request), which no revision's schema expresses (RequestId is a
// string or an integer; 2025-11-25 on make id optional instead). The
// envelope of such an error is checked without its id (docs/GAPS.md).
let nullIDs = 0;
function withoutNullID(msg) {
  if (!('error' in msg) || msg.id !== null) return msg;
  nullIDs++;
  const { id, ...rest } = msg;
  return rest;
}

const fmtErrors = (errs) =>
  errs.slice(0, 6).map((e) => `${e.instancePath || '/'} ${e.message}${e.params?.unevaluatedProperty ? ` (${e.params.unevaluatedProperty})` : ''}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`).join('; ');

let passed = 0;
let failed = 0;
let extension = 0;
const counts = new Map(); // "v kind" -> n
for (const log of logs) {
  let text;
  try {
    text = fs.readFileSync(log, 'utf8');
  } catch (e) {
    console.error(`gate.mjs: ${e.message}`);
    process.exit(2);
  }
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let rec;
    try {
      rec = JSON.parse(line);
    } catch (e) {
      console.error(`${log}:${i + 1}: not JSON: ${e.message}`);
      failed++;
      continue;
    }
    const r = revision(rec.v);
    const { list, ext, missing } = checks(r, rec);
    const problems = [];
    if (missing) problems.push(missing);
    for (const [i, [def, value]] of list.entries()) {
      const envelope = i === 0 && list.length > 1;
      const plain = r.plain(def);
      if (!plain) {
        problems.push(`no definition ${def}`);
        continue;
      }
      if (!plain(value)) {
        problems.push(`schema ${def}: ${fmtErrors(plain.errors)}`);
        continue;
      }
      if (envelope) continue; // its result or params are checked strictly as their own definition
      const strict = r.strict(def);
      if (!strict(value)) problems.push(`strict ${def}: ${fmtErrors(strict.errors)}`);
    }
    const kind = 'error' in rec.msg ? 'error' : 'result' in rec.msg ? rec.m || '?' : rec.msg.method;
    const key = `${rec.v} ${kind}`;
    counts.set(key, (counts.get(key) || 0) + 1);
    if (ext) extension++;
    if (problems.length > 0) {
      failed++;
      console.log(`FAIL ${rec.v} ${kind} (${rec.src}): ${problems.join(' | ')}\n  ${JSON.stringify(rec.msg).slice(0, 600)}`);
    } else {
      passed++;
    }
  }
}
for (const key of [...counts.keys()].sort()) console.log(`  ${key}: ${counts.get(key)}`);
console.log(`${nullIDs} error(s) with "id": null (JSON-RPC 2.0's answer to an unreadable id) checked without it`);
console.log(`${extension} message(s) of extensions the schemas do not define checked against the envelope and Result only`);
console.log(`${skillsChecked} message(s) of the skills extension checked against its types (skills.json)`);
if (passed + failed === 0) {
  console.log('gate.mjs: no messages in the wire logs');
  process.exit(3);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
