"""Engine answers as LSP objects: what the editor lists, jumps to and draws, in its own columns.

Every position leaving the server passes through here, so a result on a line with non-ASCII text
lands on the right character in VS Code (UTF-16) as well as in a UTF-8 client. Nothing here
ranks or filters: the order and the set are the engine's.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from fourfold.engine import Hit, Span, Symbol, Workspace

from .kinds import symbol_kind
from .positions import LineSource, convert_result, split_lines

# A text hit has no definition name; its snippet stands in, cut to what fits in a picker row.
SNIPPET_NAME_LENGTH = 80


def line_source(workspace: Workspace) -> LineSource:
    """Lines as the engine indexed them (the unsaved buffer when there is one), for one response."""
    snapshot = workspace.snapshot()
    return LineSource(snapshot.text)


def lsp_range(span: Span, path: str, lines: LineSource, encoding: str) -> types.Range:
    start = lines.to_client(path, span.start_line, span.start_col, encoding)
    end = lines.to_client(path, span.end_line, span.end_col, encoding)
    return types.Range(start=types.Position(span.start_line, start), end=types.Position(span.end_line, end))


def uri_of(workspace: Workspace, path: str) -> str:
    return (workspace.root / path).as_uri()


def location(workspace: Workspace, path: str, span: Span, lines: LineSource, encoding: str) -> types.Location:
    return types.Location(uri=uri_of(workspace, path), range=lsp_range(span, path, lines, encoding))


def hit_locations(workspace: Workspace, hits: list[Hit], encoding: str) -> list[types.Location]:
    """Locations of navigation hits, each place once, in the engine's order."""
    lines = line_source(workspace)
    seen: set[tuple[str, Span]] = set()
    result = []
    for hit in hits:
        if (hit.path, hit.span) not in seen:
            seen.add((hit.path, hit.span))
            result.append(location(workspace, hit.path, hit.span, lines, encoding))
    return result


def result_rows(workspace: Workspace, rows: list[dict[str, Any]], encoding: str) -> list[dict[str, Any]]:
    """`fourfold.search` result rows with their ranges in the client's encoding, each with the
    `selection` an editor puts the cursor on (see `selection_span`)."""
    lines = line_source(workspace)
    snapshot = workspace.snapshot()
    converted = []
    for row in rows:
        symbol = snapshot.symbol(row["path"], row.get("symbol"))
        span = selection_span(row, symbol)
        out = convert_result(row, lines, encoding)
        out["selection"] = range_json(lsp_range(span, row["path"], lines, encoding))
        converted.append(out)
    return converted


def _span_of(value: dict[str, dict[str, int]]) -> Span:
    return Span(value["start"]["line"], value["start"]["character"], value["end"]["line"], value["end"]["character"])


def range_json(value: types.Range) -> dict[str, dict[str, int]]:
    return {"start": {"line": value.start.line, "character": value.start.character},
            "end": {"line": value.end.line, "character": value.end.character}}


def _inside(inner: Span, outer: Span) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) <= (outer.end_line,
                                                                                          outer.end_col)


def selection_span(row: dict[str, Any], symbol: Symbol | None) -> Span:
    """Where Ctrl+T puts the cursor for a result, in the engine's code point columns.

    A result that is a definition (its range holds the name of its symbol) lands on that name, as
    pyright and clangd do: never on a use of the name, which the file's other `matches` may list
    first when the name is used above its definition. A text hit lands on its own words; a chunk
    with no name inside it, on the first of its matches that it contains, else on its start.
    """
    whole = _span_of(row["range"])
    if symbol is not None and _inside(symbol.name_span, whole):
        return symbol.name_span
    if whole.start_line == whole.end_line:
        return whole
    matches = [_span_of(match) for match in row.get("matches") or []]
    return next((match for match in matches if _inside(match, whole)), Span(whole.start_line, whole.start_col,
                                                                             whole.start_line, whole.start_col))


def _short_name(row: dict[str, Any]) -> str:
    symbol = row.get("symbol")
    if symbol:
        return str(symbol).rsplit(".", 1)[-1]
    snippet = next((line.strip() for line in split_lines(row.get("snippet") or "") if line.strip()), "")
    return snippet[:SNIPPET_NAME_LENGTH] or row["path"]


def workspace_symbol(row: dict[str, Any]) -> types.WorkspaceSymbol:
    """One converted `fourfold.search` row as a Ctrl+T entry: name, kind, container and location.

    The location is the row's `selection` (a definition's name, a text hit's words; see
    `selection_span`), not the whole result range, so picking an entry puts the cursor on what was
    searched for, as pyright does.
    """
    value = row.get("selection") or row["range"]
    return types.WorkspaceSymbol(
        name=_short_name(row),
        kind=symbol_kind(row.get("kind")),
        container_name=row.get("container") or row["path"],
        location=types.Location(
            uri=row["uri"],
            range=types.Range(
                start=types.Position(value["start"]["line"], value["start"]["character"]),
                end=types.Position(value["end"]["line"], value["end"]["character"]),
            ),
        ),
    )


def symbol_entry(workspace: Workspace, symbol: Symbol, lines: LineSource,
                 encoding: str) -> types.WorkspaceSymbol:
    """A definition as a Ctrl+T entry (the empty query lists the most central ones)."""
    return types.WorkspaceSymbol(
        name=symbol.name,
        kind=symbol_kind(symbol.kind),
        container_name=symbol.container or symbol.path,
        location=location(workspace, symbol.path, symbol.name_span, lines, encoding),
    )


def call_item(workspace: Workspace, symbol: Symbol, lines: LineSource,
              encoding: str) -> types.CallHierarchyItem:
    """A call hierarchy node; `data` keeps the engine's coordinates, so follow-ups need no re-conversion."""
    name_span = symbol.name_span
    return types.CallHierarchyItem(
        name=symbol.name,
        kind=symbol_kind(symbol.kind),
        uri=uri_of(workspace, symbol.path),
        range=lsp_range(symbol.span, symbol.path, lines, encoding),
        selection_range=lsp_range(name_span, symbol.path, lines, encoding),
        detail=symbol.signature or symbol.container or symbol.path,
        data={"path": symbol.path, "line": name_span.start_line, "col": name_span.start_col,
              "qualified": symbol.qualified or symbol.name},
    )


def incoming(workspace: Workspace, calls: list[tuple[Symbol, list[Span]]],
             encoding: str) -> list[types.CallHierarchyIncomingCall]:
    lines = line_source(workspace)
    return [
        types.CallHierarchyIncomingCall(
            from_=call_item(workspace, caller, lines, encoding),
            from_ranges=[lsp_range(span, caller.path, lines, encoding) for span in spans],
        )
        for caller, spans in calls
    ]


def outgoing(workspace: Workspace, symbol: Symbol, calls: list[tuple[Symbol, list[Span]]],
             encoding: str) -> list[types.CallHierarchyOutgoingCall]:
    lines = line_source(workspace)
    return [
        types.CallHierarchyOutgoingCall(
            to=call_item(workspace, callee, lines, encoding),
            from_ranges=[lsp_range(span, symbol.path, lines, encoding) for span in spans],
        )
        for callee, spans in calls
    ]


def merged_index(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """The `index` field for several folders, from the states their answers were given in.

    Taken from the answers rather than from a status call: a status counts every chunk of the
    index, which is too slow to repeat on every keystroke of Ctrl+T.
    """
    states = {answer["index"]["state"] for answer in answers}
    return {
        "ready": all(answer["index"]["ready"] for answer in answers),
        "state": "error" if "error" in states else "ready" if states == {"ready"} else "indexing",
        "files": sum(answer["index"]["files"] for answer in answers),
    }


def merge_answers(answers: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """One `fourfold.search` answer from several folders' answers: rows by score, reports summed.

    Each folder ran the same request with the same weights, so fused scores are comparable; the
    header (intent, route) is the first folder's, as every folder classified the same query.
    """
    if len(answers) == 1:
        return answers[0]
    first = answers[0]
    modalities: dict[str, dict[str, Any]] = {}
    for answer in answers:
        for name, report in answer["modalities"].items():
            merged = modalities.setdefault(name, {**report, "hits": 0, "ms": 0.0, "ran": False})
            merged["hits"] += report.get("hits", 0)
            merged["ms"] = max(merged["ms"], report.get("ms", 0.0))
            merged["ran"] = merged["ran"] or report.get("ran", False)
    rows = sorted((row for answer in answers for row in answer["results"]), key=lambda row: -row["score"])
    return {
        **first,
        "modalities": modalities,
        "results": rows[:limit],
        "timings_ms": {"total": max(answer["timings_ms"].get("total", 0.0) for answer in answers)},
        "notes": [note for answer in answers for note in answer.get("notes", [])],
        "index": merged_index(answers),
        "partial": any(answer.get("partial", False) for answer in answers),
    }
