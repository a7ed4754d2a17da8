"""The positional index answers every-line searches exactly as the scanner does, and never with stale lines."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fourfold.engine import Settings, Workspace
from fourfold.engine.index import textpositions
from fourfold.engine.index.mapped import open_arrays
from fourfold.engine.index.textpositions import DamagedPositions, TextPositions, write_positions
from fourfold.engine.index.textsearch import FoundFiles, SearchText, TextMatches, match_text, parse_text_query
from fourfold.engine.retrieve import text as text_retriever
from fourfold.engine.retrieve.text import every_line
from fourfold.engine.service.workspace import POSITIONS_ENTRY

KELVIN, LONG_S = "\u212a", "\u017f"
FILES = {
    "a.py": "import os\nfrom x import y\n\ndef test_one(self):\n    raise ValueError('bad')  # Error\n"
            "class Thing(models.Model):\n    x = self.assertEqual(1, 2); self.assertEqual(3, 4)\n",
    "b_crlf.py": "import sys\r\nclass Other(models.Model):\r\n    return  None\r\nend import\r\n",
    "c_words.py": "tes test tested retest\nforce_str(force_string)\nfoo_force_str force_str\naaaa aaaaa\n",
    "d_unicode.py": "caf\u00e9 = 'na\u00efve import'\n# \u00fcber Error\nprint('\u65e5\u672c import')\n",
    "e_kelvin.py": f"{KELVIN}elvin temperature\nmy{LONG_S}ql import\nkelvin\n",
    "f_last.py": "no newline at the end import",
    "g_empty.py": "",
    "h_upper.py": "IMPORT Import iMpOrT\nERROR error Error\n",
}
QUERIES = [
    '"import"', '"Import"', '"IMPORT"', '"Error"', '"error"', '"self.assertEqual("', '"return  None"',
    '"aaa"', '"   "', '"ab"', '"na\u00efve"', '"\u00fcber"', "kelvin", "Kelvin", "sql", "mysql",
    "force_str", "tes", "test", "Thing",
    r"re:^class \w+\(models\.Model\)", r"re:raise \w+Error\(", r"re:def test_\w+\(self", r"re:import$",
    r"re:\bimport\b", r"re:\Aimport", r"re:import\z", r"re:(?i)IMPORT", r"re:(?-m)^from", r"re:elvin|import",
    r"re:[Kk]elvin", r"re:\w+ import", r"re:end import$",
]


def write(root: Path, contents: dict[str, str]) -> dict[str, SearchText]:
    """Write `contents` under `root` and read them back as the scanner gets them."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in contents.items():
        (root / name).write_bytes(text.encode("utf-8"))
    return {name: SearchText((root / name).read_bytes().decode("utf-8")) for name in sorted(contents)}


def stored(tmp_path: Path, texts: dict[str, SearchText]) -> TextPositions:
    """The positional index of `texts`, written and mapped back as a restart opens it."""
    files = ((path, "digest-" + path, text) for path, text in texts.items())
    pointer = write_positions(tmp_path / POSITIONS_ENTRY, files)
    return TextPositions.from_arrays(open_arrays(tmp_path, pointer))


def served_matches(positions: TextPositions, texts: dict[str, SearchText], query_text: str,
                   limit: int = 200, max_bytes: int | None = None) -> tuple[TextMatches, int]:
    """The matches with every file the index serves taken from it (as `retrieve.text` merges them), and
    how many files it answered for."""
    query = parse_text_query(query_text)
    served = positions.served(query, frozenset(texts))
    if served is None:
        return match_text(query, texts.items(), limit, max_bytes), 0
    found = served.found()
    runs: list[tuple[str, SearchText | FoundFiles]] = []
    for path, text in texts.items():  # a run of served files between every two scanned ones, as `retrieve.text`
        if served.serves(path):
            if any(item[0] == path for item in found):
                last = runs[-1][1] if runs else None
                members = (last.paths if isinstance(last, FoundFiles) else []) + [path]
                if isinstance(last, FoundFiles):
                    runs.pop()
                runs.append((members[0], served.run([item for item in found if item[0] in members])))
        else:
            runs.append((path, text))
    return match_text(query, runs, limit, max_bytes), len(found)


def rows(matches: TextMatches) -> tuple[object, ...]:
    hits = [(h.path, h.span.start_line, h.span.start_col, h.span.end_col, h.score, h.snippet) for h in matches.hits()]
    return matches.lines(), hits, matches.truncated, matches.reason


@pytest.mark.parametrize("query", QUERIES)
def test_the_positional_path_gives_the_scanners_lines_hits_and_ranks(tmp_path: Path, query: str) -> None:
    texts = write(tmp_path / "repo", FILES)
    positions = stored(tmp_path, texts)
    got, answered = served_matches(positions, texts, query)
    expected = match_text(parse_text_query(query), texts.items())
    assert rows(got) == rows(expected)
    if query in ('"import"', '"Error"', "force_str", "tes", r"re:^class \w+\(models\.Model\)", r"re:\bimport\b"):
        assert answered > 0 and len(got) > 0  # these are answered from the index, not scanned


def test_case_folding_queries_leave_kelvin_and_long_s_files_to_the_scanner(tmp_path: Path) -> None:
    texts = write(tmp_path / "repo", FILES)
    positions = stored(tmp_path, texts)
    served = positions.served(parse_text_query("kelvin"), frozenset(texts))
    assert served is not None and not served.serves("e_kelvin.py") and served.serves("a.py")
    exact = positions.served(parse_text_query("Kelvin"), frozenset(texts))
    assert exact is not None and exact.serves("e_kelvin.py")
    lines = served_matches(positions, texts, "kelvin")[0].lines()
    assert ("e_kelvin.py", 0) in lines and ("e_kelvin.py", 2) in lines  # the KELVIN SIGN line folds to "kelvin"


def test_limits_stop_where_the_scan_stops(tmp_path: Path) -> None:
    many = {f"m{n:02}.py": "import a\nx = 1\nimport b\n" * 5 for n in range(20)}
    texts = write(tmp_path / "repo", many)
    positions = stored(tmp_path, texts)
    for limit in (1, 7, 10, 150, 500):
        for query in ('"import"', "import", r"re:^import \w"):
            got, answered = served_matches(positions, texts, query, limit)
            assert answered == 20
            assert rows(got) == rows(match_text(parse_text_query(query), texts.items(), limit))
    assert served_matches(positions, texts, '"import"', 7)[0].reason == "limit"
    size = len(texts["m00.py"].data)
    for spent in (1, size, size + 1, 5 * size, 19 * size + 1):
        for query in ('"import"', r"re:^import \w"):
            got, _ = served_matches(positions, texts, query, 40, spent)
            assert rows(got) == rows(match_text(parse_text_query(query), texts.items(), 40, spent))
    assert served_matches(positions, texts, '"import"', 1000, 5 * size)[0].reason == "max_bytes_scanned"


def test_files_not_current_are_not_served(tmp_path: Path) -> None:
    texts = write(tmp_path / "repo", FILES)
    positions = stored(tmp_path, texts)
    served = positions.served(parse_text_query('"import"'), frozenset(texts) - {"a.py"})
    assert served is not None and not served.serves("a.py")
    assert "a.py" not in [path for path, _ in served.found()]


def test_arrays_that_do_not_fit_together_are_refused(tmp_path: Path) -> None:
    texts = write(tmp_path / "repo", FILES)
    files = ((path, "d", text) for path, text in texts.items())
    arrays = open_arrays(tmp_path, write_positions(tmp_path / "positions", files))
    cut = dict(arrays, starts=arrays["starts"][:-1])
    with pytest.raises(DamagedPositions):
        TextPositions.from_arrays(cut)
    unordered = dict(arrays, **{"codes.0": arrays["codes.0"][::-1].copy()})
    with pytest.raises(DamagedPositions):
        TextPositions.from_arrays(unordered)


def test_blocks_split_the_postings_without_changing_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = write(tmp_path / "repo", FILES)
    monkeypatch.setattr(textpositions, "BLOCK_BYTES", 64)
    positions = stored(tmp_path, texts)
    assert len(positions.blocks) > 3
    for query in ('"import"', "force_str", r"re:\w+ import"):
        assert rows(served_matches(positions, texts, query)[0]) == rows(
            match_text(parse_text_query(query), texts.items()))


def open_workspace(root: Path, index: Path) -> Workspace:
    return Workspace(root, Settings(index_dir=str(index), semantic_backend="none"))


def unserved_lines(workspace: Workspace, query: str) -> list[tuple[str, int]]:
    """The lines the scanner alone finds in the workspace's current snapshot."""
    return every_line(replace(workspace.snapshot(), positions=None), parse_text_query(query)).lines


@pytest.mark.parametrize("few", [0, text_retriever.FEW_UNSERVED])
def test_an_edit_after_the_save_and_a_buffer_are_never_answered_with_stale_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, few: int) -> None:
    """Files it does not serve are scanned: found by the trigram index, or all scanned when they are few."""
    monkeypatch.setattr(text_retriever, "FEW_UNSERVED", few)
    root = tmp_path / "repo"
    write(root, FILES)
    workspace = open_workspace(root, tmp_path / "index")
    workspace.refresh()
    assert workspace.snapshot().positions is not None
    assert workspace.snapshot().as_stored == frozenset(FILES)
    (root / "a.py").write_text("nothing here\nimport changed\n")
    workspace.update_file(root / "a.py")
    assert "a.py" not in workspace.snapshot().as_stored
    lines = workspace.every_line('"import"').lines
    assert ("a.py", 1) in lines and ("a.py", 0) not in lines
    assert lines == unserved_lines(workspace, '"import"')
    workspace.set_buffer(root / "c_words.py", "import from a buffer\n")
    assert "c_words.py" not in workspace.snapshot().as_stored
    lines = workspace.every_line('"import"').lines
    assert ("c_words.py", 0) in lines
    assert lines == unserved_lines(workspace, '"import"')
    for query in QUERIES:
        assert workspace.every_line(query).lines == unserved_lines(workspace, query)
    workspace.close()


@pytest.mark.parametrize("where", ["header", "text"])
def test_a_damaged_positions_file_is_said_in_repairs_rebuilt_and_answers_do_not_change(
        tmp_path: Path, where: str) -> None:
    """A damaged header is found on opening; damaged text only when a search first reads it (hashing the
    file at a restart would read every page): that search scans, and the next refresh builds it again."""
    root = tmp_path / "repo"
    write(root, FILES)
    index = tmp_path / "index"
    workspace = open_workspace(root, index)
    workspace.refresh()
    before = {query: workspace.every_line(query).lines for query in QUERIES}
    workspace.close()
    path = index / POSITIONS_ENTRY
    data = bytearray(path.read_bytes())
    data[-10 if where == "header" else 64 + 3] ^= 0xFF
    path.write_bytes(bytes(data))
    reopened = open_workspace(root, index)
    assert (reopened.snapshot().positions is None) == (where == "header")
    assert {query: reopened.every_line(query).lines for query in QUERIES} == before
    assert any("text positions" in repair for repair in reopened.status()["repairs"])
    reopened.refresh()
    rebuilt = reopened.snapshot().positions
    fresh = TextPositions.from_arrays(open_arrays(tmp_path, write_positions(tmp_path / "fresh", (
        (p, "d", SearchText((root / p).read_bytes().decode())) for p in sorted(FILES)))))
    assert rebuilt is not None and rebuilt.sound and rebuilt.blob.tobytes() == fresh.blob.tobytes()
    assert {query: reopened.every_line(query).lines for query in QUERIES} == before
    reopened.close()



# Lines of t.py per round (60 rounds), and how many lines of t.py and u.py go to RE2.
TEST_LINES = ["    def test_{i}(self):", "    def test_{i} = self", "    def test_ok_{i}(cls):"]
NARROWING = {
    "`(self` on more lines than `def test_`: left to RE2": (TEST_LINES + ["    x = (self, {i})"] * 3, 181),
    "`(self` rarer: its lines alone": (TEST_LINES, 61),
    "as common as each other, apart: both looked up": (["    def test_ok_{i}(cls):", "    x = (self, {i})"], 1),
    "long stretches of candidates without a match": (
        ["    def test_{i}(self):"] + ["    def test_{i} = 1"] * 6 + ["    x = (self, {i})"] * 8, 421),
}


@pytest.mark.parametrize("case", NARROWING)
def test_a_regex_is_narrowed_by_its_rarer_literals_and_re2_checks_the_lines_left(tmp_path: Path, case: str) -> None:
    """`def test_\\w+\\(self`: the lines holding its rarest literal go to RE2, narrowed by the other
    only when that one is no more common than the lines left; where some of them do not match, RE2's
    runs break at each. Either way the lines are the scanner's."""
    template, wanted = NARROWING[case]
    lines = [line.format(i=i) for i in range(60) for line in template]
    texts = write(tmp_path / "repo", {"t.py": "\n".join(lines) + "\n", "u.py": "def test_x(self): pass\n"})
    positions = stored(tmp_path, texts)
    query = r"re:def test_\w+\(self"
    candidates = positions._regex_lines(parse_text_query(query))
    assert candidates is not None and candidates.size == wanted
    got, answered = served_matches(positions, texts, query)
    expected = match_text(parse_text_query(query), texts.items())
    assert answered >= 1 and rows(got) == rows(expected)
    assert len(got) == 1 + sum(line.endswith("(self):") for line in lines)
