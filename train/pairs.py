"""Mine training pairs from unpacked package sources with Fourfold's own parser.

Three tasks, each a (query, code) pair whose code side looks like an indexed chunk:
- `doc`: the first sentence(s) of a definition's doc comment or docstring, and the text the index
  would embed for that definition (path, kind, name words, signature, body) with the doc taken out
  of the code side: otherwise the model would learn to match a docstring to itself;
- `name`: a definition's name words ("file based cache get") and its body without the header and
  the definition line, so that a name's words come to mean what such code does (every definition,
  also the undocumented majority, contributes);
- `similar`: the index chunks of two sibling implementations in one package: methods of one name
  in different classes (implementations of one interface), or classes sharing most of their method
  names. That is what find_similar asks of the seed's vector.
Files are parsed with `fourfold.engine.index.structure.parse_file`, so every language Fourfold parses
contributes.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from fourfold.engine.index.chunks import TEXT_MAX_CHARS, name_words
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import GRAMMARS, detect_language

# A package contributes at most this many files and pairs of each task, so that one huge source
# tree (three.js, rustc) cannot dominate what the model learns about every other language.
MAX_FILES_PER_PACKAGE = 2500
MAX_PAIRS_PER_PACKAGE = 6000
MAX_NAME_PAIRS_PER_PACKAGE = 3000
MAX_SIMILAR_PAIRS_PER_PACKAGE = 2000
MAX_FILE_BYTES = 300_000
# A description shorter than this many words says nothing ("Constructor."); longer ones are cut.
MIN_WORDS = 3
MAX_DESCRIPTION_CHARS = 300
# A name pair needs a name of at least this many words ("get" alone could mean anything) and a body
# of at least this many lines.
MIN_NAME_WORDS = 2
MIN_BODY_LINES = 3
# Sibling classes share at least this many method names, and this share of the smaller one's.
MIN_SHARED_METHODS = 3
MIN_SHARED_SHARE = 0.5
# A method name implemented in more classes than this is a universal protocol (toString, equals),
# not a family of siblings.
MAX_SIBLINGS = 30
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
# Doc comments the parser does not attach to a definition (Haskell's `-- |`, OCaml's `(** *)`,
# Elixir's `@doc` heredocs) are read above the definition by the miner alone.
_LEADING_COMMENT = re.compile(r"^\s*(--\s*[|^]?|\(\*\*?|//+|#+|;+|\*)\s?")
_HEREDOC_START = re.compile(r'^\s*@(moduledoc|doc|typedoc)\s+(~[sS])?"""')
_HEREDOC_END = '"""'


@dataclass(frozen=True)
class Pair:
    """One training example from one package: a query-side text, a code-side text, and its task
    (`doc`, `name` or `similar`, see the module docstring)."""

    package: str
    language: str
    description: str
    code: str
    task: str = "doc"


@dataclass(frozen=True)
class Definition:
    """A definition's index chunk, kept to pair it with its siblings."""

    name: str
    container: str
    kind: str
    language: str
    text: str
    # A class's or struct's method names (from the parsed symbols, so also when the class is one chunk).
    members: frozenset[str] = frozenset()
    # A class's or struct's bases as its file names them (inheritance references).
    bases: frozenset[str] = frozenset()


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


def leading_doc(lines: list[str], first: int) -> str:
    """The comment block or `@doc` heredoc right above line `first`, its markers taken off."""
    above = first - 1
    if above >= 0 and lines[above].strip() == _HEREDOC_END:
        top = above - 1
        while top >= 0 and above - top < 60 and not _HEREDOC_START.match(lines[top]):
            top -= 1
        if top >= 0 and _HEREDOC_START.match(lines[top]):
            return "\n".join(line.strip() for line in lines[top + 1 : above])
        return ""
    block: list[str] = []
    while above >= 0 and lines[above].strip() and _LEADING_COMMENT.match(lines[above]):
        block.append(_LEADING_COMMENT.sub("", lines[above]).rstrip(" *)"))
        above -= 1
    return "\n".join(reversed(block))


def _code_text(path: str, kind: str, qualified: str, signature: str, body: list[str], doc: str) -> str:
    """The chunk text the index embeds, minus the doc: comment lines and the doc's own lines go."""
    doc_lines = {line.strip().strip("/*#!").strip() for line in doc.splitlines()} - {""}
    kept = []
    for line in body:
        bare = line.strip().strip("/*#!\"'").strip()
        if _COMMENT_LINE.match(line) or bare in doc_lines:
            continue
        kept.append(line)
    header = [path, f"{kind} {name_words(qualified)}".strip(), signature]
    return "\n".join([*(part for part in header if part), *kept])[:TEXT_MAX_CHARS]


def _repository_path(root: Path, path: Path) -> str:
    """The path as a repository checkout would show it: without the archive's top folder
    (`package/` of an npm tarball, `name-1.2.3/` of an sdist or a Debian source)."""
    parts = path.relative_to(root).parts
    entries = [entry for entry in root.iterdir() if entry.name != ".complete"]
    if len(parts) > 1 and len(entries) == 1 and entries[0].is_dir():
        parts = parts[1:]
    return "/".join(parts)


def file_pairs(package: str, root: Path, path: Path) -> tuple[list[Pair], list[Pair], list[Definition]]:
    """The `doc` and `name` pairs of every definition in one file, and its definitions' chunks."""
    language = detect_language(path)
    if language not in GRAMMARS:
        return [], [], []
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return [], [], []
    relative = _repository_path(root, path)
    parsed = parse_file(relative, text, language)
    lines = text.split("\n")
    docs: list[Pair] = []
    names: list[Pair] = []
    units = {}
    for symbol in parsed.symbols:
        if symbol.kind not in UNIT_KINDS:
            continue
        qualified = symbol.qualified or symbol.name
        units[qualified] = symbol
        first, last = symbol.span.start_line, min(symbol.span.end_line, symbol.span.start_line + 79)
        doc = symbol.doc or leading_doc(lines, first)
        body = lines[first : last + 1]
        description = describe(doc) if doc else None
        if description is not None:
            code = _code_text(relative, symbol.kind, qualified, symbol.signature, body, doc)
            docs.append(Pair(package, language, description, code))
        if len(name_words(symbol.name).split()) >= MIN_NAME_WORDS:
            code = _code_text(relative, "", "", "", body[1:], doc)
            if code.count("\n") >= MIN_BODY_LINES:
                names.append(Pair(package, language, name_words(qualified), code, "name"))
    members: dict[str, set[str]] = {}
    for symbol in parsed.symbols:
        if symbol.kind in ("method", "function") and symbol.container and _family_name(symbol.name):
            members.setdefault(symbol.container, set()).add(symbol.name)
    bases: dict[str, set[str]] = {}
    for reference in parsed.references:
        if reference.kind == "inherit" and reference.enclosing:
            bases.setdefault(reference.enclosing.rsplit(".", 1)[-1], set()).add(reference.name.rsplit(".", 1)[-1])
    definitions = [
        Definition(
            symbol.name,
            symbol.container or "",
            symbol.kind,
            language,
            chunk.text,
            frozenset(members.get(symbol.name, ())) if symbol.kind in ("class", "struct") else frozenset(),
            frozenset(bases.get(symbol.name, ())) if symbol.kind in ("class", "struct") else frozenset(),
        )
        for chunk in parsed.chunks
        if chunk.kind == "definition" and (symbol := units.get(chunk.symbol or "")) is not None
    ]
    return docs, names, definitions


def similar_pairs(package: str, definitions: list[Definition], seed: int) -> list[Pair]:
    """Sibling pairs: one per method name implemented in several classes of a folder (two of them
    drawn; methods that are chunks of their own, i.e. of classes longer than CLASS_SPLIT_LINES), and
    one per two classes that share most of their method names (a short class is one chunk: then its
    chunk is what find_similar compares); at most MAX_SIMILAR_PAIRS_PER_PACKAGE. A class and its
    own base never pair: a base shares its subclasses' method names, but it is their parent, not
    their sibling (find_similar asks for the other implementations)."""
    rng = random.Random(f"{seed}:{package}:similar")
    parents: dict[str, set[str]] = {}
    for item in definitions:
        parents.setdefault(item.name, set()).update(item.bases)

    def related(left: str, right: str) -> bool:
        return left in parents.get(right, ()) or right in parents.get(left, ())

    # Method name -> folder -> class -> definition: two classes of one folder with a method of one
    # name are most often implementations of one interface (cache backends, transports).
    methods: dict[str, dict[str, dict[str, Definition]]] = {}
    for item in definitions:
        if item.container and item.kind in ("function", "method") and _family_name(item.name):
            folder = _path(item.text).rpartition("/")[0]
            methods.setdefault(item.name, {}).setdefault(folder, {}).setdefault(item.container, item)
    pairs: list[Pair] = []
    for name in sorted(methods):
        for folder in sorted(methods[name]):
            family = methods[name][folder]
            if not 2 <= len(family) <= MAX_SIBLINGS:
                continue
            a, b = rng.sample([family[container] for container in sorted(family)], 2)
            if _body(a.text) != _body(b.text) and not related(a.container, b.container):
                pairs.append(Pair(package, a.language, a.text, b.text, "similar"))
    classes = [
        item for item in definitions if item.kind in ("class", "struct") and len(item.members) >= MIN_SHARED_METHODS
    ]
    having: dict[str, list[int]] = {}
    for index, item in enumerate(classes):
        for name in item.members:
            having.setdefault(name, []).append(index)
    shared: Counter[tuple[int, int]] = Counter()
    for name in sorted(having):
        holders = having[name]
        if len(holders) <= MAX_SIBLINGS:
            shared.update((i, j) for n, i in enumerate(holders) for j in holders[n + 1 :])
    for (i, j), count in sorted(shared.items()):
        a, b = classes[i], classes[j]
        smaller = min(len(a.members), len(b.members))
        siblings = not related(a.name, b.name) and _body(a.text) != _body(b.text)
        if count >= MIN_SHARED_METHODS and count >= MIN_SHARED_SHARE * smaller and siblings:
            pairs.append(Pair(package, a.language, a.text, b.text, "similar"))
    rng.shuffle(pairs)
    return pairs[:MAX_SIMILAR_PAIRS_PER_PACKAGE]


def _family_name(name: str) -> bool:
    """A method name that can tie siblings: not a dunder (`__init__` is in every class), not `f`."""
    return len(name) >= 3 and not name.startswith("__")


def _path(text: str) -> str:
    """A chunk's path: its text's first line."""
    return text.split("\n", 1)[0]


def _body(text: str) -> str:
    """A chunk's text below its path and kind lines: siblings must differ in more than their names."""
    return text.split("\n", 2)[-1]


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
    """A package's pairs of all three tasks, each task capped apart. `doc` pairs are one per
    distinct description (a description repeated across overloads would be its own in-batch
    negative), `name` pairs one per distinct name, for the same reason."""
    seen: set[str] = set()
    docs: list[Pair] = []
    names: list[Pair] = []
    definitions: list[Definition] = []
    for path in _source_files(root, seed):
        file_docs, file_names, file_definitions = file_pairs(package, root, path)
        for pair in [*file_docs, *file_names]:
            key = f"{pair.task}:{pair.description.lower()}"
            if key not in seen:
                seen.add(key)
                (docs if pair.task == "doc" else names).append(pair)
        definitions.extend(file_definitions)
    rng = random.Random(f"{seed}:{package}:pairs")
    rng.shuffle(docs)
    rng.shuffle(names)
    similar = similar_pairs(package, definitions, seed)
    return [*docs[:MAX_PAIRS_PER_PACKAGE], *names[:MAX_NAME_PAIRS_PER_PACKAGE], *similar]


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
    stem = (
        f"s{seed}.f{MAX_FILES_PER_PACKAGE}.p{MAX_PAIRS_PER_PACKAGE}.n{MAX_NAME_PAIRS_PER_PACKAGE}"
        f".m{MAX_SIMILAR_PAIRS_PER_PACKAGE}.v4"
    )
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
