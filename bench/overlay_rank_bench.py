"""What ranking a mapped graph again over an edit costs (issue 17): open a stored index as a restart does,
append a definition to one file, then time `graph.refresh_centrality()`, which a server runs behind a burst
of edits. The file is restored, and indexed again, afterwards.

    python bench/overlay_rank_bench.py [CORPUS] --index-dir DIR [--file PATH]

A benchmark, not a test: it prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from fourfold.engine import Settings, Workspace

HERE = Path(__file__).resolve().parent
PROBE = "\n\ndef fourfold_rank_probe(value):\n    return capfirst(value)\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(HERE / "corpora" / "django-5.1.4"))
    parser.add_argument("--index-dir", required=True, help="an index of the corpus, stored by an earlier run")
    parser.add_argument("--file", default="django/utils/text.py", help="the file edited, relative to the corpus")
    args = parser.parse_args()
    root = Path(args.corpus).resolve()
    workspace = Workspace(root, Settings(index_dir=args.index_dir, semantic_backend="none"), background=False)
    edited = root / args.file
    original = edited.read_text()
    try:
        edited.write_text(original + PROBE)
        workspace.update_file(edited)
        graph = workspace.snapshot().graph
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        wall, cpu = time.perf_counter(), time.process_time()
        graph.refresh_centrality()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"graph mapped: {graph.mapped}, files edited in place: {graph.edited_in_place}")
        print(f"ranked again over the overlay: {wall:.3f} s wall, {cpu:.3f} s CPU; "
              f"peak RSS {before:.0f} -> {after:.0f} MiB")
        print(f"centrality of the added definition: {graph.centrality_of(args.file, 'fourfold_rank_probe'):.4f}")
    finally:
        edited.write_text(original)
        workspace.update_file(edited)
        workspace.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
