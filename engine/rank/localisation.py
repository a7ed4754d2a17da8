"""Which functions of the files an issue points at are the ones its fix edits.

Found files are half an answer: an agent handed `sympy/core/mul.py` still has 2,000 lines to read.
After a decomposed search has ranked the files (engine/search/decompose.py), this module ranks the
functions, methods and classes inside the first few of them by what the issue says about each:

- `frame`: a traceback frame names it (the function of a `File "…", line N, in f` line in that file);
- `named`: the issue states its name (backticked or a traceback's function: strongly; a code-shaped
  word of the prose: less; a call in a code block: least), or the name of its class (half); a stated
  class's own lines (header, docstring, attributes) count FUNCTION_CLASS_NAMED of its statement;
- `calls`: it calls or uses a name the issue states (the path a failing call takes goes through it);
- `called`: a function the issue names outright (backticked, a code-shaped word of the prose, a frame's
  function) calls or uses it: one step down from the entry point the reporter used (`iter_content` ->
  the `stream_decode_response_unicode` it decodes with), where the fault often is;
- `literal`: its own lines contain an error message or a quoted string of the issue, or hold a message
  template (a string literal with `%s` / `{}` placeholders) that one line of the issue fills in: the program
  printed it there (`"%s contains %d more items"` for `Right contains more items` in pasted output);
- `words`: the issue's prose words in its name and its own lines (BM25, normalised by the best);
- `found`: the places the parts' searches found inside it (their fusion gains, normalised).

A function scores its file's share, 1 / (1 + the file's place among the found files; for a function that
says a literal, the better of that and its file's place among the files whose functions say one) to the power
FUNCTION_FILE_POWER, times `floor + Σ weight × feature` (FUNCTION_WEIGHTS in profiles.py), lowered for
a test function or a file the path prior lowers (a test, an example, docs), so the second file's function
that the traceback names beats the first file's function that nothing points at, and a function of a
later file needs stronger evidence. Each function's own lines are its span minus its nested definitions':
a class is scored by its header and attributes, its methods by themselves.

The answer lists the functions best first, each with the features that put it there (`reasons`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..model.profiles import (
    FUNCTION_BM25_B,
    FUNCTION_BM25_K1,
    FUNCTION_CALLER_STRENGTH,
    FUNCTION_CLASS_NAMED,
    FUNCTION_FILE_POWER,
    FUNCTION_FILES,
    FUNCTION_FLOOR,
    FUNCTION_LIMIT,
    FUNCTION_LITERAL_FILES,
    FUNCTION_LITERAL_LIFT,
    FUNCTION_NAME_WEIGHT,
    FUNCTION_TEMPLATE_CHARS,
    FUNCTION_TEST_PRIOR,
    FUNCTION_WEIGHTS,
    FUNCTION_WORDS_LIFT,
)
from ..model.records import ParsedFile, Span, Symbol
from ..model.tokens import code_tokens, token_bag
from .fusion import FusedResult

__all__ = [
    "FEATURES",
    "FUNCTION_KINDS",
    "Candidate",
    "Evidence",
    "FunctionHit",
    "Owned",
    "candidates",
    "fills_template",
    "is_test",
    "lift_said",
    "lift_worded",
    "rank_functions",
    "score_candidates",
]

# Definitions a fix is said to edit (a field or a variable is part of its class or module).
FUNCTION_KINDS = frozenset({"function", "method", "class", "constructor"})
FEATURES = ("frame", "named", "calls", "called", "literal", "words", "found")


@dataclass(frozen=True)
class Evidence:
    """What an issue states, as the function ranking reads it.

    `names`: a stated name -> how strongly (1 for backticked or a frame's function, less for prose
    and code-block names). `frames`: a file a traceback names -> the functions its frames are in.
    `literals`: error messages and quoted strings. `words`: the prose's tokens. `lines`: every non-empty
    line of the text, code blocks and pasted output included, where a function's message template may
    show filled in.
    """

    names: Mapping[str, float] = field(default_factory=dict)
    frames: Mapping[str, frozenset[str]] = field(default_factory=dict)
    literals: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Candidate:
    """One function of a found file with its features (each 0..1) and its file's share (1 / (1 + place))."""

    path: str
    symbol: Symbol
    file_share: float
    features: Mapping[str, float]
    test: bool = False


@dataclass(frozen=True)
class FunctionHit:
    """A function the fix may edit: where it is, its score, and the features that put it there."""

    path: str
    symbol: str
    kind: str
    span: Span
    score: float
    reasons: tuple[str, ...]


def _own_lines(symbols: Sequence[Symbol], line_count: int) -> dict[int, list[int]]:
    """For each candidate (by index), the lines no nested candidate claims: a sweep over spans sorted
    by start, the innermost open span owning each line."""
    order = sorted(range(len(symbols)), key=lambda i: (symbols[i].span.start_line, -symbols[i].span.end_line))
    owned: dict[int, list[int]] = {i: [] for i in order}
    stack: list[int] = []
    position = 0
    for line in range(line_count):
        while position < len(order) and symbols[order[position]].span.start_line <= line:
            stack.append(order[position])
            position += 1
        while stack and symbols[stack[-1]].span.end_line < line:  # definitions nest: the top ends first
            stack.pop()
        if stack:
            owned[stack[-1]].append(line)
    return owned


def _innermost(symbols: Sequence[Symbol], line: int) -> int | None:
    inside = [i for i, s in enumerate(symbols) if s.span.start_line <= line <= s.span.end_line]
    return max(inside, key=lambda i: (symbols[i].span.start_line, -symbols[i].span.end_line)) if inside else None


# Per file, each function's own lines and their tokens (the lines' and, FUNCTION_NAME_WEIGHT times, its name's):
# the function ranking and the words lift read the same first files, so a request tokenizes them once.
Owned = dict[str, list[tuple[str, list[str]]]]


def _owned(path: str, defined: Sequence[Symbol], body: str, cache: Owned | None) -> list[tuple[str, list[str]]]:
    if cache is not None and path in cache:
        return cache[path]
    lines = body.split("\n")
    owned = _own_lines(defined, len(lines))
    rows = []
    for index, symbol in enumerate(defined):
        own = "\n".join(lines[line] for line in owned[index])
        rows.append((own, token_bag(own) + code_tokens(symbol.qualified or symbol.name) * FUNCTION_NAME_WEIGHT))
    if cache is not None:
        cache[path] = rows
    return rows


def candidates(
    files: Sequence[FusedResult],
    places: Mapping[str, Sequence[tuple[float, Span]]],
    parsed: Callable[[str], ParsedFile | None],
    text: Callable[[str], str | None],
    evidence: Evidence,
    depth: int = FUNCTION_FILES,
    owned: Owned | None = None,
) -> list[Candidate]:
    """The functions of the first `depth` files, each with its features (`owned`: a cache kept by the caller)."""
    top = files[:depth]
    rows: list[tuple[FusedResult, float, Symbol, dict[str, float], list[str]]] = []
    found_raw: list[float] = []
    callees: dict[str, float] = {}  # what the functions the issue names call or use -> the strongest naming
    for place, result in enumerate(top):
        share = 1.0 / (1 + place)  # the file's place, not its fused score: see FUNCTION_FILE_POWER
        structure = parsed(result.path)
        body = text(result.path)
        defined = [s for s in structure.symbols if s.kind in FUNCTION_KINDS] if structure is not None else []
        if structure is None or not defined or body is None:
            continue
        own_lines = _owned(result.path, defined, body, owned)
        gains: dict[int, float] = {}
        for gain, span in places.get(result.path, ()):
            index = _innermost(defined, span.start_line)
            if index is not None:
                gains[index] = gains.get(index, 0.0) + gain
        # what it calls or uses that the issue states: a function the failing call goes through
        uses: dict[int, float] = {}
        for reference in structure.references:
            strength = evidence.names.get(reference.name, 0.0)
            index = _innermost(defined, reference.span.start_line) if strength else None
            if index is not None and defined[index].name != reference.name:
                uses[index] = max(uses.get(index, 0.0), strength)
        framed = evidence.frames.get(result.path, frozenset())
        _add_callees(callees, structure, defined, evidence.names)
        for index, symbol in enumerate(defined):
            own, tokens = own_lines[index]
            container = (symbol.qualified or symbol.name).rsplit(".", 1)[0] if "." in (symbol.qualified or "") else ""
            # a stated class is where its behaviour lives: its methods (half), its header's own lines at
            # FUNCTION_CLASS_NAMED of it (profiles.py)
            stated = evidence.names.get(symbol.name, 0.0) * (FUNCTION_CLASS_NAMED if symbol.kind == "class" else 1.0)
            named = max(stated, 0.5 * evidence.names.get(container, 0.0))
            features = {
                "frame": 1.0 if symbol.name in framed else 0.0,
                "named": named,
                "literal": 1.0 if any(literal in own for literal in evidence.literals)
                or fills_template(own, evidence.lines) else 0.0,
                "calls": uses.get(index, 0.0),
            }
            rows.append((result, share, symbol, features, tokens))
            found_raw.append(gains.get(index, 0.0))
    words = _bm25([row[4] for row in rows], evidence.words)
    top_words = max(words, default=0.0) or 1.0
    top_found = max(found_raw, default=0.0) or 1.0
    tests = [is_test(symbol) or result.prior < 1.0 for result, _, symbol, _, _ in rows]
    # a function saying the message or quote is pointed at by the text itself, as a frame's is: its file's
    # share is its place among the files whose (non-test) functions say one, when that is better (profiles.py,
    # beside FUNCTION_FILE_POWER)
    saying = list(dict.fromkeys(row[0].path for row, test in zip(rows, tests, strict=True)
                                if row[3]["literal"] and not test))
    out = []
    for (result, share, symbol, features, _), lexical, gain, test in zip(rows, words, found_raw, tests, strict=True):
        if features["literal"] and not test:
            share = max(share, 1.0 / (1 + saying.index(result.path)))
        out.append(Candidate(result.path, symbol, share,
                             {**features, "called": callees.get(symbol.name, 0.0), "words": lexical / top_words,
                              "found": gain / top_found},
                             test))
    return out


def _add_callees(callees: dict[str, float], structure: ParsedFile, defined: Sequence[Symbol],
                 names: Mapping[str, float]) -> None:
    """Add to `callees` the names that the file's functions the issue names (at FUNCTION_CALLER_STRENGTH at
    least: backticked, a code-shaped word of its prose, a frame's function) call or use on their own lines,
    each at the strongest naming of a caller; names the issue states itself are left out (they are `named`)."""
    callers = {symbol.qualified or symbol.name: names[symbol.name] for symbol in defined
               if names.get(symbol.name, 0.0) >= FUNCTION_CALLER_STRENGTH}
    if not callers:
        return
    for reference in structure.references:
        strength = callers.get(reference.enclosing or "", 0.0)
        if strength and reference.name not in names:
            callees[reference.name] = max(callees.get(reference.name, 0.0), strength)


# A one-line string literal in code (either quote, escapes kept), and the placeholders a format string
# fills in: printf's `%s` / `%(name)d` / `%-8.3f`, and the `{}` / `{0!r}` / `{name:>8}` of str.format, f-strings
# and Rust's format!.
_STRING = re.compile(r"\"((?:[^\"\\\n]|\\.)+)\"|'((?:[^'\\\n]|\\.)+)'")
_PLACEHOLDER = re.compile(r"%(?:\([^)\n]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgeExXco]|\{[^{}\n]*\}")


def fills_template(own: str, lines: Sequence[str]) -> bool:
    """Whether one of `lines` is what a message template of `own` prints: a string literal with a placeholder
    whose fixed pieces (FUNCTION_TEMPLATE_CHARS of them at least: `"%s.%s"` would fit any dotted name) all
    stand in that one line, in order. An issue pastes what the program printed, values filled in, so the
    message is never a substring of the source the way a quoted literal is."""
    if not lines:
        return False
    for match in _STRING.finditer(own):
        literal = match.group(1) if match.group(1) is not None else match.group(2)
        if not _PLACEHOLDER.search(literal):
            continue
        pieces = [piece.strip() for piece in _PLACEHOLDER.split(literal) if piece.strip()]
        if sum(len(piece) for piece in pieces) >= FUNCTION_TEMPLATE_CHARS and any(
                _in_order(pieces, line) for line in lines):
            return True
    return False


def _in_order(pieces: Sequence[str], line: str) -> bool:
    position = 0
    for piece in pieces:
        found = line.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def lift_said(files: Sequence[FusedResult], parsed: Callable[[str], ParsedFile | None],
              text: Callable[[str], str | None], literals: Sequence[str], depth: int = FUNCTION_LITERAL_FILES,
              lift: float = FUNCTION_LITERAL_LIFT) -> list[FusedResult]:
    """The fused files, those of the first `depth` whose function says one of the issue's messages or quotes
    on its own lines lifted by (1 + lift) (a test's by FUNCTION_TEST_PRIOR of that), the first `depth`
    re-sorted as `fuse_files` sorts: where an error is raised is where it is most often fixed."""
    if not literals:
        return list(files)
    head = []
    for result in files[:depth]:
        said = _says(result, parsed, text, literals)
        head.append(replace(result, score=result.score * (1 + lift * said)) if said else result)
    head.sort(key=lambda result: (-result.score, result.path))
    return head + list(files[depth:])


def lift_worded(files: Sequence[FusedResult], parsed: Callable[[str], ParsedFile | None],
                text: Callable[[str], str | None], words: Sequence[str], depth: int = FUNCTION_LITERAL_FILES,
                lift: float = FUNCTION_WORDS_LIFT, owned: Owned | None = None) -> list[FusedResult]:
    """The fused files, each of the first `depth` lifted by (1 + lift × its best function's `words` share):
    the issue's prose words against every function of those files (BM25 over their own lines and names, as
    a share of the best; a test's, or a function of a file the path prior lowers, counts FUNCTION_TEST_PRIOR
    of it); the first `depth` re-sorted as `fuse_files` sorts. A fix's few lines in a long module are
    diluted in the file's score, not in its function's."""
    if not words:
        return list(files)
    best: dict[str, float] = {}
    for found in candidates(files, {}, parsed, text, Evidence(words=tuple(words)), depth, owned):
        share = found.features["words"] * (FUNCTION_TEST_PRIOR if found.test else 1.0)
        best[found.path] = max(best.get(found.path, 0.0), share)
    head = [replace(result, score=result.score * (1 + lift * best[result.path])) if best.get(result.path) else result
            for result in files[:depth]]
    head.sort(key=lambda result: (-result.score, result.path))
    return head + list(files[depth:])


def _says(result: FusedResult, parsed: Callable[[str], ParsedFile | None], text: Callable[[str], str | None],
          literals: Sequence[str]) -> float:
    """1 when a function of the file says a literal on its own lines, FUNCTION_TEST_PRIOR when only a test
    (or a function of a file the path prior lowers) does, else 0."""
    body = text(result.path)
    structure = parsed(result.path) if body is not None and any(literal in body for literal in literals) else None
    if body is None or structure is None:
        return 0.0
    defined = [s for s in structure.symbols if s.kind in FUNCTION_KINDS]
    lines = body.split("\n")
    said = 0.0
    for index, owned in _own_lines(defined, len(lines)).items():
        own = "\n".join(lines[line] for line in owned)
        if any(literal in own for literal in literals):
            lowered = is_test(defined[index]) or result.prior < 1.0
            said = max(said, FUNCTION_TEST_PRIOR if lowered else 1.0)
    return said


def is_test(symbol: Symbol) -> bool:
    """A test function or a method of a test class (`test_parse`, `TestParser.test_empty`): it shows the
    bug, it is not where the fix goes, wherever its file lives (pytest keeps its own under `testing/`)."""
    head = (symbol.qualified or symbol.name).split(".", 1)[0]
    return symbol.name.startswith("test") or head.startswith("Test")


def _bm25(documents: Sequence[Sequence[str]], query: Iterable[str]) -> list[float]:
    """BM25 of one query over a few hundred short documents (the candidates' own lines): small enough
    that a Counter per document beats building an index."""
    terms = Counter(query)
    if not documents or not terms:
        return [0.0] * len(documents)
    bags = [Counter(document) for document in documents]
    lengths = [len(document) for document in documents]
    average = (sum(lengths) / len(lengths)) or 1.0
    frequency = Counter(term for bag in bags for term in terms if term in bag)
    count = len(documents)
    idf = {term: math.log(1 + (count - frequency[term] + 0.5) / (frequency[term] + 0.5)) for term in frequency}
    scores = []
    for bag, length in zip(bags, lengths, strict=True):
        total = 0.0
        for term, weight in idf.items():
            tf = bag.get(term, 0)
            if tf:
                norm = FUNCTION_BM25_K1 * (1 - FUNCTION_BM25_B + FUNCTION_BM25_B * length / average)
                total += weight * tf * (FUNCTION_BM25_K1 + 1) / (tf + norm)
        scores.append(total)
    return scores


def score_candidates(found: Sequence[Candidate], weights: Mapping[str, float] = FUNCTION_WEIGHTS,
                     floor: float = FUNCTION_FLOOR, power: float = FUNCTION_FILE_POWER,
                     test_prior: float = FUNCTION_TEST_PRIOR) -> list[tuple[float, Candidate]]:
    """Each candidate's score, best first (ties: file order, then position in the file): its file's
    share to the power `power`, times `test_prior` for a test, times floor + the weighted features."""
    scored = [(c.file_share**power * (test_prior if c.test else 1.0)
               * (floor + sum(weights.get(name, 0.0) * value for name, value in c.features.items())), c)
              for c in found]
    return sorted(scored, key=lambda item: (-item[0], -item[1].file_share, item[1].symbol.span.start_line))


def rank_functions(
    files: Sequence[FusedResult],
    places: Mapping[str, Sequence[tuple[float, Span]]],
    parsed: Callable[[str], ParsedFile | None],
    text: Callable[[str], str | None],
    evidence: Evidence,
    limit: int = FUNCTION_LIMIT,
    owned: Owned | None = None,
) -> list[FunctionHit]:
    """The functions of the found files best first, at most `limit`, each saying why it ranks."""
    hits = []
    found = candidates(files, places, parsed, text, evidence, owned=owned)
    for value, candidate in score_candidates(found)[:limit]:
        reasons = tuple(name for name in FEATURES if candidate.features.get(name, 0.0) > 0)
        symbol = candidate.symbol
        hits.append(FunctionHit(candidate.path, symbol.qualified or symbol.name, symbol.kind, symbol.span, value,
                                reasons))
    return hits
