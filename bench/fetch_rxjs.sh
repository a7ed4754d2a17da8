#!/usr/bin/env bash
# Fetch the pinned RxJS 7.8.1 TypeScript sources (npm tarball) into bench/corpora/rxjs-7.8.1.
# Only the published `src/` tree, package.json and README are kept: `dist/` holds four compiled copies of
# the same sources (cjs, esm, esm5, types), which would put every answer in the index five times.
# Used by bench/queries/rxjs.jsonl and bench/perf.py; not committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/corpora"
mkdir -p "$dest"
if [ ! -d "$dest/rxjs-7.8.1" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent rxjs@7.8.1 >/dev/null)
  mkdir -p "$tmp/x" "$dest/rxjs-7.8.1"
  tar -xzf "$tmp"/rxjs-7.8.1.tgz -C "$tmp/x"
  mv "$tmp/x/package/src" "$tmp/x/package/package.json" "$tmp/x/package/README.md" "$dest/rxjs-7.8.1/"
  rm -rf "$tmp"
fi
echo "$dest/rxjs-7.8.1"
