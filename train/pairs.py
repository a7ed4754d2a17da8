"""Mine (description, code) pairs from unpacked package sources with Fourfold's own parser.

A pair is the first sentence(s) of a definition's doc comment or docstring and the text the index
would embed for that definition (path, kind, name words, signature, body), with the doc taken out of
the code side: otherwise the model would learn to match a docstring to itself. Files are parsed with
`fourfold.engine.index.structure.parse_file`, so every language Fourfold parses contributes, and the code
side looks exactly like an indexed chunk.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from fourfold.engine.index.chunks import TEXT_MAX_CHARS, name_words
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import GRAMMARS, detect_language

# A package contributes at most this many files and pairs, so that one huge source tree (three.js,
# abseil) cannot dominate what the model learns about every other language.
MAX_FILES_PER_PACKAGE = 1200
MAX_PAIRS_PER_PACKAGE = 4000
MAX_FILE_BYTES = 300_000
# A description shorter than this many words says nothing ("Constructor."); longer ones are cut.
MIN_WORDS = 3
MAX_DESCRIPTION_CHARS = 300
SKIP_DIRS = frozenset({"node_modules", "vendor", "third_party", "dist", "build", ".git", "debian", "min"})
UNIT_KINDS = frozenset({"function", "method", "constructor", "class", "interface", "struct", "enum", "trait"})

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_BOILERPLATE = re.compile(
    r"copyright|licen[cs]e|spdx|todo|fixme|xxx|deprecated|@generated|auto-?generated|do not edit|eslint|"
    r"noinspection|istanbul|prettier-ignore|rubocop|phpcs|nolint|^see\b|^\{@inheritdoc\}|^inheritdoc",
    re.IGNORECASE,
)
_TAG_LINE = re.compile(r"^\s*[@:\\](param|return|returns|throws|type|since|see|example|arg|raises|rtype)\b")
_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*|#|\"\"\"|'''|--)")


@dataclass(frozen=True)
class Pair:
    """One training example: a description and the definition's code, from one package."""

    package: str
    language: str
    description: str
    code: str


def describe(doc: str) -> str | None:
    """The first paragraph's first one or two sentences, or None when the doc says nothing useful."""
    lines: list[str] = []
    for raw in doc.splitlines():
        line = raw.strip().strip("/*#!").strip()
        if not line:
            if lines:
                break
            continue
        if _TAG_LINE.match(line):
            break
        lines.append(line)
    text = " ".join(lines)
    if not text or _BOILERPLATE.search(text):
        return None
    sentences = _SENTENCE_END.split(text)
    description = " ".join(sentences[:2])[:MAX_DESCRIPTION_CHARS]
    words = re.findall(r"[A-Za-z]{2,}", description)
    return description if len(words) >= MIN_WORDS else None


def _code_text(path: str, kind: str, qualified: str, signature: str, body: list[str], doc: str) -> str:
    """The chunk text the index embeds, minus the doc: comment lines and the doc's own lines go."""
    doc_lines = {line.strip().strip("/*#!").strip() for line in doc.splitlines()} - {""}
    kept = []
    for line in body:
        bare = line.strip().strip("/*#!\"'").strip()
        if _COMMENT_LINE.match(line) or bare in doc_lines:
            continue
        kept.append(line)
    header = [path, f"{kind} {name_words(qualified)}", signature]
    return "\n".join([*(part for part in header if part), *kept])[:TEXT_MAX_CHARS]


def _repository_path(root: Path, path: Path) -> str:
    """The path as a repository checkout would show it: without the archive's top folder
    (`package/` of an npm tarball, `name-1.2.3/` of an sdist or a Debian source)."""
    parts = path.relative_to(root).parts
    entries = [entry for entry in root.iterdir() if entry.name != ".complete"]
    if len(parts) > 1 and len(entries) == 1 and entries[0].is_dir():
        parts = parts[1:]
    return "/".join(parts)


def file_pairs(package: str, root: Path, path: Path) -> list[Pair]:
    """Pairs of every documented definition in one file."""
    language = detect_language(path)
    if language not in GRAMMARS:
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    relative = _repository_path(root, path)
    parsed = parse_file(relative, text, language)
    lines = text.split("\n")
    pairs: list[Pair] = []
    for symbol in parsed.symbols:
        if symbol.kind not in UNIT_KINDS or not symbol.doc:
            continue
        description = describe(symbol.doc)
        if description is None:
            continue
        first, last = symbol.span.start_line, min(symbol.span.end_line, symbol.span.start_line + 79)
        code = _code_text(
            relative,
            symbol.kind,
            symbol.qualified or symbol.name,
            symbol.signature,
            lines[first : last + 1],
            symbol.doc,
        )
        pairs.append(Pair(package, language, description, code))
    return pairs


def _source_files(root: Path, seed: int) -> list[Path]:
    files: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            if name.endswith((".min.js", ".bundle.js")) or detect_language(path) not in GRAMMARS:
                continue
            try:
                if path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
                    continue
            except OSError:
                continue
            files.append(path)
    random.Random(f"{seed}:{root.name}").shuffle(files)
    return files[:MAX_FILES_PER_PACKAGE]


def package_pairs(package: str, root: Path, seed: int) -> list[Pair]:
    """A package's pairs, one per distinct description (a description repeated across overloads
    would be its own in-batch negative), at most MAX_PAIRS_PER_PACKAGE."""
    seen: set[str] = set()
    pairs: list[Pair] = []
    for path in _source_files(root, seed):
        for pair in file_pairs(package, root, path):
            key = pair.description.lower()
            if key not in seen:
                seen.add(key)
                pairs.append(pair)
    random.Random(f"{seed}:{package}:pairs").shuffle(pairs)
    return pairs[:MAX_PAIRS_PER_PACKAGE]


def _mine_one(job: tuple[str, str, str, int]) -> str:
    package, root, out, seed = job
    pairs = package_pairs(package, Path(root), seed)
    with open(out, "w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(asdict(pair)) + "\n")
    return package


def mine(folders: dict[str, Path], cache: Path, seed: int, workers: int = 2) -> dict[str, list[Pair]]:
    """Pairs of every package; each package's pairs are cached as JSONL under `cache`."""
    cache.mkdir(parents=True, exist_ok=True)
    # The file name carries every choice that changes a package's pairs, so a stale cache is never read.
    stem = f"s{seed}.f{MAX_FILES_PER_PACKAGE}.p{MAX_PAIRS_PER_PACKAGE}"
    jobs = [
        (name, str(root), str(cache / f"{name}.{stem}.jsonl"), seed)
        for name, root in folders.items()
        if not (cache / f"{name}.{stem}.jsonl").exists()
    ]
    if jobs:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for done in pool.map(_mine_one, jobs):
                print(f"mined {done}", flush=True)
    return {name: list(_read(cache / f"{name}.{stem}.jsonl")) for name in folders}


def _read(path: Path) -> Iterator[Pair]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            yield Pair(**json.loads(line))
