#!/usr/bin/env bash
# build.sh - a release of this server, named after it (README, "Release
# and install"): from the checkout's committed HEAD, the full and the
# stdio build for linux, darwin and windows on amd64 and arm64, an MCP
# Bundle of the stdio build per OS and architecture, an OCI image layout,
# server.json for the MCP Registry, install.md, an SPDX SBOM per binary, a
# provenance statement and SHA256SUMS, all in DIR and all byte for byte
# the same from any clone of the commit (harness/release/check.sh proves
# it). mkrelease/main.go says what each file is.
#
# usage: harness/release/build.sh [-version 1.2.3] [-repo github.com/OWNER/REPO]
#                                 [-registry-name NAME] [-image REF] [-author NAME] DIR
#   -version   default: the tag vX.Y.Z on HEAD, else a pseudo-version of HEAD
#   -repo      where the release is published (GitHub or GitLab: the MCP
#              Registry takes bundles from nowhere else); default: the
#              origin remote, else the module path
#
# Needs git and Go; nothing else, no network. Builds each target once
# (minutes the first time, as the standard library is compiled for each
# system; seconds once the build cache has it).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
if [ $# -lt 1 ] || [ "${!#}" = -h ] || [ "${!#}" = --help ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
out="${!#}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$HERE/mkrelease" && GOWORK=off CGO_ENABLED=0 go build -o "$tmp/mkrelease" .)
"$tmp/mkrelease" -src "$ROOT" -out "$out" "${@:1:$#-1}"
