#!/usr/bin/env bash
# check.sh - the deployment files (issue 26): the hardened systemd unit
# (baremcp@.service, also docs/DEPLOY.md's block), the Prometheus scrape
# configuration (prometheus.yml) and alert rules (alerts.yml, with their
# unit tests in alerts_test.yml), and DEPLOY.md's HAProxy configuration,
# each judged by the tool that runs it:
#
#   - the unit file is DEPLOY.md's block, byte for byte;
#   - systemd-analyze verify finds nothing to say about it, and
#     systemd-analyze security --offline=true rates its exposure 2.0 or
#     lower;
#   - promtool check config, check rules and test rules pass;
#   - haproxy -c accepts DEPLOY.md's configuration without a warning.
#
# systemd-analyze (Debian's systemd), promtool (prometheus) and haproxy
# come from the distribution's packages: when one is missing and the
# script runs as root with apt-get (as CI does), it installs it; otherwise
# it skips that check and says so. Prints PASS, FAIL or SKIP per check and
# last "N passed, M failed". A few seconds once installed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# need CMD PACKAGE: CMD is on PATH, installed from PACKAGE when it can be.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check.sh: installing $2 from the distribution's packages (for $1)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends "$2" >/dev/null 2>&1; then
      apt-get update -qq >/dev/null
      apt-get install -y --no-install-recommends "$2" >/dev/null
    fi
  fi
  command -v "$1" >/dev/null 2>&1
}
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; failed=$((failed + 1)); }

# block NAME: the fenced block after <!-- cluster-check: NAME --> in DEPLOY.md.
block() {
  awk -v m="<!-- cluster-check: $1 -->" '$0 == m {f = 1; next} f && /^```/ {if (g) exit; g = 1; next} g {print}' "$ROOT/docs/DEPLOY.md"
}

if diff -u <(block baremcp@.service) "$HERE/baremcp@.service" >"$tmp/diff"; then
  pass "baremcp@.service is DEPLOY.md's block"
else
  fail "baremcp@.service differs from DEPLOY.md's block" "$(cat "$tmp/diff")"
fi

if need systemd-analyze systemd; then
  # verify checks that the program exists: point the copy at one that does.
  mkdir -p "$tmp/unit"
  sed 's|^ExecStart=[^ ]*|ExecStart=/bin/true|' "$HERE/baremcp@.service" >"$tmp/unit/baremcp@.service"
  out="$(systemd-analyze verify --man=no "$tmp/unit/baremcp@1.service" 2>&1)" || true
  if [ -z "$out" ]; then pass "systemd-analyze verify: nothing to say"; else fail "systemd-analyze verify" "$out"; fi
  out="$(systemd-analyze security --offline=true "$tmp/unit/baremcp@.service" 2>&1 || true)"
  level="$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
  if [ -n "$level" ] && awk -v l="$level" 'BEGIN {exit !(l <= 2.0)}'; then
    pass "systemd-analyze security --offline=true: exposure $level (at most 2.0)"
  else
    fail "systemd-analyze security --offline=true: exposure ${level:-unknown}, want at most 2.0" "$(printf '%s\n' "$out" | tail -5)"
  fi
else
  echo "SKIP systemd-analyze: not installed, and installing it needs root and apt-get (apt-get install systemd)"
fi

if need promtool prometheus; then
  (cd "$HERE" && promtool check config prometheus.yml >"$tmp/out" 2>&1) && pass "promtool check config prometheus.yml" || fail "promtool check config prometheus.yml" "$(cat "$tmp/out")"
  (cd "$HERE" && promtool check rules alerts.yml >"$tmp/out" 2>&1) && pass "promtool check rules alerts.yml ($(grep -c '^      - alert:' "$HERE/alerts.yml") alerts)" || fail "promtool check rules alerts.yml" "$(cat "$tmp/out")"
  (cd "$HERE" && promtool test rules alerts_test.yml >"$tmp/out" 2>&1) && pass "promtool test rules alerts_test.yml" || fail "promtool test rules alerts_test.yml" "$(cat "$tmp/out")"
else
  echo "SKIP promtool: not installed, and installing it needs root and apt-get (apt-get install prometheus)"
fi

if need haproxy haproxy; then
  block haproxy.cfg >"$tmp/haproxy.cfg"
  if haproxy -c -f "$tmp/haproxy.cfg" >"$tmp/out" 2>&1 && ! grep -q WARNING "$tmp/out"; then
    pass "haproxy -c: DEPLOY.md's configuration is valid, without a warning"
  else
    fail "haproxy -c on DEPLOY.md's configuration" "$(cat "$tmp/out")"
  fi
else
  echo "SKIP haproxy -c: not installed, and installing it needs root and apt-get (apt-get install haproxy)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
