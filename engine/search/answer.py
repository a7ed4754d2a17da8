"""The answer of `fourfold.search` (DESIGN §7) as typed records, and the one place it becomes JSON.

Every client reads this object: the language server's `fourfold.search` and Ctrl+T, `fourfold search
--json`, the CLI daemon and the MCP server. It is assembled here once, from the fused results and the
snapshot the search read (`answer_of`), merged here when several workspace folders answered
(`merge`), and written by `to_dict` alone, which walks the dataclass fields: the field list *is* the
wire format, and `fourfold.lsp.typescript` writes the VS Code client's types from the same list, so
the two cannot drift apart unnoticed.

Positions are the engine's (0-based lines, code point columns). A client that counts columns
otherwise (LSP's UTF-16) hands `to_dict` a `Columns` converter, which is given the snapshot each
result was read from (`Result.source`): a result is converted on the text it was found in, never on a
newer snapshot an edit published since.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..index.chunks import is_comment_line
from ..index.snapshot import Snapshot
from ..model.records import Seed, Span, Symbol
from ..rank.fusion import FusedResult
from ..rank.localisation import FunctionHit

# Field metadata. `WIRE`: the field's name in JSON when it differs from the attribute's (a span is a
# "range" there, as in LSP). `OPTIONAL`: left out of the JSON when None or empty (declared `name?:`
# in TypeScript). `INTERNAL`: never serialised (the snapshot a result was read from). `KEYS`: what
# a mapping's keys are, for the TypeScript mirror (modality ids: "Modality").
WIRE = "wire"
OPTIONAL = "optional"
INTERNAL = "internal"
KEYS = "keys"
MODALITY_KEYS = {KEYS: "Modality"}
# A match line longer than this is cut: a minified line would otherwise fill the answer.
MATCH_LINE_CHARS = 240
# Rounding of the explanation's numbers on the wire (enough to check score == Σ contributions × prior).
SCORE_DIGITS = 6
FACTOR_DIGITS = 4


def wire(name: str) -> dict[str, str]:
    return {WIRE: name}


def optional() -> dict[str, bool]:
    return {OPTIONAL: True}


class Columns(Protocol):
    """Converts a code point column on `line` of `path`, as `source` holds it, to a client's column."""

    def __call__(self, source: Snapshot, path: str, line: int, column: int) -> int: ...


@dataclass(frozen=True)
class ModalityReport:
    """How one modality took part in a query: its weight, whether it ran, its hit count and time."""

    weight: float
    ran: bool
    hits: int = 0
    ms: float = 0.0
    # Why the modality was left out of this answer (a crash, its time budget).
    error: str | None = field(default=None, metadata=optional())


@dataclass(frozen=True)
class DecompositionPart:
    """One part of a long text (an issue, a traceback) searched on its own (engine/search/decompose.py)."""

    query: str
    # Where in the text the part came from: prose, body, file, module, identifier, error, quote.
    source: str
    intent: str
    weight: float
    hits: int
    strategy: str
    # The part's first files.
    top: tuple[str, ...]


@dataclass(frozen=True)
class FunctionRow:
    """A function an issue-sized text is about, best first (rank/localisation.py): what to read first."""

    path: str
    symbol: str
    kind: str
    span: Span = field(metadata=wire("range"))
    score: float
    # The evidence that put it there: "frame", "named", "calls", "called", "literal", "words", "found".
    why: tuple[str, ...]


@dataclass(frozen=True)
class IndexState:
    """The state of the index an answer was given from (several folders: all of them)."""

    ready: bool
    # "indexing", "ready" or "error".
    state: str
    files: int


@dataclass(frozen=True)
class SeedInfo:
    """What a find_similar answer is similar to: `how` is "named" (in the query) or "described"."""

    path: str
    span: Span = field(metadata=wire("range"))
    symbol: str | None
    kind: str | None
    how: str
    source: Snapshot = field(repr=False, compare=False, metadata={INTERNAL: True})


@dataclass(frozen=True)
class Result:
    """One file's best chunk in the answer, with everything that explains its place in the list.

    `score == (Σ contributions + coherence) × prior`, times the demotion factor when `demoted`;
    `ranks` are 0-based positions in each retriever's list (engine/rank/fusion.py `FusedResult`).
    """

    # Relative to the workspace folder the result came from (`folder`, a URI).
    path: str
    uri: str
    folder: str
    span: Span = field(metadata=wire("range"))
    # Where an editor puts the cursor: a definition's name, a text hit's words (`selection_span`).
    selection: Span
    symbol: str | None
    kind: str | None
    container: str | None
    language: str | None
    snippet: str
    score: float
    contributions: dict[str, float] = field(metadata=MODALITY_KEYS)
    ranks: dict[str, int] = field(metadata=MODALITY_KEYS)
    boost: float
    # Whether the result is the definition of a name the question states.
    defines: bool
    prior: float
    coherence: float
    demoted: bool
    # The file's other matching ranges (call sites, uses), each with its code line in `match_lines`.
    matches: tuple[Span, ...]
    match_lines: tuple[str, ...]
    # A guess, not an answer: the question's target is not in the workspace (engine/search/absence.py).
    approximate: bool
    # How the result depends on the question's target (impact): the chain of names from it to the target.
    via: tuple[str, ...]
    # The snapshot the result was read from: its positions are converted on that text.
    source: Snapshot = field(repr=False, compare=False, metadata={INTERNAL: True})
    # Callers: true when imports, receiver or qualification resolve the use, false for a name-only match.
    resolved: bool | None = field(default=None, metadata=optional())


@dataclass(frozen=True)
class Answer:
    """The `fourfold.search` result object; `to_dict` is exactly what the protocol and `--json` carry."""

    query: str
    intent: str
    confidence: float
    # The classifier rule that decided the intent (DESIGN §2), e.g. "2:references".
    rule: str
    # The name the question is about, if any.
    target: str | None
    # "direct", "rrf", "rescued" or "decomposed".
    fusion_strategy: str
    preset: str
    k: int
    modalities: dict[str, ModalityReport] = field(metadata=MODALITY_KEYS)
    results: tuple[Result, ...]
    timings_ms: dict[str, float]
    notes: tuple[str, ...]
    seed: SeedInfo | None
    index: IndexState
    # True while the index is still being built: the list may grow.
    partial: bool
    # The parts a long text was split into, each with its own hits; left out when the query was one question.
    decomposition: tuple[DecompositionPart, ...] = field(default=(), metadata=optional())
    # A decomposed answer's functions of its files, best first; left out for any other answer.
    functions: tuple[FunctionRow, ...] = field(default=(), metadata=optional())

    def to_dict(self, columns: Columns | None = None) -> dict[str, Any]:
        """The protocol's JSON object; `columns` converts every range's columns for the client."""
        return _record(self, columns, None, None)


def _record(value: Any, columns: Columns | None, source: Snapshot | None, path: str | None) -> dict[str, Any]:
    """JSON of a record, field by field (WIRE names, OPTIONAL left out when empty, INTERNAL never).

    A record's `source` snapshot and `path` are what its ranges are converted on."""
    own_source = getattr(value, "source", None)
    own_path = getattr(value, "path", None)
    source = own_source if isinstance(own_source, Snapshot) else source
    path = own_path if isinstance(own_path, str) else path
    out: dict[str, Any] = {}
    for item in dataclasses.fields(value):
        if item.metadata.get(INTERNAL):
            continue
        data = getattr(value, item.name)
        if item.metadata.get(OPTIONAL) and (data is None or data == () or data == []):
            continue
        out[item.metadata.get(WIRE, item.name)] = _encode(data, columns, source, path)
    return out


def _encode(value: Any, columns: Columns | None, source: Snapshot | None, path: str | None) -> Any:
    if isinstance(value, Span):
        return _range(value, columns, source, path)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _record(value, columns, source, path)
    if isinstance(value, Mapping):
        return {key: _encode(item, columns, source, path) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [_encode(item, columns, source, path) for item in value]
    return value


def _range(span: Span, columns: Columns | None, source: Snapshot | None, path: str | None) -> dict[str, Any]:
    start, end = span.start_col, span.end_col
    if columns is not None and source is not None and path is not None:
        start = columns(source, path, span.start_line, start)
        end = columns(source, path, span.end_line, end)
    return {"start": {"line": span.start_line, "character": start},
            "end": {"line": span.end_line, "character": end}}


# --- assembly ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchResponse:
    """What the searcher found, with the fused results' full explanation (engine/rank/fusion.py).

    The protocol's answer is built from it and the snapshot it read by `answer.answer_of`, and
    written by `Answer.to_dict` alone.
    """

    query: str
    intent: str
    confidence: float
    rule: str
    target: str | None
    fusion_strategy: str
    preset: str
    k: int
    modalities: dict[str, ModalityReport]
    results: list[FusedResult]
    timings_ms: dict[str, float]
    notes: list[str] = field(default_factory=list)
    seed: Seed | None = None
    # The parts a long text was split into (engine/search/decompose.py), each with its own hits; else empty.
    decomposition: list[DecompositionPart] = field(default_factory=list)
    # A decomposed answer's functions, best first (rank/localisation.py): which ones the text is about.
    functions: list[FunctionHit] = field(default_factory=list)


def answer_of(response: SearchResponse, snapshot: Snapshot, index: IndexState, partial: bool = False,
              notes: Sequence[str] = (), folder: str | None = None) -> Answer:
    """The answer to a search that read `snapshot`: rows with their container, code lines and selection.

    `folder` is the workspace folder's URI as the client named it (the root's URI by default).
    """
    home = folder or snapshot.root.as_uri()
    seed = response.seed
    return Answer(
        query=response.query,
        intent=response.intent,
        confidence=response.confidence,
        rule=response.rule,
        target=response.target,
        fusion_strategy=response.fusion_strategy,
        preset=response.preset,
        k=response.k,
        modalities=dict(response.modalities),
        results=tuple(result_of(result, snapshot, home) for result in response.results),
        timings_ms=dict(response.timings_ms),
        notes=(*response.notes, *notes),
        seed=None if seed is None else seed_info(seed, snapshot),
        index=index,
        partial=partial,
        decomposition=tuple(response.decomposition),
        functions=tuple(FunctionRow(hit.path, hit.symbol, hit.kind, hit.span, round(hit.score, 6), hit.reasons)
                        for hit in response.functions),
    )


def seed_info(seed: Seed, snapshot: Snapshot) -> SeedInfo:
    return SeedInfo(seed.path, seed.span, seed.symbol, seed.kind, seed.how, snapshot)


def result_of(result: FusedResult, snapshot: Snapshot, folder: str) -> Result:
    symbol = snapshot.symbol(result.path, result.symbol)
    names = snapshot.symbols.name_spans(result.path)
    lines: list[str] = []

    def first_code(span: Span) -> Span:
        if not lines:
            lines.extend((snapshot.text(result.path) or "").split("\n"))
        return first_code_line(lines, result.language, span)

    matches = shown_matches(result.matches, names, first_code)
    return Result(
        path=result.path,
        uri=(snapshot.root / result.path).as_uri(),
        folder=folder,
        span=result.span,
        selection=selection_span(result.span, result.matches, symbol, names),
        symbol=result.symbol,
        kind=result.kind,
        container=symbol.container if symbol is not None else None,
        language=result.language,
        # a graph hit (a call or use site) has no snippet of its own: its code line is one
        snippet=result.snippet or snapshot.line(result.path, result.span.start_line).strip()[:MATCH_LINE_CHARS],
        score=round(result.score, SCORE_DIGITS),
        contributions={m: round(v, SCORE_DIGITS) for m, v in result.contributions.items()},
        ranks=dict(result.ranks),
        boost=round(result.boost, FACTOR_DIGITS),
        defines=result.defines,
        prior=round(result.prior, FACTOR_DIGITS),
        coherence=round(result.coherence, SCORE_DIGITS),
        demoted=result.demoted,
        matches=matches,
        # The code line of each of `matches` (same order), so clients show every call site without
        # reading the file (issue 14: "every call site is visible").
        match_lines=tuple(snapshot.line(result.path, span.start_line).strip()[:MATCH_LINE_CHARS]
                          for span in matches),
        approximate=result.approximate,
        via=tuple(result.via),
        resolved=result.resolved,
        source=snapshot,
    )


def _inside(inner: Span, outer: Span) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) <= (outer.end_line,
                                                                                          outer.end_col)


def shown_matches(spans: Sequence[Span], names: Sequence[Span], first_code: Callable[[Span], Span]) -> tuple[Span, ...]:
    """Where each of a result's other matches is shown. A use or a text hit is one line and stays; a
    chunk (the semantic and structural retrievers rank whole chunks) is shown at the name of the first
    definition it holds, so a file's sites read `parse_cookie(Cookie) ->` and not the licence comment
    its first chunk opens with (seen on Erlang's cowlib); a chunk that holds none, at its first line
    of code (`first_code`). `names`: the names of the file's definitions, in order."""
    shown: dict[Span, None] = {}
    for span in spans:
        if span.start_line != span.end_line:
            span = next((name for name in names if _inside(name, span)), None) or first_code(span)
        shown.setdefault(span)
    return tuple(shown)


def first_code_line(lines: Sequence[str], language: str | None, span: Span) -> Span:
    """The span's first line that is neither blank nor a comment, as a point; its start if it has none."""
    for line in range(span.start_line, min(span.end_line + 1, len(lines))):
        text = lines[line]
        if text.strip() and not is_comment_line(text, language):
            return Span(line, len(text) - len(text.lstrip()), line, len(text) - len(text.lstrip()))
    return Span(span.start_line, span.start_col, span.start_line, span.start_col)


def selection_span(whole: Span, matches: Sequence[Span], symbol: Symbol | None, names: Sequence[Span] = ()) -> Span:
    """Where Ctrl+T puts the cursor for a result.

    A result that is a definition (its range holds the name of its symbol) lands on that name, as
    pyright and clangd do: never on a use of the name, which the file's other `matches` may list
    first when the name is used above its definition. A text hit lands on its own words; a chunk
    of no symbol, on the first of its matches that it contains, else on the first definition name
    inside it (of `names`, the file's, in order), else on its start.
    """
    if symbol is not None and _inside(symbol.name_span, whole):
        return symbol.name_span
    if whole.start_line == whole.end_line:
        return whole
    inside = (span for spans in (matches, names) for span in spans if _inside(span, whole))
    return next(inside, Span(whole.start_line, whole.start_col, whole.start_line, whole.start_col))


# --- several folders ----------------------------------------------------------------------------------
def merge_answers(answers: Sequence[Answer], limit: int) -> Answer:
    """One answer from several folders' answers to the same request: results by score, reports summed.

    Each folder ran the same request with the same weights, so fused scores are comparable; the
    header (intent, route) is the first folder's, as every folder classified the same query.
    """
    if len(answers) == 1:
        return answers[0]
    first = answers[0]
    modalities: dict[str, ModalityReport] = {}
    for answer in answers:
        for name, report in answer.modalities.items():
            merged = modalities.get(name) or dataclasses.replace(report, hits=0, ms=0.0, ran=False)
            modalities[name] = dataclasses.replace(merged, hits=merged.hits + report.hits,
                                                   ms=max(merged.ms, report.ms), ran=merged.ran or report.ran)
    results = sorted((result for answer in answers for result in answer.results), key=lambda result: -result.score)
    return dataclasses.replace(
        first,
        modalities=modalities,
        results=tuple(results[:limit]),
        timings_ms={"total": max(answer.timings_ms.get("total", 0.0) for answer in answers)},
        notes=tuple(note for answer in answers for note in answer.notes),
        index=merged_index([answer.index for answer in answers]),
        partial=any(answer.partial for answer in answers),
    )


def merged_index(states: Sequence[IndexState]) -> IndexState:
    """The index state of several folders, from the states their answers were given in.

    Taken from the answers rather than from a status call: a status counts every chunk of the
    index, which is too slow to repeat on every keystroke of Ctrl+T.
    """
    kinds = {state.state for state in states}
    return IndexState(
        ready=all(state.ready for state in states),
        state="error" if "error" in kinds else "ready" if kinds == {"ready"} else "indexing",
        files=sum(state.files for state in states),
    )


# --- the shape, for the TypeScript mirror -----------------------------------------------------------
def wire_fields(record: type) -> list[tuple[str, Any, bool]]:
    """(JSON name, type, optional) of each field a record puts on the wire, in order."""
    hints = typing.get_type_hints(record)
    return [(item.metadata.get(WIRE, item.name), hints[item.name], bool(item.metadata.get(OPTIONAL)))
            for item in dataclasses.fields(record) if not item.metadata.get(INTERNAL)]
