#!/usr/bin/env bash
# run.sh: build baremcp with -tags bench and measure it against the physical
# floor with the benchmark harness (harness/bench/harness, a verbatim copy of
# ../shared/tools/bench), then print one table of medians and ratios.
#
#   harness/bench/run.sh [HARNESS_OPTIONS...]     e.g. --pin, --rounds 5
#
# Presets (see issue 8 for the targets):
#   stdio, stdio-legacy        stdio, k=1 and k=32, against the floor's line echo
#   http, http-legacy          HTTP, c=1/8/64, against a bare net/http handler
#   list                       tools/list with 20 and 1000 tools (HTTP)
#   payload                    1 KiB and 1 MiB echo, against the floor echoing
#                              the request body (FLOOR_HTTP=echo), and the
#                              1 MiB echo over stdio against the line echo
# and the rows of issue 28 the harness does not measure (harness/bench/rows):
#   cold start                 start, answer one server/discover on stdio,
#                              exit: the stripped product and its stdio build
#                              (-tags stdio) against a minimal Go program doing
#                              the same, 40 starts each, alternated
#   binary size                the stripped product and its stdio build against
#                              a bare net/http program (the HTTP floor), all
#                              stripped
# A preset whose transport or era this build does not serve yet is skipped
# with a message; a quick probe of the binary decides (-h lists -http; an
# initialize on stdio answers a result). Without HTTP, list and payload run
# over stdio instead, and the table says so by its stdio,... workload keys.
#
# Settings: 3 rounds (medians of 3, as the issue asks), 2 s measured and 1 s
# warm-up per cell; every cell starts a fresh server. With every preset
# available that is 90 cells, about 7 minutes on a 2-core machine; the
# whole run refuses to start beyond 9.5 minutes (--budget). The run ends
# with issue 28's table: each target, its figure and whether it is met.
#
# Environment: BENCH_BIN (default ${TMPDIR:-/tmp}/baremcp-bench) receives the
# binaries and the raw JSONL of every cell.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
harness="$repo/harness/bench/harness/run.sh"
export BENCH_BIN="${BENCH_BIN:-${TMPDIR:-/tmp}/baremcp-bench}"
mkdir -p "$BENCH_BIN"
bin="$BENCH_BIN/baremcp-bench"
rounds=3 dur=2s warm=1s budget=570 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds)   rounds="$2"; shift 2 ;;
    --duration) dur="$2"; shift 2 ;;
    --warmup)   warm="$2"; shift 2 ;;
    --budget)   budget="$2"; shift 2 ;;
    -h|--help)  sed -n '2,35p' "$0"; exit 0 ;;
    *)          extra+=("$1"); shift ;;
  esac
done

# CGO_ENABLED=0: the static binary a release ships (stdlib only, pure-Go
# resolver). With cgo, net links libc dynamically: +1.5 MiB idle RSS from
# libc and ld.so mappings, nothing the server uses.
export CGO_ENABLED=0
echo "# building $bin (-tags bench)" >&2
(cd "$repo" && go build -tags bench -o "$bin" .)
(cd "$repo" && go build -trimpath -ldflags='-s -w' -o "$BENCH_BIN/baremcp-stripped" .)
(cd "$repo" && go build -trimpath -ldflags='-s -w' -tags nethttpomithttp2 -o "$BENCH_BIN/baremcp-stripped-noh2" .)
(cd "$repo" && go build -trimpath -ldflags='-s -w' -tags stdio -o "$BENCH_BIN/baremcp-stripped-stdio" .)
# The floors of the rows the harness does not measure: a minimal Go program
# answering one server/discover, and the harness's bare net/http program,
# stripped like the product.
(cd "$repo/harness/bench/rows" && go build -o "$BENCH_BIN/rows" . &&
  go build -trimpath -ldflags='-s -w' -o "$BENCH_BIN/minimal" ./minimal)
(cd "$repo/harness/bench/harness/floor" && go build -trimpath -ldflags='-s -w' -o "$BENCH_BIN/floor-stripped" .)

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# probe sends one line to the bench binary on stdio and prints the answer.
probe() { printf '%s\n' "$1" | BENCH_TOOLS=1 timeout 5 "$bin" 2>/dev/null | head -n 1 || true; }

has_stdio=0 has_legacy=0 has_http=0
case "$(probe '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{'"$meta"'}}')" in
  *'"supportedVersions"'*) has_stdio=1 ;;
esac
case "$(probe '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}')" in
  *'"result"'*'"protocolVersion"'*) has_legacy=1 ;;
esac
if "$bin" -h 2>&1 | grep -q -- '-http'; then has_http=1; fi

skip() { echo "# skipping preset $1: $2" >&2; }
stdio_w=() http_w=() payload_w=()
if [ "$has_stdio" = 1 ]; then
  stdio_w+=("stdio,modern,call,k=1" "stdio,modern,call,k=32" "stdio,modern,call,k=1,payload=1m")
else
  skip stdio "the binary does not answer server/discover on stdio"
fi
if [ "$has_legacy" = 1 ]; then
  stdio_w+=("stdio,legacy,call,k=1" "stdio,legacy,call,k=32")
else
  skip stdio-legacy "the legacy era (initialize) is not served yet"
fi
if [ "$has_http" = 1 ]; then
  http_w+=("http,modern,call,c=1" "http,modern,call,c=8" "http,modern,call,c=64")
  if [ "$has_legacy" = 1 ]; then
    http_w+=("http,legacy,call,c=1" "http,legacy,call,c=8" "http,legacy,call,c=64")
  else
    skip http-legacy "the legacy era (initialize) is not served yet"
  fi
  http_w+=("http,modern,list,c=1,tools=20" "http,modern,list,c=1,tools=1000")
  payload_w+=("http,modern,call,c=1,payload=1k" "http,modern,call,c=1,payload=1m")
else
  skip http "the binary has no -http flag yet"
  skip http-legacy "the binary has no -http flag yet"
  if [ "$has_stdio" = 1 ]; then
    echo "# list and payload: no HTTP yet, measured over stdio instead" >&2
    stdio_w+=("stdio,modern,list,k=1,tools=20" "stdio,modern,list,k=1,tools=1000")
    stdio_w+=("stdio,modern,call,k=1,payload=1k" "stdio,modern,call,k=1,payload=1m")
  fi
fi

cells=$(( rounds * 2 * (${#stdio_w[@]} + ${#http_w[@]} + ${#payload_w[@]}) ))
[ "$cells" -gt 0 ] || { echo "nothing to measure: the binary serves neither stdio nor HTTP" >&2; exit 1; }
# About 3.6 s per cell measured on the 2-core machine (2 s + 1 s warm-up,
# start-up, idle RSS sample, stop); refuse a run that cannot fit.
secs() { case "$1" in *ms) echo "scale=3; ${1%ms}/1000" | bc ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac; }
est=$(echo "$cells * ($(secs "$dur") + $(secs "$warm") + 1)" | bc | cut -d. -f1)
echo "# $cells cells in all, about ${est}s" >&2
if [ "$est" -gt "$budget" ]; then
  echo "estimate ${est}s exceeds --budget ${budget}s: lower --rounds or --duration" >&2
  exit 2
fi

# group runs the harness for one server command over workloads; its table
# is left for the combined report below. The floor is always named floor so
# that one report covers every group.
files=()
group() {
  local floor="$1" ours="$2"; shift 2
  local out="$BENCH_BIN/run-$(date +%Y%m%d-%H%M%S)-$RANDOM.jsonl" args=()
  for w in "$@"; do args+=(--workload "$w"); done
  "$harness" --server "floor=$floor" --server "baremcp=$ours" --baseline floor \
    --rounds "$rounds" --duration "$dur" --warmup "$warm" --budget "$budget" \
    --out "$out" "${args[@]}" "${extra[@]}" > /dev/null
  files+=("$out")
}
start=$(date +%s)
[ ${#stdio_w[@]} -eq 0 ] || group '$BENCH_FLOOR' "$bin" "${stdio_w[@]}"
# Over HTTP tools/call is rate limited by default (50/s per caller, a
# burst of 100); a throughput benchmark from one address measures the
# server, not the limiter, so it turns the limit off.
[ ${#http_w[@]} -eq 0 ] || group '$BENCH_FLOOR' "$bin"' -http $BENCH_ADDR -rate-limit 0' "${http_w[@]}"
[ ${#payload_w[@]} -eq 0 ] || group 'FLOOR_HTTP=echo $BENCH_FLOOR' "$bin"' -http $BENCH_ADDR -rate-limit 0' "${payload_w[@]}"
cold=""
if [ "$has_stdio" = 1 ]; then
  cold="$BENCH_BIN/cold-$(date +%Y%m%d-%H%M%S)-$RANDOM.jsonl"
  "$BENCH_BIN/rows" coldstart -n 40 -out "$cold" -server "baremcp=$BENCH_BIN/baremcp-stripped" \
    -server "baremcp-stdio=$BENCH_BIN/baremcp-stripped-stdio" -server "minimal=$BENCH_BIN/minimal" 2>/dev/null
fi

echo
echo "baremcp $(cd "$repo" && git describe --always --dirty 2>/dev/null || echo '?'), $(date -u +%Y-%m-%dT%H:%MZ)," \
  "$(nproc) cores, $(go version | cut -d' ' -f3), ${rounds} rounds x ${dur} (+${warm} warm-up), $(( $(date +%s) - start ))s"
echo "stripped product binary: $(( $(stat -c %s "$BENCH_BIN/baremcp-stripped") / 1024 )) KiB" \
  "($(( $(stat -c %s "$BENCH_BIN/baremcp-stripped-noh2") / 1024 )) KiB with -tags nethttpomithttp2," \
  "$(( $(stat -c %s "$BENCH_BIN/baremcp-stripped-stdio") / 1024 )) KiB the stdio build)"
echo
"$BENCH_BIN/load" report -baseline floor "${files[@]}"
echo
echo "Issue 28's targets (medians of this run; ratios to the floor measured in it):"
echo
"$BENCH_BIN/rows" table ${cold:+-cold "$cold"} -size "baremcp=$BENCH_BIN/baremcp-stripped" \
  -size "baremcp-stdio=$BENCH_BIN/baremcp-stripped-stdio" -size "floor=$BENCH_BIN/floor-stripped" "${files[@]}"
