"""Guess what a query is asking for, so that only the retrievers that can answer it run.

A user types `where is parseConfig defined`, `chi chiama load_settings`, `"connection refused"` or
`how does retry work`; the response reports the `intent`, the `confidence` and the `rule` that fired,
and `target` names the identifier or string the query is about. The classifier is DESIGN §2: an
ordered table of rules (first match wins), each a query shape with an intent and a confidence. The
phrase rules are rows of data per human language (English, Italian, Vietnamese); adding a language
is adding rows. Every regex is compiled at import because this runs on every keystroke of
`workspace/symbol` and must cost well under a millisecond.
"""

from __future__ import annotations

import errno
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import re2

from ..model.profiles import (
    COMPOUND_WORDS_MAX,
    EXACT_MATCH,
    FIND_DEFINITION,
    FIND_REFERENCES,
    FIND_SIMILAR,
    IMPACT_ANALYSIS,
    INTENTS,
    STOP_WORDS_TARGET,
    UNDERSTAND_CODE,
    stop_words,
)
from ..model.records import Seed

__all__ = [
    "IN_QUERY_RULE",
    "REGEX_MIN_LENGTH",
    "RULES",
    "Classification",
    "Known",
    "Rule",
    "classify",
    "identifiers",
    "is_explicit_regex",
    "is_identifier",
    "is_product_name",
    "pin",
    "quoted_strings",
]


@dataclass(frozen=True)
class Classification:
    """The classifier's verdict: an intent, how sure it is, which rule said so, and what it is about."""

    intent: str
    confidence: float
    rule: str
    target: str | None = None
    # find_similar only: the definition the query is similar to, found by the searcher (the
    # classifier itself never sets it; it reads no index).
    seed: Seed | None = None


@dataclass(frozen=True)
class Rule:
    """One row of the DESIGN §2 table.

    `shape` names how the query is tested (see `_MATCHERS`). For `phrases` rules, `phrases` maps a
    language to regex fragments; `{x}` marks where the target sits inside the phrase (any words,
    the target is then picked out of them), `{id}` a slot that only a code identifier may fill, and
    `{name}` one word of any shape after a noun that says it is a name (`where is the function tinsert`),
    and `{known}` one word that is a code identifier or the name of a symbol the index has.
    A phrase without a slot takes its target from the words after it, else from those before it.
    `targeted=False` rules name no target: a `how …` question is about behaviour, not a name.
    """

    id: str
    intent: str
    confidence: float
    shape: str
    phrases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    targeted: bool = True


_PHRASES = "phrases"
# The nouns that say the next (or previous) word is a name: `where is the function tinsert`.
_KIND_NOUNS_EN = r"(?:function|method|class|struct|interface|trait|type|enum|module|macro|constant|variable)"

# DESIGN §2 rule 8's id: a name inside a longer question (the ranking reads it as a question about a topic,
# engine/rank/ranking.py `asks_around_a_name`).
IN_QUERY_RULE = "8:identifier-in-query"

RULES: tuple[Rule, ...] = (
    Rule("1:decl-keyword", FIND_DEFINITION, 0.95, "decl-keyword"),
    Rule(
        "2:references",
        FIND_REFERENCES,
        0.90,
        _PHRASES,
        {
            "en": (
                r"where\s+(?:is|are)\s+{x}\s+(?:used|called|referenced|imported|invoked)",
                r"where\s+{x}\s+(?:is|are|gets)\s+(?:used|called|referenced|imported|invoked)",
                r"who\s+(?:calls|uses|references|imports|invokes|instantiates)",
                r"what\s+(?:calls|uses|references|imports|invokes)",
                r"(?:usages?|uses|references|refs|callers|call\s+sites|invocations)\s+(?:of|to|for)",
            ),
            "it": (
                r"chi\s+(?:chiama|richiama|usa|utilizza|importa|invoca)",
                r"cosa\s+(?:chiama|usa|utilizza)",
                r"(?:usi|utilizzi|riferimenti|chiamanti|chiamate|invocazioni)\s+(?:di|a|al|alla|allo|del|della)",
                r"dove\s+(?:è|e|viene|vengono|sono)\s+(?:usat[oaie]|utilizzat[oaie]|chiamat[oaie]|richiamat[oaie]|importat[oaie]|referenziat[oaie])",
                r"dov'è\s+(?:usat[oa]|utilizzat[oa]|chiamat[oa])",
                r"dove\s+si\s+(?:usa|usano|chiama|utilizza)",
            ),
            "vi": (
                r"{x}\s+được\s+(?:sử\s+dụng|dùng|gọi|tham\s+chiếu)\s+ở\s+đâu",
                r"ai\s+(?:gọi|sử\s+dụng|dùng|tham\s+chiếu)",
                r"(?:các\s+|những\s+)?nơi\s+(?:sử\s+dụng|dùng|gọi)",
                r"tham\s+chiếu\s+(?:đến|tới)",
            ),
        },
    ),
    Rule(
        "3:impact",
        IMPACT_ANALYSIS,
        0.90,
        _PHRASES,
        {
            "en": (
                r"blast\s+radius(?:\s+of)?",
                r"impact(?:\s+of(?:\s+changing)?)?",
                r"(?:what|who)\s+(?:depends|relies)\s+on",
                r"what\s+(?:would\s+)?breaks?\s+if(?:\s+I\s+(?:change|remove|rename|delete))?",
                r"dependents\s+of",
            ),
            "it": (
                r"raggio\s+d'impatto(?:\s+(?:di|del|della))?",
                r"impatto(?:\s+(?:di|del|della|su))?",
                r"(?:cosa|chi)\s+dipende\s+da",
                r"cosa\s+si\s+rompe\s+se(?:\s+(?:cambio|modifico|rimuovo))?",
            ),
            "vi": (
                r"phạm\s+vi\s+ảnh\s+hưởng(?:\s+của)?",
                r"tác\s+động(?:\s+của)?",
                r"(?:những\s+)?(?:gì|cái\s+gì|ai)\s+phụ\s+thuộc\s+vào",
            ),
        },
    ),
    # Not in DESIGN §2's table: an explicit regex (`/…/` or `re:…`, issue 2) is a text search by
    # construction, as sure as a quoted string; the whole query stays the target.
    Rule("4:regex", EXACT_MATCH, 0.90, "regex"),
    Rule("4:quoted", EXACT_MATCH, 0.90, "quoted"),
    Rule("4:error-token", EXACT_MATCH, 0.85, "error-token"),
    Rule(
        "4b:where-defined",
        FIND_DEFINITION,
        0.90,
        _PHRASES,
        {
            "en": (
                r"where(?:'s|\s+is|\s+are)\s+{x}\s+(?:defined|declared|implemented)",
                r"where\s+{x}\s+(?:is|are|gets)\s+(?:defined|declared|implemented)",
                # A name must follow: in "iterator implementation for JSON arrays" or "path_router
                # implementation for storing routes" the noun is part of a description, and a 0.90
                # verdict sent both down the direct path with a content word as the name to look up.
                r"(?:definition|declaration|implementation)s?\s+(?:of|for)\s+(?:the\s+)?{id}",
                r"(?:definition|declaration)s?\s+(?:of|for)\s+(?:the\s+)?{name}"
                rf"(?:\s+{_KIND_NOUNS_EN})?\s*\??$",
                # "implementation" says less than "definition": "hash table implementation for objects"
                # describes code, so a plain last word is a name only when the index has a symbol of it.
                rf"implementations?\s+(?:of|for)\s+(?:the\s+)?{{known}}(?:\s+{_KIND_NOUNS_EN})?\s*\??$",
                r"where(?:'s|\s+is)\s+{id}\s*\??$",
                rf"where(?:'s|\s+is|\s+are)\s+(?:the\s+)?{_KIND_NOUNS_EN}\s+{{name}}\s*\??$",
            ),
            "it": (
                r"dove\s+(?:è|e|viene|vengono|sono)\s+(?:definit[oaie]|dichiarat[oaie]|implementat[oaie])",
                r"dov'è\s+(?:definit[oa]|dichiarat[oa]|implementat[oa])",
                r"definizion[ei]\s+(?:di|del|della|dello|dei)\s+{id}",
                r"definizion[ei]\s+(?:di|del|della|dello|dei)\s+{name}\s*\??$",
                r"dove\s+si\s+trova",
                r"dov(?:'è|e\s+è)\s+{id}\s*\??$",
                r"dov(?:'è|e\s+è)\s+(?:la\s+funzione|il\s+metodo|la\s+classe|il\s+tipo|il\s+modulo|la\s+costante"
                r"|la\s+macro|la\s+variabile)\s+{name}\s*\??$",
            ),
            "vi": (
                r"{x}\s+được\s+(?:định\s+nghĩa|khai\s+báo|cài\s+đặt)\s+ở\s+đâu",
                r"định\s+nghĩa(?:\s+của)?",
                r"{id}\s+(?:nằm\s+)?ở\s+đâu\s*\??$",
                r"(?:hàm|lớp|phương\s+thức|kiểu|hằng|biến)\s+{name}\s+(?:nằm\s+)?ở\s+đâu\s*\??$",
            ),
        },
    ),
    Rule("5:identifier-whole", FIND_DEFINITION, 0.80, "identifier-whole"),
    Rule(
        "6:similar",
        FIND_SIMILAR,
        0.75,
        _PHRASES,
        {
            "en": (
                r"similar\s+to",
                r"(?:duplicates?|clones?|copies)\s+of",
                r"same\s+as",
                r"(?<!would\s)(?<!'d\s)(?:looks?\s+)?like",
            ),
            "it": (
                r"simil[ei]\s+a",
                r"(?:duplicat[io]|copie|cloni)\s+di",
                r"analog[oaie]\s+a",
                r"ugual[ei]\s+a",
            ),
            "vi": (
                r"tương\s+tự(?:\s+(?:như|với))?",
                r"giống(?:\s+(?:như|với))?",
                r"(?:bản\s+sao|trùng\s+lặp)(?:\s+(?:của|với))?",
            ),
        },
    ),
    Rule(
        "7:understand",
        UNDERSTAND_CODE,
        0.75,
        _PHRASES,
        {
            "en": (r"how", r"why", r"explain\w*", r"architecture", r"overview", r"what\s+does"),
            "it": (r"come", r"perch[ée]", r"spiega\w*", r"architettura", r"panoramica", r"cosa\s+fa"),
            "vi": (
                r"(?:như\s+|làm\s+)?thế\s+nào",
                r"làm\s+sao",
                r"vì\s+sao",
                r"tại\s+sao",
                r"giải\s+thích",
                r"kiến\s+trúc",
                r"tổng\s+quan",
            ),
        },
        targeted=False,
    ),
    # Last but one (DESIGN §2 rule 8): a name in a question that no phrase claimed. Before the
    # phrase rules it turned "how are tRPC links composed" and "functions similar to parse_header"
    # into definition lookups (measured: find_similar recognised 0 times in 11).
    Rule(IN_QUERY_RULE, FIND_DEFINITION, 0.60, "identifier-in-query"),
    Rule("9:fallback", UNDERSTAND_CODE, 0.40, "always"),
)

# Words never taken as a target: articles, prepositions and the nouns people put around a name
# ("the Session class", "hàm parseConfig"), per language (the one stop-word table, profiles.py).
_STOPWORDS: frozenset[str] = stop_words(STOP_WORDS_TARGET)

# Words that look like CamelCase but are names of products, not of code, unless the index has a
# symbol of that name (DESIGN §2: `tRPC`, `GitHub`, `iOS`, `Node.js` are identifiers only then).
_PRODUCT_NAMES: frozenset[str] = frozenset(
    (
        "JavaScript",
        "TypeScript",
        "CoffeeScript",
        "GitHub",
        "GitLab",
        "BitBucket",
        "PyPI",
        "NumPy",
        "SciPy",
        "PostgreSQL",
        "MySQL",
        "SQLite",
        "MongoDB",
        "GraphQL",
        "OAuth",
        "WebAssembly",
        "WebSocket",
        "WebSockets",
        "YouTube",
        "LinkedIn",
        "OpenAI",
        "VSCode",
        "NeoVim",
        "DevTools",
        "PowerShell",
        "FastAPI",
        "iPhone",
        "iPad",
    )
)
# Never identifiers: abbreviations whose dot would make them read as a qualified name.
_NOT_IDENTIFIERS: frozenset[str] = frozenset(("e.g", "i.e"))
# The shapes of product and platform names: a short lowercase prefix on capitals (`tRPC`, `gRPC`,
# `iOS`, `macOS`, `eBPF`) and a capitalised name with a `.js` suffix (`Node.js`, `Vue.js`). Code is
# written that way too (`toJSON`, `isOK`), which is why the index is asked before they count.
_PRODUCT_SHAPE_RE = re.compile(r"[a-z]{1,5}[A-Z]{2,}[a-z]?|[A-Z][A-Za-z0-9]*\.js")

# DESIGN §2 rule 1.
_DECL_KEYWORDS = (
    "def",
    "class",
    "func",
    "fn",
    "function",
    "interface",
    "struct",
    "type",
    "enum",
    "trait",
    "import",
)
# After a declaration keyword and a name, only code may follow: punctuation, or a keyword that
# continues a declaration (`type Config struct`, `class A extends B`, `import numpy as np`).
_DECL_CONTINUATIONS = ("struct", "interface", "extends", "implements", "as", "from", "impl", "where")

_TOKEN = r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*"
_TOKEN_RE = re.compile(rf"(?<![\w$.]){_TOKEN}")
_CODE_SHAPE_RE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]{2,}|_[A-Za-z0-9]|[A-Za-z0-9]_|\.|::")
_WORD_RE = re.compile(r"[\w$][\w$.:]*")
# Double or curly quotes anywhere; single quotes only around the whole query, since an apostrophe
# inside a sentence is Italian or English grammar (`l'utente`, `don't`), not a quote. (Backticks mark
# code, not a string: `load_settings` in backticks is an identifier.)
_QUOTED_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|^'([^']+)'$")
# A Go method receiver may sit between `func` and the name: `func (s *Server) Start`.
_DECL_RE = re.compile(
    rf"(?:{'|'.join(_DECL_KEYWORDS)})\s+(?:\([^)]*\)\s*)?(?P<name>{_TOKEN})(?P<rest>.*)",
    re.IGNORECASE | re.DOTALL,
)
_DECL_REST_RE = re.compile(rf"\s*(?:$|[^\w\s]|(?:{'|'.join(_DECL_CONTINUATIONS)})(?!\w))", re.IGNORECASE)
_ERRNO_NAMES: frozenset[str] = frozenset(errno.errorcode.values())
_ERRNO_RE = re.compile(r"(?<![\w$])E[A-Z0-9]{2,}(?![\w$])")
_ERROR_NAME_RE = re.compile(r"(?<![\w$])(?:Traceback|[A-Z][A-Za-z0-9]*(?:Error|Exception))(?![\w$])")
_PANIC_RE = re.compile(r"(?<![\w$])panic:")
_WHOLE_IDENTIFIER_RE = re.compile(rf"`?(?P<name>{_TOKEN})`?\s*(?:\(\s*\))?\s*\??")
_SLOT_X = r"(?P<x>.+?)"
_SLOT_ID = rf"(?P<id>{_TOKEN})"
_SLOT_NAME = rf"(?P<name>{_TOKEN})"
_SLOT_KNOWN = rf"(?P<known>{_TOKEN})"
# A name made of symbols (`==`, `<|>`, R's `%>%` and `%in%`): operators are defined and called too.
_OPERATOR_RE = re.compile(r"[^\w\s'\"`]+(?:\w+[^\w\s'\"`]+)?")
_LOOKBEHIND_RE = re.compile(r"\(\?<!(?:\\.|[^)])*\)")


Known = Callable[[str], bool]


def is_product_name(token: str) -> bool:
    """Whether a word is written like a product or platform name (`tRPC`, `GitHub`, `Node.js`)."""
    return token in _PRODUCT_NAMES or _PRODUCT_SHAPE_RE.fullmatch(token) is not None


def is_identifier(token: str, known: Known | None = None) -> bool:
    """Whether a word reads as code: camelCase/PascalCase, snake_case, dunder or a dotted/`::` path.

    Plain words (`retry`, `Session`, `URLs`) are not identifiers: a query made of them is prose.
    A product or platform name (`tRPC`, `GitHub`, `Node.js`) is one only when `known` (the index's
    symbol table) says a symbol has that name; without `known` it is not.
    """
    if token in _NOT_IDENTIFIERS or _CODE_SHAPE_RE.search(token) is None:
        return False
    if is_product_name(token):
        return known is not None and known(token)
    return True


def _first_identifier(text: str, known: Known | None) -> str | None:
    for match in _TOKEN_RE.finditer(text):
        if is_identifier(match.group(), known):
            return match.group()
    return None


def _pick_target(text: str, known: Known | None) -> str | None:
    """The name a phrase is about: a quoted string, else the first identifier, else the first content word."""
    quoted = _QUOTED_RE.search(text)
    if quoted:
        return _quoted_text(quoted)
    operator = _OPERATOR_RE.fullmatch(text.strip().rstrip("?").strip())
    if operator:
        return operator.group()  # "where is %>% defined", "who calls <|>": the operator is the name
    identifier = _first_identifier(text, known)
    if identifier:
        return identifier
    words = [word for word in (match.group().rstrip(".:") for match in _WORD_RE.finditer(text))
             if word and word.lower() not in _STOPWORDS]
    return (_compound_name(words, known) if known is not None else None) or (words[0] if words else None)


def _compound_name(words: Sequence[str], known: Known) -> str | None:
    """The symbol a description spells in plain words, when the index has one: "the session middleware"
    is `SessionMiddleware`, "the retry policy" `retry_policy`, "database routers" `DatabaseRouter`.
    Without it the first word stood for the whole description, and `session` found the Session model.
    Only all the words at once: in "the database session store" `SessionStore` is one of many, and
    "database" says which (the search for the description finds it; the name alone found a test's)."""
    if not 1 < len(words) <= COMPOUND_WORDS_MAX or not all(word.isalpha() for word in words):
        return None
    run = [word.lower() for word in words]
    plural = run[-1]
    for last in (plural, plural[:-1]) if len(plural) > 3 and plural.endswith("s") else (plural,):
        parts = [*run[:-1], last]
        for name in ("".join(part.capitalize() for part in parts), "_".join(parts), *_doing(parts)):
            if known(name):
                return name
    return None


def _doing(parts: Sequence[str]) -> list[str]:
    """The function a description by its doer names: "the cookie parser" is `parse_cookie` or
    `parseCookie`, "the request handler" `handle_request`, "the config loader" `load_config`."""
    doer = parts[-1]
    if len(doer) < 5 or not doer.endswith(("er", "or")):
        return []
    verbs = dict.fromkeys((doer[:-1], doer[:-2], doer[:-2] + "e"))
    objects = parts[:-1]
    return [name for verb in verbs
            for name in ("_".join((verb, *objects)), verb + "".join(part.capitalize() for part in objects))]


@dataclass(frozen=True)
class _Found:
    """A rule matched; `target` may still be None (a `how …` question names nothing)."""

    target: str | None


@dataclass(frozen=True)
class _Phrase:
    pattern: re.Pattern[str]
    slot: str | None


@dataclass(frozen=True)
class _PhraseFamily:
    """A phrase rule compiled: a linear-time RE2 screen rejects most queries in one pass (a
    backtracking alternation of every phrase costs ~50 µs on a long query, RE2 ~2 µs); only a query
    that passes it is tried row by row, in order, with the exact patterns."""

    screen: Any
    rows: tuple[_Phrase, ...]


def _bounded(fragment: str) -> str:
    """Whole words only. A phrase opening with `{x}` is anchored at the start: a search finds the
    leftmost match, and `{x}` can always stretch back to the start, so the anchor changes no answer
    but spares a scan from every position (quadratic in the query's length)."""
    anchor = "^" if fragment.startswith("{x}") else ""
    return rf"{anchor}(?<!\w)(?:{fragment})(?!\w)"


def _compile_phrase(fragment: str) -> _Phrase:
    slot = next((name for name in ("x", "id", "name", "known") if f"{{{name}}}" in fragment), None)
    source = (_bounded(fragment).replace("{x}", _SLOT_X).replace("{id}", _SLOT_ID).replace("{name}", _SLOT_NAME)
              .replace("{known}", _SLOT_KNOWN))
    return _Phrase(re.compile(source, re.IGNORECASE | re.DOTALL), slot)


def _screen_source(fragments: list[str]) -> str:
    """An RE2 pattern matching every query some row matches (maybe more): RE2 has no lookbehind,
    so word boundaries consume a non-word character, lookbehinds are dropped and every slot becomes
    `.+?`. `_normalise` leaves only ASCII spaces, which RE2's `\\s` and Python's agree on."""
    bodies = [re.sub(r"\{(?:x|id|name|known)\}", ".+?", _LOOKBEHIND_RE.sub("", f)) for f in fragments]
    return rf"(?is)(?:^|[^\pL\pN_])(?:{'|'.join(bodies)})(?:$|[^\pL\pN_])"


def _compile_family(rule: Rule) -> _PhraseFamily:
    fragments = [fragment for rows in rule.phrases.values() for fragment in rows]
    screen = re2.compile(_screen_source(fragments))
    return _PhraseFamily(screen, tuple(_compile_phrase(f) for f in fragments))


_FAMILIES: Mapping[str, _PhraseFamily] = MappingProxyType(
    {rule.id: _compile_family(rule) for rule in RULES if rule.shape == _PHRASES}
)


def _match_phrases(rule: Rule, query: str, known: Known | None) -> _Found | None:
    family = _FAMILIES[rule.id]
    if family.screen.search(query) is None:
        return None
    for phrase in family.rows:
        match = phrase.pattern.search(query)
        if match is None:
            continue
        if phrase.slot == "id":
            if is_identifier(match.group("id"), known):
                return _Found(match.group("id"))
            continue
        if phrase.slot == "x":
            return _Found(_pick_target(match.group("x"), known))
        if phrase.slot == "name":
            return _Found(match.group("name"))
        if phrase.slot == "known":
            word = match.group("known")
            if is_identifier(word, known) or (known is not None and known(word)):
                return _Found(word)
            continue
        return _Found(_pick_target(query[match.end() :], known) or _pick_target(query[: match.start()], known))
    return None


def _match_decl_keyword(rule: Rule, query: str, known: Known | None) -> _Found | None:
    """`class Session`, `def parse_config(self):` — but not `function that parses config`.

    The name must be followed by nothing, by code punctuation or by a keyword continuing the
    declaration, unless it is itself a code identifier: otherwise the query is prose that merely
    begins with a keyword-like word, and a 0.95 verdict would send it down the direct path.
    """
    match = _DECL_RE.match(query)
    if match is None:
        return None
    name = match.group("name")
    if name.lower() in _STOPWORDS:
        return None
    if is_identifier(name, known) or _DECL_REST_RE.match(match.group("rest")):
        return _Found(name)
    return None


# Shortest `/…/` that is a regex: two slashes around at least one character. (`//` alone is a comment
# marker people search for; textsearch.parse_text_query still reads it as an empty regex and says so.)
REGEX_MIN_LENGTH = 3


def is_explicit_regex(text: str) -> bool:
    """Whether the user wrote a regex on purpose: `re:…` or `/…/` (issue 2). The one detector the
    classifier and the searcher share."""
    return text.startswith("re:") or (len(text) >= REGEX_MIN_LENGTH and text.startswith("/") and text.endswith("/"))


def _match_regex(rule: Rule, query: str, known: Known | None) -> _Found | None:
    return _Found(query) if is_explicit_regex(query) else None


def _match_quoted(rule: Rule, query: str, known: Known | None) -> _Found | None:
    match = _QUOTED_RE.search(query.strip())
    return _Found(_quoted_text(match)) if match else None


def _quoted_text(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group)


def quoted_strings(query: str) -> tuple[str, ...]:
    """Every quoted string of a query, in order (the first is what rule 4 takes as the target)."""
    return tuple(_quoted_text(match) for match in _QUOTED_RE.finditer(_normalise(query).strip()))


def identifiers(query: str, known: Known | None = None) -> tuple[str, ...]:
    """The words of a query that read as code (`is_identifier`), in order; the first is rule 8's target."""
    tokens = (match.group() for match in _TOKEN_RE.finditer(_normalise(query)))
    return tuple(token for token in tokens if is_identifier(token, known))


def _match_error_token(rule: Rule, query: str, known: Known | None) -> _Found | None:
    panic = _PANIC_RE.search(query)
    if panic:
        return _Found(query[panic.start() :].strip())
    name = _ERROR_NAME_RE.search(query)
    if name:
        return _Found(name.group())
    for match in _ERRNO_RE.finditer(query):
        if match.group() in _ERRNO_NAMES:
            return _Found(match.group())
    return None


def _match_identifier_whole(rule: Rule, query: str, known: Known | None) -> _Found | None:
    """`parseConfig`, `a.b.c`; and a capitalised word (`Session`) when the index has a symbol of that
    name: written alone, it is the class a person wants, as Ctrl+T would find it."""
    match = _WHOLE_IDENTIFIER_RE.fullmatch(query)
    if match is None:
        return None
    name = match.group("name")
    if is_identifier(name, known) or (known is not None and name[:1].isupper() and known(name)):
        return _Found(name)
    return None


def _match_identifier_in_query(rule: Rule, query: str, known: Known | None) -> _Found | None:
    identifier = _first_identifier(query, known)
    return _Found(identifier) if identifier else None


def _match_always(rule: Rule, query: str, known: Known | None) -> _Found | None:
    return _Found(None)


_MATCHERS: Mapping[str, Callable[[Rule, str, Known | None], _Found | None]] = MappingProxyType(
    {
        "decl-keyword": _match_decl_keyword,
        _PHRASES: _match_phrases,
        "regex": _match_regex,
        "quoted": _match_quoted,
        "error-token": _match_error_token,
        "identifier-whole": _match_identifier_whole,
        "identifier-in-query": _match_identifier_in_query,
        "always": _match_always,
    }
)


def _normalise(query: str) -> str:
    """One space between words; non-ASCII text in one form (Vietnamese may arrive decomposed,
    apostrophes curly, spaces non-breaking)."""
    query = " ".join(query.split())
    if query.isascii():
        return query
    return unicodedata.normalize("NFC", query).replace("’", "'").replace("‘", "'")


def classify(query: str, known: Known | None = None) -> Classification:
    """Run the DESIGN §2 rules in order on `query`; the first that matches decides.

    `known(name)` says whether the index has a symbol called `name`; it is asked only about words
    shaped like product names (`tRPC`, `Node.js`), so the classifier stays pure and sub-millisecond.
    """
    text = _normalise(query)
    for rule in RULES:
        found = _MATCHERS[rule.shape](rule, text, known)
        if found is not None:
            target = found.target if rule.targeted else None
            return Classification(rule.intent, rule.confidence, rule.id, target)
    raise AssertionError("the fallback rule always matches")


def pin(intent: str, query: str | None = None, known: Known | None = None) -> Classification:
    """An intent the caller chose (`intent` in the request): confidence 1.0; the target is still read."""
    if intent not in INTENTS:
        raise ValueError(f"unknown intent {intent!r}; expected one of: {', '.join(INTENTS)}")
    target = classify(query, known).target if query else None
    if target is None and query and intent in _GRAPH_INTENTS:
        # `callers` of `freeze` (an MCP tool, an editor command): the whole query is the name even when
        # it reads as an English word, since the caller already said it is a symbol's references.
        match = _WHOLE_IDENTIFIER_RE.fullmatch(_normalise(query))
        target = match.group("name") if match else None
    return Classification(intent, 1.0, "pinned", target)


# Pinned intents that answer nothing without a target: the graph needs a name to follow.
_GRAPH_INTENTS = frozenset({FIND_REFERENCES, IMPACT_ANALYSIS})
