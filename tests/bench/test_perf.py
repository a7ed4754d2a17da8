"""bench/perf.py on a tiny real corpus: copies that do not leak, figures that add up, a real LSP exchange.

The benchmark asserts nothing about speed; these tests make sure the command runs end to end (so it
cannot rot) and that what it prints is computed from what it measured.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

PERF = Path(__file__).resolve().parents[2] / "bench" / "perf.py"


def load_perf() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fourfold_bench_perf", PERF)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


perf = load_perf()

CORPUS = {
    "shop/cart.py": 'def add_item(cart, item):\n    """Put one item in the cart."""\n    cart.append(item)\n',
    "shop/checkout.py": "from shop.cart import add_item\n\n\ndef checkout(cart):\n    add_item(cart, 'receipt')\n"
                        "    raise ValueError('Cart is empty at checkout')\n",
    "web/app.js": "function renderCart(cart) {\n  return cart.map((item) => item.name).join(', ');\n}\n",
}
QUERIES = [
    {"id": "d", "query": "def add_item", "intent": "find_definition", "gold": [{"path": "shop/cart.py", "line": 1}]},
    {"id": "r", "query": "who calls add_item", "intent": "find_references",
     "gold": [{"path": "shop/checkout.py", "line": 5}], "match": "all"},
    {"id": "e", "query": '"Cart is empty at checkout"', "intent": "exact_match",
     "gold": [{"path": "shop/checkout.py", "line": 6}], "match": "all"},
    {"id": "u", "query": "how is an order paid", "intent": "understand_code",
     "gold": [{"path": "shop/checkout.py", "line": None}]},
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for path, text in CORPUS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def queries(tmp_path: Path) -> Path:
    path = tmp_path / "queries.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in QUERIES), encoding="utf-8")
    return path


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert perf.percentile(values, 0.5) == 50.0
    assert perf.percentile(values, 0.95) == 95.0
    assert perf.percentile([], 0.5) == 0.0


def test_copies_are_real_files_so_an_edit_stays_in_its_copy(corpus: Path, tmp_path: Path) -> None:
    scaled = perf.make_corpus(corpus, 3, tmp_path / "x3")
    copies = sorted(p.name for p in scaled.iterdir())
    assert copies == ["copy-0", "copy-1", "copy-2"]
    (scaled / "copy-0" / "shop" / "cart.py").write_text("changed\n", encoding="utf-8")
    assert (scaled / "copy-1" / "shop" / "cart.py").read_text(encoding="utf-8") == CORPUS["shop/cart.py"]
    assert (corpus / "shop" / "cart.py").read_text(encoding="utf-8") == CORPUS["shop/cart.py"]
    assert perf.folder_bytes(scaled) == 3 * perf.folder_bytes(corpus) - len(CORPUS["shop/cart.py"]) + len("changed\n")


def test_measure_reports_every_modality_and_baseline(corpus: Path, queries: Path) -> None:
    figures = perf.measure(corpus, 1, perf.load_queries(queries), "none", [])
    assert figures.files == 3
    assert figures.symbols >= 3 and figures.chunks >= 3
    assert figures.refresh_s > 0 and figures.graph_s > 0 and figures.bm25_s > 0
    assert figures.embed_s is None
    assert set(figures.query_ms) == {"find_definition", "find_references", "exact_match", "understand_code"}
    assert all(len(values) == perf.QUERY_ROUNDS for values in figures.query_ms.values())
    assert len(figures.literal_ms) == 1
    assert len(figures.update_ms) == min(perf.UPDATE_EDITS, len(CORPUS))
    assert figures.index_mib > 0 and figures.peak_rss_mib > 0
    assert figures.cold_index["peak_rss_mib"] > 0 and figures.cold_index["main_cpu_s"] > 0
    assert figures.restart["serving_anon_mib"] > 0 and "serving_file_mib" in figures.restart
    assert figures.restart["graph_rss_mib"] >= figures.restart["question_rss_mib"] >= figures.restart["serving_rss_mib"]
    if shutil.which("rg"):
        assert len(figures.rg_ms) == 1
    if shutil.which("ctags"):
        assert figures.ctags_s is not None and figures.ctags_definitions >= 3


def test_a_server_index_reports_its_peak_and_heap_when_ready_and_after_a_question(corpus: Path, tmp_path: Path) -> None:
    figures = perf.server_index_figures(corpus, str(tmp_path / "index"), "none")
    assert figures["wall_s"] > 0 and figures["ready_serving_anon_mib"] > 0
    assert figures["question_peak_rss_mib"] >= figures["peak_rss_mib"] > 0
    assert (tmp_path / "index" / "index.sqlite").is_file()  # it indexed where it was told


def test_summary_states_ratios_from_the_figures() -> None:
    one = perf.Figures(1, files=10, refresh_s=2.0, graph_s=0.5, literal_ms=[2.0], rg_ms=[10.0], ctags_s=0.3,
                       query_ms={"exact_match": [1.0, 3.0]}, symbol_ms=[0.5])
    two = perf.Figures(2, files=20, refresh_s=4.0, graph_s=1.0, literal_ms=[2.0], rg_ms=[20.0], ctags_s=0.6,
                       query_ms={"exact_match": [2.0, 4.0]}, symbol_ms=[0.5],
                       lsp={"command": "x", "initialize_ms": 9.0, "symbol_ms": [50.0], "found": 1})
    text = perf.summary([one, two], "test machine")
    assert "| **rg / Fourfold** (literal p50) | 5.0× | 10.0× |" in text
    assert "| **Fourfold text+structural / ctags** (time) | 5.0× | 5.0× |" in text
    assert "| **other server / Fourfold** (symbol p50) | — | 100.0× |" in text
    assert "| exact_match | 1.0 / 3.0 | 2.0 / 4.0 |" in text
    assert "no other language server" in text


def test_lsp_client_times_workspace_symbol_against_a_real_server(corpus: Path) -> None:
    """Fourfold's own language server stands in for jedi-language-server: the exchange is the same."""
    result = perf.workspace_symbol_ms([sys.executable, "-m", "fourfold.lsp"], corpus, ["add_item", "checkout"])
    assert result["initialize_ms"] > 0
    assert len(result["symbol_ms"]) == 2


def test_one_command_writes_the_summary_json_and_plots(corpus: Path, queries: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    plots, out = tmp_path / "plots", tmp_path / "perf.json"
    evaluation = tmp_path / "eval.json"
    evaluation.write_text(json.dumps({"rows": [
        {"system": "fourfold default", "group": "find_definition", "ndcg": 1.0},
        {"system": "ripgrep", "group": "find_definition", "ndcg": 0.5},
    ]}), encoding="utf-8")
    code = perf.main(["--corpus", str(corpus), "--queries", str(queries), "--scales", "1,2", "--backend", "none",
                      "--lsp-command", "", "--plots", str(plots), "--eval-json", str(evaluation), "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| files / corpus MiB | 3 / 0 | 6 / 0 |" in printed
    assert [row["files"] for row in json.loads(out.read_text(encoding="utf-8"))] == [3, 6]
    assert sorted(p.name for p in plots.iterdir()) == ["latency.png", "quality-eval.png", "scaling.png"]
    assert all(p.stat().st_size > 10_000 for p in plots.iterdir())
    shutil.rmtree(plots)
    assert perf.main(["--replot", str(out), "--plots", str(plots)]) == 0
    assert capsys.readouterr().out.splitlines()[4:8] == printed.splitlines()[4:8]
    assert sorted(p.name for p in plots.iterdir()) == ["latency.png", "scaling.png"]
