"""Fault bench (issue 12): hazards thrown at the engine, and what became of each.

    python bench/faults.py [--corpus DIR] [--kills N] [--edits N] [--work DIR]

Default corpus: bench/corpora/rich-13.9.4 (bench/fetch_rich.sh), and rxjs-7.8.1 for the kill -9 loops
(bench/fetch_rxjs.sh; 262 files, enough for the worker pool). For every hazard it reports one of
  survived   the engine kept going and answered as a clean index does,
  recovered  something was damaged or refused, the engine said so and rebuilt what it touched, and
             then answered as a clean index does,
  lost       a crash, a hang, a wrong or stale answer, or a process left behind.
Families: hostile trees (names, depth, ignore files, encodings), damaged stored data (each kind of
blob), runaway regexes through the CLI, a file that crashes its worker process, kill -9 of a cold
and of an incremental index (with the pool workers it leaves), and many edits followed by a
comparison of every preset with a fresh index.
A benchmark, not a test: it prints figures (and `--json` writes them) and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.lexical import MANIFEST
from fourfold.engine.index.store import INDEX_FILE, SAVED_FILE
from fourfold.engine.service.embedder import CACHE_FILE
from fourfold.engine.service.workspace import LEXICAL_FOLDER, RANK_ENTRY, SAVED_ENTRY, UNREADABLE_ENTRY

HERE = Path(__file__).resolve().parent
QUERIES = ["Console", "render", "how are tables rendered", '"Traceback"', "re:def _\\w+_style", "who calls print",
           "what depends on Segment", "progress bar columns", "Style.parse"]
PRESETS = ("quick", "default", "thorough")
HANG_S = 300.0


class NothingToDamage(Exception):
    """The part a damage case garbles is not in this index (a corpus without unreadable files, say)."""


class Tally:
    """Outcomes by family: tried = survived + recovered + lost."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}
        self.lost: list[str] = []

    def add(self, family: str, outcome: str, what: str) -> None:
        self.counts.setdefault(family, Counter())[outcome] += 1
        if outcome == "lost":
            self.lost.append(f"{family}: {what}")
        print(f"  {family:<18} {outcome:<9} {what}", flush=True)

    def table(self) -> dict[str, dict[str, int]]:
        rows = {family: {"tried": sum(c.values()), "survived": c["survived"], "recovered": c["recovered"],
                         "lost": c["lost"]} for family, c in self.counts.items()}
        rows["total"] = {key: sum(row[key] for row in rows.values()) for key in ("tried", "survived", "recovered",
                                                                                 "lost")}
        return rows


def open_index(root: Path, index: Path, backend: str = "none", background: bool = False) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend=backend), background=background)


def answers(index: Workspace, presets: tuple[str, ...] = ("default",), queries: list[str] = QUERIES) -> list[Any]:
    found = []
    for preset in presets:
        for query in queries:
            rows = index.search_dict(SearchRequest(query, preset=preset, limit=10))["results"]
            found.append([(row["path"], row["symbol"], row["range"]["start"]["line"]) for row in rows])
    return found


def wait_for(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + HANG_S
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# --- hostile trees -----------------------------------------------------------------------------

def probe(code: str, family: str, label: str, tally: Tally) -> dict[str, Any] | None:
    """Run `code` in a fresh interpreter and read the JSON line it prints last; a hang or a non-zero
    exit is counted as lost under `family` (None is returned then)."""
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S)
    except subprocess.TimeoutExpired:
        tally.add(family, "lost", f"{label}: hung")
        return None
    if done.returncode != 0:
        tally.add(family, "lost", f"{label}: exit {done.returncode}: {done.stderr.strip()[-200:]}")
        return None
    return dict(json.loads(done.stdout.splitlines()[-1]))


def hostile_trees(base: Path, corpus: Path, clean: set[str], tally: Tally) -> None:
    """Each hazard is added to a copy of the corpus: the index must be ready and hold every file the
    clean one holds (the hazard costs its own entry at most), and a literal search must answer."""
    outside = base / "outside"
    outside.mkdir()
    (outside / "rules").write_text("*.py\n")

    def non_utf8(root: Path) -> None:
        with open(os.path.join(os.fsencode(root), b"latin1_\xe9.py"), "wb") as handle:
            handle.write(b"x = 1\n")

    def deep(root: Path) -> None:
        folder = root / "hazard"
        for _ in range(600):
            folder = folder / "d"
        folder.mkdir(parents=True)
        (folder / "bottom.txt").write_text("deep\n")

    def patterns(root: Path) -> None:
        (root / "hazard").mkdir()
        (root / "hazard" / ".gitignore").write_text("\n".join(f"**/[!.]*_{n}.py" for n in range(3000)) + "\n")

    def fifo(root: Path) -> None:
        (root / "hazard.d").mkdir()
        os.mkfifo(root / "hazard.d" / ".gitignore")

    def utf16(root: Path) -> None:
        (root / "hazard_utf16.txt").write_bytes("\ufeffwindows notes\n".encode("utf-16-le"))

    hazards: dict[str, Callable[[Path], None]] = {
        "non-UTF-8 name": non_utf8,
        "600 nested folders": deep,
        "FIFO .gitignore": fifo,
        ".fourfoldignore -> /dev/zero": lambda root: os.symlink("/dev/zero", root / ".fourfoldignore"),
        ".ignore -> outside the root": lambda root: os.symlink(outside / "rules", root / ".ignore"),
        "3,000 ignore patterns": patterns,
        "UTF-16 file with a BOM": utf16,
    }
    for name, plant in hazards.items():
        root = base / f"tree-{len(os.listdir(base))}"
        shutil.copytree(corpus, root, symlinks=True)
        plant(root)
        code = textwrap.dedent(f"""
            import json
            from pathlib import Path
            from fourfold.engine import Settings, SearchRequest, Workspace
            ws = Workspace(Path({str(root)!r}), Settings(index_dir={str(root) + '.index'!r}, semantic_backend="none"),
                           background=False)
            ws.refresh()
            found = ws.search_dict(SearchRequest('"import"', preset="default", limit=10))["results"]
            print(json.dumps({{"state": ws.status()["state"], "skipped": ws.status()["skipped_by_reason"],
                              "paths": sorted(ws.snapshot().files), "answered": len(found)}}))
        """)
        report = probe(code, "hostile tree", name, tally)
        if report is None:
            continue
        same = clean <= set(report["paths"]) and report["answered"] > 0
        refused = bool(report["skipped"]) or name.startswith("UTF-16")
        outcome = "lost" if report["state"] != "ready" or not same else "recovered" if refused else "survived"
        tally.add("hostile tree", outcome, f"{name}: skipped {report['skipped']}")
        shutil.rmtree(root, ignore_errors=True)


# --- damaged stored data -----------------------------------------------------------------------

def damaged_data(base: Path, corpus: Path, tally: Tally, rounds: int, rng: random.Random) -> None:
    """Garble one kind of stored blob at a time; reopen, refresh, and compare with a clean index."""
    clean_dir = base / "damage-clean"
    reference = open_index(corpus, clean_dir, backend="local")
    reference.refresh()
    reference.embed_pending()
    expected = answers(reference, PRESETS)
    reference.close()

    def garble_rows(index: Path, column: str) -> None:
        db = sqlite3.connect(index / INDEX_FILE)
        paths = [row[0] for row in db.execute("SELECT path FROM files")]
        with db:
            for path in rng.sample(paths, 3):
                blob = bytearray(db.execute(f"SELECT {column} FROM files WHERE path = ?", (path,)).fetchone()[0])
                for _ in range(4):
                    blob[rng.randrange(len(blob))] ^= 0xFF
                db.execute(f"UPDATE files SET {column} = ? WHERE path = ?", (bytes(blob), path))
        db.close()

    def garble_vectors(index: Path) -> None:
        db = sqlite3.connect(index / CACHE_FILE)
        with db:
            db.execute("UPDATE vectors SET vector = randomblob(length(vector)) WHERE digest IN"
                       " (SELECT digest FROM vectors ORDER BY random() LIMIT 5)")
        db.close()

    def garble_header(index: Path) -> None:
        path = index / INDEX_FILE
        data = bytearray(path.read_bytes())
        start = rng.randrange(16, 100)
        data[start : start + 64] = os.urandom(64)
        path.write_bytes(bytes(data))

    def garble_derived(index: Path, name: str) -> None:
        db = sqlite3.connect(index / INDEX_FILE)
        with db:
            row = db.execute("SELECT blob FROM derived WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise NothingToDamage(f"this corpus's index stores no {name!r} entry")
            blob = bytearray(row[0])
            for _ in range(8):
                blob[rng.randrange(len(blob))] ^= 0xFF
            db.execute("UPDATE derived SET blob = ? WHERE name = ?", (bytes(blob), name))
        db.close()

    def garble_saved_file(index: Path, cut: bool, name: str = SAVED_FILE) -> None:
        """Flip bytes in a memory-mapped file beside the index file (the saved indexes, the centrality),
        or cut it in half."""
        path = index / name
        if not path.exists():
            raise NothingToDamage(f"this corpus's index keeps no {name} file")
        data = bytearray(path.read_bytes())
        if cut:
            del data[len(data) // 2 :]
        for _ in range(0 if cut else 8):
            data[rng.randrange(len(data))] ^= 0xFF
        path.write_bytes(bytes(data))

    def garble_bm25(index: Path) -> None:
        """Flip bytes in one of the stored BM25's arrays or JSON files (not its manifest: a manifest garbled
        into another valid key reads as a copy of other rows, which is rebuilt too, but not said)."""
        files = sorted(p for p in (index / LEXICAL_FOLDER).glob("*") if p.name != MANIFEST)
        if not files:
            raise NothingToDamage("this corpus's index stores no BM25")
        path = rng.choice(files)
        data = bytearray(path.read_bytes())
        for _ in range(8):
            data[rng.randrange(len(data))] ^= 0xFF
        path.write_bytes(bytes(data))

    kinds: dict[str, Callable[[Path], None]] = {
        "trigram blob": lambda index: garble_rows(index, "trigrams"),
        "parsed row": lambda index: garble_rows(index, "parsed"),
        "embedding row": garble_vectors,
        "index header": garble_header,
        "stored centrality": lambda index: garble_derived(index, RANK_ENTRY),
        "unreadable list": lambda index: garble_derived(index, UNREADABLE_ENTRY),
        "saved indexes": lambda index: garble_derived(index, SAVED_ENTRY),
        "saved index file": lambda index: garble_saved_file(index, cut=False),
        "saved file cut": lambda index: garble_saved_file(index, cut=True),
        "centrality file": lambda index: garble_saved_file(index, cut=False, name=RANK_ENTRY),
        "stored BM25": garble_bm25,
    }
    for kind, damage in kinds.items():
        for round_ in range(rounds):
            index = base / f"damage-{kind.replace(' ', '-')}-{round_}"
            shutil.copytree(clean_dir, index)
            try:
                damage(index)
            except NothingToDamage as reason:
                print(f"  {'damaged data':<18} {'skipped':<9} {kind}: {reason}", flush=True)
                break
            try:
                again = open_index(corpus, index, backend="local")
                again.refresh()
                again.embed_pending()
                same = answers(again, PRESETS) == expected  # first: a stored BM25 is opened by the first question
                said = again.status()["repairs"] or again.status()["last_error"]
                again.close()
            except Exception as error:
                tally.add("damaged data", "lost", f"{kind}: {type(error).__name__}: {error}")
                continue
            outcome = "lost" if not same or not said else "recovered"
            tally.add("damaged data", outcome, f"{kind}: {said}")


# --- runaway regexes ---------------------------------------------------------------------------

def runaway_regexes(corpus: Path, base: Path, tally: Tally) -> None:
    """The CLI must answer (or refuse) and exit; no thread may keep it alive."""
    queries = {
        "149 counted alternatives": "re:(" + "|".join(f"x{{{n}}}y" for n in range(1, 150)) + ")",
        "990 nested groups": "re:" + "(" * 990 + "x" + ")" * 990,
        "(a+)+$ on every file": "re:(a+)+$",
        "nested counted repeats": "re:((a{100}){100}){100}",
    }
    fourfold = [sys.executable, "-m", "fourfold.lsp.cli"]
    for name, query in queries.items():
        command = [*fourfold, "search", query, "--root", str(corpus), "--backend", "none",
                   "--index-dir", str(base / "regex-index"), "--json"]
        started = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            tally.add("runaway regex", "lost", f"{name}: CLI still running after 60 s")
            continue
        seconds = time.perf_counter() - started
        if done.returncode == 0:
            tally.add("runaway regex", "survived", f"{name}: answered, exit 0 in {seconds:.1f} s")
        elif done.returncode == 2 and "Traceback" not in done.stderr:
            tally.add("runaway regex", "recovered", f"{name}: refused ({done.stderr.strip()[:80]}) in {seconds:.1f} s")
        else:
            tally.add("runaway regex", "lost", f"{name}: exit {done.returncode}: {done.stderr.strip()[-200:]}")


# --- a file that crashes its worker ---------------------------------------------------------------

POISON = "hazard_poison.js"


def crash_on_poison(job: tuple[Path, str, int]) -> Any:
    """A worker's per-file job that dies as a crashing grammar would (SIGKILL), on the planted file only."""
    from fourfold.engine.service.workspace import _index_job

    if Path(job[1]).name == POISON:
        os.kill(os.getpid(), signal.SIGKILL)
    return _index_job(job)


def worker_crashes(base: Path, corpus: Path, tally: Tally, rounds: int) -> None:
    """A file that kills its pool worker must cost that file only (the corpus must use the pool)."""
    clean_dir = base / "crash-clean"
    reference = open_index(corpus, clean_dir)
    reference.refresh()
    clean = set(reference.snapshot().files)
    reference.close()
    for round_ in range(rounds):
        root = base / f"crash-{round_}"
        shutil.copytree(corpus, root, symlinks=True)
        files = sorted(p for p in root.rglob("*") if p.is_file())
        target = files[len(files) * (round_ + 1) // (rounds + 1)].parent / POISON  # early, middle, late
        target.write_text("export const poison = 1;\n")
        relative = target.relative_to(root).as_posix()
        code = textwrap.dedent(f"""
            import json, sys
            from pathlib import Path
            sys.path.insert(0, {str(HERE)!r})
            from faults import crash_on_poison
            from fourfold.engine import Settings, Workspace
            ws = Workspace(Path({str(root)!r}), Settings(index_dir={str(root) + '.index'!r}, semantic_backend="none"),
                           background=False)
            ws.index_job = crash_on_poison
            ws.refresh()
            print(json.dumps({{"state": ws.status()["state"], "culprit": ws.snapshot().skipped.get({relative!r}),
                              "paths": sorted(ws.snapshot().files)}}))
        """)
        report = probe(code, "worker crash", relative, tally)
        if report is None:
            continue
        kept = clean <= set(report["paths"]) and relative not in report["paths"]
        # the culprit's own entry: the status lists only the first skipped files, and a big tree's
        # binary files come before it
        said = report["culprit"] == "crashed the indexing worker process"
        outcome = "recovered" if report["state"] == "ready" and kept and said else "lost"
        tally.add("worker crash", outcome, f"{relative}: {len(report['paths'])} files indexed, the culprit skipped")
        shutil.rmtree(root, ignore_errors=True)


# --- kill -9 -----------------------------------------------------------------------------------

INDEXER = """
import sys
from pathlib import Path
from fourfold.engine import Settings, Workspace
Workspace(Path(sys.argv[1]), Settings(index_dir=sys.argv[2], semantic_backend="none"), background=False).refresh()
"""


def kill_loops(base: Path, corpus: Path, tally: Tally, kills: int, rng: random.Random) -> None:
    """kill -9 a cold index (and an incremental one) at random moments; the next start must recover
    and answer as a clean index, and no pool worker or resource tracker may outlive the killed one."""
    clean_dir = base / "kill-clean"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", INDEXER, str(corpus), str(clean_dir)], check=True)
    full = time.perf_counter() - started
    reference = open_index(corpus, clean_dir)
    expected = answers(reference)
    reference.close()
    work = base / "kill-tree"
    shutil.copytree(corpus, work, symlinks=True)
    for round_ in range(kills):
        incremental = round_ % 3 == 2
        index = base / f"kill-{round_}"
        if incremental:
            shutil.copytree(clean_dir, index)
            for path in rng.sample(sorted(p for p in work.rglob("*") if p.is_file()), 40):
                os.utime(path, ns=(time.time_ns(), time.time_ns()))  # forces a re-read of 40 files
        delay = rng.uniform(0.3, full * (0.5 if incremental else 1.0))
        child = subprocess.Popen([sys.executable, "-c", INDEXER, str(work), str(index)])
        time.sleep(delay)
        workers = children(child.pid)
        child.send_signal(signal.SIGKILL)
        child.wait()
        left = wait_for(lambda workers=workers: not any(alive(pid) for pid in workers))
        what = f"{'incremental' if incremental else 'cold'} index killed at {delay:.1f} s, {len(workers)} child(ren)"
        if not left:
            tally.add("kill -9", "lost", f"{what}: children outlived it")
            for pid in workers:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            continue
        try:
            again = open_index(work, index)
            again.refresh()
            same = answers(again) == expected
            again.close()
        except Exception as error:
            tally.add("kill -9", "lost", f"{what}: {type(error).__name__}: {error}")
            continue
        tally.add("kill -9", "recovered" if same else "lost", what + ("" if same else ": answers differ"))
        shutil.rmtree(index, ignore_errors=True)


# --- edits -------------------------------------------------------------------------------------

def many_edits(base: Path, corpus: Path, tally: Tally, edits: int, rng: random.Random, queries: list[str]) -> None:
    """Create, modify, rename and delete files through the engine's one-file updates, then, once status
    says every modality is current, compare every preset with a fresh index of the same files."""
    root = base / "edit-tree"
    shutil.copytree(corpus, root, symlinks=True)
    live = open_index(root, base / "edit-live", backend="local", background=True)
    live.refresh()
    live.embed_pending()
    answers(live, PRESETS, queries)  # builds BM25 now, so it too has to catch up with the edits
    created: list[Path] = []
    existing = sorted(p for p in root.rglob("*.py") if p.is_file())
    started = time.perf_counter()
    for step in range(edits):
        kind = rng.choice(("create", "modify", "rename", "delete"))
        pool = created or existing
        if kind == "create" or not pool:
            path = root / "generated" / f"edit_{step}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"def handle_event_{step}(event):\n    \"\"\"Route event {step}.\"\"\"\n"
                            f"    return dispatch(event, {step})\n")
            created.append(path)
            live.update_file(path)
        elif kind == "modify":
            path = rng.choice(pool)
            with open(path, "a") as handle:
                handle.write(f"\n\ndef audit_step_{step}(rows):\n    return [row for row in rows if row]\n")
            live.update_file(path)
        elif kind == "rename":
            path = pool.pop(rng.randrange(len(pool)))
            new = path.with_name(f"renamed_{step}_{path.name}")
            os.rename(path, new)
            pool.append(new)
            live.rename_file(path, new)
        else:
            path = pool.pop(rng.randrange(len(pool)))
            path.unlink()
            live.update_file(path)
    applied = time.perf_counter() - started
    caught_up = wait_for(lambda: bool(live.status()["current"]))
    waited = time.perf_counter() - started - applied
    if not caught_up:
        tally.add("edits", "lost", f"{edits} edits: status never said current")
        return
    fresh = open_index(root, base / "edit-fresh", backend="local", background=True)
    fresh.refresh()
    fresh.embed_pending()
    wait_for(lambda: bool(fresh.status()["current"]))
    mine, theirs = answers(live, PRESETS, queries), answers(fresh, PRESETS, queries)
    differing = sum(1 for a, b in zip(mine, theirs, strict=True) if a != b)
    for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        preset, query = PRESETS[index // len(queries)], queries[index % len(queries)]
        tally.add("edits", "survived" if a == b else "lost", f"{preset} {query!r} after {edits} edits")
    print(f"  edits applied in {applied:.1f} s, all modalities current {waited:.1f} s later; "
          f"{differing} of {len(mine)} searches differ from a fresh index")
    live.close()
    fresh.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpora" / "rich-13.9.4")
    parser.add_argument("--kill-corpus", type=Path, default=HERE / "corpora" / "rxjs-7.8.1",
                        help="corpus for the kill -9 loops: big enough (200+ files) for the worker pool")
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--edits", type=int, default=500)
    parser.add_argument("--damage-rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--queries", type=Path, default=HERE / "queries" / "rich.jsonl",
                        help="JSONL query set the edit family compares (default: Rich's 47; missing: a built-in 9)")
    parser.add_argument("--only", default="trees,damage,regex,crash,kill,edits")
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    base = Path(tempfile.mkdtemp(prefix="fourfold-faults-", dir=args.work))
    rng = random.Random(12)
    tally = Tally()
    only = set(args.only.split(","))
    try:
        if "trees" in only:
            print("hostile trees", flush=True)
            clean = open_index(corpus, base / "tree-clean")
            clean.refresh()
            hostile_trees(base, corpus, set(clean.snapshot().files), tally)
            clean.close()
        if "damage" in only:
            print("damaged stored data", flush=True)
            damaged_data(base, corpus, tally, args.damage_rounds, rng)
        if "regex" in only:
            print("runaway regexes", flush=True)
            runaway_regexes(corpus, base, tally)
        if "crash" in only:
            print("worker crashes", flush=True)
            worker_crashes(base, args.kill_corpus.resolve(), tally, 3)
        if "kill" in only:
            print("kill -9", flush=True)
            kill_loops(base, args.kill_corpus.resolve(), tally, args.kills, rng)
        if "edits" in only:
            print("edits", flush=True)
            queries = ([json.loads(line)["query"] for line in args.queries.read_text().splitlines() if line.strip()]
                       if args.queries.is_file() else QUERIES)
            many_edits(base, corpus, tally, args.edits, rng, queries)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    table = tally.table()
    print(f"\n{'family':<16} {'tried':>6} {'survived':>9} {'recovered':>10} {'lost':>5}")
    for family, row in table.items():
        print(f"{family:<16} {row['tried']:>6} {row['survived']:>9} {row['recovered']:>10} {row['lost']:>5}")
    for item in tally.lost:
        print(f"LOST {item}")
    if args.json is not None:
        args.json.write_text(json.dumps({"corpus": str(corpus), "figures": table, "lost": tally.lost}, indent=2))


if __name__ == "__main__":
    main()
