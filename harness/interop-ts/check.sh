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

patterns=()
reasons=()
while IFS= read -r line || [ -n "$line" ]; do
  line="${line#"${line%%[![:space:]]*}"}"
  case "$line" in ''|'#'*) continue ;; esac
  pat="${line%%[[:space:]]*}"
  reason="${line#"$pat"}"
  reason="${reason#"${reason%%[![:space:]]*}"}"
  if [ -z "$reason" ]; then
    echo "check.sh: $LIST: no reason given for $pat" >&2
    exit 2
  fi
  patterns+=("$pat")
  reasons+=("$reason")
done <"$LIST"

passed=0
failed=0
broken=0
declare -A used=()
while IFS= read -r line; do
  status="${line%% *}"
  name="${line#* }"
  name="${name%%:*}"
  match=-1
  for i in "${!patterns[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    if [[ "$name" == ${patterns[$i]} ]]; then match=$i; break; fi
  done
  [ $match -ge 0 ] && used[$match]=1
  if [ "$status" = PASS ]; then
    passed=$((passed + 1))
    if [ $match -ge 0 ]; then
      broken=$((broken + 1))
      echo "XPASS  $name passes now but ${patterns[$match]} lists it: narrow or remove that line"
    fi
  else
    failed=$((failed + 1))
    if [ $match -lt 0 ]; then
      broken=$((broken + 1))
      echo "UNEXPECTED FAIL  ${line#FAIL }"
    fi
  fi
done < <(grep -E '^(PASS|FAIL) ' "$OUT")
for i in "${!patterns[@]}"; do
  if [ -z "${used[$i]:-}" ]; then
    broken=$((broken + 1))
    echo "STALE  ${patterns[$i]} matches no scenario: remove it (${reasons[$i]})"
  fi
done
if [ $((passed + failed)) -eq 0 ]; then
  cat "$OUT"
  echo "check.sh: run.sh reported no scenarios" >&2
  exit 3
fi
echo
echo "interop gate: $([ $broken -eq 0 ] && echo OK || echo "BROKEN ($broken unexpected result(s))"); expected failures listed in $(basename "$LIST")"
echo "$passed passed, $failed failed"
[ $broken -eq 0 ]
