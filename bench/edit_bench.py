"""One-file edits after a restart (issue 17): a fresh process reopens a saved index, then edits files.

    python bench/edit_bench.py --corpus bench/corpora/django-5.1.4 --scales 1,4 --edits 30
    python bench/edit_bench.py --work /tmp/edits --keep ...     # reuse the copies and their indexes next time
    python bench/edit_bench.py ... --kind define               # edits that add a definition (an overlay too)
    python bench/edit_bench.py ... --kind add                  # edits that create a file beside a random one
    python bench/edit_bench.py ... --kind remove               # edits that delete a random source file

What `bench/perf.py`'s `--restart` step times after its restart figures, on its own and over more edits:
per scale the corpus is copied that many times side by side (as perf.py does), indexed once in a fresh
process, then each run is a fresh process that opens the index as a one-shot CLI does (no background
threads, so its CPU is the edits'), re-checks the tree and warms up as a server does after a restart
(`Workspace.warm_up`, untimed: a server runs it in the background before the first keystroke), then times
`--edits` one-file updates of random source files: wall and CPU (`time.process_time`) per edit. `--cold`
skips the warm-up, so the first edit pays it. Edited files are put back and updated again at the end, so
every run reopens the same tree. A benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from fourfold.engine import Settings, Workspace
from fourfold.lsp.evaluation import percentile

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from perf import COMMENT, make_corpus  # noqa: E402  (the benchmark's corpus copies and comment markers)

# A comment appended (definitions kept), a new top-level function appended, a new file beside a random
# source file (it defines a function and imports the one beside it, as an agent writes a module), or a random
# source file deleted.
KINDS = ("body", "define", "add", "remove")
DEFINE = {"python": "\ndef fourfold_edit_{n}():\n    return {n}\n",
          "javascript": "\nfunction fourfoldEdit{n}() {{ return {n}; }}\n",
          "typescript": "\nfunction fourfoldEdit{n}(): number {{ return {n}; }}\n"}
ADD = {"python": ("fourfold_new_{n}.py", "from . import {stem}\n\n\ndef fourfold_new_{n}():\n    return {stem}\n"),
       "javascript": ("fourfoldNew{n}.js", "import * as near from './{stem}';\n\n"
                                           "export function fourfoldNew{n}() {{ return near; }}\n"),
       "typescript": ("fourfoldNew{n}.ts", "import * as near from './{stem}';\n\n"
                                           "export function fourfoldNew{n}(): unknown {{ return near; }}\n")}


def _edited(root: Path, path: str, language: str, number: int, kind: str, originals: dict[Path, bytes | None]
            ) -> Path:
    """Make edit `number` of `kind` on disk (what it changed remembered in `originals`: None for a file it
    created); the file to update."""
    full = root / path
    if kind == "add":
        name, text = ADD[language]
        full = full.with_name(name.format(n=number))
        full.write_text(text.format(n=number, stem=Path(path).stem), encoding="utf-8")
        originals[full] = None
        return full
    originals.setdefault(full, full.read_bytes())
    if kind == "remove":
        full.unlink()
        return full
    text = f"\n{COMMENT[language]} fourfold edit {number}\n" if kind == "body" else DEFINE[language].format(n=number)
    with full.open("a", encoding="utf-8") as handle:
        handle.write(text)
    return full


def edit_figures(root: Path, index_dir: str, edits: int, kind: str, cold: bool) -> dict[str, object]:
    """What one run measures, in its own process."""
    workspace = Workspace(root, Settings(index_dir=index_dir, semantic_backend="none"), background=False)
    try:
        workspace.refresh()  # the re-check a server runs after opening (nothing changed: nothing parsed)
        warm_s = 0.0
        if not cold:
            started = time.perf_counter()
            workspace.warm_up()
            warm_s = time.perf_counter() - started
        snapshot = workspace.snapshot()
        markers = COMMENT if kind in ("body", "remove") else DEFINE if kind == "define" else ADD
        editable = sorted(path for path, record in snapshot.files.items() if record.language in markers)
        rng = random.Random(11)
        originals: dict[Path, bytes | None] = {}
        wall_ms: list[float] = []
        cpu_ms: list[float] = []
        try:
            for number in range(edits):
                path = rng.choice([path for path in editable if root / path not in originals or kind != "remove"])
                full = _edited(root, path, snapshot.files[path].language or "", number, kind, originals)
                started, cpu = time.perf_counter(), time.process_time()
                workspace.update_file(full)
                cpu_ms.append((time.process_time() - cpu) * 1000)
                wall_ms.append((time.perf_counter() - started) * 1000)
            graph = workspace.snapshot().graph
            built = graph.built
        finally:
            for full, data in originals.items():
                if data is None:
                    full.unlink()
                else:
                    full.write_bytes(data)
                workspace.update_file(full)
    finally:
        workspace.close()
    return {"wall_ms": wall_ms, "cpu_ms": cpu_ms, "warm_up_s": warm_s, "graph_built": built,
            "load_1min": os.getloadavg()[0]}


def _index(root: Path, index_dir: Path) -> None:
    """A first index in a fresh process, as `fourfold index` runs it."""
    workspace = Workspace(root, Settings(index_dir=str(index_dir), semantic_backend="none"), background=False)
    try:
        workspace.refresh()
    finally:
        workspace.close()


def _summary(values: list[float]) -> str:
    return (f"first {values[0]:.1f}, median {median(values):.1f}, p95 {percentile(values, .95):.1f}, "
            f"max {max(values):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=HERE / "corpora" / "django-5.1.4")
    parser.add_argument("--scales", default="1,4")
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--runs", type=int, default=1, help="fresh processes per scale")
    parser.add_argument("--kind", choices=KINDS, default="body")
    parser.add_argument("--cold", action="store_true", help="no warm-up before the first edit")
    parser.add_argument("--work", type=Path, help="folder for the copies and indexes (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep --work for the next run")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)  # one run, in its own process
    parser.add_argument("--index-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run is not None:
        print(json.dumps(edit_figures(args.run, args.index_dir, args.edits, args.kind, args.cold)))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="fourfold-edits-"))
    results: dict[str, list[dict[str, object]]] = {}
    try:
        for scale in (int(s) for s in args.scales.split(",")):
            root, index_dir = work / f"{scale}x" / "tree", work / f"{scale}x" / "index"
            if not (index_dir / "index.sqlite").is_file():
                shutil.rmtree(work / f"{scale}x", ignore_errors=True)
                make_corpus(args.corpus, scale, root)
                index_dir.mkdir(parents=True)
                _index(root, index_dir)
            runs = []
            for _ in range(args.runs):
                command = [sys.executable, str(Path(__file__).resolve()), "--run", str(root), "--index-dir",
                           str(index_dir), "--edits", str(args.edits), "--kind", args.kind]
                completed = subprocess.run([*command, *(["--cold"] if args.cold else [])], capture_output=True,
                                           text=True, check=True, stdin=subprocess.DEVNULL)
                run = json.loads(completed.stdout.splitlines()[-1])
                runs.append(run)
                print(f"{scale}x {args.kind}{' cold' if args.cold else ''}: wall ms {_summary(run['wall_ms'])}; "
                      f"CPU ms {_summary(run['cpu_ms'])}; warm-up {run['warm_up_s']:.3f} s; "
                      f"graph built {run['graph_built']}; load {run['load_1min']:.2f}", flush=True)
            results[f"{scale}x"] = runs
    finally:
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
