"""The graph's numbers and word lists: how PageRank is damped and seeded, how ambiguous a name may be
and still become an edge, and the names (stop words, every language's builtins) that never do."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.profiles import STOP_WORDS_GRAPH, stop_words

__all__ = ["BUILTIN_NAMES", "STOPWORDS", "TUNING", "GraphTuning"]

# Query words that name nothing in code (English; the classifier strips other languages' phrases):
# the graph's rows of the one stop-word table (profiles.py).
STOPWORDS = stop_words(STOP_WORDS_GRAPH)


# Names of built-ins and of methods on built-in types (Python, JS/TS, Go, Rust, Java, C): a use
# of one of these with no definition nearby is almost always the built-in, so the global tier never
# links them (a lone `def join` must not collect every `", ".join(...)` in the workspace).
BUILTIN_NAMES = frozenset(
    [
        "abs",
        "all",
        "any",
        "append",
        "apply",
        "bind",
        "bool",
        "call",
        "clear",
        "close",
        "copy",
        "count",
        "decode",
        "dict",
        "encode",
        "endswith",
        "enumerate",
        "equals",
        "error",
        "extend",
        "filter",
        "find",
        "floor",
        "forEach",
        "format",
        "get",
        "getattr",
        "hasattr",
        "hash",
        "hashCode",
        "includes",
        "index",
        "indexOf",
        "info",
        "insert",
        "int",
        "isinstance",
        "issubclass",
        "items",
        "iter",
        "join",
        "keys",
        "len",
        "list",
        "log",
        "map",
        "max",
        "min",
        "next",
        "open",
        "pop",
        "print",
        "push",
        "range",
        "read",
        "reduce",
        "remove",
        "replace",
        "reverse",
        "round",
        "set",
        "setattr",
        "slice",
        "sort",
        "sorted",
        "split",
        "startswith",
        "str",
        "strip",
        "sum",
        "super",
        "then",
        "toString",
        "tuple",
        "type",
        "update",
        "values",
        "warn",
        "write",
        "zip",
    ]
)


@dataclass(frozen=True)
class GraphTuning:
    """The graph's design numbers, in one place."""

    # PageRank damping, tolerance (per node, as networkx) and iteration cap: the textbook values
    # networkx.pagerank defaults to.
    damping: float = 0.85
    tolerance: float = 1e-6
    max_iterations: int = 100
    # A name defined in more places than this, and in none of the nearby tiers, is too vague to link:
    # 16 candidates already means weight 1/16 each, less than one edge's worth of evidence.
    max_ambiguity: int = 16
    # Centrality is recomputed on demand at most this often while edits keep arriving (seconds).
    debounce_seconds: float = 2.0
    # `related` seeds personalized PageRank with at most this many name matches.
    max_seeds: int = 200
    # Impact lists a dependent at each line where it uses the target, up to this many (a function
    # that calls it 40 times is one answer, not 40; its first lines show how).
    max_use_sites: int = 8
    stopwords: frozenset[str] = field(default_factory=lambda: STOPWORDS)
    builtin_names: frozenset[str] = field(default_factory=lambda: BUILTIN_NAMES)


TUNING = GraphTuning()
