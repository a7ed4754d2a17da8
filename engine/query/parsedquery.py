"""A query understood once: what the user typed, read into a typed record before any retriever runs.

A user types `where is parseConfig defined`, `"connection refused"`, `/retry\\(\\w+/` or `how does
the Router match paths`. Every part of the engine needs something of that text: the classifier its
intent, the text retriever its literal or regex, BM25 and the graph its words, the structural
retriever the symbol it names, the ranking features its stated names, its keywords and whether it
asks about tests or docs, the "not found" note the things it names. Each of them used to re-read
the raw string with a parser of its own; now `parse_query` reads it once per request, as zoekt's
`query.Parse` builds one `query.Q`, and every stage takes the `ParsedQuery` (issue 11).

Home in the layered engine: `engine/query/` (below retrieve/ and rank/, which read it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePosixPath

from ..index.symbols import parse_symbol_query
from ..index.textsearch import QueryError, TextQuery, parse_text_query
from ..model.profiles import (
    DOC_WORDS,
    EXACT_MATCH,
    FIND_DEFINITION,
    FIND_REFERENCES,
    IMPACT_ANALYSIS,
    KEYWORD_MIN_LENGTH,
    NAMED_MIN_LENGTH,
    SUBJECT_AUXILIARIES,
    SUBJECT_DETERMINERS,
    SUBJECT_QUESTION_WORDS,
    SUBJECT_WORDS,
    TEST_WORDS,
)
from ..model.tokens import ENGLISH_STOP_WORDS, QUALIFIER, query_tokens
from .intent import Classification, Known, classify, identifiers, is_explicit_regex, is_product_name, quoted_strings

__all__ = [
    "LITERAL_INTENTS",
    "ParsedQuery",
    "StatedNames",
    "asks_about_docs",
    "asks_about_tests",
    "named_file",
    "parse_query",
    "query_keywords",
    "question_subject",
    "stated_names",
]

# Intents whose target names one thing the text retriever can find literally.
LITERAL_INTENTS = frozenset({EXACT_MATCH, FIND_DEFINITION, FIND_REFERENCES, IMPACT_ANALYSIS})


def named_file(path: str, name: str) -> bool:
    """`tokenizer.py` for `Tokenizer`, `sessions.py` for `Session`, `merge_config.js` for `mergeConfig`."""
    stem = PurePosixPath(path).stem.lower()
    flat = stem.replace("_", "").replace("-", "")
    wanted = name.lower()
    return wanted in (stem, flat, stem.rstrip("s"), flat.rstrip("s"))


@dataclass(frozen=True)
class StatedNames:
    """Identifiers a query states: the whole query when it is one (`ClientSession`, `a.b`), or those
    written in code style inside a longer question (`why does safeParse throw`)."""

    whole: frozenset[str] = frozenset()
    embedded: frozenset[str] = frozenset()

    # Embedded names too widely defined to pick a definition (`ranking.generic_names`): only the
    # definition in the file named after one of them counts as defining it.
    generic: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.whole or self.embedded)

    def names_definition(self, name: str, path: str) -> bool:
        """Whether a definition of `name` in `path` is a definition the query names."""
        return name in self.all and (name not in self.generic or named_file(path, name))

    @property
    def all(self) -> frozenset[str]:
        return self.whole | self.embedded


# A query that is one symbol: qualified (`a.b`, `A::B`, `a->b`), `_private`, mixed case or snake
# case, or capitalised (`Tokenizer`, `URL`). One lowercase word (`response`) reads as English.
_SYMBOL_QUERY = re.compile(
    r"^(?:[A-Za-z_]\w*(?:(?:::|\\|->|\.|#)[A-Za-z_]\w*)+|_\w*|[A-Za-z][A-Za-z0-9]*[A-Z_]\w*|[A-Z][A-Za-z0-9]*)$"
)
# Code-style words inside a sentence: PascalCase compounds, camelCase, snake_case, and capitalised
# words after the first (`how does the Router match paths`: a class, by the way it is written).
_EMBEDDED = re.compile(
    r"\b(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*[A-Z]\w*|[A-Za-z][A-Za-z0-9]*_\w+)\b|(?<=\s)[A-Z][A-Za-z0-9]+\b"
)
# An all-capitals word inside a sentence is an acronym read as English (`HTTP request representation`,
# `how SSL is configured`, `deserializer IL`), not a name: a struct `HTTP` is not what it asks for.
# Alone (`URL`) it is a name; with an underscore (`FMT_COMPILE`) a constant or macro.
_ACRONYM = re.compile(r"^[A-Z]+$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A qualified name inside a sentence (`how res.send encodes the body`): it names its last part.
_DOTTED = re.compile(r"\b[A-Za-z_]\w+(?:(?:\.|::|->|#)[A-Za-z_]\w+)+\b")
# The "not found" check (engine/search/absence.py): words of a question that may name a thing.
_NAMED_WORD = re.compile(r"[A-Za-z_$][\w$.]*")
_NAMED_ACRONYM = re.compile(r"^[A-Z][A-Z0-9]+$")


@lru_cache(maxsize=1024)
def stated_names(query: str) -> StatedNames:
    """The identifiers `query` names, as written (names are compared case-sensitively)."""
    text = query.strip().strip("`'\"")
    if _SYMBOL_QUERY.match(text):
        parts = [part for part in QUALIFIER.split(text) if part]
        return StatedNames(whole=frozenset({parts[-1]}))
    dotted = {QUALIFIER.split(name)[-1] for name in _DOTTED.findall(query)}
    embedded = {word for word in _EMBEDDED.findall(query) if not _ACRONYM.match(word)}
    return StatedNames(embedded=frozenset(embedded) | dotted)


def query_keywords(query: str) -> frozenset[str]:
    """Lowercase words of a question worth looking for in file names (no stop words, 3+ letters)."""
    return frozenset(w.lower() for w in _WORD.findall(query)
                     if len(w) >= KEYWORD_MIN_LENGTH and w.lower() not in ENGLISH_STOP_WORDS)


def asks_about_tests(query: str) -> bool:
    return _mentions(query, TEST_WORDS)


def asks_about_docs(query: str) -> bool:
    return _mentions(query, DOC_WORDS)


def _mentions(query: str, words: frozenset[str]) -> bool:
    return any(word.lower() in words for word in _WORD.findall(query))


def _named_things(query: str, stated: StatedNames) -> tuple[str, ...]:
    """The words of a question that name something: identifiers, capitalised words after the first,
    acronyms and product names (`Kafka`, `gRPC`, `GraphQL`, `render_react_sidebar`)."""
    words = [w for w in _NAMED_WORD.findall(query) if len(w) >= NAMED_MIN_LENGTH]
    named = set(stated.all) | {w for w in words if is_product_name(w) or _NAMED_ACRONYM.match(w)}
    return tuple(sorted(w.strip(".") for w in named if len(w.strip(".")) >= NAMED_MIN_LENGTH))


_SENTENCE_WORD = re.compile(r"[A-Za-z_][\w.$-]*")


def question_subject(query: str, named: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The words of the noun phrase a question of the shape `how does the kafka consumer rebalance`
    is about (SUBJECT_WORDS of them after the question word, the auxiliary and a determiner, up to the
    first stop word), less the `named` things, which the "not found" check reads on their own; none
    for any other shape (a keyword list, `how Param defines …`, another language)."""
    words = _SENTENCE_WORD.findall(query)
    if len(words) < 3 or words[0].lower() not in SUBJECT_QUESTION_WORDS or words[1].lower() not in SUBJECT_AUXILIARIES:
        return ()
    start = 3 if words[2].lower() in SUBJECT_DETERMINERS else 2
    subject: list[str] = []
    for word in words[start:start + SUBJECT_WORDS]:
        if len(word) < NAMED_MIN_LENGTH or word.lower() in ENGLISH_STOP_WORDS:
            break
        subject.append(word)
    return tuple(word for word in subject if word not in named)


@dataclass(frozen=True)
class SymbolQuery:
    """What the structural retriever looks up: a name, the kinds a leading kind word allows
    (`class Config`), and, for a question, the code-style names it writes (`stated_names`)."""

    name: str
    kinds: frozenset[str] | None
    words: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ParsedQuery:
    """One request's query, read once (see the module docstring); frozen, shared by every stage.

    `classification` is the intent with its rule, confidence, target and (find_similar) seed.
    `literal` is the text retriever's literal or regex form (None: a question, for BM25), and
    `literal_error` the reason it has none when the text cannot be searched as given (an invalid
    regex, an empty string). `whole` is the raw text parsed as a text query, `regex` whether it is
    an explicit regex (`/…/`, `re:…`). `stated`, `keywords`, `tokens`, `quoted` and `identifiers`
    are the words the ranking features, BM25, the graph and the classifier read; `tests_wanted` and
    `docs_wanted` say whether the question lifts the test or documentation priors; `pasted` whether
    the text is an issue or a traceback to split into parts (engine/search/decompose.py).
    `named_things` and `subject` are the words the "not found" check looks for in the workspace
    (engine/search/absence.py).
    """

    raw: str
    classification: Classification
    regex: bool
    whole: TextQuery | None
    whole_error: QueryError | None
    literal: TextQuery | None
    literal_error: QueryError | None
    symbol: SymbolQuery
    stated: StatedNames
    keywords: frozenset[str]
    tokens: tuple[str, ...]
    quoted: tuple[str, ...]
    identifiers: tuple[str, ...]
    named_things: tuple[str, ...]
    subject: tuple[str, ...]
    tests_wanted: bool
    docs_wanted: bool
    pasted: bool = False
    # The query's last word without quotes or `?`: `functions similar to parse_header` ends in its seed.
    last_word: str | None = None
    # A capitalised first word the index defines (`Content protocol for encoding bodies`), a stated name
    # though a sentence's first word is capitalised anyway (`_opening_name`).
    opening: str | None = None

    @property
    def intent(self) -> str:
        return self.classification.intent

    @property
    def target(self) -> str | None:
        return self.classification.target

    @property
    def lexical(self) -> bool:
        """Whether the text retriever scores this query with BM25 (a question, not a literal)."""
        return self.literal is None and self.literal_error is None

    def classified(self, classification: Classification) -> ParsedQuery:
        """The same query under another verdict (a find_similar seed found, or its description run as
        an understanding question); only what depends on the target is read again, from the target."""
        if (classification.target, classification.intent) == (self.classification.target, self.classification.intent):
            return replace(self, classification=classification)
        literal, error = _literal(classification, self.whole, self.whole_error)
        return replace(self, classification=classification, literal=literal, literal_error=error,
                       symbol=_symbol(self.raw, classification.target, self.opening))


def _literal(classification: Classification, whole: TextQuery | None,
             whole_error: QueryError | None) -> tuple[TextQuery | None, QueryError | None]:
    """The literal form for the trigram path: the target of a literal intent, else the whole text when
    it is a regex or one identifier; None for a question."""
    target = classification.target
    if target and classification.intent in LITERAL_INTENTS:
        try:
            return parse_text_query(target), None
        except QueryError as error:
            return None, error
    if whole_error is not None:
        return None, whole_error
    return (whole if whole is not None and whole.kind in ("regex", "identifier") else None), None


def _symbol(raw: str, target: str | None, opening: str | None = None) -> SymbolQuery:
    if target:
        return SymbolQuery(*parse_symbol_query(target))
    name, kinds = parse_symbol_query(raw)
    words = stated_names(name).embedded if len(name.split()) > 1 else frozenset()
    if opening and len(name.split()) > 1:
        words = words | {opening}
    return SymbolQuery(name, kinds, words)


_CAPITALISED = re.compile(r"[A-Z][a-z0-9]+")


def _opening_name(raw: str, known: Known | None) -> str | None:
    """A question's first word when it is capitalised, not a stop word, and the index defines a symbol of
    exactly that name: `Content protocol for encoding and decoding bodies` (Vapor's `Content`),
    `Validations and Validatable for request validation`. `stated_names` skips a sentence's first word,
    since prose capitalises it anyway (`Session management`); the symbol table tells the two apart, as
    it does for a capitalised query of one word (DESIGN §2 rule 5). Lowercase and stop words
    (`How`, `Where`) never count."""
    words = raw.split()
    if known is None or len(words) < 2:
        return None
    first = words[0].strip("`'\"?,.:;()")
    if len(first) < NAMED_MIN_LENGTH or not _CAPITALISED.fullmatch(first) or first.lower() in ENGLISH_STOP_WORDS:
        return None
    return first if known(first) else None


def parse_query(raw: str, classification: Classification | None = None, known: Known | None = None,
                pasted: bool = False, opening_names: bool = True) -> ParsedQuery:
    """Read `raw` once. `classification` is the verdict the searcher settled on (with the index's
    `known` names and its generic-name check); without one the classifier's own is used, asked with
    `known` (tests and tools that have no index pass none)."""
    verdict = classification if classification is not None else classify(raw, known)
    try:
        whole: TextQuery | None = parse_text_query(raw.strip())
        whole_error = None
    except QueryError as error:
        whole, whole_error = None, error
    literal, literal_error = _literal(verdict, whole, whole_error)
    stated = stated_names(raw)
    opening = _opening_name(raw, known) if opening_names and not stated.whole and not pasted else None
    if opening:
        stated = replace(stated, embedded=stated.embedded | {opening})
    words = raw.split()
    named = _named_things(raw, stated)
    return ParsedQuery(
        raw=raw,
        classification=verdict,
        regex=is_explicit_regex(raw.strip()),
        whole=whole,
        whole_error=whole_error,
        literal=literal,
        literal_error=literal_error,
        symbol=_symbol(raw, verdict.target, opening),
        stated=stated,
        keywords=query_keywords(raw),
        tokens=tuple(query_tokens(raw)),
        quoted=quoted_strings(raw),
        identifiers=identifiers(raw, known),
        named_things=named,
        subject=question_subject(raw, named),
        tests_wanted=asks_about_tests(raw),
        docs_wanted=asks_about_docs(raw),
        pasted=pasted,
        last_word=words[-1].strip("?`'\"") if words else None,
        opening=opening,
    )
