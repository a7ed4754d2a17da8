"""The code graph: who calls this, what does it call, what breaks if it changes (built, updated, queried).

A user asking `who calls load_settings` gets the call sites, most important callers first; asking
`what depends on Session.send` gets everything that reaches it through calls, references,
inheritance and imports, nearest first, each with the chain that connects it. Fusion also uses the
graph's PageRank centrality to lift hubs a little above obscure leaves of equal relevance.

The graph's nodes are files (`file:<path>`) and definitions (`sym:<path>#<qualified>`), held as
interned integers in compact arrays (adjacency.py; networkx only for a reader who asks for `graph`);
an edge `a -> b` means "a uses b" (calls, references, inherits, imports) or "a contains b". Names are
resolved without a type checker, by proximity: a definition in the same file, then in a file this file
imports, then in the same folder, then anywhere if the name is unique enough. Ambiguity is kept, not
guessed away: a call that could mean n definitions becomes n edges of weight 1/n. Its numbers and word
lists are in tuning.py, its PageRank in centrality.py.

Updates are per file and cheap: a file's own nodes and edges are replaced at once, while other
files' references that might now resolve differently are re-resolved lazily, before the next query.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import time
from array import array
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

import numpy as np

from ..model.languages import detect_language
from ..model.memory import paused_gc
from ..model.profiles import IMPACT_DEPTH, OVERLAY_MAX_RERESOLVED
from ..model.records import Hit, ParsedFile, Reference, Span, Symbol
from .adjacency import Adjacency, edge_key, key_ints
from .centrality import Rank, StoredRank
from .delta import (
    DeltaAdjacency,
    DeltaEvidence,
    DeltaImporters,
    DeltaPaths,
    DeltaReferencers,
    Overlaid,
    OverlaidIndex,
    compacted,
    overlay_edges,
)
from .imports import FileSet, path_keys, resolve_import, spec_keys
from .stored import (
    EVIDENCE_COLUMNS,
    GRAPH_FORMAT,
    MappedAdjacency,
    MappedEvidence,
    MappedHomes,
    MappedNames,
    MappedSymbols,
    ParsedRefs,
    StoredGraph,
    StringPool,
    csr_arrays,
    index_arrays,
    mapped_imports,
    mapped_nodes,
    mapped_specs,
    rank_check,
    sorted_strings,
    string_arrays,
)
from .tuning import TUNING, GraphTuning

if TYPE_CHECKING:
    import networkx as nx  # only for a reader who asks for `graph` (0.4 s to import)

# Distinct names remembered by the name-splitting caches: a Django-sized workspace uses ~60k.
NAME_CACHE_SIZE = 1 << 17

# Reference kinds from the structural pass -> edge kinds.
REFERENCE_EDGES: dict[str, str] = {"call": "calls", "reference": "references", "inherit": "inherits"}
# Edge kinds, weakest first: when one pair of nodes is linked for several reasons, the edge shows
# the strongest.
EDGE_KINDS: tuple[str, ...] = ("contains", "imports", "references", "calls", "inherits")
# Edge kinds that mean "depends on" for impact analysis (all but containment).
DEPENDENCY_EDGES = frozenset({"imports", "references", "calls", "inherits"})
_DEPENDENCY_KINDS = frozenset(EDGE_KINDS.index(kind) for kind in DEPENDENCY_EDGES)

# Resolution tiers, nearest first.
FILE_TIER, IMPORTED_TIER, FOLDER_TIER, GLOBAL_TIER = range(4)

_NO_SPAN: tuple[int, int, int, int] = (-1, -1, -1, -1)
_CONTAINS_KIND, _IMPORTS_KIND, _CALLS_KIND = (EDGE_KINDS.index(k) for k in ("contains", "imports", "calls"))
_CONTAINED = (_CONTAINS_KIND << 32 | 1) << 128  # _contribution(_CONTAINS_KIND, 1, _NO_SPAN), one for all
_CONTAINS = "\0contains"
_IMPORTS = "\0imports"
_IMPLEMENTS = "\0implements"
_REFERENCES_KIND = EDGE_KINDS.index("references")
_REFERENCE_KINDS = {kind: EDGE_KINDS.index(edge) for kind, edge in REFERENCE_EDGES.items()}
# C-family headers and the source files that implement what they declare (DESIGN §1: a header's
# declaration is a symbol; issue 13: linked to its definition in the `.c`/`.cc` file).
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx")
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".m", ".mm")
# Kinds of header symbol a source file implements (a struct or a macro is complete where it stands).
DECLARED_KINDS = frozenset({"function", "method", "constructor"})
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_QUALIFIER = re.compile(r"::|\.|#|->")

# One piece of evidence for an edge: (edge kind as its index in EDGE_KINDS, number of candidates the
# reference had, span of the use), packed into one integer (`_contribution`) of 32 bits a field, the
# kind highest, so the strongest of an edge's contributions is simply the largest integer. A tuple of
# a tuple was ~200 bytes per use of a name, one integer is 48 (issue 17).
Contribution = int
Span4 = tuple[int, int, int, int]
_FIELD_BITS = 32
_FIELD_MASK = (1 << _FIELD_BITS) - 1
_KIND_SHIFT = 5 * _FIELD_BITS
_COUNT_SHIFT = 4 * _FIELD_BITS
# An edge's evidence: its one contribution when it was seen once (most edges), else contribution -> times
# seen, in the order they arrived (a dict per edge was ~180 bytes for Django's 193k edges).
Evidence = int | dict[Contribution, int]
# A name -> nodes (or paths) index: the one value most keys have, else the set of them (Django has ~100k
# keys, and a set of one is 216 bytes).
NameIndex = dict[str, str | set[str]]
K = TypeVar("K")
T = TypeVar("T")


def _contribution(kind: int, count: int, span: Span4) -> Contribution:
    """The packed contribution; a span field is stored plus one, so `_NO_SPAN`'s -1 packs as 0."""
    start_line, start_col, end_line, end_col = span
    packed = kind << _FIELD_BITS | count
    for field in (start_line, start_col, end_line, end_col):
        packed = packed << _FIELD_BITS | (field + 1)
    return packed


def _kind_of(contribution: Contribution) -> int:
    return contribution >> _KIND_SHIFT


def _count_of(contribution: Contribution) -> int:
    return contribution >> _COUNT_SHIFT & _FIELD_MASK


def _unpacked(contribution: Contribution) -> tuple[int, int, Span4]:
    """(kind, count, span) of a packed contribution."""
    mask = _FIELD_MASK
    span = ((contribution >> 96 & mask) - 1, (contribution >> 64 & mask) - 1, (contribution >> 32 & mask) - 1,
            (contribution & mask) - 1)
    return contribution >> _KIND_SHIFT, contribution >> _COUNT_SHIFT & mask, span


def _counted(evidence: Evidence | None) -> Iterable[tuple[Contribution, int]]:
    """(contribution, times seen) of an edge's evidence, in the order they arrived."""
    if evidence is None:
        return ()
    return ((evidence, 1),) if isinstance(evidence, int) else evidence.items()


def _edge_data(evidence: Evidence) -> tuple[int, float]:
    """An edge's (kind, weight) from its evidence: the strongest kind of use, and the sum over its uses of
    one over the definitions each could mean. `math.fsum` is exactly rounded, so the weight does not depend
    on the order the evidence arrived in: an updated graph equals a rebuilt one bit for bit."""
    # most edges: one use, or one kind of use, and fsum of one term is that term
    if isinstance(evidence, int):
        return evidence >> _KIND_SHIFT, 1 / (evidence >> _COUNT_SHIFT & _FIELD_MASK)  # _kind_of, _count_of
    if len(evidence) == 1:
        ((strongest, count),) = evidence.items()
        return strongest >> _KIND_SHIFT, count / _count_of(strongest)
    return max(evidence) >> _KIND_SHIFT, math.fsum(count / _count_of(c) for c, count in evidence.items())


def _with_contribution(evidences: dict[int, Evidence], edge: int, contribution: Contribution) -> None:
    found = evidences.get(edge)
    if found is None:
        evidences[edge] = contribution
    elif isinstance(found, int):
        evidences[edge] = {contribution: 2} if found == contribution else {found: 1, contribution: 1}
    else:
        found[contribution] = found.get(contribution, 0) + 1


def _without_contribution(evidences: dict[int, Evidence], edge: int, contribution: Contribution) -> None:
    found = evidences[edge]
    if isinstance(found, int):
        del evidences[edge]
        return
    left = found[contribution] - 1
    if left:
        found[contribution] = left
    else:
        del found[contribution]
    if not found:
        del evidences[edge]
    elif len(found) == 1:
        ((only, times),) = found.items()
        if times == 1:
            evidences[edge] = only


def file_node(path: str) -> str:
    return f"file:{path}"


def symbol_node_id(path: str, qualified: str) -> str:
    return f"sym:{path}#{qualified}"


def name_words(name: str) -> list[str]:
    """Lower-case words of an identifier or phrase: `parseHTTPConfig_v2` -> parse, http, config, v, 2."""
    return [word.lower() for word in _WORDS.findall(name)]


@functools.lru_cache(maxsize=NAME_CACHE_SIZE)
def _word_set(name: str) -> frozenset[str]:
    """The distinct words of a definition's name (names repeat: `__init__`, `get`, `test_...`)."""
    return frozenset(name_words(name))


def _uses_by_name(parsed: ParsedFile) -> dict[str, list[Reference]]:
    """A file's uses grouped by the last part of the name they use (what resolution looks up)."""
    refs: dict[str, list[Reference]] = {}
    for ref in parsed.references:
        refs.setdefault(_last_name(ref.name), []).append(ref)
    return refs


@functools.lru_cache(maxsize=NAME_CACHE_SIZE)
def _last_name(name: str) -> str:
    return _QUALIFIER.split(name)[-1]


def _forget_names() -> None:
    """Empty the name-splitting caches. They pay off within a build, where names repeat across files;
    kept after it they held ~27 MiB of Django's names (issue 17) for the few names an edit brings."""
    for cached in (_word_set, _last_name, _dotted):
        cached.cache_clear()


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


@functools.lru_cache(maxsize=NAME_CACHE_SIZE)
def _dotted(name: str) -> str:
    return _QUALIFIER.sub(".", name)


class CodeGraph:
    """Symbols and files of a workspace linked by use, with centrality and graph queries.

    `with_file` / `without_file` update this graph in place and return it: copying a graph of a
    few hundred thousand edges per saved file would cost a second, so snapshots share one graph.
    Every update and every query holds the graph's lock, and a query first settles pending
    re-resolutions, so a reader always sees a whole update or none of it.
    """

    def __init__(
        self,
        files: Mapping[str, ParsedFile] | None = None,
        *,
        uses: Mapping[str, ParsedFile] | None = None,
        tuning: GraphTuning = TUNING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tuning = tuning
        self._clock = clock
        # False when the owner recomputes PageRank in the background after edits: a query then uses the
        # last ranking rather than paying for a new one (only a graph never ranked computes on demand).
        self.rank_on_query = True
        self._lock = threading.RLock()
        self._clear()
        self._rank: Rank | None = None
        self._dirty = True
        # A graph opened from a stored centrality (`deferred`): the files it is built from on first use.
        self._unbuilt: Mapping[str, ParsedFile] | None = None
        # ... and its stored edges when they were stored too (`mapped`): queries read them in place until
        # an edit builds the graph in memory from `_unbuilt`.
        self._mapped: StoredGraph | None = None
        if files:
            self._build(files, uses)

    def _clear(self) -> None:
        """An empty graph's state (a mapped graph's views are replaced by it when an edit builds it)."""
        self._graph = Adjacency()
        self._files = FileSet()
        # path -> the import specifiers of its ParsedFile (all the graph reads of it after `_add_nodes`, so
        # the graph pins no decoded record beyond the symbols and references it indexes)
        self._specs: dict[str, tuple[str, ...]] = {}
        self._nodes: dict[str, dict[str, Symbol]] = {}  # path -> node -> symbol
        self._symbols: dict[str, Symbol] = {}
        self._homes: dict[str, _Home] = {}  # node -> where it is defined, precomputed for resolution
        self._defs: NameIndex = {}  # simple name -> nodes
        self._qualified: NameIndex = {}  # dotted qualified name -> nodes
        self._words: NameIndex = {}  # name word -> nodes
        self._imports: dict[str, frozenset[str]] = {}  # path -> imported paths
        self._importers: NameIndex = {}  # spec key -> importing paths
        self._refs: dict[str, dict[str, list[Reference]]] = {}  # path -> simple name -> refs
        self._referencers: NameIndex = {}  # simple name -> referencing paths
        self._tiers: dict[str, dict[str, int]] = {}  # path -> simple name -> tier it resolved at
        self._evidence: dict[int, Evidence] = {}  # edge key (adjacency.edge_key) -> its evidence
        # path -> group -> what it added to `_evidence`: per use [contribution, source, its targets...], as
        # node integers (the interned objects themselves, so a use costs 8 bytes a target); a contribution's
        # count says how many targets follow it
        self._added: dict[str, dict[str, list[int]]] = {}
        # Edges whose evidence changed since the last flush, in the order they were touched: a dict, not a
        # set, so a node's predecessors come out in one order in every process (a set of strings
        # iterates in hash order, which differs per process and changed 27 of 1,876 graph answers).
        self._touched: dict[int, None] = {}
        self._stale_files: set[str] = set()
        self._stale_names: set[tuple[str, str]] = set()
        self._stale_headers: set[str] = set()
        # Files whose edits a mapped graph holds as an overlay (`_edit_in_place`, `_file_in_place`: created and
        # deleted ones too), and its path numbers with the created files' (`_stored_candidates` compares them)
        self._delta_files: set[str] = set()
        self._paths: DeltaPaths | None = None
        # Edits held over the mapped graph so far, and how many its ranking has seen (`_rank_overlay`)
        self._overlay_edits = 0
        self._overlay_ranked = 0
        # During a whole build only: (last name, dotted name or "" for every definition of it, "\0" for the top
        # level ones) -> that name's candidates grouped by file and folder (`_grouped_candidates`)
        self._grouped: dict[tuple[str, str], _NameCandidates] | None = None

    # Whole-workspace builds this process has run (a restart that finds its centrality stored runs none).
    builds = 0

    @classmethod
    def build(cls, files: Mapping[str, ParsedFile], uses: Mapping[str, ParsedFile] | None = None,
              **options: Any) -> CodeGraph:
        """The graph of a whole workspace at once (faster than adding files one by one).

        `uses`, when given, holds the same files as `files`, each decoded from its row when read and not
        kept (`StoredParsed.unkept`): the graph then reads no reference of `files` (they may have none)
        and keeps none, but reads a file's references from `uses` when it resolves the file, during the
        build and after it (as a mapped graph does, `ParsedRefs`), so every file's references are never
        alive at once. Kept, they were most of what a cold index held at its peak (issue 17). An edit's
        file keeps its own references, as in any built graph.
        """
        return cls(files, uses=uses, **options)

    @classmethod
    def deferred(cls, files: Mapping[str, ParsedFile], rank: StoredRank, **options: Any) -> CodeGraph:
        """The graph of `files`, answering centrality from `rank` (stored from the same files) at once
        and building itself only when something needs edges: a graph query or an edit.

        Building Django's graph costs some 7 CPU-seconds; a restart or a one-shot CLI search whose
        question needs only the fusion boost never pays them.
        """
        graph = cls(**options)
        graph._unbuilt = files
        graph._rank = rank.rank()
        graph._rank.computed_at = graph._clock()
        graph._dirty = False
        return graph

    @classmethod
    def opened(cls, files: Mapping[str, ParsedFile], rank: StoredRank, stored: StoredGraph,
               **options: Any) -> CodeGraph:
        """The graph of `files`, answering centrality from `rank` and every query from `stored` (both stored
        from the same files), read in place; an edit that keeps its file's definitions is held as an overlay
        over `stored` (delta.py), so is one that adds or removes definitions, or a file; past what an overlay
        re-resolves (`OVERLAY_MAX_RERESOLVED`), the graph is built in memory from `files` as edited.

        Building Django's graph costs some 7 CPU-seconds and ~0.5 GiB of memory kept while serving (1.6 GiB
        at 4x Django); a restart or a CLI process answering from the stored edges pays neither.
        """
        graph = cls.deferred(files, rank, **options)
        graph._unbuilt = Overlaid(files)  # an edit held as an overlay replaces its file's row here too
        graph._mapped = stored
        assert graph._rank is not None
        if stored.ranks(graph._rank.scores):
            graph._rank.index = stored.rank_positions()  # the graph's hash table, not a bisect of the ranking's ids
        # Read-only views standing in for the dicts the queries read; nothing writes to them: an edit overlays
        # them first (`_delta_views`), or builds the graph in memory (`_materialize`), which puts real dicts back.
        graph._graph = cast(Adjacency, MappedAdjacency(stored))
        graph._evidence = cast(dict, MappedEvidence(stored, _contribution))
        graph._symbols = cast(dict, MappedSymbols(stored))
        graph._homes = cast(dict, MappedHomes(stored, _Home))
        graph._nodes = cast(dict, mapped_nodes(stored))
        graph._specs = cast(dict, mapped_specs(stored))
        graph._imports = cast(dict, mapped_imports(stored))
        graph._refs = cast(dict, ParsedRefs(files, _last_name))
        graph._defs = cast(dict, MappedNames(stored, "defs"))
        graph._qualified = cast(dict, MappedNames(stored, "qualified"))
        graph._words = cast(dict, MappedNames(stored, "words"))
        graph._referencers = cast(dict, MappedNames(stored, "refs"))
        return graph

    @property
    def built(self) -> bool:
        """Whether the edges exist in memory (a deferred graph has only its stored centrality, a mapped one
        reads its stored edges in place)."""
        return self._unbuilt is None

    @property
    def mapped(self) -> bool:
        """Whether queries read the stored graph in place (until an edit builds it in memory)."""
        return self._mapped is not None

    @property
    def edited_in_place(self) -> list[str]:
        """The files whose edits a mapped graph holds as an overlay over its stored arrays (delta.py)."""
        return sorted(self._delta_files) if self._mapped is not None else []

    def stored_arrays(self) -> dict[str, np.ndarray] | None:
        """The settled graph as the arrays `StoredGraph` reads (`mapped`), or None when it is not built in
        memory (a deferred or mapped graph has not changed since it was stored)."""
        return self.stored(dict)

    def stored(self, write: Callable[[Iterable[tuple[str, np.ndarray]]], T]) -> T | None:
        """What `write` makes of `stored_arrays`'s arrays, handed over one (name, array) at a time as each is
        made (a file writer then holds one at a time, `mapped.write_arrays`); None when there is nothing to
        store (as `stored_arrays`). The graph's lock is held throughout."""
        with self._lock:
            if self._unbuilt is not None:
                if self._mapped is None or not self._delta_files:
                    return None
                self._rank_overlay()
                return write(self._compacted().items())
            self._settle()
            return write(_stored_parts(self))

    def _compacted(self) -> dict[str, np.ndarray]:
        """The stored arrays with the overlay's edits folded in, placed in the ranking of the overlaid graph once
        it was ranked (`_rank_overlay`), else in the stored one."""
        assert self._mapped is not None and self._paths is not None
        files = {path: (self._nodes[path], self._specs[path], self._imports[path]) if path in self._specs else None
                 for path in self._delta_files}
        return compacted(self._mapped, cast(DeltaAdjacency, self._graph), cast(DeltaEvidence, self._evidence),
                         self._paths, files, self._symbols, self._homes, cast(DeltaReferencers, self._referencers),
                         {"defs": cast(OverlaidIndex, self._defs), "qualified": cast(OverlaidIndex, self._qualified),
                          "words": cast(OverlaidIndex, self._words)}, _unpacked,
                         self._rank.scores if self._overlay_ranked and self._rank is not None else None)

    def stored_rank(self) -> StoredRank | None:
        """The current centrality in its stored form, or None while it is stale."""
        with self._lock:
            if self._rank is None or self._dirty or self._stale_files or self._stale_names:
                return None
            if self._unbuilt is not None:
                self._rank_overlay()
            return StoredRank.of(self._rank)

    # --- building ---------------------------------------------------------------------------------

    def _build(self, files: Mapping[str, ParsedFile], uses: Mapping[str, ParsedFile] | None = None) -> None:
        CodeGraph.builds += 1
        if uses is not None:
            self._refs = cast(dict, Overlaid(ParsedRefs(uses, _last_name)))
        with paused_gc():
            self._build_all(files, keep_uses=uses is None)
        _forget_names()

    def ensure_built(self) -> None:
        """Build the edges of a deferred or mapped graph in memory now (the stored centrality stays: same
        files, same graph), as an edit needs them."""
        with self._lock:
            self._materialize()

    def prepare_edits(self) -> None:
        """Make now what the first edit of a mapped graph would (`_delta_views`: the writable views and the
        file set import resolution reads, one entry per file: tens of ms at 4x Django), and the first created or
        deleted file (the stored specifiers' keys, `DeltaImporters`: ~40 ms at Django's size), so a server that
        calls this after opening does not pay them on the user's first keystroke. Nothing for any other graph."""
        with self._lock:
            if self._mapped is not None and self._unbuilt is not None:
                self._delta_views()
                cast(DeltaImporters, self._importers).prepare()

    def _materialize(self) -> None:
        files = self._unbuilt
        if files is None:
            return
        rank = self._rank
        if self._mapped is not None:
            self._clear()
            self._mapped = None
        self._build(files)
        self._rank, self._dirty = rank, False
        self._unbuilt = None

    def _build_all(self, files: Mapping[str, ParsedFile], keep_uses: bool = True) -> None:
        for path in files:
            self._files.add(path)
        for path, parsed in files.items():
            self._add_nodes(path, parsed, keep_uses)
        # No definition comes or goes while every file resolves: each name's candidates are grouped once
        # for all its uses (`_NameCandidates`), then dropped.
        self._grouped = {}
        try:
            for path in files:
                if not keep_uses:  # in the order `_add_nodes` would have indexed them: the same index
                    self._index_uses(path, self._refs[path])
                self._resolve_file(path)
        finally:
            self._grouped = None
        self._flush()

    def with_file(self, path: str, parsed: ParsedFile) -> CodeGraph:
        """Add or replace one file (in place; returns self). Cost: that file plus lazy neighbours."""
        with self._lock:
            self._replace(path, parsed)
            return self

    def without_file(self, path: str) -> CodeGraph:
        """Remove one file and everything it defines (in place; returns self). A mapped graph holds it as an
        overlay (`_file_in_place`); a deferred one is built first, as for an edit: its edges are still those of
        the stored files, the removed one among them."""
        with self._lock:
            if self._mapped is not None and path in self._specs and self._file_in_place(path, None):
                self._overlay_edits += 1
                return self
            self.ensure_built()
            if path in self._specs:
                self._replace(path, None)
            return self

    def _replace(self, path: str, parsed: ParsedFile | None) -> None:
        if self._mapped is not None and parsed is not None and self._edit_in_place(path, parsed):
            self._overlay_edits += 1
            return
        self.ensure_built()
        old = dict(self._nodes.get(path, {}))
        names = {s.name for s in old.values()} | {s.name for s in (parsed.symbols if parsed else ())}
        before = {name: self._global_count(name) for name in names}
        if parsed is None:  # whoever imported this file must look again
            self._stale_files |= {
                str(self._graph.path(p)) for p in self._predecessors(file_node(path))
            }
        self._drop_evidence(path)
        self._remove_nodes(path, keep_file=parsed is not None)
        if parsed is None:
            self._files.remove(path)
            self._mark_importers(path)
            new: dict[str, Symbol] = {}
        else:
            if path not in self._files:
                self._files.add(path)
                self._mark_importers(path)
            self._add_nodes(path, parsed)
            new = self._nodes[path]
            self._graph.remove_nodes(set(old) - set(new))
        # Only names whose definitions appeared or vanished can resolve differently elsewhere.
        changed = {old[n].name for n in set(old) - set(new)} | {new[n].name for n in set(new) - set(old)}
        for name in changed:
            self._mark_name(path, name, min(before[name], self._global_count(name)))
        if path.lower().endswith(SOURCE_SUFFIXES):
            self._stale_headers |= {self._homes[node].path for name in changed for node in _looked_up(self._defs, name)
                                    if self._homes[node].path.lower().endswith(HEADER_SUFFIXES)}
        if parsed is not None:
            self._resolve_file(path)
        self._flush()
        self._dirty = True

    def _edit_in_place(self, path: str, parsed: ParsedFile) -> bool:
        """Hold an edit to a mapped graph as an overlay over its stored arrays (delta.py), when the edit keeps
        each definition it does not add or remove as it was (its name, home and whether it is top level).
        One that keeps every definition changes only edges starting in this file; one that adds or removes
        definitions also re-resolves the other files whose uses of those names may now resolve differently
        (`_define_in_place`); a new file is `_file_in_place`'s. False (build the graph in memory) for any other
        edit: one whose kept definitions moved, or a C-family source file that adds or removes definitions (the
        headers it implements are linked again in memory). It is ranked again over the overlay (`_rank_overlay`)."""
        if path not in self._specs:
            return self._file_in_place(path, parsed)
        nodes, homes = self._file_nodes(path, parsed)
        old = list(self._nodes[path])
        kept = set(old) & set(nodes)
        if any(nodes[node].name != self._symbols[node].name
               or (nodes[node].container is None) != (self._symbols[node].container is None)
               or homes[node] != self._homes[node] for node in kept):
            return False
        added = [node for node in nodes if node not in kept]
        removed = [node for node in old if node not in kept]
        if (added or removed) and path.lower().endswith(SOURCE_SUFFIXES):
            return False
        self._delta_views()
        if added or removed:
            stale = self._stale_after(path, nodes, added, removed)
            if len(stale) > OVERLAY_MAX_RERESOLVED:
                return False  # a common name: building in memory settles only its stale uses
            self._define_in_place(path, parsed, nodes, homes, added, removed, stale)
            return True
        self._own_edges(path)
        self._overlay_file(path, parsed, nodes, homes, edited=True)
        self._flush()
        return True

    def _file_nodes(self, path: str, parsed: ParsedFile) -> tuple[dict[str, Symbol], dict[str, _Home]]:
        """A file's definitions by node and where each lives, as `_add_nodes` makes them."""
        folder = _folder(path)
        namespaces = frozenset(s.qualified or s.name for s in parsed.symbols if s.kind == "namespace")
        nodes: dict[str, Symbol] = {}
        for symbol in sorted(parsed.symbols, key=lambda s: (s.span, s.qualified, s.name)):
            nodes.setdefault(symbol_node_id(path, symbol.qualified or symbol.name), symbol)
        return nodes, {node: _Home.of(path, folder, symbol, namespaces) for node, symbol in nodes.items()}

    def _own_edges(self, path: str) -> None:
        """Hold a file's edges in the overlay (its stored ones, each touched so the flush drops what its
        resolution does not add again), or drop what its last overlaid resolution added."""
        adjacency = cast(DeltaAdjacency, self._graph)
        if path in self._delta_files:
            self._drop_evidence(path)
            return
        self._delta_files.add(path)
        for source in adjacency.ids_of([file_node(path), *self._nodes[path]]):
            self._touched.update(dict.fromkeys(adjacency.own(source)))

    def _overlay_file(self, path: str, parsed: ParsedFile, nodes: dict[str, Symbol], homes: dict[str, _Home], *,
                      edited: bool) -> None:
        """A file's rows in the overlay and its uses resolved over it (`_own_edges` first). `edited`: its row
        changed (else it is re-resolved as stored, and its row and uses stay the stored ones)."""
        self._specs[path] = parsed.imports
        for node, symbol in nodes.items():
            self._symbols[node] = symbol
            self._homes[node] = homes[node]
        self._nodes[path] = nodes
        refs = _uses_by_name(parsed)
        self._refs[path] = refs
        self._tiers[path] = {}
        self._imports[path] = frozenset()
        if edited:
            cast(Overlaid, self._unbuilt)[path] = parsed
            cast(DeltaReferencers, self._referencers).uses[path] = frozenset(refs)
            cast(DeltaImporters, self._importers).set(path, parsed.imports)
        self._resolve_file(path)

    def _stale_after(self, path: str, nodes: dict[str, Symbol], added: list[str], removed: list[str]) -> list[str]:
        """The other files whose uses an edit of `path` that adds and removes these definitions may resolve
        differently, in path order: `_mark_name`'s rule over the stored `refs` (a file not resolved again
        since the start counts as having fallen through to the global tier, as its tiers are not stored),
        and whoever links to a removed definition (the rule finds them too; this keeps no edge to a lost
        node). Read before the edit changes anything, so that past `OVERLAY_MAX_RERESOLVED` it can build."""
        adjacency = cast(DeltaAdjacency, self._graph)
        gone = [self._symbols[node] for node in removed]
        new = [nodes[node] for node in added]
        stale = {str(adjacency.path(source)) for node in removed for source, _ in adjacency.predecessors(node)}
        folder = _folder(path)
        for name in {symbol.name for symbol in gone} | {symbol.name for symbol in new}:
            before = self._global_count(name)
            after = (before - sum(1 for s in gone if s.name == name and s.container is None)
                     + sum(1 for s in new if s.name == name and s.container is None))
            global_matters = min(before, after) <= self._tuning.max_ambiguity
            for referencer in _looked_up(self._referencers, name):
                near = path in self._imports.get(referencer, ()) or _folder(referencer) == folder
                fell_through = self._tiers.get(referencer, {}).get(name, GLOBAL_TIER) == GLOBAL_TIER
                if near or (fell_through and global_matters):
                    stale.add(referencer)
        stale.discard(path)
        return sorted(stale)

    def _define_in_place(self, path: str, parsed: ParsedFile, nodes: dict[str, Symbol], homes: dict[str, _Home],
                         added: list[str], removed: list[str], stale: list[str]) -> None:
        """An edit that adds or removes definitions, over the stored arrays: the nodes and name indexes change
        as `_replace` changes them in memory (an added node goes last), then the `stale` files
        (`_stale_after`) are each resolved again whole, in path order, as `_settle` would."""
        adjacency = cast(DeltaAdjacency, self._graph)
        self._own_edges(path)
        self._unindexed(removed)
        self._indexed(path, nodes, added)
        self._overlay_file(path, parsed, nodes, homes, edited=True)
        self._flush()
        for node in removed:
            adjacency.remove_node(node)
        self._resolved_again(stale)

    def _file_in_place(self, path: str, parsed: ParsedFile | None) -> bool:
        """A file created (`parsed`) or deleted (None) in a mapped graph, held as an overlay as `_replace` does it
        in memory: a created file's node and definitions are added last, a deleted one's removed, the path joins
        or leaves the file set and the path numbers, and the other files are resolved again whole, in path
        order, that may now resolve differently: those whose imports it changes (`_importers_changed`), those
        whose uses of its names may (`_stale_after`), and a deleted file's importers. False (build the graph in
        memory, as before) past `OVERLAY_MAX_RERESOLVED` of them, or for a C-family source file with definitions
        (the headers it implements are linked again in memory), before anything changes."""
        adjacency = self._delta_views()
        nodes: dict[str, Symbol] = {}
        homes: dict[str, _Home] = {}
        if parsed is None:
            old = list(self._nodes[path])
        else:
            (nodes, homes), old = self._file_nodes(path, parsed), []
        if (nodes or old) and path.lower().endswith(SOURCE_SUFFIXES):
            return False
        stale = set(self._stale_after(path, nodes, list(nodes), old))
        if parsed is None:
            stale |= {str(adjacency.path(source)) for source, _ in adjacency.predecessors(file_node(path))}
        stale |= self._importers_changed(path, created=parsed is not None)
        stale.discard(path)
        if len(stale) > OVERLAY_MAX_RERESOLVED:
            (self._files.remove if parsed is not None else self._files.add)(path)  # as it was, for the build
            return False
        assert self._paths is not None
        if parsed is None:
            self._own_edges(path)  # its stored edges held, and dropped by the flush: nothing adds them again
            self._unindexed(old)
            for view in (self._nodes, self._specs, self._refs, self._imports, self._unbuilt):
                del cast(Overlaid, view)[path]
            self._tiers.pop(path, None)
            cast(DeltaReferencers, self._referencers).uses[path] = frozenset()
            cast(DeltaImporters, self._importers).set(path, ())
            self._flush()
            for node in [file_node(path), *old]:
                adjacency.remove_node(node)
        else:
            self._delta_files.add(path)
            self._paths.add(path)
            adjacency.add_node(file_node(path), path)  # first, as `_add_nodes` adds it
            self._indexed(path, nodes, list(nodes))
            self._overlay_file(path, parsed, nodes, homes, edited=True)
            self._flush()
        self._resolved_again(sorted(stale))
        return True

    def _importers_changed(self, path: str, *, created: bool) -> set[str]:
        """The other files whose imports resolve otherwise once `path` is created (or deleted), which joins (or
        leaves) the file set here: of `_mark_importers`' files, those with a specifier that could name it and
        resolves otherwise, as in memory `_settle` re-resolves a stale file's uses only when its imports
        changed (a created `models.py` has Django's 900 importers of some `models` by key, and changes none).

        A Python module other than a package's `__init__`, deleted, changes only the imports of the Python files
        whose imports resolved to it: removing a module an import did not resolve to leaves it resolving as
        before (the nearest root still wins, or the first existing candidate), and no folder stops being a
        package. Resolving every such importer's specifiers twice had cost 1.2 CPU-s when one of 4x Django's
        `utils.py` was deleted."""
        keys = path_keys(path)
        importers = sorted(self._importers_of(path))
        if not created and _python_module(path):
            importers = [importer for importer in importers if not _python_module(importer)
                         or path in self._imports.get(importer, frozenset())]
        uses = [(importer, spec, detect_language(importer) or "") for importer in importers
                for spec in self._specs[importer] if keys & spec_keys(spec)]
        before = [resolve_import(spec, importer, language, self._files) for importer, spec, language in uses]
        (self._files.add if created else self._files.remove)(path)
        return {importer for (importer, spec, language), found in zip(uses, before, strict=True)
                if resolve_import(spec, importer, language, self._files) != found}

    def _unindexed(self, removed: list[str]) -> None:
        """Definitions an overlaid edit removed, out of the symbols, homes and name indexes."""
        defs, qualified, words = (cast(OverlaidIndex, index) for index in (self._defs, self._qualified, self._words))
        for node in removed:
            symbol = self._symbols[node]
            del self._symbols[node]
            del self._homes[node]
            defs.discard(symbol.name, node)
            qualified.discard(_dotted(symbol.qualified or symbol.name), node)
            for word in _word_set(symbol.name):
                words.discard(word, node)

    def _indexed(self, path: str, nodes: dict[str, Symbol], added: list[str]) -> None:
        """Definitions an overlaid edit added, as nodes (last) and in the name indexes."""
        adjacency = cast(DeltaAdjacency, self._graph)
        defs, qualified, words = (cast(OverlaidIndex, index) for index in (self._defs, self._qualified, self._words))
        for node in added:
            symbol = nodes[node]
            adjacency.add_node(node, path)
            defs.add(symbol.name, node)
            qualified.add(_dotted(symbol.qualified or symbol.name), node)
            for word in _word_set(symbol.name):
                words.add(word, node)

    def _resolved_again(self, stale: list[str]) -> None:
        """The `stale` files of an overlaid edit, each resolved again whole over the overlay, in path order."""
        unbuilt = cast(Overlaid, self._unbuilt)
        for referencer in stale:
            again = unbuilt[referencer]
            self._own_edges(referencer)
            self._overlay_file(referencer, again, *self._file_nodes(referencer, again), edited=False)
        self._flush()

    def _delta_views(self) -> DeltaAdjacency:
        """The mapped views made writable for edits held as an overlay (once per graph)."""
        if isinstance(self._graph, DeltaAdjacency):
            return self._graph
        assert self._mapped is not None and self._unbuilt is not None
        adjacency = DeltaAdjacency(self._mapped)
        self._graph = cast(Adjacency, adjacency)
        self._evidence = cast(dict, DeltaEvidence(self._evidence, adjacency))
        for name in ("_symbols", "_homes", "_nodes", "_specs", "_imports", "_refs"):
            setattr(self, name, Overlaid(getattr(self, name)))
        for name in ("_defs", "_qualified", "_words"):
            setattr(self, name, OverlaidIndex(getattr(self, name)))
        self._referencers = cast(dict, DeltaReferencers(self._referencers))
        self._importers = cast(dict, DeltaImporters(self._mapped, spec_keys))
        self._paths = DeltaPaths(self._mapped)
        for path in self._unbuilt:  # what import resolution looks paths up in
            self._files.add(path)
        _ = self._mapped.path_folders  # made now, not on the first edit's resolution (`_stored_candidates`)
        return adjacency

    def _add_nodes(self, path: str, parsed: ParsedFile, keep_uses: bool = True) -> None:
        """Index a file's definitions and imports, and unless `keep_uses` is False its uses (kept in `_refs`
        and their names indexed); else `_refs` reads them from the file's row (`build`'s `uses`) and
        `_build_all` indexes their names as it resolves the file, so `parsed`'s references are not read."""
        self._specs[path] = parsed.imports
        self._graph.add_node(file_node(path), path)
        folder = _folder(path)
        nodes: dict[str, Symbol] = {}
        namespaces = frozenset(s.qualified or s.name for s in parsed.symbols if s.kind == "namespace")
        for symbol in sorted(parsed.symbols, key=lambda s: (s.span, s.qualified, s.name)):
            node = symbol_node_id(path, symbol.qualified or symbol.name)
            if node in nodes:
                continue
            nodes[node] = symbol
            self._symbols[node] = symbol
            self._homes[node] = _Home.of(path, folder, symbol, namespaces)
            self._graph.add_node(node, path)
            _index(self._defs, symbol.name, node)
            _index(self._qualified, _dotted(symbol.qualified or symbol.name), node)
            for word in _word_set(symbol.name):
                _index(self._words, word, node)
        self._nodes[path] = nodes
        if keep_uses:
            refs = _uses_by_name(parsed)
            self._refs[path] = refs
            self._index_uses(path, refs)
        self._tiers[path] = {}
        for spec in parsed.imports:
            for key in spec_keys(spec):
                _index(self._importers, key, path)
        self._imports[path] = frozenset()

    def _index_uses(self, path: str, refs: Iterable[str]) -> None:
        for name in refs:
            _index(self._referencers, name, path)

    def _remove_nodes(self, path: str, *, keep_file: bool) -> None:
        """Forget a file's definitions, references and imports; graph nodes go unless `keep_file`."""
        specs = self._specs.pop(path, ())
        nodes = self._nodes.pop(path, {})
        for node, symbol in nodes.items():
            del self._symbols[node]
            del self._homes[node]
            _unindex(self._defs, symbol.name, node)
            _unindex(self._qualified, _dotted(symbol.qualified or symbol.name), node)
            for word in _word_set(symbol.name):
                _unindex(self._words, word, node)
        for name in self._refs.pop(path, {}):
            _unindex(self._referencers, name, path)
        for spec in specs:
            for key in spec_keys(spec):
                _unindex(self._importers, key, path)
        self._imports.pop(path, None)
        self._tiers.pop(path, None)
        self._stale_names = {(p, n) for p, n in self._stale_names if p != path}
        self._stale_files.discard(path)
        self._stale_headers.discard(path)
        if not keep_file:
            self._graph.remove_nodes([file_node(path), *nodes])

    def _mark_importers(self, path: str) -> None:
        """A file appeared or vanished: imports that could name it must be resolved again."""
        self._stale_files |= self._importers_of(path)

    def _importers_of(self, path: str) -> set[str]:
        """The other files whose import specifiers could name `path` (by its stem or its folder's name)."""
        return {importer for key in path_keys(path) for importer in _looked_up(self._importers, key)
                if importer != path}

    def _mark_name(self, path: str, name: str, global_count: int) -> None:
        """Queue the uses of `name` whose resolution a change of its definitions in `path` can alter.

        Those are uses in files that import `path` or share its folder, and uses that fell through
        to the global tier, unless the name stays too ambiguous to link there either way.
        """
        folder = _folder(path)
        global_matters = global_count <= self._tuning.max_ambiguity
        for referencer in _looked_up(self._referencers, name):
            if referencer == path:
                continue
            near = path in self._imports.get(referencer, ()) or _folder(referencer) == folder
            fell_through = self._tiers[referencer].get(name, GLOBAL_TIER) == GLOBAL_TIER
            if near or (fell_through and global_matters):
                self._stale_names.add((referencer, name))

    def _predecessors(self, node: str) -> list[str]:
        return [source for source, _ in self._graph.predecessors(node)] if node in self._graph else []

    def _global_count(self, name: str) -> int:
        """How many definitions of `name` have no container (the global tier's candidates, before ambiguity)."""
        defs = self._defs
        if self._mapped is not None and not (isinstance(defs, OverlaidIndex) and defs.changed(name)):
            return self._mapped.free_definitions(name)  # the stored definitions are the graph's
        return sum(1 for node in _looked_up(defs, name) if self._symbols[node].container is None)

    # --- resolution -------------------------------------------------------------------------------

    def _settle(self) -> None:
        """Re-resolve what earlier updates left pending (imports of stale files, stale names)."""
        if self._mapped is not None:
            return  # nothing pends: what is stored is settled, and an edit builds the graph in memory first
        self.ensure_built()
        for path in sorted(self._stale_files):
            if path in self._specs and self._resolve_imports(path):
                self._drop_evidence(path, keep=(_CONTAINS, _IMPORTS))
                self._resolve_names(path, self._refs[path])
                self._stale_names = {(p, n) for p, n in self._stale_names if p != path}
        self._stale_files.clear()
        for path, name in sorted(self._stale_names):
            if path in self._specs:
                self._drop_group(path, name)
                self._resolve_names(path, [name])
        self._stale_names.clear()
        for path in sorted(self._stale_headers):
            if path in self._specs:
                self._drop_group(path, _IMPLEMENTS)
                self._add_implementations(path)
        self._stale_headers.clear()
        self._flush()

    def _resolve_file(self, path: str) -> None:
        self._add_containment(path)
        self._resolve_imports(path)
        self._resolve_names(path, self._refs[path])
        self._add_implementations(path)

    def _add_implementations(self, path: str) -> None:
        """Link each function a header declares to its definitions in source files (declaration ->
        definition, a reference): calls resolve to the declaration their file includes, and through
        this edge reach the code that runs, for impact analysis and for centrality alike. The source
        file beside the header (`url.c` for `url.h`) is the definition when it has one; else every
        source file defining that qualified name, if few enough do (`max_ambiguity`)."""
        if not path.lower().endswith(HEADER_SUFFIXES):
            return
        stem = path.rpartition(".")[0]
        for node, symbol in self._nodes[path].items():
            if symbol.kind not in DECLARED_KINDS:
                continue
            found = sorted(n for n in _looked_up(self._qualified, _dotted(symbol.qualified or symbol.name))
                           if self._homes[n].path.lower().endswith(SOURCE_SUFFIXES))
            sibling = [n for n in found if self._homes[n].path.rpartition(".")[0] == stem]
            targets = sibling or (found if len(found) <= self._tuning.max_ambiguity else [])
            if targets:
                self._add_evidence(path, _IMPLEMENTS, node, targets,
                                   _contribution(_REFERENCES_KIND, len(targets), _NO_SPAN))

    def _add_containment(self, path: str) -> None:
        nodes = self._nodes[path]
        for node, symbol in nodes.items():
            qualified = _dotted(symbol.qualified or symbol.name)
            parent = symbol_node_id(path, qualified.rpartition(".")[0]) if "." in qualified else ""
            source = parent if parent in nodes else file_node(path)
            self._add_evidence(path, _CONTAINS, source, [node], _CONTAINED)

    def _resolve_imports(self, path: str) -> bool:
        """(Re)resolve a file's imports; True when the set of imported files changed."""
        self._drop_group(path, _IMPORTS)
        language = detect_language(path) or ""
        targets: set[str] = set()
        for spec in self._specs[path]:
            found = resolve_import(spec, path, language, self._files)
            if found:
                self._add_evidence(path, _IMPORTS, file_node(path), [file_node(target) for target in found],
                                   _contribution(_IMPORTS_KIND, len(found), _NO_SPAN))
            targets.update(found)
        imported = frozenset(targets)
        changed = imported != self._imports.get(path)
        self._imports[path] = imported
        return changed

    def _resolve_names(self, path: str, names: Iterable[str]) -> None:
        """Link each use of `names` in `path` to its candidates (`_add_evidence`, inlined: this loop
        runs for every reference of the workspace on a build)."""
        refs = self._refs[path]
        nodes = self._nodes[path]
        tiers = self._tiers[path]
        groups = self._added.setdefault(path, {})
        evidences = self._evidence
        touched = self._touched
        node_id, ids_of = self._graph.node_id, self._graph.ids_of
        home = node_id(file_node(path))
        for name in names:
            candidates: dict[str, list[int]] = {}
            tiers[name] = FILE_TIER
            added = groups.setdefault(name, [])
            for ref in refs.get(name, ()):
                targets = candidates.get(ref.name)
                if targets is None:
                    tier, found = self._candidates(path, ref.name)
                    targets = candidates[ref.name] = ids_of(found)
                    if tier > tiers[name]:
                        tiers[name] = tier
                if not targets:
                    continue
                enclosing = symbol_node_id(path, _dotted(ref.enclosing)) if ref.enclosing else ""
                source = node_id(enclosing) if enclosing in nodes else home
                span = ref.span
                # _contribution(kind, len(targets), span), inlined
                contribution = ((((_REFERENCE_KINDS.get(ref.kind, _REFERENCES_KIND) << 32 | len(targets)) << 32
                                  | span.start_line + 1) << 32 | span.start_col + 1) << 32
                                | span.end_line + 1) << 32 | span.end_col + 1
                added.append(contribution)
                added.append(source)
                added += targets
                shifted = source << 32  # edge_key(source, target) = shifted | target
                for target in targets:
                    edge = shifted | target
                    evidence = evidences.get(edge)  # _with_contribution, inlined
                    if evidence is None:
                        evidences[edge] = contribution
                    elif isinstance(evidence, int):
                        evidences[edge] = {contribution: 2} if evidence == contribution else {evidence: 1,
                                                                                             contribution: 1}
                    else:
                        evidence[contribution] = evidence.get(contribution, 0) + 1
                    touched[edge] = None
            if not added:
                del groups[name]
        if not groups:
            del self._added[path]

    def _candidates(self, path: str, name: str) -> tuple[int, list[str]]:
        """Definitions a name used in `path` may mean, and the tier they were found at.

        Nearest tier wins: this file, files it imports, its folder. Past those, only definitions
        outside any class qualify (`x.join()` says nothing about which class's `join`), and only
        when there are few of them.
        """
        if self._mapped is not None and not (isinstance(self._defs, OverlaidIndex)
                                             and self._defs.changed(_last_name(name))):
            return self._stored_candidates(self._mapped, path, name)
        # A whole build groups each name's candidates once for all its uses; a one-file update, during which
        # definitions come and go, groups them for this use alone.
        return self._grouped_candidates(self._grouped if self._grouped is not None else {}, path, name)

    def _grouped_candidates(self, grouped: dict[tuple[str, str], _NameCandidates], path: str,
                            name: str) -> tuple[int, list[str]]:
        """`_candidates` of a graph in memory: a use looks up its file, the files it imports and its folder
        among the name's candidates grouped by file and folder, kept in `grouped` for the name's other uses
        (a whole build keeps them; a one-file update passes a fresh dict). Scanning every candidate's home
        per use cost uses x definitions of a name, both of which grow with a monorepo's copies of one
        library: at 8x Django `__init__` has ~7,000 definitions, and the build spent 35 of its 87 CPU-s
        scanning (issue 17)."""
        last, dotted = _last_name(name), _dotted(name)
        key = (last, dotted if "." in dotted else "")
        entry = grouped.get(key)
        if entry is None:
            entry = grouped[key] = self._grouped_entry(grouped, last, dotted)
        in_file = entry.by_path.get(path)
        if in_file:
            return FILE_TIER, sorted(in_file)
        imported = self._imports.get(path, frozenset())
        if imported:
            if len(imported) < len(entry.by_path):
                near = [n for other in imported for n in entry.by_path.get(other, ())]
            else:
                near = [n for other, nodes in entry.by_path.items() if other in imported for n in nodes]
            if near:
                return IMPORTED_TIER, sorted(near)
        in_folder = entry.by_folder.get(_folder(path))
        if in_folder:
            return FOLDER_TIER, sorted(in_folder)
        if not entry.exact and last in self._tuning.builtin_names:
            return GLOBAL_TIER, []
        return GLOBAL_TIER, list(entry.anywhere)

    def _grouped_entry(self, grouped: dict[tuple[str, str], _NameCandidates], last: str,
                       dotted: str) -> _NameCandidates:
        """The candidates of a use of `dotted`: every definition of `last`; for a qualified use, those it
        names, else the top-level ones (shared by every such use of `last`): a use qualified by a name no
        candidate lives in (`ets.lookup` in Erlang's kv_store, which defines `kv_store.lookup`) may still
        mean a top-level definition, never another container's."""
        homes, most = self._homes, self._tuning.max_ambiguity
        found = _looked_up(self._defs, last)
        if "." not in dotted:
            return _NameCandidates.of(list(found), homes, False, most)
        tail = "." + dotted
        exact = [n for n in found if homes[n].dotted == dotted or homes[n].dotted.endswith(tail)]
        if exact:
            return _NameCandidates.of(exact, homes, True, most)
        top = grouped.get((last, "\0"))
        if top is None:
            top = grouped[(last, "\0")] = _NameCandidates.of([n for n in found if homes[n].top_level], homes,
                                                               False, most)
        return top

    def _stored_candidates(self, stored: StoredGraph, path: str, name: str) -> tuple[int, list[str]]:
        """`_candidates` of a mapped graph, over the stored arrays: the same tiers and the same nodes, but only
        the chosen nodes are read, not every candidate's home (`__init__` has 900 definitions in Django, 3,600
        at 4x, and an edit of a file that calls it read them all). Only for a name whose definitions no
        overlaid edit added or removed (`_candidates`): then the stored ones are the graph's."""
        last = _last_name(name)
        found = stored.defined(last)
        dotted = _dotted(name)
        top = stored.top_level(found)
        exact = False
        if "." in dotted and found.size:
            tail = "." + dotted
            names = [stored.dotted(at) for at in found.tolist()]
            matches = np.array([home == dotted or home.endswith(tail) for home in names], dtype=bool)
            exact = bool(matches.any())
            found = found[matches] if exact else found[top]
            top = stored.top_level(found)
        paths = self._paths  # numbers a created file's path too (a stored candidate is in none)
        assert paths is not None
        homes = stored.node_path[found]
        here = paths.id(path)
        in_file = homes == here
        in_imported = np.zeros(homes.size, dtype=bool)
        for other in self._imports.get(path, frozenset()):  # a few files (not np.isin: it imports numpy.ma)
            in_imported |= homes == paths.id(other)
        in_imported &= ~in_file
        in_folder = (stored.path_folders[homes] == paths.folder(here)) & ~in_file & ~in_imported
        for tier, chosen in ((FILE_TIER, in_file), (IMPORTED_TIER, in_imported), (FOLDER_TIER, in_folder)):
            if chosen.any():
                return tier, sorted(stored.names(found[chosen].tolist()))
        if not exact and last in self._tuning.builtin_names:
            return GLOBAL_TIER, []
        anywhere = found if exact else found[top]
        if anywhere.size > self._tuning.max_ambiguity:
            return GLOBAL_TIER, []
        return GLOBAL_TIER, sorted(stored.names(anywhere.tolist()))

    def _qualified_of(self, node: str) -> str:
        return self._homes[node].dotted

    # --- evidence bookkeeping ---------------------------------------------------------------------

    def _add_evidence(self, path: str, group: str, source: str, targets: Sequence[str],
                      contribution: Contribution) -> None:
        """One use linking `source` to each of `targets` (as many as the contribution's count); the same
        bookkeeping runs inlined in `_resolve_names`."""
        node_id = self._graph.node_id
        start, ends = node_id(source), [node_id(target) for target in targets]
        self._added.setdefault(path, {}).setdefault(group, []).extend((contribution, start, *ends))
        for end in ends:
            edge = edge_key(start, end)
            _with_contribution(self._evidence, edge, contribution)
            self._touched[edge] = None

    def _drop_group(self, path: str, group: str) -> None:
        added = self._added.get(path, {}).pop(group, [])
        evidences, touched = self._evidence, self._touched
        at = 0
        while at < len(added):
            contribution, source = added[at], added[at + 1]
            end = at + 2 + _count_of(contribution)
            for target in added[at + 2 : end]:
                edge = edge_key(source, target)
                _without_contribution(evidences, edge, contribution)
                touched[edge] = None
            at = end

    def _drop_evidence(self, path: str, keep: tuple[str, ...] = ()) -> None:
        for group in [g for g in self._added.get(path, {}) if g not in keep]:
            self._drop_group(path, group)
        if not self._added.get(path):
            self._added.pop(path, None)

    def _flush(self) -> None:
        """Rewrite the edges whose evidence changed.

        `math.fsum` is exactly rounded, so an edge's weight does not depend on the order its
        evidence arrived in: an updated graph equals a rebuilt one bit for bit.
        """
        graph = self._graph
        for edge in self._touched:
            evidence = self._evidence.get(edge)
            if evidence is None:
                graph.remove_edge(edge)
                continue
            graph.set_edge(edge, _edge_data(evidence))
        self._touched.clear()

    # --- centrality -------------------------------------------------------------------------------

    def centrality(self, node_id: str) -> float:
        """PageRank scaled by node count (the average node scores 1); 0 for nodes outside the graph."""
        rank = self._rank
        if self._unbuilt is not None and rank is not None:
            self._overlay_on_query()
            rank = self._rank
            assert rank is not None
            return rank.score(node_id)  # no lock: a background build must not stall the fusion boost
        with self._lock:
            rank = self._ranking()
            index = rank.index.get(node_id)
            return 0.0 if index is None or node_id not in self._graph else float(rank.scores[index])

    def centrality_of(self, path: str, qualified: str | None) -> float:
        """Centrality of a definition, or of the file when `qualified` is None (the fusion boost)."""
        return self.centrality(symbol_node_id(path, qualified) if qualified else file_node(path))

    def refresh_centrality(self) -> None:
        """Recompute centrality now, whatever the debounce says (after a full index, say). A deferred graph
        has not changed since its centrality was stored, so there is nothing to recompute."""
        with self._lock:
            if self._unbuilt is not None:
                self._rank_overlay()
                return
            self._settle()
            self._rank = Rank.of(self._graph, self._tuning)
            self._rank.computed_at = self._clock()
            self._dirty = False

    def _rank_overlay(self) -> None:
        """Rank a mapped graph again over the edits held over it (callers hold the lock), as a build would
        rank the edited files: without it, the stored centrality stayed until a build, and a file or a
        definition an edit added had none. Nothing to do when no edit came since the last ranking."""
        if self._overlay_ranked == self._overlay_edits or self._mapped is None:
            return
        adjacency = cast(DeltaAdjacency, self._graph)
        held = cast(DeltaEvidence, self._evidence).held
        self._rank = Rank.ranked(*overlay_edges(self._mapped, adjacency, held, _edge_data), self._tuning)
        self._rank.computed_at = self._clock()
        self._overlay_ranked = self._overlay_edits

    def _overlay_on_query(self) -> None:
        """A workspace without a background refresh (`rank_on_query`) ranks a mapped graph's edits when asked."""
        if self.rank_on_query and self._unbuilt is not None and self._overlay_ranked != self._overlay_edits:
            with self._lock:
                self._rank_overlay()

    def _ranking(self) -> Rank:
        """The cached ranking, recomputed when stale and the last one is older than the debounce."""
        self._overlay_on_query()
        due = self._rank is None or (
            self.rank_on_query
            and self._dirty
            and self._clock() - self._rank.computed_at >= self._tuning.debounce_seconds
        )
        if due:
            self.refresh_centrality()
        assert self._rank is not None
        return self._rank

    # --- queries ----------------------------------------------------------------------------------

    @property
    def graph(self) -> nx.DiGraph:
        """A networkx copy of the settled graph, for reading and tests: nodes carry `kind` and `path`,
        edges `kind` and `weight`. Built on each call (the queries never use it)."""
        with self._lock:
            import networkx as nx

            self.ensure_built()
            self._settle()
            copy = nx.DiGraph()
            for node, path in self._graph.nodes():
                symbol = self._symbols.get(node)
                if path is None:
                    copy.add_node(node)
                else:
                    copy.add_node(node, kind="file" if symbol is None else symbol.kind, path=path)
            copy.add_edges_from((source, target, {"kind": EDGE_KINDS[kind], "weight": weight})
                                for source, target, (kind, weight) in self._graph.edges())
            return copy

    def symbol_node(self, path: str, qualified: str) -> str | None:
        node = symbol_node_id(path, qualified)
        with self._lock:
            if self._mapped is None:
                self.ensure_built()
            return node if node in self._symbols else None

    def resolve(self, name: str) -> list[str]:
        """Nodes a user's name means: a node id, `path#Qualified`, a path, `Config.load` or `load`."""
        with self._lock:
            self._settle()
            return self._resolve(name)

    def _resolve(self, name: str) -> list[str]:
        name = name.strip()
        if name in self._graph:
            return [name]
        if "#" in name:
            path, _, qualified = name.partition("#")
            node = symbol_node_id(path, qualified)
            return [node] if node in self._symbols else []
        if name in self._specs:
            return [file_node(name)]
        dotted = _dotted(name)
        found = _looked_up(self._qualified, dotted) or {
            n
            for n in _looked_up(self._defs, _last_name(name))
            if self._homes[n].names(dotted)
        }
        rank = self._ranking()
        return sorted(found, key=lambda n: (-rank.score(n), n))

    def callers(self, name: str, limit: int = 50) -> list[Hit]:
        """Call sites of `name`: span = the call, symbol = the caller. Calls that resolve to the target
        (same file, an imported file, or a qualified name that says so) come first, central callers
        first among them; calls that only match the name follow, marked `resolved=False`."""
        with self._lock:
            self._settle()
            best: dict[tuple[str, Span], Hit] = {}
            node_id = self._graph.node_id
            for target in self._resolve(name):
                for source, _ in self._graph.predecessors(target):
                    path = str(self._graph.path(source))
                    for contribution, _ in _counted(self._evidence.get(edge_key(node_id(source), node_id(target)))):
                        kind, count, span = _unpacked(contribution)
                        if kind != _CALLS_KIND:
                            continue
                        hit = Hit(
                            path=path,
                            span=Span(*span),
                            score=self._centrality(source) / count,
                            symbol=self._qualified_or_none(source),
                            kind="call",
                            language=detect_language(path),
                            via=(self._label(source), self._label(target)),
                            resolved=self._resolves(path, target, span),
                        )
                        _keep_best(best, (hit.path, hit.span), hit)
            ordered = sorted(best.values(), key=lambda h: (not h.resolved, -h.score, h.path, h.span))
            return ordered[:limit]

    def _resolves(self, path: str, target: str, span: tuple[int, int, int, int]) -> bool:
        """Whether the use at `span` in `path` means `target` for a reason better than its name: it is
        in the target's own file, in a file importing the target's, or qualified by the target's
        container or module (`Session.send`, `sessions.send`, `str::strip_prefix` is not `Path`'s)."""
        home = self._homes.get(target)
        symbol = self._symbols.get(target)
        if home is None or symbol is None:
            return False
        if home.path == path or home.path in self._imports.get(path, frozenset()):
            return True
        for ref in self._refs.get(path, {}).get(_last_name(symbol.name), ()):
            if (ref.span.start_line, ref.span.start_col, ref.span.end_line, ref.span.end_col) != span:
                continue
            dotted = _dotted(ref.name)
            if "." not in dotted:
                return False
            if home.names(dotted):
                return True
            qualifier = dotted.rsplit(".", 2)[-2]
            module = home.path.rsplit("/", 1)[-1].partition(".")[0]
            return qualifier in (symbol.container or "", module)
        return False

    def callees(self, name: str, limit: int = 50) -> list[Hit]:
        """Definitions `name` calls, surest and most central first."""
        with self._lock:
            self._settle()
            best: dict[str, Hit] = {}
            node_id = self._graph.node_id
            for source in self._resolve(name):
                for target, _ in self._graph.successors(source):
                    evidence = _counted(self._evidence.get(edge_key(node_id(source), node_id(target))))
                    counts = [_count_of(c) for c, _ in evidence if _kind_of(c) == _CALLS_KIND]
                    if counts and target in self._symbols:
                        hit = self._definition_hit(target, self._centrality(target) / min(counts))
                        hit = _with_via(hit, (self._label(source), self._label(target)))
                        _keep_best(best, target, hit)
            return _ranked(best.values(), limit)

    def impact(self, name: str, depth: int = IMPACT_DEPTH, limit: int = 50) -> list[Hit]:
        """What depends on `name` within `depth` steps: nearest first, then most central.

        Each hit's `via` is the chain of names from the hit to `name`. Members count as the thing
        itself (a caller of `Config.load` depends on `Config`), and so do a file's definitions.
        """
        with self._lock:
            self._settle()
            parent: dict[str, str] = {}
            distance: dict[str, int] = {}
            queue: deque[str] = deque()
            roots = self._resolve(name)
            for root in roots:
                for node in [root, *self._members(root)]:
                    if node not in distance:
                        distance[node] = 0
                        parent[node] = root
                        queue.append(node)
            self._walk_dependents(queue, distance, parent, depth)
            using = {self._graph.path(node) for node, hops in distance.items() if hops > 0}
            for root in roots:
                for importer in self._importers_by_name(root):
                    if importer not in distance and self._graph.path(importer) not in using:
                        distance[importer] = 1  # imports it and never uses it: shown at the import line
                        parent[importer] = root
            hits = [hit for node, d in distance.items() if d > 0 for hit in self._impact_hits(node, d, depth, parent)]
            return _ranked(hits, limit)

    def _importers_by_name(self, node: str) -> list[str]:
        """Files that import a top-level definition by name (`from pkg.lib import target`): they
        depend on it even where they never use it, which no call or reference edge records."""
        symbol = self._symbols.get(node)
        if symbol is None or symbol.container is not None:
            return []
        home = file_node(symbol.path)
        if home not in self._graph:
            return []
        found = []
        for source, kind in self._graph.predecessors(home):
            if kind != _IMPORTS_KIND:
                continue
            specs = self._specs[str(self._graph.path(source))]
            # A path-like spec (`./util/errorContext`) names a module, even one named like the function.
            named = (spec for spec in specs if "/" not in spec and "\\" not in spec)
            if any(re.split(r"[.:]", spec)[-1] == symbol.name for spec in named):
                found.append(source)
        return sorted(found)

    def _walk_dependents(
        self, queue: deque[str], distance: dict[str, int], parent: dict[str, str], depth: int
    ) -> None:
        while queue:
            node = queue.popleft()
            if distance[node] >= depth:
                continue
            for source, kind in self._graph.predecessors(node):
                if kind in _DEPENDENCY_KINDS and source not in distance:
                    distance[source] = distance[node] + 1
                    parent[source] = node
                    queue.append(source)

    def _members(self, node: str) -> list[str]:
        if node.startswith("file:"):
            return list(self._nodes.get(node[len("file:") :], {}))
        symbol = self._symbols.get(node)
        if symbol is None:
            return []
        prefix = self._qualified_of(node) + "."
        return [n for n in self._nodes[symbol.path] if self._qualified_of(n).startswith(prefix)]

    def _impact_hits(self, node: str, hops: int, depth: int, parent: dict[str, str]) -> list[Hit]:
        """The dependent at each line where it uses the next link of its chain (a call, a reference,
        the class line that inherits), at most `max_use_sites` of them, first use first; an import
        without a recorded position keeps the file's head, which the retriever moves to the import line."""
        chain = [node]
        while parent[chain[-1]] != chain[-1]:
            chain.append(parent[chain[-1]])
        centrality = self._centrality(node)
        score = (depth + 1 - hops) + centrality / (1 + centrality)
        via = tuple(self._label(n) for n in chain)
        hit = _with_via(self._definition_hit(node, score), via)
        edge = edge_key(self._graph.node_id(node), self._graph.node_id(parent[node]))
        spans = (_unpacked(contribution) for contribution, _ in _counted(self._evidence.get(edge)))
        uses = sorted({span for kind, _, span in spans
                       if kind != _CONTAINS_KIND and span != _NO_SPAN})[: self._tuning.max_use_sites]
        if not uses:
            return [hit]
        # Later uses score a hair lower, so the first stays the dependent's representative line.
        return [Hit(hit.path, Span(*span), score - 1e-6 * position, hit.symbol, hit.kind, hit.snippet, hit.language,
                    via) for position, span in enumerate(uses)]

    def siblings(self, path: str, qualified: str | None, limit: int = 50) -> list[Hit]:
        """Definitions that share the seed's neighbours: the same base class, the same callees, the
        same callers (find_similar). Each shared neighbour counts 1 / log(2 + its degree), so a
        shared base of five subclasses says more than a shared call to a helper everyone calls.
        Containment is left out (every method of a file shares the file); so is the seed itself."""
        with self._lock:
            self._settle()
            seed = symbol_node_id(path, qualified) if qualified else file_node(path)
            if seed not in self._graph:
                return []
            scores: dict[str, float] = {}
            graph = self._graph
            neighbours = [(n, kind, True) for n, kind in graph.successors(seed)]
            neighbours += [(n, kind, False) for n, kind in graph.predecessors(seed)]
            for neighbour, kind, used in neighbours:
                if kind == _CONTAINS_KIND:
                    continue
                # a user of the neighbour shares it the way the seed does when its edge is of the same kind
                others = graph.predecessors(neighbour) if used else graph.successors(neighbour)
                peers = [(o, other_kind) for o, other_kind in others if o != seed and o in self._symbols]
                if not peers:
                    continue
                share = 1.0 / math.log(2 + len(peers))
                for peer, peer_kind in peers:
                    if peer_kind == kind:
                        scores[peer] = scores.get(peer, 0.0) + share
            members = set(self._members(seed))
            hits = [_with_via(self._definition_hit(node, score), (self._label(node), self._label(seed)))
                    for node, score in scores.items() if node not in members]
            return _ranked(hits, limit)

    def related(self, seed_terms: Sequence[str], limit: int = 20) -> list[Hit]:
        """Definitions around the query's words: name matches spread by personalized PageRank."""
        with self._lock:
            self._settle()
            seeds = self._seeds(seed_terms)
            if not seeds:
                return []
            rank = self._ranking()
            scores = rank.personalized(seeds, self._tuning)
            order = np.argsort(-scores, kind="stable")
            hits: list[Hit] = []
            for index in order:
                node = rank.nodes[index]
                if scores[index] <= 0 or len(hits) >= limit:
                    break
                if node in self._symbols:
                    hits.append(self._definition_hit(node, float(scores[index])))
            return hits

    def _seeds(self, seed_terms: Sequence[str]) -> dict[str, float]:
        words = {w for term in seed_terms for w in name_words(term)} - self._tuning.stopwords
        matches: Counter[str] = Counter()
        for word in words:
            matches.update(_looked_up(self._words, word))
        rank = self._ranking()
        best = sorted(matches, key=lambda n: (-matches[n], -rank.score(n), n))[: self._tuning.max_seeds]
        return {node: float(matches[node]) for node in best}

    def most_central(self, limit: int = 50) -> list[Hit]:
        """The most central definitions: what to show for an empty query."""
        with self._lock:
            self._settle()
            rank = self._ranking()
            hits: list[Hit] = []
            for index in np.argsort(-rank.scores, kind="stable"):
                node = rank.nodes[index]
                if node in self._symbols:
                    hits.append(self._definition_hit(node, float(rank.scores[index])))
                if len(hits) >= limit:
                    break
            return hits

    # --- hit helpers ------------------------------------------------------------------------------

    def _centrality(self, node: str) -> float:
        return self._ranking().score(node)

    def _qualified_or_none(self, node: str) -> str | None:
        symbol = self._symbols.get(node)
        return None if symbol is None else symbol.qualified or symbol.name

    def _label(self, node: str) -> str:
        symbol = self._symbols.get(node)
        if symbol is not None:
            return symbol.qualified or symbol.name
        return str(self._graph.path(node))

    def _definition_hit(self, node: str, score: float) -> Hit:
        symbol = self._symbols.get(node)
        if symbol is None:
            path = str(self._graph.path(node))
            return Hit(path, Span(0, 0, 0, 0), score, None, "file", "", detect_language(path))
        return Hit(
            path=symbol.path,
            span=symbol.span,
            score=score,
            symbol=symbol.qualified or symbol.name,
            kind=symbol.kind,
            language=symbol.language or detect_language(symbol.path),
        )


class _Home(NamedTuple):
    """Where a definition lives, as name resolution asks it for every candidate of every use (a named
    tuple: one is made per definition on every build, and a frozen dataclass costs twice as much)."""

    path: str
    folder: str
    top_level: bool
    dotted: str  # the dotted qualified name (the same string as its key in `_qualified`)

    @classmethod
    def of(cls, path: str, folder: str, symbol: Symbol, namespaces: frozenset[str] = frozenset()) -> _Home:
        """A definition directly in a namespace of its file (`namespace Monolog\\Handler;`, C++'s `namespace
        fmt {`) is top level as one outside any is: a namespace is no class whose members need a receiver."""
        qualified = symbol.qualified or symbol.name
        in_namespace = symbol.container is not None and qualified[: -len(symbol.name) - 1] in namespaces
        return cls(path, folder, symbol.container is None or in_namespace, _dotted(qualified))

    def names(self, dotted: str) -> bool:
        """Whether `dotted` is this definition's qualified name or a tail of it (`load`, `Config.load`)."""
        return self.dotted == dotted or self.dotted.endswith("." + dotted)


class _NameCandidates(NamedTuple):
    """One name's candidate definitions (all of them, the top-level ones, or those a dotted use names), grouped
    by the file and the folder they live in, and what the global tier links (sorted; empty past
    `max_ambiguity`): made once per name during a whole build (`CodeGraph._grouped_candidates`)."""

    by_path: dict[str, list[str]]
    by_folder: dict[str, list[str]]
    exact: bool
    anywhere: tuple[str, ...]

    @classmethod
    def of(cls, nodes: list[str], homes: Mapping[str, _Home], exact: bool, max_ambiguity: int) -> _NameCandidates:
        by_path: dict[str, list[str]] = {}
        by_folder: dict[str, list[str]] = {}
        for node in nodes:
            home = homes[node]
            by_path.setdefault(home.path, []).append(node)
            by_folder.setdefault(home.folder, []).append(node)
        anywhere = sorted(nodes if exact else (n for n in nodes if homes[n].top_level))
        return cls(by_path, by_folder, exact, tuple(anywhere) if len(anywhere) <= max_ambiguity else ())


def _index(index: NameIndex, key: str, value: str) -> None:
    found = index.get(key)
    if found is None:
        index[key] = value
    elif isinstance(found, str):
        if found != value:
            index[key] = {found, value}
    else:
        found.add(value)


def _unindex(index: NameIndex, key: str, value: str) -> None:
    found = index.get(key)
    if found is None:
        return
    if isinstance(found, str):
        if found == value:
            del index[key]
        return
    found.discard(value)
    if len(found) == 1:
        index[key] = found.pop()
    elif not found:
        del index[key]


def _python_module(path: str) -> bool:
    """A Python module that is not a package's `__init__`."""
    return detect_language(path) == "python" and path.rsplit("/", 1)[-1].split(".", 1)[0] != "__init__"


def _looked_up(index: NameIndex, key: str) -> Collection[str]:
    found = index.get(key)
    if found is None:
        return ()
    return (found,) if isinstance(found, str) else found


def _keep_best(best: dict[K, Hit], key: K, hit: Hit) -> None:
    current = best.get(key)
    if current is None or hit.score > current.score:
        best[key] = hit


def _with_via(hit: Hit, via: tuple[str, ...]) -> Hit:
    return Hit(hit.path, hit.span, hit.score, hit.symbol, hit.kind, hit.snippet, hit.language, via, hit.resolved)


def _ranked(hits: Iterable[Hit], limit: int) -> list[Hit]:
    return sorted(hits, key=lambda h: (-h.score, h.path, h.span))[:limit]


def _stored_parts(graph: CodeGraph) -> Iterator[tuple[str, np.ndarray]]:
    """A settled graph built in memory as the arrays `StoredGraph` reads (stored.py describes them), one at a
    time as each is made, so a writer holds one (with its helpers) and not all of them: all at once, they were
    a cold index's peak (+124 MiB at 4x Django over the ranked graph, +690 at 16x)."""
    adjacency = graph._graph
    order = adjacency.order()
    names = [adjacency.name(node) for node in order]
    at_name = adjacency.positions()  # the same positions as a dict of names would give, ~100 bytes a node less
    node_paths = [path for _, path in adjacency.nodes()]
    paths = sorted_strings(set(graph._specs) | {path for path in node_paths if path is not None})
    path_id = {path: at for at, path in enumerate(paths)}
    pool = StringPool()
    yield "format", np.array([GRAPH_FORMAT], dtype=np.int32)
    yield from string_arrays("node", names, lookup=True).items()
    yield "node_path", np.array([-1 if path is None else path_id[path] for path in node_paths], dtype=np.int32)
    del node_paths
    yield from string_arrays("path", paths, lookup=True).items()
    for outgoing, side in ((True, "succ"), (False, "pred")):
        starts, ends, kinds, keys = adjacency.side_arrays(outgoing=outgoing)
        yield from {f"{side}_ptr": starts, f"{side}_values": ends, f"{side}_kind": kinds}.items()
        del starts, ends, kinds
        if outgoing:
            yield from _evidence_arrays(graph._evidence, keys)
        del keys
    yield from _symbol_arrays(graph, names, pool)
    yield "path_file", np.array([path in graph._specs for path in paths], dtype=np.int8)
    yield from csr_arrays("file", ([at_name[node] for node in graph._nodes.get(path, {})] for path in paths),
                          len(paths)).items()
    yield from csr_arrays("spec", ([pool.id(spec) for spec in graph._specs.get(path, ())] for path in paths),
                          len(paths)).items()
    yield from csr_arrays("import", (sorted(path_id[other] for other in graph._imports.get(path, ()))
                                     for path in paths), len(paths)).items()
    for name, index in (("defs", graph._defs), ("qualified", graph._qualified), ("words", graph._words)):
        yield from index_arrays(name, index, at_name).items()
    del at_name
    yield from index_arrays("refs", graph._referencers, path_id).items()
    yield from string_arrays("pool", pool.items).items()
    rank = graph._ranking()
    ranked = {node: at for at, node in enumerate(rank.nodes)}
    yield "rank_position", np.array([ranked.get(name, -1) for name in names], dtype=np.int32)
    yield "rank_check", np.array([rank_check(rank.scores)], dtype=np.uint64)


def _evidence_arrays(evidences: Mapping[int, Evidence], keys: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """Each outgoing edge's evidence (edge keys in stored order), straight into flat typed buffers: as a list
    of 7-tuples it was the largest transient of a cold index, at its peak (with the edges as lists, +360 MiB at
    4x Django over the built graph)."""
    evidence = array("i")
    evidence_ptr = array("q", [0])
    for key in key_ints(keys):
        for contribution, times in _counted(evidences.get(key)):
            kind, count, span = _unpacked(contribution)
            evidence.extend((kind, count, *span, times))
        evidence_ptr.append(len(evidence) // EVIDENCE_COLUMNS)
    # views over the buffers, not copies (read-only, as the mapped arrays they become)
    yield "evidence_ptr", np.frombuffer(evidence_ptr, dtype=np.int64)
    yield "evidence", np.frombuffer(evidence, dtype=np.int32).reshape(-1, EVIDENCE_COLUMNS)


def _symbol_arrays(graph: CodeGraph, names: Sequence[str], pool: StringPool) -> Iterator[tuple[str, np.ndarray]]:
    """Each definition node's symbol (its strings as `pool` ids), span and flags, in node order."""
    symbols = np.full((len(names), 6), -1, dtype=np.int32)
    spans = np.zeros((len(names), 4), dtype=np.int32)
    flags = np.zeros(len(names), dtype=np.int8)
    for at, name in enumerate(names):
        symbol = graph._symbols.get(name)
        if symbol is None:
            continue
        home = graph._homes[name]
        symbols[at] = (pool.id(symbol.name), pool.id(symbol.kind), pool.id(symbol.qualified), pool.id(symbol.container),
                       pool.id(symbol.language), pool.id(home.dotted))
        spans[at] = (symbol.span.start_line, symbol.span.start_col, symbol.span.end_line, symbol.span.end_col)
        flags[at] = 1 | (2 if home.top_level else 0)
    yield "symbols", symbols
    yield "spans", spans
    yield "flags", flags
