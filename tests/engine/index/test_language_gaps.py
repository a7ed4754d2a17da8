"""Readings the structural pass got wrong, each on a small real file parsed by the real grammar:
names a Vue or Svelte template uses without calling them (and the script state they name), a Nim `##`
comment above a proc (which the grammar puts in the proc before), Erlang's `mod:fun(…)` calls (which
resolved by name to the caller itself), Lisp parameter lists and bindings (which read as calls), and doc
comments the grammar separates from their definition (a Rust attribute or a TypeScript decorator in
between; a Ruby body's first definition, whose comments sit outside the body).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fourfold.engine.graph.graph import CodeGraph, symbol_node_id
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import detect_language
from fourfold.engine.model.records import ParsedFile
from fourfold.engine.model.settings import Settings
from fourfold.engine.service.workspace import Workspace


def parse(tmp_path: Path, name: str, text: str) -> ParsedFile:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return parse_file(name, text, detect_language(path, text))


SVELTE = """<script>
  export let start = 0;
  let count = start;

  function increment() {
    count += 1;
  }
</script>

{#each [1, 2] as item}<span>{item}</span>{/each}
<button on:click={increment}>Clicked {count} times</button>
"""

VUE = """<template>
  <TodoItems :items="visible" v-if="ready" />
</template>

<script setup>
import { computed, ref } from "vue";

let ready = false;
const visible = computed(() => []);
</script>
"""


def test_a_svelte_component_s_props_and_state_are_definitions(tmp_path: Path) -> None:
    kinds = {(s.name, s.kind) for s in parse(tmp_path, "Counter.svelte", SVELTE).symbols}
    assert {("start", "property"), ("count", "variable"), ("increment", "function")} <= kinds


def test_template_names_the_script_defines_are_references(tmp_path: Path) -> None:
    svelte = {(r.name, r.kind, r.span.start_line) for r in parse(tmp_path, "Counter.svelte", SVELTE).references}
    assert {("increment", "reference", 10), ("count", "reference", 10)} <= svelte
    assert not any(name == "item" for name, _, _ in svelte)  # an `{#each}` variable: nothing to resolve
    vue = {(r.name, r.kind, r.enclosing) for r in parse(tmp_path, "List.vue", VUE).references}
    assert {("visible", "reference", None), ("ready", "reference", None)} <= vue


def test_a_plain_javascript_file_keeps_its_top_level_lets_out(tmp_path: Path) -> None:
    assert not parse(tmp_path, "state.js", "let count = 0;\nexport let start = 1;\n").symbols


NIM = """proc describe*(p: int): string =
  result = $p

## Distance between two points.
proc distance*(a, b: int): int =
  abs(a - b)
"""


def test_a_nim_doc_comment_above_a_proc_is_its_doc_not_the_previous_proc_s_body(tmp_path: Path) -> None:
    parsed = parse(tmp_path, "geometry.nim", NIM)
    describe, distance = (next(s for s in parsed.symbols if s.name == name) for name in ("describe", "distance"))
    assert distance.doc == "Distance between two points."
    assert describe.span.end_line == 1
    describe_chunk = next(c for c in parsed.chunks if c.symbol == "describe")
    assert "Distance between" not in describe_chunk.text


def test_a_nim_comment_inside_a_body_stays_there(tmp_path: Path) -> None:
    text = "proc f(): int =\n  ## Docs f.\n  result = 1\n  # indented\n\nproc g() = discard\n"
    parsed = parse(tmp_path, "a.nim", text)
    f = next(s for s in parsed.symbols if s.name == "f")
    assert f.doc == "Docs f." and f.span.end_line == 3


KV_STORE = """-module(kv_store).
-export([lookup/2]).

lookup(T, Key) ->
    kv_util:first(ets:lookup(T, Key)).
"""
KV_UTIL = """-module(kv_util).
-export([first/1]).

first([H | _]) -> H;
first([]) -> none.
"""


def test_an_erlang_remote_call_names_its_module(tmp_path: Path) -> None:
    parsed = parse(tmp_path, "kv_store.erl", KV_STORE)
    assert {s.qualified for s in parsed.symbols} == {"kv_store", "kv_store.lookup"}
    calls = {(r.name, r.enclosing) for r in parsed.references if r.kind == "call"}
    assert calls == {("kv_util.first", "kv_store.lookup"), ("ets.lookup", "kv_store.lookup")}


def test_an_erlang_call_into_another_module_is_no_call_of_the_same_named_function(tmp_path: Path) -> None:
    files = {f"src/{name}": parse(tmp_path, f"src/{name}", text)
             for name, text in (("kv_store.erl", KV_STORE), ("kv_util.erl", KV_UTIL))}
    graph = CodeGraph(files).graph
    lookup = symbol_node_id("src/kv_store.erl", "kv_store.lookup")
    assert graph.has_edge(lookup, symbol_node_id("src/kv_util.erl", "kv_util.first"))
    assert not graph.has_edge(lookup, lookup)  # `ets:lookup` is not a call of itself


def test_erlang_call_hierarchy_follows_the_module(tmp_path: Path) -> None:
    for name, text in (("kv_store.erl", KV_STORE), ("kv_util.erl", KV_UTIL)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    workspace = Workspace(tmp_path, Settings(index_dir=str(tmp_path / ".index"), semantic_backend="none"))
    try:
        workspace.refresh()
        parsed = workspace.snapshot().parsed
        lookup = next(s for s in parsed["kv_store.erl"].symbols if s.name == "lookup")
        first = next(s for s in parsed["kv_util.erl"].symbols if s.name == "first")
        assert [caller.qualified for caller, _ in workspace.incoming_calls(first)] == ["kv_store.lookup"]
        assert workspace.incoming_calls(lookup) == []
        assert [callee.qualified for callee, _ in workspace.outgoing_calls(lookup)] == ["kv_util.first"]
    finally:
        workspace.close()


@pytest.mark.parametrize(
    ("name", "text", "calls"),
    [
        (
            "shapes.rkt",
            "(define (f xs)\n  (let loop ((i 0) (acc '()))\n    (if (done? i) acc (loop (add1 i) (g i))))\n"
            "  (let ((x 1)) (begin (h x)))\n  (map (lambda (y) (k y)) xs))\n(struct square (len))\n",
            {"done?", "loop", "add1", "g", "h", "map", "k"},
        ),
        (
            "matrix.lisp",
            "(defun rows (m) (coerce-rows m))\n(defmethod rank ((m matrix)) (length (cells m)))\n"
            "(defclass matrix (shape) ((cells :initarg :cells)))\n(defun f () (flet ((g (z) z)) (g 1)))\n",
            {"coerce-rows", "length", "cells", "g"},
        ),
    ],
)
def test_lisp_parameter_lists_and_bindings_are_not_calls(tmp_path: Path, name: str, text: str, calls: set[str]) -> None:
    parsed = parse(tmp_path, name, text)
    assert {r.name for r in parsed.references if r.kind == "call"} == calls


RUST = """/// Spawns a task.
#[track_caller]
#[inline]
pub fn spawn() {}

/// A handle.
#[derive(Debug)]
pub struct Handle;
"""


def test_a_rust_doc_above_attributes_is_the_item_s_doc(tmp_path: Path) -> None:
    docs = {s.name: s.doc for s in parse(tmp_path, "spawn.rs", RUST).symbols}
    assert docs == {"spawn": "Spawns a task.", "Handle": "A handle."}


def test_a_blank_line_parts_a_rust_comment_from_the_item_s_doc(tmp_path: Path) -> None:
    # A line comment's node ends at the start of the next line: the blank line must still count.
    text = "//! The crate's own doc.\n\n/// Starts it.\npub fn start() {}\n"
    assert [s.doc for s in parse(tmp_path, "lib.rs", text).symbols] == ["Starts it."]


def test_a_typescript_doc_above_a_decorator_is_the_method_s_doc(tmp_path: Path) -> None:
    text = "class Api {\n  /** Lists the users. */\n  @Get()\n  list() {}\n}\n"
    assert next(s for s in parse(tmp_path, "api.ts", text).symbols if s.name == "list").doc == "Lists the users."


def test_a_ruby_body_s_first_definition_keeps_the_comment_above_it(tmp_path: Path) -> None:
    text = "module Rails\n  # Paths of an app.\n  class Paths\n    # Adds a path.\n    def add; end\n  end\nend\n"
    docs = {s.qualified: s.doc for s in parse(tmp_path, "paths.rb", text).symbols}
    assert docs == {"Rails": "", "Rails.Paths": "Paths of an app.", "Rails.Paths.add": "Adds a path."}


STREAM_HANDLER_PHP = """<?php
namespace Monolog\\Handler;

/** Stores to any stream resource. */
class StreamHandler
{
    public function write(array $record): void {}
}

function stream_helper(): void {}
"""

LOGGER_PHP = """<?php
namespace Monolog;

class Logger
{
    public function pushHandler(): void
    {
        $handler = new StreamHandler();
        stream_helper();
    }
}
"""


def test_a_php_statement_namespace_holds_the_definitions_after_it(tmp_path: Path) -> None:
    symbols = {s.qualified: s for s in parse(tmp_path, "src/Handler/StreamHandler.php", STREAM_HANDLER_PHP).symbols}
    handler = symbols["Monolog\\Handler.StreamHandler"]
    assert (handler.kind, handler.container) == ("class", "Monolog\\Handler")
    assert handler.doc == "Stores to any stream resource."
    assert symbols["Monolog\\Handler.StreamHandler.write"].kind == "method"
    assert symbols["Monolog\\Handler.stream_helper"].kind == "function"
    two = parse(tmp_path, "two.php", "<?php\nnamespace A;\nclass X {}\nnamespace B;\nfunction f() {}\n")
    assert [s.qualified for s in two.symbols if s.kind != "namespace"] == ["A.X", "B.f"]


def test_a_class_in_a_php_namespace_is_found_from_another_folder(tmp_path: Path) -> None:
    """A namespace is no class: its definitions stay in the graph's global tier, as top-level ones are."""
    files = {
        "src/Handler/StreamHandler.php": parse(tmp_path, "src/Handler/StreamHandler.php", STREAM_HANDLER_PHP),
        "src/Logger.php": parse(tmp_path, "src/Logger.php", LOGGER_PHP),
    }
    graph = CodeGraph(files).graph
    push = symbol_node_id("src/Logger.php", "Monolog.Logger.pushHandler")
    assert graph.has_edge(push, symbol_node_id("src/Handler/StreamHandler.php", "Monolog\\Handler.StreamHandler"))
    assert graph.has_edge(push, symbol_node_id("src/Handler/StreamHandler.php", "Monolog\\Handler.stream_helper"))


SOCKET_EX = """defmodule Phoenix.Socket do
  @moduledoc "A socket implementation."

  @typedoc "The socket."
  @type t :: %__MODULE__{assigns: map}
  @typep state(a) :: {a, map}

  @doc "Receives the socket params and authenticates the connection."
  @callback connect(params :: map, socket :: t) :: {:ok, t} | :error

  def id(_socket), do: nil
end
"""


def test_elixir_typespecs_and_callbacks_are_definitions(tmp_path: Path) -> None:
    symbols = {s.qualified: s for s in parse(tmp_path, "lib/socket.ex", SOCKET_EX).symbols}
    assert (symbols["Phoenix.Socket.t"].kind, symbols["Phoenix.Socket.state"].kind) == ("type", "type")
    connect = symbols["Phoenix.Socket.connect"]
    assert (connect.kind, connect.name_span.start_line) == ("function", 8)
    assert connect.doc == "Receives the socket params and authenticates the connection."
    assert symbols["Phoenix.Socket.id"].kind == "function"


@pytest.mark.parametrize(
    ("name", "text", "defined", "line"),
    [
        ("pipe.R", "#' The pipe.\n`%>%` <- function(lhs, rhs) {\n  rhs(lhs)\n}\n", "%>%", "`%>%` <- function"),
        ("HeaderTest.kt", "class HeaderTest {\n    fun `parses a header`() {\n    }\n}\n", "parses a header",
         "    fun `parses a header`()"),
    ],
)
def test_a_backquoted_definition_is_named_without_its_quotes(
    tmp_path: Path, name: str, text: str, defined: str, line: str
) -> None:
    parsed = parse(tmp_path, name, text)
    symbol = next(symbol for symbol in parsed.symbols if symbol.name == defined)
    source = text.split("\n")[symbol.name_span.start_line]
    assert source.startswith(line) and source[symbol.name_span.start_col:].startswith(defined)
