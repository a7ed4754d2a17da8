"""Exact text search: query parsing, smart case, RE2 safety, and parity with `rg -F`."""

from __future__ import annotations

import gc
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourfold.engine.index import textsearch
from fourfold.engine.index.regexplan import plan
from fourfold.engine.index.textsearch import (
    REASON_BYTES,
    REASON_LIMIT,
    SNIPPET_MAX,
    QueryError,
    SearchText,
    TextQuery,
    candidate_plan,
    match_text,
    parse_text_query,
    required_trigrams,
    search_text,
)
from fourfold.engine.index.trigram import TrigramIndex, file_trigrams
from fourfold.engine.model.records import Hit

POLYGLOT = Path(__file__).resolve().parents[2] / "fixtures" / "polyglot"


def fixture_files() -> list[tuple[str, str]]:
    paths = sorted(p for p in POLYGLOT.rglob("*") if p.is_file())
    return [(p.relative_to(POLYGLOT).as_posix(), p.read_bytes().decode("utf-8")) for p in paths]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parseConfig", TextQuery("identifier", "parseConfig", True)),
        ("load_settings", TextQuery("identifier", "load_settings", False)),
        ("connection refused", TextQuery("literal", "connection refused", False)),
        ('"Connection refused"', TextQuery("literal", "Connection refused", True)),
        ('"retry"', TextQuery("literal", "retry", False)),
        ("'a b'", TextQuery("literal", "a b", False)),
        ("'Timeout has occurred'", TextQuery("literal", "Timeout has occurred", True)),
        ("'parse_config'", TextQuery("literal", "parse_config", False)),
        ("Session.send", TextQuery("literal", "Session.send", True)),
        ("/retry\\(\\w+/", TextQuery("regex", "retry\\(\\w+", False)),
        ("re: \\bRetry\\b", TextQuery("regex", "\\bRetry\\b", True)),
        ("/\\w+Error\\s/", TextQuery("regex", "\\w+Error\\s", True)),
        ("/\\W\\S\\D(?P<Name>x)/", TextQuery("regex", "\\W\\S\\D(?P<Name>x)", False)),
        ("Größe", TextQuery("identifier", "Größe", True)),
        ("  straße  ", TextQuery("identifier", "straße", False)),
    ],
)
def test_parse_text_query(text: str, expected: TextQuery) -> None:
    assert parse_text_query(text) == expected


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("/a(?=b)/", 2),  # look-ahead: RE2 refuses, column of "(?="
        ("re:ab(c", 5),  # unterminated group: column of "("
        ("/[z-a]/", 2),  # bad range
        ("//", 1),
        ("   ", None),
        ('""', None),
    ],
)
def test_invalid_queries_raise_query_error_with_a_position(text: str, position: int | None) -> None:
    with pytest.raises(QueryError) as caught:
        parse_text_query(text)
    assert caught.value.message
    if position is not None:
        assert caught.value.position == position
    assert "(?m)" not in caught.value.message


def fastest(work: Callable[[], object], repeats: int = 3) -> float:
    """The best of a few runs: the least disturbed by whatever else the machine is doing."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def test_catastrophic_regex_is_linear_in_the_input() -> None:
    """`(a+)+$` backtracks exponentially (2^n) in a backtracking engine; RE2 is linear.

    Ten times the input must cost about ten times the time: the bound (100x) is far above what load
    can cause and far below what one extra character costs a backtracking engine.
    """
    query = parse_text_query("/(a+)+$/")
    small, large = ("a" * size + "b\n" + "aaa\n" for size in (20_000, 200_000))
    result = search_text(query, [("evil.txt", large)])
    assert [(h.span.start_line, h.span.start_col) for h in result.hits] == [(1, 0)]
    ratio = fastest(lambda: search_text(query, [("evil.txt", large)])) / max(
        fastest(lambda: search_text(query, [("evil.txt", small)])), 1e-6)
    assert ratio < 100, f"10x the input took {ratio:.0f}x the time"


def test_columns_are_code_points_on_the_line() -> None:
    content = '# 日本語 café\nx = "naïve Größe"\n'
    result = search_text(parse_text_query("Größe"), [("a.py", content)])
    (hit,) = result.hits
    assert (hit.span.start_line, hit.span.start_col, hit.span.end_col) == (1, 11, 16)
    assert content.splitlines()[1][hit.span.start_col : hit.span.end_col] == "Größe"
    assert hit.language == "python"


def test_crlf_lines_have_no_carriage_return_in_snippets() -> None:
    files = [(p, c) for p, c in fixture_files() if p.endswith(".cs")]
    assert "\r\n" in files[0][1]
    result = search_text(parse_text_query("connection refused"), files)
    assert [h.span.start_line for h in result.hits] == [30, 33]
    assert all("\r" not in h.snippet for h in result.hits)
    result = search_text(parse_text_query("/\\)$/"), files)
    assert result.hits and all(h.snippet.endswith(")") for h in result.hits)


def test_empty_files_and_phantom_last_line() -> None:
    query = parse_text_query("/x*/")
    result = search_text(query, [("empty.txt", ""), ("two.txt", "a\nb\n")])
    assert [(h.path, h.span.start_line) for h in result.hits] == [("two.txt", 0), ("two.txt", 1)]


def test_regex_never_spans_lines_and_anchors_work_per_line() -> None:
    content = "foo\nbar\n  def x\ndef y\n"
    assert search_text(parse_text_query("/foo\\s+bar/"), [("a", content)]).hits == []
    hits = search_text(parse_text_query("/^def/"), [("a", content)]).hits
    assert [h.span.start_line for h in hits] == [3]


def test_one_hit_per_line_with_the_first_match() -> None:
    hits = search_text(parse_text_query("ab"), [("a", "xx ab ab\nab\n")]).hits
    assert [(h.span.start_line, h.span.start_col) for h in hits] == [(0, 3), (1, 0)]
    assert hits[0].snippet == "xx ab ab"


def test_identifier_whole_words_rank_above_substrings() -> None:
    files = [
        ("a.py", "retry_count = 1\nx = retrying\n"),
        ("b.py", "from r import retry\n"),
        ("c.py", "Retry(3)  # also retry\n"),
    ]
    result = search_text(parse_text_query("retry"), files)
    ranked = [(h.path, h.span.start_line, h.span.start_col, h.score) for h in result.hits]
    assert ranked == [
        ("b.py", 0, 14, 1.0),
        ("c.py", 0, 0, 1.0),
        ("a.py", 0, 0, 0.5),
        ("a.py", 1, 4, 0.5),
    ]


def test_identifier_limit_keeps_whole_words_from_later_files() -> None:
    files = [(f"{i:02d}.py", "retrying\n" * 3) for i in range(5)] + [("z.py", "retry\n")]
    result = search_text(parse_text_query("retry"), files, limit=3)
    assert result.hits[0].path == "z.py"
    assert result.truncated and result.reason == REASON_LIMIT
    assert len(result.hits) == 3


def test_limit_and_byte_budget_say_why() -> None:
    files = [(f"{i}.txt", "needle\n" * 10) for i in range(10)]
    capped = search_text(parse_text_query("needle"), files, limit=15)
    assert len(capped.hits) == 15 and capped.truncated and capped.reason == REASON_LIMIT
    budget = search_text(parse_text_query("needle"), files, max_bytes_scanned=100)
    assert budget.truncated and budget.reason == REASON_BYTES
    assert {h.path for h in budget.hits} == {"0.txt", "1.txt"}
    complete = search_text(parse_text_query("needle"), files[:2], limit=20)
    assert len(complete.hits) == 20 and not complete.truncated and complete.reason == ""


def test_long_lines_are_cut_around_the_match() -> None:
    content = "x" * 1000 + " needle " + "y" * 1000
    (hit,) = search_text(parse_text_query("needle"), [("a", content)]).hits
    assert len(hit.snippet) <= SNIPPET_MAX and "needle" in hit.snippet
    assert hit.span.start_col == 1001


def test_required_trigrams_and_candidate_plan() -> None:
    assert required_trigrams(parse_text_query("connection refused")) == [["connection refused"]]
    assert required_trigrams(parse_text_query("ab")) is None
    regex = parse_text_query("/load_(settings|config)/")
    assert required_trigrams(regex) == plan("load_(settings|config)", True)
    grams = candidate_plan(regex)
    assert grams is not None and len(grams) == 2
    assert all(g.size and (g[1:] > g[:-1]).all() for g in grams)
    assert candidate_plan(parse_text_query("/\\w+/")) is None


QUERIES = [
    "connection refused",
    "retry",
    "parseConfig",
    "load_settings",
    "LoadSettings",
    "max_attempts",
    "Größe",
    "größe",
    "stock",
    "class ",
    "=>",
    "在庫",
    "Warehouse",
    "café",
    ") {",
]


def rg_lines(query: TextQuery) -> set[tuple[str, int]]:
    rg = shutil.which("rg")
    assert rg, "ripgrep (rg) must be installed for the parity test"
    args = [rg, "--no-config", "--no-ignore", "--hidden", "-F", "-n", "--no-heading", "--with-filename"]
    args += [] if query.case_sensitive else ["-i"]
    run = subprocess.run([*args, "--", query.pattern, "."], cwd=POLYGLOT, capture_output=True, check=False)
    assert run.returncode in (0, 1), run.stderr
    found = set()
    for line in run.stdout.decode("utf-8").splitlines():
        path, number, _ = line.split(":", 2)
        found.add((path.removeprefix("./"), int(number) - 1))
    return found


@pytest.mark.parametrize("text", QUERIES)
def test_literal_results_equal_ripgrep(text: str) -> None:
    query = parse_text_query(text)
    query = TextQuery("literal", query.pattern, query.case_sensitive)
    files = fixture_files()
    index = TrigramIndex.build({i: file_trigrams(content) for i, (_, content) in enumerate(files)})
    candidates = index.candidates_for_plan(required_trigrams(query))
    narrowed = [files[int(i)] for i in candidates]
    ours = {(h.path, h.span.start_line) for h in search_text(query, narrowed, limit=10_000).hits}
    expected = rg_lines(query)
    assert expected, f"{text!r} should match somewhere in the fixture"
    assert ours == expected


def _lines(query: str, files: list[tuple[str, str]]) -> list[tuple[str, int, int]]:
    result = search_text(parse_text_query(query), files, limit=1000)
    return [(hit.path, hit.span.start_line, hit.span.start_col) for hit in result.hits]


def test_case_folding_twins_of_ascii_letters_are_found_like_re2() -> None:
    # KELVIN SIGN folds to k and LONG S to s in RE2: a byte search on lowercased text would miss them.
    files = [("a.txt", "x \u212aelvin\nKelvin\nno\n"), ("b.txt", "mi\u017f\u017fing\nmissing\n")]
    assert _lines("kelvin", files) == [("a.txt", 0, 2), ("a.txt", 1, 0)]
    assert _lines("missing", files) == [("b.txt", 0, 0), ("b.txt", 1, 0)]


def test_plain_byte_search_keeps_code_point_columns_in_non_ascii_files() -> None:
    files = [("a.py", "# café ünïcode\nvalue = 'ünïcode' + Café\n")]
    assert _lines("Café", files) == [("a.py", 1, 20)]
    assert _lines("ünïcode", files) == [("a.py", 0, 7), ("a.py", 1, 9)]


def test_searchable_text_folds_crlf_and_lowers_ascii_only() -> None:
    text = SearchText("Ab\r\nÇd\r\n")
    assert text.data == "Ab\nÇd\n".encode()
    assert text.lowered == "ab\nÇd\n".encode()
    assert not text.ascii and text.plain_case
    assert not SearchText("\u212a").plain_case


def test_searchable_text_is_accepted_in_place_of_a_string() -> None:
    result = search_text(parse_text_query("needle"), [("a.txt", SearchText("x\r\nneedle\r\n"))])
    assert [(hit.span.start_line, hit.snippet) for hit in result.hits] == [(1, "needle")]


def test_regex_skipping_to_the_literal_keeps_anchors_and_word_bounds() -> None:
    files = [
        ("a.py", "x import json\nimport json\n  import json\nimport jsonx\n"),
        ("b.py", "y = 1 import json"),
        ("c.py", "IMPORT JSON\n"),
    ]
    assert _lines(r"re:^import json\b", files) == [("a.py", 1, 0), ("c.py", 0, 0)]
    assert _lines(r"re:^import json", files) == [("a.py", 1, 0), ("a.py", 3, 0), ("c.py", 0, 0)]
    assert _lines(r"re:import json$", files) == [("a.py", 0, 2), ("a.py", 1, 0), ("a.py", 2, 2), ("b.py", 0, 6),
                                                 ("c.py", 0, 0)]
    assert _lines(r"re:(?i)^IMPORT json$", files) == [("a.py", 1, 0), ("c.py", 0, 0)]


def test_regex_with_a_guiding_literal_agrees_with_a_plain_scan() -> None:
    lines = [f"line {n} {'retry(call, 3)' if n % 7 == 0 else 'Retry ('} end" for n in range(200)]
    files = [("a.py", "\n".join(lines))]
    expected = [("a.py", n, lines[n].index("retry")) for n in range(200) if n % 7 == 0]
    assert _lines(r"re:retry\(\w+, \d\)", files) == expected


def disk_files(root: Path, contents: dict[str, str]) -> list[tuple[str, str]]:
    """Write `contents` under `root` and read them back as the matcher gets them (path, text)."""
    for name, text in contents.items():
        (root / name).write_bytes(text.encode("utf-8"))
    return [(name, (root / name).read_bytes().decode("utf-8")) for name in sorted(contents)]


def hit_rows(hits: list[Hit]) -> list[tuple[str, int, int, int, float, str]]:
    return [(h.path, h.span.start_line, h.span.start_col, h.span.end_col, h.score, h.snippet) for h in hits]


def test_matching_lines_become_hits_only_for_the_lines_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17: thousands of matching lines cost a tuple each; only the page a client shows is built as Hits."""
    files = disk_files(tmp_path, {f"{i}.py": "x = needle(1)\ny = 2\nneedle needle\n" * 50 for i in range(4)})
    query = parse_text_query("needle")
    made: list[int] = []
    real_hit = textsearch._hit
    monkeypatch.setattr(textsearch, "_hit", lambda file, found, score: made.append(1) or real_hit(file, found, score))
    found = match_text(query, files, limit=10**6)
    assert len(found) == 400 and not found.truncated and made == []
    assert found.lines() == [(f"{i}.py", line) for i in range(4) for line in range(150) if line % 3 != 1]
    page = found.hits(7)
    assert len(made) == 7
    assert hit_rows(page) == hit_rows(search_text(query, files, limit=10**6).hits[:7])


def test_identifier_keeps_the_first_whole_word_of_a_line_in_both_ways_of_numbering_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file with few occurrences gets its lines by bisection, one with many by searchsorted: same answer."""
    few = "xretry retry\nretryx\n"
    many = "retry_a retry_b retry\n" * 3 + "retrying\n" + "a = 1\n" + "retry\n"
    files = disk_files(tmp_path, {"few.py": few, "many.py": many})
    query = parse_text_query("retry")
    expected = [
        ("few.py", 0, 7, 12, 1.0),
        ("many.py", 0, 16, 21, 1.0),
        ("many.py", 1, 16, 21, 1.0),
        ("many.py", 2, 16, 21, 1.0),
        ("many.py", 5, 0, 5, 1.0),
        ("few.py", 1, 0, 5, 0.5),
        ("many.py", 3, 0, 5, 0.5),
    ]
    for few_occurrences in (0, textsearch.FEW_OCCURRENCES, 10**6):
        monkeypatch.setattr(textsearch, "FEW_OCCURRENCES", few_occurrences)
        assert [row[:5] for row in hit_rows(search_text(query, files).hits)] == expected


@pytest.mark.parametrize("text", ["Needle", "needle", "Größe", "ab", r"/Ne+dle\b/", r"/needle|ab/"])
def test_literal_found_past_the_byte_search_window_agrees_with_a_plain_byte_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Beyond FIND_WINDOW bytes RE2 takes over the search for a literal; gaps of every size around the
    window's edge give the same lines and columns as `bytes.find` alone (a regex's guiding literal too)."""
    gaps = [0, 1, 5, 6, 7, 8, 9, 30, 200]
    word = {"needle": "NeEdLe", r"/Ne+dle\b/": "Needle", r"/needle|ab/": "ab"}.get(text, text)  # lowercase: any case
    body = "".join("." * gap + word + "\n" + "-" * gap + "\n" for gap in gaps) + "x" * 100 + word
    files = disk_files(tmp_path, {"a.txt": body, "b.txt": "café " + body})
    query = parse_text_query(text)
    monkeypatch.setattr(textsearch, "FIND_WINDOW", 1 << 40)
    plain = hit_rows(search_text(query, files, limit=10**6).hits)
    assert len(plain) == 2 * (len(gaps) + 1)
    monkeypatch.setattr(textsearch, "FIND_WINDOW", 8)
    assert hit_rows(search_text(query, files, limit=10**6).hits) == plain


def test_newlines_are_the_offsets_of_every_line_break_after_crlf_folding() -> None:
    text = SearchText("a\r\nbc\n\nd")
    assert text.data == b"a\nbc\n\nd"
    assert text.newlines.tolist() == [1, 4, 5]
    assert text.newlines is text.newlines  # computed once per file version
    assert SearchText("").newlines.tolist() == []


class _PublicOnly:
    """An RE2 matcher seen through its public API alone, as a binding without the internals would offer."""

    def __init__(self, matcher: Any) -> None:
        self.search = matcher.search


def test_regex_window_search_without_the_bindings_internals_gives_the_same_lines(tmp_path: Path) -> None:
    files = disk_files(tmp_path, {"a.py": "raise ValueError('x')\nraise Http404\n  raise KeyError(k)\n"})
    query = parse_text_query(r"/raise \w+Error\(/")
    matcher = textsearch.compile_query(query, 0)
    data = SearchText(files[0][1]).data
    fast, public = textsearch.searcher(matcher), textsearch.searcher(_PublicOnly(matcher))  # type: ignore[arg-type]
    assert fast is not public
    for pos, end in ((0, len(data)), (1, len(data)), (22, 40), (36, len(data)), (len(data), len(data))):
        assert fast(data, pos, end) == public(data, pos, end)
    assert [(h.span.start_line, h.span.start_col) for h in search_text(query, files).hits] == [(0, 0), (2, 2)]


# A small tree for the brute-force parity tests: many hits per file and per line, CRLF, a match on a
# last line without a newline, bytes that are not UTF-8, non-ASCII text, and a file with no hit.
PARITY_TREE: dict[str, bytes] = {
    "a.py": b"import os\nfrom x import y  # import twice\nclass Error(Exception):\n    pass\n" * 40
    + b"raise Error('x')",
    "b.py": b"def test_one(self):\r\n    return self.assertEqual(1, 1)\r\n\r\nIMPORT = 'Import'\r\n",
    "c.txt": b"caf\xc3\xa9 import \xff\xfe broken \x80 bytes\nError \xe9 Error\nreturn error\n",
    "d.md": b"nothing to see here\n" * 300,
    "e.py": b"\n".join(b"    return x%d  # error %d" % (n, n) for n in range(500)) + b"\n",
}
PARITY_QUERIES = ['"import"', '"Error"', '"return "', '"error"', "return", '"nothing here"', '"see here"',
                  r"re:def test_\w+\(self", r"re:^\s*return \w+", r"re:error\s*$", r"re:\bimport\b", "re:x4\\d\\d"]


def brute_force(query: TextQuery, files: list[tuple[str, str]]) -> list[tuple[str, int, int]]:
    """(path, 0-based line, start column) of every matching line, by Python's `re` over each line."""
    pattern = query.pattern if query.kind == "regex" else re.escape(query.pattern)
    matcher = re.compile(pattern, 0 if query.case_sensitive else re.IGNORECASE)
    found = []
    for path, text in files:
        lines = text.replace("\r\n", "\n").split("\n")
        if text.endswith("\n"):
            lines.pop()  # the empty tail after the final newline is no line
        for number, line in enumerate(lines):
            match = matcher.search(line)
            if match is not None:
                found.append((path, number, match.start()))
    return found


@pytest.mark.parametrize("window", [8, 4096])
@pytest.mark.parametrize("text", PARITY_QUERIES)
def test_every_line_equals_a_brute_force_scan_of_a_tree_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, window: int
) -> None:
    """Literals, regexes, smart case, many hits, no hit, a last line without a newline and invalid UTF-8:
    the lines, their order and columns are those of a line-by-line scan, also with the byte-search
    window and the regex slice small enough that RE2 takes over and the clock is asked inside files."""
    for name, data in PARITY_TREE.items():
        (tmp_path / name).write_bytes(data)
    files = [(name, (tmp_path / name).read_bytes().decode("utf-8", "replace")) for name in sorted(PARITY_TREE)]
    monkeypatch.setattr(textsearch, "FIND_WINDOW", window)
    monkeypatch.setattr(textsearch, "SCAN_SLICE", window)
    query = parse_text_query(text)
    expected = brute_force(query, files)
    found = match_text(query, files, limit=10**6)
    hits = found.hits()
    if query.kind != "identifier":
        assert [(h.path, h.span.start_line, h.span.start_col) for h in hits] == expected
    else:  # whole words first, then substrings, each in (path, line) order
        assert sorted((h.path, h.span.start_line) for h in hits) == [row[:2] for row in expected]
    assert found.lines() == [(h.path, h.span.start_line) for h in hits]
    assert not found.truncated
    if len(expected) > 3:
        page = match_text(query, files, limit=3)
        assert page.truncated and page.reason == REASON_LIMIT
        assert hit_rows(page.hits()) == hit_rows(hits[:3])
        assert hit_rows(found.hits(3)) == hit_rows(hits[:3])


def test_brute_force_parity_covers_many_hits_and_no_hit() -> None:
    """The parity tree exercises what it is meant to: a many-hit query and a query with no hit."""
    files = [(name, data.decode("utf-8", "replace")) for name, data in PARITY_TREE.items()]
    counts = {text: len(brute_force(parse_text_query(text), files)) for text in PARITY_QUERIES}
    assert counts['"return "'] > 500 and counts['"nothing here"'] == 0 and counts['"Error"'] > 40


def test_matching_line_records_leave_the_garbage_collectors_watch(tmp_path: Path) -> None:
    """Issue 17: a listing keeps one record per line; records the collector tracks made each big listing
    push the process toward full collections of the whole heap, which then ran inside a search. They are
    kept as one integer array, nothing the collector walks."""
    files = disk_files(tmp_path, {"a.py": "import os\n" * 1000, "b.py": "def test_x(self):\n" * 1000})
    for text in ('"import"', r"re:def test_\w+\(self"):
        found = match_text(parse_text_query(text), files, limit=10**6)
        assert len(found) == 1000
        for records in (found.whole, found.partial):
            assert records.rows.dtype == np.int64 and not gc.is_tracked(records.rows)
        assert [line for _, line in found.lines()] == list(range(1000))


def test_a_listing_in_file_order_counts_caps_and_pages_from_the_records(tmp_path: Path) -> None:
    """An identifier lists whole words before substrings; rg's order is by path, then line. Files come in
    out of path order here, as a search's candidates may: the counts and the order are still by path."""
    texts = {"b.py": "parse_x = 1\nparse = 2\nparse = 3\n", "a.py": "reparse\nparse\n", "c.py": "nothing\n"}
    files = disk_files(tmp_path, texts)
    found = match_text(parse_text_query("parse"), [files[1], files[0], files[2]], limit=100)
    assert found.lines() == [("a.py", 1), ("b.py", 1), ("b.py", 2), ("a.py", 0), ("b.py", 0)]  # whole words first
    assert found.file_counts() == {"a.py": 2, "b.py": 3}
    everything = [("a.py", 0), ("a.py", 1), ("b.py", 0), ("b.py", 1), ("b.py", 2)]
    assert found.in_file_order() == (everything, 5)
    assert found.in_file_order(per_file=1) == ([("a.py", 0), ("b.py", 0)], 2)
    assert found.in_file_order(per_file=2, limit=3) == ([("a.py", 0), ("a.py", 1), ("b.py", 0)], 4)
    assert found.in_file_order(limit=0) == ([], 5)
