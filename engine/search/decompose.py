"""Issue-sized questions: split a long text into the searches it contains, run them, fuse the files.

A coding agent pastes a whole issue: a title, a paragraph of prose, a code block that reproduces the
bug, a traceback, an error message, a few names in backticks. Classified as one query, the first
quoted fragment decides the route (exact_match at 0.90) and the rest is thrown away. Here the text is
read the way a maintainer reads it:

- the files a traceback frame or a path names (`File ".../astropy/io/registry/core.py", line 369`),
  resolved against the index by path suffix, and the modules a code block imports;
- the identifiers it states (backticked, code-shaped, frame functions, names called in code blocks)
  that the index defines: their definitions;
- error messages (the last line of a traceback) and quoted strings: where the text says them;
- the prose, title and first paragraph first: an understanding question.

Each part runs as its own search with its intent pinned, and the parts' file rankings are fused by
weighted reciprocal rank (`fuse_files`), so a file that several parts point at rises. The response
lists every part (`decomposition`: query, intent, weight, hits) so the answer explains itself. One
call-graph step follows (`callee_files`): the files defining what the stated definitions call are a
`callee` part, weaker evidence, so it only re-orders the answer past its first files (`fill_tail`).

Splitting (`split`) is pure text work; `plan` checks the parts against the index (which paths exist,
which names are defined); `search_decomposed` runs them. The weights are data below, with how they
were measured.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import pathspec

from ..model.languages import DOC_LANGUAGES, detect_language
from ..model.profiles import (
    CALLEE_FILES,
    CALLEE_HEAD,
    CALLEE_WEIGHT,
    DEFINITION_KINDS,
    EXACT_MATCH,
    FIND_DEFINITION,
    MODALITIES,
    PRESETS,
    TEST_PRIOR,
    UNDERSTAND_CODE,
)
from ..model.records import ParsedFile, Span
from ..model.tokens import code_tokens
from ..query.parsedquery import asks_about_tests
from ..rank.fusion import FusedResult
from ..rank.localisation import Evidence, FunctionHit, Owned, lift_said, lift_worded, rank_functions
from ..rank.ranking import is_test_path, path_prior
from .answer import DecompositionPart, ModalityReport, SearchResponse

if TYPE_CHECKING:
    from ..index.snapshot import Snapshot
    from ..query.request import SearchRequest

__all__ = [
    "PART_WEIGHTS",
    "Decomposed",
    "Part",
    "PartResult",
    "callee_files",
    "defining_files",
    "evidence_of",
    "fill_tail",
    "fuse_files",
    "issue_language",
    "issue_prior",
    "part_places",
    "part_request",
    "plan",
    "run_part",
    "search_decomposed",
    "should_decompose",
    "split",
]

# --- when a text is an issue rather than a query -------------------------------------------------
# Longer than this, a query is a pasted text (the longest of the question sets in bench/queries is
# under 150 characters; a SWE-bench Lite issue's median is 1,000).
LONG_QUERY = 300
# A shorter text still decomposes when it has this many non-empty lines and a code block or a
# traceback: a bug report in miniature.
MIN_LINES = 2

# --- the parts -----------------------------------------------------------------------------------
PROSE = "prose"  # title and first paragraph: an understanding question
BODY = "body"  # the rest of the prose, outside code blocks
FILE = "file"  # a path or a traceback frame named in the text
MODULE = "module"  # a dotted module a code block imports (`from astropy.io import ascii`)
IDENTIFIER = "identifier"  # a name the text states that the index defines
ERROR = "error"  # an error message (the text after `SomeError:`)
QUOTE = "quote"  # a quoted string in the prose
CALLEE = "callee"  # the files defining what the stated names' own definitions call (one call-graph step)

# Weight of each part's ranking in the file-level fusion. Tuned by `bench/tune_decompose.py` on half the
# SWE-bench Lite repositories (pytest, sphinx, astropy, requests: 45 issues) and checked on the other
# half: from prose 1.0 / body 0.5 the tuning half went 51/71/91 -> 58/80/89 % file hit@1/5/10, the held-out
# non-sympy issues stayed 33/78/83. Leaving one part out (held-out hit@5): prose -28, identifier -11,
# file -6, body -6 points. The title says what is wrong, a frame where it happened, a name what to read.
PART_WEIGHTS: Mapping[str, float] = {
    PROSE: 1.5,
    BODY: 1.5,
    FILE: 1.0,
    MODULE: 0.4,
    IDENTIFIER: 0.5,
    ERROR: 0.6,
    QUOTE: 0.3,
    CALLEE: CALLEE_WEIGHT,
}
# Intent each part is searched with (pinned, so the classifier never re-reads a part).
PART_INTENTS: Mapping[str, str] = {
    PROSE: UNDERSTAND_CODE,
    BODY: UNDERSTAND_CODE,
    FILE: FIND_DEFINITION,
    MODULE: FIND_DEFINITION,
    IDENTIFIER: FIND_DEFINITION,
    ERROR: EXACT_MATCH,
    QUOTE: EXACT_MATCH,
    CALLEE: FIND_DEFINITION,
}
# A file that is no code (a changelog, a CI config, an issue template: no language of its own) or is
# documentation is where an issue is discussed, not where it is fixed: its fused score is lowered
# by this factor on top of the understanding priors (before: 16 of 44 SWE-bench top-1 files were such).
NON_CODE_PRIOR = 0.3
# Code in another language than the issue's (its named files', its definitions', else the index's
# majority): a Python traceback is not fixed in a vendored JavaScript library.
OTHER_LANGUAGE_PRIOR = 0.5
# An identifier counts only where it is defined in a file whose path prior is at least this: tests,
# examples and compatibility shims (0.3) define the `foo` of an issue's snippet by coincidence.
MIN_DEFINER_PRIOR = 0.5
# The contribution key of a file a part names rather than searches (a traceback frame, an import).
NAMED = "named"
# `fusion_strategy` of a decomposed answer.
DECOMPOSED = "decomposed"
# RRF constant of the file-level fusion. Smaller than a preset's (40): the lists are short and each
# already ranked by a fused search, so their first places deserve to count.
FILE_K = 10
# Within a file, a part's n-th place (its best, then its other matches) counts MATCH_DECAY^n of its
# gain, so that the definition an identifier part found outranks the tenth chunk of the prose's answer;
# each file carries its MAX_MATCHES best other places (an agent's context is short).
MATCH_DECAY = 0.5
MAX_MATCHES = 6
# How many files of each part's answer enter the fusion.
PART_DEPTH = 30
# At most this many of each kind of part (the most often stated first): an issue that names forty
# identifiers is not asking about forty definitions.
# How strongly a name is stated, by where it stands: backticked or a frame's function, a code-shaped
# word of the prose, a name a code block calls or imports (engine/rank/localisation.py's `named` feature).
NAME_STRENGTH = (1.0, 0.6, 0.3)
MAX_PARTS: Mapping[str, int] = {FILE: 8, MODULE: 6, IDENTIFIER: 10, ERROR: 3, QUOTE: 4}
# A name defined in more files than this says nothing about where to look (`__init__`, `name`, `run`).
MAX_DEFINITIONS = 8
# The prose question: the title and first paragraph, cut at this many characters; the body part the
# rest of the prose, cut likewise (BM25 over a whole issue drowns in its incidental words).
PROSE_CHARS = 1200
BODY_CHARS = 4000
# Literals shorter than this find too much to be evidence.
MIN_LITERAL = 8
MAX_LITERAL = 200
# File names too common to resolve from the name alone (a frame's `__init__.py` could be any package).
GENERIC_FILES = frozenset({"__init__.py", "__main__.py", "setup.py", "conftest.py", "main.py", "index.js",
                           "index.ts", "mod.rs", "lib.rs"})

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
# A traceback frame, three ways: Python's `File "x.py", line N, in f`; IPython 8's `File ~/x.py:N, in Class.f(…)`;
# older IPython's `~/x.py in f(…)` opening a line (issues pasted from notebooks show the last two).
_FRAME = re.compile(r'File "([^"\n]+)", line \d+(?:, in ([\w<>.]+))?'
                    r'|File ((?:~|/|[A-Za-z]:\\)[^\s",]*\.py):\d+, in ([\w<>.]+)'
                    r'|^[ \t]*((?:~|/|[A-Za-z]:\\)[^\s"]*\.py) in ([\w<>.]+)\(', re.M)
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyx|pyi|js|jsx|ts|tsx|go|rs|java|rb|c|h|cc|cpp|cs|php))"
                   r"(?::\d+)?(?![\w/])")
_IMPORT = re.compile(r"^\s*(?:(?:>>>|\.\.\.)\s*)?"
                     r"(?:from\s+([A-Za-z_][\w.]*)\s+import\s+([\w., ()*]+)|import\s+([A-Za-z_][\w.]*))", re.M)
_ERROR_LINE = re.compile(r"^\s*((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit|Failure)):[ \t]*(.+)$",
                         re.M)
# A tool's diagnostic as compilers, linters and doc builders print it, `path:line[:col]: message` (GCC, mypy,
# flake8, Sphinx), the message maybe behind a severity (`WARNING:`, `error:`, `E1101:`): the message is the
# text the program says where it reports the fault, as an exception's is. Not pytest's `path:12: in f` (a
# frame) nor its `path:7: AssertionError` (a bare class name, `_diagnostics` drops it).
_DIAGNOSTIC = re.compile(r"^[ \t]*[\w.~/\\-]*\w\.\w+:\d+(?::\d+)?:[ \t]*(?:(?:[A-Za-z]+|[A-Z]\d+)[ \t]*:[ \t]*)?"
                         r"(?!in )(\S.*)$",
                         re.M)
_EXCEPTION = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b")
_VARYING = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|<[^>]*>|\b0x[0-9a-f]+\b|\d+(?:\.\d+)?|[\w.]+\(\)")
_BACKTICK = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_QUOTED = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”")
_NAME = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"(?<![\w])\.?([A-Za-z_]\w*)\s*\(")
_CODE_SHAPED = re.compile(r"\b(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*[A-Z]\w*|_*[A-Za-z][A-Za-z0-9]*_\w+)\b")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
# Python's own names are defined nowhere in a project, or everywhere: never an identifier part.
_BUILTINS = frozenset({
    "print", "len", "str", "int", "float", "list", "dict", "set", "tuple", "type", "range", "open", "isinstance",
    "super", "object", "self", "cls", "None", "True", "False", "repr", "format", "append", "items", "keys",
    "values", "get", "join", "split", "copy", "update", "sum", "min", "max", "abs", "map", "zip", "sorted",
})
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\)|^\s*File \"[^\"]+\", line \d+", re.M)


@dataclass(frozen=True)
class Part:
    """One search a long text contains: its text, kind (`source`), pinned intent and fusion weight.

    `paths` are the files a FILE or MODULE part names (resolved against the index by `plan`); such a
    part needs no search, its files are the answer. `within` are the files that define an IDENTIFIER
    part's name: its search answers only there (a definition lookup also finds names like it).
    """

    source: str
    query: str
    intent: str
    weight: float
    paths: tuple[str, ...] = ()
    within: tuple[str, ...] = ()
    mentions: int = 1


@dataclass(frozen=True)
class PartResult:
    """A part and what its search found, best file first (`results`: one per file)."""

    part: Part
    results: tuple[FusedResult, ...]
    strategy: str = ""
    ms: float = 0.0
    response: SearchResponse | None = None

    def as_part(self) -> DecompositionPart:
        """The part as the answer's `decomposition` lists it."""
        return DecompositionPart(self.part.query, self.part.source, self.part.intent, self.part.weight,
                                 len(self.results), self.strategy, tuple(result.path for result in self.results[:3]))


@dataclass(frozen=True)
class Decomposed:
    """The fused answer of a decomposed text: files best first, and every part with its own answer."""

    results: list[FusedResult]
    parts: list[PartResult] = field(default_factory=list)
    functions: list[FunctionHit] = field(default_factory=list)


def should_decompose(query: str) -> bool:
    """Whether a query is a pasted text (an issue, a bug report, a traceback) rather than one question."""
    text = query.strip()
    if len(text) > LONG_QUERY:
        return True
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) >= MIN_LINES and (_FENCE.search(text) is not None or _TRACEBACK.search(text) is not None)


# --- splitting (pure) ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Split:
    """What a text states, before the index is asked: candidates for each kind of part, in order."""

    prose: str
    body: str
    files: tuple[str, ...]
    modules: tuple[str, ...]
    names: tuple[str, ...]
    errors: tuple[str, ...]
    quotes: tuple[str, ...]
    counts: Mapping[str, int] = field(default_factory=dict)
    # name -> how strongly the text states it (NAME_STRENGTH by where it stands); traceback frames as
    # (file named, function), innermost first
    stated: Mapping[str, float] = field(default_factory=dict)
    frames: tuple[tuple[str, str], ...] = ()


def split(text: str) -> Split:
    """Read a text into its candidate parts; nothing is checked against an index yet.

    Names are ordered by how strongly the text states them: backticked and frame functions first,
    then code-shaped words of the prose, then names a code block calls; within each, by count.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    code_blocks = [match.group(2) for match in _FENCE.finditer(text)]
    outside = _FENCE.sub("\n", text)
    prose_lines = [line for line in outside.split("\n") if not _looks_like_code(line)]
    prose, body = _prose(prose_lines)
    code = "\n".join(code_blocks) + "\n" + "\n".join(line for line in outside.split("\n") if _looks_like_code(line))

    frames = _frames(text)
    # innermost frame first: the bug is most often where the traceback ends
    files = [named for named, _ in reversed(frames)]
    without_frames = _FRAME.sub(" ", text)
    files.extend(match.group(1) for match in _PATH.finditer(without_frames))
    modules = _imported_modules(code) + [m for m in _DOTTED.findall(outside) if m.count(".") >= 1]

    strong = [match.group(1).strip() for match in _BACKTICK.finditer(outside)]
    strong_names: list[str] = []
    for item in strong:
        strong_names.extend(_names_in(item))
    strong_names.extend(function for _, function in reversed(frames) if function and function[0] != "<")
    prose_names = _CODE_SHAPED.findall(outside) + _EXCEPTION.findall(text)
    code_names = [match.group(1) for match in _CALL.finditer(code)]
    code_names.extend(name for _, imported in _imported_names(code) for name in imported)
    counts = Counter(_NAME.findall(text))
    groups = [strong_names, prose_names, code_names]
    names = _ordered(groups, counts)
    stated: dict[str, float] = {}
    for strength, group in zip(NAME_STRENGTH, groups, strict=True):
        for name in group:
            stated[name] = max(stated.get(name, 0.0), strength)

    errors = [_literal(match.group(2)) for match in _ERROR_LINE.finditer(text)]
    errors.extend(message for match in _DIAGNOSTIC.finditer(text)
                  if not _NAME.fullmatch(message := _literal(match.group(1))))
    quotes = [_literal(next(group for group in match.groups() if group)) for match in _QUOTED.finditer(outside)]
    quotes.extend(_literal(item) for item in strong if not _NAME.fullmatch(item) and not _DOTTED.fullmatch(item))
    return Split(
        prose=prose,
        body=body,
        files=tuple(dict.fromkeys(files)),
        modules=tuple(dict.fromkeys(modules)),
        names=names,
        errors=tuple(dict.fromkeys(e for e in reversed(errors) if e)),
        quotes=tuple(dict.fromkeys(q for q in quotes if q)),
        counts=dict(counts),
        stated={name: stated[name] for name in names},
        frames=tuple((named, function) for named, function in reversed(frames) if function),
    )


def _frames(text: str) -> list[tuple[str, str]]:
    """Each traceback frame of a text in the text's order, as (file named, function): the function's own name, an
    IPython 8 frame's `Plot._plot` read as `_plot`; '' when a frame names none."""
    found = []
    for match in _FRAME.finditer(text):
        named, function = next((match.group(n), match.group(n + 1) or "") for n in (1, 3, 5) if match.group(n))
        found.append((named, function.rsplit(".", 1)[-1]))
    return found


def _looks_like_code(line: str) -> bool:
    """An unfenced line of code or REPL output pasted into prose (`>>> f(x)`, an indented block)."""
    stripped = line.strip()
    return stripped.startswith((">>>", "...", "$ ", "In [", "Out[")) or line.startswith(("    ", "\t"))


def _prose(lines: Sequence[str]) -> tuple[str, str]:
    """(title + first paragraph, the rest): the title is the first non-empty line."""
    words = [line.strip() for line in lines]
    while words and not words[0]:
        words.pop(0)
    if not words:
        return "", ""
    title, rest = words[0], words[1:]
    while rest and not rest[0]:
        rest.pop(0)
    first: list[str] = []
    while rest and rest[0]:
        first.append(rest.pop(0))
    head = " ".join([title, *first])
    tail = " ".join(line for line in rest if line)
    return _clean(head)[:PROSE_CHARS], _clean(tail)[:BODY_CHARS]


def _clean(text: str) -> str:
    """Markdown headings, emphasis and link targets out; one space between words."""
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"[#*>|]+", " ", text)
    return " ".join(text.split())


def _imported_modules(code: str) -> list[str]:
    modules = []
    for match in _IMPORT.finditer(code):
        if match.group(1):
            modules.append(match.group(1))
            # `from astropy.io import ascii`: the imported name may itself be a module
            modules.extend(f"{match.group(1)}.{name}" for name in _NAME.findall(match.group(2)))
        elif match.group(3):
            modules.append(match.group(3))
    return [module for module in modules if "." in module]


def _imported_names(code: str) -> list[tuple[str, list[str]]]:
    return [(match.group(1), _NAME.findall(match.group(2))) for match in _IMPORT.finditer(code) if match.group(1)]


def _names_in(fragment: str) -> list[str]:
    """Identifiers a backticked fragment states: the whole of it when it is a name (`separability_matrix`,
    `a.b.c`: its last part), else the names it calls and the code-shaped ones (`m.Linear1D(10)`), not
    the plain words of an expression (`is not None`)."""
    if _NAME.fullmatch(fragment) or _DOTTED.fullmatch(fragment):
        return [fragment.rsplit(".", 1)[-1]]
    return [match.group(1) for match in _CALL.finditer(fragment)] + _CODE_SHAPED.findall(fragment)


def _ordered(groups: Sequence[Sequence[str]], counts: Mapping[str, int]) -> tuple[str, ...]:
    """Names by group (strongest statement first), by count within a group; builtins and short names out."""
    seen: dict[str, None] = {}
    for group in groups:
        for name in sorted(dict.fromkeys(group), key=lambda n: -counts.get(n, 0)):
            if len(name) > 2 and name not in _BUILTINS:
                seen.setdefault(name, None)
    return tuple(seen)


def _literal(text: str) -> str:
    """The longest fixed stretch of a message: what varies (quoted values, numbers, addresses, the
    `name()` a runtime error names) is cut out, so what is left is what the source says."""
    text = text.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1]
    pieces = _VARYING.split(text)
    best = max((piece.strip(" :,.()[]") for piece in pieces), key=len, default="")
    return best if MIN_LITERAL <= len(best) <= MAX_LITERAL else ""


# --- checking against the index ------------------------------------------------------------------
def resolve_path(named: str, files: Collection[str], by_name: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """The indexed files a named path means: those sharing the longest trailing run of its folders.

    `/usr/lib/python3/dist-packages/astropy/table/connect.py` is `astropy/table/connect.py` in the
    index. A bare file name counts only when it is not generic and names one file.
    """
    parts = PurePosixPath(named.replace("\\", "/")).parts
    if not parts:
        return ()
    candidates = by_name.get(parts[-1], ())
    best: list[str] = []
    best_length = 0
    for path in candidates:
        length = _common_suffix(parts, PurePosixPath(path).parts)
        if length > best_length:
            best, best_length = [path], length
        elif length == best_length and length:
            best.append(path)
    if best_length == 1 and (parts[-1] in GENERIC_FILES or len(best) > 1):
        return ()
    return tuple(sorted(best))


def _common_suffix(left: Sequence[str], right: Sequence[str]) -> int:
    count = 0
    while count < min(len(left), len(right)) and left[-1 - count] == right[-1 - count]:
        count += 1
    return count


def module_files(module: str, files: Collection[str]) -> tuple[str, ...]:
    """`astropy.modeling.separable` -> `astropy/modeling/separable.py` (or its package's `__init__.py`),
    also under a `src/` or `lib/` folder."""
    base = module.replace(".", "/")
    for prefix in ("", "src/", "lib/"):
        for candidate in (f"{prefix}{base}.py", f"{prefix}{base}/__init__.py"):
            if candidate in files:
                return (candidate,)
    return ()


def plan(
    text: str,
    files: Collection[str],
    definitions: Callable[[str], Collection[str]],
    weights: Mapping[str, float] | None = None,
) -> list[Part]:
    """The parts of `text` worth running against this index: named files that exist, modules that
    resolve, names it defines (in at most MAX_DEFINITIONS files), literals and the prose."""
    weights = PART_WEIGHTS if weights is None else weights
    found = split(text)
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(PurePosixPath(path).name, []).append(path)
    parts: list[Part] = []

    def add(source: str, query: str, paths: tuple[str, ...] = (), within: tuple[str, ...] = (),
            mentions: int = 1) -> None:
        if weights.get(source, 0.0) > 0 and sum(p.source == source for p in parts) < MAX_PARTS.get(source, 1):
            parts.append(Part(source, query, PART_INTENTS[source], weights[source], paths, within, mentions))

    if found.prose:
        add(PROSE, found.prose)
    if found.body:
        add(BODY, found.body)
    named: dict[str, tuple[str, ...]] = {}
    for item in found.files:
        resolved = resolve_path(item, files, by_name)
        if resolved and resolved not in named.values():
            named[item] = resolved
    for item, resolved in named.items():
        add(FILE, item, resolved)
    for module in found.modules:
        resolved = module_files(module, files)
        if resolved and not any(resolved == p.paths for p in parts):
            add(MODULE, module, resolved)
    for name in found.names:
        # a name the issue's own snippet defines (`foo`) is also defined by some test fixture: not evidence
        defining = [path for path in definitions(name) if path_prior(path, found.prose) >= MIN_DEFINER_PRIOR]
        if 0 < len(defining) <= MAX_DEFINITIONS:
            add(IDENTIFIER, name, within=tuple(sorted(defining)), mentions=found.counts.get(name, 1))
    for message in found.errors:
        add(ERROR, message)
    for quote in found.quotes:
        if quote not in found.errors:
            add(QUOTE, quote)
    return parts


# --- fusion (pure) -------------------------------------------------------------------------------
def fuse_files(
    answered: Sequence[PartResult],
    k: int = FILE_K,
    prior: Callable[[str], float] | None = None,
    depth: int = PART_DEPTH,
) -> list[FusedResult]:
    """Weighted RRF over the parts' file rankings: a file gains weight / (k + rank + 1) from each part
    that lists it (rank 0-based, one entry per file per part), times its path prior.

    Each fused result is the file's result from the searched part that contributed most (a part that
    only names the file stands for it when no search found it), with the other parts' places in that
    file in `matches`, best first (at most MAX_MATCHES). `contributions` are per modality (each part's
    gain split as the part's own answer credits its retrievers, `named` for a named file), so they add
    up to the score before the prior; `ranks` are the file's 0-based places in each kind of part.
    """
    scores: dict[str, float] = {}
    by_source: dict[str, dict[str, float]] = {}
    ranks: dict[str, dict[str, int]] = {}
    best: dict[str, tuple[float, FusedResult]] = {}
    places: dict[str, list[tuple[float, Span]]] = {}
    for item, rank, result, gain in _file_gains(answered, k, depth):
        scores[result.path] = scores.get(result.path, 0.0) + gain
        contributions = by_source.setdefault(result.path, {})
        for name, share in _shares(item.part, result).items():
            contributions[name] = contributions.get(name, 0.0) + gain * share
        file_ranks = ranks.setdefault(result.path, {})
        file_ranks[item.part.source] = min(file_ranks.get(item.part.source, rank), rank)
        # a searched part's place (a definition, a chunk) stands for the file before a bare named file
        weight = gain + (0.0 if item.part.paths else 1.0)
        if result.path not in best or weight > best[result.path][0]:
            best[result.path] = (weight, result)
        # a part's own order of places in the file counts: its n-th match weighs MATCH_DECAY^n of its best
        file_places = places.setdefault(result.path, [])
        file_places.extend((gain * MATCH_DECAY**n, span) for n, span in enumerate((result.span, *result.matches)))
    fused = []
    for path, score in scores.items():
        factor = prior(path) if prior is not None else 1.0
        representative = best[path][1]
        spans = [span for _, span in sorted(places[path], key=lambda item: -item[0])]
        matches = list(dict.fromkeys(span for span in spans if span != representative.span))[:MAX_MATCHES]
        fused.append(replace(
            representative, score=score * factor, contributions=by_source[path], ranks=ranks[path],
            matches=matches, prior=factor, coherence=0.0,
        ))
    fused.sort(key=lambda result: (-result.score, result.path))
    return fused


def part_places(answered: Sequence[PartResult], k: int = FILE_K, depth: int = PART_DEPTH
                ) -> dict[str, list[tuple[float, Span]]]:
    """Every place a searched part found in each file, with its share of the part's gain there (the
    n-th place of a part in a file weighs MATCH_DECAY^n of the file's gain, as in `fuse_files`)."""
    places: dict[str, list[tuple[float, Span]]] = {}
    for item, _, result, gain in _file_gains(answered, k, depth):
        if not item.part.paths:
            places.setdefault(result.path, []).extend(
                (gain * MATCH_DECAY**n, span) for n, span in enumerate((result.span, *result.matches)))
    return places


def _file_gains(answered: Sequence[PartResult], k: int, depth: int
                ) -> Iterator[tuple[PartResult, int, FusedResult, float]]:
    """Each part's first result in each file among its first `depth`, with its rank and RRF gain
    (the part's weight / (k + rank + 1)): what `fuse_files` and `part_places` both count."""
    for item in answered:
        seen: set[str] = set()
        for rank, result in enumerate(item.results[:depth]):
            if result.path not in seen:
                seen.add(result.path)
                yield item, rank, result, item.part.weight / (k + rank + 1)


def callee_files(parts: Sequence[Part], parsed: Callable[[str], ParsedFile | None],
                 definitions: Callable[[str], Collection[str]], question: str = "",
                 limit: int = CALLEE_FILES) -> tuple[str, ...]:
    """One step down the call graph from what an issue states: the files that define the names the stated
    names' own definitions call or use (tree-sitter references whose enclosing definition is the stated
    name, or a method of it), at most `limit`, best first: each distinct callee adds 1 / (the number of
    files defining it) to each of them.
    A callee defined in more than MAX_DEFINITIONS files, or only where the path prior lowers (tests,
    examples), says nothing; files the parts already name or define are left out: the step adds the
    helper a stated entry point goes wrong in, not the entry point again."""
    stated = {part.query: part.within for part in parts if part.source == IDENTIFIER}
    known = {path for part in parts for path in (*part.paths, *part.within)}
    callees: set[str] = set()
    for name, within in stated.items():
        for path in within:
            structure = parsed(path)
            for reference in structure.references if structure is not None else ():
                enclosing = (reference.enclosing or "").split(".")
                if name in enclosing and reference.name != name and reference.name not in stated:
                    callees.add(reference.name)
    reached: dict[str, float] = {}
    for callee in callees:
        defining = [path for path in definitions(callee) if path_prior(path, question) >= MIN_DEFINER_PRIOR]
        if 0 < len(defining) <= MAX_DEFINITIONS:
            for path in defining:  # a callee defined in one file points there, one of eight hardly at all
                if path not in known:
                    reached[path] = reached.get(path, 0.0) + 1.0 / len(defining)
    return tuple(path for path, _ in sorted(reached.items(), key=lambda item: (-item[1], item[0]))[:limit])


def evidence_of(text: str, files: Collection[str]) -> Evidence:
    """What a text says about functions (engine/rank/localisation.py): the names it states and how strongly,
    the functions of its traceback frames by the indexed file they resolve to, its error messages and
    quotes, its prose words, and its lines (pasted output shows what a message template printed)."""
    found = split(text)
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(PurePosixPath(path).name, []).append(path)
    frames: dict[str, set[str]] = {}
    for named, function in found.frames:
        for path in resolve_path(named, files, by_name):
            frames.setdefault(path, set()).add(function)
    return Evidence(
        names=found.stated,
        frames={path: frozenset(functions) for path, functions in frames.items()},
        literals=tuple(literal for literal in (*found.errors, *found.quotes) if literal),
        words=tuple(code_tokens(f"{found.prose} {found.body}")),
        lines=tuple(line.strip() for line in text.splitlines() if line.strip()),
    )


def _shares(part: Part, result: FusedResult) -> dict[str, float]:
    """How a part's gain for a file splits over the retrievers that found it there (the file's own
    contributions in the part's answer), so that a decomposed result's `contributions` are per modality
    like any other's; a file a part only names is credited to `named`."""
    total = sum(value for value in result.contributions.values() if value > 0)
    if part.paths or total <= 0:
        return {NAMED: 1.0}
    return {name: value / total for name, value in result.contributions.items() if value > 0}


# --- running -------------------------------------------------------------------------------------
def _named_results(part: Part) -> tuple[FusedResult, ...]:
    """A FILE or MODULE part's answer: the files it names, at their first line."""
    return tuple(
        FusedResult(path=path, span=Span(0, 0, 0, 0), symbol=None, kind="file", language=detect_language(path),
                    snippet="", score=part.weight, contributions={part.source: part.weight},
                    ranks={part.source: 0}, boost=1.0, demoted=False)
        for path in part.paths
    )


def part_request(part: Part, request: SearchRequest, preset: str, semantic: bool) -> SearchRequest:
    """The request one part runs as: intent pinned; the prose fused over the preset's modalities (a
    pinned intent alone would take the direct route, one retriever); and no short forms added to its
    BM25 terms: an issue's prose runs to hundreds of words, its code is pasted as written, and the
    short forms of every word only blur its own (SWE-bench Lite without them: tuning half file hit@5
    77.8 -> 80.0 and function hit@10 58.1 -> 60.5; held-out half hit@1 51.6 -> 52.6, function hit@10
    52.8 -> 53.9, hit@5 and hit@10 the same). No file-level agreement either: hundreds of words find
    most files at several chunks, and the localisation weighs each file's functions itself (with it,
    function hit@10 56.1 -> 53.8 and hit@5 80.0 -> 78.6; held-out function hit@10 53.9 -> 50.6). Nor the
    lift of a file whose whole stem the question says: hundreds of words say most stems (with it,
    hit@1 55.0 -> 55.7 and hit@5 80.0 -> 80.7, but function hit@10 56.1 -> 55.3, tuning half 60.5 -> 58.1).
    Nor the acronyms it spells: hundreds of words spell most three-letter names by chance. Nor the
    rarity of the path words it says: an issue says most of a project's stems, and weighing them by how
    few file names hold them moved one pylint issue's function out of the top ten on a 25-issue sample.
    Nor the lowering of near-copies of a file listed above: a part's answers are files the localisation
    weighs function by function, and lowering one for sharing names with another put sympy's
    `testing/runtests.py` over `pretty.py` (sympy-23191; all 140: function hit@10 79 -> 80, files the same)."""
    modes: tuple[str, ...] | None = None
    if part.intent == UNDERSTAND_CODE:
        chosen = PRESETS[request.preset or preset].modalities
        modes = tuple(m for m in MODALITIES if m in chosen and (semantic or m != "semantic")) or None
    return replace(request, query=part.query, intent=part.intent, modes=modes, limit=PART_DEPTH,
                   ranking=replace(request.ranking, abbreviations=False, file_agreement=False, said_files=False,
                                   acronyms=False, path_rarity=False, file_copies=False))


def issue_prior(question: str, language: str | None = None, non_code: float = NON_CODE_PRIOR,
                other_language: float = OTHER_LANGUAGE_PRIOR) -> Callable[[str], float]:
    """What a path says about a file as the place an issue is fixed: the understanding priors (tests,
    examples, docs lowered unless `question` asks for them); files that are no code at all
    (changelogs, CI configs, issue templates) lowered to `non_code` at least, once: the prose prior
    already lowers changelogs and CI configs that far, and a second cut would bury them for good;
    and code in another language than the issue's `language` (a vendored `jquery-3.5.1.js` for a
    Python traceback) lowered too. Tests are lowered even when the question speaks of tests: an
    issue about "the test run" (pytest's own, a user's failing test) is reproduced in a test and
    fixed in the code."""
    tests_said = asks_about_tests(question)

    def prior(path: str) -> float:
        factor = path_prior(path, question)
        if tests_said and is_test_path(path):
            factor *= TEST_PRIOR
        found = detect_language(path)
        if found is None or found in DOC_LANGUAGES:
            return factor * non_code if factor > non_code else factor
        if language is not None and found != language:
            factor *= other_language
        return factor

    return prior


def issue_language(answered: Sequence[PartResult], languages: Mapping[str, str | None]) -> str | None:
    """The language an issue is about: that of the files it names and of the definitions of the names it
    states, else the language most of the index's code is in."""
    evidence = Counter(languages.get(path) for item in answered if item.part.paths or item.part.within
                       for path in (*item.part.paths, *item.part.within))
    if not evidence:
        evidence = Counter(languages.values())
    ranked = [(count, language) for language, count in evidence.items()
              if language is not None and language not in DOC_LANGUAGES]
    return max(ranked)[1] if ranked else None


def _allowed(request: SearchRequest, language_of: Callable[[str], str | None]) -> Callable[[str], bool]:
    """The request's `paths` globs and `languages` ids, for the files a part names."""
    spec = pathspec.GitIgnoreSpec.from_lines(request.paths) if request.paths else None
    languages = set(request.languages or ())
    return lambda path: (spec is None or spec.match_file(path)) and (not languages or language_of(path) in languages)


def run_part(part: Part, request: SearchRequest, run: Callable[[SearchRequest], SearchResponse],
             allowed: Callable[[str], bool], preset: str, semantic: bool) -> PartResult:
    """One part's answer: the files it names, or its search (an identifier's only where it is defined)."""
    began = time.perf_counter()
    if part.paths:
        return PartResult(part, tuple(r for r in _named_results(part) if allowed(r.path)), "named", _ms(began))
    response = run(part_request(part, request, preset, semantic))
    results = tuple(r for r in response.results if not part.within or r.path in part.within)
    return PartResult(part, results, response.fusion_strategy, _ms(began), response)


def search_decomposed(
    request: SearchRequest,
    files: Mapping[str, str | None],
    definitions: Callable[[str], Collection[str]],
    run: Callable[[SearchRequest], SearchResponse],
    preset: str,
    semantic: bool,
    parsed: Callable[[str], ParsedFile | None] | None = None,
    text: Callable[[str], str | None] | None = None,
) -> Decomposed:
    """Plan the parts of a long request, run each through `run` (the engine's one-query search), and fuse.

    `files` maps each indexed path to its language. Given `parsed` and `text`, a file whose function says the
    issue's message is lifted a little (localisation.lift_said), the functions of the files are ranked
    (localisation.rank_functions), and then a file whose function the issue's words fit is lifted
    (localisation.lift_worded); last, the files the stated definitions call join the answer's tail
    (`callee_files`, `fill_tail`). When nothing is found at all, the whole text is
    asked as one understanding question: a long text that names nothing the index knows still gets
    the answer its words deserve (DESIGN §4: an answerable query never comes back empty).
    """
    parts = plan(request.query, files, definitions)
    allowed = _allowed(request, files.get)
    answered = [run_part(part, request, run, allowed, preset, semantic) for part in parts]
    if not any(item.results for item in answered):
        whole = Part(PROSE, _clean(request.query)[: PROSE_CHARS * 4], UNDERSTAND_CODE, 1.0)
        response = run(part_request(whole, request, preset, semantic))
        answered.append(PartResult(whole, tuple(response.results), "rescued", 0.0, response))
    question = next((p.query for p in parts if p.source == PROSE), request.query[:PROSE_CHARS])
    prior = issue_prior(question, issue_language(answered, files))
    fused = fuse_files(answered, prior=prior)
    functions: list[FunctionHit] = []
    if parsed is not None and text is not None:
        evidence = evidence_of(request.query, files)
        fused = lift_said(fused, parsed, text, evidence.literals)
        owned: Owned = {}  # both read the first files' functions: tokenized once
        functions = rank_functions(fused, part_places(answered), parsed, text, evidence, owned=owned)
        fused = lift_worded(fused, parsed, text, evidence.words, owned=owned)  # after: the functions count the words
        called = callee_files(parts, parsed, definitions, question)
        if called:
            step = run_part(Part(CALLEE, ", ".join(called[:3]), PART_INTENTS[CALLEE], PART_WEIGHTS[CALLEE], called),
                            request, run, allowed, preset, semantic)
            answered.append(step)
            fused = fill_tail(fused, fuse_files([step], prior=prior))
    return Decomposed(fused[: request.limit], answered, functions)


def fill_tail(fused: Sequence[FusedResult], reached: Sequence[FusedResult], head: int = CALLEE_HEAD
              ) -> list[FusedResult]:
    """The answer with the call-graph step's files (`reached`, scored as a part of their own) added to the
    files past the first `head`: each of those gains its score there, a reached file no part found joins
    them, and they are re-sorted as `fuse_files` sorts. The head is what the issue's own words and names
    found, and stays as it is; the step is weaker evidence, so it only decides the tail."""
    first = list(fused[:head])
    kept = {result.path for result in first}
    gains = {result.path: result for result in reached if result.path not in kept}
    tail = [replace(result, score=result.score + gains.pop(result.path).score) if result.path in gains else result
            for result in fused[head:]]
    tail.extend(gains.values())
    tail.sort(key=lambda result: (-result.score, result.path))
    return first + tail


def respond(
    request: SearchRequest,
    snapshot: Snapshot,
    run: Callable[[SearchRequest], SearchResponse],
    preset: str,
    semantic: bool,
    started: float,
) -> SearchResponse:
    """The search response of a decomposed request: the fused files, every part in `decomposition`,
    the modalities as the parts used them (summed hits and time), and a note that says how it was read."""
    from .answer import ModalityReport, SearchResponse

    answer = search_decomposed(request, {path: record.language for path, record in snapshot.files.items()},
                               lambda name: defining_files(snapshot, name), run, preset, semantic,
                               snapshot.parsed.get, snapshot.text)
    reports: dict[str, ModalityReport] = {}
    for item in answer.parts:
        for modality, report in (item.response.modalities.items() if item.response else ()):
            old = reports.get(modality)
            reports[modality] = report if old is None else ModalityReport(
                max(old.weight, report.weight), old.ran or report.ran, old.hits + report.hits,
                round(old.ms + report.ms, 3), old.error or report.error)
    counts = Counter(item.part.source for item in answer.parts)
    note = "decomposed into " + ", ".join(f"{count} {source}" for source, count in counts.items())
    notes = [note] + [n for item in answer.parts if item.response for n in item.response.notes]
    return SearchResponse(
        query=request.query, intent=UNDERSTAND_CODE, confidence=1.0, rule="decomposed", target=None,
        fusion_strategy=DECOMPOSED, preset=preset, k=FILE_K, modalities=reports, results=answer.results,
        timings_ms={"total": _ms(started)}, notes=list(dict.fromkeys(notes)),
        decomposition=[item.as_part() for item in answer.parts],
        functions=list(answer.functions),
    )


def defining_files(snapshot: Snapshot, name: str) -> set[str]:
    """The files that define `name` as a function, class, method or type (fields and variables do not count)."""
    return {symbol.path for symbol in snapshot.symbols.definitions(name) if symbol.kind in DEFINITION_KINDS}


def _ms(began: float) -> float:
    return round((time.perf_counter() - began) * 1000, 3)
