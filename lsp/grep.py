"""`fourfold grep` and the MCP `grep` tool: every line matching a literal, identifier or regex, as rg lists them.

The engine lists the matching lines from its index (`Workspace.every_line`: trigram candidates
confirmed by RE2), so a search costs its matches, not a scan of the repository. This module picks
what a client prints (a cap per file, a cap in all, counts or file names) on the side that holds the
index, so a daemon sends only what is printed and reads the text of only those lines.

Nothing of the engine is imported at module level: the CLI builds `GrepOptions` on the daemon path,
which must not pay for the engine's imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from fourfold.engine import Workspace

Mode = Literal["lines", "count", "files"]
MODES: tuple[Mode, ...] = ("lines", "count", "files")
FLAGS = ("fixed", "ignore_case", "case_sensitive", "word")
# RE2's metacharacters: escaping only these keeps the pattern's other bytes (spaces, quotes) as they are.
_REGEX_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")


@dataclass(frozen=True)
class GrepOptions:
    """One grep as a client asks it: the pattern, the filters, and what to list.

    `max_count` caps the lines of each file (rg's --max-count), `limit` the lines in all; both None
    list every line the engine found. `mode` lists lines, per-file counts, or the files only. The
    flags are rg's: `fixed` reads the pattern as text even when it looks like `/regex/` (-F),
    `ignore_case` and `case_sensitive` override smart case (-i, -s), `word` wants whole words (-w).
    """

    query: str
    paths: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    max_count: int | None = None
    limit: int | None = None
    mode: Mode = "lines"
    fixed: bool = False
    ignore_case: bool = False
    case_sensitive: bool = False
    word: bool = False

    def to_mapping(self) -> dict[str, Any]:
        """The options as JSON for the daemon's wire."""
        return {**asdict(self), "paths": list(self.paths), "languages": list(self.languages)}

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> GrepOptions:
        """Read the wire form back; a mode or cap the client could not have sent is a ValueError."""
        mode = values.get("mode", "lines")
        if mode not in MODES:
            raise ValueError(f"unknown grep mode {mode!r}")
        flags = {name: values.get(name, False) for name in FLAGS}
        if not all(isinstance(flag, bool) for flag in flags.values()):
            raise ValueError(f"the grep flags {', '.join(FLAGS)} must be true or false")
        options = cls(str(values["query"]), tuple(values.get("paths") or ()), tuple(values.get("languages") or ()),
                      values.get("max_count"), values.get("limit"), mode, **flags)
        if options.ignore_case and options.case_sensitive:
            raise ValueError("ignore_case and case_sensitive contradict each other")
        if any(cap is not None and (not isinstance(cap, int) or cap < 1) for cap in (options.max_count, options.limit)):
            raise ValueError("max_count and limit must be positive integers")
        return options


def grep(workspace: Workspace, options: GrepOptions) -> dict[str, Any]:
    """The answer as JSON: totals, what the engine says about a cut-short scan, and the lines, counts or files.

    Each line is [path, 1-based line, text, the innermost definition around it or None], so an agent
    sees which function an occurrence is in without opening the file.

    Lines come in file order (path, then line), as rg prints them; `matches` and `files` count every
    matching line and file found, before the caps. Raises QueryError for a pattern the engine refuses.
    """
    found = workspace.every_line(engine_pattern(options), page=0, paths=options.paths or None,
                                 languages=options.languages or None)
    total = found.count
    counts = found.file_counts()
    result: dict[str, Any] = {
        "query": options.query, "kind": found.kind, "matches": total,
        "files": len(counts), "truncated": found.truncated, "reason": found.reason,
        "notes": _notes(workspace, options, found.reason, bool(total)),
    }
    if options.mode == "count":
        capped = options.max_count or total
        result["counts"] = [[path, min(count, capped)] for path, count in counts.items()]
    elif options.mode == "files":
        result["paths"] = list(counts)
    else:
        shown, kept = found.in_file_order(options.max_count, options.limit)
        rows = zip(shown, found.texts(shown), found.definitions(shown), strict=True)
        result["lines"] = [[path, line + 1, text, symbol] for (path, line), text, symbol in rows]
        result["beyond_max_count"] = total - kept
        result["more"] = kept - len(shown)
    return result


def engine_pattern(options: GrepOptions) -> str:
    """The pattern in the index's text-query syntax that means what the rg flags ask of `options.query`.

    With no flag the syntax stands as written. `fixed` alone quotes the text, which the syntax takes
    verbatim. A case or word flag needs a regex: the text (or the regex the pattern already is) in a
    group with RE2's inline case flag, and for words a non-word character or the line's edge on each
    side, as rg's -w builds it (so `-w 'load(path)'` matches, which `\\b` around it would not).
    Raises QueryError for a pattern the engine refuses.
    """
    if not (options.fixed or options.ignore_case or options.case_sensitive or options.word):
        return options.query
    if options.fixed and not (options.ignore_case or options.case_sensitive or options.word):
        return f'"{options.query}"'
    body = _regex_body(options.query, options.fixed)
    if options.word:
        body = rf"(?:^|\W)(?:{body})(?:$|\W)"
    if options.ignore_case:
        body = f"(?i:{body})"
    elif options.case_sensitive:
        body = f"(?-i:{body})"
    return f"re:{body}"


def _regex_body(query: str, fixed: bool) -> str:
    """The pattern as a regex: a regex as it is, any literal or identifier with RE2's metacharacters escaped."""
    if fixed:
        return _REGEX_SPECIAL.sub(r"\\\1", query)
    from fourfold.engine.index.textsearch import parse_text_query

    parsed = parse_text_query(query)
    return parsed.pattern if parsed.kind == "regex" else _REGEX_SPECIAL.sub(r"\\\1", parsed.pattern)


def _notes(workspace: Workspace, options: GrepOptions, reason: str, matched: bool) -> list[str]:
    """What the answer must say about itself: a scan cut short, or why nothing can match at all."""
    from fourfold.engine import SearchRequest
    from fourfold.engine.index.textsearch import REASON_LIMIT, REASON_TIME
    from fourfold.engine.retrieve.text import MAX_LINES

    from .warm import why_empty

    notes = []
    if reason == REASON_LIMIT:
        notes.append(f"stopped at {MAX_LINES:,} matching lines; narrow the search with paths or languages")
    elif reason == REASON_TIME:
        notes.append("the scan ran out of its time budget; later files were not searched")
    if not matched:
        request = SearchRequest(options.query, paths=options.paths or None, languages=options.languages or None)
        empty = why_empty(workspace, request)
        if empty:
            notes.append(empty)
    return notes


__all__ = ["FLAGS", "MODES", "GrepOptions", "engine_pattern", "grep"]
