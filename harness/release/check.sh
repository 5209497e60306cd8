#!/usr/bin/env bash
# check.sh - the release, as README's "Make it yours" and "Release and
# install" give it (issues 26 and 37), judged by the tools that consume it:
#
#   1. a server made its own: a scratch copy renamed as "Make it yours"
#      does (harness/make-it-yours/check.sh -renamed: module, name, demo
#      out, README's registry_shouter.go), committed in a scratch
#      repository; in a copy already made its own, the copy itself;
#   2. two clones of that commit each run README's release command
#      (harness/release/build.sh); every artefact is there under the new
#      name, and the two folders are byte for byte the same;
#   3. README's release binary command, from `git archive` of the commit
#      (no .git, so no VCS stamping), with -X main.linkedVersion:
#      -version and serverInfo.version say it, and it is statically
#      linked;
#   4. SHA256SUMS verifies (sha256sum -c); each SBOM says what
#      `go version -m` says of its binary; the provenance names the commit,
#      the toolchain, the flags and every binary's digest;
#   5. server.json against the MCP Registry's own schema, from its Go
#      module (pinned in verify/go.mod), the registry's rules for its
#      packages, every fileSha256 against its file, the image's label and
#      user (verify/);
#   6. every bundle validated by the official MCPB tool (@anthropic-ai/mcpb,
#      pinned in package-lock.json, npm ci on first use) and each Linux
#      bundle started as a host starts it (bundles.mjs; arm64 under
#      qemu-user, Windows under Wine when installed);
#   7. the OCI layout through skopeo inspect (the label, a user that is
#      not root) and umoci unpack (the runtime config's user; the unpacked
#      binary answers server/discover);
#   8. README's "Release and install" shows the install.md the release
#      command wrote, word for word (in the baremcp project only: a copy's
#      README is its own).
#
# usage: harness/release/check.sh [-quick] [-k]
#   -quick  build both clones with the usual build cache (what CI runs: the
#           second clone compiles nothing); without it the second clone is
#           built with a fresh cache, which compiles the standard library
#           for every target again (many minutes on 2 cores)
#   -k      keep the scratch folder (the release is its clone1/dist)
#
# Needs git, go, node and npm, file; skopeo, umoci and qemu-user are
# installed from the distribution's packages when missing and run as root
# (as CI does), else their checks say they are skipped. Prints PASS, FAIL
# or SKIP per check and last "N passed, M failed".
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
README="$ROOT/README.md"
quick=false keep=false
for a in "$@"; do
  case "$a" in
    -quick) quick=true ;;
    -k) keep=true ;;
    *) echo "check.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
START=$SECONDS
tmp="$(mktemp -d)"
if $keep; then
  trap 'echo "check.sh: kept $tmp (the release: $tmp/clone1/dist)"' EXIT
else
  trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fi
export GOWORK=off
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; failed=$((failed + 1)); }
skip() { echo "SKIP $1"; }
# finish: the closing line, and the status.
finish() {
  echo "release check: $((SECONDS - START)) s"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}

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

# mkrelease's own tests (how it reads -h, the grant prompts, the forms of
# a repository; TestThisServer, which builds this checkout, is left to
# the release below, which asks the renamed server the same).
if (cd "$HERE/mkrelease" && go test -short -count=1 .) >"$tmp/unit.log" 2>&1; then
  pass "mkrelease: go test -short ($(tail -1 "$tmp/unit.log" | awk '{print $NF}'))"
else
  fail "mkrelease: go test -short" "$(tail -20 "$tmp/unit.log")"
fi

# ------------------------------------------- 1. a server of one's own --

# README's release command: the line of README that runs build.sh.
release_cmd="harness/release/build.sh -version 1.0.0 -repo github.com/you/shouter dist"
module="$(cd "$ROOT" && go list -m)"
src="$tmp/src"
if [ "$module" = baremcp ]; then
  grep -qxF -- "$release_cmd" <(sed 's/^ *//' "$README") ||
    { fail "README.md no longer shows the release command: $release_cmd"; finish; }
  if ! "$ROOT/harness/make-it-yours/check.sh" -renamed "$src" >"$tmp/renamed.log" 2>&1; then
    fail "a copy renamed as Make it yours does (harness/make-it-yours/check.sh -renamed)" "$(tail -20 "$tmp/renamed.log")"
    finish
  fi
  # One commit, the same from any run: its author and time are fixed.
  (cd "$src" && git init -q && git add -A &&
    GIT_AUTHOR_NAME=you GIT_AUTHOR_EMAIL=you@example.com GIT_COMMITTER_NAME=you GIT_COMMITTER_EMAIL=you@example.com \
    GIT_AUTHOR_DATE="2026-07-28T00:00:00Z" GIT_COMMITTER_DATE="2026-07-28T00:00:00Z" git commit -qm "shouter, made its own")
  name=shouter
  call=(--call shout --args '{"text":"hello"}' --expect HELLO)
  pass "a copy renamed shouter as Make it yours does, committed"
else
  # A copy made its own releases itself, as its README's owner would.
  git clone -q --no-local "$ROOT" "$src"
  name="$(sed -n 's/^const serverName = "\(.*\)"$/\1/p' "$src/server.go")"
  release_cmd="harness/release/build.sh -version 1.0.0 -repo github.com/you/$name dist"
  call=()
fi
commit="$(git -C "$src" rev-parse HEAD)"

# ---------------------------------- 2. two clones, the release command --

for n in 1 2; do
  git clone -q --no-local "$src" "$tmp/clone$n"
done
cache2="$tmp/cache2"
$quick && cache2="$(go env GOCACHE)"
t0=$SECONDS
if ! (cd "$tmp/clone1" && bash -euo pipefail -c "$release_cmd") >"$tmp/build1.log" 2>&1; then
  fail "clone 1: $release_cmd" "$(tail -20 "$tmp/build1.log")"
  finish
fi
t1=$SECONDS
if ! (cd "$tmp/clone2" && GOCACHE="$cache2" bash -euo pipefail -c "$release_cmd") >"$tmp/build2.log" 2>&1; then
  fail "clone 2: $release_cmd" "$(tail -20 "$tmp/build2.log")"
  finish
fi
t2=$SECONDS
rel="$tmp/clone1/dist"
pass "$release_cmd: clone 1 in $((t1 - t0)) s, clone 2 in $((t2 - t1)) s ($($quick && echo "one build cache" || echo "a fresh build cache"))"

want=()
for t in darwin-amd64 darwin-arm64 linux-amd64 linux-arm64 windows-amd64 windows-arm64; do
  x=""; [ "${t%-*}" = windows ] && x=.exe
  want+=("$name-1.0.0-$t$x" "$name-1.0.0-$t.spdx.json" "$name-stdio-1.0.0-$t$x" "$name-stdio-1.0.0-$t.spdx.json" "$name-1.0.0-$t.mcpb")
done
want+=(server.json install.md provenance.intoto.json SHA256SUMS oci/oci-layout oci/index.json)
missing=""
for f in "${want[@]}"; do [ -f "$rel/$f" ] || missing+=" $f"; done
others="$(cd "$rel" && find . -type f ! -path './oci/blobs/sha256/*' | sed 's|^\./||' | sort | grep -vxF -f <(printf '%s\n' "${want[@]}") || true)"
if [ -z "$missing" ] && [ -z "$others" ]; then
  pass "every artefact, named $name: ${#want[@]} files and the layout's blobs"
else
  fail "the artefacts: missing:$missing; unexpected: $others"
fi
if diff -r "$rel" "$tmp/clone2/dist" >"$tmp/diff" 2>&1; then
  pass "two clones of $(echo "$commit" | cut -c1-12): byte-identical ($(find "$rel" -type f | wc -l) files, $(du -sh "$rel" | cut -f1))"
else
  fail "two clones differ" "$(head -20 "$tmp/diff")"
fi
for t in linux-amd64 linux-arm64; do
  case "$(file -b "$rel/$name-1.0.0-$t")" in
    *"statically linked"*) pass "$name-1.0.0-$t: statically linked" ;;
    *) fail "$name-1.0.0-$t: not statically linked" "$(file -b "$rel/$name-1.0.0-$t")" ;;
  esac
done

# ---------------------------------------- 3. README's release binary --

# From git archive of the same commit (no .git: no VCS stamping), README's
# release binary command: the compiler's work is in the build cache
# already, so this costs a link.
step5="CGO_ENABLED=0 go build -trimpath -ldflags='-s -w -X main.linkedVersion=v1.0.0' -o $name ."
mkdir "$tmp/archive"
git -C "$src" archive "$commit" | tar -x -C "$tmp/archive"
(cd "$tmp/archive" && GOFLAGS=-buildvcs=auto bash -euo pipefail -c "$step5")
got="$("$tmp/archive/$name" -version)"
case "$got" in
  "$name v1.0.0 go"*) pass "git archive, then $step5: -version prints $got" ;;
  *) fail "git archive build with -X: -version printed \"$got\", want $name v1.0.0" ;;
esac
discover='{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
if printf '%s\n' "$discover" | "$tmp/archive/$name" 2>/dev/null | grep -qF '"version":"v1.0.0"'; then
  pass "serverInfo.version is v1.0.0"
else
  fail "serverInfo.version is not v1.0.0" "$(printf '%s\n' "$discover" | "$tmp/archive/$name" 2>&1 | head -c 400)"
fi
case "$(file -b "$tmp/archive/$name")" in
  *"statically linked"*) pass "file: statically linked" ;;
  *) fail "file: not statically linked" "$(file -b "$tmp/archive/$name")" ;;
esac

# ------------------------------- 4. checksums, SBOMs, the provenance --

if (cd "$rel" && sha256sum --quiet -c SHA256SUMS) >"$tmp/sums" 2>&1 && [ "$(wc -l <"$rel/SHA256SUMS")" -gt ${#want[@]} ]; then
  pass "sha256sum -c SHA256SUMS: $(wc -l <"$rel/SHA256SUMS") files"
else
  fail "sha256sum -c SHA256SUMS" "$(head "$tmp/sums")"
fi
sbom_bad=""
for f in "$rel"/*.spdx.json; do
  bin="${f%.spdx.json}"; [ -f "$bin" ] || bin="$bin.exe"
  m="$(go version -m "$bin")"
  gov="$(printf '%s\n' "$m" | sed -n '1s/.*: //p')"
  mod="$(printf '%s\n' "$m" | awk '$1 == "mod" {print $2 " " $3}')"
  ldflags="$(printf '%s\n' "$m" | awk -F'\t' '$2 == "build" && $3 ~ /^-ldflags=/ {print $3}')"
  sum="$(sha256sum <"$bin" | cut -d' ' -f1)"
  node -e '
    const [f, gov, mod, ldflags, rev, sum] = process.argv.slice(1);
    const d = JSON.parse(require("fs").readFileSync(f, "utf8"));
    const [path, version] = mod.split(" ");
    const p = (id) => d.packages.find((x) => x.SPDXID === id) ?? {};
    const bin = p("SPDXRef-Binary"), main = p("SPDXRef-Module-main"), std = p("SPDXRef-Module-stdlib");
    const ok = d.spdxVersion === "SPDX-2.3" && bin.checksums?.[0]?.checksumValue === sum &&
      main.name === path && main.versionInfo === version && std.versionInfo === gov &&
      bin.comment.includes(ldflags) && bin.comment.includes("vcs.revision=" + rev) && main.downloadLocation.endsWith("@" + rev);
    if (!ok) { console.log(JSON.stringify({bin, main, std})); process.exit(1); }
  ' "$f" "$gov" "$mod" "$ldflags" "$commit" "$sum" >>"$tmp/sbom" 2>&1 || sbom_bad+=" ${f##*/}"
done
if [ -z "$sbom_bad" ]; then
  pass "each SBOM (SPDX 2.3) says what go version -m says of its binary: module, Go, -ldflags, revision, SHA-256"
else
  fail "SBOMs that disagree with go version -m:$sbom_bad" "$(head -c 1500 "$tmp/sbom")"
fi
if node -e '
  const [f, commit, toolchain, dir] = process.argv.slice(1);
  const fs = require("fs"), crypto = require("crypto");
  const s = JSON.parse(fs.readFileSync(f, "utf8"));
  const b = s.predicate.buildDefinition;
  const digests = s.subject.every((x) => crypto.createHash("sha256").update(fs.readFileSync(dir + "/" + x.name)).digest("hex") === x.digest.sha256);
  const ok = s._type === "https://in-toto.io/Statement/v1" && s.predicateType === "https://slsa.dev/provenance/v1" &&
    s.subject.length === 12 && digests && b.externalParameters.commit === commit &&
    b.resolvedDependencies[0].digest.gitCommit === commit && b.internalParameters.toolchain === toolchain &&
    b.internalParameters.builds.every((x) => x.command.includes("-trimpath") && x.command.includes("-X main.linkedVersion=v1.0.0")) &&
    b.internalParameters.env.includes("CGO_ENABLED=0");
  process.exit(ok ? 0 : 1);
' "$rel/provenance.intoto.json" "$commit" "$(go version)" "$rel"; then
  pass "provenance: commit ${commit:0:12}, $(go version | cut -d' ' -f3), the flags, the 12 binaries' digests"
else
  fail "provenance" "$(head -c 1500 "$rel/provenance.intoto.json")"
fi

# ------------------------------------- 5. server.json, the registry's --

if (cd "$HERE/verify" && go mod download github.com/modelcontextprotocol/registry) >"$tmp/verify.log" 2>&1; then
  schema="$(cd "$HERE/verify" && go list -m -f '{{.Dir}}' github.com/modelcontextprotocol/registry)/internal/validators/schemas/2025-12-11.json"
  if (cd "$HERE/verify" && go run . -schema "$schema" -release "$rel") >"$tmp/verify.log" 2>&1; then
    pass "server.json: the registry's schema (github.com/modelcontextprotocol/registry v1.8.9), its package rules, every fileSha256, the image's label and user ($(tail -1 "$tmp/verify.log"))"
  else
    fail "server.json (verify/)" "$(grep -v '^PASS' "$tmp/verify.log")"
  fi
else
  fail "go mod download github.com/modelcontextprotocol/registry" "$(tail "$tmp/verify.log")"
fi

# ------------------------------------------ 6. the bundles, as hosts --

need qemu-aarch64 qemu-user || true
if [ ! -f "$HERE/node_modules/@anthropic-ai/mcpb/package.json" ]; then
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >"$tmp/npm.log" 2>&1 ||
    { fail "npm ci (@anthropic-ai/mcpb)" "$(tail "$tmp/npm.log")"; finish; }
fi
if node "$HERE/bundles.mjs" --release "$rel" "${call[@]}" >"$tmp/bundles.log" 2>&1; then
  pass "bundles: mcpb unpack and validate each, the Linux ones started as a host starts them ($(tail -1 "$tmp/bundles.log"))"
else
  fail "bundles (bundles.mjs)" "$(grep -v '^PASS' "$tmp/bundles.log")"
fi
grep '^SKIP' "$tmp/bundles.log" || true

# --------------------------------------------------- 7. the OCI image --

if need skopeo skopeo; then
  if skopeo inspect "oci:$rel/oci:1.0.0" >"$tmp/inspect.json" 2>&1 && skopeo inspect --config "oci:$rel/oci:1.0.0" >"$tmp/config.json" 2>&1 &&
    node -e '
      const fs = require("fs");
      const i = JSON.parse(fs.readFileSync(process.argv[1])), c = JSON.parse(fs.readFileSync(process.argv[2]));
      const s = JSON.parse(fs.readFileSync(process.argv[3]));
      const user = (c.config.User ?? "").split(":")[0];
      process.exit(i.Labels["io.modelcontextprotocol.server.name"] === s.name && user !== "" && user !== "0" && user !== "root" ? 0 : 1);
    ' "$tmp/inspect.json" "$tmp/config.json" "$rel/server.json"; then
    pass "skopeo inspect oci:…/oci:1.0.0: label io.modelcontextprotocol.server.name=$(sed -n 's/.*"io.modelcontextprotocol.server.name": "\(.*\)".*/\1/p' "$tmp/inspect.json" | head -1), User $(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1])).config.User' "$tmp/config.json")"
  else
    fail "skopeo inspect" "$(cat "$tmp/inspect.json" "$tmp/config.json" | head -40)"
  fi
else
  skip "skopeo inspect: skopeo is not installed, and installing it needs root and apt-get (apt-get install skopeo)"
fi
if need umoci umoci; then
  if umoci unpack --rootless --image "$rel/oci:1.0.0-linux-amd64" "$tmp/bundle" >"$tmp/umoci.log" 2>&1 &&
    uid="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1])).process.user.uid' "$tmp/bundle/config.json")" &&
    [ "$uid" != 0 ] && printf '%s\n' "$discover" | "$tmp/bundle/rootfs/$name" 2>/dev/null | grep -qF "\"name\":\"$name\""; then
    pass "umoci unpack oci:1.0.0-linux-amd64: the runtime config's uid is $uid, and /$name of its root answers server/discover"
  else
    fail "umoci unpack" "$(tail -5 "$tmp/umoci.log"; cat "$tmp/bundle/config.json" 2>/dev/null | head -c 600)"
  fi
else
  skip "umoci unpack: umoci is not installed, and installing it needs root and apt-get (apt-get install umoci)"
fi

# --------------------------------------- 8. README shows the snippets --

if [ "$module" = baremcp ]; then
  awk '/^<!-- install.md of /{f = 1} f {print} f && /^<!-- \/install.md -->$/ {exit}' "$README" | sed '$d' >"$tmp/readme-install.md"
  if cmp -s "$tmp/readme-install.md" "$rel/install.md"; then
    pass "README's Release and install shows install.md as the release command wrote it"
  else
    fail "README's Release and install differs from the install.md the release command wrote (copy it between the markers)" "$(diff "$tmp/readme-install.md" "$rel/install.md" | head -30)"
  fi
fi
finish
