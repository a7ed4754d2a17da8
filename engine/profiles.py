"""The numbers that decide which retrievers answer a query and how their rankings are combined.

A user sees these as the `weight`, `k`, `boost` and `demoted` fields of every search result, and
as the difference between the `quick`, `default` and `thorough` presets. They are the design
(DESIGN §3 and §4), so they live here as data, in one place, each next to the section that sets
it; routing and fusion read them and contain no numbers of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

# Modality ids, the same short strings in weights, JSON, logs, CLI flags and settings (DESIGN §1).
SEMANTIC: Final = "semantic"
TEXT: Final = "text"
STRUCTURAL: Final = "structural"
GRAPH: Final = "graph"
MODALITIES: Final[tuple[str, ...]] = (SEMANTIC, TEXT, STRUCTURAL, GRAPH)

# Intent ids (DESIGN §2).
FIND_DEFINITION: Final = "find_definition"
FIND_REFERENCES: Final = "find_references"
UNDERSTAND_CODE: Final = "understand_code"
FIND_SIMILAR: Final = "find_similar"
IMPACT_ANALYSIS: Final = "impact_analysis"
EXACT_MATCH: Final = "exact_match"
INTENTS: Final[tuple[str, ...]] = (
    FIND_DEFINITION,
    FIND_REFERENCES,
    UNDERSTAND_CODE,
    FIND_SIMILAR,
    IMPACT_ANALYSIS,
    EXACT_MATCH,
)


def _profile(semantic: float, text: float, structural: float, graph: float) -> Mapping[str, float]:
    return MappingProxyType({SEMANTIC: semantic, TEXT: text, STRUCTURAL: structural, GRAPH: graph})


# Weight of each modality per intent (DESIGN §3). A weight of 0 means the modality never runs.
WEIGHTS: Final[Mapping[str, Mapping[str, float]]] = MappingProxyType(
    {
        FIND_DEFINITION: _profile(0.2, 0.1, 0.6, 0.1),
        FIND_REFERENCES: _profile(0.1, 0.2, 0.2, 0.5),
        UNDERSTAND_CODE: _profile(0.5, 0.2, 0.2, 0.1),
        FIND_SIMILAR: _profile(0.4, 0.3, 0.2, 0.1),
        IMPACT_ANALYSIS: _profile(0.1, 0.1, 0.1, 0.7),
        EXACT_MATCH: _profile(0.0, 0.9, 0.1, 0.0),
    }
)

# How a preset routes a query (DESIGN §4 "Presets", column "routing").
SINGLE: Final = "single"  # one modality, no fusion
DIRECT_OR_FUSED: Final = "direct-or-fused"  # direct at high confidence, else fused
FUSED: Final = "fused"  # always fused


@dataclass(frozen=True)
class Preset:
    """A speed/recall trade-off the user picks by name: which modalities run, the RRF k, how to route."""

    name: str
    modalities: tuple[str, ...]
    k: int | None
    routing: str


# DESIGN §4 "Presets": quick = semantic only, no fusion (k "—"); default = semantic, text,
# structural, k 40, direct at >= 0.85; thorough = all four, k 60, always fused.
PRESETS: Final[Mapping[str, Preset]] = MappingProxyType(
    {
        "quick": Preset("quick", (SEMANTIC,), None, SINGLE),
        "default": Preset("default", (SEMANTIC, TEXT, STRUCTURAL), 40, DIRECT_OR_FUSED),
        "thorough": Preset("thorough", MODALITIES, 60, FUSED),
    }
)
DEFAULT_PRESET: Final = "default"

# DESIGN §4: `quick` falls back to text when the semantic backend is off (or the intent gives
# semantic weight 0, DESIGN §3: an exact string never touches the embedding model).
QUICK_FALLBACK_MODALITY: Final = TEXT

# k for a fused route whose preset defines none (quick with pinned modes, or a rescued quick
# query). DESIGN §4 sets no k for quick; 60 is the RRF constant of Cormack, Clarke and Büttcher
# (SIGIR 2009), the same value DESIGN §4 gives `thorough`.
FALLBACK_K: Final = 60

# DESIGN §4 "Direct path": confidence at or above this skips fusion.
DIRECT_THRESHOLD: Final = 0.85

# Weight given to a modality the user pinned in `modes` whose profile weight is 0 (DESIGN §4
# "Explicit modes override the preset"; §3 says weight 0 never runs, so a pinned modality needs a
# weight to run at all). 0.1 is the smallest non-zero weight of the §3 table: the pinned modality
# counts, but never outweighs one the intent actually favours. When every pinned weight is 0 they
# all get this floor, which is the same as equal weights.
PINNED_FLOOR_WEIGHT: Final = 0.1

# DESIGN §4 graph-importance boost: min(1 + BOOST_SLOPE * ln(1 + centrality), BOOST_CAP).
BOOST_SLOPE: Final = 0.3
BOOST_CAP: Final = 1.5

# DESIGN §4 demotion: score × DEMOTE_FACTOR for vendor/build/archive, minified and generated
# files (configurable through the `fourfold` settings, so this is only the default).
DEMOTE_FACTOR: Final = 0.5

# DESIGN §4: directories whose files are demoted wherever they sit in the path.
DEMOTED_DIRS: Final[frozenset[str]] = frozenset(
    {"vendor", "node_modules", "third_party", "build", "dist", "out", "target", "archive"}
)
# DESIGN §4 "minified and generated files": file-name endings of minified bundles and of the
# output of common code generators (protobuf, gRPC, .NET designers, Dart build_runner).
DEMOTED_SUFFIXES: Final[tuple[str, ...]] = (
    ".min.js",
    ".min.mjs",
    ".min.css",
    "_pb2.py",
    "_pb2.pyi",
    "_pb2_grpc.py",
    ".pb.go",
    ".pb.cc",
    ".pb.h",
    ".designer.cs",
    ".g.dart",
    ".freezed.dart",
)
# DESIGN §4 "generated files": markers inside a file name (`api.generated.ts`, `zz_generated.deepcopy.go`,
# `schema_generated.rs`, `client.gen.go`).
DEMOTED_NAME_MARKERS: Final[tuple[str, ...]] = (".generated.", "_generated.", "zz_generated", ".gen.")

# --- Ranking features (issue 7): what Fourfold knows about code that a plain hybrid does not. ---
# Each is measured by `fourfold eval --ablations`; the figures are in README "Measured results".

# BM25 candidates the text retriever re-ranks for a question (the top `RETRIEVER_DEPTH` survive).
LEXICAL_CANDIDATES: Final = 400
# A chunk that defines a name the question mentions gains this many times the best BM25 score (half
# for a name embedded in a longer question, which may be incidental), and 1.5 times that again when
# its file is named after it (`Tokenizer` in `tokenizer.py`): the definition outranks every mention.
DEFINITION_BOOST: Final = 3.0
EMBEDDED_NAME_SCALE: Final = 0.5
NAMED_FILE_SCALE: Final = 1.5
# A name a question writes in code style that more than this many files define is not one thing: a
# namespace every C# file opens (`Dapper`), a method every class overrides (`toString`, `hashCode`).
# Its definitions are then no answer by name, except in the file named after it (`SqlMapper.cs` of a
# partial class spread over twenty files). 5 is more files than a class and its few extensions or
# overloads span; set by reasoning about what a name means, not fitted to a query set.
GENERIC_NAME_FILES: Final = 5
# A question's words found in a file's stem or folder name add up to this share of the best score.
PATH_TERM_BOOST: Final = 1.0
# Shortest word that matches a path part by prefix (`depend` ~ `dependencies`).
PATH_PREFIX_MIN: Final = 3
# Fused score of a definition of a name the query states (by structural lookup), per mention of it.
FUSED_DEFINITION_BOOST: Final = 2.0
# Fused score of a file, for an understanding question, times (1 + this × share of the question's
# words its stem or folder names): `WebSocket client implementation` -> `client_ws.py`. Measured on
# semble's set: +0.02 NDCG@10 over the same words counted in BM25 alone.
FUSED_PATH_TERM_BOOST: Final = 1.0
# File-level aggregation for understanding questions: a file's score is its best chunk's plus this
# share of its next FILE_COHERENCE_CHUNKS chunks' (a file with several good chunks is about the topic).
FILE_COHERENCE: Final = 0.1
FILE_COHERENCE_CHUNKS: Final = 3
# Intents for which a stated name's definition is the answer. Not references or impact: there the
# definition is the one place that is not an answer.
DEFINITION_INTENTS: Final[frozenset[str]] = frozenset({FIND_DEFINITION, UNDERSTAND_CODE, FIND_SIMILAR, EXACT_MATCH})

# Path priors for understanding questions (not references, not impact: a test that calls `f` is a
# reference to it): multiplicative factors on the fused score, multiplied when several apply.
TEST_PRIOR: Final = 0.3
EXAMPLE_PRIOR: Final = 0.3
COMPAT_PRIOR: Final = 0.3
REEXPORT_PRIOR: Final = 0.5
TYPE_STUB_PRIOR: Final = 0.7
# Documentation (Markdown, reStructuredText, plain text) explains code but is not where it happens:
# measured +0.027 NDCG@10 on Django, +0.003 on semble with MiniLM, neutral on Rich and RxJS.
DOC_PRIOR: Final = 0.5
# Prose that documents no code (agent instructions, change logs, licences, CI configs; issue 14):
# lowered in every intent, and below documentation, since it is no answer even to "how".
# 0.3, the factor already used for tests and examples; not fitted to any query set.
PROSE_PRIOR: Final = 0.3
# Intents whose results get path priors: the question is about what code does, and a test or an
# example shows how it is used, not where it is done.
UNDERSTANDING_INTENTS: Final[frozenset[str]] = frozenset({UNDERSTAND_CODE, FIND_SIMILAR})
# Intents whose files are also ranked by the question's words in their names and by file-level
# aggregation. Not find_similar: the file named like the example is the example, not its likes.
TOPIC_INTENTS: Final[frozenset[str]] = frozenset({UNDERSTAND_CODE})

# --- find_similar (issue 14): the seed's neighbours. ---
# Structural siblings of a seed score points per shared trait (engine/similar.py). A shared base class
# or interface is the strongest sign of "another one of these" (cache backends of BaseCache, schedulers
# of AsyncScheduler); shared member names (the Jaccard share, times this) nearly as strong; a shared
# container, the same parameter count and the same folder are weak, and count only beside another.
# Set by reasoning about what "like X" means, not fitted to a query set.
SIBLING_BASE: Final = 3.0
SIBLING_MEMBERS: Final = 3.0
SIBLING_CONTAINER: Final = 1.0
SIBLING_NAME_WORDS: Final = 1.5
SIBLING_PARAMETERS: Final = 0.5
SIBLING_FOLDER: Final = 1.0
# Words of the seed's chunk the text retriever searches for (BM25 cost grows with query length).
SIMILAR_SEED_WORDS: Final = 64

# --- Honest "not found" (issue 14). ---
# Similar names a "no definition of X" note offers (a glance, not a list to read).
SIMILAR_NAMES_SHOWN: Final = 5
# Files whose text is read to confirm that a word of a question occurs somewhere; past this many
# trigram candidates the word is common enough to be taken as present (the check stays a few ms).
ABSENCE_CONFIRM_FILES: Final = 50

# --- Line-level answers (issue 14). ---
# An understanding question whose best chunk in a file is the file's head (imports, module code, a
# docstring) is shown at the file's best function instead when that function scores at least this
# share of the head: close enough that the function is the answer, not a side match.
LINE_LEVEL_SHARE: Final = 0.5

# --- Function-level localisation (issue 15): which functions of the found files an issue is about. ---
# engine/localisation.py scores a function of a found file as (its file's score / the best file's) ×
# (FUNCTION_FLOOR + Σ weight × feature), every feature 0..1. The weights are set by reasoning (what the
# issue says outright counts most), not fitted: `bench/tune_decompose.py functions-fit` on the tuning
# half of SWE-bench Lite (pytest, sphinx, astropy, requests) preferred frame 4 / literal 0, one issue
# more on that half and none on the held-out half, so these stayed. Each feature left out (function
# hit@10 in points, tuning / held-out half, 43 / 47 issues): words -7 / -6, found -5 / -2, calls -2 / 0,
# named 0 / -2, frame and literal 0 / 0 (few issues have a frame or a message inside the found files).
FUNCTION_WEIGHTS: Final[Mapping[str, float]] = MappingProxyType({
    "frame": 1.0,  # a traceback frame is in it: where the failure happened
    "named": 1.0,  # the issue states its name (or, half, its class's)
    "calls": 0.5,  # it calls or uses a name the issue states
    "literal": 0.5,  # its own lines say the error message or a quoted string
    "words": 0.5,  # the prose's words in its name and lines (BM25 share of the best)
    "found": 0.5,  # the parts' searches found places in it (share of the best)
})
# The file's share (its score / the best file's) counts squared: a function of the tenth file needs much
# more evidence than one of the first. Measured on 40 issues of both halves at 1 / 2 / 3: 2 best on both.
FUNCTION_FILE_POWER: Final = 2.0
# A test function, or any function of a file the path prior lowers (tests, examples, docs): shows the
# bug, is not where it is fixed. TEST_PRIOR's factor, not fitted.
FUNCTION_TEST_PRIOR: Final = TEST_PRIOR
# A function nothing points at still ranks by its file, far below any with evidence.
FUNCTION_FLOOR: Final = 0.05
# Functions of this many first files are ranked (file hit@10 is the measure the functions follow).
FUNCTION_FILES: Final = 10
# Functions an answer lists: two screens of path:line rows for an agent.
FUNCTION_LIMIT: Final = 20
# The function's qualified name counts this many times besides its own lines (as path words in lexical.py).
FUNCTION_NAME_WEIGHT: Final = 2
# Okapi BM25's usual constants over the functions' own lines.
FUNCTION_BM25_K1: Final = 1.2
FUNCTION_BM25_B: Final = 0.75
