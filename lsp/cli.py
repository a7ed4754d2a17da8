"""The `fourfold` command: index, search, grep, status, eval, serve and mcp from a terminal, a script or an agent.

Scripts and coding agents get the same engine as editors: `--json` prints exactly the object of
`fourfold.search` (DESIGN §7). A search is answered by the root's daemon (`fourfold.lsp.daemon`),
started on the first call and kept warm, so a call costs about what `rg` costs (`fourfold grep` lists
every matching line from the same index, as `rg` prints them); `--no-daemon`
loads the index in this process instead. Either way the disk is re-checked first, so results
reflect the files as they are, and a root with no index is indexed first, with progress on stderr.

Nothing of the engine is imported at module level: `fourfold --help` and a daemon-answered search
must not pay seconds for networkx and scipy.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from fourfold.engine.model.profiles import INTENTS, MODALITIES, PRESETS
from fourfold.engine.model.settings import BACKENDS
from fourfold.lsp import logs

if TYPE_CHECKING:
    from fourfold.engine import Settings, Workspace

    from .grep import GrepOptions

BAR_WIDTH = 30
MODALITY_LETTERS = {"semantic": "S", "text": "T", "structural": "St", "graph": "G"}
# Call sites listed per file before the rest fold into "+N more" (`--all` lists every one).
SITES_PER_FILE = 5
# The engine's request limits (fourfold.engine.model.profiles MAX_QUERY_LENGTH, MAX_LIMIT), for --help only:
# importing that module costs seconds. tests/lsp/test_cli.py keeps these equal to the engine's.
HELP_MAX_QUERY_LENGTH = 32_000
HELP_MAX_LIMIT = 500

QUERY_HELP = f"""\
query syntax (the shape of the question picks the intent; --intent pins it):
  parseConfig                       an identifier: its definition        (find_definition)
  def load_settings / class Router  a declaration: that definition       (find_definition)
  where is parseConfig defined      a definition, asked in words         (find_definition)
  who calls load_settings           call sites                           (find_references)
  what depends on Session.send      the blast radius of a change         (impact_analysis)
  "connection refused"              a literal string                     (exact_match)
  ValidationError / ECONNREFUSED    an error name                        (exact_match)
  re:timeout \\d+ or /timeout \\d+/   a regular expression (RE2)          (exact_match)
  how does retry work               a question, answered by meaning      (understand_code)
  functions similar to parse_header similar code                         (find_similar)
  Italian and Vietnamese phrasings work too ("chi chiama", "ai gọi").

intents:    {", ".join(INTENTS)}
presets:    {", ".join(PRESETS)} (quick: semantic only; default: direct route when the intent is
            clear, else fused; thorough: all four modalities, always fused)
modalities: {", ".join(MODALITIES)} (--modes overrides the preset)
backends:   {", ".join(BACKENDS)} (semantic; local is offline, voyage needs VOYAGE_API_KEY)
limits:     a query of at most {HELP_MAX_QUERY_LENGTH:,} characters; --limit 1..{HELP_MAX_LIMIT}
"""

EXAMPLES = """\
examples:
  fourfold search "how are retries scheduled" --root .
  fourfold search parseConfig --json --limit 5
  fourfold search '"connection refused"' --paths 'src/**' --languages python,go
  fourfold grep 'connection refused' -g 'src/**'   # every matching line, as rg prints them
  fourfold mcp --root .            # the same engine as MCP tools for a coding agent
  fourfold daemon stop --root .    # stop the warm index of a root (it stops itself when idle)
"""

GREP_HELP = """\
pattern syntax (the index's text queries; a pattern in lowercase only ignores case, as rg --smart-case):
  parse_config                 an identifier: every line holding it, inside longer names too
  connection refused           any other text is a literal, metacharacters and all: self.assertEqual(
  "x = 1" or ' end '           quoted: the text between the quotes, outer spaces kept
  -F, -i, -s, -w               as rg: plain text, ignore case, match case, whole words only
  /timeout \\d+/ or re:\\d+ms    a regular expression (RE2: linear time, so no backreferences or
                               lookaround; (?i) ignores case)

output:  path:line:text for every matching line, in file order (paths as --root gives them);
         --count gives path:count, -l the files only, --json one object with the same data,
         each line as [path, line, text, the definition it is in].
         A cap (--max-count a file, --limit in all) says on stderr how many more lines it left out.
exit:    0 when a line matched, 1 when none did, 2 on an error (a bad pattern, a missing folder).

examples:
  fourfold grep ValidationError --root ~/src/django
  fourfold grep '/def test_\\w+_error/' -g 'tests/**' --count
  fourfold grep TODO -l --languages python,go
  fourfold grep get_object_or_404 --json --limit 50
"""


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("fourfold")
    except metadata.PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """`--version`, reading the installed version only when asked (importlib.metadata costs ~40 ms)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"fourfold {_version()}")
        parser.exit()


class Progress:
    """Progress on stderr: a bar on a terminal, one line per phase otherwise (logs and agents read those).

    Durations count from when the command started waiting, not from when the engine began the phase."""

    def __init__(self, stream: TextIO, enabled: bool = True) -> None:
        self.stream = stream
        self.enabled = enabled
        self.terminal = stream.isatty()
        self.phase: str | None = None
        self.phase_started = time.monotonic()
        self.last = 0.0
        self.total = 0

    def update(self, phase: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if phase != self.phase:
            self.end()
            self.phase, self.phase_started, self.total = phase, now, total
            if not self.terminal:
                size = f" {total:,} files" if phase == "indexing" and total else \
                    f" {total:,} chunks" if total else ""
                self.stream.write(f"fourfold: {phase}{size}…\n")
                self.stream.flush()
        self.total = max(self.total, total)
        if self.terminal and (now - self.last >= 0.1 or done >= total):
            self.last = now
            filled = BAR_WIDTH * done // max(total, 1)
            self.stream.write(f"\r{phase.capitalize():<9} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
                              f"{done:,}/{total:,}")
            self.stream.flush()

    def counter(self, phase: str) -> Any:
        """A `(done, total)` callback for the engine's progress hooks."""
        return lambda done, total: self.update(phase, done, total)

    def end(self) -> None:
        if self.phase is None or not self.enabled:
            return
        seconds = time.monotonic() - self.phase_started
        self.stream.write(("\n" if self.terminal else "") + f"fourfold: {self.phase} done in {seconds:.1f} s\n")
        self.stream.flush()
        self.phase = None


def _settings(args: argparse.Namespace) -> Settings:
    from fourfold.engine import parse_settings

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
    from fourfold.engine import Workspace

    workspace = Workspace(Path(args.root), _settings(args), background=False)
    if workspace.store.rebuilt_reason:
        print(f"fourfold: {workspace.store.rebuilt_reason}", file=sys.stderr)
    return workspace


def _progress(args: argparse.Namespace) -> Progress:
    return Progress(sys.stderr, enabled=not getattr(args, "no_progress", False))


def _daemon_key(args: argparse.Namespace) -> Any:
    from .daemon import DaemonKey

    return DaemonKey.of(args.root, args.index_dir, args.backend, args.exclude)


def _check_root(args: argparse.Namespace) -> None:
    if not Path(args.root).is_dir():  # the daemon would say the same, after starting for nothing
        from fourfold.engine import WorkspaceError

        raise WorkspaceError(f"workspace root {Path(args.root).resolve()} does not exist or is not a folder")


def cmd_index(args: argparse.Namespace) -> int:
    started = time.monotonic()
    progress = _progress(args)
    workspace = _open(args)
    try:
        stats = workspace.refresh(progress.counter("indexing"))
        progress.end()
        status = workspace.status()
        print(f"Indexed {status['files']:,} files ({stats.indexed:,} re-indexed, {stats.removed:,} removed, "
              f"{stats.unchanged:,} unchanged), {status['symbols']:,} symbols, {status['chunks']:,} chunks "
              f"in {time.monotonic() - started:.2f} s; index at {workspace.store.folder}")
        if not status["files"]:
            print(f"fourfold: 0 files are indexable under {workspace.root} ({status['skipped']:,} skipped)",
                  file=sys.stderr)
        if not args.no_embed:
            workspace.embed_pending(progress=progress.counter("embedding"))
            progress.end()
    finally:
        workspace.close()
    return 0


def _search_values(args: argparse.Namespace) -> dict[str, Any]:
    values = {
        "query": args.query, "limit": args.limit, "preset": args.preset, "intent": args.intent,
        "modes": args.modes.split(",") if args.modes else None, "paths": args.paths,
        "languages": args.languages.split(",") if args.languages else None,
    }
    return {k: v for k, v in values.items() if v is not None}


def cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():  # before opening (and maybe indexing) the folder for nothing
        print('fourfold: the query is blank; give the text to search for, e.g. fourfold search "parse config"',
              file=sys.stderr)
        return 2
    started = time.monotonic()
    _check_root(args)
    result = None if args.no_daemon else _via_daemon(args, {"op": "search", "args": _search_values(args),
                                                           "wait_embedded": not args.no_embed})
    if result is None:
        result = _search_here(args)
    if args.json:
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_result(result, sys.stdout, time.monotonic() - started, Path(args.root), args.all)
    return 0


def cmd_grep(args: argparse.Namespace) -> int:
    """Every matching line, answered by the root's daemon like a search (or in process with --no-daemon);
    exit 1 when nothing matched, as rg, so scripts can test for a match."""
    if not args.query.strip():
        print("fourfold: the pattern is blank; give the text to look for, e.g. fourfold grep parse_config",
              file=sys.stderr)
        return 2
    _check_root(args)
    from .grep import GrepOptions, Mode

    mode: Mode = "count" if args.count else "files" if args.files_with_matches else "lines"
    options = GrepOptions(args.query, tuple(args.paths or ()), tuple(_list(args.languages)), args.max_count,
                          args.limit, mode, fixed=args.fixed_strings, ignore_case=args.ignore_case,
                          case_sensitive=args.case_sensitive, word=args.word_regexp)
    result = None if args.no_daemon else _via_daemon(args, {"op": "grep", "args": options.to_mapping()})
    if result is None:
        result = _grep_here(args, options)
    for note in result["notes"]:
        print(f"fourfold: {note}", file=sys.stderr)
    try:
        if args.json:
            json.dump({"root": str(Path(args.root).resolve()), **result}, sys.stdout, indent=2, ensure_ascii=False)
            sys.stdout.write("\n")
        else:
            _print_grep(result, sys.stdout, _prefix(args.root))
        sys.stdout.flush()
    except BrokenPipeError:  # `fourfold grep x | head`: the reader has all it wanted, as rg treats it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    _say_what_was_left_out(result, options)
    return 0 if result["matches"] else 1


def _list(text: str | None) -> list[str]:
    return [part for part in (text or "").split(",") if part]


def _grep_here(args: argparse.Namespace, options: GrepOptions) -> dict[str, Any]:
    from .grep import grep

    progress = _progress(args)
    workspace = _open(args)
    try:
        workspace.refresh(progress.counter("indexing"))
        progress.end()
        return grep(workspace, options)
    finally:
        workspace.close()


def _prefix(root: str) -> str:
    """What goes before an indexed path so it opens from here, as rg names files under the folder it is given."""
    return "" if Path(root) == Path(".") else root.rstrip("/") + "/"


def _print_grep(result: dict[str, Any], out: TextIO, prefix: str) -> None:
    if "counts" in result:
        out.writelines(f"{prefix}{path}:{count}\n" for path, count in result["counts"])
    elif "paths" in result:
        out.writelines(f"{prefix}{path}\n" for path in result["paths"])
    else:
        out.writelines(f"{prefix}{path}:{line}:{text}\n" for path, line, text, _ in result["lines"])


def _say_what_was_left_out(result: dict[str, Any], options: GrepOptions) -> None:
    """The caps are said on stderr, never silent: an agent must know the listing is not all there is."""
    if result.get("beyond_max_count"):
        print(f"fourfold: +{result['beyond_max_count']:,} more matching lines beyond --max-count "
              f"{options.max_count} a file", file=sys.stderr)
    if result.get("more"):
        print(f"fourfold: +{result['more']:,} more matching lines not shown (--limit {options.limit}); "
              f"{result['matches']:,} lines match in {result['files']:,} files", file=sys.stderr)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _via_daemon(args: argparse.Namespace, message: dict[str, Any]) -> Any:
    """The daemon's answer, or None when no daemon could be started (the caller then works in-process)."""
    if os.name != "posix":  # the daemon needs Unix sockets and flock
        return None
    from . import daemon

    progress = _progress(args)
    try:
        answer = daemon.call(_daemon_key(args), message,
                             lambda update: progress.update(update["phase"], update["done"], update["total"]))
    except daemon.DaemonError as error:
        print(f"fourfold: {error}; answering without the daemon", file=sys.stderr)
        return None
    except daemon.RemoteError as error:
        raise _local_error(error) from error
    finally:
        progress.end()
    return answer["result"]


def _local_error(error: Any) -> Exception:
    from fourfold.engine import QueryError, SearchError

    if error.kind == "query":
        return QueryError(str(error), error.position)
    return SearchError(str(error))


def _search_here(args: argparse.Namespace) -> dict[str, Any]:
    from fourfold.engine import SearchRequest

    from .warm import why_empty

    progress = _progress(args)
    workspace = _open(args)
    try:
        workspace.refresh(progress.counter("indexing"))
        progress.end()
        if not args.no_embed:  # cached vectors are read, only new or changed chunks are embedded
            workspace.embed_pending(progress=progress.counter("embedding"))
            progress.end()
        request = SearchRequest.from_mapping(_search_values(args))
        result = workspace.search_dict(request)
        if not result["results"]:
            reason = why_empty(workspace, request)
            if reason:
                result["notes"] = [*result.get("notes", []), reason]
    finally:
        workspace.close()
    return result


def _bar(value: float, top: float) -> str:
    cells = 0 if top <= 0 else round(6 * value / top)
    return "█" * cells + "·" * (6 - cells)


def _print_result(result: dict[str, Any], out: TextIO, waited_s: float | None = None, root: Path | None = None,
                  show_all: bool = False) -> None:
    """The answer for a person: what it says about itself first (a missing target, a seed), then the
    results grouped by file, every call site with its code line, folded beyond SITES_PER_FILE a file."""
    ran = [m for m, report in result["modalities"].items() if report["ran"]]
    waited = f" (answered in {1000 * waited_s:.0f} ms)" if waited_s is not None else ""
    for note in result.get("notes", []):
        out.write(f"note: {note}\n")
    out.write(f"{result['intent']} ({result['confidence']:.2f}, rule {result['rule']}) · "
              f"{result['fusion_strategy']} · preset {result['preset']} · ran {', '.join(ran) or 'nothing'} · "
              f"{result['timings_ms']['total']:.1f} ms{waited}\n")
    if not result["results"]:
        out.write("no results\n")
    top = max((max(r["contributions"].values(), default=0.0) for r in result["results"]), default=0.0)
    files = _Lines(root)
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for position, row in enumerate(result["results"], 1):
        groups.setdefault(row["path"], []).append((position, row))
    for path, rows in groups.items():
        sites = sum(1 + len(_other_sites(row)) for _, row in rows)
        out.write(f"{path} · {sites} site{'s' if sites != 1 else ''}\n")
        shown = 0
        hidden = 0
        for position, row in rows:
            # where an editor's Ctrl+T lands (the definition's name), not the doc comment its chunk opens with
            line = row["selection"]["start"]["line"] + 1
            symbol = f"  {row['symbol']}" if row["symbol"] else ""
            out.write(f"{position:>3}. {path}:{line}{symbol}{_flags(row)}\n")
            if row.get("via"):  # how an impact result depends on the target: the chain the graph followed
                out.write(f"     via {' → '.join(row['via'])}\n")
            bars = "  ".join(f"{MODALITY_LETTERS[m]} {_bar(row['contributions'].get(m, 0.0), top)}" for m in ran)
            out.write(f"     {bars}\n")
            code = files.line(path, line - 1) or next((text for text in row["snippet"].split("\n") if text.strip()), "")
            if code.strip():
                out.write(f"     {line:>5}  {code.strip()[:160]}\n")
            shown += 1
            for site, text in _other_sites(row):
                if shown >= SITES_PER_FILE and not show_all:
                    hidden += 1
                    continue
                shown += 1
                code = text if text is not None else files.line(path, site - 1)
                out.write(f"     {site:>5}  {code.strip()[:160]}\n")
        if hidden:
            out.write(f"     +{hidden} more in {path} (--all shows every site)\n")


def _flags(row: dict[str, Any]) -> str:
    return ((" approximate" if row.get("approximate") else "")
            + (" unresolved" if row.get("resolved") is False else "")
            + (" demoted" if row["demoted"] else "")
            + (f" boost×{row['boost']:.2f}" if row["boost"] > 1 else ""))


def _other_sites(row: dict[str, Any]) -> list[tuple[int, str | None]]:
    """The row's other matches as (1-based line, code line or None when the answer has no `match_lines`),
    one per line, leaving out the line the row itself is shown at."""
    texts: list[str | None] = list(row.get("match_lines") or [None] * len(row["matches"]))
    own = row["selection"]["start"]["line"]
    seen: dict[int, str | None] = {}
    for match, text in zip(row["matches"], texts, strict=False):
        line = match["start"]["line"]
        if line != own and line not in seen:
            seen[line] = text
    return [(line + 1, text) for line, text in sorted(seen.items())]


class _Lines:
    """Code lines of the root's files for answers without `match_lines`, each file read once."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.files: dict[str, list[str]] = {}

    def line(self, path: str, line: int) -> str:
        if self.root is None:
            return ""
        if path not in self.files:
            try:
                self.files[path] = (self.root / path).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                self.files[path] = []
        lines = self.files[path]
        return lines[line].rstrip("\r") if 0 <= line < len(lines) else ""


def cmd_status(args: argparse.Namespace) -> int:
    _check_root(args)
    status = None if args.no_daemon else _via_daemon(args, {"op": "status", "wait_embedded": not args.no_embed})
    if status is None:
        progress = _progress(args)
        workspace = _open(args)
        try:
            workspace.refresh(progress.counter("indexing"))
            progress.end()
            if not args.no_embed:
                workspace.embed_pending(progress=progress.counter("embedding"))
                progress.end()
            status = workspace.status()
        finally:
            workspace.close()
    print(json.dumps(status, indent=2))
    return 0


def cmd_daemon(args: argparse.Namespace) -> int:
    from . import daemon

    key = _daemon_key(args)
    if args.action == "stop":
        stopped = daemon.stop(key)
        print(f"stopped the daemon for {key.root}" if stopped else f"no daemon was running for {key.root}")
        return 0
    if args.action == "start":
        _check_root(args)
    try:
        answer = daemon.call(key, {"op": "ping"}, start=args.action == "start")
    except daemon.DaemonError as error:
        print(f"fourfold: {error}", file=sys.stderr)
        return 1
    print(json.dumps({k: v for k, v in answer.items() if k != "ok"}, indent=2))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from fourfold.lsp.server import run

    return run(tcp_port=args.tcp, log_file=args.log_file, verbosity=args.verbose)


def cmd_mcp(args: argparse.Namespace) -> int:
    _check_root(args)
    from fourfold.lsp.mcp_server import run

    return run(args, _settings(args))


def _common(parser: argparse.ArgumentParser) -> None:
    """The options every command that opens a folder shares. The folder may be given either way
    (`fourfold index FOLDER`, `fourfold search QUERY FOLDER`, or `--root FOLDER` with any command): a
    newcomer writes whichever they guess first, and both mean the same."""
    parser.add_argument("folder", nargs="?", help="workspace folder (default: ., or --root)")
    parser.add_argument("--root", help="workspace folder (default: .)")
    parser.set_defaults(one_root=_one_root)
    parser.add_argument("--index-dir", help="where to keep the index (default: the user cache dir)")
    parser.add_argument("--backend", choices=BACKENDS, help="semantic backend (default: local)")
    parser.add_argument("--exclude", action="append", help="glob to leave out (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")


def _one_root(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`args.root` from the positional folder or `--root` (default `.`); both, naming two folders, is an error."""
    if args.folder is not None and args.root is not None and Path(args.folder) != Path(args.root):
        parser.error(f"two folders given: {args.folder} and --root {args.root}; give one")
    args.root = args.folder or args.root or "."


def _served(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-daemon", action="store_true",
                        help="load the index in this process instead of asking the root's warm daemon")


def _wants_eval(argv: Sequence[str]) -> bool:
    """Whether this command line runs `eval`: only then is its parser (and the engine it imports) loaded."""
    return next((arg for arg in argv if not arg.startswith("-")), None) == "eval"


def _grep_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    grep = commands.add_parser("grep", help="every line matching a literal, identifier or regex, as rg lists them",
                               formatter_class=formatter, epilog=GREP_HELP,
                               description="Every matching line from the index, in file order, as rg prints them.")
    grep.add_argument("query", metavar="PATTERN", help="what to look for (see the pattern syntax below)")
    _common(grep)
    _served(grep)
    shown = grep.add_mutually_exclusive_group()
    shown.add_argument("-c", "--count", action="store_true", help="print path:count for each file with a match")
    shown.add_argument("-l", "--files-with-matches", action="store_true", help="print only the files with a match")
    grep.add_argument("--json", action="store_true", help="print one JSON object: totals, notes and the lines")
    grep.add_argument("-F", "--fixed-strings", action="store_true",
                      help="the pattern is plain text, even when it looks like /regex/ or is quoted")
    case = grep.add_mutually_exclusive_group()
    case.add_argument("-i", "--ignore-case", action="store_true", help="ignore case, whatever the pattern's case")
    case.add_argument("-s", "--case-sensitive", action="store_true", help="match case, even for a lowercase pattern")
    grep.add_argument("-w", "--word-regexp", action="store_true",
                      help="only matches with a non-word character or the line's edge on each side")
    grep.add_argument("-m", "--max-count", type=_positive, metavar="NUM", help="at most NUM lines a file")
    grep.add_argument("--limit", type=_positive, metavar="NUM", help="at most NUM lines in all (default: every one)")
    grep.add_argument("-g", "--paths", action="append", metavar="GLOB",
                      help="only files matching this glob, gitignore syntax as rg -g (repeatable)")
    grep.add_argument("--languages", help="comma-separated language ids (python, typescript, go, ...)")
    grep.set_defaults(run=cmd_grep)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog="fourfold", formatter_class=formatter, epilog=QUERY_HELP + "\n" + EXAMPLES,
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    index = commands.add_parser("index", help="index a folder (incremental)")
    _common(index)
    index.add_argument("--no-embed", action="store_true", help="skip embeddings (text, structure and graph only)")
    index.set_defaults(run=cmd_index)

    search = commands.add_parser("search", help="search a folder", formatter_class=formatter,
                                 epilog=QUERY_HELP + "\n" + EXAMPLES)
    search.add_argument("query", help="what to look for (see the query syntax below)")
    _common(search)
    _served(search)
    search.add_argument("--json", action="store_true", help="print the fourfold.search result object")
    search.add_argument("--all", action="store_true",
                        help=f"list every site of a file (default: {SITES_PER_FILE} a file, then +N more)")
    search.add_argument("--limit", type=int, default=20, help=f"results to return (1..{HELP_MAX_LIMIT}, default 20)")
    search.add_argument("--preset", choices=tuple(PRESETS))
    search.add_argument("--modes", help=f"comma-separated modalities: {','.join(MODALITIES)}")
    search.add_argument("--intent", choices=INTENTS, help="pin the intent instead of classifying the query")
    search.add_argument("--paths", action="append", help="only results under this glob (repeatable)")
    search.add_argument("--languages", help="comma-separated language ids (python, typescript, go, ...)")
    search.add_argument("--no-embed", action="store_true", help="do not wait for new chunks to be embedded")
    search.set_defaults(run=cmd_search)

    _grep_parser(commands, formatter)

    if _wants_eval(argv):
        from fourfold.lsp.eval_cli import add_eval_parser

        add_eval_parser(commands)
    else:
        commands.add_parser("eval", help="measure search quality on a labelled query set", add_help=False)

    status = commands.add_parser("status", help="bring the index up to date and print its status as JSON")
    _common(status)
    _served(status)
    status.add_argument("--no-embed", action="store_true", help="do not wait for new chunks to be embedded")
    status.set_defaults(run=cmd_status)

    daemon = commands.add_parser("daemon", help="the warm index behind CLI searches: start, stop or status")
    daemon.add_argument("action", choices=("start", "stop", "status"))
    _common(daemon)
    daemon.set_defaults(run=cmd_daemon)

    mcp = commands.add_parser("mcp", help="serve the engine as Model Context Protocol tools on stdio (agents)")
    _common(mcp)
    mcp.add_argument("--no-embed", action="store_true", help="no semantic embeddings (text, structure, graph)")
    mcp.set_defaults(run=cmd_mcp)

    serve = commands.add_parser("serve", help="run the language server on stdio")
    serve.add_argument("--tcp", type=int, help="listen on this TCP port instead of stdio (debugging)")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted because clients send it)")
    serve.add_argument("--log-file", help="write logs here as well as stderr")
    serve.set_defaults(run=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments)
    args = parser.parse_args(arguments)
    if hasattr(args, "one_root"):
        args.one_root(parser, args)
    logs.configure(args.verbose)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        code = _reported(error, args)
        if code is None:
            raise
        return code


def _reported(error: Exception, args: argparse.Namespace) -> int | None:
    """Exit code 2 with a message for the errors a user can fix; None for a bug (its traceback shows)."""
    from fourfold.engine import QueryError, SearchError, WorkspaceError

    if isinstance(error, WorkspaceError | SearchError):
        print(f"fourfold: {error}", file=sys.stderr)
        return 2
    if isinstance(error, QueryError):
        where = f" at position {error.position}" if error.position is not None else ""
        print(f"fourfold: invalid query{where}: {error}", file=sys.stderr)
        if error.position is not None and getattr(args, "query", None):
            print(f"  {args.query}\n  {' ' * error.position}^", file=sys.stderr)
        return 2
    return None


if __name__ == "__main__":
    sys.exit(main())
