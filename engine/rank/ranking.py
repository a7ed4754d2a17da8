"""Ranking features: what Fourfold knows about code that a plain BM25 + embeddings hybrid does not.

A person asking `Tokenizer` wants the file that defines the class, not the forty that import it; a
person asking `how are retries configured` wants `retry.py` and the three other files about
retries, not five chunks of one of them, and not its tests. Each feature here turns one such piece
of knowledge into a score adjustment, and each can be switched off (`Ranking`) so that
`fourfold eval --ablations` measures what it is worth. The numbers are data in `profiles.py`.

"Why is this first?" is answered here: every feature and the decision to apply it. Two act on the text
retriever's own list, before its cut to the fusion depth (`boost_chunks` on the BM25 candidates of a
question, `literal_ranked` on the literal hits of an identifier); `fusion_features` decides the rest
(definition lift, centrality boost, path priors, file coherence and agreement, line-level display), which
engine/rank/fusion.py applies in its RRF arithmetic. All of them read the query as parsed once
(engine/query/parsedquery.py) and the switches of the request (`Ranking`).
"""

from __future__ import annotations

import math
import re
import threading
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..model.languages import DOC_LANGUAGES, detect_language
from ..model.profiles import (
    ACRONYM_WORDS,
    COMPAT_PRIOR,
    DEFINITION_BOOST,
    DEFINITION_INTENTS,
    DEFINITION_KINDS,
    DOC_PRIOR,
    EMBEDDED_NAME_SCALE,
    EXAMPLE_PRIOR,
    FILE_AGREEMENT,
    FILE_COHERENCE,
    FIND_DEFINITION,
    FUSED_PATH_TERM_BOOST,
    GENERIC_NAME_FILES,
    LEGACY_VERSION_PRIOR,
    NAMED_FILE_SCALE,
    PATH_PREFIX_MIN,
    PATH_TERM_BOOST,
    PROSE_PRIOR,
    REEXPORT_PRIOR,
    SAID_FILE_BOOST,
    SAID_TEXT_MIN_WORDS,
    TEST_PRIOR,
    TOPIC_INTENTS,
    TWIN_FOLDER_FILES,
    TWIN_FOLDER_OVERLAP,
    TYPE_STUB_PRIOR,
    UNDERSTANDING_INTENTS,
)
from ..model.records import Chunk, Hit
from ..model.tokens import ENGLISH_STOP_WORDS, last_name, split_identifier, stem, with_abbreviations
from ..query.intent import IN_QUERY_RULE
from ..query.parsedquery import (
    ParsedQuery,
    StatedNames,
    asks_about_docs,
    asks_about_tests,
    named_file,
    query_keywords,
)
from ..query.request import Ranking

if TYPE_CHECKING:
    from ..index.snapshot import Snapshot

__all__ = [
    "FusionFeatures",
    "Layout",
    "asks_around_a_name",
    "boost_chunks",
    "defines",
    "defining_paths",
    "definitions_first",
    "file_prior",
    "fusion_features",
    "generic_names",
    "is_test_path",
    "layout",
    "literal_ranked",
    "names_folder",
    "path_prior",
    "path_term_ratio",
    "prose_prior",
    "query_path_prior",
    "said_in_passing",
    "spelled_acronyms",
    "with_generic",
]



def generic_names(names: Collection[str], defining_paths: Callable[[str], Collection[str]]) -> frozenset[str]:
    """Names that more than GENERIC_NAME_FILES files define (`defining_paths(name)`: the paths of its
    definitions): a namespace, an overridden method. Written inside a question, such a name says
    what the question is about, not which definition answers it."""
    return frozenset(name for name in names if len(set(defining_paths(name))) > GENERIC_NAME_FILES)


def defining_paths(snapshot: Snapshot, name: str) -> list[str]:
    """The files that define `name` (a field or a variable of that name is no definition of it)."""
    return [symbol.path for symbol in snapshot.symbols.definitions(name) if symbol.kind in DEFINITION_KINDS]


def with_generic(names: StatedNames, defining_paths: Callable[[str], Collection[str]]) -> StatedNames:
    """`names` with its embedded names that are generic (`generic_names`) marked as such."""
    generic = generic_names(names.embedded - names.whole, defining_paths) if names.embedded else frozenset()
    return replace(names, generic=generic) if generic else names


def defined_names(snapshot: Snapshot, path: str) -> frozenset[str]:
    """The names a file defines (not its modules or namespaces: every file of a package opens the same one).
    Kept per file version (DEFINED_NAMES_CACHE): a saved symbol table decodes the names on first touch."""
    record = snapshot.files.get(path)
    key = (path, record.digest) if record is not None and path not in snapshot.buffers else None
    known = _DEFINED_NAMES.get(key) if key is not None else None
    if known is not None:
        return known
    names = snapshot.symbols.names_of_kinds(path, _OWN_DEFINITION_KINDS)
    if key is not None:
        with _DEFINED_NAMES_LOCK:
            if len(_DEFINED_NAMES) >= DEFINED_NAMES_CACHE:
                del _DEFINED_NAMES[next(iter(_DEFINED_NAMES))]
            _DEFINED_NAMES[key] = names
    return names


_OWN_DEFINITION_KINDS = DEFINITION_KINDS - {"module", "namespace"}
# Files whose defined names stay cached (oldest evicted first): a few MB at most.
DEFINED_NAMES_CACHE = 8192
_DEFINED_NAMES: dict[tuple[str, str], frozenset[str]] = {}
_DEFINED_NAMES_LOCK = threading.Lock()


def defines(symbol: str | None, kind: str | None, names: Collection[str]) -> bool:
    """Whether a definition of `kind` named `symbol` is one of `names`."""
    return kind in DEFINITION_KINDS and last_name(symbol) in names


def _definition_boost(chunk: Chunk, names: StatedNames) -> float:
    """How many best-scores a chunk gains for defining a stated name (0 when it defines none)."""
    name = last_name(chunk.symbol)
    if chunk.kind not in DEFINITION_KINDS or name is None or not names.names_definition(name, chunk.path):
        return 0.0
    if name in names.whole:
        scale = 1.0
    elif name in names.embedded:
        scale = EMBEDDED_NAME_SCALE
    else:
        return 0.0
    return DEFINITION_BOOST * scale * (NAMED_FILE_SCALE if named_file(chunk.path, name) else 1.0)


@lru_cache(maxsize=1 << 16)
def path_parts(path: str) -> frozenset[str]:
    """The words of a file's stem and its folder's name: `web_urldispatcher.py` -> web, urldispatcher."""
    pure = PurePosixPath(path)
    parts = set(split_identifier(pure.stem)) | {pure.stem.lower()}
    if pure.parent.name:
        parts |= set(split_identifier(pure.parent.name)) | {pure.parent.name.lower()}
    return frozenset(part for part in parts if part)


def path_term_ratio(keywords: frozenset[str], path: str, spelled: Mapping[str, frozenset[str]] | None = None,
                    weight: Callable[[str], float] | None = None) -> float:
    """Share of the keywords a path names, a shared prefix of 3+ letters counting (`depend` ~ `dependencies`).
    `spelled` maps an acronym to the words the question spells it with (`spelled_acronyms`): a file whose
    stem is such an acronym names those words (`csrf.py` names "cross-site request forgery"). A longer
    name with the acronym inside (`sse.types.ts`, `DefaultClientSSESession.kt`) does not: the phrase
    names the file called by it, not every file that mentions it."""
    if not keywords:
        return 0.0
    parts = path_parts(path)
    named = _spelled_by(path, spelled) if spelled else frozenset()
    found = 0.0
    for word in keywords:
        if word in named or word in parts or any(_prefixes(word, part) for part in parts):
            found += weight(word) if weight is not None else 1.0
    return found / len(keywords)


class Layout:
    """What a repository's file names say, read once per snapshot (`layout`).

    `rarity(word)`: how few files' stems say a question's word (a shared 3+ letter prefix counting, as
    in `path_term_ratio`). A word that a tenth of the stems say (`handler` in a logging library whose
    every handler is `XHandler.php`, `generator` among a framework's forty `*_generator.rb`) tells little
    about which file is asked for, as a word in every chunk tells BM25 little; a word one file's stem says
    points at that file. ln(files / files saying it) / ln(files): 1 for a word at most one stem says, 0
    for one every stem says. Stems only, not folders: a folder's files all say its name, and the folder's
    own module (`endpoint.ex` beside `endpoint/`) is the file the word names most.

    `superseded(path)`: the version folder (`v3`) a path lies in when a sibling folder of a later version
    (`v4`) sits beside it: a library that keeps its previous major version for compatibility (zod's
    `v3/` beside `v4/`) answers with the current one unless the question names the old (LEGACY_VERSION).

    `twin(path, other)`: whether `other` is the file of the same name in a twin of `path`'s folder, a
    sibling folder holding mostly the same file names (TWIN_FOLDER_OVERLAP, TWIN_FOLDER_FILES): zod's
    `v4/classic/schemas.ts` and `v4/mini/schemas.ts`, two flavours of one module.
    """

    def __init__(self, paths: Iterable[str]) -> None:
        listed = list(paths)
        files: dict[str, list[int]] = {}
        versions: dict[str, set[int]] = {}
        count = 0
        for position, path in enumerate(listed):
            count += 1
            parent, _, name = path.rpartition("/")
            dot = name.rfind(".")
            stem = name[:dot] if 0 < dot < len(name) - 1 else name  # as PurePosixPath.stem, without its cost
            for part in {*split_identifier(stem), stem.lower()}:
                files.setdefault(part, []).append(position)
            folders = parent.split("/") if parent else []
            for depth, folder in enumerate(folders):
                version = _VERSION_FOLDER.fullmatch(folder) if folder[:1] in "vV" else None
                if version:
                    versions.setdefault("/".join(folders[:depth]), set()).add(int(version.group(1)))
        self.count = count
        self.paths = frozenset(listed)
        self._files = files
        self._parts = sorted(files)
        self._latest = {parent: max(found) for parent, found in versions.items() if len(found) > 1}
        self._rarity: dict[str, float] = {}
        self._folders: dict[str, frozenset[str]] | None = None  # folder -> its file names, built on first use
        self._twins: dict[tuple[str, str], bool] = {}

    def files_saying(self, word: str) -> int:
        """How many files have a stem word equal to `word` or sharing a 3+ letter prefix with it."""
        matched: set[int] = set(self._files.get(word, ()))
        if len(word) >= PATH_PREFIX_MIN:
            parts = self._parts
            position = bisect_left(parts, word)
            while position < len(parts) and parts[position].startswith(word):
                matched.update(self._files[parts[position]])
                position += 1
            for end in range(PATH_PREFIX_MIN, len(word)):
                matched.update(self._files.get(word[:end], ()))
        return len(matched)

    def rarity(self, word: str) -> float:
        known = self._rarity.get(word)
        if known is None:
            saying = self.files_saying(word)
            known = 1.0 if saying <= 1 or self.count <= 1 \
                else max(0.0, math.log(self.count / saying) / math.log(self.count))
            self._rarity[word] = known
        return known

    def twin(self, path: str, other: str) -> bool:
        folder, _, name = path.rpartition("/")
        other_folder, _, other_name = other.rpartition("/")
        if name != other_name or folder == other_folder or not folder or not other_folder \
                or folder.rpartition("/")[0] != other_folder.rpartition("/")[0]:
            return False
        key = (folder, other_folder) if folder < other_folder else (other_folder, folder)
        known = self._twins.get(key)
        if known is None:
            folders = self._folders if self._folders is not None else self._file_names()
            mine, theirs = folders.get(folder, frozenset()), folders.get(other_folder, frozenset())
            shared = len(mine & theirs)
            known = shared >= TWIN_FOLDER_FILES and shared >= TWIN_FOLDER_OVERLAP * len(mine | theirs)
            self._twins[key] = known
        return known

    def _file_names(self) -> dict[str, frozenset[str]]:
        names: dict[str, set[str]] = {}
        for path in self.paths:
            folder, _, name = path.rpartition("/")
            names.setdefault(folder, set()).add(name)
        self._folders = {folder: frozenset(found) for folder, found in names.items()}
        return self._folders

    def superseded(self, path: str) -> str | None:
        if not self._latest:
            return None
        folders = PurePosixPath(path).parent.parts
        for depth, folder in enumerate(folders):
            version = _VERSION_FOLDER.fullmatch(folder)
            latest = self._latest.get("/".join(folders[:depth])) if version else None
            if version and latest is not None and int(version.group(1)) < latest:
                return folder
        return None


# A folder named for a major version: `v3`, `V2` (not `v1beta1`: an API stage is no copy of a library).
_VERSION_FOLDER = re.compile(r"[vV](\d+)")
_LAYOUTS: list[tuple[Mapping[str, object], Layout]] = []
_LAYOUTS_LOCK = threading.Lock()


def layout(files: Mapping[str, object]) -> Layout:
    """The `Layout` of a snapshot's files (`Snapshot.files`): the mapping is new with every change, so the
    last two are kept by identity (the one being read and the one replacing it), and an edit that keeps
    the same paths reuses the layout of the paths it already has (at 4x Django a build is ~0.15 s)."""
    with _LAYOUTS_LOCK:
        for known, found in _LAYOUTS:
            if known is files:
                return found
        paths = frozenset(files)
        reused = next((found for _, found in _LAYOUTS if found.paths == paths), None)
    found = reused if reused is not None else Layout(files)
    with _LAYOUTS_LOCK:
        _LAYOUTS.insert(0, (files, found))
        del _LAYOUTS[2:]
    return found


def names_folder(raw: str, folder: str) -> bool:
    """Whether a question writes a folder's name as a word (`v3` in "v3 compatibility error types")."""
    return re.search(rf"(?<![\w.]){re.escape(folder)}(?!\w)", raw, re.IGNORECASE) is not None


def _spelled_by(path: str, spelled: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The words that spell a file's stem when the whole stem is one acronym the question spells."""
    words = split_identifier(PurePosixPath(path).stem)
    return spelled.get(words[0], frozenset()) if len(words) == 1 else frozenset()


def spelled_acronyms(raw: str) -> dict[str, frozenset[str]]:
    """The acronyms a question spells out, each with the keywords that spell it: "cross-site request
    forgery" spells `csrf`, "least recently used" `lru`, "abstract syntax tree" `ast`. Code names a file
    or a module by the acronym, never by the phrase, so the phrase alone cannot say the file's name.
    A run is ACRONYM_WORDS consecutive words (a hyphen parts words) that begin and end with a content
    word (`in` may sit inside, as in "just in time"); one that opens or closes on a stop word ("how
    are routes") spells nothing."""
    words = _ACRONYM_WORD.findall(raw)
    spelled: dict[str, frozenset[str]] = {}
    low, high = ACRONYM_WORDS
    for start in range(len(words)):
        for size in range(low, high + 1):
            run = [word.lower() for word in words[start:start + size]]
            if len(run) < size or run[0] in ENGLISH_STOP_WORDS or run[-1] in ENGLISH_STOP_WORDS:
                continue
            acronym = "".join(word[0] for word in run)
            spelled[acronym] = spelled.get(acronym, frozenset()) | frozenset(query_keywords(" ".join(run)))
    return spelled


_ACRONYM_WORD = re.compile(r"[A-Za-z]+")


def stem_said(keywords: frozenset[str], path: str, spelled: Collection[str] = ()) -> bool:
    """Whether the question says every word of the file's stem: as written, by its stem (`creation`
    says `createStore`, `paths` says `path`), by a longer word the stem begins (`utility` says
    `utils`), by a short form code writes for it (`command` says `cmd`, ABBREVIATIONS), or word by
    word when the stem runs them together (`thread pool` says `threadpool`).
    So `paths.rb` for "path management", not `silence_request.rb` for "rack", and not `timeout.ts`
    for "time" (the file is about more than the word). A folder's module file goes by the folder's name.
    `spelled` are the acronyms the question spells out (`spelled_acronyms`): `csrf.py` is said by
    "cross-site request forgery"."""
    pure = PurePosixPath(path)
    words = split_identifier(pure.parent.name if pure.stem in _FACADE_STEMS else pure.stem)
    if not words:
        return False
    said = _said_stems(keywords)
    return all(word in keywords or word in spelled or _says(word, said) for word in words)


# A folder's module file is named for its folder: `fs/mod.rs`, `router/index.ts`, `http/__init__.py`.
_FACADE_STEMS = frozenset({"mod", "index", "__init__", "init"})


def _says(word: str, said: frozenset[str]) -> bool:
    root = stem(word)
    if root in said or (len(root) >= PATH_PREFIX_MIN and any(key.startswith(root) for key in said)):
        return True
    return any(word.startswith(key) and len(word) > len(key) and _says(word[len(key):], said)
               for key in said if len(key) >= PATH_PREFIX_MIN)


@lru_cache(maxsize=256)
def _said_stems(keywords: frozenset[str]) -> frozenset[str]:
    return keywords | frozenset(with_abbreviations([stem(word) for word in keywords]))


@lru_cache(maxsize=256)
def _spelled(raw: str) -> dict[str, frozenset[str]]:
    return spelled_acronyms(raw)


def _prefixes(word: str, part: str) -> bool:
    shorter, longer = (word, part) if len(word) <= len(part) else (part, word)
    return len(shorter) >= PATH_PREFIX_MIN and longer.startswith(shorter)


def boost_chunks(
    scored: Sequence[tuple[Chunk, float]], query: ParsedQuery, ranking: Ranking, extra: Sequence[Chunk] = (),
    stated: StatedNames | None = None,
) -> list[tuple[Chunk, float]]:
    """BM25 candidates re-scored: definitions of stated names, then question words in file names.

    `extra` are chunks defining a stated name that BM25 did not rank (a class whose body never
    repeats its own name); they enter with their boost alone. `stated` are the query's names when the
    caller has marked the generic ones (`with_generic`). Best first.
    """
    if not scored and not extra:
        return []
    top = max((score for _, score in scored), default=1.0) or 1.0
    stated = stated if stated is not None else query.stated
    names = stated if ranking.definitions else StatedNames()
    keywords = query.keywords if ranking.path_terms and not stated.whole else frozenset()
    seen = {chunk.digest for chunk, _ in scored}
    candidates = list(scored) + [(chunk, 0.0) for chunk in extra if chunk.digest not in seen]
    result = []
    for chunk, score in candidates:
        gain = _definition_boost(chunk, names) if names else 0.0
        ratio = path_term_ratio(keywords, chunk.path) if keywords else 0.0
        result.append((chunk, score + top * (gain + PATH_TERM_BOOST * ratio)))
    result.sort(key=lambda item: -item[1])
    return result


def literal_ranked(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, hits: list[Hit], depth: int) -> list[Hit]:
    """The text retriever's literal hits with the one feature that acts on them: for an identifier
    asked by an intent that wants its definition, the definitions first (`definitions_first`)."""
    literal = query.literal
    if ranking.definitions and literal is not None and literal.kind == "identifier" \
            and query.intent in DEFINITION_INTENTS:
        return definitions_first(snapshot, literal.pattern, hits, depth)
    return hits


def definitions_first(snapshot: Snapshot, name: str, hits: list[Hit], depth: int) -> list[Hit]:
    """An identifier's definitions ahead of its mentions: `HTTPException` answers with the class first,
    at its name, as a literal match of the name there would."""
    defined = [symbol for symbol in snapshot.symbols.definitions(name) if symbol.kind in DEFINITION_KINDS]
    if not defined:
        return hits
    score = hits[0].score if hits else 1.0
    first = [Hit(symbol.path, symbol.name_span, score, symbol.qualified, symbol.kind, symbol.signature,
                 symbol.language) for symbol in defined]
    places = {(symbol.path, symbol.qualified) for symbol in defined}
    rest = [hit for hit in hits if (hit.path, hit.symbol) not in places]
    return (first + rest)[:depth]


@dataclass(frozen=True)
class FusionFeatures:
    """The ranking features fusion applies to one query (engine/rank/fusion.py does the arithmetic).

    `centrality` gives a hit's PageRank for the capped boost (0 for every hit on a direct route or
    with the feature off); `names` are the stated names whose definitions are lifted, `generic` those
    lifted only in the file named after them; `prior` what a file's path says about it, `symbol_prior`
    what a hit's enclosing symbol says (a test module inside a source file); `coherence`
    the share of a file's next chunks added for an understanding question, `agreement` the share of its
    file-level RRF score (its best rank per retriever over all its chunks), with `families` over its
    parts' chunks too (`SqlMapper.Async.cs` for `SqlMapper.cs`); `line_level` whether a file whose best
    chunk is its head is shown at its best function; `copies` the names a file defines, by which a copy
    of a file listed above it is lowered (fusion's `_spread_copies`), `twin` whether a file is the same-named
    file of another in a twin folder (`Layout.twin`), which makes a lower share of its names a copy.
    """

    centrality: Callable[[Hit], float]
    names: frozenset[str]
    generic: frozenset[str]
    prior: Callable[[str], float] | None
    symbol_prior: Callable[[str | None], float] | None
    one_per_file: bool
    coherence: float
    agreement: float
    line_level: bool
    families: bool = False
    copies: Callable[[str], frozenset[str]] | None = None
    twin: Callable[[str, str], bool] | None = None


def fusion_features(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, intent: str,
                    direct: bool) -> FusionFeatures:
    """Which features fusion applies for `intent` with the request's switches. The direct path skips
    fusion (DESIGN §4): the retriever's own order stands, unboosted, with no file-level agreement (one
    retriever agrees with nobody); path priors and the file spread still apply."""
    understanding = intent in UNDERSTANDING_INTENTS
    topical = intent in TOPIC_INTENTS or (ranking.sentence_names and asks_around_a_name(query, intent))
    stated = query.stated
    names = stated.all if not direct and ranking.definitions and intent in DEFINITION_INTENTS else frozenset()
    generic = generic_names(stated.embedded - stated.whole, lambda name: defining_paths(snapshot, name)) \
        if names and stated.embedded else frozenset()
    spread = topical and not direct and ranking.file_copies
    return FusionFeatures(
        centrality=(lambda hit: snapshot.graph.centrality_of(hit.path, hit.symbol)) if not direct and ranking.centrality
        else _flat,
        names=names,
        generic=generic,
        prior=_prior_for(snapshot, query, ranking, intent),
        symbol_prior=_inline_test_prior if understanding and ranking.path_priors and not query.tests_wanted else None,
        one_per_file=ranking.one_per_file,
        coherence=FILE_COHERENCE if topical and ranking.file_aggregation else 0.0,
        agreement=FILE_AGREEMENT if topical and not direct and ranking.file_agreement else 0.0,
        line_level=topical,
        families=ranking.file_families,
        copies=(lambda path: defined_names(snapshot, path)) if spread else None,
        twin=layout(snapshot.files).twin if spread and ranking.twin_folders else None,
    )


def asks_around_a_name(query: ParsedQuery, intent: str) -> bool:
    """Whether a definition question writes its name inside a sentence (DESIGN §2 rule 8): `ostream
    integration for writing to std::ostream`, `z.record and z.map schema builders for key-value types`.
    Such a question asks about the topic around the name as much as for its definition: the file the
    topic lives in (`ostream.h`, `args.h` for "fmt::arg named arguments") is the answer as often as the
    one place the name is defined, and the name's definition is still lifted (FUSED_DEFINITION_BOOST).
    So its files are ranked as an understanding question's are: the question's words in file names, file
    coherence and agreement, copies spread (TOPIC_INTENTS' features), with the weights of find_definition
    (DESIGN §3). Not a question that is the name alone (rule 5), nor an issue's pinned part."""
    return intent == FIND_DEFINITION and query.classification.rule == IN_QUERY_RULE


def said_in_passing(keywords: frozenset[str], path: str, text: str) -> bool:
    """Whether a file whose stem the question says (`stem_said`) is named only in passing: the question
    has SAID_TEXT_MIN_WORDS other words or more and the file's `text` holds none of them nor their stems,
    not even inside a longer word (`getentropy` holds `entropy`). "How are exception stack frames rendered with
    surrounding source lines" says `stack`, and `_stack.py` (a list with push and pop) says nothing of
    exceptions, frames, rendering or source lines; the file the question is about says them all. A short
    question ("session management", "SSL certificate verification") is a name with a word or two around
    it, and a file that lacks those words can still be what it names. A substring test, not the file's
    tokens: it costs a scan of text already in memory, and a false match only keeps a lift."""
    pure = PurePosixPath(path)
    named = [stem(word) for word in split_identifier(pure.parent.name if pure.stem in _FACADE_STEMS else pure.stem)]
    others = {word: stem(word) for word in keywords if not any(_prefixes(stem(word), part) for part in named)}
    if len(others) < SAID_TEXT_MIN_WORDS:
        return False
    lowered = text.lower()
    return not any(word in lowered or root in lowered for word, root in others.items())


def _prior_for(snapshot: Snapshot, query: ParsedQuery, ranking: Ranking, intent: str) -> Callable[[str], float] | None:
    """What a file's path says, per intent. An understanding question gets every path prior and the
    lift of the words it names. A definition question gets the path priors without the words, and
    without the header-beside-source rule: a C++ class is defined in its header. When its name is
    not found (`z.record` is a method no symbol names), the tests that call it must not lead. One that
    writes its name inside a sentence (`asks_around_a_name`) gets the lift of the words too. The
    other intents lower only prose: a reference or a line in a test is as much an answer as any."""
    files = layout(snapshot.files)
    superseded = files.superseded if ranking.path_priors and ranking.legacy_versions else None
    if intent in UNDERSTANDING_INTENTS:
        return file_prior(query, ranking, named=intent in TOPIC_INTENTS, indexed=snapshot.files.__contains__,
                          text=snapshot.text, rarity=files.rarity if ranking.path_rarity else None,
                          superseded=superseded)
    if intent == FIND_DEFINITION and ranking.sentence_names and asks_around_a_name(query, intent):
        return file_prior(query, ranking, named=True, text=snapshot.text,
                          rarity=files.rarity if ranking.path_rarity else None, superseded=superseded)
    if intent == FIND_DEFINITION:
        return file_prior(query, ranking, named=False, superseded=superseded)
    return prose_prior(query, ranking)


def _flat(hit: Hit) -> float:
    return 0.0


# A benchmark counts as a test: like one, it calls the code it measures (`raw_hash_set_benchmark.cc`,
# `benches/`), and a question about how the code works is not answered there.
_TEST_FILE = re.compile(
    r"(?:^|/)(?:test_[^/]*\.py|[^/]*_test\.(?:py|go|rb|c|cc|cpp|dart|lua)|[^/]*\.(?:test|spec|bench)\.[cm]?[jt]sx?"
    r"|[^/]*_spec\.(?:rb|lua)|[^/]*Tests?\.(?:java|kt|swift|cs|php|scala)|[^/]*Spec\.(?:kt|swift|scala)"
    r"|[^/]*_benchmarks?\.\w+|bench_[^/]*\.py|conftest\.py|test_helpers?[^/]*)$"
)
# Not `testing/`: that is where libraries keep the test utilities they ship (`click/testing.py`,
# `rxjs/internal/testing/TestScheduler.ts`), which are answers, not tests.
_TEST_DIR = re.compile(r"(?:^|/)(?:tests?|__tests__|specs?|bench|benches|benchmarks?)/")
_EXAMPLE_DIR = re.compile(r"(?:^|/)(?:_?examples?|docs?_src)/")
_COMPAT_DIR = re.compile(r"(?:^|/)(?:_?compat|legacy)/")
_REEXPORT_FILES = frozenset({"__init__.py", "package-info.java"})
_TYPE_STUB = re.compile(r"\.d\.[cm]?ts$")


def is_test_symbol(qualified: str | None) -> bool:
    """Whether a definition sits in a test module inside a source file: Rust keeps its unit tests in
    `mod tests` beside the code (`tests.two_path_extractors` in `extract/path/mod.rs`)."""
    return qualified is not None and any(part in _TEST_MODULES for part in qualified.split(".")[:-1])


_TEST_MODULES = frozenset({"tests", "test"})


def _inline_test_prior(qualified: str | None) -> float:
    """TEST_PRIOR for a hit in an inline test module, as a test file gets for its path."""
    return TEST_PRIOR if is_test_symbol(qualified) else 1.0


def is_test_path(path: str) -> bool:
    """Whether a path is a test file or lies under a tests folder (not `testing/`, see above)."""
    normal = path.replace("\\", "/")
    return bool(_TEST_FILE.search(normal) or _TEST_DIR.search(normal))


def file_prior(query: ParsedQuery, ranking: Ranking, named: bool = True,
               indexed: Callable[[str], bool] | None = None,
               text: Callable[[str], str | None] | None = None,
               rarity: Callable[[str], float] | None = None,
               superseded: Callable[[str], str | None] | None = None) -> Callable[[str], float] | None:
    """What a file's path says about it as the answer to an understanding question: the path priors
    times, when `named`, the lift of question words it names (`streams.py` for `how does streaming work`).
    With `indexed` (is this path in the index?), a C/C++ header whose source file sits beside it is a
    declaration, as a `.d.ts` is: the answer to "how" is in the `.c`. With `text` (a file's text), a file
    whose stem is said only in passing (`said_in_passing`) is not lifted for it. With `rarity` (a word ->
    how few stems say it, `Layout.rarity`), each question word a path names counts that much of one
    toward the share of words it names. With `superseded` (`Layout.superseded`), a file in an older
    version folder than a sibling's is lowered as a compat shim is, unless the question names that folder."""
    if not ranking.path_priors and not (ranking.path_terms and named):
        return None
    keywords = query.keywords if ranking.path_terms and named else frozenset()
    spelled = _spelled(query.raw) if keywords and ranking.acronyms else {}
    tests_wanted, docs_wanted = query.tests_wanted, query.docs_wanted

    def passing(path: str) -> bool:
        body = text(path) if text is not None else None
        return body is not None and said_in_passing(keywords, path, body)

    def prior(path: str) -> float:
        base = _path_prior(path, tests_wanted, docs_wanted) if ranking.path_priors else 1.0
        if ranking.path_priors and indexed is not None and _declares_a_sibling(path, indexed):
            base *= TYPE_STUB_PRIOR
        if ranking.path_priors and superseded is not None:
            old = superseded(path)
            if old is not None and not names_folder(query.raw, old):
                base *= LEGACY_VERSION_PRIOR
        if not keywords:
            return base
        said = SAID_FILE_BOOST if ranking.said_files and stem_said(keywords, path, spelled) \
            and not (ranking.said_text and passing(path)) else 0.0
        share = path_term_ratio(keywords, path, spelled, rarity)
        return base * (1.0 + FUSED_PATH_TERM_BOOST * share) * (1.0 + said)

    return prior


_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx")
_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".m", ".mm")


def _declares_a_sibling(path: str, indexed: Callable[[str], bool]) -> bool:
    """`lib/url.h` when `lib/url.c` is indexed (a header-only library's headers are its code)."""
    stem, dot, suffix = path.rpartition(".")
    if not dot or "." + suffix.lower() not in _HEADER_SUFFIXES:
        return False
    return any(indexed(stem + source) for source in _SOURCE_SUFFIXES)


# Prose that is not documentation of the code: instructions to coding agents, change logs, licences,
# contribution rules, and what .github/ holds (issue templates, CI workflows). They repeat the code's
# words (an AGENTS.md summarises every module) without being where anything happens.
_PROSE_NAME = re.compile(
    r"(?:^|/)(?:AGENTS|CLAUDE|GEMINI|CONVENTIONS|copilot-instructions|\.cursorrules|\.windsurfrules|\.clinerules"
    r"|CHANGELOG|CHANGES|HISTORY|NEWS|RELEASES?|RELEASE[-_]NOTES|LICEN[CS]E|COPYING|NOTICE|AUTHORS"
    r"|CONTRIBUTORS|CONTRIBUTING|CODE[-_]OF[-_]CONDUCT|SECURITY|SUPPORT|FUNDING)(?:[-_.][^/]*)?$",
    re.IGNORECASE,
)
# Folders of repository machinery rather than code: every file in them is prose or configuration.
_PROSE_DIR = re.compile(r"(?:^|/)\.(?:github|gitlab|circleci|cursor|husky)/")
# Prose in other shapes: translation catalogs (a question in Italian matches the Italian catalog,
# not the code), package metadata that repeats the README, and man pages.
_PROSE_KIND = re.compile(r"\.(?:po|pot)$|(?:^|/)PKG-INFO$|(?:^|/)man\d?/[^/]+\.\d[a-z]?$")


def prose_prior(query: ParsedQuery, ranking: Ranking) -> Callable[[str], float] | None:
    """Code before prose for every question about code (not only understanding ones): documentation
    at DOC_PRIOR, agent instructions, change logs, licences and CI configs at PROSE_PRIOR, unless
    the question is about docs. A docstring is not lowered: it is part of the code's chunk."""
    if not ranking.path_priors:
        return None
    docs_wanted = query.docs_wanted
    return lambda path: _prose_factor(path.replace("\\", "/"), docs_wanted)


@lru_cache(maxsize=1 << 16)
def _prose_factor(path: str, docs_wanted: bool) -> float:
    if docs_wanted:
        return 1.0
    language = detect_language(path)
    prose = language is None or language in DOC_LANGUAGES  # `history.py` is code, `HISTORY.rst` is not
    if _PROSE_DIR.search(path) or _PROSE_KIND.search(path) or (prose and _PROSE_NAME.search(path)):
        return PROSE_PRIOR
    return DOC_PRIOR if language in DOC_LANGUAGES else 1.0


def path_prior(path: str, query: str = "") -> float:
    """How much to trust a file as the answer to an understanding question, from its path alone.
    `query` is text the caller has not parsed (a part of a pasted issue, engine/search/decompose.py)."""
    return _path_prior(path, asks_about_tests(query), asks_about_docs(query))


def query_path_prior(path: str, query: ParsedQuery) -> float:
    """`path_prior` for a parsed query: whether it asks about tests or docs was read once, at parse."""
    return _path_prior(path, query.tests_wanted, query.docs_wanted)


@lru_cache(maxsize=1 << 16)
def _path_prior(path: str, tests_wanted: bool, docs_wanted: bool) -> float:
    normal = path.replace("\\", "/")
    prior = 1.0
    if not tests_wanted and is_test_path(normal):
        prior *= TEST_PRIOR
    prior *= _prose_factor(normal, docs_wanted)
    if _EXAMPLE_DIR.search(normal):
        prior *= EXAMPLE_PRIOR
    if _COMPAT_DIR.search(normal):
        prior *= COMPAT_PRIOR
    if PurePosixPath(normal).name in _REEXPORT_FILES:
        prior *= REEXPORT_PRIOR
    if _TYPE_STUB.search(normal):
        prior *= TYPE_STUB_PRIOR
    return prior
