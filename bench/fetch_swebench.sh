#!/usr/bin/env bash
# Fetch the corpora of the SWE-bench Lite localisation benchmark (../shared/bench/swebench-lite/): for each
# instance, the PyPI sdist of its `release_before`, pinned below (65 releases of nine projects), unpacked to
# DEST/<repo>-<version>/ with the sdist's top folder stripped, so paths match `gold_files`
# (sympy-1.1.1/sympy/core/basic.py). Then every gold file is looked up and misses are reported, not dropped:
# the corpus is the nearest release, not the base commit.
#
# Usage: bench/fetch_swebench.sh [DEST [INSTANCES]]
#   DEST       default bench/corpora/swebench
#   INSTANCES  default ../shared/bench/swebench-lite/instances.jsonl (only read for the gold-file check)
# Not committed: the corpora.
#
# pip prepares an sdist's metadata, and old releases (astropy 2.0, sympy 1.0…) no longer build on a current
# Python, so pip fails after it has the archive. Then the archive is taken from the same registry's simple
# index (the link pip itself uses) and checked against the sha256 the index publishes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:-$here/corpora/swebench}"
instances="${2:-$here/../../shared/bench/swebench-lite/instances.jsonl}"
python="${PYTHON:-python3}"
index="${FOURFOLD_SIMPLE_INDEX:-https://pypi.org/simple}"
mkdir -p "$dest"

# repo  package  version
pins=(
  "astropy astropy 2.0.3" "astropy astropy 3.0.4" "astropy astropy 5.0.1" "astropy astropy 5.2"
  "astropy astropy 5.2.2" "astropy astropy 5.3"
  "seaborn seaborn 0.11.2" "seaborn seaborn 0.12.0" "seaborn seaborn 0.12.1" "seaborn seaborn 0.12.2"
  "flask flask 1.1.4" "flask flask 2.2.3"
  "requests requests 0.14.0" "requests requests 2.2.1" "requests requests 2.3.0" "requests requests 2.4.3"
  "requests requests 2.7.0" "requests requests 2.9.2"
  "xarray xarray 0.13.0" "xarray xarray 0.15.1" "xarray xarray 0.16.0" "xarray xarray 0.16.2"
  "xarray xarray 0.17.0"
  "pylint pylint 2.12.2" "pylint pylint 2.13.8" "pylint pylint 2.14.3" "pylint pylint 2.14.5"
  "pylint pylint 2.15.9"
  "pytest pytest 4.4.1" "pytest pytest 4.5.0" "pytest pytest 4.6.11" "pytest pytest 4.6.2"
  "pytest pytest 4.6.3" "pytest pytest 5.0.1" "pytest pytest 5.2.2" "pytest pytest 5.4.1"
  "pytest pytest 5.4.2" "pytest pytest 6.2.2" "pytest pytest 6.2.4" "pytest pytest 6.2.5"
  "pytest pytest 7.4.0"
  "sphinx Sphinx 3.0.3" "sphinx Sphinx 3.0.4" "sphinx Sphinx 3.1.2" "sphinx Sphinx 3.2.1"
  "sphinx Sphinx 3.3.1" "sphinx Sphinx 3.4.1" "sphinx Sphinx 3.4.3" "sphinx Sphinx 4.5.0"
  "sphinx Sphinx 7.0.1"
  "sympy sympy 1.0" "sympy sympy 1.1" "sympy sympy 1.1.1" "sympy sympy 1.10.1" "sympy sympy 1.11.1"
  "sympy sympy 1.2" "sympy sympy 1.3" "sympy sympy 1.4" "sympy sympy 1.5" "sympy sympy 1.5.1"
  "sympy sympy 1.6" "sympy sympy 1.6.2" "sympy sympy 1.7.1" "sympy sympy 1.8" "sympy sympy 1.9"
)

from_index() {  # $1 package, $2 version, $3 tmp: the sdist named in the simple index, sha256-checked
  "$python" - "$index" "$1" "$2" "$3" <<'EOF'
import hashlib, re, sys, urllib.request
index, package, version, out = sys.argv[1:]
name = re.sub(r"[-_.]+", "-", package).lower()
page = urllib.request.urlopen(f"{index}/{name}/", timeout=120).read().decode()
# sdist names vary in case and separator (Flask-2.2.3.tar.gz, sphinx-7.0.1.tar.gz)
wanted = {f"{p}-{version}{ext}" for p in {name, name.replace("-", "_")} for ext in (".tar.gz", ".zip")}
for href, fname in re.findall(r'href="([^"]+)"[^>]*>([^<]+)</a>', page):
    if fname.strip().lower() in wanted and "#sha256=" in href:
        url, digest = href.split("#sha256=")
        url = urllib.request.urljoin(f"{index}/{name}/", url)
        data = urllib.request.urlopen(url, timeout=300).read()
        if hashlib.sha256(data).hexdigest() != digest:
            sys.exit(f"sha256 mismatch for {fname}")
        open(f"{out}/{fname.strip()}", "wb").write(data)
        sys.exit(0)
sys.exit(f"no sdist {package}=={version} in the index")
EOF
}

fetch() {  # $1 repo, $2 package, $3 version, $4 tmp
  "$python" -m pip download --quiet --no-binary :all: --no-deps --no-build-isolation "$2==$3" -d "$4" \
    >/dev/null 2>&1 || from_index "$2" "$3" "$4"
  local archive
  archive="$(ls "$4"/*.tar.gz "$4"/*.zip 2>/dev/null | head -1)"
  [ -n "$archive" ] || { echo "no archive for $2==$3" >&2; return 1; }
  mkdir -p "$4/x"
  case "$archive" in
    *.zip) (cd "$4/x" && unzip -q "$archive") ;;
    *) tar -xzf "$archive" -C "$4/x" ;;
  esac
  # strip the sdist's one top folder (sympy-1.1.1/) so paths match the gold files
  local top
  top="$(find "$4/x" -mindepth 1 -maxdepth 1)"
  [ "$(printf '%s\n' "$top" | wc -l)" -eq 1 ] && [ -d "$top" ] || top="$4/x"
  mv "$top" "$dest/$1-$3"
}

for pin in "${pins[@]}"; do
  read -r repo package version <<<"$pin"
  if [ -d "$dest/$repo-$version" ]; then echo "have $repo-$version"; continue; fi
  tmp="$(mktemp -d)"
  if fetch "$repo" "$package" "$version" "$tmp"; then
    echo "$repo-$version <- $package==$version"
  else
    echo "FAILED $package==$version" >&2
  fi
  rm -rf "$tmp"
done

if [ -f "$instances" ]; then
  "$python" - "$dest" "$instances" <<'EOF'
import json, os, sys
dest, instances = sys.argv[1:]
total = missing = 0
for line in open(instances):
    rec = json.loads(line)
    root = os.path.join(dest, f"{rec['repo'].split('/')[1]}-{rec['release_before']}")
    for gold in rec["gold_files"]:
        total += 1
        if not os.path.isfile(os.path.join(root, gold)):
            missing += 1
            print(f"gold file missing: {rec['instance_id']} {os.path.basename(root)}/{gold}")
print(f"gold files present: {total - missing}/{total}")
EOF
fi
