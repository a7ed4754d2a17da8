"""The `fourfold` command: index, search, status, eval and serve from a terminal or a script.

Scripts and coding agents get the same engine as editors: `--json` prints exactly the object of
`fourfold.search` (DESIGN §7). Every search first re-checks sizes and mtimes, so results reflect
the files on disk; a root with no index is indexed first, with progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from fourfold.engine import (
    QueryError,
    SearchError,
    SearchRequest,
    Settings,
    Workspace,
    WorkspaceError,
    parse_settings,
)
from fourfold.engine.settings import BACKENDS
from fourfold.lsp.eval_cli import add_eval_parser

BAR_WIDTH = 30
MODALITY_LETTERS = {"semantic": "S", "text": "T", "structural": "St", "graph": "G"}


class ProgressBar:
    """A one-line progress bar on stderr when it is a terminal; silent otherwise (logs stay clean)."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream = stream
        self.label = label
        self.enabled = stream.isatty()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        filled = BAR_WIDTH * done // max(total, 1)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done:,}/{total:,} files")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _settings(args: argparse.Namespace) -> Settings:
    values: dict[str, Any] = {}
    if getattr(args, "index_dir", None):
        values["index_dir"] = args.index_dir
    if getattr(args, "backend", None):
        values["semantic_backend"] = args.backend
    if getattr(args, "exclude", None):
        values["exclude"] = list(args.exclude)
    settings, errors = parse_settings(values)
    for error in errors:
        print(f"fourfold: {error}", file=sys.stderr)
    return settings


def _open(args: argparse.Namespace) -> Workspace:
    workspace = Workspace(Path(args.root), _settings(args), background=False)
    if workspace.store.rebuilt_reason:
        print(f"fourfold: {workspace.store.rebuilt_reason}", file=sys.stderr)
    return workspace


def cmd_index(args: argparse.Namespace) -> int:
    workspace = _open(args)
    try:
        stats = workspace.refresh(ProgressBar(sys.stderr, "Indexing"))
        status = workspace.status()
        print(f"Indexed {status['files']:,} files ({stats.indexed:,} re-indexed, {stats.removed:,} removed, "
              f"{stats.unchanged:,} unchanged), {status['symbols']:,} symbols, {status['chunks']:,} chunks "
              f"in {stats.seconds:.2f} s; index at {workspace.store.folder}")
        if not args.no_embed:
            workspace.embed_pending(progress=ProgressBar(sys.stderr, "Embedding"))
    finally:
        workspace.close()
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    workspace = _open(args)
    try:
        workspace.refresh(ProgressBar(sys.stderr, "Indexing"))
        if not args.no_embed:  # cached vectors are read, only new or changed chunks are embedded
            workspace.embed_pending(progress=ProgressBar(sys.stderr, "Embedding"))
        values = {
            "query": args.query, "limit": args.limit, "preset": args.preset, "intent": args.intent,
            "modes": args.modes.split(",") if args.modes else None, "paths": args.paths,
            "languages": args.languages.split(",") if args.languages else None,
        }
        result = workspace.search_dict(SearchRequest.from_mapping({k: v for k, v in values.items() if v is not None}))
    finally:
        workspace.close()
    if args.json:
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_result(result, sys.stdout)
    return 0


def _bar(value: float, top: float) -> str:
    cells = 0 if top <= 0 else round(6 * value / top)
    return "█" * cells + "·" * (6 - cells)


def _print_result(result: dict[str, Any], out: TextIO) -> None:
    ran = [m for m, report in result["modalities"].items() if report["ran"]]
    out.write(f"{result['intent']} ({result['confidence']:.2f}, rule {result['rule']}) · "
              f"{result['fusion_strategy']} · preset {result['preset']} · ran {', '.join(ran) or 'nothing'} · "
              f"{result['timings_ms']['total']:.1f} ms\n")
    for note in result.get("notes", []):
        out.write(f"  note: {note}\n")
    if not result["results"]:
        out.write("no results\n")
    top = max((max(r["contributions"].values(), default=0.0) for r in result["results"]), default=0.0)
    for position, row in enumerate(result["results"], 1):
        line = row["range"]["start"]["line"] + 1
        symbol = f"  {row['symbol']}" if row["symbol"] else ""
        flags = (" approximate" if row.get("approximate") else "") + (" demoted" if row["demoted"] else "") + (
            f" boost×{row['boost']:.2f}" if row["boost"] > 1 else "")
        out.write(f"{position:>3}. {row['path']}:{line}{symbol}{flags}\n")
        bars = "  ".join(f"{MODALITY_LETTERS[m]} {_bar(row['contributions'].get(m, 0.0), top)}" for m in ran)
        out.write(f"     {bars}\n")
        if row["snippet"]:
            out.write(f"     {row['snippet'][:160]}\n")


def cmd_status(args: argparse.Namespace) -> int:
    workspace = _open(args)
    try:
        workspace.refresh(ProgressBar(sys.stderr, "Indexing"))
        if not args.no_embed:
            workspace.embed_pending(progress=ProgressBar(sys.stderr, "Embedding"))
        print(json.dumps(workspace.status(), indent=2))
    finally:
        workspace.close()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from fourfold.lsp.server import run

    return run(tcp_port=args.tcp, log_file=args.log_file, verbosity=args.verbose)


def _common(parser: argparse.ArgumentParser, root_positional: bool = False) -> None:
    if root_positional:
        parser.add_argument("root", nargs="?", default=".", help="workspace folder (default: .)")
    else:
        parser.add_argument("--root", default=".", help="workspace folder (default: .)")
    parser.add_argument("--index-dir", help="where to keep the index (default: the user cache dir)")
    parser.add_argument("--backend", choices=BACKENDS, help="semantic backend (default: local)")
    parser.add_argument("--exclude", action="append", help="glob to leave out (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fourfold", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    commands = parser.add_subparsers(dest="command", required=True)

    index = commands.add_parser("index", help="index a folder (incremental)")
    _common(index, root_positional=True)
    index.add_argument("--no-embed", action="store_true", help="skip embeddings (text, structure and graph only)")
    index.set_defaults(run=cmd_index)

    search = commands.add_parser("search", help="search a folder")
    search.add_argument("query")
    _common(search)
    search.add_argument("--json", action="store_true", help="print the fourfold.search result object")
    search.add_argument("--limit", type=int, default=20)
    search.add_argument("--preset", choices=("quick", "default", "thorough"))
    search.add_argument("--modes", help="comma-separated modalities: semantic,text,structural,graph")
    search.add_argument("--intent", help="pin the intent instead of classifying the query")
    search.add_argument("--paths", action="append", help="only results under this glob (repeatable)")
    search.add_argument("--languages", help="comma-separated language ids")
    search.add_argument("--no-embed", action="store_true", help="do not embed new chunks before searching")
    search.set_defaults(run=cmd_search)

    add_eval_parser(commands)

    status = commands.add_parser("status", help="bring the index up to date and print its status as JSON")
    _common(status)
    status.add_argument("--no-embed", action="store_true", help="do not embed new chunks first")
    status.set_defaults(run=cmd_status)

    serve = commands.add_parser("serve", help="run the language server on stdio")
    serve.add_argument("--tcp", type=int, help="listen on this TCP port instead of stdio (debugging)")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted because clients send it)")
    serve.add_argument("--log-file", help="write logs here as well as stderr")
    serve.set_defaults(run=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING - 10 * min(args.verbose, 2), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.run(args))
    except (WorkspaceError, SearchError) as error:
        print(f"fourfold: {error}", file=sys.stderr)
        return 2
    except QueryError as error:
        where = f" at position {error.position}" if error.position is not None else ""
        print(f"fourfold: invalid query{where}: {error}", file=sys.stderr)
        if error.position is not None and getattr(args, "query", None):
            print(f"  {args.query}\n  {' ' * error.position}^", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
