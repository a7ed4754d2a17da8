#!/usr/bin/env bash
# Fetch the pinned Django 5.1.4 source (from PyPI's sdist) into bench/corpora/django-5.1.4.
# Used by the benchmarks; not committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/corpora"
mkdir -p "$dest"
if [ ! -d "$dest/django-5.1.4" ]; then
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-binary :all: --no-deps django==5.1.4 -d "$tmp"
  tar -xzf "$tmp"/[Dd]jango-5.1.4.tar.gz -C "$dest"
  [ -d "$dest/django-5.1.4" ] || mv "$dest"/[Dd]jango-5.1.4 "$dest/django-5.1.4"
  rm -rf "$tmp"
fi
echo "$dest/django-5.1.4"
