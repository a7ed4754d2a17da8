"""The engine's packages are its pipeline: imports run one way, down the layers, and no modules form a cycle.

A package may import its own modules and any package of a lower layer, never one above or beside it:
- the graph and the embeddings are computed from parsed records alone and know nothing of each other;
- the index stores them and binds every modality into one immutable snapshot;
- a query is read against that snapshot (its symbol table says which words are names);
- the ranking features score hits and chunks, and the retrievers apply some of them to their own
  candidate pools before the fusion depth cuts them (BM25's 400 re-ranked to 100), so rank sits below
  retrieve;
- search runs the retrievers and fuses, and the service keeps the index current.

Every import counts, the lazy ones inside functions and those only for type checking too, since each is a
dependency a reader must follow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import fourfold.engine

ENGINE = Path(fourfold.engine.__file__).parent
LAYERS = (("model",), ("graph", "semantic"), ("index",), ("query",), ("rank",), ("retrieve",), ("search",),
          ("service",))
LEVEL = {package: level for level, packages in enumerate(LAYERS) for package in packages}


def _module(path: Path) -> str:
    parts = path.relative_to(ENGINE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Engine modules `path` imports, as dotted names relative to `fourfold.engine`."""
    here = _module(path).split(".") if path.name != "__init__.py" else [*_module(path).split("."), "_"]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - node.level]
            stem = [*base, *(node.module.split(".") if node.module else [])]
            names = [[*stem, alias.name] for alias in node.names] if not node.module else [stem]
            found |= {".".join(name) for name in names if name}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fourfold.engine."):
            found.add(node.module.removeprefix("fourfold.engine."))
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("fourfold.engine.") for a in node.names
                      if a.name.startswith("fourfold.engine.")}
    return {name for name in found if (name and name.split(".")[0] in LEVEL) or name in MODULES}


MODULES = {_module(p) for p in ENGINE.rglob("*.py")}


def _graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for path in sorted(ENGINE.rglob("*.py")):
        for target in _imports(path):
            module = target if target in MODULES else target.rsplit(".", 1)[0]
            graph.add_edge(_module(path), module)
    return graph


def test_every_module_lives_in_a_layer() -> None:
    loose = sorted(m for m in MODULES if m and m.split(".")[0] not in LEVEL)
    assert loose == []


def test_imports_run_down_the_layers() -> None:
    upward = []
    for source, target in _graph().edges:
        if not source:
            continue  # the engine's front door re-exports from every layer
        a, b = source.split(".")[0], target.split(".")[0]
        if a != b and LEVEL[b] >= LEVEL[a]:
            upward.append(f"{source} -> {target}")
    assert sorted(upward) == []


def test_no_module_cycle() -> None:
    graph = _graph()
    graph.remove_nodes_from([n for n in list(graph) if not n or "." not in n])
    assert sorted(sorted(c) for c in nx.simple_cycles(graph)) == []
