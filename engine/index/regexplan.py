"""Which literals a regex match must contain: the trigram plan for a regex query.

A user searching `/retry\\(\\w+, max_attempts/` should not wait for every file of the repository
to be scanned: any match must contain `retry(` and `, max_attempts`, so only files holding the
trigrams of both can match. This module derives that requirement as an OR of ANDs of literals.

The plan is conservative by construction: a part of the regex that may match nothing (`x?`, `x*`,
`x{0,3}`) or that we do not understand contributes no requirement, and any construct outside the
subset handled here makes the whole plan None (scan everything, under a budget). A plan that
excluded a matching file would be a silent wrong answer, which is worse than a slow one.

The regex is parsed with Python's own parser (`re._parser`); RE2 syntax is close to Python's, and
the few places where they disagree in a way that could make the plan too strict (POSIX classes
like `[[:alpha:]]`, which Python reads as a set followed by `]`) are refused up front.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from typing import Any

try:  # Python >= 3.11
    import re._constants as sre_constants
    import re._parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

# Bounds that keep planning cheap on adversarial patterns: alternatives enumerated for one
# sub-expression, clauses in the final OR, and characters enumerated from one character class.
MAX_EXACT = 64
MAX_CLAUSES = 32
MAX_CLASS = 8
# A trigram index cannot use a literal shorter than this many UTF-8 bytes (so "在庫" still counts).
MIN_LITERAL = 3

Plan = list[list[str]]
# A formula in disjunctive normal form: OR over clauses, each clause an AND of literals.
# The empty clause is TRUE (no requirement); an empty list of clauses never arises.
_Dnf = list[frozenset[str]]
_TRUE: _Dnf = [frozenset()]

# Syntax Python's parser accepts with a different meaning than RE2: refuse to plan those.
_RE2_ONLY = re.compile(r"\[:\^?[a-z]+:\]")


class _Unsupported(Exception):
    """A construct the planner does not model: the caller falls back to no plan."""


@dataclass(frozen=True)
class _Info:
    """What a sub-expression guarantees: its exact strings when few, else a DNF that must hold.

    Invariant: when `exact` is set it describes the node completely and `dnf` is TRUE.
    """

    exact: frozenset[str] | None
    dnf: _Dnf


def plan(pattern: str, case_insensitive: bool) -> Plan | None:
    """An OR of ANDs of literals (each >= 3 UTF-8 bytes) that every match must satisfy, or None."""
    if _RE2_ONLY.search(pattern):
        return None
    flags = re.IGNORECASE if case_insensitive else 0
    try:
        parsed = sre_parse.parse(pattern, flags)
        info = _sequence(list(parsed))
    except (re.error, _Unsupported, RecursionError, OverflowError):
        return None
    dnf = _required(info)
    if any(not clause for clause in dnf):
        return None
    fold = str.casefold if case_insensitive else str
    return [sorted({fold(s) for s in _pruned(clause)}) for clause in dnf]


def _required(info: _Info) -> _Dnf:
    """The requirement a sub-expression imposes, whether it is known exactly or only by its DNF."""
    return _exact_dnf(info.exact) if info.exact is not None else info.dnf


def _pruned(clause: frozenset[str]) -> set[str]:
    """Drop literals implied by a longer one in the same clause (`retr` inside `retry`)."""
    return {s for s in clause if not any(s != other and s in other for other in clause)}


def indexable(literal: str) -> bool:
    """Whether a literal yields at least one trigram of its UTF-8 bytes."""
    return len(literal.encode("utf-8")) >= MIN_LITERAL


def _exact_dnf(exact: frozenset[str]) -> _Dnf:
    if not all(indexable(s) for s in exact):
        return _TRUE
    return [frozenset({s}) for s in exact]


def _and(left: _Dnf, right: _Dnf) -> _Dnf:
    if left == _TRUE:
        return right
    if right == _TRUE:
        return left
    if len(left) * len(right) > MAX_CLAUSES:
        # Dropping one conjunct only weakens the requirement: still conservative.
        return left if len(left) <= len(right) else right
    return [a | b for a, b in product(left, right)]


def _or(parts: list[_Dnf]) -> _Dnf:
    clauses = [clause for part in parts for clause in part]
    if any(not clause for clause in clauses) or len(clauses) > MAX_CLAUSES:
        return _TRUE
    return list(dict.fromkeys(clauses))


def _sequence(items: list[tuple[Any, Any]]) -> _Info:
    """Concatenation: adjacent exact parts multiply into longer literals; the rest is ANDed.

    The result is exact only when every item was exact and the product stayed small; otherwise
    the trailing exact run is folded into the requirement too.
    """
    current: frozenset[str] | None = frozenset({""})
    dnf = _TRUE
    whole = True
    for op, arg in items:
        item = _node(op, arg)
        if item.exact is not None and current is not None and len(current) * len(item.exact) <= MAX_EXACT:
            current = frozenset(a + b for a, b in product(current, item.exact))
            continue
        whole = False
        if current is not None:
            dnf = _and(dnf, _exact_dnf(current))
        dnf = _and(dnf, item.dnf)
        current = item.exact
    if whole:
        return _Info(current, _TRUE)
    if current is not None:
        dnf = _and(dnf, _exact_dnf(current))
    return _Info(None, dnf)


def _node(op: Any, arg: Any) -> _Info:
    handler = _HANDLERS.get(op)
    if handler is None:
        raise _Unsupported(str(op))
    return handler(arg)


def _literal(arg: int) -> _Info:
    return _Info(frozenset({chr(arg)}), _TRUE)


def _anything(_arg: Any) -> _Info:
    return _Info(None, _TRUE)


def _empty(_arg: Any) -> _Info:
    """Zero-width assertions (`^`, `$`, `\\b`) match the empty string between real characters."""
    return _Info(frozenset({""}), _TRUE)


def _char_class(items: list[tuple[Any, Any]]) -> _Info:
    chars: set[str] = set()
    for op, arg in items:
        if op is sre_constants.LITERAL:
            chars.add(chr(arg))
        elif op is sre_constants.RANGE and arg[1] - arg[0] < MAX_CLASS:
            chars.update(chr(c) for c in range(arg[0], arg[1] + 1))
        else:
            return _Info(None, _TRUE)
    if len(chars) > MAX_CLASS:
        return _Info(None, _TRUE)
    return _Info(frozenset(chars), _TRUE)


def _subpattern(arg: tuple[Any, ...]) -> _Info:
    return _sequence(list(arg[-1]))


def _atomic(arg: Any) -> _Info:
    return _sequence(list(arg))


def _branch(arg: tuple[Any, list[Any]]) -> _Info:
    alternatives = [_sequence(list(alt)) for alt in arg[1]]
    exacts = [alt.exact for alt in alternatives]
    if all(e is not None for e in exacts):
        union = frozenset(s for e in exacts if e is not None for s in e)
        if len(union) <= MAX_EXACT:
            return _Info(union, _TRUE)
    return _Info(None, _or([_required(alt) for alt in alternatives]))


def _repeat(arg: tuple[int, int, Any]) -> _Info:
    low, high, body = arg
    inner = _sequence(list(body))
    if low == 0:
        if high == 1 and inner.exact is not None:
            return _Info(inner.exact | {""}, _TRUE)
        return _Info(None, _TRUE)
    if low == high <= MAX_CLASS and inner.exact is not None and len(inner.exact) ** low <= MAX_EXACT:
        return _Info(frozenset("".join(parts) for parts in product(inner.exact, repeat=low)), _TRUE)
    # At least one copy must match, so whatever one copy requires is required.
    return _Info(None, _required(inner))


_HANDLERS: dict[Any, Any] = {
    sre_constants.LITERAL: _literal,
    sre_constants.NOT_LITERAL: _anything,
    sre_constants.ANY: _anything,
    sre_constants.IN: _char_class,
    sre_constants.AT: _empty,
    sre_constants.SUBPATTERN: _subpattern,
    sre_constants.BRANCH: _branch,
    sre_constants.MAX_REPEAT: _repeat,
    sre_constants.MIN_REPEAT: _repeat,
}
for _name in ("POSSESSIVE_REPEAT", "ATOMIC_GROUP"):
    if hasattr(sre_constants, _name):
        _HANDLERS[getattr(sre_constants, _name)] = _repeat if _name == "POSSESSIVE_REPEAT" else _atomic


# Syntax after which `line_local` does not look further: `\A`, `\z`, `\C`, `\Q`, and inline flags that
# turn dot-all on or multi-line off (RE2 accepts flags anywhere; Python's parser only at the start).
_NOT_LINE_LOCAL = re.compile(r"\\[AzCQ]|\(\?[a-zA-Z]*[s-]")
# Character-class categories that hold no newline (`\d`, `\w`, `\S`); any other may.
_NO_NEWLINE_CATEGORIES = frozenset(getattr(sre_constants, name) for name in
                                   ("CATEGORY_DIGIT", "CATEGORY_WORD", "CATEGORY_NOT_SPACE"))
# Zero-width assertions that look only at the characters beside them (`^` `$` under (?m), `\b`, `\B`).
_LOCAL_ASSERTIONS = frozenset(getattr(sre_constants, name) for name in
                              ("AT_BEGINNING", "AT_END", "AT_BOUNDARY", "AT_NON_BOUNDARY"))


_REPEATS = tuple(getattr(sre_constants, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(sre_constants, name))


def line_local(pattern: str) -> bool:
    """Whether no match of `pattern` (run multi-line) can hold a newline or depend on where the text
    starts or ends: then it matches a line the same in any text that holds the line whole, such as the
    matching lines' candidates put one after another (`textpositions`). False when unsure."""
    if _NOT_LINE_LOCAL.search(pattern) or _RE2_ONLY.search(pattern):
        return False
    try:
        return _local(list(sre_parse.parse(pattern)))
    except (re.error, RecursionError, OverflowError):
        return False


def _local(items: list[tuple[Any, Any]]) -> bool:
    for op, arg in items:
        if op is sre_constants.LITERAL:
            ok = arg != ord("\n")
        elif op is sre_constants.ANY:
            ok = True  # `.` holds no newline unless dot-all, refused above
        elif op is sre_constants.IN:
            ok = all(_class_item_local(kind, value) for kind, value in arg)
        elif op is sre_constants.AT:
            ok = arg in _LOCAL_ASSERTIONS
        elif op is sre_constants.SUBPATTERN:
            ok = _local(list(arg[-1]))
        elif op is sre_constants.BRANCH:
            ok = all(_local(list(alternative)) for alternative in arg[1])
        elif op in _REPEATS:
            ok = _local(list(arg[-1]))
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            ok = _local(list(arg))
        else:
            ok = False
        if not ok:
            return False
    return True


def _class_item_local(kind: Any, value: Any) -> bool:
    if kind is sre_constants.LITERAL:
        return bool(value != ord("\n"))
    if kind is sre_constants.RANGE:
        return not value[0] <= ord("\n") <= value[1]
    if kind is sre_constants.CATEGORY:
        return value in _NO_NEWLINE_CATEGORIES
    return False  # a negated class (NEGATE) and anything else may hold a newline
