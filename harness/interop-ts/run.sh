#!/usr/bin/env bash
# run.sh - interop test of baremcp against the official TypeScript MCP clients
# (@modelcontextprotocol/client 2.x and @modelcontextprotocol/sdk 1.x, pinned in
# package.json): every scenario in interop.mjs, for each client configuration
# (v2 pinned 2026-07-28, v2 auto, v2 default/legacy at 2025-11-25, 2025-06-18,
# 2024-11-05, v1 at 2025-11-25) x transport (stdio, Streamable HTTP on a free
# loopback port).
#
# usage: run.sh ['SERVER COMMAND'] [interop.mjs options...]
#   SERVER COMMAND  how to start the server on stdio, e.g. './baremcp' or
#                   'go run /work/main' (one argument; quote it). HTTP runs append
#                   '-http 127.0.0.1:{port}' (change with --http-args). Default:
#                   build the demo from the repository root (two levels up)
#                   with `go build -tags demo -o` into a temp dir and run that:
#                   the scenarios call the demo's tools, resources and prompts
#                   by name, and -tags demo still builds them after a copy of
#                   the repository takes the demo out of its product binary.
#                   When the demo registry is gone (no registry_demo.go
#                   defining registerDemo), print one line saying the run is
#                   skipped and exit 0.
#   options         passed to interop.mjs: --transport stdio|http|all,
#                   --client v1|v2|all, --config REGEX, --only REGEX,
#                   --timeout-ms N, --trace FILE, --http-args ARGS, --path P;
#                   and --no-oauth (run.sh's own) to leave out oauth.mjs
# Then oauth.mjs: the OAuth 2.1 flow (issue 12) through the same clients
# against a local authorization server (testas.mjs): the demo started with
# -oauth-issuer, client_credentials and scripted authorization_code + PKCE,
# both eras, 403 step-up; HTTP only.
# Output: one `PASS name` / `FAIL name: reason` line per scenario, and each
# program's `N passed, M failed` (oauth.mjs's last). Exit 0 when all passed, 1 on failures, 2 bad
# usage, 3 setup (npm/go build) failure.

set -u -o pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

SERVER=""
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  SERVER="$1"
  shift
fi
OAUTH=1
args=()
for a in "$@"; do
  if [ "$a" = --no-oauth ]; then OAUTH=0; else args+=("$a"); fi
done
set -- ${args[@]+"${args[@]}"}
if [ -z "$SERVER" ] && ! grep -qs '^func registerDemo(' "$REPO"/*.go; then
  echo "run.sh: skipped: the demo registry (registry_demo.go, registerDemo) is gone and the interop scenarios call its tools by name"
  exit 0
fi

# ---------------------------------------------------------------- install --
installed() {
  [ -f "$HERE/node_modules/@modelcontextprotocol/client/package.json" ] &&
    [ -f "$HERE/node_modules/@modelcontextprotocol/sdk/package.json" ] &&
    node -e '
      const fs = require("fs");
      const want = require(process.argv[1] + "/package.json").dependencies;
      for (const [name, v] of Object.entries(want)) {
        const got = JSON.parse(fs.readFileSync(process.argv[1] + "/node_modules/" + name + "/package.json")).version;
        if (got !== v) process.exit(1);
      }' "$HERE" 2>/dev/null
}

if ! command -v node >/dev/null 2>&1; then
  echo "run.sh: node is not installed (need Node.js >= 20)" >&2
  exit 3
fi
if ! installed; then
  echo "run.sh: installing the pinned clients (npm ci) in $HERE" >&2
  if ! (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >&2; then
    echo "run.sh: npm ci failed" >&2
    exit 3
  fi
fi

# ------------------------------------------------------------------ build --
TMP=""
cleanup() { [ -n "$TMP" ] && rm -rf "$TMP"; }
trap cleanup EXIT

if [ -z "$SERVER" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "run.sh: go is not installed; pass a server command instead" >&2
    exit 3
  fi
  TMP="$(mktemp -d "${TMPDIR:-/tmp}/baremcp-interop.XXXXXX")"
  echo "run.sh: building the demo (go build -tags demo) $REPO -> $TMP/baremcp" >&2
  # CGO_ENABLED=0: a binary without cgo confines every one of its threads (confine_linux.go)
  if ! (cd "$REPO" && CGO_ENABLED=0 go build -tags demo -o "$TMP/baremcp" .) >&2; then
    echo "run.sh: go build -tags demo failed" >&2
    exit 3
  fi
  SERVER="$TMP/baremcp"
fi

# -------------------------------------------------------------------- run --
# interop.mjs: the MCP surface; oauth.mjs: the OAuth flow of the resource
# server (HTTP only), each printing its own summary line.
cd "$HERE" || exit 3
rc=0
node "$HERE/interop.mjs" --server "$SERVER" "$@" || rc=$?
if [ $OAUTH = 1 ]; then
  node "$HERE/oauth.mjs" --server "$SERVER" "$@" || { r=$?; [ $r -gt $rc ] && rc=$r; }
fi
exit $rc
