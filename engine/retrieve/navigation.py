"""Go to definition, find references and call hierarchy from the structural index, for every language.

These answer an editor's navigation requests where no language-specific server runs. They are
name-based (tree-sitter gives names, not types), so they rank what they find: the same file first,
then files the current file imports, then everything else.
"""

from __future__ import annotations

import re
from collections import defaultdict

from ..index.snapshot import Snapshot
from ..model.records import Hit, Reference, Span, Symbol

IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def word_at(snapshot: Snapshot, path: str, line: int, col: int) -> str | None:
    """The identifier under the cursor (or just before it, as editors allow)."""
    text = snapshot.line(path, line)
    for match in IDENTIFIER.finditer(text):
        if match.start() <= col <= match.end():
            return match.group()
    return None


def _innermost(symbols: tuple[Symbol, ...], line: int) -> Symbol | None:
    around = [s for s in symbols if s.span.contains_line(line)]
    return max(around, key=lambda s: (s.span.start_line, -s.span.end_line), default=None)


def symbol_at(snapshot: Snapshot, path: str, line: int, col: int) -> Symbol | None:
    parsed = snapshot.parsed.get(path)
    if parsed is None:
        return None
    for symbol in parsed.symbols:
        name = symbol.name_span
        if name.start_line == line and name.start_col <= col <= name.end_col:
            return symbol
    word = word_at(snapshot, path, line, col)
    if word:
        found = _ranked_definitions(snapshot, path, word)
        if found:
            return found[0]
    return _innermost(parsed.symbols, line)


def _ranked_definitions(snapshot: Snapshot, path: str, name: str) -> list[Symbol]:
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    found = snapshot.symbols.definitions(name)
    if not found and name.startswith("$"):
        # `$` starts a JS or PHP name, but in Nim it is an operator: `$distance(p)` calls `distance`.
        found = snapshot.symbols.definitions(name.lstrip("$"))
    return sorted(
        found, key=lambda s: (s.path != path, not s.path.startswith(folder), s.path, s.span.start_line)
    )


def _hit(symbol: Symbol) -> Hit:
    """A definition as a navigation target: at its name, where go-to-definition puts the cursor
    (its span starts at a decorator or a doc comment's wrapper, lines above the name)."""
    return Hit(
        symbol.path, symbol.name_span, 1.0, symbol.qualified, symbol.kind, symbol.signature, symbol.language
    )


def definitions_at(snapshot: Snapshot, path: str, line: int, col: int) -> list[Hit]:
    word = word_at(snapshot, path, line, col)
    return [_hit(symbol) for symbol in _ranked_definitions(snapshot, path, word)] if word else []


def _references_named(snapshot: Snapshot, name: str) -> list[Reference]:
    """Uses of `name`, plain or qualified by a module (Erlang's `kv_util:first` is `kv_util.first`)."""
    qualified = "." + name
    return [
        ref
        for parsed in snapshot.parsed.values()
        for ref in parsed.references
        if ref.name == name or ref.name.endswith(qualified)
    ]


def _may_mean(name: str, symbol: Symbol) -> bool:
    """A qualified use means only a definition of that qualifier: `ets.lookup` is not `kv_store.lookup`."""
    return "." not in name or f".{symbol.qualified}".endswith(f".{name}")


def references_at(snapshot: Snapshot, path: str, line: int, col: int) -> list[Hit]:
    word = word_at(snapshot, path, line, col)
    if not word:
        return []
    refs = sorted(_references_named(snapshot, word), key=lambda r: (r.path != path, r.path, r.span))
    return [
        Hit(
            ref.path,
            ref.span,
            1.0,
            ref.enclosing,
            ref.kind,
            snapshot.line(ref.path, ref.span.start_line).strip(),
        )
        for ref in refs
    ]


def incoming_calls(snapshot: Snapshot, symbol: Symbol) -> list[tuple[Symbol, list[Span]]]:
    """Definitions that call `symbol`, each with the spans of its calls."""
    calls: dict[tuple[str, str], list[Span]] = defaultdict(list)
    for ref in _references_named(snapshot, symbol.name):
        if ref.kind == "call" and ref.enclosing and _may_mean(ref.name, symbol):
            calls[(ref.path, ref.enclosing)].append(ref.span)
    result = []
    for (path, qualified), spans in sorted(calls.items()):
        caller = next((s for s in snapshot.parsed[path].symbols if s.qualified == qualified), None)
        if caller is not None:
            result.append((caller, sorted(spans)))
    return result


def outgoing_calls(snapshot: Snapshot, symbol: Symbol) -> list[tuple[Symbol, list[Span]]]:
    """Definitions that `symbol` calls, resolved by name (same file first), with the call spans."""
    parsed = snapshot.parsed.get(symbol.path)
    if parsed is None:
        return []
    calls: dict[str, list[Span]] = defaultdict(list)
    for ref in parsed.references:
        if ref.kind == "call" and ref.enclosing == symbol.qualified:
            calls[ref.name].append(ref.span)
    result = []
    for name, spans in sorted(calls.items()):
        candidates = _ranked_definitions(snapshot, symbol.path, name.rpartition(".")[2])
        targets = [target for target in candidates if _may_mean(name, target)]
        if targets:
            result.append((targets[0], sorted(spans)))
    return result


def central_symbols(snapshot: Snapshot, limit: int) -> list[Symbol]:
    """The most central definitions of the workspace: what an empty symbol search shows."""
    ranked = sorted(
        snapshot.symbols.all(),
        key=lambda s: (-snapshot.graph.centrality_of(s.path, s.qualified), s.path, s.span.start_line),
    )
    return ranked[:limit]
