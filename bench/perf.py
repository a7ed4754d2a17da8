"""Performance benchmark (issue 6): what Fourfold costs, next to the tools people already run, at 1×, 2×, 4× size.

    python bench/perf.py                                   # Django 5.1.4 (bench/fetch_django.sh), 1x 2x 4x
    python bench/perf.py --scales 1,2 --backend none       # no embeddings
    python bench/perf.py --eval-json django-local.json     # add the quality plot from a `fourfold eval --json`
    python bench/perf.py --replot empty.json --eval-json django.json   # only the quality plot (empty.json: [])

For each scale the corpus is copied that many times into a temporary folder and measured in a fresh
process (so peak RSS is that scale's own): full index time by modality (text + structural, graph,
BM25, embeddings), index size, one-file update latency, query latency per intent (the labelled query
set, default bench/queries/django.jsonl), peak RSS; beside it `rg -F` on the same literals, `ctags -R`
over the same tree and, when installed, jedi-language-server's workspace/symbol — each as a ratio.
It prints a Markdown summary and writes PNG plots (bench/plots/). A benchmark, not a test: it
asserts nothing. Needs matplotlib for the plots (`--plots ''` skips them).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.graph.graph import CodeGraph
from fourfold.engine.index.lexical import LexicalIndex
from fourfold.lsp.evaluation import EvalQuery, baseline_target, load_queries, percentile

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE / "corpora" / "django-5.1.4"
DEFAULT_QUERIES = HERE / "queries" / "django.jsonl"
# The benchmark's own numbers, in one place.
UPDATE_EDITS = 30  # one-file updates timed per scale
QUERY_ROUNDS = 3  # each labelled query is asked this many times (after one warm-up pass)
SYMBOL_KINDS = ("function", "class")  # top-level names: a Python server's workspace/symbol finds those
LSP_NAMES = 12  # workspace/symbol names asked of both (the other server searches without an index: slow)
LSP_BUDGET_S = 120.0  # the other server's questions stop once they have taken this long in all
COMMENT = {"python": "#", "javascript": "//", "typescript": "//", "tsx": "//", "go": "//", "rust": "//",
           "java": "//", "c": "//", "cpp": "//", "csharp": "//", "php": "//", "ruby": "#"}
WARM_UP_QUESTION = "how does this work"
RESTART_QUERY = "get_object_or_404"  # an identifier: the fused default path, centrality boost included
RESTART_RUNS = 3  # fresh processes reopening the index; each restart figure is their median
# ... then, for the RSS a restart serves from as more of the index is read: a question (BM25 opened from
# disk, its best chunks' files decoded) and a graph question (the deferred graph's edges built).
RESTART_QUESTION = "where are settings loaded from the environment"
RESTART_GRAPH_QUERY = "who calls get_object_or_404"
RESTART_EDITS = 10  # ... and then one-file edits (a comment appended, as `_updates` does): what serving holds after
MIB = 2**20




def make_corpus(source: Path, scale: int, dest: Path) -> Path:
    """`scale` real copies of `source` side by side under `dest` (real files: an edit must not leak)."""
    dest.mkdir(parents=True, exist_ok=True)
    for number in range(scale):
        shutil.copytree(source, dest / f"copy-{number}", symlinks=True)
    return dest


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


@dataclass
class Figures:
    """Everything measured at one scale (written as JSON by the measuring process)."""

    scale: int
    files: int = 0
    corpus_mib: float = 0.0
    symbols: int = 0
    chunks: int = 0
    refresh_s: float = 0.0
    graph_s: float = 0.0
    bm25_s: float = 0.0
    embed_s: float | None = None
    embedded: int = 0
    index_mib: float = 0.0
    update_ms: list[float] = field(default_factory=list)
    query_ms: dict[str, list[float]] = field(default_factory=dict)
    literal_ms: list[float] = field(default_factory=list)
    rg_ms: list[float] = field(default_factory=list)
    symbol_ms: list[float] = field(default_factory=list)
    symbol_found: int = 0
    ctags_s: float | None = None
    ctags_definitions: int = 0
    definitions: int = 0
    lsp: dict[str, Any] | None = None
    peak_rss_mib: float = 0.0
    peak_worker_rss_mib: float = 0.0
    index_cpu_s: float = 0.0  # CPU of the first refresh: this process and its index workers together
    restart: dict[str, float] = field(default_factory=dict)  # a fresh process reopening the index (`_restart`)
    cold_index: dict[str, float] = field(default_factory=dict)  # a fresh one-shot process indexing (`_cold_index`)
    notes: list[str] = field(default_factory=list)

    @property
    def text_structural_s(self) -> float:
        """The refresh minus the graph build it contains: trigrams, symbols and chunks."""
        return max(self.refresh_s - self.graph_s, 0.0)


# --- measuring (in a fresh process per scale) ------------------------------------------------------
def measure(root: Path, scale: int, queries: Sequence[EvalQuery], backend: str, lsp_command: Sequence[str]) -> Figures:
    figures = Figures(scale, corpus_mib=folder_bytes(root) / MIB)
    index_dir = Path(tempfile.mkdtemp(prefix="fourfold-perf-index-"))
    names: list[str] = []
    try:
        workspace = Workspace(root, Settings(index_dir=str(index_dir), semantic_backend=backend))
        try:
            _index(workspace, figures, backend)
            figures.index_mib = folder_bytes(index_dir) / MIB
            _queries(workspace, queries, figures)
            names = _symbol_names(workspace)
            _symbol_queries(workspace, names, figures)
            figures.update_ms = _updates(workspace, root)
            figures.definitions = len(workspace.snapshot().symbols)
            workspace.snapshot().graph.refresh_centrality()  # what a server's centrality timer does after edits
        finally:
            workspace.close()
        figures.peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        figures.peak_worker_rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        figures.restart = _restart(root, index_dir, backend)
        figures.cold_index = _cold_index(root, backend)
        figures.rg_ms = ([_rg_ms(root, baseline_target(q.query)) for q in _literal_queries(queries)]
                         if shutil.which("rg") else [])  # not installed: the ratio says n/a
        figures.ctags_s, figures.ctags_definitions = _ctags(root)
        figures.lsp = _lsp(lsp_command, root, names) if lsp_command else None
    finally:
        shutil.rmtree(index_dir, ignore_errors=True)
    return figures


def _cpu_s() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def _children_peak_rss_mib() -> float:
    """The peak RSS of the largest process this one started and waited for (a server's first index is
    built by one: `Workspace._refresh_elsewhere`), or of the workers it started in turn."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _own_peak_rss_mib() -> float:
    """This process's own peak RSS. Not ru_maxrss: Linux carries that over fork and exec, so a child
    of a big benchmark process would report its parent's peak."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_parts_mib() -> dict[str, float]:
    """This process's resident memory now, split as the issue's serving target counts it: anonymous
    (the heap: what the process holds) and file-backed (mapped index pages, i.e. page cache)."""
    status = Path("/proc/self/status")
    parts = {"RssAnon:": "serving_anon_mib", "RssFile:": "serving_file_mib"}
    found: dict[str, float] = {}
    if status.is_file():
        for line in status.read_text().splitlines():
            key = line.split(maxsplit=1)[0] if line else ""
            if key in parts:
                found[parts[key]] = int(line.split()[1]) / 1024
    return found


def _restart(root: Path, index_dir: Path, backend: str) -> dict[str, float]:
    """Reopen the unchanged index in a fresh process: time and CPU to the first answer (an identifier
    query, as a server answers from the loaded index before its re-check), the re-check, and the RSS;
    `from_launch_s` counts from before the process is started (interpreter and imports included).
    Each figure is the median of RESTART_RUNS such processes (one is at the mercy of the machine's load)."""
    runs: list[dict[str, float]] = []
    for _ in range(RESTART_RUNS):
        launched = time.time()
        completed = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--restart", str(root),
                                    "--index-dir", str(index_dir), "--backend", backend],
                                   capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
        if completed.returncode != 0:
            return {"error": float(completed.returncode)}
        figures: dict[str, float] = json.loads(completed.stdout.splitlines()[-1])
        figures["from_launch_s"] = figures.pop("answered_at") - launched
        runs.append(figures)
    return {key: sorted(run[key] for run in runs)[len(runs) // 2] for key in runs[0]}


def _cold_index(root: Path, backend: str) -> dict[str, float]:
    """A first index of `root` in a fresh process, as `fourfold index` runs it: the peak RSS the issue
    bounds (the measuring process above also builds a second graph and BM25, so its peak is not that)."""
    index_dir = Path(tempfile.mkdtemp(prefix="fourfold-perf-cold-"))
    try:
        completed = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--cold-index", str(root),
                                    "--index-dir", str(index_dir), "--backend", backend],
                                   capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    finally:
        shutil.rmtree(index_dir, ignore_errors=True)
    if completed.returncode != 0:
        return {"error": float(completed.returncode)}
    figures: dict[str, float] = json.loads(completed.stdout.splitlines()[-1])
    return figures


def cold_index_figures(root: Path, index_dir: str, backend: str) -> dict[str, float]:
    """What `_cold_index` runs in its own process. The workers' peak is their largest ru_maxrss, which
    Linux carries over fork and exec: they are spawned while this process is still small, so it is theirs."""
    started = time.perf_counter()
    workspace = Workspace(root, Settings(index_dir=index_dir, semantic_backend=backend), background=False)
    try:
        workspace.refresh()
    finally:
        workspace.close()
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall_s": time.perf_counter() - started, "main_cpu_s": own.ru_utime + own.ru_stime,
            "workers_cpu_s": workers.ru_utime + workers.ru_stime, "peak_rss_mib": _own_peak_rss_mib(),
            "workers_peak_rss_mib": workers.ru_maxrss / 1024, "load_1min": os.getloadavg()[0]}


def server_index_figures(root: Path, index_dir: str, backend: str) -> dict[str, float]:
    """A first index as a language server runs it (a background workspace, which publishes partial
    snapshots; at 1,000 files or more it builds in a process of its own and BM25 in a second), in a fresh
    process: its peak RSS and heap when ready, then after a first question (which opens or builds BM25),
    and the peak of the largest build process (read once the question has waited for the BM25 one)."""
    started = time.perf_counter()
    workspace = Workspace(root, Settings(index_dir=index_dir, semantic_backend=backend), background=True)
    try:
        workspace.refresh()
        figures = {"wall_s": time.perf_counter() - started, "peak_rss_mib": _own_peak_rss_mib(),
                   **{f"ready_{key}": value for key, value in _rss_parts_mib().items()}}
        workspace.search(SearchRequest(query=RESTART_QUESTION))
        figures |= {"question_peak_rss_mib": _own_peak_rss_mib(),
                    "build_process_peak_rss_mib": _children_peak_rss_mib(),
                    **{f"question_{key}": value for key, value in _rss_parts_mib().items()}}
    finally:
        workspace.close()
    return figures


def restart_figures(root: Path, index_dir: str, backend: str) -> dict[str, float]:
    """What `_restart` runs in its own process (imports included in the CPU, not in the wall time)."""
    started, cpu = time.perf_counter(), time.process_time()
    # As a one-shot CLI (`--no-daemon`) opens it: no background threads, so the RSS is deterministic.
    workspace = Workspace(root, Settings(index_dir=index_dir, semantic_backend=backend), background=False)
    workspace.search(SearchRequest(query=RESTART_QUERY))
    answered, answered_cpu = time.perf_counter() - started, time.process_time() - cpu
    answered_at = time.time()  # the parent's clock too: `_restart` counts from the launch
    workspace.refresh()
    figures = {"first_answer_s": answered, "first_answer_cpu_s": answered_cpu,
               "recheck_s": time.perf_counter() - started - answered,
               "cpu_s": _cpu_s(), "serving_rss_mib": _own_peak_rss_mib(), **_rss_parts_mib(),
               "graph_built": float(workspace.snapshot().graph.built), "answered_at": answered_at}
    workspace.search(SearchRequest(query=RESTART_QUESTION))
    figures["question_rss_mib"] = _own_peak_rss_mib()
    asked = time.perf_counter()
    workspace.search(SearchRequest(query=RESTART_GRAPH_QUERY))
    figures["graph_question_s"] = time.perf_counter() - asked
    graph = workspace.snapshot().graph
    if not graph.mapped:  # as a server builds a deferred graph in the background (a mapped one answers in place)
        graph.ensure_built()
    figures["graph_rss_mib"] = _own_peak_rss_mib()
    figures["graph_mapped"] = float(graph.mapped)
    parts = _rss_parts_mib()
    figures["graph_anon_mib"] = parts.get("serving_anon_mib", 0.0)
    figures["graph_file_mib"] = parts.get("serving_file_mib", 0.0)
    figures |= _edits_after_restart(workspace, root)
    workspace.close()
    return figures


def _edits_after_restart(workspace: Workspace, root: Path) -> dict[str, float]:
    """RESTART_EDITS one-file edits after a restart (warmed up first, as a server is), then a graph question:
    their p95, the peak RSS and what is resident then. The files are put back (and updated again) so the next
    restart reopens the same tree."""
    warming = time.perf_counter()
    workspace.warm_up()  # as a server does after opening (lsp/warm.py), before its user's first keystroke
    warm_up_s = time.perf_counter() - warming
    snapshot = workspace.snapshot()
    editable = sorted(path for path, record in snapshot.files.items() if record.language in COMMENT)
    rng = random.Random(11)
    originals: dict[Path, bytes] = {}
    latencies = []
    for number in range(min(RESTART_EDITS, len(editable))):
        path = rng.choice(editable)
        full = root / path
        originals.setdefault(full, full.read_bytes())
        with full.open("a", encoding="utf-8") as handle:
            handle.write(f"\n{COMMENT[snapshot.files[path].language or '']} fourfold restart edit {number}\n")
        started = time.perf_counter()
        workspace.update_file(full)
        latencies.append((time.perf_counter() - started) * 1000)
    workspace.search(SearchRequest(query=RESTART_GRAPH_QUERY))
    parts = _rss_parts_mib()
    figures = {"edit_p95_ms": percentile(latencies, .95), "edit_warm_up_s": warm_up_s,
               "edit_rss_mib": _own_peak_rss_mib(), "edit_anon_mib": parts.get("serving_anon_mib", 0.0),
               "edit_file_mib": parts.get("serving_file_mib", 0.0),
               "edit_graph_built": float(workspace.snapshot().graph.built)}
    for full, data in originals.items():
        full.write_bytes(data)
        workspace.update_file(full)
    return figures


def _index(workspace: Workspace, figures: Figures, backend: str) -> None:
    cpu = _cpu_s()
    stats = workspace.refresh()
    figures.index_cpu_s = _cpu_s() - cpu
    figures.refresh_s = stats.seconds
    snapshot = workspace.snapshot()
    figures.files, figures.symbols = len(snapshot.files), len(snapshot.symbols)
    chunks = snapshot.chunks()
    figures.chunks = len(chunks)
    for _ in range(2):  # let the background BM25 build finish before timing one of our own
        workspace.search(SearchRequest(query=WARM_UP_QUESTION, limit=1, modes=("text",)))
    started = time.perf_counter()
    CodeGraph.build(snapshot.parsed)
    figures.graph_s = time.perf_counter() - started
    started = time.perf_counter()
    LexicalIndex.build(chunks)
    figures.bm25_s = time.perf_counter() - started
    if backend != "none":
        started = time.perf_counter()
        figures.embedded = workspace.embed_pending()
        figures.embed_s = time.perf_counter() - started
        if not workspace.status()["embedded"]:
            figures.notes.append(f"semantic backend {backend}: {workspace.status()['backend_note']}")


def _literal_queries(queries: Sequence[EvalQuery]) -> list[EvalQuery]:
    return [q for q in queries if q.intent == "exact_match" and q.answerable]


def _queries(workspace: Workspace, queries: Sequence[EvalQuery], figures: Figures) -> None:
    for query in queries:
        workspace.search(SearchRequest(query=query.query))
    per_intent: dict[str, list[float]] = defaultdict(list)
    for _ in range(QUERY_ROUNDS):
        for query in queries:
            response = workspace.search(SearchRequest(query=query.query))
            per_intent[query.intent or "unlabelled"].append(response.timings_ms["total"])
    figures.query_ms = dict(per_intent)
    figures.literal_ms = [
        workspace.search(SearchRequest(query=f'"{baseline_target(q.query)}"')).timings_ms["total"]
        for q in _literal_queries(queries)
    ]


def _symbol_names(workspace: Workspace) -> list[str]:
    """Names of Python functions and classes: questions a Python language server can answer too."""
    names = sorted({symbol.name for symbol in workspace.snapshot().symbols.all()
                    if symbol.language == "python" and symbol.kind in SYMBOL_KINDS and len(symbol.name) > 3})
    return random.Random(11).sample(names, min(LSP_NAMES, len(names)))


def _symbol_queries(workspace: Workspace, names: list[str], figures: Figures) -> None:
    """Fourfold's workspace/symbol path (the symbol table's search), in process, on the same names."""
    for name in names:
        started = time.perf_counter()
        found = workspace.snapshot().symbols.search(name, None, 100)
        figures.symbol_ms.append((time.perf_counter() - started) * 1000)
        figures.symbol_found += len(found)


def _updates(workspace: Workspace, root: Path) -> list[float]:
    """Append a comment to random source files and time `update_file` (parse, trigrams, graph, swap)."""
    snapshot = workspace.snapshot()
    editable = sorted(path for path, record in snapshot.files.items() if record.language in COMMENT)
    rng = random.Random(7)
    latencies = []
    for number in range(min(UPDATE_EDITS, len(editable))):
        path = rng.choice(editable)
        full = root / path
        marker = COMMENT[snapshot.files[path].language or ""]
        with full.open("a", encoding="utf-8") as handle:
            handle.write(f"\n{marker} fourfold perf edit {number}\n")
        started = time.perf_counter()
        workspace.update_file(full)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def _rg_ms(root: Path, literal: str) -> float:
    started = time.perf_counter()
    subprocess.run(["rg", "-F", "-n", "-S", "--no-heading", "--", literal, "."], cwd=root, capture_output=True,
                   stdin=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - started) * 1000


def _ctags(root: Path) -> tuple[float | None, int]:
    if not shutil.which("ctags"):
        return None, 0
    started = time.perf_counter()
    completed = subprocess.run(["ctags", "-R", "-f", "-", "."], cwd=root, capture_output=True, text=True,
                               errors="replace", stdin=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - started
    return seconds, sum(1 for line in completed.stdout.splitlines() if line and not line.startswith("!_"))


# --- a minimal LSP client for another language server's workspace/symbol ----------------------------
class LspClient:
    """Just enough JSON-RPC over stdio to start a language server, ask it questions, and stop it."""

    def __init__(self, command: Sequence[str], root: Path) -> None:
        self.process = subprocess.Popen(list(command), cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, method: str, params: Any, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        number = None
        if request:
            self.next_id += 1
            number = message["id"] = self.next_id
        body = json.dumps(message).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return number

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            raw = self.process.stdout.readline()
            if not raw:
                raise EOFError("the language server exited")
            header = raw.strip()
            if not header:
                break
            name, _, value = header.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return dict(json.loads(self.process.stdout.read(length)))

    def request(self, method: str, params: Any) -> Any:
        number = self.send(method, params)
        while True:
            message = self.receive()
            if message.get("id") == number and "method" not in message:
                return message.get("result")
            if "method" in message and "id" in message:  # a request from the server: answer null
                self._reply(message["id"])

    def _reply(self, number: int) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": number, "result": None}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.send("exit", None, request=False)
            self.process.wait(timeout=5)
        except (OSError, EOFError, subprocess.TimeoutExpired, ValueError):
            self.process.kill()


def workspace_symbol_ms(command: Sequence[str], root: Path, names: Iterable[str]) -> dict[str, Any]:
    """Start the server on `root`, time `initialize`, then each workspace/symbol request (the first is cold)."""
    client = LspClient(command, root)
    try:
        started = time.perf_counter()
        client.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {},
                                      "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}]})
        client.send("initialized", {}, request=False)
        initialize_ms = (time.perf_counter() - started) * 1000
        timings: list[float] = []
        found = 0
        for name in names:
            if sum(timings) > LSP_BUDGET_S * 1000:
                break
            started = time.perf_counter()
            result = client.request("workspace/symbol", {"query": name})
            timings.append((time.perf_counter() - started) * 1000)
            found += len(result or [])
        return {"command": " ".join(command), "initialize_ms": initialize_ms, "symbol_ms": timings, "found": found}
    finally:
        client.close()


def _lsp(command: Sequence[str], root: Path, names: list[str]) -> dict[str, Any] | None:
    try:
        return workspace_symbol_ms(command, root, names)
    except (OSError, EOFError, ValueError) as error:
        return {"command": " ".join(command), "error": str(error)}


# --- the parent: scales, summary, plots ---------------------------------------------------------------
def run_scale(source: Path, scale: int, args: argparse.Namespace, work: Path) -> Figures:
    """Copy the corpus `scale` times and measure it in a fresh Python process (its own peak RSS)."""
    root = make_corpus(source, scale, work / f"x{scale}")
    out = work / f"x{scale}.json"
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", str(root), "--scale", str(scale),
               "--queries", str(args.queries), "--backend", args.backend, "--out", str(out)]
    if args.lsp_command:
        command += ["--lsp-command", args.lsp_command]
    subprocess.run(command, check=True)
    data = json.loads(out.read_text(encoding="utf-8"))
    shutil.rmtree(root, ignore_errors=True)
    return Figures(**data)


def measure_scales(args: argparse.Namespace) -> list[Figures]:
    args.lsp_command = " ".join(lsp_command(args.lsp_command))
    work = Path(tempfile.mkdtemp(prefix="fourfold-perf-"))
    try:
        results = []
        for scale in (int(s) for s in args.scales.split(",") if s.strip()):
            started = time.perf_counter()
            results.append(run_scale(args.corpus.resolve(), scale, args, work))
            print(f"measured {scale}× in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def lsp_command(requested: str | None) -> list[str]:
    """The other language server to compare with: the one asked for, else jedi-language-server if on PATH."""
    if requested == "":
        return []
    if requested:
        return requested.split()
    found = shutil.which("jedi-language-server")
    return [found] if found else []


def _ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None or denominator <= 0:
        return "—"
    return f"{numerator / denominator:.1f}×"


def _ms(values: Sequence[float]) -> str:
    return f"{percentile(values, .5):.1f} / {percentile(values, .95):.1f}"


def summary(results: Sequence[Figures], machine: str) -> str:
    """The Markdown tables: one column per scale, then query latency per intent and the ratios."""
    lines = [f"Machine: {machine}", "", "| measure | " + " | ".join(f"{r.scale}×" for r in results) + " |",
             "|---|" + "---|" * len(results)]

    def add(label: str, cells: Iterable[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    add("files / corpus MiB", (f"{r.files:,} / {r.corpus_mib:.0f}" for r in results))
    add("symbols / chunks", (f"{r.symbols:,} / {r.chunks:,}" for r in results))
    add("index CPU, engine + workers (s)", (f"{r.index_cpu_s:.1f}" for r in results))
    add("restart: first answer wall / CPU (s)", (f"{r.restart.get('first_answer_s', 0):.2f} / "
                                                 f"{r.restart.get('first_answer_cpu_s', 0):.2f}" for r in results))
    add("restart: first answer from the process's launch, imports included (s)",
        (f"{r.restart.get('from_launch_s', 0):.2f}" for r in results))
    add("restart: re-check of the tree (s)", (f"{r.restart.get('recheck_s', 0):.2f}" for r in results))
    add("RSS while serving after a restart (MiB)", (f"{r.restart.get('serving_rss_mib', 0):.0f}" for r in results))
    add("... of it now: heap / mapped files (MiB)", (f"{r.restart.get('serving_anon_mib', 0):.0f} / "
                                                    f"{r.restart.get('serving_file_mib', 0):.0f}" for r in results))
    add("... after a question / with the graph built (MiB)", (f"{r.restart.get('question_rss_mib', 0):.0f} / "
                                                              f"{r.restart.get('graph_rss_mib', 0):.0f}"
                                                              for r in results))
    add("... with the graph, now: heap / mapped files (MiB)", (f"{r.restart.get('graph_anon_mib', 0):.0f} / "
                                                              f"{r.restart.get('graph_file_mib', 0):.0f}"
                                                              for r in results))
    add(f"... after {RESTART_EDITS} edits and a graph question: peak RSS / heap now (MiB)",
        (f"{r.restart.get('edit_rss_mib', 0):.0f} / {r.restart.get('edit_anon_mib', 0):.0f}" for r in results))
    add(f"... those {RESTART_EDITS} edits: p95 (ms) / graph built in memory",
        (f"{r.restart.get('edit_p95_ms', 0):.1f} / {'yes' if r.restart.get('edit_graph_built') else 'no'}"
         for r in results))
    add("restart: first graph question, wall (s; the graph read in place, else built first)",
        (f"{r.restart.get('graph_question_s', 0):.2f}" for r in results))
    add("cold one-shot index: peak RSS, indexer / largest worker (MiB)",
        (f"{r.cold_index.get('peak_rss_mib', 0):.0f} / {r.cold_index.get('workers_peak_rss_mib', 0):.0f}"
         for r in results))
    add("cold one-shot index: CPU, indexer + workers (s)",
        (f"{r.cold_index.get('main_cpu_s', 0):.1f} + {r.cold_index.get('workers_cpu_s', 0):.1f}" for r in results))
    add("index: text + structural (s)", (f"{r.text_structural_s:.1f}" for r in results))
    add("index: graph (s)", (f"{r.graph_s:.1f}" for r in results))
    add("index: BM25 over chunks (s, background)", (f"{r.bm25_s:.1f}" for r in results))
    add("index: embeddings (s)", ("—" if r.embed_s is None else f"{r.embed_s:.1f} ({r.embedded:,} chunks)"
                                  for r in results))
    add("index size (MiB) / × corpus", (f"{r.index_mib:.0f} / {r.index_mib / max(r.corpus_mib, 1e-9):.2f}"
                                        for r in results))
    add("one-file update p50 / p95 (ms)", (_ms(r.update_ms) for r in results))
    add("query, all intents p50 / p95 (ms)", (_ms([v for vs in r.query_ms.values() for v in vs]) for r in results))
    add("peak RSS: engine / index workers (MiB)", (f"{r.peak_rss_mib:.0f} / {r.peak_worker_rss_mib:.0f}"
                                                   for r in results))
    add("literal: Fourfold p50 (ms)", (f"{percentile(r.literal_ms, .5):.1f}" for r in results))
    add("literal: `rg -F` p50 (ms)", (f"{percentile(r.rg_ms, .5):.1f}" for r in results))
    add("**rg / Fourfold** (literal p50)", (_ratio(percentile(r.rg_ms, .5), percentile(r.literal_ms, .5))
                                             for r in results))
    add("`ctags -R` (s, definitions)", ("—" if r.ctags_s is None else f"{r.ctags_s:.1f} ({r.ctags_definitions:,})"
                                        for r in results))
    add("**Fourfold text+structural / ctags** (time)", (_ratio(r.text_structural_s, r.ctags_s) for r in results))
    add("workspace symbol: Fourfold p50 / p95 (ms)", (_ms(r.symbol_ms) + f" ({r.symbol_found} found)"
                                                     for r in results))
    add("workspace symbol: other server p50 / p95 (ms)", (_lsp_cell(r) for r in results))
    add("**other server / Fourfold** (symbol p50)", (_lsp_ratio(r) for r in results))
    lines += ["", "| intent | " + " | ".join(f"{r.scale}× p50 / p95 ms" for r in results) + " |",
              "|---|" + "---|" * len(results)]
    for intent in sorted({i for r in results for i in r.query_ms}):
        add(intent, (_ms(r.query_ms.get(intent, [])) for r in results))
    notes = sorted(({note for r in results for note in r.notes} | {_lsp_note(r) for r in results}) - {""})
    if notes:
        lines += [""] + [f"- {note}" for note in notes]
    return "\n".join(lines)


def _lsp_cell(figures: Figures) -> str:
    if not figures.lsp or "symbol_ms" not in figures.lsp:
        return "—"
    return _ms(figures.lsp["symbol_ms"]) + f" ({figures.lsp['found']} found; init {figures.lsp['initialize_ms']:.0f})"


def _lsp_ratio(figures: Figures) -> str:
    if not figures.lsp or "symbol_ms" not in figures.lsp:
        return "—"
    return _ratio(percentile(figures.lsp["symbol_ms"], .5), percentile(figures.symbol_ms, .5))


def _lsp_note(figures: Figures) -> str:
    if figures.lsp is None:
        return "no other language server: install jedi-language-server or pass --lsp-command (skipped)"
    if "error" in figures.lsp:
        return f"{figures.lsp['command']} failed: {figures.lsp['error']}"
    return ""


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo").splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} cores, {system}, Python {platform.python_version()}"


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


def write_plots(results: Sequence[Figures], eval_jsons: Sequence[Path], folder: Path) -> list[Path]:
    """Latency distributions, scaling curves and (given eval JSON) quality per intent, as PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    folder.mkdir(parents=True, exist_ok=True)
    written = [_latency_plot(results[0], folder / "latency.png")] if results else []
    if len(results) > 1:
        written.append(_scaling_plot(results, folder / "scaling.png"))
    written += [_quality_plot(path, folder / f"quality-{path.stem}.png") for path in eval_jsons]
    return written


def _latency_plot(figures: Figures, out: Path) -> Path:
    import matplotlib.pyplot as plt

    series = {intent: values for intent, values in sorted(figures.query_ms.items())}
    series["literal (Fourfold)"] = figures.literal_ms
    series["literal (rg -F)"] = figures.rg_ms
    series["one-file update"] = figures.update_ms
    figure, axis = plt.subplots(figsize=(10, 5))
    axis.boxplot([values or [0.0] for values in series.values()], whis=(5, 95), showfliers=True)
    axis.set_xticks(range(1, len(series) + 1), list(series), rotation=30, ha="right")
    axis.set_yscale("log")
    axis.set_ylabel("ms (log scale)")
    axis.set_title(f"Latency distributions at {figures.scale}× ({figures.files:,} files); whiskers p5–p95")
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


def _scaling_plot(results: Sequence[Figures], out: Path) -> Path:
    import matplotlib.pyplot as plt

    scales = [r.scale for r in results]
    figure, axes = plt.subplots(2, 2, figsize=(11, 8))
    index_axis, query_axis, update_axis, memory_axis = axes.flat
    for label, values in (("text + structural", [r.text_structural_s for r in results]),
                          ("graph", [r.graph_s for r in results]), ("BM25", [r.bm25_s for r in results]),
                          ("embeddings", [r.embed_s or 0.0 for r in results]),
                          ("ctags -R", [r.ctags_s or 0.0 for r in results])):
        if any(values):
            index_axis.plot(scales, values, marker="o", label=label)
    index_axis.set(title="Full index time by modality", xlabel="corpus copies", ylabel="s")
    for label, share in (("query p50", .5), ("query p95", .95)):
        query_axis.plot(scales, [percentile([v for vs in r.query_ms.values() for v in vs], share) for r in results],
                        marker="o", label=label)
    query_axis.plot(scales, [percentile(r.rg_ms, .5) for r in results], marker="s", label="rg -F p50")
    query_axis.set(title="Query latency", xlabel="corpus copies", ylabel="ms")
    for label, share in (("update p50", .5), ("update p95", .95)):
        update_axis.plot(scales, [percentile(r.update_ms, share) for r in results], marker="o", label=label)
    update_axis.set(title="One-file update latency", xlabel="corpus copies", ylabel="ms")
    memory_axis.plot(scales, [r.peak_rss_mib for r in results], marker="o", label="peak RSS (MiB)")
    memory_axis.plot(scales, [r.index_mib for r in results], marker="s", label="index on disk (MiB)")
    memory_axis.plot(scales, [r.corpus_mib for r in results], marker="^", label="corpus (MiB)")
    memory_axis.set(title="Memory and disk", xlabel="corpus copies", ylabel="MiB")
    for axis in axes.flat:
        axis.set_xticks(scales)
        axis.legend(fontsize=8)
        axis.grid(alpha=.3)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


def _quality_plot(eval_json: Path, out: Path) -> Path:
    """nDCG@10 per intent: the fused engine beside each baseline, from `fourfold eval --json`."""
    import matplotlib.pyplot as plt

    rows = json.loads(eval_json.read_text(encoding="utf-8"))["rows"]
    groups = list(dict.fromkeys(row["group"] for row in rows if row["ndcg"] is not None))
    systems = list(dict.fromkeys(row["system"] for row in rows))
    value = {(row["system"], row["group"]): row["ndcg"] or 0.0 for row in rows}
    width = 0.8 / max(len(systems), 1)
    figure, axis = plt.subplots(figsize=(12, 5))
    for number, system in enumerate(systems):
        axis.bar([g + number * width for g in range(len(groups))], [value.get((system, g), 0.0) for g in groups],
                 width, label=system)
    axis.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))], groups, rotation=15)
    axis.set(ylabel="nDCG@10", ylim=(0, 1), title=f"Quality per intent: fused vs baselines ({eval_json.name})")
    axis.legend(fontsize=8, ncol=len(systems), loc="upper center", bbox_to_anchor=(0.5, -0.12))
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return out


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--queries", type=Path, default=DEFAULT_QUERIES, help="labelled query set (JSONL)")
    parser.add_argument("--scales", default="1,2,4", help="comma-separated corpus multiples")
    parser.add_argument("--backend", default="local", choices=("local", "minilm", "voyage", "none"))
    parser.add_argument("--eval-json", type=Path, action="append", default=[], help="`fourfold eval --json` output")
    parser.add_argument("--plots", default=str(HERE / "plots"), help="PNG folder ('' for none)")
    parser.add_argument("--lsp-command", help="another language server's command ('' to skip)")
    parser.add_argument("--json", dest="json_out", type=Path, help="write every figure here")
    parser.add_argument("--replot", type=Path, help="summarise and plot a saved --json run instead of measuring")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--scale", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--restart", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cold-index", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--server-index", type=Path, help="a server's first index of this tree: peak and heap (JSON)")
    parser.add_argument("--index-dir", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.restart is not None:
        print(json.dumps(restart_figures(args.restart, args.index_dir, args.backend)))
        return 0
    if args.cold_index is not None:
        print(json.dumps(cold_index_figures(args.cold_index, args.index_dir, args.backend)))
        return 0
    if args.server_index is not None:
        folder = args.index_dir or tempfile.mkdtemp(prefix="fourfold-perf-server-")
        try:
            print(json.dumps(server_index_figures(args.server_index, folder, args.backend)))
        finally:
            if not args.index_dir:
                shutil.rmtree(folder, ignore_errors=True)
        return 0
    queries = load_queries(args.queries)
    if args.measure is not None:
        figures = measure(args.measure, args.scale, queries, args.backend, args.lsp_command.split()
                          if args.lsp_command else [])
        args.out.write_text(json.dumps(asdict(figures)), encoding="utf-8")
        return 0
    if args.replot is not None:
        results = [Figures(**row) for row in json.loads(args.replot.read_text(encoding="utf-8"))]
    elif not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: run bench/fetch_django.sh first", file=sys.stderr)
        return 2
    else:
        results = measure_scales(args)
    source = args.replot.name if args.replot else f"{args.corpus.name}, backend {args.backend}"
    print(f"# Fourfold performance: {source}\n")
    print(summary(results, machine()))
    if args.plots:
        for path in write_plots(results, args.eval_json, Path(args.plots)):
            print(f"\nplot: {path}")
    if args.json_out:
        args.json_out.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
