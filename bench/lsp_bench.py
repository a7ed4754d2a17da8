"""Benchmark Fourfold over the LSP wire, side by side with jedi-language-server.

    python bench/lsp_bench.py CORPUS_ROOT [--queries 200] [--backend none] [--skip-jedi]

Measures, as an editor sees them: time from `initialized` to index ready, the first
`workspace/symbol` answer after that, `workspace/symbol` latency p50/p95 over identifier queries
taken from the corpus's own definitions, Ctrl+T typing (a request per keystroke, the previous one
cancelled, timed from the last keystroke to its answer), and how long a file created on disk takes
to become searchable (didChangeWatchedFiles -> found; one probe after every UPDATE_EVERY queries, so
each lands between searches as an edit does). Not a test: it prints a table.
jedi-language-server is installed into this interpreter's environment if missing.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from fourfold.lsp.evaluation import percentile

DEFINITION = re.compile(r"\b(?:def|class|func|function|fn|struct|interface)\s+([A-Za-z_][A-Za-z0-9_]{3,})")
SOURCE_SUFFIXES = {".py", ".js", ".ts", ".go", ".rs", ".java", ".c", ".cpp", ".cs", ".rb", ".php"}
PROBE_NAME = "fourfold_bench_probe_quokka"
# One file-change probe after this many timed queries (200 queries: 5 probes).
UPDATE_EVERY = 40
# Typing: this many identifiers typed from their third character on, one keystroke per interval
# (a quick typist; VS Code sends a request per keystroke and cancels the one before).
TYPED_WORDS = 20
KEYSTROKE_S = 0.08
# Long enough for a first index of a large corpus on a slow machine; a hung server still ends the run.
PHASE_TIMEOUT_S = 600.0
CAPABILITIES = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    workspace=types.WorkspaceClientCapabilities(
        configuration=False,
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
        symbol=types.WorkspaceSymbolClientCapabilities(),
    ),
)


def identifiers(root: Path, count: int) -> list[str]:
    """`count` definition names from the corpus, sampled reproducibly."""
    names: set[str] = set()
    for path in root.rglob("*"):
        if path.suffix in SOURCE_SUFFIXES and path.is_file() and ".git" not in path.parts:
            try:
                names.update(DEFINITION.findall(path.read_text(encoding="utf-8", errors="ignore")))
            except OSError:
                continue
    ordered = sorted(names)
    random.Random(0).shuffle(ordered)
    return ordered[:count]




class BenchClient(LanguageClient):
    def __init__(self) -> None:
        super().__init__("fourfold-bench", "1")
        self.statuses: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

        @self.feature("fourfold/indexStatus")
        def on_status(params: Any) -> None:
            self.statuses.append({"phase": getattr(params, "phase", None)})
            self.arrived.set()

        @self.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def on_progress_create(params: Any) -> None:
            return None

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: Any) -> None:
            return None

        @self.feature(types.PROGRESS)
        def on_progress(params: Any) -> None:
            return None

    async def wait_phase(self, phase: str, after: int = 0) -> None:
        """Wait for a `fourfold/indexStatus` phase; a server that never gets there fails the run."""
        async def scan() -> None:
            while not any(status["phase"] == phase for status in self.statuses[after:]):
                self.arrived.clear()
                await self.arrived.wait()
        await asyncio.wait_for(scan(), PHASE_TIMEOUT_S)


async def symbol_latencies(client: LanguageClient, queries: list[str],
                           between: Any = None) -> tuple[list[float], int]:
    """Timed `workspace/symbol` round trips; `between(i)` runs untimed after every UPDATE_EVERY queries."""
    latencies, empty = [], 0
    for position, query in enumerate(queries, 1):
        started = time.perf_counter()
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
        latencies.append((time.perf_counter() - started) * 1000)
        empty += not found
        if between is not None and position % UPDATE_EVERY == 0:
            await between(position)
    return latencies, empty


async def typed_latencies(client: LanguageClient, words: list[str]) -> list[float]:
    """Ctrl+T as typed: a request per keystroke, the previous cancelled; last keystroke -> its answer."""
    latencies = []
    for number, word in enumerate(words):
        sent: list[asyncio.Future[Any]] = []
        for end in range(3, len(word) + 1):
            if sent and not sent[-1].done():  # as vscode-languageclient does when the query changes
                client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=f"typed-{number}-{end - 1}"))
            started = time.perf_counter()
            sent.append(client.protocol.send_request_async(
                types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query=word[:end]), msg_id=f"typed-{number}-{end}"))
            if end < len(word):
                await asyncio.sleep(KEYSTROKE_S)
        await sent[-1]
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.gather(*sent, return_exceptions=True)  # cancelled ones answer RequestCancelled
    return latencies


async def first_answer(client: LanguageClient, query: str) -> float:
    started = time.perf_counter()
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    return (time.perf_counter() - started) * 1000


async def initialize(client: LanguageClient, root: Path, options: dict[str, Any] | None) -> None:
    await client.initialize_async(types.InitializeParams(
        capabilities=CAPABILITIES, root_uri=root.as_uri(), initialization_options=options,
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]))


async def bench_fourfold(root: Path, queries: list[str], backend: str) -> dict[str, Any]:
    client = BenchClient()
    index_dir = tempfile.mkdtemp(prefix="fourfold-bench-")
    await client.start_io(sys.executable, "-m", "fourfold.lsp")
    try:
        await initialize(client, root, {"indexDir": index_dir, "semanticBackend": backend})
        started = time.perf_counter()
        client.initialized(types.InitializedParams())
        await client.wait_phase("indexed")
        ready_s = time.perf_counter() - started
        first_ms = await first_answer(client, queries[-1] if queries else "a")
        updates: list[float] = []

        async def probe(position: int) -> None:
            updates.append(await change_latency(client, root, position))

        latencies, empty = await symbol_latencies(client, queries, probe)
        typed = await typed_latencies(client, queries[:TYPED_WORDS])
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
        shutil.rmtree(index_dir, ignore_errors=True)
    return {"ready_s": ready_s, "first_ms": first_ms, "latencies": latencies, "empty": empty,
            "typed": typed, "updates": updates}


async def change_latency(client: BenchClient, root: Path, number: int) -> float:
    """Create a file, notify, and time until workspace/symbol finds the new definition."""
    name = f"{PROBE_NAME}_{number}"
    probe = root / f"{name}.py"
    probe.write_text(f"def {name}():\n    return 1\n", encoding="utf-8")
    try:
        started = time.perf_counter()
        mark = len(client.statuses)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=probe.as_uri(), type=types.FileChangeType.Created)]))
        await client.wait_phase("updated", mark)
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=name))
        elapsed = (time.perf_counter() - started) * 1000
        return elapsed if found and found[0].name == name else float("nan")
    finally:
        probe.unlink(missing_ok=True)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=probe.as_uri(), type=types.FileChangeType.Deleted)]))


def ensure_jedi() -> Path | None:
    if importlib.util.find_spec("jedi_language_server") is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "jedi-language-server"], check=False)
    executable = Path(sys.executable).parent / "jedi-language-server"
    return executable if executable.exists() else None


async def bench_jedi(root: Path, queries: list[str]) -> dict[str, Any] | None:
    executable = ensure_jedi()
    if executable is None:
        return None
    client = LanguageClient("fourfold-bench", "1")
    await client.start_io(str(executable))
    try:
        await initialize(client, root, None)
        client.initialized(types.InitializedParams())
        # jedi indexes lazily: its first query pays for it, so it counts as both ready and first answer
        first_ms = await first_answer(client, queries[-1] if queries else "a")
        latencies, empty = await symbol_latencies(client, queries)
        typed = await typed_latencies(client, queries[:TYPED_WORDS])
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return {"ready_s": first_ms / 1000, "first_ms": first_ms, "latencies": latencies, "empty": empty,
            "typed": typed, "updates": []}


def table(rows: dict[str, dict[str, Any] | None], count: int) -> str:
    header = (f"{'server':<22}{'ready (s)':>10}{'first (ms)':>11}{'p50 (ms)':>9}{'p95 (ms)':>9}"
              f"{'typed p50/p95 (ms)':>20}{'empty':>9}{'update p50/p95 (ms)':>21}")
    lines = [header]
    for name, row in rows.items():
        if row is None:
            lines.append(f"{name:<22}{'unavailable':>10}")
            continue
        typed = f"{percentile(row['typed'], 0.5):.1f}/{percentile(row['typed'], 0.95):.1f}"
        updates = f"{percentile(row['updates'], 0.5):.1f}/{percentile(row['updates'], 0.95):.1f}"
        lines.append(f"{name:<22}{row['ready_s']:>10.2f}{row['first_ms']:>11.1f}"
                     f"{percentile(row['latencies'], 0.5):>9.1f}{percentile(row['latencies'], 0.95):>9.1f}"
                     f"{typed:>20}{row['empty']:>5}/{count:<3}{updates:>21}")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("root", type=Path)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--backend", default="none", choices=("none", "local", "voyage"))
    parser.add_argument("--skip-jedi", action="store_true")
    args = parser.parse_args()
    root = args.root.resolve()
    queries = identifiers(root, args.queries)
    rows: dict[str, dict[str, Any] | None] = {"fourfold": await bench_fourfold(root, queries, args.backend)}
    if not args.skip_jedi:
        rows["jedi-language-server"] = await bench_jedi(root, queries)
    print(f"corpus {root} · {len(queries)} identifier queries · workspace/symbol over stdio")
    print(table(rows, len(queries)))
    updates = rows["fourfold"]["updates"] if rows["fourfold"] else []
    print(f"fourfold file change -> searchable, each probe (ms): {', '.join(f'{value:.1f}' for value in updates)}")


if __name__ == "__main__":
    asyncio.run(main())
