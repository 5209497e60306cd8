#!/usr/bin/env bash
# check.sh - the interop gate: run.sh (every official TypeScript client
# configuration x transport against the demo server) compared with
# expected-failures.txt.
#
# usage: harness/interop-ts/check.sh [run.sh arguments...]
#
# Without a server command, run.sh builds the demo with go build -tags
# demo (the scenarios call the demo's tools by name). When the demo
# registry is gone (no registry_demo.go defining registerDemo), check.sh
# prints one line saying the gate is skipped and exits 0.
#
# Prints run.sh's PASS/FAIL lines, then the gate's verdict per listed or
# unexpected scenario, and last exactly "N passed, M failed".
# Exit status: 0 the gate holds; 1 a failure no line lists, a listed
# scenario that passes, or a line that matches nothing; 2 a bad
# expected-failures.txt; 3 run.sh could not run.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIST="$HERE/expected-failures.txt"
if { [ $# -eq 0 ] || [[ "$1" == -* ]]; } && ! grep -qs '^func registerDemo(' "$HERE"/../../*.go; then
  echo "check.sh: skipped: the demo registry (registry_demo.go, registerDemo) is gone and the interop scenarios call its tools by name"
  exit 0
fi
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT

rc=0
"$HERE/run.sh" "$@" >"$OUT" || rc=$?
if [ $rc -ge 2 ]; then
  cat "$OUT"
  echo "check.sh: run.sh could not run (exit $rc)" >&2
  exit 3
fi
grep -E '^(PASS|FAIL) ' "$OUT" || true

# shellcheck source=../gate.sh
. "$HERE/../gate.sh"
grc=0
gate "$OUT" "$LIST" interop || grc=$?
if [ $grc -eq 3 ]; then
  cat "$OUT"
  echo "check.sh: run.sh reported no scenarios" >&2
fi
exit $grc
