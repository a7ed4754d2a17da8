"""Structural pass over real fixture files, one per grammar: symbols, references, imports, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from fourfold.engine.index import structure
from fourfold.engine.index.structure import KINDS, parse_file
from fourfold.engine.model.languages import GRAMMARS, detect_language
from fourfold.engine.model.records import ParsedFile, Span, Symbol

FIXTURES = Path(__file__).parents[2] / "fixtures" / "structure"


def parse(name: str) -> ParsedFile:
    path = FIXTURES / name
    return parse_file(name, path.read_text(encoding="utf-8"), detect_language(path))


def symbol(parsed: ParsedFile, qualified: str) -> Symbol:
    found = [s for s in parsed.symbols if s.qualified == qualified]
    assert found, f"{qualified} not in {[s.qualified for s in parsed.symbols]}"
    return found[0]


# (fixture, qualified, kind, container)
DEFINITIONS = [
    ("sample.py", "parse_config", "function", None),
    ("sample.py", "Config", "class", None),
    ("sample.py", "Config.load", "method", "Config"),
    ("sample.py", "Config.debug", "field", "Config"),
    ("sample.py", "Config.Inner.method", "method", "Inner"),
    ("sample.py", "MAX_RETRIES", "constant", None),
    ("sample.js", "parseConfig", "function", None),
    ("sample.js", "loadSettings", "function", None),
    ("sample.js", "Config.load", "method", "Config"),
    ("sample.js", "Config.constructor", "constructor", "Config"),
    ("sample.js", "MAX", "constant", None),
    ("sample.ts", "Options", "interface", None),
    ("sample.ts", "Options.run", "method", "Options"),
    ("sample.ts", "Mode", "type", None),
    ("sample.ts", "Color", "enum", None),
    ("sample.ts", "Service", "class", None),
    ("sample.ts", "Service.run", "method", "Service"),
    ("sample.ts", "arrow", "function", None),
    ("sample.tsx", "Service.verbose", "field", "Service"),
    ("sample.go", "Config", "struct", None),
    ("sample.go", "Loader", "interface", None),
    ("sample.go", "Config.Load", "method", "Config"),
    ("sample.go", "parseConfig", "function", None),
    ("sample.go", "MaxRetries", "constant", None),
    ("sample.rs", "Config", "struct", None),
    ("sample.rs", "Mode", "enum", None),
    ("sample.rs", "Loader", "trait", None),
    ("sample.rs", "Loader.load", "method", "Loader"),
    ("sample.rs", "Config.load", "method", "Config"),
    ("sample.rs", "Config.new", "method", "Config"),
    ("sample.rs", "parse_config", "function", None),
    ("sample.rs", "inner", "module", None),
    ("Sample.java", "Config", "class", None),
    ("Sample.java", "Config.Config", "constructor", "Config"),
    ("Sample.java", "Config.load", "method", "Config"),
    ("Sample.java", "Config.Mode", "enum", "Config"),
    ("Sample.java", "Loader", "interface", None),
    ("sample.c", "config", "struct", None),
    ("sample.c", "config_t", "type", None),
    ("sample.c", "mode", "enum", None),
    ("sample.c", "parse_config", "function", None),
    ("sample.c", "MAX_RETRIES", "macro", None),
    ("sample.cpp", "app", "namespace", None),
    ("sample.cpp", "app.Config", "class", "app"),
    ("sample.cpp", "app.Config.size", "method", "Config"),
    ("sample.cpp", "app.Config.load", "method", "Config"),
    ("Sample.cs", "App.Core", "namespace", None),
    ("Sample.cs", "App.Core.Config", "class", "App.Core"),
    ("Sample.cs", "App.Core.Config.Name", "property", "Config"),
    ("Sample.cs", "App.Core.Config.Config", "constructor", "Config"),
    ("Sample.cs", "App.Core.Config.Load", "method", "Config"),
    ("Sample.cs", "App.Core.ILoader", "interface", "App.Core"),
    ("Sample.cs", "App.Core.Point", "struct", "App.Core"),
    ("Sample.cs", "App.Core.Mode", "enum", "App.Core"),
    ("Sample.cs", "App.Core.Person", "class", "App.Core"),
    ("sample.rb", "Config", "class", None),
    ("sample.rb", "Config.load", "method", "Config"),
    ("sample.rb", "Config.build", "method", "Config"),
    ("sample.rb", "Config.MAX", "constant", "Config"),
    ("sample.rb", "Util", "module", None),
    ("sample.php", "App\\Core.Config", "class", "App\\Core"),  # `namespace App\Core;` holds what follows
    ("sample.php", "App\\Core.Config.load", "method", "Config"),
    ("sample.php", "App\\Core.Loader", "interface", "App\\Core"),
    ("sample.php", "App\\Core.parseConfig", "function", "App\\Core"),
]


@pytest.mark.parametrize(("fixture", "qualified", "kind", "container"), DEFINITIONS)
def test_definitions_have_kind_container_and_qualified_name(
    fixture: str, qualified: str, kind: str, container: str | None
) -> None:
    found = symbol(parse(fixture), qualified)
    assert (found.kind, found.container) == (kind, container)
    assert found.language == detect_language(fixture)


@pytest.mark.parametrize(
    "fixture", sorted(p.name for p in FIXTURES.iterdir() if detect_language(p) in GRAMMARS)
)
def test_every_kind_is_in_the_vocabulary_and_names_sit_inside_spans(fixture: str) -> None:
    parsed = parse(fixture)
    assert parsed.symbols
    lines = (FIXTURES / fixture).read_text(encoding="utf-8").split("\n")
    for found in parsed.symbols:
        assert found.kind in KINDS
        start, end = found.name_span, found.span
        assert (end.start_line, end.start_col) <= (start.start_line, start.start_col)
        assert (start.end_line, start.end_col) <= (end.end_line, end.end_col)
        assert lines[start.start_line][start.start_col : start.end_col] == found.name


# (fixture, qualified, signature, doc)
HEADERS = [
    ("sample.py", "parse_config", "def parse_config(path: str) -> dict", "Read the config file."),
    ("sample.py", "Config", "class Config(Base, mixins.Loggable)", "A configuration holder."),
    ("sample.py", "Config.load", "def load(self, path)", "Load from path."),
    ("sample.js", "parseConfig", "function parseConfig(text)", "Parse a config."),
    ("sample.js", "Config.load", "load(path)", "Load it."),
    ("sample.ts", "Service", "export class Service extends Base implements Options", "The service."),
    ("sample.go", "Config.Load", "func (c *Config) Load(path string) error", "Load reads the file."),
    ("sample.go", "Config", "type Config struct", "Config holds settings."),
    ("sample.rs", "Config.new", "pub fn new() -> Self", "Make one."),
    ("Sample.java", "Config.load", "@Override public void load(String path)", "Load it."),
    ("sample.c", "config", "struct config", "A config."),
    ("Sample.cs", "App.Core.Config.Load", "public void Load(string path)", "Load it."),
    ("sample.rb", "Config.load", "def load(path)", "Load it."),
    ("sample.php", "App\\Core.Config", "class Config extends Base implements Loader", "A config."),
]


@pytest.mark.parametrize(("fixture", "qualified", "signature", "doc"), HEADERS)
def test_signature_is_the_header_and_doc_is_docstring_or_comment_above(
    fixture: str, qualified: str, signature: str, doc: str
) -> None:
    found = symbol(parse(fixture), qualified)
    assert (found.signature, found.doc) == (signature, doc)


def test_python_ranges_cover_decorators_and_point_at_names() -> None:
    parsed = parse("sample.py")
    assert symbol(parsed, "Config.load").span == Span(18, 4, 21, 31)
    assert symbol(parsed, "Config.load").name_span == Span(18, 8, 18, 12)
    decorated = symbol(parsed, "decorated")
    assert decorated.span.start_line == 28 and decorated.name_span.start_line == 29


def test_c_macro_span_ends_on_its_own_line() -> None:
    assert symbol(parse("sample.c"), "MAX_RETRIES").span == Span(3, 0, 3, 21)


# (fixture, name, kind, enclosing)
REFERENCES = [
    ("sample.py", "load_settings", "call", "parse_config"),
    ("sample.py", "parse_config", "call", "Config.load"),
    ("sample.py", "Base", "inherit", "Config"),
    ("sample.py", "Loggable", "inherit", "Config"),
    ("sample.js", "loadSettings", "call", "Config.load"),
    ("sample.js", "Base", "inherit", "Config"),
    ("sample.ts", "Options", "inherit", "Service"),
    ("sample.ts", "helper", "call", "Service.run"),
    ("sample.go", "parseConfig", "call", "Config.Load"),
    ("sample.rs", "Loader", "inherit", "Config"),
    ("sample.rs", "parse_config", "call", "Config.load"),
    ("Sample.java", "Closeable", "inherit", "Config"),
    ("Sample.java", "parseConfig", "call", "Config.load"),
    ("sample.c", "load_settings", "call", "parse_config"),
    ("sample.cpp", "Base", "inherit", "app.Config"),
    ("sample.cpp", "parse", "call", "app.Config.load"),
    ("Sample.cs", "ILoader", "inherit", "App.Core.Config"),
    ("Sample.cs", "ParseConfig", "call", "App.Core.Config.Load"),
    ("sample.rb", "Base", "inherit", "Config"),
    ("sample.rb", "parse_config", "call", "Config.load"),
    ("sample.php", "Loader", "inherit", "App\\Core.Config"),
    ("sample.php", "parseConfig", "call", "App\\Core.Config.load"),
    ("sample.php", "Config", "reference", "App\\Core.parseConfig"),
]


@pytest.mark.parametrize(("fixture", "name", "kind", "enclosing"), REFERENCES)
def test_references_know_their_kind_and_enclosing_definition(
    fixture: str, name: str, kind: str, enclosing: str
) -> None:
    found = {(r.name, r.kind, r.enclosing) for r in parse(fixture).references}
    assert (name, kind, enclosing) in found


def test_go_builtin_types_and_definition_names_are_not_references() -> None:
    names = {r.name for r in parse("sample.go").references}
    assert "string" not in names and "error" not in names
    assert ("Config", "reference") in {(r.name, r.kind) for r in parse("sample.go").references}
    assert all(r.span.start_line != 12 for r in parse("sample.go").references)


def names_read_by_the_query_pass(monkeypatch: pytest.MonkeyPatch, name: str,
                                  language: str) -> tuple[set[bytes], set[bytes], set[bytes]]:
    """What `_collect` reads of the tree's text for one fixture: (names read, definitions', references')."""
    reads: set[bytes] = set()
    text_bytes = structure._text_bytes

    def counted(node: object) -> bytes:
        found = text_bytes(node)  # type: ignore[arg-type]
        reads.add(found)
        return found

    tree = structure._parser(language).parse((FIXTURES / name).read_bytes())
    monkeypatch.setattr(structure, "_text_bytes", counted)
    scopes, references, _ = structure._collect(language, tree.root_node)
    monkeypatch.undo()
    defined = {scope.name.encode() for scope in scopes} | {(scope.receiver or "").encode() for scope in scopes}
    return reads, defined, {text_bytes(ref.name_node) for ref in references}


def test_the_query_pass_reads_reference_names_only_where_some_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python ignores no reference names: its query pass reads its definitions' names only, and each
    reference's name is read once, when the reference is made (it was read twice). Go's are read and
    its builtin types dropped."""
    reads, defined, referenced = names_read_by_the_query_pass(monkeypatch, "sample.py", "python")
    assert referenced - defined  # names only referenced exist, so the check below can fail
    assert reads <= defined
    reads, _, referenced = names_read_by_the_query_pass(monkeypatch, "sample.go", "go")
    assert b"string" in reads and b"string" not in referenced


IMPORTS = [
    ("sample.py", (".models.User", ".models.Group", "..helpers", "pkg.sub.thing", "os.path")),
    ("sample.js", ("./util", "react", "fs", "./things")),
    ("sample.ts", ("./base",)),
    ("sample.go", ("fmt", "github.com/x/y", "os")),
    ("sample.rs", ("crate::a::b", "std::collections::HashMap", "std::collections::HashSet", "mod:inner")),
    ("Sample.java", ("java.util.List", "java.util.Collections.sort")),
    ("sample.c", ("config.h", "<stdio.h>")),
    ("sample.cpp", ("config.hpp", "<vector>")),
    ("Sample.cs", ("System", "System.Collections.Generic")),
    ("sample.rb", ("json", "./helpers")),
    ("sample.php", ("App\\Models\\User", "App\\Support\\Str", "App\\Support\\Arr", "vendor/autoload.php")),
]


@pytest.mark.parametrize(("fixture", "expected"), IMPORTS)
def test_imports_are_normalised_per_language(fixture: str, expected: tuple[str, ...]) -> None:
    imports = parse(fixture).imports
    assert set(expected) <= set(imports)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from a.b import c\n", ("a.b.c",)),
        ("import a.b as x\n", ("a.b",)),
        ("from . import z\n", (".z",)),
        ("from a import *\n", ("a",)),
    ],
)
def test_python_import_forms(source: str, expected: tuple[str, ...]) -> None:
    assert parse_file("m.py", source, "python").imports == expected


def test_rust_nested_use_lists_expand() -> None:
    source = "use a::{b, c::{d, self}};\nuse x::y as z;\n"
    assert parse_file("m.rs", source, "rust").imports == ("a::b", "a::c::d", "a::c", "x::y")


def test_non_ascii_columns_are_code_points() -> None:
    source = "s = 'héllo wörld'; x = 1\n\ndef größe(ä):\n    return 'ü' + f(ä)\n"
    parsed = parse_file("u.py", source, "python")
    found = symbol(parsed, "größe")
    assert found.name_span == Span(2, 4, 2, 9)
    call = next(r for r in parsed.references if r.name == "f")
    assert call.span == Span(3, 17, 3, 18)
    assert source.split("\n")[3][call.span.start_col] == "f"


def test_crlf_files_keep_lines_and_columns() -> None:
    source = "class A:\r\n    def m(self):\r\n        return 1\r\n"
    parsed = parse_file("c.py", source, "python")
    assert symbol(parsed, "A.m").name_span == Span(1, 8, 1, 9)
    assert symbol(parsed, "A.m").signature == "def m(self)"


@pytest.mark.parametrize(
    ("source", "language"),
    [
        ("", "python"),
        ("def broken(:\n  class\n\x00\x00 }}}", "python"),
        ("function (( { class X extends", "javascript"),
        ("x" * 200_000, "go"),
        ("\ud800 lone surrogate", "rust"),
        ("impl {{{ fn", "rust"),
    ],
)
def test_bad_input_never_raises(source: str, language: str) -> None:
    parsed = parse_file("bad", source, language)
    assert isinstance(parsed, ParsedFile)
    assert all(chunk.path == "bad" for chunk in parsed.chunks)


def test_syntax_error_file_still_yields_the_good_definitions() -> None:
    source = "def good():\n    pass\n\ndef bad(:\n    pass\n\nclass Fine:\n    pass\n"
    names = {s.name for s in parse_file("e.py", source, "python").symbols}
    assert {"good", "Fine"} <= names


@pytest.mark.parametrize("language", [None, "markdown", "text"])
def test_files_without_grammar_get_chunks_only(language: str | None) -> None:
    parsed = parse_file("notes", "def looks_like_code():\n    pass\n", language)
    assert parsed.symbols == () and parsed.references == () and parsed.imports == ()
    assert len(parsed.chunks) == 1


def test_a_named_function_assigned_to_its_own_name_is_one_definition() -> None:
    source = (
        "app.set = function set(setting, val) {\n"
        "  function check(value) { return value; }\n"
        "  return check(val);\n"
        "};\n"
        "const load = function load() {};\n"
        "exports.render = function draw() {};\n"
    )
    symbols = parse_file("lib/application.js", source, "javascript").symbols
    by_name = {(s.qualified, s.kind, s.span.start_line) for s in symbols}
    assert ("set", "function", 0) in by_name and not any(s.qualified == "set.set" for s in symbols)
    assert ("set.check", "function", 1) in by_name  # nested definitions hang off the one that stays
    assert [s.qualified for s in symbols if s.name == "load"] == ["load"]
    assert {"render", "render.draw"} <= {s.qualified for s in symbols}  # a different name is a different thing


RUST_ITEM_MACROS = """\
cfg_rt! {
    /// A set of tasks run on the current thread.
    pub struct LocalSet {
        tick: u8,
    }
}

mod inner {
    cfg_net! {
        pub fn bind() -> u8 { 1 }
    }
}
"""


def test_rust_definitions_inside_item_macro_calls_are_symbols_at_their_own_lines() -> None:
    """tokio wraps hundreds of items in `cfg_rt! { … }`: the grammar leaves them unparsed token trees."""
    parsed = parse_file("src/local.rs", RUST_ITEM_MACROS, "rust")
    spans = {symbol.qualified: symbol.name_span for symbol in parsed.symbols}
    assert spans["LocalSet"].start_line == 2
    assert spans["inner.bind"].start_line == 9
    chunk = next(chunk for chunk in parsed.chunks if chunk.symbol == "LocalSet")
    assert "cfg_rt!" not in chunk.text and "pub struct LocalSet" in chunk.text


def test_a_macro_call_whose_body_is_not_items_stays_a_call() -> None:
    """A body of expressions does not parse as items: the file keeps its first, clean parse."""
    parsed = parse_file("src/x.rs", "sum! { 1 + 2 * 3 }\nfn after() {}\n", "rust")
    assert [symbol.qualified for symbol in parsed.symbols] == ["after"]


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_a_class_field_holding_a_function_is_a_method(language: str) -> None:
    """immer's `produce = (base, recipe) => {…}` is Immer's main method: `where is produce defined` must
    find it as a method, while a field holding a value stays a field."""
    source = ("class Immer {\n  produce = (base, recipe) => {\n    return recipe(base)\n  }\n"
              "  finish = function finish() {}\n  autoFreeze = true\n}\n")
    parsed = parse_file("immer." + {"javascript": "js", "typescript": "ts", "tsx": "tsx"}[language], source, language)
    kinds = {s.qualified: s.kind for s in parsed.symbols}
    assert kinds == {"Immer": "class", "Immer.produce": "method", "Immer.finish": "method",
                     "Immer.autoFreeze": "field"}
    assert symbol(parsed, "Immer.produce").name_span.start_line == 1
