#!/usr/bin/env bash
# table.sh - README's "Builds" table, measured: for each build of the
# product, the Go files and lines it compiles (go list .GoFiles, test files
# excluded), the packages it links (go list -deps, the standard library's
# included), its stripped size (CGO_ENABLED=0, -trimpath -ldflags='-s -w')
# and its cold start: start the binary, send one server/discover on stdin,
# close it, read the answer, wait for the exit (wall time), and the CPU
# time the process used doing it (user and system, which a loaded machine
# inflates less). The same figures for a minimal Go program that answers
# the same line (harness/bench/rows/minimal) are the floor; the starts of
# all of them alternate, so that the machine's load falls on each alike
# (harness/bench/rows coldstart), and the table gives each median and its
# ratio to the floor's.
#
# Beside each build's cold start, the same build's start before main: its
# Go files and a generated file whose init function answers the line as
# the minimal program does and exits, built in a temporary copy. Package
# initialisation (the standard library's and main's package-level
# variables) runs before any init of package main, so what that binary
# costs is loading this much code, and nothing of run: the least any
# start-up of the build can cost, the floor a target for it must clear.
#
# The builds are the full server (go build) and, once a file of the
# package names the tag, the stdio server (go build -tags stdio). Until
# then the table has the full build alone, and says so on stderr.
#
# usage: harness/builds/table.sh [-n STARTS]
#   -n  starts per binary (default 200)
#
# Prints the table (Markdown) on stdout, ready for README.md's "Builds";
# progress and the conditions of the run on stderr. Exit status: 0 done;
# 1 a build or a start failed; 2 bad usage. Needs go; 1,000 starts and the
# builds (from a warm cache) take under a minute on a busy 2-core machine.
# Wall times on a busy machine are mostly waiting: the load and the core
# count are printed beside the table, and a quiet machine gives the
# figures to compare.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
N=200
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N="${2:?-n needs a number}"; shift ;;
    -h|--help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "table.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
case "$N" in ''|*[!0-9]*|0) echo "table.sh: -n wants a positive number" >&2; exit 2 ;; esac

TMP="$(mktemp -d "${TMPDIR:-/tmp}/builds.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
export CGO_ENABLED=0 GOWORK=off

# The builds: name, then the tags (none for the full server).
builds=("full:")
if grep -qs 'go:build.*stdio' "$ROOT"/*.go; then
  builds+=("stdio:stdio")
else
  echo "table.sh: no file names the tag stdio yet: the table has the full build alone" >&2
fi

# lines FILE...: the lines of the files, summed.
lines() { cat "$@" | wc -l | tr -d ' '; }

# thousands N: N with a comma every three digits (19,626).
thousands() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }

# mib BYTES: the size in MiB, two decimals.
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }

declare -A files nlines pkgs size
servers=()
for b in "${builds[@]}"; do
  name="${b%%:*}" tags="${b#*:}"
  echo "# $name: go list and go build${tags:+ -tags $tags}" >&2
  mapfile -t gofiles < <(cd "$ROOT" && go list -tags "$tags" -f '{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}' .)
  files[$name]="${#gofiles[@]}"
  nlines[$name]="$(lines "${gofiles[@]}")"
  pkgs[$name]="$(cd "$ROOT" && go list -tags "$tags" -deps . | wc -l | tr -d ' ')"
  (cd "$ROOT" && go build -tags "$tags" -trimpath -ldflags='-s -w' -o "$TMP/$name" .)
  size[$name]="$(wc -c <"$TMP/$name" | tr -d ' ')"
  servers+=(-server "$name=$TMP/$name")
  # Its start before main: the same files, and an init that answers and exits.
  src="$TMP/src-$name"
  mkdir -p "$src" && cp "$ROOT/go.mod" "${gofiles[@]}" "$src/"
  # and the files they embed (//go:embed), at their paths
  (cd "$ROOT" && go list -tags "$tags" -f '{{range .EmbedFiles}}{{.}}{{"\n"}}{{end}}' . | while IFS= read -r f; do
    mkdir -p "$src/$(dirname "$f")" && cp "$f" "$src/$f"
  done)
  cat >"$src/zz_before_main.go" <<'GO'
package main

import (
	"bufio"
	"bytes"
	"os"
)

// The cold-start driver's answer, as harness/bench/rows/minimal writes it.
var beforeMainAnswer = []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"minimal","version":"0"}}}}` + "\n")

func init() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			os.Stdout.Write(beforeMainAnswer)
		}
		if err != nil {
			os.Exit(0)
		}
	}
}
GO
  (cd "$src" && go build -tags "$tags" -trimpath -ldflags='-s -w' -o "$TMP/$name-before-main" .)
  servers+=(-server "$name-before-main=$TMP/$name-before-main")
done

echo "# the floor: harness/bench/rows/minimal, and the cold-start driver" >&2
(cd "$ROOT/harness/bench/rows" && go build -o "$TMP/rows" . &&
  go build -trimpath -ldflags='-s -w' -o "$TMP/minimal" ./minimal)
files[minimal]=1
nlines[minimal]="$(lines "$ROOT/harness/bench/rows/minimal/main.go")"
pkgs[minimal]="$(cd "$ROOT/harness/bench/rows" && go list -deps ./minimal | wc -l | tr -d ' ')"
size[minimal]="$(wc -c <"$TMP/minimal" | tr -d ' ')"
servers+=(-server "minimal=$TMP/minimal")

echo "# cold start: $N starts of each, alternated" >&2
"$TMP/rows" coldstart -n "$N" -out "$TMP/cold.jsonl" "${servers[@]}" >&2 ||
  { echo "table.sh: the cold starts failed (above)" >&2; exit 1; }

# median NAME FIELD: the median of FIELD (exit_ms, cpu_ms) over NAME's
# starts.
median() {
  sed -n 's/.*"name":"'"$1"'".*"'"$2"'":\([0-9.]*\).*/\1/p' "$TMP/cold.jsonl" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m }'
}
floor="$(median minimal exit_ms)" floorcpu="$(median minimal cpu_ms)"

echo "# $(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3) $(go env GOOS)/$(go env GOARCH)," \
  "$(nproc 2>/dev/null || echo '?') cores, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'), $N starts each" >&2

# ratio A B: A / B, two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo '| build | command | Go files | lines | packages linked | stripped size | cold start, median (× minimal) | its CPU time, median (× minimal) | before `main`, median (× minimal) |'
echo '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'
row() { # row NAME COMMAND [BEFORE-MAIN-NAME]
  local m c b="—"
  m="$(median "$1" exit_ms)" c="$(median "$1" cpu_ms)"
  if [ -n "${3:-}" ]; then
    b="$(median "$3" exit_ms)"
    b="$b ms ($(ratio "$b" "$floor")x)"
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s ms (%sx) | %s ms (%sx) | %s |\n' "$1" "$2" "${files[$1]}" \
    "$(thousands "${nlines[$1]}")" "${pkgs[$1]}" "$(mib "${size[$1]}")" "$m" "$(ratio "$m" "$floor")" "$c" "$(ratio "$c" "$floorcpu")" "$b"
}
for b in "${builds[@]}"; do
  name="${b%%:*}" tags="${b#*:}"
  row "$name" "\`go build${tags:+ -tags $tags}\`" "$name-before-main"
done
row minimal '`harness/bench/rows/minimal`'
