"""Engine answers as LSP objects: what the editor lists, jumps to and draws, in its own columns.

Every position leaving the server passes through here, so a result on a line with non-ASCII text
lands on the right character in VS Code (UTF-16) as well as in a UTF-8 client. Columns are
converted on the snapshot the engine read for the answer (`Result.source`, or the snapshot a
navigation request was answered from), never on a newer one. Nothing here ranks, filters or adds
fields: the order, the set and the shape are the engine's (fourfold.engine.Answer).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from fourfold.engine import Answer, Hit, Result, Snapshot, Span, Symbol

from .kinds import symbol_kind
from .positions import UTF32, LineSource, split_lines

# A text hit has no definition name; its snippet stands in, cut to what fits in a picker row.
SNIPPET_NAME_LENGTH = 80


class ClientColumns:
    """The engine's code point columns in the client's encoding, for one response.

    Lines are read once per snapshot and file (converting 100 results must not re-split a file 100
    times); each snapshot is held while the response is built, so no other can take its id.
    """

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._sources: dict[int, tuple[Snapshot, LineSource]] = {}

    def lines(self, snapshot: Snapshot) -> LineSource:
        """Lines as `snapshot` indexed them (the unsaved buffer when there is one)."""
        held = self._sources.get(id(snapshot))
        if held is None:
            held = self._sources[id(snapshot)] = (snapshot, LineSource(snapshot.text))
        return held[1]

    def __call__(self, source: Snapshot, path: str, line: int, column: int) -> int:
        return self.lines(source).to_client(path, line, column, self.encoding)

    def range(self, snapshot: Snapshot, path: str, span: Span) -> types.Range:
        lines = self.lines(snapshot)
        start = lines.to_client(path, span.start_line, span.start_col, self.encoding)
        end = lines.to_client(path, span.end_line, span.end_col, self.encoding)
        return types.Range(start=types.Position(span.start_line, start), end=types.Position(span.end_line, end))

    def location(self, snapshot: Snapshot, path: str, span: Span) -> types.Location:
        return types.Location(uri=(snapshot.root / path).as_uri(), range=self.range(snapshot, path, span))


def answer_json(answer: Answer, encoding: str) -> dict[str, Any]:
    """The `fourfold.search` result object with every range in the client's encoding."""
    return answer.to_dict(None if encoding == UTF32 else ClientColumns(encoding))


def hit_locations(snapshot: Snapshot, hits: list[Hit], encoding: str) -> list[types.Location]:
    """Locations of navigation hits found in `snapshot`, each place once, in the engine's order."""
    columns = ClientColumns(encoding)
    seen: set[tuple[str, Span]] = set()
    result = []
    for hit in hits:
        if (hit.path, hit.span) not in seen:
            seen.add((hit.path, hit.span))
            result.append(columns.location(snapshot, hit.path, hit.span))
    return result


def _short_name(result: Result) -> str:
    if result.symbol:
        return result.symbol.rsplit(".", 1)[-1]
    snippet = next((line.strip() for line in split_lines(result.snippet) if line.strip()), "")
    return snippet[:SNIPPET_NAME_LENGTH] or result.path


def workspace_symbol(result: Result, columns: ClientColumns) -> types.WorkspaceSymbol:
    """One `fourfold.search` result as a Ctrl+T entry: name, kind, container and location.

    The location is the result's `selection` (a definition's name, a text hit's words), not the whole
    result range, so picking an entry puts the cursor on what was searched for, as pyright does.
    """
    return types.WorkspaceSymbol(
        name=_short_name(result),
        kind=symbol_kind(result.kind),
        container_name=result.container or result.path,
        location=types.Location(uri=result.uri, range=columns.range(result.source, result.path, result.selection)),
    )


def symbol_entry(snapshot: Snapshot, symbol: Symbol, columns: ClientColumns) -> types.WorkspaceSymbol:
    """A definition as a Ctrl+T entry (the empty query lists the most central ones)."""
    return types.WorkspaceSymbol(
        name=symbol.name,
        kind=symbol_kind(symbol.kind),
        container_name=symbol.container or symbol.path,
        location=columns.location(snapshot, symbol.path, symbol.name_span),
    )


def call_item(snapshot: Snapshot, symbol: Symbol, columns: ClientColumns) -> types.CallHierarchyItem:
    """A call hierarchy node; `data` keeps the engine's coordinates, so follow-ups need no re-conversion."""
    name_span = symbol.name_span
    return types.CallHierarchyItem(
        name=symbol.name,
        kind=symbol_kind(symbol.kind),
        uri=(snapshot.root / symbol.path).as_uri(),
        range=columns.range(snapshot, symbol.path, symbol.span),
        selection_range=columns.range(snapshot, symbol.path, name_span),
        detail=symbol.signature or symbol.container or symbol.path,
        data={"path": symbol.path, "line": name_span.start_line, "col": name_span.start_col,
              "qualified": symbol.qualified or symbol.name},
    )


def incoming(snapshot: Snapshot, calls: list[tuple[Symbol, list[Span]]],
             encoding: str) -> list[types.CallHierarchyIncomingCall]:
    columns = ClientColumns(encoding)
    return [
        types.CallHierarchyIncomingCall(
            from_=call_item(snapshot, caller, columns),
            from_ranges=[columns.range(snapshot, caller.path, span) for span in spans],
        )
        for caller, spans in calls
    ]


def outgoing(snapshot: Snapshot, symbol: Symbol, calls: list[tuple[Symbol, list[Span]]],
             encoding: str) -> list[types.CallHierarchyOutgoingCall]:
    columns = ClientColumns(encoding)
    return [
        types.CallHierarchyOutgoingCall(
            to=call_item(snapshot, callee, columns),
            from_ranges=[columns.range(snapshot, symbol.path, span) for span in spans],
        )
        for callee, spans in calls
    ]
