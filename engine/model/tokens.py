"""Code-aware words for BM25: what makes `how is the config parsed` find `parseHTTPConfig`.

Plain word splitting treats `parseHTTPConfig2` as one opaque token that no question ever
contains. Here identifiers are split at camelCase, PascalCase, snake_case and digit boundaries
(`parse`, `http`, `config`), the whole compound is kept as well (so an exact identifier query
still scores highest), everything is lowercased, stop words of English and of code syntax are
dropped, and a light suffix stripper maps `parsing`, `parsed`, `parser` and `parses` onto one stem.

The stemmer is a small Porter-like one written here rather than a dependency: the index and the
query must always agree, and this keeps the result independent of which extras are installed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import xxhash

from .profiles import ABBREVIATIONS, STOP_WORDS_CODE, STOP_WORDS_WORDS, stop_words

# Words that carry no meaning for retrieval: English function and question words (Lucene's English
# list) and the keywords / ubiquitous names of the indexed languages: rows of the one stop-word
# table (profiles.py), whose readers `words` and `code` are this module.
ENGLISH_STOP_WORDS = stop_words(STOP_WORDS_WORDS)
CODE_STOP_WORDS = stop_words(STOP_WORDS_CODE)
STOP_WORDS = ENGLISH_STOP_WORDS | CODE_STOP_WORDS
# Tokens shorter than this are noise (`i`, `x`, `_`).
MIN_TOKEN = 2
# Distinct words whose token lists are memoised: code repeats its vocabulary heavily.
WORD_CACHE_SIZE = 1 << 16

# A word of text, before it is split into code tokens (also how the embedding models read words).
WORD = re.compile(r"\w+")
# What separates the parts of a qualified name (`a.b`, `A::B`, `a->b`, `A#b`, `A\\B`).
QUALIFIER = re.compile(r"::|\\|->|\.|#")
# Identifier parts: acronyms before a capitalised word (HTTPConfig -> HTTP, Config), capitalised
# or lowercase runs, remaining capitals.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_DIGITS_OR_UNDERSCORE = re.compile(r"[\d_]+")
_VOWEL = re.compile(r"[aeiouy]")
# Suffix rules, tried in order; the first that applies wins: (suffix, replacement, min stem length).
# The derivational endings come first: a question names an action by its noun (`validation`,
# `connection`, `serialization`, `notification`) or its doer (`validator`, `iterator`), where code
# names it by its verb (`validate`, `connect`, `serialize`, `notify`, `iterate`); they reach the
# verb's stem. `-tor`/`-sor` only, not every `-or`: `error`, `color` and `minor` are no doers.
SUFFIX_RULES: tuple[tuple[str, str, int], ...] = (
    ("izations", "iz", 3),
    ("ization", "iz", 3),
    ("ifications", "ifi", 2),
    ("ification", "ifi", 2),
    ("urations", "ur", 3),
    ("uration", "ur", 3),
    ("ations", "", 4),
    ("ation", "", 4),
    ("ators", "", 4),
    ("ator", "", 4),
    ("ating", "", 4),
    ("ated", "", 4),
    ("ates", "", 4),
    ("ate", "", 4),
    ("ions", "", 3),
    ("ion", "", 3),
    ("tors", "t", 3),
    ("tor", "t", 3),
    ("sors", "s", 3),
    ("sor", "s", 3),
    ("sses", "ss", 2),
    ("ies", "i", 2),
    ("ied", "i", 2),
    ("ings", "", 3),
    ("ing", "", 3),
    ("ers", "", 3),
    ("er", "", 3),
    ("edly", "", 3),
    ("ed", "", 3),
    ("ly", "", 3),
    ("s", "", 3),
)
# Bump when `stem` or `_word_tokens` change in code rather than in the tables (TOKENIZING digests the tables).
TOKENIZER_REVISION = 2
# Endings that look plural but are not (`class`, `status`, `analysis`).
NOT_PLURAL = ("ss", "us", "is")
# Double consonants left by suffix removal that Porter undoubles (`running` -> `run`).
_UNDOUBLE = re.compile(r"([bdfgkmnprt])\1$")


def code_tokens(text: str) -> list[str]:
    """BM25 tokens of a text: split identifiers, lowercase, drop stop words, stem."""
    tokens: list[str] = []
    for word in WORD.findall(text):
        tokens.extend(_word_tokens(word))
    return tokens


def token_bag(text: str) -> list[str]:
    """The same multiset as `code_tokens`, in no particular order: faster on large texts, since
    each distinct word is expanded once (BM25 only counts tokens; it never looks at their order)."""
    tokens: list[str] = []
    for word, count in Counter(WORD.findall(text)).items():
        tokens.extend(_word_tokens(word) * count)
    return tokens


def query_tokens(text: str) -> list[str]:
    """Tokens of a search query: the same pipeline as documents, so the two always agree."""
    return code_tokens(text)


def with_abbreviations(tokens: Sequence[str]) -> list[str]:
    """A question's tokens and, after them, the short forms code writes for them (`implementation`
    adds `impl`): extra BM25 terms, each once, none already asked."""
    asked = set(tokens)
    extra = [short for token in tokens for short in _SHORT_FORMS.get(token, ()) if short not in asked]
    return [*tokens, *dict.fromkeys(extra)]


@lru_cache(maxsize=WORD_CACHE_SIZE)
def name_stems(name: str) -> tuple[str, ...]:
    """The stemmed content words of an identifier, each once (`nvm_is_version_installed` -> nvm,
    version, install): what a question has to say to name the symbol in plain words."""
    parts = split_identifier(name)
    return tuple(dict.fromkeys(stem(part) for part in parts if len(part) >= MIN_TOKEN and part not in STOP_WORDS))


def split_identifier(word: str) -> list[str]:
    """The lowercase parts of an identifier, digits dropped: `parseHTTPConfig2` -> parse, http, config."""
    parts: list[str] = []
    for piece in _DIGITS_OR_UNDERSCORE.split(word):
        if not piece:
            continue
        found = _PART.findall(piece) if piece.isascii() else [piece]
        parts.extend(part.lower() for part in found)
    return parts


@lru_cache(maxsize=WORD_CACHE_SIZE)
def _word_tokens(word: str) -> tuple[str, ...]:
    parts = split_identifier(word)
    tokens = [stem(part) for part in parts if len(part) >= MIN_TOKEN and part not in STOP_WORDS]
    whole = word.lower()
    if len(parts) > 1 and whole not in STOP_WORDS:
        tokens.append(whole)
    return tuple(tokens)


@lru_cache(maxsize=WORD_CACHE_SIZE)
def stem(word: str) -> str:
    """A light Porter-like stem: plural, -ing, -ed, -er and -ly endings, final e, y -> i."""
    if not word.isascii() or len(word) <= 3:
        return word
    for suffix, replacement, min_stem in SUFFIX_RULES:
        if not word.endswith(suffix):
            continue
        base = word[: len(word) - len(suffix)]
        if suffix == "s" and word.endswith(NOT_PLURAL):
            break
        if len(base) < min_stem:
            continue
        if _VOWEL.search(base):
            word = _UNDOUBLE.sub(r"\1", base + replacement)
        break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word.endswith("y") and word[-2] not in "aeiou":
        word = word[:-1] + "i"
    return word


def _short_forms() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for shorts, words in ABBREVIATIONS:
        forms = tuple(stem(short) for short in shorts.split())
        for word in words.split():
            table[stem(word)] = tuple(dict.fromkeys((*table.get(stem(word), ()), *forms)))
    return table


# A question word's stem -> the stems of its short forms (the ABBREVIATIONS table, as BM25 tokens).
_SHORT_FORMS = _short_forms()


def last_name(symbol: str | None) -> str | None:
    """`Client.send` -> `send`: the name a definition is called by."""
    if not symbol:
        return None
    return QUALIFIER.split(symbol)[-1] or None


def _tokenizing() -> str:
    """A digest of all that decides the tokens a text gives (patterns, suffix rules, stop words).

    Stored indexes built from tokens (the BM25 arrays, the saved symbol table's stems) are keyed by
    the rows they came from; without this in the key, a change of stemming would leave them loaded
    as if current, their terms no longer those a question is turned into.
    """
    rules = (TOKENIZER_REVISION, WORD.pattern, _PART.pattern, _DIGITS_OR_UNDERSCORE.pattern, _VOWEL.pattern,
             _UNDOUBLE.pattern, SUFFIX_RULES, NOT_PLURAL, MIN_TOKEN, sorted(STOP_WORDS))
    return xxhash.xxh3_64_hexdigest(repr(rules).encode())


TOKENIZING = _tokenizing()
