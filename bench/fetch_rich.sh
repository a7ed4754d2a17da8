#!/usr/bin/env bash
# Fetch the pinned Rich 13.9.4 source (PyPI sdist) into bench/corpora/rich-13.9.4.
# Used by bench/queries/rich.jsonl; not committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/corpora"
python="${PYTHON:-python3}"
mkdir -p "$dest"
if [ ! -d "$dest/rich-13.9.4" ]; then
  tmp="$(mktemp -d)"
  "$python" -m pip download --quiet --no-binary :all: --no-deps rich==13.9.4 -d "$tmp"
  tar -xzf "$tmp"/rich-13.9.4.tar.gz -C "$dest"
  rm -rf "$tmp"
fi
echo "$dest/rich-13.9.4"
