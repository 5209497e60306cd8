#!/bin/sh
# fuzz.sh runs every Fuzz* target of baremcp for a bounded time each and
# records executions and findings. It exits non-zero on a finding.
#
# Usage: harness/fuzz.sh [-t DURATION] [-p WORKERS] [-o REPORT] [TARGET...]
#
#   -t DURATION  fuzz time per target, as go test -fuzztime takes it
#                (60s, 5m, or 100000x for an execution count); default
#                $FUZZTIME or 60s
#   -p WORKERS   fuzz worker processes per target; default $FUZZ_PARALLEL or 1
#   -o REPORT    file the results are appended to; default $FUZZ_REPORT or
#                fuzz-report.txt in the repository root
#   TARGET       run only these targets (default: every Fuzz* target)
#
# Environment: FUZZ_CACHE is the directory holding the generated corpus
# between runs (default /dev/shm/baremcp-fuzz when /dev/shm exists).
#
# A finding is a failing input: go test writes it to testdata/fuzz/TARGET/,
# where it stays as a regression case once committed. A run that fails
# with "context deadline exceeded" at the -fuzztime boundary and writes no
# input is Go's coordinator race (golang/go#75804, fixed in Go 1.27), not
# a finding: it is recorded as "flake" and does not fail the script.
#
# Why one worker and a private test binary: on a 2-CPU machine shared with
# other work, the default (GOMAXPROCS workers) starves the coordinator and
# the progress line sits at "0 execs/sec" for seconds at a time; one
# worker keeps a steady rate. Building once with go test -c -fuzz gives the
# coverage-instrumented binary without rebuilding per target, and running
# it directly lets the corpus cache live on tmpfs, apart from GOCACHE.
set -eu

fuzztime=${FUZZTIME:-60s}
workers=${FUZZ_PARALLEL:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
report=${FUZZ_REPORT:-$root/fuzz-report.txt}
while getopts t:p:o: opt; do
	case $opt in
	t) fuzztime=$OPTARG ;;
	p) workers=$OPTARG ;;
	o) report=$OPTARG ;;
	*) sed -n '4,15p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

if [ -d /dev/shm ]; then cache=${FUZZ_CACHE:-/dev/shm/baremcp-fuzz}; else cache=${FUZZ_CACHE:-${TMPDIR:-/tmp}/baremcp-fuzz}; fi
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$root"
go test -c -fuzz=. -o "$work/baremcp.test" .
if [ $# -eq 0 ]; then
	set -- $("$work/baremcp.test" -test.list '^Fuzz')
fi

findings=0
{
	echo "# harness/fuzz.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) $(go version | cut -d' ' -f3) $(git rev-parse --short HEAD 2>/dev/null || echo -) fuzztime=$fuzztime workers=$workers cpus=$(getconf _NPROCESSORS_ONLN)"
	printf '%-22s %-8s %12s %10s %s\n' target result execs corpus note
} >>"$report"
for target in "$@"; do
	before=$(ls "testdata/fuzz/$target" 2>/dev/null | sort || true)
	log="$work/$target.log"
	status=0
	"$work/baremcp.test" -test.run '^$' -test.fuzz "^$target\$" -test.fuzztime "$fuzztime" \
		-test.parallel "$workers" -test.fuzzcachedir "$cache" >"$log" 2>&1 || status=$?
	after=$(ls "testdata/fuzz/$target" 2>/dev/null | sort || true)
	new=$(printf '%s\n' "$after" | grep -vxF -e "$before" -e '' || true)
	[ -z "$before" ] && new=$after
	execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	corpus=$(grep -o 'total: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	note=""
	if [ $status -eq 0 ]; then
		result=ok
	elif grep -q 'Failing input written to' "$log" || [ -n "$new" ]; then
		result=FINDING
		note="new input: $(printf '%s ' $new)"
		findings=$((findings + 1))
	elif grep -q 'context deadline exceeded' "$log"; then
		result=flake
		note="golang/go#75804 at the -fuzztime boundary; no failing input"
	else
		result=FAILED
		note="see the log below"
		findings=$((findings + 1))
	fi
	printf '%-22s %-8s %12s %10s %s\n' "$target" "$result" "${execs:-0}" "${corpus:-0}" "$note" | tee -a "$report"
	if [ "$result" = FINDING ] || [ "$result" = FAILED ]; then
		sed 's/^/    /' "$log" | tail -40 | tee -a "$report" >&2
	fi
done
echo "findings: $findings" | tee -a "$report"
[ $findings -eq 0 ]
