// Gate a run.sh result against the expected-failures list.
//
// usage: node gate.mjs RESULTS_DIR EXPECTED_FAILURES_FILE
//
// RESULTS_DIR is a run.sh --out folder (its summary.json is read).
// Scenarios of the legacy and modern eras gate; so do the tasks extension's
// (extensions/tasks-*, issue 13: all pass, none may be listed as expected
// failures) and the skills extension's (extensions/sep-2640-skills-*,
// issue 36: every check SUCCESS, none SKIPPED or WARNING, each of the
// three run). Other extension scenarios are reported and never gate. A
// scenario fails when any of its checks is FAILURE (WARNING does not fail
// it), as in summarize.mjs; a skills scenario also when any check is not
// SUCCESS.
//
// Each result line is one of
//   PASS   era/scenario                      passed
//   XFAIL  era/scenario  (reason)            failed, and listed: allowed
//   FAIL   era/scenario  :: failed checks    failed, not listed: the gate fails
//   XPASS  era/scenario  (reason)            passed but listed: the gate fails
//                                            until the line is removed
//   STALE  era/scenario                      listed but not run at all
//   TASKS-PASS / TASKS-FAIL  extensions/tasks-*   gating: a failure fails the gate
//   SKILLS-PASS / SKILLS-FAIL  extensions/sep-2640-skills-*   gating: a check
//                                            not SUCCESS (or a scenario not run) fails it
//   EXT-PASS / EXT-FAIL  extensions/...      reported only
// The last line is exactly "N passed, M failed" over the legacy and modern
// scenarios; the lines before it count the tasks and skills scenarios.
//
// Exit status: 0 when the gate holds, 1 when it does not, 2 on a bad
// expected-failures file, 3 when there are no results.

import fs from 'node:fs';
import path from 'node:path';

const [dir, listFile] = process.argv.slice(2);
if (!dir || !listFile) {
  console.error('usage: node gate.mjs RESULTS_DIR EXPECTED_FAILURES_FILE');
  process.exit(2);
}

const GATING = ['legacy', 'modern'];

// gatingExtension reports whether an extension scenario gates: the tasks
// extension's do (issue 13).
const gatingExtension = (scenario) => scenario.startsWith('tasks-');

// The tasks scenarios that must have run whenever extensions ran at all:
// a suite that stopped listing one must not pass the gate by omission.
const REQUIRED_TASKS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

// The skills extension's scenarios, each of which must have run whenever
// extensions ran, with every check SUCCESS (issue 36).
const REQUIRED_SKILLS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];

// expected: "era/scenario" -> reason
const expected = new Map();
let bad = false;
fs.readFileSync(listFile, 'utf8')
  .split('\n')
  .forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(\S+)\s+(.+)$/.exec(line);
    const where = `${listFile}:${i + 1}`;
    if (!m) {
      console.error(`${where}: want "era/scenario  reason (issue N: ...)", got: ${line}`);
      bad = true;
      return;
    }
    const [, key, reason] = m;
    const [era, scenario] = key.split('/');
    if (!GATING.includes(era) || !scenario) {
      console.error(`${where}: ${key}: era must be one of ${GATING.join(', ')}`);
      bad = true;
    } else if (expected.has(key)) {
      console.error(`${where}: ${key} is listed twice`);
      bad = true;
    }
    expected.set(key, reason);
  });
if (bad) process.exit(2);

const summaryFile = path.join(dir, 'summary.json');
if (!fs.existsSync(summaryFile)) {
  console.error(`gate: no ${summaryFile}`);
  process.exit(3);
}
const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));

let passed = 0;
let failed = 0;
let broken = 0; // unexpected failures, unexpected passes, stale entries
const seen = new Set();
const lines = [];
const ext = [];
const tasks = [];
let tasksPassed = 0;
let tasksFailed = 0;
const skills = [];
let skillsPassed = 0;
let skillsFailed = 0;
for (const s of summary.scenarios) {
  const key = `${s.era}/${s.scenario}`;
  const ok = s.failed === 0;
  const warn = s.warnings ? `, ${s.warnings} warning(s)` : '';
  if (!GATING.includes(s.era) && REQUIRED_SKILLS.includes(s.scenario)) {
    const notSuccess = s.notSuccess ?? ['(summary.json has no per-check statuses)'];
    if (notSuccess.length === 0 && s.checks > 0) {
      skillsPassed++;
      skills.push(`SKILLS-PASS  ${key}: ${s.checks} checks, all SUCCESS`);
    } else {
      skillsFailed++;
      broken++;
      skills.push(`SKILLS-FAIL  ${key.padEnd(50)} :: ${s.checks ? notSuccess.join(', ') : 'no checks'}`);
    }
    continue;
  }
  if (!GATING.includes(s.era) && gatingExtension(s.scenario)) {
    if (ok) {
      tasksPassed++;
      tasks.push(`TASKS-PASS  ${key}${warn}`);
    } else {
      tasksFailed++;
      broken++;
      tasks.push(`TASKS-FAIL  ${key.padEnd(53)} :: ${s.failedChecks.join(', ')}`);
    }
    continue;
  }
  if (!GATING.includes(s.era)) {
    ext.push(`${ok ? 'EXT-PASS' : 'EXT-FAIL'}  ${key.padEnd(58)} ${s.passed} passed, ${s.failed} failed${warn}`);
    continue;
  }
  seen.add(key);
  if (ok) passed++;
  else failed++;
  const reason = expected.get(key);
  if (ok && reason === undefined) {
    lines.push(`PASS   ${key}${warn}`);
  } else if (ok) {
    broken++;
    lines.push(`XPASS  ${key.padEnd(58)} passes now: remove it from the expected failures (${reason})`);
  } else if (reason !== undefined) {
    lines.push(`XFAIL  ${key.padEnd(58)} ${reason}`);
  } else {
    broken++;
    lines.push(`FAIL   ${key.padEnd(58)} :: ${s.failedChecks.join(', ')}`);
  }
}
const ranExtensions = summary.scenarios.some((s) => !GATING.includes(s.era));
for (const name of REQUIRED_SKILLS) {
  if (ranExtensions && !summary.scenarios.some((s) => !GATING.includes(s.era) && s.scenario === name)) {
    broken++;
    skillsFailed++;
    skills.push(`SKILLS-FAIL  extensions/${name.padEnd(39)} :: not run`);
  }
}
for (const name of REQUIRED_TASKS) {
  if (ranExtensions && !summary.scenarios.some((s) => !GATING.includes(s.era) && s.scenario === name)) {
    broken++;
    tasksFailed++;
    tasks.push(`TASKS-FAIL  extensions/${name.padEnd(42)} :: not run`);
  }
}
for (const [key, reason] of expected) {
  if (!seen.has(key)) {
    broken++;
    lines.push(`STALE  ${key.padEnd(58)} listed but not run: remove or rename it (${reason})`);
  }
}

for (const l of lines) console.log(l);
if (tasks.length > 0) {
  console.log('\nTasks extension scenarios (gating):');
  for (const l of tasks) console.log(l);
}
if (skills.length > 0) {
  console.log('\nSkills extension scenarios (gating: every check SUCCESS):');
  for (const l of skills) console.log(l);
}
if (ext.length > 0) {
  console.log('\nExtension scenarios (reported, not gating):');
  for (const l of ext) console.log(l);
}
if (seen.size === 0) {
  console.log('no legacy or modern scenario results were found');
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(3);
}
const xfail = lines.filter((l) => l.startsWith('XFAIL')).length;
console.log(
  `\ngate: ${broken === 0 ? 'OK' : `BROKEN (${broken} unexpected result(s))`}; ${xfail} expected failure(s) listed in ${path.basename(listFile)}`
);
if (tasks.length > 0) console.log(`tasks: ${tasksPassed} passed, ${tasksFailed} failed`);
if (skills.length > 0) console.log(`skills: ${skillsPassed} passed, ${skillsFailed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(broken === 0 ? 0 : 1);
