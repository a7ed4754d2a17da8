"""Per-language structural benchmark (issue 13): parse speed and definitions found, against ctags.

    python bench/language_bench.py [--root /path/to/semble-more] [--repos path/to/repos.json] [--json OUT]

For each repository of a corpus laid out as semble-more (one folder per repository, `repos.json`
naming each one's language and benchmark root), parses every file Fourfold would index under the
benchmark root with the structural pass and prints: files, files/s and MB/s (parse + symbols +
chunks, one core, by CPU time so that other load on the machine does not count), definitions by
kind, imports and how many resolve to a workspace file, and the definitions `ctags -R`
(universal-ctags) finds in the same files, by kind (`--json` keeps both kind tables).
A benchmark, not a test: it asserts nothing.

    python bench/language_bench.py --root /work/corpora/semble-rest --repos bench/queries/semble-rest-repos.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

from fourfold.engine.graph.imports import FileSet, resolve_import
from fourfold.engine.index.discovery import UnreadableFile, read_file
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import GRAMMARS

# ctags kinds that are not definitions a user would search for (imports, parameters, locals, labels).
CTAGS_SKIPPED_KINDS = frozenset({"import", "using", "parameter", "local", "label", "header", "packageName",
                                 "package", "namespace", "externvar", "alias", "file", "heading"})


def sources(root: Path) -> list[str]:
    """Files under `root` as Fourfold's discovery would list them (git-ignored folders aside)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)


def ctags_kinds(root: Path, paths: list[str]) -> Counter[str] | None:
    """Definitions universal-ctags finds in `paths`, by kind; None without ctags."""
    ctags = shutil.which("ctags")
    if ctags is None or not paths:
        return None
    out = subprocess.run([ctags, "-f", "-", "--output-format=json", "--fields=+K", "-L", "-"], cwd=root,
                         input="\n".join(paths), capture_output=True, text=True, check=False).stdout
    kinds: Counter[str] = Counter()
    for line in out.splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") == "tag" and tag.get("kind") not in CTAGS_SKIPPED_KINDS:
            kinds[tag.get("kind", "?")] += 1
    return kinds


def measure(root: Path, language_hint: str) -> dict[str, object]:
    records = []
    for relative in sources(root):
        try:
            records.append(read_file(root, relative))
        except UnreadableFile:
            continue
    parsed_files = [(record, text) for record, text in records if record.language in GRAMMARS]
    started = time.process_time()
    parsed = {record.path: parse_file(record.path, text, record.language) for record, text in parsed_files}
    elapsed = time.process_time() - started
    megabytes = sum(len(text.encode("utf-8", "surrogatepass")) for _, text in parsed_files) / 1e6
    files = FileSet.of(record.path for record, _ in records)
    languages = Counter(record.language for record, _ in parsed_files)
    kinds: Counter[str] = Counter()
    imports = resolved = 0
    ctags = ctags_kinds(root, [record.path for record, _ in parsed_files])
    for record, _ in parsed_files:
        result = parsed[record.path]
        kinds.update(symbol.kind for symbol in result.symbols)
        for spec in result.imports:
            imports += 1
            resolved += bool(resolve_import(spec, record.path, record.language or "", files))
    return {
        "language": language_hint,
        "parsed_as": dict(languages),
        "files": len(parsed_files),
        "files_per_s": round(len(parsed_files) / elapsed, 1) if elapsed else None,
        "mb": round(megabytes, 2),
        "mb_per_s": round(megabytes / elapsed, 2) if elapsed else None,
        "cpu_s": round(elapsed, 2),
        "definitions": sum(kinds.values()),
        "kinds": dict(kinds.most_common()),
        "imports": imports,
        "resolved_imports": resolved,
        "ctags": sum(ctags.values()) if ctags is not None else None,
        "ctags_kinds": dict(ctags.most_common()) if ctags is not None else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/corpora/semble-more"))
    parser.add_argument("--repos", type=Path, default=None, help="repos.json (default: beside the queries)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    repos_file = args.repos or args.root / "repos.json"
    repos = json.loads(repos_file.read_text())["repos"]
    rows = []
    print("| repo | language | files | MB | files/s | MB/s | definitions | ctags | imports resolved | kinds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for repo in repos:
        root = args.root / repo["name"] / repo.get("benchmark_root", "")
        row = {"repo": repo["name"], **measure(root, repo["language"])}
        rows.append(row)
        kinds = ", ".join(f"{k} {v}" for k, v in list(row["kinds"].items())[:6])  # type: ignore[union-attr]
        print(f"| {row['repo']} | {row['language']} | {row['files']} | {row['mb']} | {row['files_per_s']} "
              f"| {row['mb_per_s']} | {row['definitions']} | {row['ctags']} "
              f"| {row['resolved_imports']}/{row['imports']} | {kinds} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
