#!/usr/bin/env bash
# Fetch the pinned Debian (bookworm) source packages of the polyglot query set into
# bench/corpora/debian-polyglot/<package>: Haskell (xmonad), Lua (lua-luassert, lua-argparse),
# Elixir (elixir-lang: its standard library only), Bash (bash-completion), Perl (libpath-tiny-perl)
# and OCaml (ocaml-re). Used by bench/queries/polyglot.jsonl (bench/make_polyglot_queries.py).
#
# `apt-get source` needs a deb-src entry; this script brings its own (a sources list, package lists and
# cache under a temporary folder), so the machine's apt configuration is neither read nor changed.
# Only each package's upstream tarball is unpacked (Debian's patches are not applied). Not committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/corpora/debian-polyglot"
# package=version: the versions the query set's gold was derived on.
packages=(xmonad=0.17.1-1 lua-luassert=1.9.0-1 lua-argparse=0.7.1-2 elixir-lang=1.14.0.dfsg-2
          bash-completion=1:2.11-6 libpath-tiny-perl=0.144-1 ocaml-re=1.10.4-1)
# What is kept of each unpacked tarball (the rest is build files, tests of the package itself, docs).
declare -A keep=([xmonad]="src" [lua-luassert]="src" [lua-argparse]="src" [elixir-lang]="lib/elixir/lib"
                 [bash-completion]="bash_completion completions" [libpath-tiny-perl]="lib" [ocaml-re]="lib")
if [ -f "$dest/.complete" ]; then echo "$dest"; exit 0; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
  > "$tmp/sources.list"
apt=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Sandbox::User=root)
apt-get "${apt[@]}" -qq update
rm -rf "$dest" && mkdir -p "$dest"
for spec in "${packages[@]}"; do
  name="${spec%%=*}"
  # The upstream tarball is enough: a package whose Debian part is gone from the mirror still unpacks.
  (cd "$tmp/src" && apt-get "${apt[@]}" -qq source --download-only "$spec" >/dev/null 2>&1 || true)
  orig="$(ls "$tmp/src/${name}_"*.orig.tar.* 2>/dev/null | head -1)"
  if [ -z "$orig" ]; then echo "could not fetch $spec" >&2; exit 1; fi
  mkdir -p "$tmp/x/$name" "$dest/$name"
  tar -xf "$orig" -C "$tmp/x/$name" --strip-components=1
  for part in ${keep[$name]}; do
    mkdir -p "$dest/$name/$(dirname "$part")"
    cp -r "$tmp/x/$name/$part" "$dest/$name/$part"
  done
done
touch "$dest/.complete"
echo "$dest"
