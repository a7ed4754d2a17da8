"""The languages beyond the first twelve (issue 13): real wheels' grammars on fixture files, with
definitions, kinds, containers, calls and imports; shebang and header detection; module edges; and
the use-before-definition case, where go-to-definition and Ctrl+T must land on the definition's name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.graph.imports import FileSet, resolve_import
from fourfold.engine.index.structure import KINDS, parse_file
from fourfold.engine.model.languages import (
    EXTENSIONS,
    GRAMMARS,
    detect_language,
    grammar,
    mode_line_language,
    shebang_language,
)
from fourfold.engine.model.records import ParsedFile, Symbol
from fourfold.engine.query.parsedquery import parse_query
from fourfold.engine.query.request import Ranking
from fourfold.engine.retrieve.structural import structural
from fourfold.lsp import convert
from fourfold.lsp.kinds import FALLBACK_KIND, symbol_kind

FIXTURES = Path(__file__).parents[2] / "fixtures" / "languages"
NEW_LANGUAGES = ("kotlin", "scala", "swift", "elixir", "haskell", "lua", "zig", "bash", "objc", "dart", "ocaml",
                 "julia", "perl", "powershell", "groovy", "solidity", "hcl", "sql")


def parse(name: str) -> ParsedFile:
    path = FIXTURES / name
    text = path.read_text(encoding="utf-8")
    return parse_file(name, text, detect_language(path, text))


def symbol(parsed: ParsedFile, qualified: str) -> Symbol:
    found = [s for s in parsed.symbols if s.qualified == qualified]
    assert found, f"{qualified} not in {[s.qualified for s in parsed.symbols]}"
    return found[0]


@pytest.mark.parametrize("language", sorted(GRAMMARS))
def test_every_grammar_loads_and_every_extension_names_a_known_language(language: str) -> None:
    assert grammar(language).abi_version >= 14
    assert set(EXTENSIONS.values()) - {"markdown", "rst", "text"} <= set(GRAMMARS)


# (fixture, qualified, kind, container)
DEFINITIONS = [
    ("client.kt", "HttpClient", "class", None),
    ("client.kt", "HttpClient.run", "method", "HttpClient"),
    ("client.kt", "HttpClient.timeout", "property", "HttpClient"),
    ("client.kt", "Closeable", "interface", None),
    ("client.kt", "Registry", "class", None),
    ("client.kt", "Method", "enum", None),
    ("client.kt", "Method.GET", "enum_member", "Method"),
    ("client.kt", "Handler", "type", None),
    ("client.kt", "DEFAULT_PORT", "constant", None),
    ("client.kt", "makeClient", "function", None),
    ("functor.scala", "Functor", "interface", None),
    ("functor.scala", "Functor.map", "method", "Functor"),
    ("functor.scala", "Functor.lift", "method", "Functor"),
    ("functor.scala", "Kleisli", "class", None),
    ("functor.scala", "Color.Red", "enum_member", "Color"),
    ("functor.scala", "Id", "type", None),
    ("functor.scala", "twice", "function", None),
    ("app.swift", "App", "class", None),
    ("app.swift", "App.init", "constructor", "App"),
    ("app.swift", "App.run", "method", "App"),
    ("app.swift", "App.shutdown", "method", "App"),  # declared in an extension of App
    ("app.swift", "Route", "struct", None),
    ("app.swift", "Method", "enum", None),
    ("app.swift", "Service", "interface", None),
    ("app.swift", "Handler", "type", None),
    ("app.swift", "configure", "function", None),
    ("router.ex", "Demo.Router", "module", None),
    ("router.ex", "Demo.Router.call", "function", "Demo.Router"),
    ("router.ex", "Demo.Router.scope", "macro", "Demo.Router"),
    ("router.ex", "Demo.Router.dispatch", "function", "Demo.Router"),
    ("router.ex", "Demo.Param", "interface", None),
    ("Types.hs", "Demo.Types", "module", None),
    ("Types.hs", "encode", "function", None),
    ("Types.hs", "Value", "type", None),
    ("Types.hs", "Value.Null", "enum_member", "Value"),
    ("Types.hs", "Parser", "type", None),
    ("Types.hs", "ToJSON", "interface", None),
    ("Types.hs", "ToJSON.toJSON", "method", "ToJSON"),
    ("config.lua", "setup", "function", None),
    ("config.lua", "M.reload", "method", "M"),
    ("config.lua", "normalize", "function", None),
    ("clap.zig", "parse", "function", None),
    ("clap.zig", "Names", "struct", None),
    ("clap.zig", "Names.longest", "method", "Names"),
    ("clap.zig", "Names.long", "field", "Names"),
    ("clap.zig", "Kind", "enum", None),
    ("clap.zig", "Kind.flag", "enum_member", "Kind"),
    ("clap.zig", "max_width", "constant", None),
    ("nvm.sh", "nvm_download", "function", None),
    ("nvm.sh", "nvm_has", "function", None),
    ("nvm.sh", "NVM_DIR", "variable", None),
    ("Widget.h", "Widget", "class", None),
    ("Widget.h", "Widget.render", "method", "Widget"),
    ("Widget.h", "Widget.width", "property", "Widget"),
    ("Widget.h", "Drawable", "interface", None),
    ("Widget.m", "Widget.render", "method", "Widget"),  # in the @implementation
    ("Widget.m", "draw_widget", "function", None),
    ("widget.dart", "Widget", "class", None),
    ("widget.dart", "Widget.build", "method", "Widget"),
    ("widget.dart", "Color.red", "enum_member", "Color"),
    ("widget.dart", "Builder", "type", None),
    ("widget.dart", "maxWidth", "constant", None),
    ("shapes.ml", "area", "function", None),
    ("shapes.ml", "shape", "type", None),
    ("solve.jl", "Solver", "module", None),
    ("solve.jl", "Solver.solve", "function", "Solver"),
    ("solve.jl", "Solver.run", "function", "Solver"),  # `run() = …`
    ("solve.jl", "Solver.Point", "struct", "Solver"),
    ("solve.jl", "Solver.Shape", "type", "Solver"),
    ("solve.jl", "Solver.MAX_STEPS", "constant", "Solver"),
    ("solve.jl", "Solver.trace", "macro", "Solver"),
    ("Bar.pm", "Demo::Bar", "module", None),
    ("Bar.pm", "build", "function", None),
    ("tools.ps1", "Get-Thing", "function", None),
    ("tools.ps1", "Widget.Run", "method", "Widget"),
    ("tools.ps1", "Color.Red", "enum_member", "Color"),
    ("build.groovy", "Build", "class", None),
    ("build.groovy", "Build.prepare", "method", "Build"),
    ("build.groovy", "Task", "interface", None),
    ("Token.sol", "Token", "class", None),
    ("Token.sol", "Token.transfer", "method", "Token"),
    ("Token.sol", "Token.Account", "struct", "Token"),
    ("Token.sol", "Token.State", "enum", "Token"),
    ("main.tf", "vpc", "module", None),
    ("main.tf", "web", "class", None),
    ("main.tf", "ami", "variable", None),
    ("main.tf", "tags", "variable", None),
    ("schema.sql", "users", "struct", None),
    ("schema.sql", "users.name", "field", "users"),
    ("schema.sql", "active_users", "struct", None),
    ("schema.sql", "add_one", "function", None),
    ("router.ts", "router", "variable", None),  # `export const router = new Builder()`
    ("router.ts", "DEFAULT_PORT", "constant", None),
    ("router.ts", "routes", "variable", None),
]


@pytest.mark.parametrize(("fixture", "qualified", "kind", "container"), DEFINITIONS)
def test_definitions_have_kind_and_container(fixture: str, qualified: str, kind: str, container: str | None) -> None:
    found = symbol(parse(fixture), qualified)
    assert (found.kind, found.container) == (kind, container)
    assert found.kind in KINDS


# (fixture, qualified, doc)
DOCS = [
    ("client.kt", "HttpClient", "A client that runs requests on an engine."),
    ("functor.scala", "Functor", "Lifts functions into a context."),
    ("app.swift", "App", "An application that serves routes."),
    ("Types.hs", "encode", "Encode a value."),
    ("config.lua", "merge", "Merges two tables."),
    ("clap.zig", "parse", "Parses one argument."),
    ("nvm.sh", "nvm_download", "Downloads with curl or wget."),
    ("router.ex", "Demo.Router", "Routes requests."),  # @moduledoc
    ("router.ex", "Demo.Router.scope", "Defines a scope."),  # @doc
    ("widget.dart", "Widget", "A widget."),
    ("Widget.h", "Widget", "A widget on screen."),
    ("Widget.m", "draw_widget", "Draws a widget."),
    ("Bar.pm", "build", "Builds an object."),
    ("tools.ps1", "Get-Thing", "Gets a thing."),
    ("Token.sol", "Token", "A token."),
]


@pytest.mark.parametrize(("fixture", "qualified", "doc"), DOCS)
def test_the_comment_above_a_definition_is_its_doc(fixture: str, qualified: str, doc: str) -> None:
    assert symbol(parse(fixture), qualified).doc == doc


def test_function_clauses_are_one_symbol_spanning_them_all() -> None:
    parsed = parse("Types.hs")
    encode = [s for s in parsed.symbols if s.name == "encode"]
    assert len(encode) == 1
    assert (encode[0].span.start_line, encode[0].span.end_line) == (10, 12)  # signature + two equations
    assert encode[0].signature == "encode :: Value -> String"
    dispatch = [s for s in parse("router.ex").symbols if s.name == "dispatch"]
    assert len(dispatch) == 1 and (dispatch[0].span.start_line, dispatch[0].span.end_line) == (13, 14)


# (fixture, imports the structural pass must report)
IMPORTS = [
    ("client.kt", {"demo.engine.Engine", "kotlinx.coroutines.Job"}),
    ("functor.scala", {"demo.syntax.all", "scala.collection.mutable", "scala.collection.immutable"}),
    ("app.swift", {"Foundation", "Vapor"}),
    ("router.ex", {"Demo.Router.Route", "Demo.Router.Helpers", "Plug.Conn", "Demo.Controller"}),
    ("Types.hs", {"Data.Map", "Demo.Internal"}),
    ("config.lua", {"demo.core.util"}),
    ("clap.zig", {"std", "clap/parsers.zig"}),
    ("nvm.sh", {"bash_completion"}),
    ("Widget.m", {"Widget.h", "<Foundation/Foundation.h>"}),
    ("widget.dart", {"package:demo/src/base.dart", "util.dart"}),
    ("shapes.ml", {"Geometry", "Printer"}),
    ("solve.jl", {"LinearAlgebra", "util.jl"}),
    ("Bar.pm", {"strict", "Demo::Util"}),
    ("tools.ps1", {"./lib.ps1", "./Util.psm1"}),
    ("build.groovy", {"demo.util.Helper"}),
    ("Token.sol", {"./IERC20.sol"}),
    ("main.tf", {"./modules/vpc"}),
]


@pytest.mark.parametrize(("fixture", "expected"), IMPORTS)
def test_imports_are_normalised(fixture: str, expected: set[str]) -> None:
    assert set(parse(fixture).imports) == expected


# (language, spec, importer, files, expected target)
RESOLUTIONS = [
    ("kotlin", "demo.engine.Engine", "src/demo/client/Client.kt",
     ["src/demo/engine/Engine.kt", "src/demo/client/Client.kt"], ["src/demo/engine/Engine.kt"]),
    ("kotlin", "demo.engine", "src/demo/client/Client.kt",  # a package: its folder's files
     ["src/demo/engine/Engines.kt", "src/demo/engine/Config.kt"],
     ["src/demo/engine/Config.kt", "src/demo/engine/Engines.kt"]),
    ("scala", "cats.data.Kleisli", "core/cats/Main.scala",
     ["core/cats/data/Kleisli.scala"], ["core/cats/data/Kleisli.scala"]),
    ("haskell", "Data.Aeson.Types", "Main.hs", ["Types.hs", "Internal.hs"], ["Types.hs"]),  # opened at src/Data/Aeson
    ("elixir", "Phoenix.Router.Route", "lib/phoenix/router.ex",
     ["lib/phoenix/router.ex", "lib/phoenix/router/route.ex"], ["lib/phoenix/router/route.ex"]),
    ("elixir", "Phoenix.LiveView.Helpers", "lib/a.ex", ["lib/phoenix/live_view.ex"], ["lib/phoenix/live_view.ex"]),
    ("lua", "lazy.core.config", "lua/lazy/init.lua",
     ["lua/lazy/core/config.lua", "lua/lazy/init.lua"], ["lua/lazy/core/config.lua"]),
    ("lua", "lazy.view", "lua/lazy/init.lua", ["lua/lazy/view/init.lua"], ["lua/lazy/view/init.lua"]),
    ("zig", "clap/parsers.zig", "clap.zig", ["clap.zig", "clap/parsers.zig"], ["clap/parsers.zig"]),
    ("zig", "std", "clap.zig", ["clap.zig"], []),
    ("bash", "nvm.sh", "nvm-exec", ["nvm.sh", "nvm-exec"], ["nvm.sh"]),
    ("objc", "Widget.h", "src/Widget.m", ["src/Widget.h", "src/Widget.m"], ["src/Widget.h"]),
    ("dart", "package:demo/src/base.dart", "lib/widget.dart", ["lib/src/base.dart"], ["lib/src/base.dart"]),
    ("dart", "dart:async", "lib/widget.dart", ["lib/async.dart"], []),
    ("ocaml", "Geometry", "bin/shapes.ml", ["src/geometry.ml"], ["src/geometry.ml"]),
    ("julia", "util.jl", "src/solve.jl", ["src/util.jl"], ["src/util.jl"]),
    ("perl", "Demo::Util", "lib/Demo/Bar.pm", ["lib/Demo/Util.pm"], ["lib/Demo/Util.pm"]),
    ("powershell", "./lib.ps1", "scripts/tools.ps1", ["scripts/lib.ps1"], ["scripts/lib.ps1"]),
    ("groovy", "demo.util.Helper", "src/demo/Build.groovy", ["src/demo/util/Helper.groovy"],
     ["src/demo/util/Helper.groovy"]),
    ("solidity", "./IERC20.sol", "contracts/Token.sol", ["contracts/IERC20.sol"], ["contracts/IERC20.sol"]),
    ("hcl", "./modules/vpc", "main.tf", ["modules/vpc/main.tf", "modules/vpc/vars.tf", "modules/vpc/README.md"],
     ["modules/vpc/main.tf", "modules/vpc/vars.tf"]),
    # the languages of tree-sitter-language-pack (test_pack_languages.py)
    ("r", "helpers.R", "R/stats.R", ["R/helpers.R", "R/stats.R"], ["R/helpers.R"]),
    ("erlang", "kv_util", "src/kv_store.erl", ["src/kv_util.erl", "src/kv_store.erl"], ["src/kv_util.erl"]),
    ("erlang", "kv_store.hrl", "src/kv_store.erl", ["include/kv_store.hrl"], ["include/kv_store.hrl"]),
    ("erlang", "kernel/include/logger.hrl", "src/a.erl", ["src/a.erl"], []),
    ("clojure", "demo.http-util", "src/demo/ring.clj", ["src/demo/http_util.clj"], ["src/demo/http_util.clj"]),
    ("clojure", "demo.shared", "src/demo/ring.clj", ["src/demo/shared.cljc"], ["src/demo/shared.cljc"]),
    ("elm", "Counter.Format", "src/Counter.elm", ["src/Counter/Format.elm"], ["src/Counter/Format.elm"]),
    ("nim", "shapes/circle", "src/geometry.nim", ["src/shapes/circle.nim"], ["src/shapes/circle.nim"]),
    ("nim", "std/math", "src/geometry.nim", ["src/math.nim"], []),
    ("d", "demo.util", "source/demo/shapes.d", ["source/demo/util.d"], ["source/demo/util.d"]),
    ("d", "demo.io", "source/demo/shapes.d", ["source/demo/io/package.d"], ["source/demo/io/package.d"]),
    ("gleam", "store/codec", "src/store.gleam", ["src/store/codec.gleam"], ["src/store/codec.gleam"]),
    ("vue", "./api", "src/TodoList.vue", ["src/api.ts"], ["src/api.ts"]),
    ("svelte", "./Button.svelte", "src/Counter.svelte", ["src/Button.svelte"], ["src/Button.svelte"]),
    ("cuda", "saxpy.cuh", "src/saxpy.cu", ["src/saxpy.cuh"], ["src/saxpy.cuh"]),
    ("tcl", "util.tcl", "lib/queue.tcl", ["lib/util.tcl"], ["lib/util.tcl"]),
    ("racket", "util.rkt", "shapes.rkt", ["util.rkt"], ["util.rkt"]),
    ("purescript", "Demo.Format", "src/Demo/Counter.purs", ["src/Demo/Format.purs"], ["src/Demo/Format.purs"]),
    ("verilog", "defs.svh", "rtl/counter.sv", ["rtl/defs.svh"], ["rtl/defs.svh"]),
    ("verilog", "counter_pkg", "rtl/top.sv", ["rtl/counter_pkg.sv"], ["rtl/counter_pkg.sv"]),
    ("ada", "Stacks.Limits", "src/main.adb", ["src/stacks-limits.ads", "src/stacks-limits.adb"],
     ["src/stacks-limits.ads"]),
    ("pascal", "Geometry.Points", "src/Shapes.pas", ["src/Geometry.Points.pas"], ["src/Geometry.Points.pas"]),
    ("gdscript", "res://actors/enemy.gd", "game/actors/player.gd", ["game/actors/enemy.gd"], ["game/actors/enemy.gd"]),
]


@pytest.mark.parametrize(("language", "spec", "importer", "paths", "expected"), RESOLUTIONS)
def test_module_edges_resolve(language: str, spec: str, importer: str, paths: list[str],
                              expected: list[str]) -> None:
    assert resolve_import(spec, importer, language, FileSet.of(paths)) == expected


@pytest.mark.parametrize(("first_line", "language"), [
    ("#!/usr/bin/env bash", "bash"),
    ("#!/bin/sh -e", "bash"),
    ("#!/usr/bin/python3.12 -u", "python"),
    ("#!/usr/bin/env -S node --no-warnings", "javascript"),
    ("#! /usr/bin/env ruby", "ruby"),
    ("#!/usr/bin/env elixir", "elixir"),
    ("#!/usr/bin/env fortune-teller", None),
])
def test_a_shebang_names_the_language_of_a_script(first_line: str, language: str | None) -> None:
    assert shebang_language(first_line + "\necho hi\n") == language
    assert detect_language("bin/tool", first_line + "\n") == language
    assert detect_language("bin/tool") is None  # without the text, only the extension counts


def test_a_cpp_header_is_told_from_a_c_header_by_its_content() -> None:
    header = "#pragma once\nnamespace fmt {\ntemplate <typename T> class X;\n}\n"
    assert detect_language("include/fmt/core.h", header) == "cpp"
    assert detect_language("lib/urldata.h", "#ifndef HEADER\nstruct Curl_easy { int x; };\n#endif\n") == "c"
    assert detect_language("script.py", "#!/usr/bin/env bash\n") == "python"  # an extension wins over a shebang


# Every fixture uses a name above its definition; (fixture, name). Go-to-definition from the use and
# Ctrl+T for the name must both land on the definition's name line, not on the use.
USED_BEFORE_DEFINED = [
    ("client.kt", "makeClient"),
    ("functor.scala", "lift"),
    ("app.swift", "configure"),
    ("router.ex", "dispatch"),
    ("Types.hs", "double"),
    ("config.lua", "merge"),
    ("clap.zig", "parse"),
    ("nvm.sh", "nvm_download"),
    ("nvm-exec", "nvm_exec_run"),
    ("report.py", "render"),
    ("router.ts", "makeRouter"),
    ("Widget.m", "render"),
    ("widget.dart", "render"),
    ("solve.jl", "solve"),
    ("Bar.pm", "build"),
    ("build.groovy", "prepare"),
    ("Token.sol", "_move"),
    ("spawn.rs", "spawn_worker"),  # the doc and attributes between: the name is still the definition's
    ("paths.rb", "normalize_path"),
    # the languages of tree-sitter-language-pack (test_pack_languages.py)
    ("stats.R", "column_summary"),
    ("kv_store.erl", "normalize"),
    ("ring.clj", "route"),
    ("Counter.elm", "clamp"),
    ("geometry.nim", "distance"),
    ("shapes.d", "square"),
    ("store.gleam", "clamp"),
    ("TodoList.vue", "isOpen"),
    ("TodoList.vue", "toggle"),  # used in the template, defined in the script
    ("Counter.svelte", "reset"),
    ("saxpy.cu", "saxpy"),
    ("blur.frag", "brighten"),
    ("queue.tcl", "normalize"),
    ("shapes.rkt", "side"),
    ("matrix.lisp", "rows"),
    ("Counter.purs", "clamp"),
    ("counter.sv", "counter"),
    ("stacks.adb", "Is_Full"),
    ("shapes.pas", "Clamp"),
    ("smooth.m", "window"),
    ("player.gd", "clamp_speed"),
    ("inventory.luau", "normalize"),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("languages") / "repo"
    shutil.copytree(FIXTURES, root)
    index = tmp_path_factory.mktemp("index")
    opened = Workspace(root, Settings(index_dir=str(index), semantic_backend="none"))
    opened.refresh()
    yield opened
    opened.close()


def _definition_and_use(workspace: Workspace, fixture: str, name: str) -> tuple[Symbol, int, int]:
    parsed = workspace.snapshot().parsed[fixture]
    definition = next(s for s in parsed.symbols if s.name == name)
    use = min((r for r in parsed.references if r.name == name), key=lambda r: r.span.start_line)
    assert use.span.start_line < definition.name_span.start_line, "the fixture must use the name first"
    return definition, use.span.start_line, use.span.start_col


@pytest.mark.parametrize(("fixture", "name"), USED_BEFORE_DEFINED)
def test_go_to_definition_from_a_use_above_lands_on_the_name(workspace: Workspace, fixture: str, name: str) -> None:
    definition, line, col = _definition_and_use(workspace, fixture, name)
    hits = workspace.definitions_at(fixture, line, col + 1)
    assert hits and (hits[0].path, hits[0].span) == (fixture, definition.name_span)


@pytest.mark.parametrize(("fixture", "name"), USED_BEFORE_DEFINED)
def test_ctrl_t_lands_on_the_definition_not_on_the_use_above(workspace: Workspace, fixture: str, name: str) -> None:
    definition, _, _ = _definition_and_use(workspace, fixture, name)
    answer = workspace.search_answer(SearchRequest(query=name, limit=50))
    result = next(result for result in answer.results if result.path == fixture)
    entry = convert.workspace_symbol(result, convert.ClientColumns("utf-16"))
    start = entry.location.range.start  # type: ignore[union-attr]
    assert (start.line, start.character) == (definition.name_span.start_line, definition.name_span.start_col)


# (fixture, callee, the definition that calls it, the caller's file): graph edges of the pack's
# languages, one across files.
CALL_EDGES = [
    ("kv_util.erl", "first", "lookup", "kv_store.erl"),
    ("kv_store.erl", "normalize", "put", "kv_store.erl"),
    ("stats.R", "scale01", "add", "stats.R"),
    ("ring.clj", "not-found", "route", "ring.clj"),
    ("Counter.elm", "clamp", "update", "Counter.elm"),
    ("shapes.d", "square", "area", "shapes.d"),
    ("store.gleam", "clamp", "new", "store.gleam"),
    ("Counter.svelte", "clamp", "increment", "Counter.svelte"),
    ("smooth.m", "smooth", "apply", "Filter.m"),  # across files
]


@pytest.mark.parametrize(("fixture", "callee", "caller", "caller_file"), CALL_EDGES)
def test_calls_are_graph_edges(workspace: Workspace, fixture: str, callee: str, caller: str, caller_file: str) -> None:
    target = next(s for s in workspace.snapshot().parsed[fixture].symbols if s.name == callee)
    callers = {(s.name, s.path) for s, _ in workspace.incoming_calls(target)}
    assert (caller, caller_file) in callers


def test_a_script_without_extension_is_parsed_by_its_shebang(workspace: Workspace) -> None:
    assert workspace.snapshot().files["nvm-exec"].language == "bash"
    assert {s.name for s in workspace.snapshot().parsed["nvm-exec"].symbols} == {"nvm_exec_main", "nvm_exec_run"}


def test_every_new_language_has_a_fixture() -> None:
    covered = {detect_language(p, p.read_text(encoding="utf-8")) for p in FIXTURES.iterdir()}
    assert set(NEW_LANGUAGES) <= covered


# (header, implementation, qualified): a declaration in a header and its definition share the name.
HEADER_PAIRS = [
    ("easy.h", "easy.c", "Curl_easy_prepare"),
    ("format.h", "format.cc", "fmt.vprint"),
    ("format.h", "format.cc", "fmt.format_error.report"),
]


@pytest.mark.parametrize(("header", "source", "qualified"), HEADER_PAIRS)
def test_a_header_declaration_is_a_symbol_named_as_its_definition(header: str, source: str, qualified: str) -> None:
    declared, defined = symbol(parse(header), qualified), symbol(parse(source), qualified)
    assert declared.kind == defined.kind
    assert declared.path != defined.path
    assert qualified.rsplit(".", 1)[-1] in declared.signature


def test_header_declarations_carry_kind_signature_and_doc() -> None:
    easy = parse("easy.h")
    prototype = symbol(easy, "Curl_easy_prepare")
    assert prototype.signature == "CURLcode Curl_easy_prepare(struct Curl_easy *data, int flags);"
    assert prototype.doc == "Prepare the easy handle."
    # A forward declaration (`struct Curl_easy;`) is not a symbol: it says nothing, and curl's headers
    # repeat one in dozens of files (measured: as symbols they cost 0.04 NDCG@10 on curl).
    assert not any(s.name == "Curl_easy" for s in easy.symbols)
    assert symbol(easy, "CURLoption").kind == "type"
    assert symbol(easy, "CURLoption.CURLOPT_A").kind == "enum_member"
    assert symbol(easy, "HEADER_CURL_EASY_H").kind == "macro"
    assert detect_language("format.h", (FIXTURES / "format.h").read_text()) == "cpp"
    template = symbol(parse("format.h"), "fmt.format")
    assert template.signature.startswith("template <typename... T> FMT_INLINE auto format(")
    assert template.doc == "Formats args."


def test_a_prototype_travels_with_the_declarations_around_it() -> None:
    chunks = parse("easy.h").chunks
    assert not any(chunk.symbol == "Curl_easy_prepare" and chunk.kind == "definition" for chunk in chunks)
    assert any("Curl_easy_prepare" in chunk.text for chunk in chunks)
    assert any(chunk.symbol == "Curl_easy_prepare" and chunk.kind == "definition" for chunk in parse("easy.c").chunks)


def test_a_search_for_an_api_lists_its_header_and_its_implementation(workspace: Workspace) -> None:
    answer = workspace.search_dict(SearchRequest(query="Curl_easy_prepare", limit=10))
    assert {"easy.h", "easy.c"} <= {row["path"] for row in answer["results"]}


# (path, source, qualified, kind): kinds beyond functions and classes in the first twelve languages.
MORE_KINDS = [
    ("a.rs", "enum Shape { Circle, Square(u8) }\n", "Shape.Square", "enum_member"),
    ("a.rs", "macro_rules! ensure { () => {} }\n", "ensure", "macro"),
    ("a.rs", "static LIMIT: u8 = 3;\n", "LIMIT", "constant"),
    ("a.ts", "enum Color { Red, Green = 2 }\n", "Color.Green", "enum_member"),
    ("a.ts", "export abstract class Shape {}\n", "Shape", "class"),
    ("a.ts", "export type Id = string;\n", "Id", "type"),
    ("a.ts", "export const router = new RouterBuilder();\n", "router", "variable"),
    ("a.js", "export const handler = createHandler();\n", "handler", "variable"),
    ("a.java", "enum Level { LOW, HIGH(2); Level() {} Level(int x) {} }\n", "Level.HIGH", "enum_member"),
    ("a.cs", "enum Level { Low, High = 2 }\n", "Level.High", "enum_member"),
    ("a.php", "<?php enum Suit { case Hearts; case Spades; }\n", "Suit.Spades", "enum_member"),
    ("a.go", "package a\nvar DefaultClient = &Client{}\n", "DefaultClient", "variable"),
    ("a.kt", "package a\nval defaultClient = Client()\n", "defaultClient", "variable"),
    ("a.cc", "namespace absl {\nusing std::string_view;\n}\n", "absl.string_view", "type"),
    ("a.cc", "namespace absl {\nusing ::absl::internal::Hash;\n}\n", "absl.Hash", "type"),
    ("a.cc", "namespace absl {\nABSL_NAMESPACE_BEGIN\n\nusing std::string_view;\n}\n", "absl.string_view", "type"),
]


def test_a_using_declaration_is_a_definition_only_at_namespace_scope() -> None:
    source = "namespace a {\nvoid f() { using std::swap; }\nclass C : B { using B::g; };\n}\nusing std::cout;\n"
    names = {s.qualified for s in parse_file("a.cc", source, "cpp").symbols}
    assert names == {"a", "a.f", "a.C"}


@pytest.mark.parametrize(("path", "source", "qualified", "kind"), MORE_KINDS)
def test_every_kind_of_definition_is_a_symbol(path: str, source: str, qualified: str, kind: str) -> None:
    assert symbol(parse_file(path, source, detect_language(path)), qualified).kind == kind


@pytest.mark.parametrize("query", ["where is router defined", "router"])
def test_an_exported_constant_is_found_by_the_structural_retriever(workspace: Workspace, query: str) -> None:
    request = SearchRequest(query=query, limit=5, modes=("structural",))
    answer = workspace.search_dict(request)
    row = next(row for row in answer["results"] if row["path"] == "router.ts")
    spans = [row["range"], *row["matches"]]
    assert any(span["start"]["line"] == 6 for span in spans)  # `export const router = …`
    hits = structural(workspace.snapshot(), parse_query(query), Ranking(), 5)
    assert (hits[0].path, hits[0].symbol, hits[0].span.start_line) == ("router.ts", "router", 6)


@pytest.mark.parametrize("language", ["kotlin", "swift", "haskell", "lua", "zig", "bash"])
def test_the_languages_filter_knows_the_new_languages(workspace: Workspace, language: str) -> None:
    answer = workspace.search_dict(SearchRequest(query="run", limit=20, languages=(language,)))
    assert all(row["language"] == language for row in answer["results"])


@pytest.mark.parametrize(("head", "language"), [
    ("# ssh(1) completion                    -*- shell-script -*-\n", "bash"),
    ("# -*- mode: python; coding: utf-8 -*-\n", "python"),
    ("-- -*- lua -*-\n", "lua"),
    ("# helper\n# vim: set ft=sh :\n", "bash"),
    ("# just a comment -*- no-such-mode -*-\n", None),
])
def test_an_editor_mode_line_names_the_language_of_a_file_without_extension(head: str, language: str | None) -> None:
    assert mode_line_language(head) == language
    assert detect_language("completions/ssh", head + "complete -F _ssh ssh\n") == language


def test_a_dart_body_beside_its_signature_belongs_to_the_definition() -> None:
    parsed = parse("widget.dart")
    build = symbol(parsed, "Widget.build")
    assert (build.span.start_line, build.span.end_line) == (7, 9)
    call = next(r for r in parsed.references if r.name == "render")
    assert call.enclosing == "Widget.build"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_has_a_workspace_symbol_icon(kind: str) -> None:
    assert symbol_kind(kind) != FALLBACK_KIND


@pytest.mark.parametrize(("path", "source", "name"), [
    ("Main.hs", "module Main where\nmain = step `seq` pure ()\n", "step"),
    ("main.tf", 'resource "aws_instance" "web" {\n  ami = var.image_id\n}\n', "image_id"),
    ("q.sql", "CREATE TABLE users (id INT);\nSELECT id FROM users;\n", "users"),
])
def test_every_reference_pattern_of_a_query_file_is_read(path: str, source: str, name: str) -> None:
    """A query's reference captures all say what they are (`@reference.value`): a bare `@reference`
    was never read, so Haskell's infix operands, Terraform's `var.x` and SQL's tables went missing."""
    references = parse_file(path, source, detect_language(path)).references
    assert name in {reference.name for reference in references}
