#!/usr/bin/env bash
# Fetch the 12 corpora of the semble benchmark (bench/queries/semble.jsonl) from PyPI and npm, pinned to
# exact releases, into bench/corpora/semble/<repo>. The labels were made on 2026-04 upstream commits;
# these are the nearest registry releases (file-level labels survive; line labels may drift).
# Usage: bench/fetch_semble.sh [REPO...]   (no argument: all 12). Not committed: the corpora.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/corpora/semble"
python="${PYTHON:-python3}"
mkdir -p "$dest"

# repo  registry  package  version
pins=(
  "aiohttp    pypi aiohttp    3.13.5"
  "fastapi    pypi fastapi    0.135.3"
  "flask      pypi flask      3.1.3"
  "httpx      pypi httpx      0.28.1"
  "model2vec  pypi model2vec  0.8.1"
  "pydantic   pypi pydantic   2.13.0"
  "requests   pypi requests   2.33.1"
  "starlette  pypi starlette  1.0.0"
  "click      pypi click      8.3.2"
  "axios      npm  axios      1.15.0"
  "express    npm  express    5.2.1"
  "redux      npm  redux      5.0.1"
)

fetch_pypi() {  # $1 repo, $2 package, $3 version, $4 tmp
  # pip prepares an sdist's metadata, so it fetches the build backend (hatchling, setuptools…) too.
  "$python" -m pip download --quiet --no-binary :all: --no-deps "$2==$3" -d "$4"
  local archive
  archive="$(ls "$4"/*.tar.gz "$4"/*.zip 2>/dev/null | head -1)"
  mkdir -p "$4/x"
  case "$archive" in
    *.zip) (cd "$4/x" && unzip -q "$archive") ;;
    *) tar -xzf "$archive" -C "$4/x" ;;
  esac
  mv "$4"/x/* "$dest/$1"
}

fetch_npm() {  # $1 repo, $2 package, $3 version, $4 tmp
  (cd "$4" && npm pack --silent "$2@$3" >/dev/null)
  mkdir -p "$4/x"
  tar -xzf "$4"/*.tgz -C "$4/x"
  mv "$4/x/package" "$dest/$1"
}

for pin in "${pins[@]}"; do
  read -r repo registry package version <<<"$pin"
  if [ "$#" -gt 0 ] && [[ " $* " != *" $repo "* ]]; then continue; fi
  if [ -d "$dest/$repo" ]; then echo "have $repo"; continue; fi
  tmp="$(mktemp -d)"
  if "fetch_$registry" "$repo" "$package" "$version" "$tmp"; then
    echo "$repo $package==$version -> $dest/$repo"
  else
    echo "FAILED $repo $package==$version" >&2
  fi
  rm -rf "$tmp"
done
