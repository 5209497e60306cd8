#!/usr/bin/env bash
# check.sh - the demo's MCP App (the tally tool, registry_demo.go) rendered
# in headless Chromium through the official MCP Apps host bridge
# (@modelcontextprotocol/ext-apps), its button calling the tool through the
# host: check.mjs says how.
#
# usage: harness/apps/check.sh [--server BIN] [--screenshot FILE]
#   --server BIN  run this demo binary (go build -tags demo) instead of
#                 building one: .ci/run builds it once for every check
#
# Needs Go and Node; installs Debian's chromium with apt-get when it is
# missing (as root; CI runs as root) and the pinned npm packages with
# npm ci on first use. No browser is downloaded: playwright-core drives
# /usr/bin/chromium (or $CHROMIUM). Prints the steps and last exactly
# "N passed, M failed". Exit status: 0 the app works; 1 it does not; 3 a
# build or install failure. Skipped (exit 0) when the demo is gone.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
START=$SECONDS

if ! grep -qs '^func registerDemo(' "$REPO"/*.go; then
  echo "check.sh: skipped: the demo registry (registry_demo.go, registerDemo) is gone, and its MCP App with it"
  exit 0
fi
if ! grep -qs '"resourceUri"' "$REPO"/registry_demo.go; then
  echo "check.sh: skipped: no tool of the demo (registry_demo.go) links an MCP App view (_meta ui.resourceUri)"
  exit 0
fi

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "check.sh: $CHROMIUM is missing; install Debian's chromium package (apt-get install chromium) or set CHROMIUM" >&2
    exit 3
  fi
  echo "check.sh: installing chromium (apt-get)" >&2
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } >&2 ||
    { echo "check.sh: apt-get install chromium failed" >&2; exit 3; }
fi
export CHROMIUM

if [ ! -f "$HERE/node_modules/@modelcontextprotocol/ext-apps/package.json" ] || [ ! -f "$HERE/node_modules/playwright-core/package.json" ]; then
  echo "check.sh: installing the host bridge and playwright-core (npm ci) in $HERE" >&2
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >&2 || { echo "check.sh: npm ci failed" >&2; exit 3; }
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/baremcp-apps.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
SERVER=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --server) SERVER="${2:?--server needs a binary}"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$SERVER" ]; then
  (cd "$REPO" && go build -tags demo -o "$WORK/baremcp" .) >&2 || { echo "check.sh: go build -tags demo failed" >&2; exit 3; }
  SERVER="$WORK/baremcp"
fi

set +e
node "$HERE/check.mjs" --server "$SERVER" ${args[@]+"${args[@]}"} 2>"$WORK/stderr.log"
status=$?
set -e
if [ $status -ne 0 ]; then
  echo "check.sh: last lines of the server's and the page's stderr:" >&2
  tail -n 30 "$WORK/stderr.log" >&2
fi
echo "check.sh: $((SECONDS - START)) s" >&2
exit $status
