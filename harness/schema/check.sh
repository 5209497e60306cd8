#!/usr/bin/env bash
# check.sh - the schema gate: every message the servers of the
# transcripts write (testdata/, the demo's testdata/demo/, and
# testdata/fields/, whose registry sets every field the registry API
# offers) is validated against the schema.json of the revision it was
# written in, as written and strictly (no member the revision does not
# name): gate.mjs says how; the skills extension's results and capability
# against its own types (skills.json). Then every field of every revision's schema
# must be accounted for in fields-where.txt, and docs/COVERAGE.md's field
# table must be what fields.mjs renders from them.
#
# usage: harness/schema/check.sh [WIRE_LOG]
#   WIRE_LOG  the messages already written by a go test -wire-log run that
#             played the transcripts (TestTranscripts and
#             TestDemoTranscripts: .ci/run's go test -race writes one);
#             without it, check.sh plays them itself
#
# The revisions' schemas are read from ../shared/spec beside the
# checkout, or $BAREMCP_SPEC. Installs ajv with npm ci on first use.
# Prints the gate's problems and counts, and last exactly
# "N passed, M failed" (messages). Exit status: 0 every message is valid;
# 1 one is not; 2 usage or a missing schema; 3 a build, test or install
# failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SPEC="${BAREMCP_SPEC:-$REPO/../shared/spec}"
START=$SECONDS

for v in 2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28; do
  if [ ! -f "$SPEC/$v/schema.json" ]; then
    echo "check.sh: $SPEC/$v/schema.json is missing (set BAREMCP_SPEC to the spec folder)" >&2
    exit 2
  fi
done

if [ ! -f "$HERE/node_modules/ajv/package.json" ]; then
  echo "check.sh: installing ajv (npm ci) in $HERE" >&2
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >&2 || { echo "check.sh: npm ci failed" >&2; exit 3; }
fi

if [ $# -gt 0 ]; then
  LOG="$1"
  if [ ! -s "$LOG" ]; then
    echo "check.sh: $LOG is missing or empty: no transcript was played with -wire-log" >&2
    exit 2
  fi
else
  LOG="$(mktemp "${TMPDIR:-/tmp}/baremcp-wire.XXXXXX")"
  trap 'rm -f "$LOG"' EXIT
  # The product build's transcripts (the test registry, testdata/fields
  # among them), then the demo's own.
  (cd "$REPO" && go test -count=1 -run 'TestTranscripts' -wire-log "$LOG" .) >&2 || { echo "check.sh: go test failed" >&2; exit 3; }
  if grep -qs '^func registerDemo(' "$REPO"/*.go; then
    (cd "$REPO" && go test -count=1 -tags demo -run 'TestDemoTranscripts' -wire-log "$LOG" .) >&2 || { echo "check.sh: go test -tags demo failed" >&2; exit 3; }
  fi
fi

echo "check.sh: every field of every revision (fields.mjs)" >&2
if ! node "$HERE/fields.mjs" "$SPEC" "$HERE/fields-where.txt" "$REPO/docs/COVERAGE.md" >&2; then
  echo "check.sh: a field is unaccounted for, or docs/COVERAGE.md's field table is stale (fields.mjs ... --write)" >&2
  exit 1
fi

set +e
node "$HERE/gate.mjs" "$SPEC" "$LOG"
status=$?
set -e
echo "check.sh: $((SECONDS - START)) s" >&2
exit $status
