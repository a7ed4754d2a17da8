"""A request to the engine: what `fourfold.search` takes, checked once, with the switches of this one query.

The protocol's arguments (DESIGN §7) and the ranking switches an evaluation turns off travel together in
one frozen record, so nothing about a query is state of the searcher that runs it (issue 11).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..model.profiles import INTENTS, MAX_LIMIT, MAX_QUERY_LENGTH, MODALITIES, PRESETS

__all__ = ["FEATURES", "Ranking", "SearchError", "SearchRequest"]


@dataclass(frozen=True)
class Ranking:
    """Which ranking features are on (all by default), plus the engine variants an ablation compares.

    `one_per_file` lists each file once, at its best chunk, with its other matches attached: a page of
    ten files answers a question better than ten chunks of one. `file_aggregation` adds a share of a
    file's next best chunks to its score for an understanding question.
    `file_agreement` also counts, for an understanding question, a file's best rank in each retriever
    over all its chunks, as if the file were one item (a hub found at two functions agrees with itself).
    `k` overrides the preset's RRF constant; `without` removes modalities from every route;
    `binary_vectors` off scores every vector exactly instead of a binary shortlist rescored in float;
    `word_weights` weighs a semantic query's words by how rare they are among the chunks;
    `abbreviations` adds the short forms code writes (`impl`, `cfg`) to a question's BM25 terms;
    `worded_names` lets a question's plain words name a definition whose every word they say;
    `said_files` lifts, for an understanding question, a file whose whole stem the question says;
    `said_text` withholds that lift from a file whose text says none of the question's other words;
    `acronyms` lets a question's spelled-out phrase name a file called by its acronym (`csrf.py`);
    `path_rarity` counts a question word a file's name says by how few file names say it (`Layout.rarity`);
    `legacy_versions` lowers the files of a version folder beside a later one (`v3/` beside `v4/`);
    `file_families` counts, in a file's agreement, the ranks of the files named as its parts
    (`SqlMapper.Async.cs` for `SqlMapper.cs`, `Request+Body.swift` for `Request.swift`);
    `file_copies` lowers, for an understanding question, a file defining mostly the names of one above it;
    `twin_folders` counts as such a copy a file whose same-named file in a twin folder is above it and
    defines most of its names (zod's `v4/mini/schemas.ts` below `v4/classic/schemas.ts`; `Layout.twin`);
    `opening_names` counts a question's capitalised first word as a stated name when the index defines
    it (`Content protocol for encoding bodies`; `parsedquery._opening_name`);
    `sentence_names` ranks the files of a question that writes a name inside a sentence (DESIGN §2 rule 8,
    `ostream integration for writing to std::ostream`) by the topic features of an understanding question,
    beside the lift of the name's definition (`ranking.asks_around_a_name`);
    `weights` replaces rows of the DESIGN §3 weight table on fused routes (`bench/fit_weights.py`
    measures alternatives with it; the shipped table is `profiles.WEIGHTS`).
    """

    definitions: bool = True
    path_terms: bool = True
    one_per_file: bool = True
    file_aggregation: bool = True
    file_agreement: bool = True
    path_priors: bool = True
    centrality: bool = True
    word_weights: bool = True
    abbreviations: bool = True
    worded_names: bool = True
    said_files: bool = True
    said_text: bool = True
    acronyms: bool = True
    path_rarity: bool = True
    legacy_versions: bool = True
    file_families: bool = True
    file_copies: bool = True
    twin_folders: bool = True
    opening_names: bool = True
    sentence_names: bool = True
    binary_vectors: bool = True
    k: int | None = None
    without: frozenset[str] = field(default_factory=frozenset)
    weights: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


# The switchable ranking features, in the order an ablation table lists them.
FEATURES: tuple[str, ...] = tuple(f.name for f in fields(Ranking) if f.type in ("bool", bool))


class SearchError(ValueError):
    """A request that cannot run as given, with a message that says how to fix it."""


@dataclass(frozen=True)
class SearchRequest:
    """The arguments of `fourfold.search` (DESIGN §7).

    `ranking` is not a protocol argument: it carries the ranking switches of this one request (all on
    unless an evaluation's ablation or a weight fit turns some off), so that two queries running at
    once never see each other's (issue 11: no mutable switches on a shared searcher).
    """

    query: str
    limit: int = 20
    preset: str | None = None
    modes: tuple[str, ...] | None = None
    intent: str | None = None
    paths: tuple[str, ...] | None = None
    languages: tuple[str, ...] | None = None
    ranking: Ranking = field(default_factory=Ranking)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> SearchRequest:
        """Validate protocol arguments; every problem is a SearchError a person can act on."""
        if not isinstance(values, Mapping):
            raise SearchError('fourfold.search takes one object argument, e.g. [{"query": "parse config"}]')
        unknown = set(values) - {"query", "limit", "preset", "modes", "intent", "paths", "languages"}
        if unknown:
            raise SearchError(f"unknown argument(s) {', '.join(sorted(unknown))} for fourfold.search")
        query = values.get("query")
        if not isinstance(query, str):
            raise SearchError('"query" is required and must be a string')
        request = cls(
            query=query,
            limit=_int_arg(values.get("limit", 20), "limit"),
            preset=_choice(values.get("preset"), tuple(PRESETS), "preset"),
            modes=_choices(values.get("modes"), MODALITIES, "modes"),
            intent=_choice(values.get("intent"), INTENTS, "intent"),
            paths=_strings(values.get("paths"), "paths"),
            languages=_strings(values.get("languages"), "languages"),
        )
        request.validate()
        return request

    def validate(self) -> None:
        if len(self.query) > MAX_QUERY_LENGTH:
            raise SearchError(f"query is {len(self.query)} characters; the limit is {MAX_QUERY_LENGTH}: "
                              "send the part that matters (an issue's title, description and traceback)")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise SearchError(f'"limit" must be between 1 and {MAX_LIMIT}')


def _int_arg(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SearchError(f'"{name}" must be an integer')
    return value


def _choice(value: Any, allowed: Sequence[str], name: str) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise SearchError(f'"{name}" must be one of {", ".join(allowed)} (got {value!r})')
    return str(value)


def _strings(value: Any, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise SearchError(f'"{name}" must be a list of strings')
    return tuple(value)


def _choices(value: Any, allowed: Sequence[str], name: str) -> tuple[str, ...] | None:
    items = _strings(value, name)
    for item in items or ():
        _choice(item, allowed, name)
    return items
