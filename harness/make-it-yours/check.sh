#!/usr/bin/env bash
# check.sh - "Make it yours", tried as a new user would: copy the checkout
# (its tracked and unignored files, as they are on disk) into a temporary
# directory and follow README's "Make it yours" steps there, word for word:
#   1. go mod edit -module example.com/shouter; serverName "shouter"
#      in server.go; /shouter for /baremcp in .gitignore;
#   2. line 1 of registry_demo.go and registry_demo_test.go: //go:build demo;
#   3. registry_shouter.go, copied from README's block;
#   4. testdata/shouter.txt, copied from README's block, recorded with
#      go test -run TestTranscripts -update . and checked by a plain run;
#   5. go vet ./..., go test ./... (README shows it again; the tree is
#      the one step 4 tested, checked file by file, so step 4's run
#      stands for it), the release build, whose tools/list over stdio
#      must show shout alone and whose serverInfo must say shouter
#      (listcheck/, in both eras), and which reads SHOUTER_STATE_KEY and
#      names no BAREMCP_ variable.
# Then what the copy's own .ci/run would run in Go beyond that and the
# rename can break: vet with -tags demo and bench, the tests the demo
# build adds to the untagged build's (harness/builds/own-tests.sh: the
# demo's own tests, which now run only with -tags demo, under the new
# name), and the raw probes, which build the demo with -tags demo. Not
# the fixture build's own tests: in the copy it is the fixture build
# .ci/run tests here with another server name and module path, which
# neither the fixtures nor their tests read. Then README's other way
# out: with registry_demo.go, registry_demo_test.go and testdata/demo/
# deleted, vet and test still pass and the probes and both interop
# checks say they are skipped and exit 0.
#
# In a copy whose module is no longer baremcp (one that followed the steps),
# it prints one line saying it is skipped, and exits 0.
#
# Every command README shows is run as README prints it (the script
# refuses a command README no longer contains), and the two files are
# taken from README's blocks marked <!-- make-it-yours: PATH -->, so
# README and this check cannot drift apart.
#
# usage: harness/make-it-yours/check.sh [-k] [-renamed DIR]
#   -k            keep the scratch copy and print where it is
#   -renamed DIR  make the copy in DIR (a new folder), follow steps 1 to 3
#                 only (renamed, demo out, registry_shouter.go) and stop:
#                 the server a user made their own, for harness/release
#
# Prints PASS (with the seconds it took) or FAIL per check and last
# exactly "N passed, M failed". The steps depend on each other as a
# user's do: after the first failure (its output is printed) the rest are
# not run and count as failed.
# Exit status: 0 every check passed; 1 one failed; 2 bad usage; 3 setup
# failed (no git checkout, no go).
#
# Needs git, go, curl (the probes). Every build in the copy compiles the
# package afresh (its module path is new): about 100 CPU seconds, a
# minute and a half on a quiet 2-core machine.

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
README="$ROOT/README.md"
KEEP=0
RENAMED=""
while [ $# -gt 0 ]; do
  case "$1" in
    -k) KEEP=1 ;;
    -renamed) [ $# -ge 2 ] || { echo "check.sh: -renamed needs a folder" >&2; exit 2; }; RENAMED="$2"; shift ;;
    -h|--help) sed -n '2,52p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in git go curl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "check.sh: $tool is not installed" >&2; exit 3; }
done
# The steps start from baremcp as shipped. A copy that followed them has
# renamed its module: there is nothing left to try.
module="$(cd "$ROOT" && GOWORK=off go list -m)" || { echo "check.sh: go list -m failed" >&2; exit 3; }
if [ "$module" != baremcp ]; then
  echo "check.sh: skipped: module $module is a copy already made its own; README's steps start from module baremcp"
  exit 0
fi
git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "check.sh: $ROOT is not a git checkout" >&2; exit 3; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/make-it-yours.XXXXXX")"
cleanup() {
  if [ "$KEEP" = 1 ]; then echo "check.sh: the copy is kept in $TMP/shouter"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
COPY="$TMP/shouter"
if [ -n "$RENAMED" ]; then
  [ ! -e "$RENAMED" ] || { echo "check.sh: $RENAMED exists; -renamed makes a new folder" >&2; exit 2; }
  COPY="$RENAMED"
fi
mkdir -p "$COPY"
# Tracked and new files as they are on disk (so uncommitted work is tried
# too), without what .gitignore keeps out (node_modules, results, binaries).
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | tar -xf - -C "$COPY" ||
  { echo "check.sh: copying the checkout failed" >&2; exit 3; }
# The copy is a module of its own: no go.work of a parent directory.
export GOWORK=off
cd "$COPY"

passed=0
failed=0
broken=""
LOG="$TMP/log"

# check NAME CMD...: run CMD in the copy; PASS, or FAIL with its output.
# After a failure the remaining checks are reported as not run.
check() {
  local name="$1"
  shift
  if [ -n "$broken" ]; then
    echo "FAIL  $name (not run: a step before it failed)"
    failed=$((failed + 1))
    return 0
  fi
  # A subshell with errexit of its own: in an if condition bash would
  # ignore set -e inside the step, and a failing command would not end it.
  local rc=0 t0=$SECONDS
  set +e
  (set -e; "$@") >"$LOG" 2>&1
  rc=$?
  set -e
  if [ $rc -eq 0 ]; then
    echo "PASS  $name ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
  else
    echo "FAIL  $name"
    tail -n 40 "$LOG" | sed 's/^/      /'
    failed=$((failed + 1))
    broken="$name"
  fi
}

# readme_has TEXT: README contains TEXT on one line.
readme_has() {
  grep -qF -- "$1" "$README" || { echo "README.md no longer says: $1"; return 1; }
}

# readme_run CMD: run a command README shows in a code block, exactly as
# it shows it.
readme_run() {
  grep -qxF -- "$1" <(sed 's/^ *//' "$README") ||
    { echo "README.md no longer shows the command: $1"; return 1; }
  bash -euo pipefail -c "$1"
}

# readme_file PATH: write the block README marks <!-- make-it-yours: PATH -->
# to PATH, without the indentation of the list item it sits in.
readme_file() {
  mkdir -p "$(dirname "$1")"
  awk -v want="<!-- make-it-yours: $1 -->" '
    !inblock { t = $0; sub(/^ */, "", t); if (t == want) { mark = 1; next } }
    mark && !inblock {
      match($0, /^ */); indent = RLENGTH
      if (substr($0, indent + 1, 3) != "```") { exit 2 }
      inblock = 1; mark = 0; next
    }
    inblock {
      if (substr($0, indent + 1) == "```") { done = 1; exit 0 }
      line = $0
      if (substr(line, 1, indent) ~ /^ *$/) line = substr(line, indent + 1)
      print line
    }
    END { if (!done) exit 2 }
  ' "$README" >"$1" || { echo "README.md has no block marked <!-- make-it-yours: $1 -->"; return 1; }
  [ -s "$1" ] || { echo "README.md: the block for $1 is empty"; return 1; }
}

# replace_line FILE OLD NEW: replace the one line equal to OLD with NEW.
replace_line() {
  local n
  [ -f "$1" ] || { echo "$1: no such file"; return 1; }
  n="$(grep -cxF -- "$2" "$1" || true)"
  [ "$n" = 1 ] || { echo "$1: $n lines read exactly: $2 (want 1)"; return 1; }
  awk -v old="$2" -v new="$3" '$0 == old { print new; next } { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# ------------------------------------------------------------ the README --

step1_module() {
  readme_run 'go mod edit -module example.com/shouter'
  [ "$(go list -m)" = example.com/shouter ] || { echo "go list -m: $(go list -m)"; return 1; }
}
step1_name() {
  readme_has '`const serverName = "baremcp"` to `const serverName = "shouter"`'
  replace_line server.go 'const serverName = "baremcp"' 'const serverName = "shouter"'
  readme_has 'In `.gitignore`, change the line `/baremcp` to `/shouter`'
  replace_line .gitignore '/baremcp' '/shouter'
}
step2_demo() {
  readme_has '`registry_demo_test.go` to `//go:build demo`'
  local f
  for f in registry_demo.go registry_demo_test.go; do
    [ -f "$f" ] || { echo "$f: no such file"; return 1; }
    case "$(head -n 1 "$f")" in
      //go:build\ *) ;;
      *) echo "$f: line 1 is not a //go:build line: $(head -n 1 "$f")"; return 1 ;;
    esac
    replace_line "$f" "$(head -n 1 "$f")" '//go:build demo'
  done
}
# update_only_ours: -update must write the new transcript and leave every
# other transcript byte for byte as it was: they do not depend on the
# server's name or on the demo.
update_only_ours() {
  find testdata -type f -name '*.txt' ! -path testdata/shouter.txt -exec cksum {} + | sort >"$TMP/before"
  readme_run 'go test -run TestTranscripts -update .'
  find testdata -type f -name '*.txt' ! -path testdata/shouter.txt -exec cksum {} + | sort >"$TMP/after"
  diff "$TMP/before" "$TMP/after" || { echo "-update changed transcripts other than testdata/shouter.txt (above)"; return 1; }
  readme_run 'cat testdata/shouter.txt'
  local want
  for want in '"text":"HELLO"' '"text":"Every letter in upper case; at most 100 characters."' '"text":"Greet Ada with the shout tool."'; do
    grep -qF -- "$want" testdata/shouter.txt ||
      { echo "testdata/shouter.txt: no $want among the recorded answers (the tool, the resource, the prompt)"; return 1; }
  done
}
# transcript_can_fail: the runner really reads testdata/shouter.txt: with
# a wrong recorded answer, go test fails.
transcript_can_fail() {
  cp testdata/shouter.txt "$TMP/shouter.txt"
  sed 's/"text":"HELLO"/"text":"HELLO!"/' "$TMP/shouter.txt" >testdata/shouter.txt
  local rc=0
  go test -count=1 -run TestTranscripts . >"$TMP/tampered" 2>&1 || rc=$?
  cp "$TMP/shouter.txt" testdata/shouter.txt
  if [ $rc -eq 0 ] || ! grep -q 'shouter' "$TMP/tampered"; then
    cat "$TMP/tampered"
    echo "go test passed, or failed without naming shouter, with a wrong answer in testdata/shouter.txt"
    return 1
  fi
}
# tree_sum: one checksum of every file of the copy, names and contents.
tree_sum() {
  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cksum | cksum
}
# go_test_tested: README's go test ./..., run (step 4), and the tree it
# passed on noted for step 5.
go_test_tested() {
  readme_run 'go test ./...'
  tree_sum >"$TMP/tested-tree"
}
# same_tree_tested: README shows go test ./... again (step 5) and the
# copy is byte for byte the tree step 4's go test ./... passed on (the
# checks between them restore what they change), so that run stands for
# this one: go test ./... twice on one tree tests nothing twice.
same_tree_tested() {
  grep -qxF -- 'go test ./...' <(sed 's/^ *//' "$README") ||
    { echo "README.md no longer shows the command: go test ./..."; return 1; }
  [ "$(tree_sum)" = "$(cat "$TMP/tested-tree")" ] ||
    { echo "the copy changed since step 4's go test ./... passed on it"; return 1; }
}
# own_tests TAGS: the tests the build TAGS adds to the untagged build's
# (harness/builds/own-tests.sh), as the copy's .ci/run runs them.
own_tests() {
  local pat
  pat="$(harness/builds/own-tests.sh "$1")"
  if [ -z "$pat" ]; then
    echo "-tags $1 adds no test of its own"
    return 0
  fi
  go test -count=1 -tags "$1" -run "$pat" ./...
}
release_lists_shout() {
  (cd "$HERE/listcheck" && go run . -bin "$COPY/shouter" -name shouter -tools shout)
}
# release_names_its_secrets: the renamed server reads SHOUTER_STATE_KEY (a
# short one stops it with an error naming the variable) and its -h names
# SHOUTER_ variables, no BAREMCP_ one.
release_names_its_secrets() {
  readme_has '`shouter` reads `SHOUTER_TOKEN`'
  local out rc=0
  out="$(SHOUTER_STATE_KEY=short ./shouter </dev/null 2>&1)" || rc=$?
  if [ $rc -eq 0 ] || [[ "$out" != *SHOUTER_STATE_KEY* ]]; then
    echo "$out"; echo "SHOUTER_STATE_KEY=short did not stop shouter with an error naming SHOUTER_STATE_KEY"; return 1
  fi
  out="$(./shouter -h 2>&1 || true)"
  if [[ "$out" == *BAREMCP_* ]] || [[ "$out" != *SHOUTER_STATE_KEY* ]] || [[ "$out" != *SHOUTER_TOKEN* ]]; then
    echo "$out"; echo "shouter -h names a BAREMCP_ variable, or not SHOUTER_STATE_KEY and SHOUTER_TOKEN"; return 1
  fi
}

# release_ignored: git status does not show the release binary (the
# copy's .gitignore names it, step 1).
release_ignored() {
  git init -q "$TMP/ignored" && cp .gitignore "$TMP/ignored/" && : >"$TMP/ignored/shouter"
  git -C "$TMP/ignored" check-ignore -q shouter || { echo ".gitignore does not ignore shouter:"; cat .gitignore; return 1; }
}

# release_static_versioned: the release binary is static and says the
# version README's command sets.
release_static_versioned() {
  file -b shouter | grep -q "statically linked" || { echo "file: $(file -b shouter)"; return 1; }
  case "$(./shouter -version)" in
    "shouter v1.0.0 "*) ;;
    *) echo "-version: $(./shouter -version)"; return 1 ;;
  esac
}

# skips SCRIPT: SCRIPT prints one line saying it is skipped, and exits 0.
skips() {
  local out
  out="$("$1" 2>&1)" || { echo "$out"; echo "$1 exited non-zero"; return 1; }
  echo "$out"
  if [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || [[ "$out" != *skipped* ]]; then
    echo "$1 did not print one line saying it is skipped"
    return 1
  fi
}

check "1. go mod edit -module example.com/shouter" step1_module
check "1. server.go: const serverName = \"shouter\"" step1_name
check "2. registry_demo.go, registry_demo_test.go: //go:build demo" step2_demo
check "3. registry_shouter.go from README" readme_file registry_shouter.go
if [ -n "$RENAMED" ]; then
  [ $failed -eq 0 ] || exit 1
  exit 0
fi
check "4. testdata/shouter.txt from README" readme_file testdata/shouter.txt
check "4. go test -run TestTranscripts -update . writes shouter.txt alone" update_only_ours
check "4. go test ./..." go_test_tested
check "4. go test fails when shouter.txt records a wrong answer" transcript_can_fail
check "5. go vet ./..." readme_run 'go vet ./...'
check "5. go test ./... (the tree step 4's run passed on, unchanged)" same_tree_tested
check "5. CGO_ENABLED=0 go build -trimpath -ldflags='-s -w -X main.linkedVersion=v1.0.0' -o shouter ." readme_run "CGO_ENABLED=0 go build -trimpath -ldflags='-s -w -X main.linkedVersion=v1.0.0' -o shouter ."
check "5. the release binary lists shout alone and calls itself shouter" release_lists_shout
check "1. the release binary reads SHOUTER_STATE_KEY and names no BAREMCP_ variable" release_names_its_secrets
check "5. the release binary is static and says v1.0.0" release_static_versioned
check "1. .gitignore keeps the release binary out of git status" release_ignored

# ------------------------------------------------ the copy's own CI, in Go --

check "ci: go vet -tags demo ./..." go vet -tags demo ./...
check "ci: go test -tags demo, the demo's own tests" own_tests demo
check "ci: go vet -tags bench ./..." go vet -tags bench ./...
check "ci: harness/probes/probe.sh (the demo, -tags demo)" harness/probes/probe.sh
check "ci: harness/make-it-yours/check.sh says it is skipped" skips harness/make-it-yours/check.sh

# ------------------------------------------- or delete the demo entirely --

delete_demo() {
  readme_has 'delete `registry_demo.go`, `registry_demo_test.go` and `testdata/demo/`'
  rm -rf registry_demo.go registry_demo_test.go testdata/demo
}
check "delete registry_demo.go, registry_demo_test.go, testdata/demo/" delete_demo
check "deleted: go vet ./..." go vet ./...
check "deleted: go test ./..." go test -count=1 ./...
check "deleted: harness/probes/probe.sh says it is skipped" skips harness/probes/probe.sh
check "deleted: harness/interop-ts/check.sh says it is skipped" skips harness/interop-ts/check.sh
check "deleted: harness/interop-clients/check.sh says it is skipped" skips harness/interop-clients/check.sh

echo
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
