# gate.sh - the expected-failures gate the interop checks share, sourced
# by harness/interop-ts/check.sh and harness/interop-clients/check.sh.
#
#   . harness/gate.sh
#   gate RESULTS LIST LABEL [NOTE]
#
# RESULTS holds `PASS name` and `FAIL name: reason` lines (other lines are
# ignored); LIST holds one shell glob per line, `glob  reason`, with `#`
# comments. gate prints a line per broken expectation:
#   UNEXPECTED FAIL  a failure no glob lists
#   XPASS            a listed scenario that passes (narrow or remove the line)
#   STALE            a glob that matches nothing (remove it)
# then "LABEL gate: OK" or "LABEL gate: BROKEN (n unexpected result(s))",
# with NOTE appended, and last exactly "N passed, M failed".
# Returns 0 when the gate holds, 1 when it is broken, 2 on a list line
# without a reason, 3 when RESULTS holds no scenario at all. GATE_BROKEN
# is left set to the number of broken expectations.

gate() {
  local results="$1" list="$2" label="$3" note="${4:-}"
  local -a patterns=() reasons=()
  local line pat reason
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    case "$line" in ''|'#'*) continue ;; esac
    pat="${line%%[[:space:]]*}"
    reason="${line#"$pat"}"
    reason="${reason#"${reason%%[![:space:]]*}"}"
    if [ -z "$reason" ]; then
      echo "gate: $list: no reason given for $pat" >&2
      return 2
    fi
    patterns+=("$pat")
    reasons+=("$reason")
  done <"$list"

  local passed=0 failed=0 status name match i
  local -A used=()
  GATE_BROKEN=0
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
        GATE_BROKEN=$((GATE_BROKEN + 1))
        echo "XPASS  $name passes now but ${patterns[$match]} lists it: narrow or remove that line"
      fi
    else
      failed=$((failed + 1))
      if [ $match -lt 0 ]; then
        GATE_BROKEN=$((GATE_BROKEN + 1))
        echo "UNEXPECTED FAIL  ${line#FAIL }"
      fi
    fi
  done < <(grep -E '^(PASS|FAIL) ' "$results")
  for i in "${!patterns[@]}"; do
    if [ -z "${used[$i]:-}" ]; then
      GATE_BROKEN=$((GATE_BROKEN + 1))
      echo "STALE  ${patterns[$i]} matches no scenario: remove it (${reasons[$i]})"
    fi
  done
  if [ $((passed + failed)) -eq 0 ]; then
    echo "gate: $results reports no scenarios" >&2
    return 3
  fi
  echo
  echo "$label gate: $([ "$GATE_BROKEN" -eq 0 ] && echo OK || echo "BROKEN ($GATE_BROKEN unexpected result(s))"); expected failures listed in $(basename "$list")$note"
  echo "$passed passed, $failed failed"
  [ "$GATE_BROKEN" -eq 0 ]
}
