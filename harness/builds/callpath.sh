#!/usr/bin/env bash
# callpath.sh - the path of one warm modern tools/call (the demo's echo)
# through the code, over stdio and over Streamable HTTP (issue 39): the
# files it runs code in and the moves between them.
#
# Files: a -cover -covermode=count build of the product (the demo
# registry); one run serves two calls, another three, each call sent after
# the answer to the one before; the files with a block that the run of
# three executes more often than the run of two are the third call's
# (two such pairs, and the files both saw: see files below).
# Moves: the same build with every function (and function literal) of the
# package recording, on entry and on return, its file
# (harness/builds/callpath, a copy of the package instrumented so); a move
# is control passing to another file on the same goroutine: a call into a
# function of another file, or a return into one. The third call's moves
# are the run of three's minus the run of two's. A goroutine started in
# one file to run a function of another is not counted as a move.
#
# usage: harness/builds/callpath.sh [-v]
#   -v  also list the files of each path, with the blocks each runs
#
# Prints, per transport, the files and the moves; with -v, the files.
# Needs go, curl, bash's /dev/tcp and a free port 127.0.0.1:18931. Takes about a minute.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1
TMP="$(mktemp -d "${TMPDIR:-/tmp}/callpath.XXXXXX")"
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
export GOWORK=off CGO_ENABLED=0
PORT=18931

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
call() { printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"},%s}}' "$1" "$META"; }

# stdio N BIN ENV...: N calls over stdio, each after the answer before.
stdio() {
  local n="$1" bin="$2"; shift 2
  coproc SRV { env "$@" "$bin" -confine=off 2>/dev/null; }
  local i line
  for i in $(seq 1 "$n"); do
    call "$i" >&"${SRV[1]}"; echo >&"${SRV[1]}"
    IFS= read -r line <&"${SRV[0]}"
    case "$line" in *'"result"'*) ;; *) echo "callpath: stdio call $i: $line" >&2; exit 1 ;; esac
  done
  exec {SRV[1]}>&-
  wait "$SRV_PID"
}

# http N BIN ENV...: N calls over HTTP, one connection each (curl), each
# after the answer before.
http() {
  local n="$1" bin="$2"; shift 2
  env "$@" "$bin" -confine=off -http "127.0.0.1:$PORT" 2>/dev/null </dev/null &
  local pid=$! i
  for i in $(seq 1 100); do
    # One connection once it listens, whatever the start-up took: a
    # refused connect never reaches the server.
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.05
  done
  for i in $(seq 1 "$n"); do
    curl -s -f -X POST "http://127.0.0.1:$PORT/mcp" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
      -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' --data "$(call "$i")" | grep -q '"result"' \
      || { echo "callpath: http call $i failed" >&2; kill "$pid"; exit 1; }
  done
  kill -TERM "$pid"
  wait "$pid" || true
}

echo "building (cover and instrumented copies of $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- '*.go' || echo '+changes'))" >&2
(cd "$ROOT" && go build -cover -covermode=count -o "$TMP/cover" .)
(cd "$ROOT" && go build -cover -covermode=count -tags stdio -o "$TMP/cover-stdio" .)
mkdir -p "$TMP/src" "$TMP/src-stdio"
(cd "$HERE/callpath" && go build -o "$TMP/callpath" .)
"$TMP/callpath" instrument "$ROOT" "$TMP/src" ""
"$TMP/callpath" instrument "$ROOT" "$TMP/src-stdio" "stdio"
# and the files each build embeds (//go:embed), at their paths
for b in src: src-stdio:stdio; do
  (cd "$ROOT" && go list -tags "${b#*:}" -f '{{range .EmbedFiles}}{{.}}{{"\n"}}{{end}}' . | while IFS= read -r f; do
    mkdir -p "$TMP/${b%%:*}/$(dirname "$f")" && cp "$f" "$TMP/${b%%:*}/$f"
  done)
done
(cd "$TMP/src" && go build -o "$TMP/traced" .)
(cd "$TMP/src-stdio" && go build -tags stdio -o "$TMP/traced-stdio" .)

# files T BIN: the files whose blocks run more in the run of three, in
# each of two pairs of runs: a block that timing alone runs (the log
# writer taking two lines in one write, or one each) is left out.
files() {
  local t="$1" bin="$2" n k
  for k in a b; do
    for n in 2 3; do
      mkdir -p "$TMP/cov-$t-$n$k"
      "$t" "$n" "$bin" GOCOVERDIR="$TMP/cov-$t-$n$k"
      go tool covdata textfmt -i="$TMP/cov-$t-$n$k" -o "$TMP/cov-$t-$n$k.txt"
    done
    # mode line dropped; key: block; value: count.
    awk 'FNR==1{next} FILENAME==ARGV[1]{c2[$1]=$3; next} {if ($3 > c2[$1]+0) print $1}' \
      "$TMP/cov-$t-2$k.txt" "$TMP/cov-$t-3$k.txt" | sed 's/:.*//; s|^baremcp/||' | sort | uniq -c | sort -k2 >"$TMP/files-$t-$k"
  done
  awk 'FILENAME==ARGV[1]{seen[$2]=1; next} seen[$2]' "$TMP/files-$t-a" "$TMP/files-$t-b" >"$TMP/files-$t"
}

# moves T BIN: the third call's moves.
moves() {
  local t="$1" bin="$2" n
  for n in 2 3; do
    "$t" "$n" "$bin" CALLPATH_TRACE="$TMP/trace-$t-$n"
  done
  "$TMP/callpath" moves "$TMP/trace-$t-2" "$TMP/trace-$t-3" | sed 's/^moves //'
}

for t in stdio http; do
  if [ "$t" = stdio ]; then files "$t" "$TMP/cover-stdio"; m=$(moves "$t" "$TMP/traced-stdio")
  else files "$t" "$TMP/cover"; m=$(moves "$t" "$TMP/traced"); fi
  printf '%-6s files %3d  moves %4d\n' "$t" "$(wc -l <"$TMP/files-$t")" "$m"
  if [ "$VERBOSE" = 1 ]; then
    awk '{printf "    %-28s %d blocks\n", $2, $1}' "$TMP/files-$t"
  fi
done
