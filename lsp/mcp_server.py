"""`fourfold mcp`: the engine as Model Context Protocol tools for coding agents (stdio).

An agent asks in plain words and gets the right code, without choosing between grep, embeddings
and a call graph: `search` runs the same classifier, retrievers and fusion as the language server,
over the same index folder. The other tools pin the intent an agent already knows it wants
(`definition`, `references`, `callers`, `impact`, `similar`), `grep` lists every line matching a
literal, identifier or regex from the same index, and `status` says how far indexing got.

Answers are written for a context window: one line per result, `path:line  symbol  — snippet
[why it ranked]`, cut to a token budget (about 4 characters a token) that the answer says it hit.
The index opens and fills in the background; a question asked meanwhile answers from what is
indexed so far, and says so. Before each answer the disk is re-checked (only files whose size or
mtime changed are re-read), so a file the agent just edited is found as it now is.

This module is a thin adapter (STYLE "one request, one straight path"): arguments in, one engine
call off the event loop, text out. Ranking lives in `fourfold.engine`.
"""

# No `from __future__ import annotations` here: the SDK reads each tool's parameters from its live
# annotations, and the descriptions in them are built from the engine's tables at registration.
import argparse
import json
import logging
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from fourfold.engine import QueryError, SearchError, SearchRequest, Settings, WorkspaceError
from fourfold.engine.model.profiles import INTENTS, MODALITIES, PRESETS

from .grep import GrepOptions, grep
from .warm import WarmIndex, why_empty

log = logging.getLogger(__name__)
T = TypeVar("T")

# Tokens are counted as characters / 4: close enough for code and paths, and needs no tokenizer.
CHARS_PER_TOKEN = 4
DEFAULT_MAX_TOKENS = 2000
MIN_MAX_TOKENS = 200
MAX_MAX_TOKENS = 50_000
SNIPPET_CHARS = 120
# Functions of a decomposed answer shown before its files (the engine ranks up to 20).
FUNCTIONS_SHOWN = 10
# A grep line's text is cut here: a minified line would spend the budget on one match.
GREP_LINE_CHARS = 200
DEFAULT_GREP_LIMIT = 100
MAX_GREP_LIMIT = 5000
# How long a question waits for the index to load from disk before answering "still loading".
OPEN_WAIT_S = 60.0
# How long a question asked during the first index waits for it to finish before answering from part of it.
FIRST_INDEX_WAIT_S = 10.0

INSTRUCTIONS = (
    "Fourfold searches this repository by meaning, text, structure and call graph at once. "
    "Ask `search` in plain words before reaching for grep or reading files one by one: a question "
    "('how does retry work'), an identifier ('parseConfig'), an error message or a quoted string. "
    "When you already know the symbol, `definition`, `references`, `callers` and `impact` answer "
    "directly; `grep` lists every line matching an exact string or regex, from the index. Results are "
    "`path:line symbol — snippet [modalities that found it]`; open the file at that line to read more."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Query = Annotated[str, Field(description="what to look for, in plain words or code")]
Symbol = Annotated[str, Field(description="a symbol name as written in code: `parse_config`, `Session.send`")]
Paths = Annotated[list[str] | None, Field(description="only files matching these globs, e.g. ['src/**', '*.py']")]
Languages = Annotated[list[str] | None, Field(description="only these languages, e.g. ['python', 'typescript']")]
MaxTokens = Annotated[int, Field(description="answer budget in tokens (about 4 characters each); "
                                             "the answer says when it was cut", ge=MIN_MAX_TOKENS,
                                 le=MAX_MAX_TOKENS)]


class Tools:
    """The tool bodies: each validates, runs one engine call in a worker thread, and renders text."""

    def __init__(self, index: WarmIndex) -> None:
        self.index = index

    async def _off_loop(self, function: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(function)

    async def search(self, values: dict[str, Any], max_tokens: int) -> str:
        query = values.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("the query is blank: say what to look for, e.g. 'how are retries scheduled' "
                            "or 'parse_config'")
        try:
            request = SearchRequest.from_mapping({k: v for k, v in values.items() if v is not None})
        except SearchError as error:
            raise ToolError(str(error)) from error
        return await self._off_loop(lambda: self._answer(request, max_tokens))

    def _answer(self, request: SearchRequest, max_tokens: int) -> str:
        try:
            workspace = self.index.workspace(timeout=OPEN_WAIT_S)
            self.index.wait_indexed(FIRST_INDEX_WAIT_S)  # a small repository is done by then: a full answer
            notes = self.index.sync()
            result = workspace.search_dict(request)
        except (TimeoutError, WorkspaceError) as error:
            raise ToolError(str(error)) from error
        except QueryError as error:
            where = f" at position {error.position}" if error.position is not None else ""
            raise ToolError(f"invalid query{where}: {error}") from error
        except SearchError as error:
            raise ToolError(str(error)) from error
        if not result["results"] and self.index.indexed:
            reason = why_empty(workspace, request)
            if reason:
                notes.append(reason)
        return render(result, notes, max_tokens)

    async def grep(self, options: GrepOptions, max_tokens: int) -> str:
        if not options.query.strip():
            raise ToolError("the pattern is blank: give the text to look for, e.g. 'parse_config'")

        def listed() -> str:
            try:
                workspace = self.index.workspace(timeout=OPEN_WAIT_S)
                self.index.wait_indexed(FIRST_INDEX_WAIT_S)
                notes = self.index.sync()
                result = grep(workspace, options)
            except (TimeoutError, WorkspaceError) as error:
                raise ToolError(str(error)) from error
            except QueryError as error:
                where = f" at position {error.position}" if error.position is not None else ""
                raise ToolError(f"invalid pattern{where}: {error}") from error
            return render_grep(result, notes, max_tokens)

        return await self._off_loop(listed)

    async def status(self) -> str:
        def read() -> str:
            try:
                status = self.index.workspace(timeout=0).status()
            except TimeoutError:
                status = {"ready": False, "state": "loading", "root": str(self.index.root)}
            except WorkspaceError as error:
                raise ToolError(str(error)) from error
            phase = self.index.phase
            status["phase"] = {"name": phase.name, "done": phase.done, "total": phase.total}
            if self.index.error:
                status["last_error"] = self.index.error
            return json.dumps(status, ensure_ascii=False, separators=(",", ":"))

        return await self._off_loop(read)


def render(result: dict[str, Any], notes: Sequence[str], max_tokens: int) -> str:
    """A search result as compact lines, cut to `max_tokens`; the cut is said, never silent."""
    budget = max_tokens * CHARS_PER_TOKEN
    ran = [m for m, report in result["modalities"].items() if report.get("ran")]
    rows = result["results"]
    lines = [f"{result['intent']} ({result['confidence']:.2f}) · {result['fusion_strategy']} · "
             f"{', '.join(ran) or 'no retriever ran'} · {len(rows)} result(s) · {result['timings_ms']['total']:.0f} ms"]
    lines += [f"note: {note}" for note in [*notes, *result.get("notes", [])]]
    if not rows:
        lines.append("no results")
    # a pasted issue or traceback: the functions it points at come first, they are where to read
    functions = result.get("functions") or []
    if functions:
        lines.append(f"functions to read first ({min(len(functions), FUNCTIONS_SHOWN)}):")
        lines += [_function_line(row) for row in functions[:FUNCTIONS_SHOWN]]
        lines.append("files:")
    used = sum(len(line) + 1 for line in lines)
    for position, row in enumerate(rows, 1):
        line = _row_line(position, row)
        if used + len(line) + 1 > budget:
            lines.append(f"… {len(rows) - position + 1} more result(s) cut to stay within max_tokens={max_tokens}; "
                         "raise max_tokens, or narrow with paths/languages")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def render_grep(result: dict[str, Any], notes: Sequence[str], max_tokens: int) -> str:
    """Every listed line as `path:line: text  (in Definition)`, cut to `max_tokens`; what the limit or the
    budget left out is counted in a last line, so an agent knows whether it saw every occurrence."""
    budget = max_tokens * CHARS_PER_TOKEN
    rows = result["lines"]
    lines = [f"{result['matches']} matching line(s) in {result['files']} file(s) · {result['kind']}"]
    lines += [f"note: {note}" for note in [*notes, *result["notes"]]]
    used = sum(len(line) + 1 for line in lines)
    shown = 0
    for path, number, text, symbol in rows:
        code = text.strip()
        inside = f"  (in {symbol})" if symbol else ""
        line = f"{path}:{number}: {code if len(code) <= GREP_LINE_CHARS else code[: GREP_LINE_CHARS - 1] + '…'}{inside}"
        if used + len(line) + 1 > budget:
            break
        lines.append(line)
        used += len(line) + 1
        shown += 1
    left = result["matches"] - shown
    if left:
        files = len({row[0] for row in rows[:shown]})
        lines.append(f"+{left} more matching line(s) not shown ({shown} of {result['matches']}, {files} of "
                     f"{result['files']} file(s)); raise limit or max_tokens, or narrow with paths/languages")
    return "\n".join(lines)


def _function_line(row: dict[str, Any]) -> str:
    why = ", ".join(row.get("why") or ()) or "its file"
    return f"- {row['path']}:{row['range']['start']['line'] + 1}  {row['symbol']} ({row['kind']}) [{why}]"


def _row_line(position: int, row: dict[str, Any]) -> str:
    line = row["selection"]["start"]["line"] + 1  # where an editor lands: the name, not the doc comment above
    symbol = f"  {row['symbol']}" if row.get("symbol") else ""
    kind = f" ({row['kind']})" if row.get("kind") and row.get("symbol") else ""
    snippet = " ".join(str(row.get("snippet") or "").split())
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1] + "…"
    ranks = row.get("ranks") or {}
    order = sorted(row.get("contributions") or {}, key=lambda m: -row["contributions"][m])
    why = ", ".join(f"{m} #{ranks[m] + 1}" if m in ranks else m for m in order)
    extra = f" +{len(row['matches'])} more in file" if row.get("matches") else ""
    # An agent must see a guess as a guess: a fuzzy suggestion for a name that does not exist, or a
    # caller that only shares the name.
    flags = "".join(flag for flag, on in ((" demoted", row.get("demoted")), (" approximate", row.get("approximate")),
                                          (" name only", row.get("resolved") is False)) if on)
    # Impact and callers: how the result depends on the target, so an agent can follow the chain.
    via = f" via {' → '.join(row['via'])}" if row.get("via") else ""
    return f"{position}. {row['path']}:{line}{symbol}{kind}  — {snippet} [{why}{flags}]{via}{extra}"


def build_server(index: WarmIndex) -> MCPServer:
    """The MCP server with Fourfold's tools registered; each description says when an agent should use it."""
    tools = Tools(index)
    server: MCPServer = MCPServer("fourfold", instructions=INSTRUCTIONS, version=_version())
    intents, presets, modes = ", ".join(INTENTS), ", ".join(PRESETS), ", ".join(MODALITIES)

    @server.tool(
        name="search", title="Search the code", annotations=READ_ONLY, structured_output=False,
        description=(
            "Search this repository the way you would ask a colleague. Use it with plain words BEFORE grep "
            "or opening files: a question ('how does the retry backoff work', 'where are sessions "
            "expired'), an identifier ('parseConfig', 'Session.send'), an error message or a "
            "\"quoted string\", a regex ('re:timeout \\d+'), or a whole issue or traceback pasted as it is "
            "(it is split into its parts and the answer lists the functions to read first). Fourfold "
            "classifies the question and runs the right retrievers (semantic, text, structural, graph), "
            "fused into one ranked list. "
            "Each line: path:line symbol — snippet [the retrievers that found it, with their ranks]."),
    )
    async def search(
        query: Query,
        intent: Annotated[str | None, Field(description=f"pin the intent instead of classifying: {intents}")] = None,
        modes: Annotated[list[str] | None, Field(description=f"only these retrievers: {modes}")] = None,
        paths: Paths = None,
        languages: Languages = None,
        limit: Annotated[int, Field(description="most results to return", ge=1, le=200)] = 10,
        preset: Annotated[str | None, Field(description=f"{presets}: quick is semantic only, thorough runs "
                                                        "all four retrievers")] = None,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
    ) -> str:
        return await tools.search({"query": query, "intent": intent, "modes": modes, "paths": paths,
                                   "languages": languages, "limit": limit, "preset": preset}, max_tokens)

    @server.tool(
        name="definition", title="Go to definition", annotations=READ_ONLY, structured_output=False,
        description=("Where a symbol is defined (function, class, method, type, constant), by name. Use it "
                     "when you know the name and want its definition; for a description of behaviour use "
                     "`search`."),
    )
    async def definition(symbol: Symbol, paths: Paths = None, languages: Languages = None,
                         limit: Annotated[int, Field(description="most results", ge=1, le=200)] = 5,
                         max_tokens: MaxTokens = DEFAULT_MAX_TOKENS) -> str:
        return await tools.search({"query": symbol, "intent": "find_definition", "paths": paths,
                                   "languages": languages, "limit": limit}, max_tokens)

    @server.tool(
        name="references", title="Find references", annotations=READ_ONLY, structured_output=False,
        description=("Every place a symbol is used (calls, imports, mentions), from the call graph and the "
                     "text index together. Use it before renaming or changing a signature; for call sites "
                     "only, use `callers`."),
    )
    async def references(symbol: Symbol, paths: Paths = None, languages: Languages = None,
                         limit: Annotated[int, Field(description="most results", ge=1, le=200)] = 20,
                         max_tokens: MaxTokens = DEFAULT_MAX_TOKENS) -> str:
        return await tools.search({"query": symbol, "intent": "find_references", "modes": ["graph", "text"],
                                   "paths": paths, "languages": languages, "limit": limit}, max_tokens)

    @server.tool(
        name="callers", title="Who calls this", annotations=READ_ONLY, structured_output=False,
        description=("The functions that call a symbol, from the call graph (each line is a call site and "
                     "the function it is in). Use it to follow control flow upwards."),
    )
    async def callers(symbol: Symbol, paths: Paths = None, languages: Languages = None,
                      limit: Annotated[int, Field(description="most results", ge=1, le=200)] = 20,
                      max_tokens: MaxTokens = DEFAULT_MAX_TOKENS) -> str:
        return await tools.search({"query": symbol, "intent": "find_references", "modes": ["graph"],
                                   "paths": paths, "languages": languages, "limit": limit}, max_tokens)

    @server.tool(
        name="impact", title="Blast radius", annotations=READ_ONLY, structured_output=False,
        description=("What depends on a symbol, directly and transitively (callers of callers, importers): "
                     "what may break if you change it. Use it before editing a shared function or type."),
    )
    async def impact(symbol: Symbol, paths: Paths = None, languages: Languages = None,
                     limit: Annotated[int, Field(description="most results", ge=1, le=200)] = 20,
                     max_tokens: MaxTokens = DEFAULT_MAX_TOKENS) -> str:
        return await tools.search({"query": symbol, "intent": "impact_analysis", "paths": paths,
                                   "languages": languages, "limit": limit}, max_tokens)

    @server.tool(
        name="similar", title="Find similar code", annotations=READ_ONLY, structured_output=False,
        description=("Code that does the same thing as a snippet, a symbol or a description: duplicates to "
                     "reuse or to fix together. Pass code or words."),
    )
    async def similar(query: Annotated[str, Field(description="a code snippet, a symbol name or a description")],
                      paths: Paths = None, languages: Languages = None,
                      limit: Annotated[int, Field(description="most results", ge=1, le=200)] = 10,
                      max_tokens: MaxTokens = DEFAULT_MAX_TOKENS) -> str:
        return await tools.search({"query": query, "intent": "find_similar", "paths": paths,
                                   "languages": languages, "limit": limit}, max_tokens)

    @server.tool(
        name="grep", title="Every matching line", annotations=READ_ONLY, structured_output=False,
        description=(
            "Every line that contains an exact string or identifier, or matches a regex ('/timeout \\d+/' or "
            "'re:timeout \\d+', RE2 syntax), like ripgrep but answered from the index and current with your "
            "edits. Use it when you need ALL occurrences (before a rename, to count uses, to check none is "
            "left), not the best few: to find where something is or how it works, ask `search`. A pattern "
            "in lowercase only ignores case. Each line: path:line: text  (in the definition it is part of), "
            "in file order."),
    )
    async def grep_tool(
        pattern: Annotated[str, Field(description="the text, identifier, or /regex/ to look for")],
        paths: Paths = None,
        languages: Languages = None,
        limit: Annotated[int, Field(description="most lines to list", ge=1, le=MAX_GREP_LIMIT)] = DEFAULT_GREP_LIMIT,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        ignore_case: Annotated[bool, Field(description="ignore case even when the pattern has capitals")] = False,
        word: Annotated[bool, Field(description="whole words only, as rg -w")] = False,
        fixed: Annotated[bool, Field(description="the pattern is plain text even if it looks like /regex/")] = False,
    ) -> str:
        return await tools.grep(GrepOptions(pattern, tuple(paths or ()), tuple(languages or ()), limit=limit,
                                            fixed=fixed, ignore_case=ignore_case, word=word), max_tokens)

    @server.tool(
        name="status", title="Index status", annotations=READ_ONLY, structured_output=False,
        description=("How far indexing got: files, symbols, chunks, embedded chunks, the semantic backend and "
                     "each retriever's readiness, as JSON. Use it when results look incomplete."),
    )
    async def status() -> str:
        return await tools.status()

    return server


def _version() -> str:
    try:
        return metadata.version("fourfold")
    except metadata.PackageNotFoundError:
        return "0"


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Serve MCP on stdio over the index of `args.root` until the client closes the pipe."""
    index = WarmIndex(Path(args.root), settings, embed=not args.no_embed)
    index.start()
    try:
        build_server(index).run("stdio")
    finally:
        index.close()
    return 0


__all__ = ["build_server", "render", "render_grep", "run"]
