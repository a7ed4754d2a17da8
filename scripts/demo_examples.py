"""Print the class and the function of FOLDER that the most of its code depends on (PageRank over its
code graph), one a line (empty when it has none), so `scripts/demo FOLDER` asks about that folder's own
code rather than Fourfold's. Test code and private names are left out. Usage: demo_examples.py FOLDER"""
import sys
from pathlib import Path

from fourfold.engine import Settings, Workspace

TYPE_KINDS = ("class", "struct", "interface", "trait")
FUNCTION_KINDS = ("function", "method")

workspace = Workspace(Path(sys.argv[1]), Settings(semantic_backend="none"), background=False)
try:
    workspace.refresh()
    snapshot = workspace.snapshot()
    best: dict[str, tuple[float, str]] = {}
    for path, parsed in snapshot.parsed.items():
        for symbol in parsed.symbols:
            family = "type" if symbol.kind in TYPE_KINDS else "function" if symbol.kind in FUNCTION_KINDS else None
            if family is None or "test" in path.lower() or symbol.name.startswith("_"):
                continue
            score = snapshot.graph.centrality_of(path, symbol.qualified)
            if score > best.get(family, (-1.0, ""))[0]:
                best[family] = (score, symbol.qualified)
    print(best.get("type", (0, ""))[1])
    print(best.get("function", (0, ""))[1])
finally:
    workspace.close()
