#!/usr/bin/env bash
# compare.sh: one harness run of the calls over stdio and HTTP (modern
# era, k=1/32, c=1/8) against the floor, for two builds side by side: a
# git revision (the previous run) and the working tree, the latter with
# logging at its default level and metrics on (-metrics 127.0.0.1:0).
# Issue 14 asks that these ratios stay within 5 % of the previous run's.
#
#   harness/bench/compare.sh REV [HARNESS_OPTIONS...]    e.g. 370d129 --rounds 5
#
# Environment: BENCH_BIN as in run.sh.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,11p' "$0"; exit 2; }
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
  "$harness" --server "floor=$floor" --server "before=$oldcmd" --server "now=$newcmd" --baseline floor \
    --rounds 3 --duration 2s --warmup 1s --out "$out" "${args[@]}" "${extra[@]}" > /dev/null
  files+=("$out")
}
metrics=' -metrics 127.0.0.1:0'
group '$BENCH_FLOOR' "$old" "$new$metrics" stdio,modern,call,k=1 stdio,modern,call,k=32
group '$BENCH_FLOOR' "$old"' -http $BENCH_ADDR -rate-limit 0' "$new"' -http $BENCH_ADDR -rate-limit 0'"$metrics" \
  http,modern,call,c=1 http,modern,call,c=8
echo "before: $rev; now: $(cd "$repo" && git describe --always --dirty), -metrics on; $(nproc) cores"
"$BENCH_BIN/load" report -baseline floor "${files[@]}"
