"""Symbol search: tier order, ranking inside a tier, kind words, qualified names, fuzzy, updates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fourfold.engine.index import symbols as symbols_module
from fourfold.engine.index.symbols import FUZZY_MAX_CANDIDATES, SymbolTable, parse_symbol_query, word_key
from fourfold.engine.model.records import Span, Symbol


def sym(
    name: str, kind: str = "function", path: str = "a.py", container: str | None = None, line: int = 0
) -> Symbol:
    qualified = f"{container}.{name}" if container else name
    span = Span(line, 0, line + 1, 0)
    return Symbol(name, kind, path, span, span, container, qualified)


TABLE = SymbolTable(
    [
        sym("parseConfig", path="src/js/config.js"),
        sym("parse_config", path="src/config.py"),
        sym("ParseConfig", "class", path="src/Config.java"),
        sym("parseconfig", "variable", path="src/x.py"),
        sym("parseConfigFile", path="src/file.py"),
        sym("parse_cfg", path="src/cfg.py"),
        sym("load", "method", path="src/config.py", container="Config"),
        sym("load", "method", path="src/other.py", container="Other"),
        sym("load", "variable", path="src/vars.py"),
        sym("func", path="pkg/mod.py"),
        sym("func", path="pkg/mod/__init__.py", line=3),
        sym("func", path="other/mod2.py"),
        sym("Config", "class", path="src/config.py"),
        sym("CONFIG", "constant", path="src/settings.py"),
    ]
)


def test_tiers_in_order_exact_case_words_prefix_fuzzy() -> None:
    results = TABLE.search("parseConfig")
    tiers = [(m.symbol.name, m.tier) for m in results]
    assert tiers[0] == ("parseConfig", "exact")
    assert [t for _, t in tiers] == sorted(
        (t for _, t in tiers), key=["exact", "case", "words", "prefix", "fuzzy"].index
    )
    assert ("ParseConfig", "case") in tiers and ("parseconfig", "case") in tiers
    assert ("parse_config", "words") in tiers
    assert ("parseConfigFile", "prefix") in tiers
    assert [m.score for m in results] == sorted((m.score for m in results), reverse=True)


def test_within_a_tier_classes_and_functions_come_before_variables() -> None:
    case_tier = [m.symbol.path for m in TABLE.search("parseconfig") if m.tier == "case"]
    assert case_tier == ["src/Config.java", "src/js/config.js"]  # same kind rank: shorter path first
    kinds = [m.symbol.kind for m in TABLE.search("load")]
    assert kinds == ["method", "method", "variable"]


def test_same_words_across_spellings() -> None:
    assert word_key("parseConfig") == word_key("parse_config") == word_key("ParseConfig") == "parse_config"
    assert {m.symbol.path for m in TABLE.search("parse_config") if m.tier in ("exact", "words")} >= {
        "src/js/config.js",
        "src/Config.java",
    }


def test_fuzzy_subsequence_prefers_word_starts() -> None:
    results = TABLE.search("pcfg")
    assert results and all(m.tier == "fuzzy" for m in results)
    assert results[0].symbol.name == "parse_cfg"
    assert TABLE.search("zzz") == []


def test_kind_filter() -> None:
    assert [m.symbol.name for m in TABLE.search("parseconfig", kinds=frozenset({"class"}))] == ["ParseConfig"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("class Config", ("Config", frozenset({"class"}))),
        ("def load", ("load", frozenset({"function", "method"}))),
        ("fn  parse", ("parse", frozenset({"function", "method"}))),
        ("const MAX", ("MAX", frozenset({"constant"}))),
        ("Config", ("Config", None)),
        ("class", ("class", None)),
    ],
)
def test_parse_symbol_query(text: str, expected: tuple[str, frozenset[str] | None]) -> None:
    assert parse_symbol_query(text) == expected


def test_qualified_by_container() -> None:
    results = TABLE.search("Config.load")
    assert [(m.symbol.container, m.tier) for m in results] == [("Config", "exact")]
    assert [m.symbol.container for m in TABLE.search("Config::load")] == ["Config"]


def test_a_qualifier_that_names_nothing_is_an_alias_and_dropped() -> None:
    # `z.record` in zod: `z` is `import * as z`, no container, folder or file of that name.
    assert [m.symbol.path for m in TABLE.search("np.Config")][:1] == ["src/config.py"]
    # A qualifier that names something still narrows: `Other` is a container, `Config` is not in it.
    assert TABLE.search("Other.Config") == []
    # A longer qualifier that names nothing is a module outside the workspace, not an alias.
    assert TABLE.search("numpy.Config") == []


def test_qualified_by_module_path() -> None:
    paths = [m.symbol.path for m in TABLE.search("pkg.mod.func")]
    assert paths == ["pkg/mod.py", "pkg/mod/__init__.py"]
    assert [m.symbol.path for m in TABLE.search("src.config.load")] == ["src/config.py"]


def test_definitions_and_len_and_all() -> None:
    assert [s.container for s in TABLE.definitions("load") if s.kind == "method"] == ["Other", "Config"]
    assert len(TABLE) == 14 and len(list(TABLE.all())) == 14


def test_with_file_and_without_file_copy_on_write() -> None:
    updated = TABLE.with_file("src/config.py", [sym("reload", path="src/config.py")])
    assert TABLE.search("reload") == []
    assert [m.symbol.name for m in updated.search("reload")] == ["reload"]
    assert [m.symbol.container for m in updated.search("load") if m.tier == "exact"] == ["Other", None]
    removed = updated.without_file("src/config.py")
    assert removed.search("reload") == [] and len(removed) == len(TABLE) - 3
    assert len(TABLE) == 14


def test_many_updates_fold_into_a_fresh_base() -> None:
    table = SymbolTable()
    for index in range(300):
        table = table.with_file(
            f"f{index}.py", [sym(f"name_{index}_{n}", path=f"f{index}.py") for n in range(10)]
        )
    assert len(table) == 3000
    assert [m.symbol.path for m in table.search("name_299_9")] == ["f299.py"]
    assert next((m.symbol.path, m.tier) for m in table.search("name_0_0")) == ("f0.py", "exact")


def test_search_is_deterministic_and_empty_query_is_empty() -> None:
    assert TABLE.search("") == [] and TABLE.search("   ") == []
    assert TABLE.search("parse", limit=3) == TABLE.search("parse", limit=3)
    assert len(TABLE.search("parse", limit=3)) == 3


class CountingRe:
    """Stands in for `re` inside the symbol table: counts the fuzzy matcher's regex tests."""

    escape = staticmethod(re.escape)
    Match = re.Match

    def __init__(self) -> None:
        self.searches = 0

    def compile(self, pattern: str, flags: int = 0) -> CountingPattern:
        return CountingPattern(re.compile(pattern, flags), self)


class CountingPattern:
    def __init__(self, compiled: re.Pattern[str], counter: CountingRe) -> None:
        self.compiled, self.counter = compiled, counter

    def search(self, text: str) -> re.Match[str] | None:
        self.counter.searches += 1
        return self.compiled.search(text)


def named_table(count: int) -> SymbolTable:
    words = ["parse", "load", "config", "http", "request", "user", "model", "view", "query", "cache"]
    return SymbolTable([
        sym(f"{words[i % 10]}_{words[(i // 10) % 10]}{i}", "function" if i % 3 else "class", path=f"p{i % 900}/m.py")
        for i in range(count)
    ])


def test_keystroke_work_is_bounded_on_forty_thousand_symbols(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each keystroke tests at most FUZZY_MAX_CANDIDATES names with a regex, however large the table.

    (Speed itself is a benchmark figure: `bench/perf.py` reports workspace/symbol latency.)
    """
    counter = CountingRe()
    monkeypatch.setattr(symbols_module, "re", counter)
    queries = ["parse_load1", "ParseLoad", "pl", "qc", "http_req", "Model", "zz", "user.m", "p1.m.load"]
    work: dict[int, list[int]] = {}
    for count in (4_000, 40_000):
        table = named_table(count)
        work[count] = []
        for query in queries:
            for end in range(1, len(query) + 1):
                before = counter.searches
                table.search(query[:end])
                work[count].append(counter.searches - before)
        assert table.search("parse_load10")[0].symbol.name == "parse_load10"
    assert max(work[40_000]) <= FUZZY_MAX_CANDIDATES
    assert max(work[40_000]) == FUZZY_MAX_CANDIDATES  # the cap is what bounds the large table
    assert sum(work[40_000]) < 3 * sum(work[4_000])  # ten times the symbols, nowhere near ten times the work


def test_a_rebuild_over_known_names_and_paths_derives_nothing_again() -> None:
    """A table rebuilt after an edit (or a partial snapshot growing) reuses each name's word key and
    mask and each path's parts; only the new name is worked out."""
    symbols = [sym(f"helper_{i}", path=f"pkg/sub{i % 3}/mod{i}.py") for i in range(40)]
    SymbolTable(symbols)
    before = [f.cache_info().misses for f in (symbols_module.word_key, symbols_module._mask,
                                                 symbols_module._path_parts)]
    table = SymbolTable([*symbols, sym("brand_new_name", path="pkg/sub0/mod0.py")])
    after = [f.cache_info().misses for f in (symbols_module.word_key, symbols_module._mask,
                                                symbols_module._path_parts)]
    assert [b - a for a, b in zip(before, after, strict=True)] == [1, 1, 0]
    assert table.search("sub1.helper_4")[0].symbol.path == "pkg/sub1/mod4.py"


def test_the_subsequence_test_turns_away_exactly_what_the_fuzzy_pattern_cannot_match() -> None:
    """The cheap check before the fuzzy regex must never drop a name the regex would match."""
    import itertools
    import random
    import re

    from fourfold.engine.index.symbols import _is_subsequence

    rng = random.Random(7)
    names = ["".join(rng.choice("abcde_") for _ in range(rng.randint(0, 9))) for _ in range(300)]
    needles = ["".join(letters) for size in (1, 2, 3) for letters in itertools.product("abce", repeat=size)]
    for needle in needles:
        pattern = re.compile(".*?".join(f"({re.escape(char)})" for char in needle))
        for name in names:
            assert _is_subsequence(needle, name) == (pattern.search(name) is not None), (needle, name)


def _edited_files() -> tuple[dict[str, list[Symbol]], dict[str, list[Symbol]]]:
    """A workspace of 40 files, and the same after an edit, a deletion and a new file."""
    files = {f"pkg/mod{n}.py": [sym(f"parse_config_{n}", path=f"pkg/mod{n}.py"),
                                sym("load", "method", path=f"pkg/mod{n}.py", container=f"Loader{n}", line=2),
                                sym(f"Loader{n}", "class", path=f"pkg/mod{n}.py", line=1),
                                sym("CONFIG", "constant", path=f"pkg/mod{n}.py", line=5)]
             for n in range(40)}
    edited = dict(files)
    edited["pkg/mod3.py"] = [sym("reload", path="pkg/mod3.py"), sym("parseConfig", path="pkg/mod3.py", line=4),
                             sym("load", "method", path="pkg/mod3.py", container="Loader3", line=7)]
    del edited["pkg/mod7.py"]
    edited["new/fresh.py"] = [sym("ParseConfig", "class", path="new/fresh.py"),
                              sym("load", "function", path="new/fresh.py", line=9)]
    return files, edited


def test_a_saved_table_edited_answers_as_one_built_from_the_edited_files(monkeypatch: pytest.MonkeyPatch) -> None:
    files, edited = _edited_files()
    saved = SymbolTable(s for found in files.values() for s in found).stored()
    assert saved.stored() is saved  # read from its arrays: records made only as searches show them
    made: list[int] = []
    make = symbols_module._Symbols._symbol
    monkeypatch.setattr(symbols_module._Symbols, "_symbol", lambda self, index: made.append(index) or make(self, index))
    table = (saved.with_file("pkg/mod3.py", edited["pkg/mod3.py"]).without_file("pkg/mod7.py")
             .with_file("new/fresh.py", edited["new/fresh.py"]))
    # Issue 17: the edits made no saved symbol into a record (every one of them was, by copying the files).
    assert made == []
    fresh = SymbolTable(s for found in edited.values() for s in found)
    assert len(table) == len(fresh) == sum(map(len, edited.values()))
    queries = ["load", "LOAD", "parse_config", "parseConfig", "ParseConfig", "parse_config_7", "parse_config_3",
               "reload", "par", "Lo", "pcfg", "ldr", "Loader3.load", "mod3.load", "fresh.load", "mod7.load",
               "CONFIG", "config", "Loader7"]
    for query in queries:
        for kinds in (None, frozenset({"method"}), frozenset({"class"})):
            assert ([(m.symbol, m.score, m.tier) for m in table.search(query, kinds)]
                    == [(m.symbol, m.score, m.tier) for m in fresh.search(query, kinds)]), (query, kinds)
        assert table.definitions(query) == fresh.definitions(query)
    assert table.worded(["parse", "config"], 2) == fresh.worded(["parse", "config"], 2)
    assert sorted(table.all(), key=repr) == sorted(fresh.all(), key=repr)
    again = SymbolTable.from_arrays(table.arrays())  # the next save folds the edits into arrays
    assert [m.symbol for m in again.search("load")] == [m.symbol for m in fresh.search("load")]
    assert len(again) == len(fresh) and "pkg/mod7.py" not in {s.path for s in again.all()}


def test_saved_lookups_list_each_keys_positions_ascending_and_spans_as_the_records_say(tmp_path: Path) -> None:
    """The arrays a table saves: every lookup's positions per key ascending, whatever order they were
    gathered in (the scoped lookup's are sets), and each symbol's spans as its record holds them."""
    from fourfold.engine.index.structure import parse_file

    files = {"pkg/models.py": "class Model:\n    def save(self):\n        pass\n\n\ndef save():\n    pass\n",
             "pkg/views.py": "def render():\n    return 1\n\n\nclass View(Model):\n    def save(self):\n        pass\n"}
    found: list[Symbol] = []
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
        found.extend(parse_file(path, (tmp_path / path).read_text(), "python").symbols)
    table = SymbolTable(found)
    arrays = table.arrays()
    base = table._base
    for name in symbols_module.LOOKUPS:
        offsets, positions = arrays[f"{name}_offsets"], arrays[f"{name}_positions"]
        lookup = getattr(base, name)
        keys = sorted(lookup)
        assert [positions[offsets[at]:offsets[at + 1]].tolist() for at in range(len(keys))] == [
            sorted(lookup[key]) for key in keys]
    spans = arrays["spans"]
    assert spans.shape == (len(found), 8)
    for row, symbol in zip(spans.tolist(), base.symbols, strict=True):
        span, name = symbol.span, symbol.name_span
        assert row == [span.start_line, span.start_col, span.end_line, span.end_col,
                       name.start_line, name.start_col, name.end_line, name.end_col]
    assert [s.name for s in SymbolTable.from_arrays(arrays).definitions("save")] == [
        s.name for s in table.definitions("save")]


def spanning(name: str, start: int, end: int, path: str = "m.py") -> Symbol:
    return Symbol(name, "function", path, Span(start, 0, end, 0), Span(start, 4, start, 4 + len(name)), None, name)


NESTED = [spanning("Outer", 0, 20), spanning("method", 2, 8), spanning("inner", 4, 6), spanning("twin_a", 10, 12),
          spanning("twin_b", 10, 11), spanning("later", 14, 18), spanning("other_file", 0, 50, path="n.py")]


def around_by_walking(symbols: list[Symbol], line: int) -> str | None:
    """What `enclosing` must give: of the spans holding the line, the one starting last, the later of a tie."""
    holding = [(symbol.span.start_line, at, symbol) for at, symbol in enumerate(symbols)
               if symbol.span.start_line <= line <= symbol.span.end_line]
    return max(holding, key=lambda found: found[:2])[2].name if holding else None


@pytest.mark.parametrize("made", ["built", "saved", "saved then edited elsewhere", "saved then edited here"])
def test_a_files_innermost_symbols_name_spans_and_named_symbol_agree_from_records_arrays_and_edits(
        made: str) -> None:
    table = SymbolTable(NESTED)
    mine = [symbol for symbol in NESTED if symbol.path == "m.py"]
    if made != "built":
        table = SymbolTable.from_arrays(table.arrays())
    if made == "saved then edited elsewhere":
        table = table.with_file("n.py", [spanning("replaced", 0, 3, path="n.py")])
    if made == "saved then edited here":
        mine = [*mine[:3], spanning("added", 13, 19)]
        table = table.with_file("m.py", mine)
    lines = list(range(-1, 23))
    assert [found.name if found else None for found in table.enclosing("m.py", lines)] == \
        [around_by_walking(mine, line) for line in lines]
    assert table.enclosing("missing.py", [0, 1]) == [None, None]
    assert table.name_spans("m.py") == sorted(symbol.name_span for symbol in mine)
    assert table.in_file("m.py") == tuple(mine) and table.name_spans("missing.py") == []
    for symbol in mine:
        assert table.symbol("m.py", symbol.qualified or symbol.name) == symbol
    assert table.symbol("m.py", "other_file") is None and table.symbol("missing.py", "Outer") is None
    for kinds in (frozenset({"function"}), frozenset({"class", "nothing"}), frozenset()):
        assert table.names_of_kinds("m.py", kinds) == {symbol.name for symbol in mine if symbol.kind in kinds}
