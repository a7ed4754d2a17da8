"""`fourfold` CLI: every intent answered on the polyglot fixture, the JSON contract, and clear errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.lsp.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"


# Daemons started by these tests exit on their own soon after, should a teardown be skipped.
os.environ["FOURFOLD_DAEMON_IDLE_S"] = "120"


def stop_daemon(root: Path, index: Path | str, *flags: str) -> None:
    assert main(["daemon", "stop", "--root", str(root), "--index-dir", str(index), *flags]) == 0


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("ws") / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = tmp_path_factory.mktemp("index")
    assert main(["index", str(root), "--index-dir", str(index), "--backend", "none"]) == 0
    yield root, index
    stop_daemon(root, index, "--backend", "none")


def search(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path], query: str, *flags: str) -> dict:
    root, index = workspace
    capsys.readouterr()
    code = main(["search", query, "--root", str(root), "--index-dir", str(index), "--backend", "none", "--json",
                 *flags])
    assert code == 0
    return json.loads(capsys.readouterr().out)


# (query, intent, strategy, expected (path, 1-based line) somewhere in the top 3)
KNOWN_ANSWERS = [
    ("def load_settings", "find_definition", "direct", ("inventory/config.py", 29)),
    ("where is parseConfig defined", "find_definition", "direct", ("web/src/config.js", 4)),
    ("InventoryService", "find_definition", "rrf", ("inventory/service.py", 10)),
    ("who calls load_settings", "find_references", "direct", ("inventory/service.py", 14)),
    ("callers of backoff_delay", "find_references", "direct", ("inventory/retry.py", 27)),
    ("chi chiama parse_line", "find_references", "direct", ("inventory/config.py", 36)),
    ("what depends on load_settings", "impact_analysis", "direct", ("inventory/service.py", 13)),
    # impact at the line of use (issue 14): retry calls backoff_delay on line 27
    ("what breaks if backoff_delay changes", "impact_analysis", "direct", ("inventory/retry.py", 27)),
    ('"connection refused by warehouse"', "exact_match", "direct", ("inventory/service.py", 33)),
    ("RetryError", "exact_match", "direct", ("inventory/retry.py", 6)),
    ("re:gave up after \\{\\w+\\}", "exact_match", "direct", ("inventory/retry.py", 10)),
    ("how does the retry backoff work", "understand_code", "rrf", ("inventory/retry.py", 14)),
    ("explain how stock is reserved for orders", "understand_code", "rrf", ("inventory/service.py", 20)),
    ("functions similar to retry with exponential backoff", "find_similar", "rrf", ("inventory/retry.py", 19)),
    # the backoff in the web client is the seed (issue 14: left out); its likes are the other retries
    ("code like the exponential backoff in the web client", "find_similar", "rrf", ("inventory/retry.py", 19)),
]
# Answers expected lower than the top 3, and why. `stock` names php/src/StockReport.php, whose path lift
# (+25 %, measured +0.02 NDCG@10 on semble's 244 queries) and the centrality of web/src/*.ts outweigh a
# BM25 first place in this 20-file fixture, where every text rank is close.
DEEPER = {"explain how stock is reserved for orders": 5}


@pytest.mark.parametrize(("query", "intent", "strategy", "expected"), KNOWN_ANSWERS)
def test_known_answers(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path], query: str, intent: str,
                       strategy: str, expected: tuple[str, int]) -> None:
    result = search(capsys, workspace, query)
    assert (result["intent"], result["fusion_strategy"]) == (intent, strategy)
    path, line = expected
    top = result["results"][: DEEPER.get(query, 3)]
    assert any(r["path"] == path and any(_covers(span, line) for span in [r["range"], *r["matches"]]) for r in top), [
        (r["path"], r["range"]["start"]["line"] + 1) for r in top]


def _covers(span: dict, line: int) -> bool:
    """The eval rule: the range contains the line, or starts within 3 lines of it (1-based line)."""
    start, end = span["start"]["line"] + 1, span["end"]["line"] + 1
    return start <= line <= end or abs(start - line) <= 3


def test_json_is_the_design_contract(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    result = search(capsys, workspace, "how does retry work", "--preset", "thorough")
    assert set(result) >= {"query", "intent", "confidence", "fusion_strategy", "preset", "k", "modalities", "results",
                           "timings_ms"}
    assert result["preset"] == "thorough" and result["k"] == 60
    assert set(result["modalities"]) == {"semantic", "text", "structural", "graph"}
    assert result["modalities"]["semantic"]["ran"] is False  # backend none: its weight is dropped
    assert result["modalities"]["graph"]["ran"] is True
    row = result["results"][0]
    assert set(row) >= {"uri", "path", "range", "symbol", "kind", "container", "language", "snippet", "score",
                        "contributions", "ranks", "boost", "demoted", "matches", "defines", "prior", "coherence"}
    assert row["uri"].startswith("file://") and row["uri"].endswith(row["path"])
    demotion = 0.5 if row["demoted"] else 1.0
    explained = (sum(row["contributions"].values()) + row["coherence"]) * row["prior"] * demotion
    assert abs(explained - row["score"]) < 1e-5
    assert 1.0 <= row["boost"] <= 1.5


def test_filters_by_path_and_language(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    by_language = search(capsys, workspace, "retry", "--languages", "go")
    assert by_language["results"] and {r["language"] for r in by_language["results"]} == {"go"}
    by_path = search(capsys, workspace, "retry", "--paths", "web/**")
    assert by_path["results"] and all(r["path"].startswith("web/") for r in by_path["results"])


def test_pinned_modes_and_intent(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    result = search(capsys, workspace, "load_settings", "--modes", "text", "--intent", "find_references")
    assert result["intent"] == "find_references" and result["confidence"] == 1.0
    assert [m for m, r in result["modalities"].items() if r["ran"]] == ["text"]


def test_search_sees_edits_on_disk(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    root, _ = workspace
    target = root / "inventory" / "models.py"
    original = target.read_text()
    target.write_text(original + "\n\ndef restock_from_supplier(item):\n    return item\n")
    try:
        result = search(capsys, workspace, "restock_from_supplier")
        assert result["results"][0]["path"] == "inventory/models.py"
    finally:
        target.write_text(original)
    assert search(capsys, workspace, "restock_from_supplier")["results"] == []


def test_terminal_output(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    assert main(["search", "where is parseConfig defined", "--root", str(root), "--index-dir", str(index),
                 "--backend", "none"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("find_definition (0.90, rule 4b:where-defined) · direct")
    assert "web/src/config.js:4  parseConfig" in "\n".join(out)


def test_a_result_is_shown_at_its_definitions_name_not_its_doc_comment(capsys: pytest.CaptureFixture[str],
                                                                       workspace: tuple[Path, Path]) -> None:
    """`Server.Dial`'s chunk opens with its doc comment on line 27 of server.go; `path:line` is where a
    terminal or an editor jumps, so it names line 28, the `func (s *Server) Dial` line, with that code."""
    root, index = workspace
    assert main(["search", "remote warehouse that may refuse connections", "--root", str(root),
                 "--index-dir", str(index), "--backend", "none"]) == 0
    out = capsys.readouterr().out
    assert "go/inventory/server.go:28  Server.Dial" in out
    assert "28  func (s *Server) Dial(" in out


def test_an_impact_result_shows_the_path_it_depends_on_the_target_by(capsys: pytest.CaptureFixture[str],
                                                                     workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    assert main(["search", "what depends on load_settings", "--root", str(root), "--index-dir", str(index),
                 "--backend", "none", "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(out) if line.strip().startswith("1. inventory/service.py:14"))
    assert out[row + 1].strip() == "via InventoryService.__init__ → load_settings"
    assert not any(line.strip().startswith("via ") for line in out[row + 2:])  # only results with a path


@pytest.fixture(scope="module")
def many_calls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A function with 15 call sites in two files: 12 in busy.py, 3 in calm.py."""
    root = tmp_path_factory.mktemp("calls")
    (root / "clock.py").write_text("def tick(step):\n    return step + 1\n")
    (root / "busy.py").write_text("from clock import tick\n\n\ndef run():\n"
                                  + "".join(f"    value_{n} = tick({n})\n" for n in range(12)))
    (root / "calm.py").write_text("import clock\n\n\ndef other():\n"
                                  + "".join(f"    clock.tick({n})\n" for n in range(3)))
    index = tmp_path_factory.mktemp("calls-index")
    yield root, index
    stop_daemon(root, index, "--backend", "none")


def terminal(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path], query: str, *flags: str) -> list[str]:
    root, index = workspace
    capsys.readouterr()
    assert main(["search", query, "--root", str(root), "--index-dir", str(index), "--backend", "none",
                 "--no-progress", *flags]) == 0
    return capsys.readouterr().out.splitlines()


def test_every_call_site_is_listed_with_its_code_line(capsys: pytest.CaptureFixture[str],
                                                       many_calls: tuple[Path, Path]) -> None:
    """Issue 14: 15 call sites are 15 lines of code, grouped by file, 5 a file and then "+N more"."""
    out = terminal(capsys, many_calls, "who calls tick")
    assert "busy.py · 12 sites" in out and "calm.py · 3 sites" in out
    busy = out[out.index("busy.py · 12 sites"):out.index("calm.py · 3 sites")]
    assert [line.split()[1] for line in busy if "= tick(" in line] == [f"value_{n}" for n in range(5)]
    assert busy[-1].strip() == "+7 more in busy.py (--all shows every site)"
    calm = out[out.index("calm.py · 3 sites"):]
    assert [line.split()[0] for line in calm if "clock.tick(" in line] == ["5", "6", "7"]
    assert not any("more in calm.py" in line for line in calm)
    every = terminal(capsys, many_calls, "who calls tick", "--all")
    sites = [line.split() for line in every if "tick(" in line and "def " not in line]
    assert [int(parts[0]) for parts in sites] == [*range(5, 17), 5, 6, 7]
    assert not any("more in" in line for line in every)


def test_not_found_is_said_first_and_guesses_are_marked(capsys: pytest.CaptureFixture[str],
                                                         workspace: tuple[Path, Path]) -> None:
    out = terminal(capsys, workspace, "where is parseConfg defined")
    assert out[0].startswith("note: no definition of parseConfg; similar names: parseConfig"), out
    rows = [line for line in out if line.lstrip()[:1].isdigit() and ". " in line and ":" in line.split()[1]]
    assert rows and all(line.endswith(" approximate") for line in rows), rows
    exact = terminal(capsys, workspace, "where is parseConfig defined")
    assert not any("approximate" in line for line in exact)


def test_the_folder_may_follow_the_query_or_come_as_root(capsys: pytest.CaptureFixture[str],
                                                         workspace: tuple[Path, Path]) -> None:
    """`fourfold search QUERY FOLDER` (what a newcomer types first, as `fourfold index FOLDER`) answers as
    `--root FOLDER` does; `fourfold index --root FOLDER` works too."""
    root, index = workspace
    flags = ["--index-dir", str(index), "--backend", "none", "--json"]
    capsys.readouterr()
    assert main(["search", "where is parseConfig defined", str(root), *flags]) == 0
    positional = json.loads(capsys.readouterr().out)
    assert main(["search", "where is parseConfig defined", "--root", str(root), *flags]) == 0
    assert positional["results"] == json.loads(capsys.readouterr().out)["results"] != []
    assert main(["index", "--root", str(root), "--index-dir", str(index), "--backend", "none"]) == 0
    assert "0 re-indexed" in capsys.readouterr().out


def test_two_different_folders_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["search", "x", str(tmp_path / "a"), "--root", str(tmp_path / "b")])
    assert exit_.value.code == 2
    assert "two folders given" in capsys.readouterr().err


def test_missing_root_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["search", "x", "--root", str(tmp_path / "nope")]) == 2
    assert "does not exist or is not a folder" in capsys.readouterr().err


def test_invalid_regex_reports_its_position(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    assert main(["search", "re:load_(settings", "--root", str(root), "--index-dir", str(index),
                 "--backend", "none"]) == 2
    err = capsys.readouterr().err
    assert "invalid query" in err and "position" in err


def test_console_script_runs(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    script = Path(sys.executable).parent / "fourfold"
    out = subprocess.run([str(script), "status", "--root", str(root), "--index-dir", str(index), "--backend", "none"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    status = json.loads(out)
    assert status["files"] == sum(1 for p in root.rglob("*") if p.is_file())
    assert status["symbols"] > 100


def test_local_embeddings_take_part(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index = str(tmp_path / "index")
    assert main(["search", "how does the retry backoff work", "--root", str(FIXTURE), "--index-dir", index,
                 "--json", "--no-daemon"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["modalities"]["semantic"]["ran"] is True and result["modalities"]["semantic"]["hits"] > 0
    assert any("semantic" in row["contributions"] for row in result["results"][:3])
    assert main(["status", "--root", str(FIXTURE), "--index-dir", index, "--no-daemon"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["backend"] == "local" and status["embedded"] == status["chunks"] > 0


def run_cli(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`fourfold ...` as a separate process, stderr a pipe (not a terminal), as an agent runs it."""
    return subprocess.run([sys.executable, "-m", "fourfold.lsp.cli", *argv], capture_output=True, text=True,
                          timeout=timeout)


def test_a_question_that_builds_bm25_logs_nothing_without_verbose(tmp_path: Path) -> None:
    """bm25s sets its logger to DEBUG on import and logs each build; it is imported only when BM25 is
    first built, so a level set at Fourfold's own import was undone and `DEBUG bm25s: Building index`
    reached every user's terminal."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    completed = run_cli("search", "how are retries scheduled", "--root", str(root), "--index-dir",
                        str(tmp_path / "index"), "--backend", "none", "--no-daemon", "--limit", "3")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip()
    assert "bm25s" not in completed.stderr and "DEBUG" not in completed.stderr


def test_help_loads_no_index_machinery_and_teaches_the_query_syntax() -> None:
    probe = ("import contextlib, io, sys\n"
             "from fourfold.lsp.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):\n"
             "    main(['--help'])\n"
             "heavy = sorted(m for m in ('networkx', 'scipy', 'numpy', 'bm25s', 'fourfold.engine.service.workspace')\n"
             "               if m in sys.modules)\n"
             "print(repr(heavy)); print(out.getvalue())\n")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    heavy, _, text = completed.stdout.partition("\n")
    assert heavy == "[]"  # what made `fourfold --help` take 3 s
    for needle in ("find_definition", "impact_analysis", "exact_match", "quick, default, thorough", "re:",
                   '"connection refused"', "who calls", "limits:", "--limit 1..500", "examples:", "mcp"):
        assert needle in text, needle


def test_help_limits_are_the_engines() -> None:
    from fourfold.engine.model import profiles
    from fourfold.lsp import cli

    assert (cli.HELP_MAX_QUERY_LENGTH, cli.HELP_MAX_LIMIT) == (profiles.MAX_QUERY_LENGTH, profiles.MAX_LIMIT)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("fourfold 0.")


def test_eval_without_root_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(tmp_path / "queries.jsonl")])
    assert exit_.value.code == 2
    assert "--root" in capsys.readouterr().err


def test_progress_is_one_line_per_phase_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    completed = run_cli("index", str(root), "--index-dir", str(tmp_path / "index"), "--backend", "none")
    assert completed.returncode == 0, completed.stderr
    files = sum(1 for path in root.rglob("*") if path.is_file())
    assert f"fourfold: indexing {files:,} files…" in completed.stderr.splitlines()
    assert any(line.startswith("fourfold: indexing done in ") for line in completed.stderr.splitlines())
    assert "\r" not in completed.stderr  # no bar redrawn into a log


def test_no_results_says_why(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                             workspace: tuple[Path, Path]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "logo.png").write_bytes(b"\x89PNG\x00\x00binary")
    assert main(["search", "parse config", "--root", str(empty), "--index-dir", str(tmp_path / "index"),
                 "--backend", "none", "--no-daemon"]) == 0
    out = capsys.readouterr().out
    assert "no results" in out and "0 files are indexed" in out and "1 skipped" in out
    root, index = workspace
    assert main(["search", "retry", "--root", str(root), "--index-dir", str(index), "--backend", "none",
                 "--languages", "cobol"]) == 0
    assert "no indexed file is in cobol; the languages here are" in capsys.readouterr().out


def test_daemon_and_in_process_answers_agree(capsys: pytest.CaptureFixture[str], workspace: tuple[Path, Path]) -> None:
    for query in ("how does the retry backoff work", "load_settings", '"connection refused by warehouse"'):
        served = search(capsys, workspace, query)
        here = search(capsys, workspace, query, "--no-daemon")
        assert [(r["path"], r["range"]) for r in served["results"]] == [
            (r["path"], r["range"]) for r in here["results"]]
        assert served["intent"] == here["intent"] and served["fusion_strategy"] == here["fusion_strategy"]


def test_a_daemon_answered_search_imports_no_index_machinery(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    argv = ["search", "load_settings", "--root", str(root), "--index-dir", str(index), "--backend", "none", "--json"]
    assert run_cli(*argv).returncode == 0  # the daemon is up
    probe = ("import json, sys\n"
             "from fourfold.lsp.cli import main\n"
             f"code = main({argv!r})\n"
             "loaded = ('networkx', 'scipy', 'numpy', 'fourfold.engine.service.workspace')\n"
             "heavy = [m for m in loaded if m in sys.modules]\n"
             "print(json.dumps([code, heavy]), file=sys.stderr)\n")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(completed.stderr.strip().splitlines()[-1]) == [0, []]
    assert json.loads(completed.stdout)["results"][0]["path"] == "inventory/config.py"


def test_a_one_shot_search_of_an_unchanged_index_imports_no_graph_or_bm25_machinery(tmp_path: Path) -> None:
    """An identifier answered from the saved indexes and the stored centrality needs neither a matrix
    library nor BM25: networkx, scipy and bm25s were 0.9 s of every `--no-daemon` search."""
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = str(tmp_path / "index")
    assert run_cli("index", str(root), "--index-dir", index, "--backend", "none").returncode == 0
    argv = ["search", "load_settings", "--root", str(root), "--index-dir", index, "--backend", "none", "--json",
            "--no-daemon"]
    probe = ("import json, sys\n"
             "from fourfold.lsp.cli import main\n"
             f"code = main({argv!r})\n"
             "loaded = ('networkx', 'scipy', 'bm25s', 'fourfold.engine.service.workspace')\n"
             "heavy = [m for m in loaded if m in sys.modules]\n"
             "print(json.dumps([code, heavy]), file=sys.stderr)\n")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(completed.stderr.strip().splitlines()[-1]) == [0, ["fourfold.engine.service.workspace"]]
    assert json.loads(completed.stdout)["results"][0]["path"] == "inventory/config.py"


def test_racing_clis_start_one_daemon_and_stop_ends_it(tmp_path: Path) -> None:
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = tmp_path / "index"
    argv = [sys.executable, "-m", "fourfold.lsp.cli", "search", "load_settings", "--root", str(root),
            "--index-dir", str(index), "--backend", "none", "--json"]
    racers = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    try:
        outputs = [racer.communicate(timeout=180) for racer in racers]
        assert all(racer.returncode == 0 for racer in racers), [err for _, err in outputs]
        assert all(json.loads(out)["results"][0]["path"] == "inventory/config.py" for out, _ in outputs)
        log = (index / "daemon.log").read_text()
        assert log.count(": serving ") == 1 and "another daemon" not in log
        status = run_cli("daemon", "status", "--root", str(root), "--index-dir", str(index), "--backend", "none")
        assert json.loads(status.stdout)["root"] == str(root.resolve())
    finally:
        stop_daemon(root, index, "--backend", "none")
    assert not (index / "daemon.sock").exists()
    after = run_cli("daemon", "status", "--root", str(root), "--index-dir", str(index), "--backend", "none")
    assert after.returncode == 1 and "no daemon is running" in after.stderr


def test_a_daemon_with_other_settings_is_replaced(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = tmp_path / "index"
    flags = ["--root", str(root), "--index-dir", str(index), "--backend", "none"]
    try:
        assert main(["search", "retry", *flags, "--json"]) == 0
        assert any(r["path"].startswith("go/") for r in json.loads(capsys.readouterr().out)["results"])
        assert main(["search", "retry", *flags, "--json", "--exclude", "go/**"]) == 0
        assert not any(r["path"].startswith("go/") for r in json.loads(capsys.readouterr().out)["results"])
    finally:
        stop_daemon(root, index, "--backend", "none", "--exclude", "go/**")
    assert (index / "daemon.log").read_text().count(": serving ") == 2


def test_a_daemon_started_by_other_code_is_replaced(tmp_path: Path) -> None:
    """An upgrade while a daemon runs: a file of the installed package changes (here its mtime, as a
    reinstall or a checkout leaves it), so the next call must not be answered by the daemon the old
    code started. It is asked to stop and a new one serves; the file's mtime is put back after."""
    import fourfold.lsp

    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURE, root)
    index = tmp_path / "index"
    flags = ["--root", str(root), "--index-dir", str(index), "--backend", "none"]
    changed = Path(fourfold.lsp.__file__)
    before = changed.stat()
    try:
        first = run_cli("search", "retry", *flags, "--json")
        assert first.returncode == 0 and json.loads(first.stdout)["results"], first.stderr
        os.utime(changed, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        second = run_cli("search", "retry", *flags, "--json")
        assert second.returncode == 0 and json.loads(second.stdout)["results"], second.stderr
    finally:
        os.utime(changed, ns=(before.st_atime_ns, before.st_mtime_ns))
        run_cli("daemon", "stop", *flags)
    assert (index / "daemon.log").read_text().count(": serving ") == 2


def test_the_clients_index_folder_is_the_engines(tmp_path: Path) -> None:
    from fourfold.engine.index.store import default_index_dir
    from fourfold.lsp.daemon import DaemonKey

    assert Path(DaemonKey.of(str(tmp_path), None, None, None).index_dir) == default_index_dir(tmp_path)
