"""Where Ctrl+T lands (issue 13): for a sample of definition names, does `workspace/symbol`'s top
entry put the cursor on the definition (its decorator…`def`/`class` lines), or on a use of the name?

    python bench/symbol_landing.py [CORPUS] [--sample 150] [--backend none|local] [--index-dir DIR]

Default corpus: bench/corpora/django-5.1.4 (bench/fetch_django.sh). The sample is the class,
function and method names defined once in the corpus (a fixed, seeded draw), so each name has one
right answer. Each name runs as the language server runs it (the fused search with Ctrl+T's limit,
rows converted by `fourfold.lsp.convert`), and the top entry's location counts as a landing when
it is in the defining file between the definition's first line (its decorators) and its name's
line. The old rule (the result's first `matches` entry) is scored on the same rows beside it.
A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections import Counter
from pathlib import Path

from fourfold.engine import Result, SearchRequest, Settings, Workspace
from fourfold.engine.model.records import Symbol
from fourfold.lsp import convert
from fourfold.lsp.search import WORKSPACE_SYMBOL_LIMIT

HERE = Path(__file__).resolve().parent
KINDS = frozenset({"class", "function", "method"})


def sample(workspace: Workspace, size: int, seed: int) -> list[Symbol]:
    symbols = [s for s in workspace.snapshot().symbols.all() if s.kind in KINDS and not s.name.startswith("__")]
    counts = Counter(s.name for s in symbols)
    unique = sorted((s for s in symbols if counts[s.name] == 1), key=lambda s: (s.path, s.span.start_line))
    return random.Random(seed).sample(unique, min(size, len(unique)))


def lands(line: int, path: str, symbol: Symbol) -> bool:
    return path == symbol.path and symbol.span.start_line <= line <= symbol.name_span.start_line


def old_rule(result: Result) -> int:
    return (result.matches[0] if result.matches else result.span).start_line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=HERE / "corpora" / "django-5.1.4")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--backend", default="none")
    parser.add_argument("--index-dir", type=Path, default=None)
    args = parser.parse_args()
    index_dir = args.index_dir or Path(tempfile.mkdtemp(prefix="fourfold-landing-"))
    workspace = Workspace(args.corpus, Settings(index_dir=str(index_dir), semantic_backend=args.backend))
    try:
        workspace.refresh()
        workspace.embed_pending()
        names = sample(workspace, args.sample, args.seed)
        new_hits = old_hits = top_file = 0
        misses: list[str] = []
        for symbol in names:
            answer = workspace.search_answer(SearchRequest(query=symbol.name, limit=WORKSPACE_SYMBOL_LIMIT))
            rows = answer.results
            if not rows:
                misses.append(f"{symbol.name}: no result")
                continue
            entry = convert.workspace_symbol(rows[0], convert.ClientColumns("utf-32"))
            path = rows[0].path
            top_file += path == symbol.path
            line = entry.location.range.start.line  # type: ignore[union-attr]
            new_hits += lands(line, path, symbol)
            old_hits += lands(old_rule(rows[0]), path, symbol)
            if not lands(line, path, symbol):
                misses.append(f"{symbol.name} ({symbol.kind} {symbol.path}:{symbol.name_span.start_line + 1}): "
                              f"top {path}:{line + 1}")
        total = len(names)
        print(f"corpus {args.corpus.name}, {total} names (class/function/method defined once), backend {args.backend}")
        print("| measure | share |\n|---|---|")
        print(f"| top result in the defining file | {top_file}/{total} = {top_file / total:.3f} |")
        for label, hits in (("this rule: `selection`", new_hits), ("old rule: first match", old_hits)):
            print(f"| Ctrl+T lands on the definition ({label}) | {hits}/{total} = {hits / total:.3f} |")
        for miss in misses[:20]:
            print(f"  miss: {miss}")
    finally:
        workspace.close()


if __name__ == "__main__":
    main()
