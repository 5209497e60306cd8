#!/usr/bin/env bash
# check.sh - the release build (issue 26), as README's "Check and build a
# release binary" step gives it, on the committed HEAD:
#
#   1. from `git archive` (no .git, so no VCS stamping), a build with
#      -ldflags -X main.linkedVersion=... prints that version in -version
#      and in serverInfo.version, and `file` says it is statically linked
#      (CGO_ENABLED=0);
#   2. two clones in two directories, built with two Go build caches (the
#      usual one, and a fresh one), give byte-identical binaries:
#      -trimpath keeps the paths out, and VCS stamping (-buildvcs=true)
#      writes the same revision, time and "not modified" in every clone
#      of one commit.
#
# usage: harness/release/check.sh [-quick]
#   -quick  build both clones with the usual cache (two clones, one cache:
#           what CI runs, in about 20 s); without it the second clone is
#           built with a fresh cache, which compiles the standard library
#           again (one to four minutes on 2 cores, as busy as they are)
#
# Prints PASS or FAIL per check and last "N passed, M failed".
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
quick=false
[ "${1:-}" = -quick ] && quick=true
tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; failed=$((failed + 1)); }

version="v0.0.0-release-check"
export CGO_ENABLED=0
# release DIR OUT [GO ENV...]: README's release command in DIR, with the
# version set at link time.
release() {
  local dir="$1" out="$2"; shift 2
  (cd "$dir" && env "$@" go build -trimpath -ldflags="-s -w -X main.linkedVersion=$version" -o "$out" .)
}

rev="$(git -C "$ROOT" rev-parse HEAD)"
mkdir "$tmp/archive"
git -C "$ROOT" archive "$rev" | tar -x -C "$tmp/archive"
release "$tmp/archive" "$tmp/from-archive" GOFLAGS=-buildvcs=auto
got="$("$tmp/from-archive" -version)"
case "$got" in
  "baremcp $version go"*) pass "git archive build with -X prints its version: $got" ;;
  *) fail "git archive build with -X: -version printed \"$got\", want baremcp $version" ;;
esac
discover='{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
if printf '%s\n' "$discover" | "$tmp/from-archive" 2>/dev/null | grep -qF "\"name\":\"baremcp\",\"version\":\"$version\""; then
  pass "serverInfo.version is $version"
else
  fail "serverInfo.version is not $version" "$(printf '%s\n' "$discover" | "$tmp/from-archive" 2>&1 | head -c 400)"
fi
kind="$(file -b "$tmp/from-archive")"
case "$kind" in
  *"statically linked"*) pass "file: statically linked" ;;
  *) fail "file: not statically linked" "$kind" ;;
esac

for n in 1 2; do
  git clone -q --no-local "$ROOT" "$tmp/clone$n"
  git -C "$tmp/clone$n" checkout -q --detach "$rev"
done
cache2="$tmp/cache2"
$quick && cache2="$(go env GOCACHE)"
start=$SECONDS
release "$tmp/clone1" "$tmp/bin1" GOFLAGS=-buildvcs=true
release "$tmp/clone2" "$tmp/bin2" GOCACHE="$cache2" GOFLAGS=-buildvcs=true
took=$((SECONDS - start))
sum1="$(sha256sum <"$tmp/bin1" | cut -c1-16)" sum2="$(sha256sum <"$tmp/bin2" | cut -c1-16)"
stamped="$(go version -m "$tmp/bin1" | sed -n 's/.*vcs\.revision=//p')"
if cmp -s "$tmp/bin1" "$tmp/bin2" && [ "$stamped" = "$rev" ]; then
  pass "two clones, $($quick && echo "one cache" || echo "two caches"): byte-identical ($sum1..., $(wc -c <"$tmp/bin1") bytes, revision ${rev:0:12} stamped; ${took}s)"
else
  fail "two clones: $sum1... and $sum2..., revision stamped \"$stamped\"" "$(cmp "$tmp/bin1" "$tmp/bin2" 2>&1 | head -3)"
fi
"$tmp/bin1" -version

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
