#!/usr/bin/env bash
# Fetch the corpora of the held-out semble set (bench/queries/semble-rest.jsonl): 13 repositories of
# MinishLab's semble benchmark that neither semble.jsonl nor semble-more holds, at pinned registry
# releases (Debian source packages, one npm package), laid out as DEST/<repo>/<benchmark_root>.
#
# usage: bench/fetch_semble_rest.sh DEST [REPO...]     (no REPO: all 13)
#
# The labels were made on upstream commits of 2026 (bench/queries/semble-rest-repos.json); these are
# the nearest releases the registries serve. Where a release keeps the labelled files under another
# folder (Jackson 2's com/fasterxml/... for Jackson 3's tools/jackson/..., kotlinx.coroutines 1.0's
# common/kotlinx-coroutines-core-common/src, serde 1.0.217's src before serde_core split off), that
# folder is copied to the labelled benchmark root, so the labels' paths stay as published.
# `apt-get source` needs a deb-src entry; like fetch_debian.sh this brings its own (sources list,
# package lists and cache in a temporary folder): the machine's apt setup is neither read nor changed.
# Only upstream tarballs are unpacked (Debian's patches are not applied). Idempotent: a repo whose
# marker DEST/.<repo>.complete exists is skipped (the marker sits outside the indexed folder; it names
# the release, which make_semble_rest.py copies into the repos file). The corpora are never committed.
set -euo pipefail
if [ "$#" -lt 1 ]; then echo "usage: $0 DEST [REPO...]" >&2; exit 2; fi
dest="$1"; shift
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

# repo | registry | package=version | folder in the release | benchmark root it is laid out as
pins=(
  "gin|deb|golang-github-gin-gonic-gin=1.8.1-4|.|."
  "cobra|deb|golang-github-spf13-cobra=1.10.2-1|.|."
  "chi|deb|golang-github-go-chi-chi=5.3.0-1|.|."
  "gson|deb|libgoogle-gson-java=2.10.1-1|gson|gson"
  "jackson-databind|deb|jackson-databind=2.14.0-1+deb12u1|src/main/java/com/fasterxml/jackson/databind|src/main/java/tools/jackson/databind"
  "sinatra|deb|ruby-sinatra=4.2.1-5|lib|lib"
  "rack|deb|ruby-rack=3.2.7-1|lib/rack|lib/rack"
  "serde|deb|rust-serde=1.0.217-1|src|serde_core/src"
  "nlohmann-json|deb|nlohmann-json3=3.11.3-2.1|include/nlohmann|include/nlohmann"
  "abseil-cpp|deb|abseil=20260107.0-5|absl|absl"
  "libuv|deb|libuv1=1.50.0-2|src|src"
  "kotlinx-coroutines|deb|kotlinx-coroutines=1.0.1-3|common/kotlinx-coroutines-core-common/src|kotlinx-coroutines-core/common/src"
  "trpc|npm|@trpc/server=11.17.0|src|packages/server/src"
)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
apt_ready=""
apt=(-o "Dir::Etc::SourceList=$tmp/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$tmp/apt/lists" -o "Dir::Cache=$tmp/apt/cache" -o APT::Sandbox::User=root)

apt_setup() {  # once, on the first Debian package needed
  [ -n "$apt_ready" ] && return 0
  mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial"
  for suite in bookworm trixie sid; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
  done > "$tmp/apt/sources.list"
  apt-get "${apt[@]}" -qq update
  apt_ready=1
}

fetch_deb() {  # $1 package=version, $2 work folder: unpack the upstream tarball into $2/x
  apt_setup
  local name="${1%%=*}" orig
  # The upstream tarball is enough: a package whose Debian part is gone from the mirror still unpacks.
  (cd "$2" && apt-get "${apt[@]}" -qq source --download-only "$1" >/dev/null 2>&1 || true)
  orig="$(ls "$2/${name}_"*.orig.tar.* 2>/dev/null | head -1)"
  [ -n "$orig" ] || { echo "could not fetch $1" >&2; return 1; }
  mkdir -p "$2/x"
  tar -xf "$orig" -C "$2/x" --strip-components=1
}

fetch_npm() {  # $1 package=version, $2 work folder
  (cd "$2" && npm pack --silent "${1%%=*}@${1#*=}" >/dev/null)
  mkdir -p "$2/x"
  tar -xzf "$2"/*.tgz -C "$2/x" --strip-components=1
}

for pin in "${pins[@]}"; do
  IFS='|' read -r repo registry spec inner root <<<"$pin"
  if [ "$#" -gt 0 ] && [[ " $* " != *" $repo "* ]]; then continue; fi
  if [ -f "$dest/.$repo.complete" ]; then echo "have $repo"; continue; fi
  work="$tmp/$repo"
  mkdir -p "$work"
  "fetch_$registry" "$spec" "$work"
  rm -rf "${dest:?}/$repo"
  mkdir -p "$dest/$repo/$(dirname "$root")"
  if [ "$root" = "." ]; then
    cp -r "$work/x/." "$dest/$repo/"
  else
    cp -r "$work/x/$inner" "$dest/$repo/$root"
    # Each project's licence travels with its files.
    find "$work/x" -maxdepth 1 -type f \( -iname 'license*' -o -iname 'copying*' -o -iname 'notice*' \
      -o -iname 'mit-license*' \) -exec cp {} "$dest/$repo/" \;
  fi
  echo "$spec ($registry)" > "$dest/.$repo.complete"
  echo "$repo $spec -> $dest/$repo/$root"
  rm -rf "$work"
done
