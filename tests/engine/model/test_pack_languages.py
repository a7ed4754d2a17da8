"""Languages with no grammar wheel of their own, parsed with the grammars bundled in
tree-sitter-language-pack 0.13.0: R, Erlang, Clojure, Elm, Nim, D, Gleam, the `<script>` blocks of
Vue and Svelte components, CUDA and GLSL (read with C++'s and C's queries), Tcl, Racket, Scheme,
Common Lisp, PureScript, Verilog/SystemVerilog, Ada, Pascal, MATLAB, GDScript and Luau (with Lua's
queries). Every fixture in
`tests/fixtures/languages` uses a name above its definition; definitions must carry their kind,
container and line, calls must become graph edges, and go-to-definition and Ctrl+T must land on the
definition's name.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

from fourfold.engine.index.structure import KINDS, parse_file
from fourfold.engine.model.languages import GRAMMARS, detect_language, grammar
from fourfold.engine.model.records import ParsedFile, Symbol

FIXTURES = Path(__file__).parents[2] / "fixtures" / "languages"
PACK_LANGUAGES = ("r", "erlang", "clojure", "elm", "nim", "d", "gleam", "vue", "svelte", "cuda", "glsl", "tcl",
                  "racket", "scheme", "commonlisp", "purescript", "verilog", "ada", "pascal",
                  "matlab", "gdscript", "luau")
# One fixture per language (two for Erlang: a remote call crosses files).
PACK_FIXTURES = ("stats.R", "kv_store.erl", "kv_util.erl", "ring.clj", "Counter.elm", "geometry.nim", "shapes.d",
                 "store.gleam", "TodoList.vue", "Counter.svelte", "saxpy.cu", "blur.frag", "queue.tcl", "shapes.rkt",
                 "matrix.lisp", "Counter.purs", "counter.sv", "stacks.adb", "stacks.ads", "shapes.pas",
                 "smooth.m", "Filter.m", "player.gd", "inventory.luau")


def parse(name: str) -> ParsedFile:
    path = FIXTURES / name
    text = path.read_text(encoding="utf-8")
    return parse_file(name, text, detect_language(path, text))


def symbol(parsed: ParsedFile, qualified: str) -> Symbol:
    found = [s for s in parsed.symbols if s.qualified == qualified]
    assert found, f"{qualified} not in {[s.qualified for s in parsed.symbols]}"
    return found[0]


def test_the_pack_is_the_pinned_release_that_bundles_its_grammars() -> None:
    # 1.x fetches grammars over the network on first use; 0.13.0 ships them compiled in the wheel.
    assert version("tree-sitter-language-pack") == "0.13.0"
    assert {language for language, spec in GRAMMARS.items() if spec.packed} == set(PACK_LANGUAGES)
    assert not any(GRAMMARS[language].packed for language in ("python", "haskell", "lua", "elixir", "csharp"))


@pytest.mark.parametrize("language", PACK_LANGUAGES)
def test_every_pack_grammar_loads_and_has_a_fixture(language: str) -> None:
    assert grammar(language).abi_version >= 13
    # Scheme shares Racket's queries and fixture; `.scm` files are Scheme.
    fixtures = {detect_language(FIXTURES / name, (FIXTURES / name).read_text(encoding="utf-8"))
                for name in PACK_FIXTURES} | {detect_language("lib/srfi.scm")}
    assert language in fixtures


# (fixture, qualified, kind, container, 0-based line of the name)
DEFINITIONS = [
    ("stats.R", "summarise_columns", "function", None, 5),
    ("stats.R", "column_summary", "function", None, 13),
    ("stats.R", "scale01", "function", None, 17),  # `name = function(…)`
    ("stats.R", "MAX_ROWS", "constant", None, 10),
    ("stats.R", "Person", "class", None, 19),  # setClass("Person", …)
    ("stats.R", "describe", "function", None, 21),  # setGeneric
    ("stats.R", "Person.describe", "method", "Person", 23),  # setMethod("describe", "Person", …)
    ("stats.R", "Counter", "class", None, 27),  # R6Class
    ("stats.R", "Counter.add", "method", "Counter", 30),
    ("kv_store.erl", "kv_store", "module", None, 1),
    # `-module(kv_store).` qualifies what the file defines, as `kv_store:put(…)` names it.
    ("kv_store.erl", "kv_store.put", "function", "kv_store", 19),
    ("kv_store.erl", "kv_store.handle_call", "function", "kv_store", 28),
    ("kv_store.erl", "kv_store.normalize", "function", "kv_store", 35),
    ("kv_store.erl", "kv_store.state", "struct", "kv_store", 12),
    ("kv_store.erl", "kv_store.state.hits", "field", "state", 12),
    ("kv_store.erl", "kv_store.key", "type", "kv_store", 14),
    ("kv_store.erl", "kv_store.TIMEOUT", "macro", "kv_store", 10),
    ("ring.clj", "demo.ring", "module", None, 0),
    ("ring.clj", "handler", "function", None, 10),
    ("ring.clj", "not-found", "function", None, 15),  # defn-
    ("ring.clj", "route", "function", None, 19),
    ("ring.clj", "default-port", "variable", None, 6),
    ("ring.clj", "with-port", "macro", None, 24),
    ("ring.clj", "Store", "interface", None, 27),
    ("ring.clj", "Store.fetch", "method", "Store", 28),
    ("ring.clj", "MemStore", "class", None, 30),
    ("ring.clj", "MemStore.fetch", "method", "MemStore", 32),
    ("Counter.elm", "Counter", "module", None, 0),
    ("Counter.elm", "Model", "type", None, 7),
    ("Counter.elm", "Model.count", "field", "Model", 8),
    ("Counter.elm", "Msg", "type", None, 11),
    ("Counter.elm", "Msg.Reset", "enum_member", "Msg", 13),
    ("Counter.elm", "update", "function", None, 21),  # its annotation: one symbol with the equation
    ("Counter.elm", "clamp", "function", None, 38),
    ("Counter.elm", "notify", "function", None, 43),  # a port
    ("geometry.nim", "MaxPoints", "constant", None, 6),
    ("geometry.nim", "Point", "struct", None, 9),
    ("geometry.nim", "Point.y", "field", "Point", 10),
    ("geometry.nim", "Shape", "class", None, 11),  # ref object
    ("geometry.nim", "Color", "enum", None, 13),
    ("geometry.nim", "Color.green", "enum_member", "Color", 14),
    ("geometry.nim", "describe", "function", None, 16),
    ("geometry.nim", "distance", "function", None, 20),
    ("geometry.nim", "Shape.draw", "method", "Shape", 25),  # a method of its first parameter's type
    ("geometry.nim", "corners", "function", None, 28),  # iterator
    ("geometry.nim", "twice", "macro", None, 31),  # template
    ("geometry.nim", "counter", "variable", None, 37),
    ("shapes.d", "demo.shapes", "module", None, 1),
    ("shapes.d", "Kind", "enum", None, 7),
    ("shapes.d", "Kind.boxy", "enum_member", "Kind", 7),
    ("shapes.d", "maxShapes", "constant", None, 9),
    ("shapes.d", "Shape", "interface", None, 11),
    ("shapes.d", "Shape.area", "method", "Shape", 13),
    ("shapes.d", "Circle", "class", None, 17),
    ("shapes.d", "Circle.radius", "field", "Circle", 19),
    ("shapes.d", "Circle.this", "constructor", "Circle", 21),
    ("shapes.d", "Circle.area", "method", "Circle", 23),
    ("shapes.d", "Size", "struct", None, 26),
    ("shapes.d", "Sizes", "type", None, 32),
    ("shapes.d", "square", "function", None, 34),
    ("store.gleam", "default_size", "constant", None, 6),
    ("store.gleam", "Store", "type", None, 9),
    ("store.gleam", "Store.Store", "constructor", "Store", 10),
    ("store.gleam", "Key", "type", None, 13),
    ("store.gleam", "clamp", "function", None, 25),
    ("store.gleam", "now", "function", None, 37),  # an @external function without a body
    ("TodoList.vue", "items", "variable", None, 10),
    ("TodoList.vue", "toggle", "function", None, 13),
    ("TodoList.vue", "isOpen", "function", None, 18),
    ("TodoList.vue", "Todo", "interface", None, 22),  # `lang="ts"`: parsed as TypeScript
    ("TodoList.vue", "Todo.done", "property", "Todo", 25),
    ("Counter.svelte", "increment", "function", None, 9),
    ("Counter.svelte", "clamp", "function", None, 14),
    ("Counter.svelte", "reset", "function", None, 18),
    ("saxpy.cu", "demo", "namespace", None, 3),
    ("saxpy.cu", "demo.saxpy", "function", "demo", 12),  # a __global__ kernel
    ("saxpy.cu", "demo.scale", "function", "demo", 17),  # a __device__ function
    ("blur.frag", "Kernel", "struct", None, 7),
    ("blur.frag", "tap", "function", None, 12),
    ("blur.frag", "brighten", "function", None, 20),
    ("queue.tcl", "queue", "namespace", None, 4),
    ("queue.tcl", "queue.push", "function", "queue", 8),
    ("queue.tcl", "Stack", "class", None, 25),  # TclOO
    ("queue.tcl", "Stack.push", "method", "Stack", 26),
    ("shapes.rkt", "area", "function", None, 5),
    ("shapes.rkt", "side", "function", None, 13),
    ("shapes.rkt", "make-square", "function", None, 16),  # (define f (lambda …))
    ("shapes.rkt", "default-side", "variable", None, 8),
    ("shapes.rkt", "square", "struct", None, 10),
    ("shapes.rkt", "twice", "macro", None, 19),
    ("matrix.lisp", "demo.matrix", "module", None, 1),
    ("matrix.lisp", "transpose", "function", None, 6),
    ("matrix.lisp", "rows", "function", None, 13),
    ("matrix.lisp", "*size*", "variable", None, 10),
    ("matrix.lisp", "+zero+", "constant", None, 11),
    ("matrix.lisp", "with-matrix", "macro", None, 15),
    ("matrix.lisp", "matrix", "class", None, 18),
    ("matrix.lisp", "point", "struct", None, 24),
    ("Counter.purs", "Demo.Counter", "module", None, 0),
    ("Counter.purs", "Demo.Counter.Counter", "type", "Demo.Counter", 10),
    ("Counter.purs", "Demo.Counter.Direction.Down", "enum_member", "Direction", 12),
    ("Counter.purs", "Demo.Counter.clamp", "function", "Demo.Counter", 20),  # its signature
    ("Counter.purs", "Demo.Counter.Pretty", "interface", "Demo.Counter", 23),
    ("Counter.purs", "Demo.Counter.Pretty.pretty", "method", "Pretty", 24),
    ("Counter.purs", "Demo.Counter.prettyCounter.pretty", "method", "prettyCounter", 27),
    ("Counter.purs", "Demo.Counter.now", "function", "Demo.Counter", 29),  # foreign import
    ("counter.sv", "counter_pkg", "namespace", None, 3),
    ("counter.sv", "counter_pkg.WIDTH", "constant", "counter_pkg", 4),
    ("counter.sv", "counter_pkg.count_t", "type", "counter_pkg", 5),
    ("counter.sv", "top", "module", None, 8),
    ("counter.sv", "counter", "module", None, 12),
    ("counter.sv", "counter.next", "function", "counter", 16),
    ("counter.sv", "bus_if", "interface", None, 23),
    ("stacks.ads", "Stacks", "module", None, 0),
    ("stacks.ads", "Stacks.Capacity", "constant", "Stacks", 1),
    ("stacks.ads", "Stacks.Stack", "struct", "Stacks", 3),
    ("stacks.ads", "Stacks.Stack.Top", "field", "Stack", 5),
    ("stacks.ads", "Stacks.Push", "function", "Stacks", 7),  # the spec's declaration
    ("stacks.adb", "Stacks.Push", "function", "Stacks", 7),  # the body
    ("stacks.adb", "Stacks.Is_Full", "function", "Stacks", 15),
    ("shapes.pas", "Shapes", "module", None, 0),
    ("shapes.pas", "Shapes.MaxShapes", "constant", "Shapes", 7),
    ("shapes.pas", "Shapes.TShape", "class", "Shapes", 10),
    ("shapes.pas", "Shapes.TShape.FName", "field", "TShape", 12),
    ("shapes.pas", "Shapes.TShape.Area", "method", "TShape", 14),  # declared in the class
    ("shapes.pas", "Shapes.TKind.skSquare", "enum_member", "TKind", 18),
    ("shapes.pas", "Shapes.Clamp", "function", "Shapes", 40),
    ("smooth.m", "smooth", "function", None, 0),
    ("smooth.m", "window", "function", None, 7),  # a local function
    ("Filter.m", "Filter", "class", None, 0),
    ("Filter.m", "Filter.Width", "property", "Filter", 3),
    ("Filter.m", "Filter.apply", "method", "Filter", 9),
    ("player.gd", "Player", "class", None, 1),  # class_name
    ("player.gd", "SPEED", "constant", None, 4),
    ("player.gd", "died", "property", None, 5),  # a signal
    ("player.gd", "health", "variable", None, 7),
    ("player.gd", "State.RUNNING", "enum_member", "State", 10),
    ("player.gd", "clamp_speed", "function", None, 17),
    ("player.gd", "Inventory", "class", None, 20),
    ("player.gd", "Inventory.items", "field", "Inventory", 21),
    ("player.gd", "Inventory.add", "method", "Inventory", 22),
    ("inventory.luau", "Inventory", "variable", None, 3),
    ("inventory.luau", "normalize", "function", None, 11),
]


def test_a_pascal_method_body_is_named_after_its_class() -> None:
    bodies = [s for s in parse("shapes.pas").symbols if s.qualified == "Shapes.TShape.Describe"]
    assert [(s.kind, s.name_span.start_line) for s in bodies] == [("method", 15), ("method", 24)]
    assert bodies[1].span.end_line == 27  # `procedure TShape.Describe; begin … end;`
    twice = [s for s in parse("shapes.pas").symbols if s.qualified == "Shapes.Twice"]
    assert [(s.name_span.start_line, s.doc) for s in twice] == [(20, ""), (35, "Doubles a number.")]  # { … }



def test_a_qualified_tcl_proc_is_named_without_its_namespace() -> None:
    pop = symbol(parse("queue.tcl"), "queue.pop")  # `proc ::queue::pop {}`: `pop`, in `queue`, at `pop`
    assert (pop.kind, pop.container, pop.name_span.start_line, pop.name_span.start_col) == ("function", "queue", 18, 14)


@pytest.mark.parametrize(("fixture", "qualified", "kind", "container", "line"), DEFINITIONS)
def test_definitions_have_kind_container_and_line(
    fixture: str, qualified: str, kind: str, container: str | None, line: int
) -> None:
    found = symbol(parse(fixture), qualified)
    assert (found.kind, found.container, found.name_span.start_line) == (kind, container, line)
    assert found.kind in KINDS
    text_line = (FIXTURES / fixture).read_text(encoding="utf-8").split("\n")[line]
    assert text_line[found.name_span.start_col :].startswith(found.name)


def test_a_script_block_keeps_the_component_file_s_lines_columns_and_language() -> None:
    for fixture, name, language in (("TodoList.vue", "isOpen", "vue"), ("Counter.svelte", "clamp", "svelte")):
        parsed = parse(fixture)
        found = symbol(parsed, name)
        assert found.language == language
        line = (FIXTURES / fixture).read_text(encoding="utf-8").split("\n")[found.name_span.start_line]
        assert found.name_span.start_col == line.index(f"function {name}") + len("function ")
        # The template and the style are not code: nothing in them is a definition.
        assert all(s.name_span.start_line > 5 for s in parsed.symbols) or fixture == "Counter.svelte"
    assert not any(s.name == "todos" for s in parse("TodoList.vue").symbols)


# (fixture, name, kind, qualified name of the definition the use is in)
REFERENCES = [
    ("stats.R", "column_summary", "reference", "summarise_columns"),  # passed to lapply by name
    ("stats.R", "scale01", "call", "Counter.add"),
    ("kv_store.erl", "normalize", "call", "kv_store.put"),
    ("kv_store.erl", "kv_util.first", "call", "kv_store.lookup"),  # kv_util:first(…)
    ("kv_store.erl", "ets.lookup", "call", "kv_store.lookup"),  # not a call of lookup itself
    ("kv_store.erl", "TIMEOUT", "reference", "kv_store.put"),  # ?TIMEOUT
    ("ring.clj", "route", "call", "handler"),
    ("ring.clj", "not-found", "call", "route"),
    ("Counter.elm", "clamp", "call", "init"),
    ("Counter.elm", "init", "reference", "update"),
    ("geometry.nim", "distance", "call", "describe"),
    ("geometry.nim", "describeName", "call", "Shape.draw"),  # `s.name.describeName()`
    ("geometry.nim", "RootObj", "inherit", "Shape"),
    ("shapes.d", "square", "call", "Circle.area"),
    ("shapes.d", "Shape", "inherit", "Circle"),
    ("shapes.d", "Circle", "call", "main"),  # new Circle(2)
    ("store.gleam", "clamp", "call", "new"),
    ("store.gleam", "keys", "call", "keys"),  # `|> dict.keys`
    ("store.gleam", "encode", "reference", "keys"),
    ("TodoList.vue", "isOpen", "call", "visible"),
    ("TodoList.vue", "toggle", "call", None),  # in the template: @click="toggle(item)"
    ("Counter.svelte", "clamp", "call", "increment"),
    ("saxpy.cu", "saxpy", "call", "demo.run"),  # a kernel launch: saxpy<<<…>>>(…)
    ("saxpy.cu", "scale", "call", "demo.saxpy"),
    ("blur.frag", "brighten", "call", "main"),
    ("queue.tcl", "normalize", "call", "queue.push"),  # [normalize $item]
    ("shapes.rkt", "side", "call", "area"),
    ("matrix.lisp", "rows", "call", "transpose"),
    ("matrix.lisp", "mapcar", "reference", "transpose"),  # #'mapcar
    ("Counter.purs", "clamp", "call", "Demo.Counter.increment"),
    ("counter.sv", "counter", "call", "top"),  # an instance of the module
    ("counter.sv", "next", "call", "counter"),
    ("stacks.adb", "Is_Full", "call", "Stacks.Push"),
    ("shapes.pas", "Clamp", "call", "Shapes.TShape.Area"),
    ("smooth.m", "window", "call", "smooth"),
    ("Filter.m", "smooth", "call", "Filter.apply"),
    ("Filter.m", "handle", "inherit", "Filter"),
    ("player.gd", "clamp_speed", "call", "_physics_process"),
    ("player.gd", "CharacterBody2D", "inherit", None),  # extends
    ("inventory.luau", "normalize", "call", "add"),  # as in Lua: `function T.f` is `f`
]


@pytest.mark.parametrize(("fixture", "name", "kind", "enclosing"), REFERENCES)
def test_calls_and_uses_are_references_with_their_enclosing_definition(
    fixture: str, name: str, kind: str, enclosing: str
) -> None:
    found = {(r.name, r.kind, r.enclosing) for r in parse(fixture).references}
    assert (name, kind, enclosing) in found


# Definition and control forms of a language are not references to anything the workspace defines.
def test_clojure_s_defining_forms_are_not_calls() -> None:
    names = {r.name for r in parse("ring.clj").references}
    assert not names & {"ns", "defn", "defn-", "defprotocol", "case"}
    assert not {r.name for r in parse("shapes.rkt").references} & {"define", "struct", "require"}
    assert not {r.name for r in parse("matrix.lisp").references} & {"defun", "defclass", "defparameter"}
    assert not {r.name for r in parse("queue.tcl").references} & {"variable", "lappend", "return", "set"}


# (fixture, imports the structural pass reports)
IMPORTS = [
    ("stats.R", {"helpers.R"}),  # source(); library() names an installed package
    ("kv_store.erl", {"gen_server", "kv_store.hrl", "kernel/include/logger.hrl", "ets", "kv_util"}),
    ("ring.clj", {"clojure.string", "demo.util"}),
    ("Counter.elm", {"Html", "Html.Events", "Counter.Format"}),
    ("geometry.nim", {"std/math", "shapes/circle", "shapes/square", "strutils", "helpers"}),
    ("shapes.d", {"std.math", "std.stdio", "demo.util"}),
    ("store.gleam", {"gleam/dict", "gleam/list", "store/codec"}),
    ("TodoList.vue", {"vue", "./api"}),
    ("Counter.svelte", {"svelte", "./Button.svelte"}),
    ("saxpy.cu", {"<cuda_runtime.h>", "saxpy.cuh"}),
    ("blur.frag", {"common.glsl"}),
    ("shapes.rkt", {"util.rkt"}),
    ("Counter.purs", {"Prelude", "Data.Maybe", "Demo.Format"}),
    ("inventory.luau", {"demo.util"}),
    ("counter.sv", {"defs.svh"}),
    ("stacks.adb", {"Ada.Text_IO", "Stacks.Limits"}),
    ("shapes.pas", {"SysUtils", "Geometry.Points"}),
]


@pytest.mark.parametrize(("fixture", "expected"), IMPORTS)
def test_imports_are_normalised(fixture: str, expected: set[str]) -> None:
    assert set(parse(fixture).imports) == expected


# (fixture, qualified, doc): each language's own doc comment or docstring.
DOCS = [
    ("stats.R", "summarise_columns", "Summarise every numeric column of a data frame."),  # roxygen #'
    ("kv_store.erl", "kv_store.normalize", "Keys are stored as binaries."),  # %% @doc
    ("ring.clj", "handler", "Answers one request."),  # docstring
    ("ring.clj", "route", "Dispatches on the path."),  # ;; comment
    ("Counter.elm", "clamp", "Keeps the count under ten."),  # {-| … -}
    ("geometry.nim", "distance", "Distance between two points."),  # `##` above, parsed into the proc before
    ("shapes.d", "Circle", "A circle of some radius."),
    ("store.gleam", "clamp", "Keeps a size positive."),
    ("TodoList.vue", "isOpen", "Open items are not done."),
    ("saxpy.cu", "demo.saxpy", "y = a * x + y, one element per thread."),
    ("queue.tcl", "queue.push", "Adds one item at the back."),
    ("shapes.rkt", "side", "The length of one side."),
    ("matrix.lisp", "transpose", "Rows become columns."),  # docstring
    ("Counter.purs", "Demo.Counter.clamp", "Keeps the count under ten."),
    ("smooth.m", "smooth", "SMOOTH Moving average of a signal.\ny = smooth(x, width) averages over WIDTH samples."),
    ("Filter.m", "Filter", "A filter with a fixed width."),  # help text under the signature
    ("player.gd", "clamp_speed", "Keeps the speed under the limit."),  # ##
    ("inventory.luau", "normalize", "Trims and lowers an item name."),
]


@pytest.mark.parametrize(("fixture", "qualified", "doc"), DOCS)
def test_the_language_s_doc_comment_is_the_doc(fixture: str, qualified: str, doc: str) -> None:
    assert symbol(parse(fixture), qualified).doc == doc


def test_clauses_of_one_function_are_one_symbol() -> None:
    handle_call = [s for s in parse("kv_store.erl").symbols if s.name == "handle_call"]
    assert len(handle_call) == 1 and (handle_call[0].span.start_line, handle_call[0].span.end_line) == (28, 32)
    update = [s for s in parse("Counter.elm").symbols if s.name == "update"]
    assert len(update) == 1 and (update[0].span.start_line, update[0].span.end_line) == (21, 28)
    assert update[0].signature == "update : Msg -> Model -> Model"


@pytest.mark.parametrize(("path", "text", "language"), [
    ("completions/invoke-rc.d", "# invoke-rc.d(8) completion    -*- shell-script -*-\n_x() { :; }\n", "bash"),
    ("source/app.d", "module app;\nvoid main() {}\n", "d"),
    ("bin/report", "#!/usr/bin/env Rscript\nx <- 1\n", "r"),
    ("bin/migrate", "#!/usr/bin/env escript\nmain(_) -> ok.\n", "erlang"),
    ("bin/build", "#!/usr/bin/env tclsh\nputs hi\n", "tcl"),
    ("kernels/blur.cu", "__global__ void k() {}\n", "cuda"),
    ("lib/srfi.scm", "(define (f) 1)\n", "scheme"),
    ("src/app.lisp", "(defun f () 1)\n", "commonlisp"),
    ("signal/smooth.m", "% SMOOTH help\nfunction y = smooth(x)\n", "matlab"),
    ("Widget.m", "#import <Foundation/Foundation.h>\n@implementation Widget\n@end\n", "objc"),
    ("main.m", "int main(void) { return 0; }\n", "objc"),  # neither: Objective-C, as before
    ("analysis.R", "x <- 1\n", "r"),
])
def test_language_detection(path: str, text: str, language: str) -> None:
    assert detect_language(path, text) == language
