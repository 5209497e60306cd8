#!/usr/bin/env bash
# check.sh - the client interop gate: every pinned client people run, over
# stdio and Streamable HTTP, against the demo server, compared with
# expected-failures.txt.
#
#   Go   harness/interop-go/<client>-<version>/   one module per pinned client
#        gosdk-v1.8.0    modern (default) and each classic version pinned
#        mcpgo-v0.34.0   offers 2025-03-26
#        mcpgo-v1.2.1    modern (default) and each classic version pinned
#   TS   harness/interop-clients/ts/sdk1.mjs      @modelcontextprotocol/sdk
#        1.0.4 (2024-11-05), 1.12.1 (2025-03-26), 1.32.2 (2025-11-25)
#   TS   harness/interop-clients/ts/fields.mjs     1.32.2 against the test
#        registry's fields part (every field the registry API offers),
#        served by go test -tags demo -run TestFieldsTypeScriptClient
#        (the test registry's part, in any build: the demo build's test
#        binary is the one CI has compiled already)
#   TS   the interop-ts harness (harness/interop-ts, or tools/interop-ts
#        before the rename), --client v2: @modelcontextprotocol/client 2.4.0
#        in every mode
#
# usage: harness/interop-clients/check.sh [--keep DIR] [--server BIN]
#   --keep DIR    leave the binaries, the raw output and the servers' stderr in DIR
#   --server BIN  test this demo binary (CGO_ENABLED=0 go build -tags demo)
#                 instead of building one: .ci/run builds it once for every check
#
# Prints every PASS/FAIL line, a table client x version x transport ->
# passed/run, the gate's verdict (UNEXPECTED FAIL, XPASS, STALE lines), the
# time taken, and last exactly "N passed, M failed".
# Exit status: 0 the gate holds; 1 a failure no line lists, a listed
# scenario that passes, or a line that matches nothing; 2 a bad
# expected-failures.txt or usage; 3 a build, install or runner failure.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HARNESS="$(cd "$HERE/.." && pwd)"
REPO="$(cd "$HARNESS/.." && pwd)"
LIST="$HERE/expected-failures.txt"
START=$SECONDS

# The scenarios call the demo's tools by name: a copy that deleted the
# demo (README, "Make it yours") has nothing for them to call.
if ! grep -qs '^func registerDemo(' "$REPO"/*.go; then
  echo "check.sh: skipped: the demo registry (registry_demo.go, registerDemo) is gone and the client scenarios call its tools by name"
  exit 0
fi

KEEP=""
SERVER=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) KEEP="${2:?--keep needs a directory}"; shift 2 ;;
    --server) SERVER="${2:?--server needs a binary}"; shift 2 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ -n "$KEEP" ]; then
  mkdir -p "$KEEP"
  WORK="$(cd "$KEEP" && pwd)"
else
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/baremcp-clients.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
fi
OUT="$WORK/results.txt"
LOG="$WORK/stderr.log"
: >"$OUT"
: >"$LOG"

die() {
  echo "check.sh: $*" >&2
  [ -s "$LOG" ] && tail -n 40 "$LOG" >&2
  exit 3
}

for tool in go node npm; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done

# ------------------------------------------------------------------ build --
# -tags demo selects the demo registry the scenarios need.
if [ -z "$SERVER" ]; then
  echo "check.sh: building baremcp (-tags demo)" >&2
  # CGO_ENABLED=0: a binary without cgo confines every one of its threads (confine_linux.go)
  (cd "$REPO" && CGO_ENABLED=0 go build -tags demo -o "$WORK/baremcp" .) >>"$LOG" 2>&1 || die "go build of baremcp failed"
  SERVER="$WORK/baremcp"
fi
[ -x "$SERVER" ] || die "$SERVER is not an executable"
SERVER="$(cd "$(dirname "$SERVER")" && pwd)/$(basename "$SERVER")"

GO_CLIENTS=()
for dir in "$HARNESS"/interop-go/*/; do
  name="$(basename "$dir")"
  [ "$name" = scenario ] && continue
  echo "check.sh: building the $name client" >&2
  (cd "$dir" && go build -o "$WORK/$name" .) >>"$LOG" 2>&1 || die "go build of $name failed"
  GO_CLIENTS+=("$name")
done

# npm ci unless node_modules already holds exactly the pinned versions.
ts_installed() {
  node -e '
    const fs = require("fs"), dir = process.argv[1];
    const lock = JSON.parse(fs.readFileSync(dir + "/package-lock.json"));
    for (const [path, p] of Object.entries(lock.packages)) {
      if (!path) continue;
      const got = JSON.parse(fs.readFileSync(dir + "/" + path + "/package.json")).version;
      if (got !== p.version) process.exit(1);
    }' "$1" 2>/dev/null
}
TS="$HERE/ts"
if ! ts_installed "$TS"; then
  echo "check.sh: npm ci in $TS" >&2
  (cd "$TS" && npm ci --no-audit --no-fund --loglevel=error) >>"$LOG" 2>&1 || die "npm ci in $TS failed"
fi

V2=""
for d in "$HARNESS/interop-ts" "$REPO/tools/interop-ts"; do
  if [ -x "$d/run.sh" ]; then V2="$d"; break; fi
done
[ -n "$V2" ] || die "no interop-ts harness (harness/interop-ts or tools/interop-ts)"

# -------------------------------------------------------------------- run --
# run LABEL CMD...: append CMD's scenario lines to OUT; exit 1 (failures)
# is a result, anything higher is a broken runner.
run() {
  local label="$1"
  shift
  local t0=$SECONDS rc=0
  echo "check.sh: running $label" >&2
  "$@" >"$WORK/$label.out" 2>>"$LOG" || rc=$?
  [ $rc -le 1 ] || { cat "$WORK/$label.out" >&2; die "$label exited $rc"; }
  grep -E '^(PASS|FAIL|SKIP) ' "$WORK/$label.out" >>"$OUT" || true
  echo "check.sh: $label: $(tail -n 1 "$WORK/$label.out") in $((SECONDS - t0)) s" >&2
}

for name in "${GO_CLIENTS[@]}"; do
  run "$name" "$WORK/$name" -server "$SERVER"
done
run tssdk node "$TS/sdk1.mjs" --server "$SERVER"
# The SDK 1.32.2 client against the test registry's fields part, which sets
# every field the registry API offers (fields_test.go serves it over HTTP
# and runs ts/fields.mjs): one 2025-11-25 session lists and calls every tool.
# The part is the same in every build; -tags demo, whose tests .ci/run
# compiles (and whose absence skips this whole check), saves a compile.
echo "check.sh: running tsfields (go test -tags demo -run TestFieldsTypeScriptClient)" >&2
(cd "$REPO" && go test -count=1 -tags demo -run 'TestFieldsTypeScriptClient$' -ts-fields "$TS/fields.mjs" -v .) >"$WORK/tsfields.out" 2>>"$LOG" || true
sed -n -E 's#^ +(PASS|FAIL) ([^ :]+)(.*)$#\1 tssdk-1.32.2-fields/http/\2\3#p' "$WORK/tsfields.out" >>"$OUT"
grep -q '^ *7 passed, 0 failed' "$WORK/tsfields.out" || { cat "$WORK/tsfields.out" >&2; echo "FAIL tssdk-1.32.2-fields/http/run: fields.mjs did not pass every step" >>"$OUT"; }
# The v2 harness names configurations v2-<mode>; prefix them with the
# client and its pinned version like every other row.
v2version="$(node -e 'console.log(require(process.argv[1]).dependencies["@modelcontextprotocol/client"])' "$V2/package.json")"
# The OAuth flow (oauth.mjs) is interop-ts's own check, not a row here.
run tsclient "$V2/run.sh" "$SERVER" --client v2 --no-oauth
sed -i -E "s#^(PASS|FAIL|SKIP) v2-#\1 tsclient-$v2version-#" "$OUT"

grep -E '^(PASS|FAIL) ' "$OUT" || true

# ------------------------------------------------------------------ table --
# A row per client-version-config/transport: passed/run. SKIP lines (a
# scenario the revision or the client does not define) are not counted.
echo
echo "client interop: scenarios passed / run"
awk '
  /^(PASS|FAIL) / {
    name = $2; sub(/:$/, "", name)
    split(name, part, "/")
    key = part[1] "\t" part[2]
    if (!(key in run)) order[n++] = key
    run[key]++
    if ($1 == "PASS") pass[key]++
  }
  END {
    printf "%-34s %-22s %-6s %s\n", "client", "config (offer)", "transport", "passed/run"
    for (i = 0; i < n; i++) {
      k = order[i]; split(k, f, "\t")
      id = f[1]
      # <family>-<version>-<config>: the version is the part with dots.
      if (match(id, /^[a-z]+-v?[0-9]+\.[0-9]+\.[0-9]+/)) {
        client = substr(id, 1, RLENGTH); cfg = substr(id, RLENGTH + 2)
      } else { client = id; cfg = "" }
      printf "%-34s %-22s %-9s %d/%d\n", client, cfg, f[2], pass[k] + 0, run[k]
    }
  }' "$OUT"

# ------------------------------------------------------------------- gate --
# shellcheck source=../gate.sh
. "$HARNESS/gate.sh"
grc=0
gate "$OUT" "$LIST" "client interop" "; $((SECONDS - START)) s" >"$WORK/gate.txt" || grc=$?
case $grc in
  3) die "the runners reported no scenarios" ;;
  1) cat "$WORK/gate.txt"
     if [ -s "$LOG" ]; then
       echo "check.sh: last lines of the servers' and clients' stderr:" >&2
       tail -n 20 "$LOG" >&2
     fi ;;
  *) cat "$WORK/gate.txt" ;;
esac
exit $grc
