#!/usr/bin/env bash
# check.sh - the cluster check (issue 15): three baremcp replicas on
# loopback with a shared BAREMCP_STATE_KEY, HAProxy in front, both
# configured exactly as docs/DEPLOY.md shows them (the Go program in this
# directory reads the document's marked blocks), then checks through the
# proxy: modern requests spread over every replica, multi round-trip
# requests answered by different replicas, classic sessions (both HTTP
# transports) held by one replica, subscriptions/listen (acknowledgement
# first, keep-alives past the proxy's stream timeout, no buffering), the
# rate limit per client behind the proxy, tasks routed to their owner, and
# a rolling restart under load: each replica in turn gets SIGTERM while
# modern requests flow, /readyz drains it first, and not one request
# fails. It prints PASS, FAIL or SKIP per check, the load's figures
# (requests, errors, p99 during the restarts) and last "N passed, M
# failed".
#
# usage: harness/cluster/check.sh [-bin BIN] [-keep] [-rate N] [-settle D]
#   -bin BIN   run this demo binary (CGO_ENABLED=0 go build -tags demo)
#              instead of building one: .ci/run builds it once for every check
#   -keep      keep the generated configuration and the logs
#   -rate N    modern requests a second during the rolling restart (200)
#   -settle D  load before the first restart and after each (2s)
#
# HAProxy comes from the distribution's packages: when it is missing and
# the script runs as root with apt-get (as CI does), it installs it;
# otherwise it says so and exits 0 without checking. The replicas are the
# demo (go build -tags demo), whose tools the checks call by name: without
# registry_demo.go the check says it is skipped and exits 0.
#
# Exit status: 0 every check passed (or skipped as said); 1 one failed;
# 2 the cluster could not be set up (an address in use, HAProxy refused
# the configuration, a replica did not start).
# About 80 seconds on 2 cores, most of it waiting: a listen idle past the
# proxy's 30-second stream timeout, and three drains of 5 seconds.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
case "${1:-}" in
  -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

if ! grep -qs '^func registerDemo(' "$ROOT"/*.go; then
  echo "check.sh: SKIPPED: the demo registry (registry_demo.go, registerDemo) is gone; the checks call its tools by name"
  exit 0
fi

if ! command -v haproxy >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check.sh: installing haproxy from the distribution's packages"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends haproxy >/dev/null 2>&1; then
      apt-get update -qq
      apt-get install -y --no-install-recommends haproxy >/dev/null
    fi
  else
    echo "check.sh: SKIPPED: haproxy is not installed, and installing it needs root and apt-get (apt-get install haproxy)"
    exit 0
  fi
fi
haproxy -v | sed -n 1p

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -bin) bin="${2:?-bin needs a binary}"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$bin" ]; then
  # CGO_ENABLED=0: a binary without cgo confines every one of its threads (confine_linux.go)
  (cd "$ROOT" && CGO_ENABLED=0 go build -tags demo -o "$tmp/baremcp" .)
  bin="$tmp/baremcp"
fi
(cd "$HERE" && go vet . && go build -o "$tmp/cluster" .)
"$tmp/cluster" -repo "$ROOT" -bin "$bin" -haproxy "$(command -v haproxy)" ${args[@]+"${args[@]}"}
