"""`fourfold grep` end to end in real processes: rg's output, filters, caps and exit codes, through the
root's daemon and in process, and an edit between two greps found by the daemon's incremental update."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Bounds a hung daemon or a runaway regex, so either fails instead of hanging the suite.
CALL_S = 120
FILES = {
    "app/config.py": "def parse_config(path):\n    return load(path)\n\n\nsettings = parse_config('app.toml')\n",
    "app/cache.py": "from app.config import parse_config\n\nparse_config_cache = {}\n",
    "web/config.js": "// parse_config, the js side\nconst timeout = 30;\nexport const retries = 3;\n",
    "docs/notes.md": "Call parse_config once.\nThe timeout is 30 s, retries 3.\n",
    "app/windows.py": "TIMEOUT = 45\r\nRETRIES = 5\r\n",
    "app/long.py": "x" * 40 + " = 1\n",
}


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """`fourfold ...` as its own process, its output in pipes, as a script or an agent runs it."""
    env = {**os.environ, "FOURFOLD_DAEMON_IDLE_S": "120"}  # a daemon a failed teardown leaves exits soon
    return subprocess.run([sys.executable, "-m", "fourfold.lsp.cli", *argv], capture_output=True, text=True,
                          timeout=CALL_S, env=env)


def make_tree(root: Path) -> None:
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode())


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """A small repository, indexed once; yields the flags that name it (the daemon is stopped after)."""
    root = tmp_path_factory.mktemp("grep") / "repo"
    make_tree(root)
    flags = ["--root", str(root), "--index-dir", str(root.parent / "index"), "--backend", "none"]
    assert run_cli("index", *flags, "--no-embed").returncode == 0
    yield flags
    assert run_cli("daemon", "stop", *flags).returncode == 0


def grep(flags: list[str], *argv: str) -> subprocess.CompletedProcess[str]:
    return run_cli("grep", *argv, *flags)


def out_lines(completed: subprocess.CompletedProcess[str]) -> list[str]:
    return completed.stdout.splitlines()


@pytest.mark.parametrize("served", [True, False], ids=["daemon", "in-process"])
def test_every_matching_line_in_file_order_as_rg_prints_it(tree: list[str], served: bool) -> None:
    prefix = tree[1] + "/"
    completed = grep(tree, "parse_config", *([] if served else ["--no-daemon"]))
    assert completed.returncode == 0, completed.stderr
    assert out_lines(completed) == [
        f"{prefix}app/cache.py:1:from app.config import parse_config",
        f"{prefix}app/cache.py:3:parse_config_cache = {{}}",  # inside a longer name too, as rg finds it
        f"{prefix}app/config.py:1:def parse_config(path):",
        f"{prefix}app/config.py:5:settings = parse_config('app.toml')",
        f"{prefix}docs/notes.md:1:Call parse_config once.",
        f"{prefix}web/config.js:1:// parse_config, the js side",
    ]
    assert "Traceback" not in completed.stderr


def test_the_daemon_and_the_process_answer_alike_in_json(tree: list[str]) -> None:
    served = json.loads(grep(tree, "/retries? ?=/", "--json").stdout)
    here = json.loads(grep(tree, "/retries? ?=/", "--json", "--no-daemon").stdout)
    # Each line with the definition it is part of (here each is a module-level constant's own line).
    assert served["lines"] == here["lines"] == [["app/windows.py", 2, "RETRIES = 5", "RETRIES"],  # any case
                                                ["web/config.js", 3, "export const retries = 3;", "retries"]]
    assert served["kind"] == "regex" and served["matches"] == 2 and served["files"] == 2
    assert served["root"] == str(Path(tree[1]).resolve())
    inside = json.loads(grep(tree, "load(", "--json").stdout)["lines"]
    assert inside == [["app/config.py", 2, "    return load(path)", "parse_config"]]
    top = json.loads(grep(tree, "Call parse_config", "--json").stdout)["lines"]
    assert top == [["docs/notes.md", 1, "Call parse_config once.", None]]


def test_a_daemon_answered_grep_imports_no_index_machinery(tree: list[str]) -> None:
    """What keeps a warm grep near rg's cost: the CLI process loads neither numpy nor the engine."""
    assert grep(tree, "parse_config").returncode == 0  # the daemon is up
    probe = ("import json, sys\n"
             "from fourfold.lsp.cli import main\n"
             f"code = main({['grep', 'parse_config', '-l', *tree]!r})\n"
             "heavy = [m for m in ('numpy', 're2', 'fourfold.engine.service.workspace') if m in sys.modules]\n"
             "print(json.dumps([code, heavy]), file=sys.stderr)\n")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=CALL_S,
                               check=True)
    assert json.loads(completed.stderr.strip().splitlines()[-1]) == [0, []]
    assert len(completed.stdout.splitlines()) == 4


def test_smart_case_and_crlf_lines(tree: list[str]) -> None:
    """A lowercase pattern ignores case (rg --smart-case); an uppercase one does not; a CRLF line is
    printed without its \\r, and `$` matches at its visible end."""
    assert [line.split(":", 1)[0].removeprefix(tree[1] + "/") for line in out_lines(grep(tree, "timeout"))] == [
        "app/windows.py", "docs/notes.md", "web/config.js"]
    assert out_lines(grep(tree, "TIMEOUT")) == [f"{tree[1]}/app/windows.py:1:TIMEOUT = 45"]
    assert out_lines(grep(tree, "re:= \\d+$", "--paths", "app/**")) == [
        f"{tree[1]}/app/long.py:1:{'x' * 40} = 1", f"{tree[1]}/app/windows.py:1:TIMEOUT = 45",
        f"{tree[1]}/app/windows.py:2:RETRIES = 5"]


@pytest.mark.parametrize("served", [True, False], ids=["daemon", "in-process"])
def test_rgs_case_word_and_fixed_string_flags(tree: list[str], served: bool) -> None:
    """-i, -s, -w and -F mean what they mean to rg, through the daemon's wire as in process."""
    where = [] if served else ["--no-daemon"]

    def listed(*argv: str) -> list[str]:
        return [line.removeprefix(tree[1] + "/") for line in out_lines(grep(tree, *argv, *where))]

    assert listed("-s", "timeout") == ["docs/notes.md:2:The timeout is 30 s, retries 3.",
                                       "web/config.js:2:const timeout = 30;"]
    assert [line.split(":")[0] for line in listed("-i", "TIMEOUT")] == [
        "app/windows.py", "docs/notes.md", "web/config.js"]
    assert listed("-w", "parse_config", "-g", "app/cache.py") == [
        "app/cache.py:1:from app.config import parse_config"]
    assert listed("-w", "-s", "retries") == ["docs/notes.md:2:The timeout is 30 s, retries 3.",
                                             "web/config.js:3:export const retries = 3;"]
    assert listed("re:= \\d+$", "-g", "app/long.py") == [f"app/long.py:1:{'x' * 40} = 1"]
    fixed = grep(tree, "-F", "re:= \\d+$", *where)
    assert (fixed.returncode, fixed.stdout) == (1, "")
    assert listed("-F", "-w", "load(path)") == ["app/config.py:2:    return load(path)"]


def test_counts_files_and_filters(tree: list[str]) -> None:
    prefix = tree[1] + "/"
    assert out_lines(grep(tree, "parse_config", "--count")) == [
        f"{prefix}app/cache.py:2", f"{prefix}app/config.py:2", f"{prefix}docs/notes.md:1", f"{prefix}web/config.js:1"]
    assert out_lines(grep(tree, "parse_config", "-l", "--languages", "python")) == [
        f"{prefix}app/cache.py", f"{prefix}app/config.py"]
    assert out_lines(grep(tree, "parse_config", "-c", "-m", "1", "-g", "app/**", "-g", "*.js")) == [
        f"{prefix}app/cache.py:1", f"{prefix}app/config.py:1", f"{prefix}web/config.js:1"]


def test_caps_say_how_many_lines_they_left_out(tree: list[str]) -> None:
    capped = grep(tree, "parse_config", "--max-count", "1")
    assert [line.removeprefix(tree[1] + "/") for line in out_lines(capped)] == [
        "app/cache.py:1:from app.config import parse_config", "app/config.py:1:def parse_config(path):",
        "docs/notes.md:1:Call parse_config once.", "web/config.js:1:// parse_config, the js side"]
    assert "+2 more matching lines beyond --max-count 1 a file" in capped.stderr
    limited = grep(tree, "parse_config", "--limit", "2")
    assert limited.returncode == 0 and len(out_lines(limited)) == 2
    assert "+4 more matching lines not shown (--limit 2); 6 lines match in 4 files" in limited.stderr
    assert json.loads(grep(tree, "parse_config", "--limit", "2", "--json").stdout)["more"] == 4


def test_exit_codes_are_rgs(tree: list[str], tmp_path: Path) -> None:
    nothing = grep(tree, "restock_from_supplier")
    assert (nothing.returncode, nothing.stdout) == (1, "")
    unknown = grep(tree, "parse_config", "--languages", "cobol")
    assert unknown.returncode == 1 and "no indexed file is in cobol" in unknown.stderr
    missing = run_cli("grep", "x", "--root", str(tmp_path / "nowhere"), "--backend", "none")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    blank = grep(tree, "  ")
    assert blank.returncode == 2 and "blank" in blank.stderr
    refused = run_cli("grep", "x", "--limit", "0", *tree)
    assert refused.returncode == 2 and "positive whole number" in refused.stderr


@pytest.mark.parametrize("served", [True, False], ids=["daemon", "in-process"])
def test_an_invalid_regex_is_one_clear_error(tree: list[str], served: bool) -> None:
    completed = grep(tree, "/(((a{100}){100}){100})/", *([] if served else ["--no-daemon"]))
    assert completed.returncode == 2 and completed.stdout == ""
    assert "fourfold: invalid query at position 5: invalid regular expression: invalid repetition size" in \
        completed.stderr
    assert "Traceback" not in completed.stderr


def test_a_pathological_regex_finishes(tree: list[str]) -> None:
    """Nested quantifiers that send a backtracking engine into exponential time: RE2 is linear, so the
    call ends (bounded by CALL_S, not timed) and answers correctly."""
    completed = grep(tree, "/(x+x+)+y/")
    assert completed.returncode == 1 and completed.stdout == "" and "Traceback" not in completed.stderr
    assert out_lines(grep(tree, "/(x+x+)+ =/")) == [f"{tree[1]}/app/long.py:1:{'x' * 40} = 1"]


def test_an_edit_between_two_greps_is_found(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_tree(root)
    flags = ["--root", str(root), "--index-dir", str(tmp_path / "index"), "--backend", "none"]
    try:
        assert run_cli("grep", "restock_from_supplier", *flags).returncode == 1  # starts the daemon
        (root / "app" / "config.py").write_text(FILES["app/config.py"] + "\ndef restock_from_supplier(item):\n")
        (root / "web" / "stock.js").write_text("restock_from_supplier(cart);\n")
        found = run_cli("grep", "restock_from_supplier", *flags)
        assert found.returncode == 0, found.stderr
        assert out_lines(found) == [f"{root}/app/config.py:7:def restock_from_supplier(item):",
                                    f"{root}/web/stock.js:1:restock_from_supplier(cart);"]
        assert "re-indexed 2 changed" in found.stderr
        (root / "web" / "stock.js").unlink()
        assert out_lines(run_cli("grep", "restock_from_supplier", *flags, "-l")) == [f"{root}/app/config.py"]
    finally:
        assert run_cli("daemon", "stop", *flags).returncode == 0
