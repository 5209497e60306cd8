#!/usr/bin/env bash
# own-tests.sh - which tests a tagged build adds to the untagged build's
# run, so that CI (.ci/run, and harness/make-it-yours/check.sh in its
# copy) runs each test once per build of the code it tests.
#
# usage: harness/builds/own-tests.sh TAGS
#
# Prints a go test -run pattern:
#   - "." (every test) when the build's core differs from the untagged
#     build's: its Go files other than the registry variants
#     (registry_*.go, STYLE 8d) are not the same set, as in the stdio
#     build, which leaves out the HTTP wing;
#   - otherwise "^(TestA|ExampleB|...)$", the Test, Example and Fuzz
#     functions of the test files that this build compiles and the
#     untagged build does not (registry_demo_test.go in a copy whose
#     untagged build serves its own registry, registry_conformance_test.go
#     in the fixture build);
#   - nothing when there are none.
# A test file both builds compile runs, in the tagged build, the same
# core code it ran in the untagged build: it cannot name the tag's
# registry (it passes in the untagged build), so what it does with that
# registry is what it does with any, and the tag's registry is tested by
# the tag's own test files. Run from the repository root or anywhere
# inside it. Exit status: 0 done; 2 bad usage or go list failed.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: own-tests.sh TAGS" >&2
  exit 2
fi
tags="$1"
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# files KIND TAGS: the package's files of KIND (GoFiles, TestGoFiles), one a line, sorted.
files() { go list -tags "$2" -f "{{range .$1}}{{.}}{{\"\\n\"}}{{end}}" . | sort; }
core() { files GoFiles "$1" | grep -v '^registry_.*\.go$' || true; }

if [ "$(core "$tags")" != "$(core "")" ]; then
  echo .
  exit 0
fi
mapfile -t own < <(comm -23 <(files TestGoFiles "$tags") <(files TestGoFiles ""))
[ ${#own[@]} -gt 0 ] || exit 0
names="$(sed -n -E 's/^func ((Test|Example|Fuzz)[A-Za-z0-9_]*)\(.*/\1/p' "${own[@]}" | sort -u | paste -sd '|' -)"
[ -z "$names" ] || echo "^($names)\$"
