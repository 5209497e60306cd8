#!/usr/bin/env bash
# check.sh - an MCP App rendered in headless Chromium through the official
# MCP Apps host bridge (@modelcontextprotocol/ext-apps): by default the
# demo's (the tally tool, registry_demo.go, built with -tags demo), its
# button calling the tool through the host; with --tool, a view of your
# own, from your server as go build builds it (or with --tags). check.mjs
# says what is checked.
#
# usage: harness/apps/check.sh [--tool NAME [--args JSON] [--tags TAGS]] [--server BIN] [--screenshot FILE]
#   --tool NAME    the tool whose view to render (its _meta.ui.resourceUri)
#   --args JSON    the arguments it is called with (default {})
#   --tags TAGS    build tags of your server's build (default none)
#   --server BIN   run this binary of that build instead of building one
#                  (.ci/run builds the demo once for every check)
#   --screenshot   write what the host shows to FILE (a PNG), to look at
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

tool="" args="" tags="" server="" pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool="$2"; shift ;;
    --server) server="$2"; shift ;;
    --args) args="$2"; shift ;;
    --tags) tags="$2"; shift ;;
    --screenshot) pass+=(--screenshot "$2"); shift ;;
    *) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if [ -z "$tool" ] && ! grep -qs '^func registerDemo(' "$REPO"/*.go; then
  echo "check.sh: skipped: the demo registry (registry_demo.go, registerDemo) is gone, and its MCP App with it"
  exit 0
fi
if [ -z "$tool" ] && ! grep -qs '"resourceUri"' "$REPO"/registry_demo.go; then
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
if [ -z "$tool" ]; then
  tags=demo
else
  pass+=(--tool "$tool" --args "${args:-{\}}")
fi
if [ -n "$server" ]; then
  cp "$server" "$WORK/server"
else
  (cd "$REPO" && go build -tags "$tags" -o "$WORK/server" .) >&2 || { echo "check.sh: go build -tags '$tags' failed" >&2; exit 3; }
fi

# render SERVER ARGS...: check.mjs on SERVER; its status.
render() {
  local server="$1" status
  shift
  set +e
  node "$HERE/check.mjs" --server "$server" "$@" 2>"$WORK/stderr.log"
  status=$?
  set -e
  if [ $status -ne 0 ]; then
    echo "check.sh: last lines of the server's and the page's stderr:" >&2
    tail -n 30 "$WORK/stderr.log" >&2
  fi
  return $status
}

# recipe_block NAME: the fenced block after <!-- app-recipe: NAME --> in
# README.md.
recipe_block() {
  awk -v m="<!-- app-recipe: $1 -->" '$0 == m {f = 1; next} f && /^```/ {if (g) exit; g = 1; next} g {print}' "$REPO/README.md"
}

status=0
render "$WORK/server" "${pass[@]}" || status=$?

# README's MCP App recipe ("Make it yours"), by default and in the baremcp
# project only (a copy's README is its own): on a copy renamed as Make it
# yours does, the recipe's registrations go into buildRegistry and its
# view beside them, and the view must show the tool's result.
if [ -z "$tool" ] && [ "$(cd "$REPO" && GOWORK=off go list -m)" = baremcp ] && [ -n "$(recipe_block view)" ]; then
  copy="$WORK/copy"
  "$REPO/harness/make-it-yours/check.sh" -renamed "$copy" >"$WORK/renamed.log" 2>&1 ||
    { echo "check.sh: harness/make-it-yours/check.sh -renamed failed:" >&2; tail -20 "$WORK/renamed.log" >&2; exit 3; }
  recipe_block buildRegistry >"$WORK/register.go"
  awk -v reg="$WORK/register.go" '$0 == "\treturn func() {}" { while ((getline l < reg) > 0) print "\t" l } { print }' \
    "$copy/registry_shouter.go" >"$WORK/registry.go"
  { cat "$WORK/registry.go"; echo; recipe_block view; } >"$copy/registry_shouter.go"
  grep -q shout_card "$copy/registry_shouter.go" || { echo "check.sh: README's recipe did not go into registry_shouter.go" >&2; exit 3; }
  (cd "$copy" && GOWORK=off go build -o "$WORK/shouter-app" .) >&2 || { echo "check.sh: README's MCP App recipe does not build" >&2; exit 1; }
  echo "README's MCP App recipe, on a copy renamed shouter:"
  render "$WORK/shouter-app" --tool shout_card --args '{"text":"hello"}' --expect HELLO || status=$?
fi
echo "check.sh: $((SECONDS - START)) s" >&2
exit $status
