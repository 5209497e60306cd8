#!/usr/bin/env bash
# compare.sh: one harness run of two builds side by side against the floor:
# a git revision (the previous run) and the working tree, servers
# alternated within each round, so that both meet the same machine.
#
#   harness/bench/compare.sh REV [HARNESS_OPTIONS...]          e.g. 370d129 --rounds 5
#   harness/bench/compare.sh [--all] [--swap] REV [HARNESS_OPTIONS...]
#
# --swap runs the working tree first in each round and REV second: on a
# 2-core machine the second server of a round tends to do a few per cent
# better, so a difference near 5 % holds only if it holds in both orders.
#
# Without --all: the calls over stdio and HTTP (modern era, k=1/32,
# c=1/8), the working tree with logging at its default level and metrics
# on (-metrics 127.0.0.1:0): issue 14's check that these ratios stay within
# 5 % of the previous run's.
#
# With --all: every preset of run.sh (stdio, stdio-legacy, http,
# http-legacy, list, payload), the cold start and the stripped sizes
# (harness/bench/rows; the working tree's stdio build too), both builds
# as run.sh runs them, then issue 28's table with a column per build
# (before, now): the check that no row regresses by more than 5 %. About
# 12 minutes on a 2-core machine.
#
# Environment: BENCH_BIN as in run.sh.
set -euo pipefail
all=0 swap=0
while :; do
  case "${1:-}" in
    --all) all=1; shift ;;
    --swap) swap=1; shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { sed -n '2,25p' "$0"; exit 2; }
rev="$1"; shift
extra=("$@")
repo="$(cd "$(dirname "$0")/../.." && pwd)"
harness="$repo/harness/bench/harness/run.sh"
export BENCH_BIN="${BENCH_BIN:-${TMPDIR:-/tmp}/baremcp-bench}"
mkdir -p "$BENCH_BIN"
export CGO_ENABLED=0
old="$BENCH_BIN/baremcp-$rev" new="$BENCH_BIN/baremcp-bench"
tree="$(mktemp -d)"
trap 'git -C "$repo" worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"' EXIT
git -C "$repo" worktree add --detach "$tree" "$rev" >/dev/null 2>&1
(cd "$tree" && go build -tags bench -o "$old" .)
(cd "$repo" && go build -tags bench -o "$new" .)
files=()
group() {
  local floor="$1" oldcmd="$2" newcmd="$3"; shift 3
  local out="$BENCH_BIN/compare-$(date +%Y%m%d-%H%M%S)-$RANDOM.jsonl" args=()
  for w in "$@"; do args+=(--workload "$w"); done
  local servers=(--server "before=$oldcmd" --server "now=$newcmd")
  if [ "$swap" = 1 ]; then servers=(--server "now=$newcmd" --server "before=$oldcmd"); fi
  "$harness" --server "floor=$floor" "${servers[@]}" --baseline floor \
    --rounds 3 --duration 2s --warmup 1s --budget 900 --out "$out" "${args[@]}" "${extra[@]}" > /dev/null
  files+=("$out")
}
http=' -http $BENCH_ADDR -rate-limit 0'
if [ "$all" = 0 ]; then
  metrics=' -metrics 127.0.0.1:0'
  group '$BENCH_FLOOR' "$old" "$new$metrics" stdio,modern,call,k=1 stdio,modern,call,k=32
  group '$BENCH_FLOOR' "$old$http" "$new$http$metrics" http,modern,call,c=1 http,modern,call,c=8
  echo "before: $rev; now: $(cd "$repo" && git describe --always --dirty), -metrics on; $(nproc) cores"
  "$BENCH_BIN/load" report -baseline floor "${files[@]}"
  exit 0
fi
strip=(-trimpath -ldflags='-s -w')
(cd "$tree" && go build "${strip[@]}" -o "$BENCH_BIN/before-stripped" .)
(cd "$repo" && go build "${strip[@]}" -o "$BENCH_BIN/now-stripped" . &&
  go build "${strip[@]}" -tags stdio -o "$BENCH_BIN/now-stripped-stdio" .)
(cd "$repo/harness/bench/rows" && go build -o "$BENCH_BIN/rows" . && go build "${strip[@]}" -o "$BENCH_BIN/minimal" ./minimal)
(cd "$repo/harness/bench/harness/floor" && go build "${strip[@]}" -o "$BENCH_BIN/floor-stripped" .)
start=$(date +%s)
group '$BENCH_FLOOR' "$old" "$new" stdio,modern,call,k=1 stdio,modern,call,k=32 stdio,modern,call,k=1,payload=1m \
  stdio,legacy,call,k=1 stdio,legacy,call,k=32
group '$BENCH_FLOOR' "$old$http" "$new$http" http,modern,call,c=1 http,modern,call,c=8 http,modern,call,c=64 \
  http,legacy,call,c=1 http,legacy,call,c=8 http,legacy,call,c=64 http,modern,list,c=1,tools=20 http,modern,list,c=1,tools=1000
group 'FLOOR_HTTP=echo $BENCH_FLOOR' "$old$http" "$new$http" http,modern,call,c=1,payload=1k http,modern,call,c=1,payload=1m
cold="$BENCH_BIN/cold-$(date +%Y%m%d-%H%M%S)-$RANDOM.jsonl"
cold_servers=(-server "before=$BENCH_BIN/before-stripped" -server "now=$BENCH_BIN/now-stripped")
if [ "$swap" = 1 ]; then cold_servers=(-server "now=$BENCH_BIN/now-stripped" -server "before=$BENCH_BIN/before-stripped"); fi
"$BENCH_BIN/rows" coldstart -n 40 -out "$cold" "${cold_servers[@]}" \
  -server "now-stdio=$BENCH_BIN/now-stripped-stdio" -server "minimal=$BENCH_BIN/minimal" 2>/dev/null
echo "before: $rev; now: $(cd "$repo" && git describe --always --dirty)$([ "$swap" = 1 ] && echo ', now run first'); $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores," \
  "$(go version | cut -d' ' -f3), 3 rounds x 2s (+1s warm-up), $(( $(date +%s) - start ))s"
echo
"$BENCH_BIN/load" report -baseline floor "${files[@]}"
echo
"$BENCH_BIN/rows" table -servers before,now -cold "$cold" -size "before=$BENCH_BIN/before-stripped" -size "now=$BENCH_BIN/now-stripped" \
  -size "now-stdio=$BENCH_BIN/now-stripped-stdio" -size "floor=$BENCH_BIN/floor-stripped" "${files[@]}"
