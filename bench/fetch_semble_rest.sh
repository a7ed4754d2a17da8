#!/usr/bin/env bash
# Fetch the corpora of the held-out semble set (bench/queries/semble-rest.jsonl): 14 repositories of
# MinishLab's semble benchmark that neither semble.jsonl nor semble-more holds, at pinned registry
# releases (Debian source packages, Debian's Rust -dev packages, which carry each crate's source, and
# one npm package), laid out as DEST/<repo>/<benchmark_root>.
#
# usage: bench/fetch_semble_rest.sh DEST [REPO...]     (no REPO: all 14)
#
# The labels were made on upstream commits of 2026 (bench/queries/semble-rest-repos.json); these are
# the nearest releases the registries serve. Where a release keeps the labelled files under another
# folder (Jackson 2's com/fasterxml/... for Jackson 3's tools/jackson/..., kotlinx.coroutines 1.0's
# common/kotlinx-coroutines-core-common/src, a crate's src/ for the repository's <crate>/src), that
# folder is copied to the labelled path, so the labels' paths stay as published.
# apt needs deb/deb-src entries; like fetch_debian.sh this brings its own (sources list, package lists,
# cache and an empty dpkg status in a temporary folder): the machine's apt setup is neither read nor
# changed. Only upstream tarballs are unpacked (Debian's patches are not applied; a -dev package's
# crate source is as Debian ships it). Idempotent: a repo whose marker DEST/.<repo>.complete exists is
# skipped (the marker sits outside the indexed folder; it names the releases, which
# make_semble_rest.py copies into the repos file). The corpora are never committed.
set -euo pipefail
if [ "$#" -lt 1 ]; then echo "usage: $0 DEST [REPO...]" >&2; exit 2; fi
dest="$1"; shift
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

# repo | registry | package=version | folder in the release | path it is laid out as [| subfolder left out]
# (deb: source package; debdev: binary package, folder inside it; several lines may fill one repo).
# serde/src/core is a symlink to serde_core/src upstream; the crate holds a copy, left out so that each
# file is there once (a copy ranks beside the labelled file and pushes everything else down).
pins=(
  "gin|deb|golang-github-gin-gonic-gin=1.8.1-4|.|."
  "cobra|deb|golang-github-spf13-cobra=1.10.2-1|.|."
  "chi|deb|golang-github-go-chi-chi=5.3.0-1|.|."
  "gson|deb|libgoogle-gson-java=2.10.1-1|gson|gson"
  "jackson-databind|deb|jackson-databind=2.14.0-1+deb12u1|src/main/java/com/fasterxml/jackson/databind|src/main/java/tools/jackson/databind"
  "sinatra|deb|ruby-sinatra=4.2.1-5|lib|lib"
  "rack|deb|ruby-rack=3.2.7-1|lib/rack|lib/rack"
  "serde|debdev|librust-serde-dev=1.0.229-1|usr/share/cargo/registry/serde-1.0.229/src|serde/src|core"
  "serde|debdev|librust-serde-core-dev=1.0.229-1|usr/share/cargo/registry/serde_core-1.0.229/src|serde_core/src"
  "serde|debdev|librust-serde-derive-dev=1.0.229-3|usr/share/cargo/registry/serde_derive-1.0.229/src|serde_derive/src"
  "axum|debdev|librust-axum-dev=0.8.9+0.8.9+ds-5|usr/share/cargo/registry/axum-0.8.9/src|axum/src"
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
     -o "Dir::State::Lists=$tmp/apt/lists" -o "Dir::State::status=$tmp/apt/status" -o "Dir::Cache=$tmp/apt/cache"
     -o APT::Sandbox::User=root)

apt_setup() {  # once, on the first Debian package needed
  [ -n "$apt_ready" ] && return 0
  mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial"
  : > "$tmp/apt/status"
  for suite in bookworm trixie sid; do
    for kind in deb deb-src; do
      echo "$kind [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
    done
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

fetch_debdev() {  # $1 package=version, $2 work folder: the binary package's files into $2/x
  apt_setup
  (cd "$2" && apt-get "${apt[@]}" -qq download "$1" >/dev/null)
  mkdir -p "$2/x"
  dpkg-deb -x "$2/${1%%=*}_"*.deb "$2/x"
  # The crate's licence files if it ships them, else Debian's copyright file (axum ships none).
  find "$2/x/usr/share/cargo/registry" -mindepth 2 -maxdepth 2 -type f -iname 'license*' -exec cp {} "$2/x" \;
  ls "$2/x"/LICENSE* >/dev/null 2>&1 || cp "$2/x/usr/share/doc/${1%%=*}/copyright" "$2/x/copyright"
}

fetch_npm() {  # $1 package=version, $2 work folder
  (cd "$2" && npm pack --silent "${1%%=*}@${1#*=}" >/dev/null)
  mkdir -p "$2/x"
  tar -xzf "$2"/*.tgz -C "$2/x" --strip-components=1
}

repos=()
for pin in "${pins[@]}"; do
  repo="${pin%%|*}"
  [[ " ${repos[*]} " == *" $repo "* ]] || repos+=("$repo")
done

for repo in "${repos[@]}"; do
  if [ "$#" -gt 0 ] && [[ " $* " != *" $repo "* ]]; then continue; fi
  if [ -f "$dest/.$repo.complete" ]; then echo "have $repo"; continue; fi
  rm -rf "${dest:?}/$repo"
  specs=()
  for pin in "${pins[@]}"; do
    IFS='|' read -r name registry spec inner root omit <<<"$pin"
    [ "$name" = "$repo" ] || continue
    work="$tmp/work"
    rm -rf "$work" && mkdir -p "$work"
    "fetch_$registry" "$spec" "$work"
    mkdir -p "$dest/$repo/$(dirname "$root")"
    if [ "$root" = "." ]; then
      cp -r "$work/x/." "$dest/$repo/"
    else
      cp -r "$work/x/$inner" "$dest/$repo/$root"
      if [ -n "$omit" ]; then rm -rf "${dest:?}/$repo/$root/$omit"; fi
      # Each project's licence travels with its files.
      find "$work/x" -maxdepth 1 -type f \( -iname 'license*' -o -iname 'copying*' -o -iname 'notice*' \
        -o -iname 'mit-license*' -o -name copyright \) -exec cp {} "$dest/$repo/" \;
    fi
    specs+=("$spec ($registry)")
    echo "$repo $spec -> $dest/$repo/$root"
  done
  (IFS=,; echo "${specs[*]}") | sed 's/,/, /g' > "$dest/.$repo.complete"
done
