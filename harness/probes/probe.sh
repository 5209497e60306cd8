#!/usr/bin/env bash
# probe.sh - raw probes: send baremcp the requests a well-behaved client
# never would, record every answer, and compare with the committed record.
#
# usage: harness/probes/probe.sh [--update] [BINARY]
#
# Builds the demo from the repository (go build -tags demo into a temp
# dir) unless BINARY is given: the probes call the demo's tools by name
# (echo, add), and the demo stays buildable with -tags demo after a copy
# of the repository takes it out of its product binary. When the demo
# registry is gone (no registry_demo.go defining registerDemo), it prints
# one line saying the probes are skipped and exits 0. Then:
#   - stdio: one fresh process per probe, lines piped in one at a time,
#     every line it writes recorded;
#   - HTTP: starts `BINARY -http 127.0.0.1:0` (a free loopback port the
#     server picks and logs) and sends each probe with curl, recording
#     the status, the headers that carry meaning (Content-Type, Allow,
#     Mcp-Session-Id, CORS, WWW-Authenticate) and the body.
# The record goes to harness/probes/last-run.txt (not committed) and is
# compared with harness/probes/expected.txt (committed). The port is written
# as PORT, session ids as SESSION, the server's name (in serverInfo and
# at the start of instructions) as SERVER and its version (serverInfo, the
# build's: "(devel)" or a pseudo-version) as VERSION, so runs compare
# equal, also in a copy that renamed the server.
#
# Exit status: 0 the answers are the expected ones; 1 they differ (the diff
# is printed: a change of behaviour is either a regression or, when
# intended, a reason to run --update and commit expected.txt together with
# the change, and to re-check docs/GAPS.md); 3 setup failed.
#
# Needs go (unless BINARY), curl.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
UPDATE=0
BIN=""
while [ $# -gt 0 ]; do
  case "$1" in
    --update) UPDATE=1 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "probe.sh: unknown option $1" >&2; exit 2 ;;
    *) BIN="$1" ;;
  esac
  shift
done
if [ -z "$BIN" ] && ! grep -qs '^func registerDemo(' "$ROOT"/*.go; then
  echo "probe.sh: skipped: the demo registry (registry_demo.go, registerDemo) is gone and the probes call its tools by name"
  exit 0
fi
command -v curl >/dev/null 2>&1 || { echo "probe.sh: curl is not installed" >&2; exit 3; }

TMP="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

if [ -z "$BIN" ]; then
  # CGO_ENABLED=0: a binary without cgo confines every one of its threads (confine_linux.go)
  (cd "$ROOT" && CGO_ENABLED=0 go build -tags demo -o "$TMP/baremcp" .) || { echo "probe.sh: go build -tags demo failed" >&2; exit 3; }
  BIN="$TMP/baremcp"
fi

OUT="$HERE/last-run.txt"
: >"$OUT"
rec() { printf '%s\n' "$@" >>"$OUT"; }

V=2026-07-28
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
init_body() { # VERSION
  printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}' "$1"
}
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# ------------------------------------------------------------------ stdio --

# stdio NAME LINE... : pipe the lines into a fresh process, one every
# STDIO_PACE seconds, and record what it writes. The server handles
# requests concurrently, so a line sent before the previous one's answer
# could be served first; the pause (far longer than any of these takes)
# keeps the record in request order, as a client waiting for each answer
# would see it.
STDIO_PACE=0.2
stdio() {
  local name="$1"
  shift
  rec "=== stdio: $name"
  local l
  for l in "$@"; do rec "> $l"; done
  { for l in "$@"; do printf '%s\n' "$l"; sleep "$STDIO_PACE"; done; } |
    timeout 10 "$BIN" 2>/dev/null | sed 's/^/< /' >>"$OUT" || rec "< (exit status $?)"
  rec ""
}

for v in 2025-11-25 2025-06-18 2025-03-26 2024-11-05; do
  stdio "initialize $v" "$(init_body $v)"
done
stdio "initialize with an unknown version (counter-offer)" "$(init_body 1999-01-01)"
stdio "initialize with a non-string version" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":20251125,"capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}'
stdio "initialize carrying modern _meta" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"probe\",\"version\":\"1\"},$META}}"
stdio "second initialize" "$(init_body 2025-11-25)" "$INITIALIZED" '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}'
stdio "operation before initialize, no _meta" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
stdio "ping before initialize" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
stdio "modern ping (removed in 2026-07-28)" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{$META}}"
stdio "server/discover inside a legacy session" "$(init_body 2025-11-25)" "$INITIALIZED" '{"jsonrpc":"2.0","id":2,"method":"server/discover"}'
stdio "modern request inside a legacy session" "$(init_body 2025-11-25)" "$INITIALIZED" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{$META}}"
stdio "unsupported modern version" '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}'
stdio "_meta without clientCapabilities" '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}'
stdio "batch" "[$(init_body 2025-11-25),{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]"
stdio "empty batch" '[]'
PING2='{"jsonrpc":"2.0","id":2,"method":"ping"}'
ECHO3='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}'
PINGS65="[$(seq 100 164 | sed 's/.*/{"jsonrpc":"2.0","id":&,"method":"ping"}/' | paste -sd, -)]"
stdio "batch in a 2025-03-26 session" "$(init_body 2025-03-26)" "[$INITIALIZED,$PING2,$ECHO3]"
stdio "batch of notifications only in a 2025-03-26 session" "$(init_body 2025-03-26)" "[$INITIALIZED,{\"jsonrpc\":\"2.0\",\"method\":\"notifications/nope\"}]" "$PING2"
stdio "batch containing initialize in a 2025-03-26 session" "$(init_body 2025-03-26)" "[$(init_body 2025-03-26),$PING2]"
stdio "empty batch in a 2025-03-26 session" "$(init_body 2025-03-26)" '[]' "$PING2"
stdio "batch of 65 in a 2025-03-26 session" "$(init_body 2025-03-26)" "$PINGS65" "$PING2"
stdio "batch in a 2025-11-25 session" "$(init_body 2025-11-25)" "[$PING2]"
stdio "not JSON" '{"jsonrpc":"2.0","id":1,'
stdio "duplicate key" '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}'
stdio "case-folded key" '{"jsonrpc":"2.0","id":1,"Method":"ping"}'
stdio "object id" '{"jsonrpc":"2.0","id":{},"method":"ping"}'
stdio "null id" '{"jsonrpc":"2.0","id":null,"method":"ping"}'
stdio "jsonrpc 1.0" '{"jsonrpc":"1.0","id":1,"method":"ping"}'
stdio "unsolicited response" '{"jsonrpc":"2.0","id":99,"result":{}}'
stdio "unknown notification" '{"jsonrpc":"2.0","method":"notifications/nope"}'

# ------------------------------------------------------------------- HTTP --

# The server takes a free port itself (-http 127.0.0.1:0) and logs it:
# a port chosen here could be taken, before the server binds it, by
# another process's connection (CI runs checks beside each other).
"$BIN" -http "127.0.0.1:0" 2>"$TMP/server.log" &
SERVER_PID=$!
PORT=""
for i in $(seq 1 100); do
  PORT="$(sed -n 's#.*msg="serving Streamable HTTP" url=http://127\.0\.0\.1:\([0-9][0-9]*\)/.*#\1#p' "$TMP/server.log" | head -n 1)"
  [ -n "$PORT" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    cat "$TMP/server.log" >&2
    echo "probe.sh: the server exited" >&2
    exit 3
  fi
  sleep 0.1
done
[ -n "$PORT" ] || { cat "$TMP/server.log" >&2; echo "probe.sh: the server did not say where it serves" >&2; exit 3; }
URL="http://127.0.0.1:$PORT/mcp"

# http NAME METHOD PATH BODY [curl -H args...] : one request, recorded.
# Headers are given exactly; curl's defaults (Accept, Content-Type) are
# removed unless the probe sets them.
SESSION=""
MINTED="no session minted yet" # the last session id a probe keeps, written SESSION
http() {
  local name="$1" method="$2" path="$3" body="$4"
  shift 4
  local args=(-s -m 10 -X "$method" -D "$TMP/h" -o "$TMP/b" -H 'Accept:' -H 'Content-Type:' -H 'User-Agent:')
  local h
  for h in "$@"; do args+=(-H "$h"); done
  [ -n "$body" ] && args+=(--data-binary "$body")
  rec "=== http: $name"
  rec "> $method $path"
  for h in "$@"; do rec "> ${h/#Mcp-Session-Id: $MINTED/Mcp-Session-Id: SESSION}"; done
  [ -n "$body" ] && rec "> ${body:0:300}"
  : >"$TMP/h"
  : >"$TMP/b"
  if ! curl "${args[@]}" "http://127.0.0.1:$PORT$path"; then
    rec "< (no answer)"
    rec ""
    return 0
  fi
  SESSION="$(tr -d '\r' <"$TMP/h" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p' | tail -n1)"
  tr -d '\r' <"$TMP/h" | awk 'NR==1 || tolower($0) ~ /^(content-type|allow|mcp-session-id|www-authenticate|access-control-[a-z-]*):/' |
    sed -E 's/^([Mm]cp-[Ss]ession-[Ii]d:).*/\1 SESSION/' | sed 's/^/< /' >>"$OUT"
  sed 's/^/< /' "$TMP/b" >>"$OUT"
  [ -s "$TMP/b" ] && [ -n "$(tail -c1 "$TMP/b")" ] && rec ""
  rec ""
}

CT='Content-Type: application/json'
ACC='Accept: application/json, text/event-stream'
PV="MCP-Protocol-Version: $V"
modern() { # METHOD [PARAMS-MEMBERS]: a modern request body
  local p="${2:-}"
  [ -n "$p" ] && p="$p,"
  printf '{"jsonrpc":"2.0","id":1,"method":"%s","params":{%s%s}}' "$1" "$p" "$META"
}
DISCOVER="$(modern server/discover)"
TOOLS_LIST="$(modern tools/list)"

http "discover (well formed)" POST /mcp "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"
for v in 2025-11-25 2025-06-18 2025-03-26 2024-11-05; do
  http "initialize $v" POST /mcp "$(init_body $v)" "$CT" "$ACC"
done
http "initialize with an unknown version" POST /mcp "$(init_body 1999-01-01)" "$CT" "$ACC"
http "initialize with MCP-Protocol-Version and Mcp-Method headers" POST /mcp "$(init_body 2025-11-25)" "$CT" "$ACC" "MCP-Protocol-Version: 2025-11-25" "Mcp-Method: initialize"
http "initialize carrying modern _meta" POST /mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"probe\",\"version\":\"1\"},$META}}" "$CT" "$ACC" "$PV" "Mcp-Method: initialize"
http "operation before initialize, no _meta, no headers" POST /mcp '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "$CT" "$ACC"
http "legacy request with an unknown session" POST /mcp '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "$CT" "$ACC" "MCP-Protocol-Version: 2025-11-25" "Mcp-Session-Id: no-such-session"
http "unsupported version (header and _meta)" POST /mcp '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}' "$CT" "$ACC" "MCP-Protocol-Version: v999.0.0" "Mcp-Method: server/discover"
http "_meta without protocolVersion" POST /mcp '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}' "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"
http "missing MCP-Protocol-Version header" POST /mcp "$TOOLS_LIST" "$CT" "$ACC" "Mcp-Method: tools/list"
http "MCP-Protocol-Version differs from _meta" POST /mcp "$TOOLS_LIST" "$CT" "$ACC" "MCP-Protocol-Version: 2025-11-25" "Mcp-Method: tools/list"
http "missing Mcp-Method" POST /mcp "$TOOLS_LIST" "$CT" "$ACC" "$PV"
http "Mcp-Method differs from body" POST /mcp "$TOOLS_LIST" "$CT" "$ACC" "$PV" "Mcp-Method: prompts/list"
http "Mcp-Method differs in case only" POST /mcp "$TOOLS_LIST" "$CT" "$ACC" "$PV" "Mcp-Method: TOOLS/LIST"
http "Mcp-Method twice" POST /mcp "$TOOLS_LIST" "$CT" "$ACC" "$PV" "Mcp-Method: tools/list" "Mcp-Method: tools/list"
ECHO="$(modern tools/call '"name":"echo","arguments":{"message":"hi"}')"
http "tools/call without Mcp-Name" POST /mcp "$ECHO" "$CT" "$ACC" "$PV" "Mcp-Method: tools/call"
http "tools/call with a wrong Mcp-Name" POST /mcp "$ECHO" "$CT" "$ACC" "$PV" "Mcp-Method: tools/call" "Mcp-Name: add"
http "tools/call (well formed)" POST /mcp "$ECHO" "$CT" "$ACC" "$PV" "Mcp-Method: tools/call" "Mcp-Name: echo"
# The tasks extension (SEP-2663): ids the server never issued.
TASKS_META='"_meta":{"io.modelcontextprotocol/protocolVersion":"'"$V"'","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}'
task_get() { printf '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"%s",%s}}' "$1" "$2"; }
http "tasks/get without declaring the extension" POST /mcp "$(task_get gate-test "$META")" "$CT" "$ACC" "$PV" "Mcp-Method: tasks/get" "Mcp-Name: gate-test"
http "tasks/get of an unknown task" POST /mcp "$(task_get no-such-task "$TASKS_META")" "$CT" "$ACC" "$PV" "Mcp-Method: tasks/get" "Mcp-Name: no-such-task"
http "tasks/get with a wrong Mcp-Name" POST /mcp "$(task_get no-such-task "$TASKS_META")" "$CT" "$ACC" "$PV" "Mcp-Method: tasks/get" "Mcp-Name: another-task"
LONG_ID="$(head -c 1000 /dev/zero | tr '\0' 'A')"
http "tasks/get of a 1 kB task id" POST /mcp "$(task_get "$LONG_ID" "$TASKS_META")" "$CT" "$ACC" "$PV" "Mcp-Method: tasks/get" "Mcp-Name: $LONG_ID"
http "tasks/result (removed)" POST /mcp '{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"x",'"$TASKS_META"'}}' "$CT" "$ACC" "$PV" "Mcp-Method: tasks/result"
http "hostile Host" POST /mcp "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover" "Host: evil.example.com"
http "hostile Origin" POST /mcp "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover" "Origin: http://evil.example.com"
http "hostile Host and Origin, legacy initialize" POST /mcp "$(init_body 2025-11-25)" "$CT" "$ACC" "Host: evil.example.com" "Origin: http://evil.example.com"
http "Origin null" POST /mcp "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover" "Origin: null"
http "own Origin" POST /mcp "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover" "Origin: http://127.0.0.1:$PORT"
http "cross-site fetch metadata" POST /mcp "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover" "Sec-Fetch-Site: cross-site"
http "CORS preflight from a foreign origin" OPTIONS /mcp "" "Origin: http://evil.example.com" "Access-Control-Request-Method: POST"
http "batch body" POST /mcp "[$DISCOVER,$TOOLS_LIST]" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"
http "initialize 2025-03-26, kept for the probes after it" POST /mcp "$(init_body 2025-03-26)" "$CT" "$ACC"
MINTED="$SESSION"
http "batch in a 2025-03-26 session" POST /mcp "[$INITIALIZED,$PING2,$ECHO3]" "$CT" "$ACC" "Mcp-Session-Id: $MINTED"
http "batch of notifications only in a 2025-03-26 session" POST /mcp "[$INITIALIZED]" "$CT" "$ACC" "Mcp-Session-Id: $MINTED"
http "batch containing initialize in a 2025-03-26 session" POST /mcp "[$(init_body 2025-03-26),$PING2]" "$CT" "$ACC" "Mcp-Session-Id: $MINTED"
http "empty batch in a 2025-03-26 session" POST /mcp '[]' "$CT" "$ACC" "Mcp-Session-Id: $MINTED"
http "batch of 65 in a 2025-03-26 session" POST /mcp "$PINGS65" "$CT" "$ACC" "Mcp-Session-Id: $MINTED"
http "2025-03-26 session request with another served version's header" POST /mcp "$PING2" "$CT" "$ACC" "Mcp-Session-Id: $MINTED" "MCP-Protocol-Version: 2025-11-25"
http "2025-03-26 session request with an unknown version header" POST /mcp "$PING2" "$CT" "$ACC" "Mcp-Session-Id: $MINTED" "MCP-Protocol-Version: 2024-10-07"
http "initialize 2025-11-25, kept for the probes after it" POST /mcp "$(init_body 2025-11-25)" "$CT" "$ACC"
MINTED="$SESSION"
http "batch in a 2025-11-25 session" POST /mcp "[$PING2]" "$CT" "$ACC" "Mcp-Session-Id: $MINTED"
http "not JSON" POST /mcp '{"jsonrpc":"2.0","id":1,' "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"
http "empty body" POST /mcp "" "$CT" "$ACC" "$PV"
http "duplicate key" POST /mcp '{"jsonrpc":"2.0","id":1,"id":2,"method":"server/discover","params":{}}' "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"
http "Content-Type text/plain" POST /mcp "$DISCOVER" "Content-Type: text/plain" "$ACC" "$PV" "Mcp-Method: server/discover"
http "no Content-Type" POST /mcp "$DISCOVER" "$ACC" "$PV" "Mcp-Method: server/discover"
http "Accept application/json only" POST /mcp "$DISCOVER" "$CT" "Accept: application/json" "$PV" "Mcp-Method: server/discover"
http "no Accept" POST /mcp "$DISCOVER" "$CT" "$PV" "Mcp-Method: server/discover"
http "unknown method" POST /mcp "$(modern nope/nope)" "$CT" "$ACC" "$PV" "Mcp-Method: nope/nope"
http "modern ping (removed)" POST /mcp "$(modern ping)" "$CT" "$ACC" "$PV" "Mcp-Method: ping"
http "notification" POST /mcp '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}' "$CT" "$ACC" "$PV" "Mcp-Method: notifications/cancelled"
http "unsolicited response" POST /mcp '{"jsonrpc":"2.0","id":7,"result":{}}' "$CT" "$ACC" "$PV"
http "GET (no stream)" GET /mcp "" "Accept: text/event-stream" "$PV"
http "DELETE (no session)" DELETE /mcp "" "$PV" "Mcp-Session-Id: no-such-session"
http "other path" POST /other "$DISCOVER" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"
http "healthz with hostile Host and Origin" GET /healthz "" "Host: evil.example.com" "Origin: http://evil.example.com"
http "readyz" GET /readyz ""
http "POST readyz" POST /readyz "$DISCOVER" "$CT"
head -c $((4 << 20)) /dev/zero | tr '\0' ' ' >"$TMP/big"
printf '%s' "$DISCOVER" >>"$TMP/big"
http "body over -max-body (4 MiB)" POST /mcp "@$TMP/big" "$CT" "$ACC" "$PV" "Mcp-Method: server/discover"

# ---------------------------------------------------------------- compare --
# The server's name (serverInfo, and the demo's instructions, which open
# with it) is written SERVER.
NAME="$(sed -n 's/.*serverInfo":{"name":"\([^"]*\)".*/\1/p' "$OUT" | head -n 1 | sed 's/[][\.*^$/+?(){}|]/\\&/g')"
sed -i -E "s/$PORT/PORT/g; s#$TMP/big#BIGFILE#g; s/(serverInfo\":\{\"name\":\")[^\"]*(\",\"version\":\")[^\"]*/\1SERVER\2VERSION/g" "$OUT"
[ -z "$NAME" ] || sed -i -E "s/(\"instructions\":\")$NAME /\1SERVER /g" "$OUT"
if [ "$UPDATE" = 1 ]; then
  cp "$OUT" "$HERE/expected.txt"
  echo "probe.sh: wrote $HERE/expected.txt ($(grep -c '^===' "$OUT") probes)"
  exit 0
fi
if [ ! -f "$HERE/expected.txt" ]; then
  echo "probe.sh: no expected.txt; run with --update to create it" >&2
  exit 1
fi
if diff -u "$HERE/expected.txt" "$OUT"; then
  echo "probe.sh: $(grep -c '^===' "$OUT") probes, answers as expected"
  exit 0
fi
echo "probe.sh: answers differ from harness/probes/expected.txt (above). If intended, run harness/probes/probe.sh --update, review and commit expected.txt, and re-check docs/GAPS.md." >&2
exit 1
